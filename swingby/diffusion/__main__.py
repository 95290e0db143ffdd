"""``python -m swingby.diffusion ...``: the command line of :mod:`swingby.diffusion.runs.cli`."""
import sys

from swingby.diffusion.runs.cli import main

__all__ = []

if __name__ == "__main__":
    sys.exit(main())
