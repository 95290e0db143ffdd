"""What every chapter does first: ``from swingby.chapter import setup; setup()`` (like d2l's
``use_svg_display``); live or static is :func:`swingby.live.static`."""
from __future__ import annotations

from swingby import _checks

__all__ = ["setup"]


def setup(grid: bool = True, threads: int = 1) -> None:
    """Set the book's figure style (:mod:`swingby.style`) and torch's thread count.

    Parameters
    ----------
    grid : bool
        Draw a light grid on every axes (the topological-order chapter turns it off for its heat maps).
    threads : int
        Threads for torch: one per process avoids spin-waiting on the shared 2-core machine.
    """
    import torch

    from swingby.style import apply_style

    grid = _checks.flag("grid", grid)
    threads = _checks.integer("threads", threads, low=1)
    apply_style(grid)
    torch.set_num_threads(threads)
