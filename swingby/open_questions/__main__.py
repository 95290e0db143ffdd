"""``python -m swingby.open_questions run [--only NAME]``: regenerate the stored results
of ``book/open_questions.md`` under ``results/open_questions/`` (a text progress line per
cell on stderr)."""
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
    parser.add_argument("command", choices=["run"])
    parser.add_argument("--only", choices=sorted(EXPERIMENTS), action="append",
                        help="run only this experiment (repeatable)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    for name in args.only or list(EXPERIMENTS):
        path = save(name, run_experiment(name))
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
