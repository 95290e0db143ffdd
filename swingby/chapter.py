"""What every chapter does first (like d2l's ``use_svg_display``): one call instead of
the same three lines in each chapter.

    from swingby.chapter import setup
    QUICK = setup()
"""
from __future__ import annotations

from swingby import _checks
from swingby.fastmode import quick

#: the figure style of the book
RC_PARAMS = {"figure.dpi": 100, "axes.grid": True, "grid.alpha": 0.3}


def setup(grid: bool = True, threads: int = 1) -> bool:
    """Set the book's figure style and torch's thread count, and say whether quiet mode
    is on.

    Parameters
    ----------
    grid : bool
        Draw a light grid on every axes (the topological-order chapter turns it off
        for its heat maps).
    threads : int
        Threads for torch. The chapters train many tiny models on a shared 2-core
        machine, where one thread per process avoids spin-waiting (a tiny matrix is
        about 12x faster on one thread than on two when the machine is busy).

    Returns
    -------
    bool
        :func:`swingby.fastmode.quick`: True when ``SWINGBY_QUICK=1``, in which case the
        chapters hide their progress bars (nothing else changes).
    """
    import matplotlib.pyplot as plt
    import torch

    grid = _checks.flag("grid", grid)
    threads = _checks.integer("threads", threads, low=1)
    plt.rcParams.update(dict(RC_PARAMS, **{"axes.grid": grid}))
    torch.set_num_threads(threads)
    return quick()
