"""``python -m swingby.open_questions run [--only NAME]``: regenerate the stored open-question
sweeps (a progress line per cell on stderr); ``python -m swingby.open_questions
diffusion-init``: train (or resume) Q1's larger-initialisation diffusion runs."""
from __future__ import annotations

import argparse
import sys

import torch

from swingby.open_questions.experiments import EXPERIMENTS
from swingby.open_questions.store import run_experiment, save


def main(argv=None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run what it asks for, return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m swingby.open_questions")
    parser.add_argument("command", choices=["run", "diffusion-init"])
    parser.add_argument("--only", choices=sorted(EXPERIMENTS), action="append",
                        help="run only this experiment (repeatable)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    if args.command == "diffusion-init":
        if args.only:
            parser.error("--only names experiments of 'run'; diffusion-init takes no --only")
        from swingby.open_questions.diffusion_init_runs import read_contrast, run_contrast

        print(f"wrote {run_contrast()}", file=sys.stderr)
        try:  # the default arm is the stored cpu sweep: read, never made, here
            print(read_contrast().answer, file=sys.stderr)
        except ValueError as e:
            print(f"the runs are in; the contrast cannot be read yet: {e}", file=sys.stderr)
        return 0
    for name in args.only or list(EXPERIMENTS):
        print(f"wrote {save(name, run_experiment(name))}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
