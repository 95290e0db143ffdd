"""``python -m swingby.open_questions run [--only NAME]``: regenerate the stored results
of ``book/open_questions.md`` under ``results/open_questions/`` (a text progress line per
cell on stderr). ``python -m swingby.open_questions diffusion-init``: train (or resume)
the larger-initialisation diffusion runs of Q1
(:mod:`swingby.open_questions.diffusion_init`, :mod:`~swingby.open_questions.diffusion_init_runs`) into
``results/open_questions/diffusion_init/``."""
from __future__ import annotations

import argparse
import sys

import torch

from swingby.open_questions.experiments import EXPERIMENTS
from swingby.open_questions.store import run_experiment, save


def main(argv=None) -> int:
    """Parse ``argv`` and run the experiments asked for; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
    """
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
        try:  # the stored default sweep must be the cpu preset's (it is read, never made, here)
            print(read_contrast().answer, file=sys.stderr)
        except ValueError as e:
            print(f"the runs are in; the contrast cannot be read yet: {e}", file=sys.stderr)
        return 0
    for name in args.only or list(EXPERIMENTS):
        path = save(name, run_experiment(name))
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
