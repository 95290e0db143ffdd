"""What every chapter does first (like d2l's ``use_svg_display``): one call instead of
the same three lines in each chapter.

    from swingby.chapter import setup
    setup()

Whether the chapter runs live (a reader in Jupyter) or static (the book build, the
tests) is :func:`swingby.live.static`; the explorers and progress bars ask it
themselves.
"""
from __future__ import annotations

from swingby import _checks


def setup(grid: bool = True, threads: int = 1) -> None:
    """Set the book's figure style (:func:`swingby.style.apply_style`: the Okabe-Ito
    palette as the colour cycle, 150 dpi, framed legends, legible font sizes) and
    torch's thread count.

    Parameters
    ----------
    grid : bool
        Draw a light grid on every axes (the topological-order chapter turns it off
        for its heat maps).
    threads : int
        Threads for torch. The chapters train many tiny models on a shared 2-core
        machine, where one thread per process avoids spin-waiting (a tiny matrix is
        about 12x faster on one thread than on two when the machine is busy).
    """
    import torch

    from swingby.style import apply_style

    grid = _checks.flag("grid", grid)
    threads = _checks.integer("threads", threads, low=1)
    apply_style(grid)
    torch.set_num_threads(threads)
