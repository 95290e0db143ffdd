"""The book's figure style, set by :func:`swingby.chapter.setup` in every chapter (the Okabe-Ito colour-blind-safe
``PALETTE`` as the colour cycle, 150 dpi, framed legends), and the argument checks the parts' plots share."""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.colors import is_color_like

from swingby import _checks

__all__ = []

#: The Okabe-Ito palette (Okabe and Ito 2008): eight colours that people with the common colour-vision
#: deficiencies can tell apart; besides greys the figures use no others.
PALETTE = {"blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "vermillion": "#D55E00",
           "purple": "#CC79A7", "sky": "#56B4E9", "yellow": "#F0E442", "black": "#000000"}
#: The order of the colour cycle (``"C0"``, ...): the first five as matplotlib's own; yellow, weak on white, late.
CYCLE = ("blue", "orange", "green", "vermillion", "purple", "sky", "yellow", "black")
#: 150 dpi, a light grid, framed legends, fonts legible when an 8-inch figure is scaled to a book page.
RC_PARAMS = {
    "figure.dpi": 150, "savefig.dpi": 150, "axes.grid": True, "grid.alpha": 0.3,
    "font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "xtick.labelsize": 9, "ytick.labelsize": 9,
    "legend.fontsize": 9, "legend.title_fontsize": 9, "figure.titlesize": 11,
    "legend.frameon": True, "legend.framealpha": 0.9, "legend.edgecolor": "0.8",
}


def rc_params(grid: bool = True) -> dict:
    """The book's style as rcParams: ``RC_PARAMS``, the Okabe-Ito cycle, a grid or none."""
    from cycler import cycler

    return dict(RC_PARAMS, **{"axes.grid": grid,
                              "axes.prop_cycle": cycler(color=[PALETTE[name] for name in CYCLE])})


def cycle_colour(k: int) -> str:
    """The ``k``-th colour of the book's cycle (``CYCLE``, repeated)."""
    return PALETTE[CYCLE[k % len(CYCLE)]]


def apply_style(grid: bool = True) -> dict:
    """Set matplotlib's rcParams to ``rc_params`` for every later figure; returns them."""
    params = rc_params(grid)
    plt.rcParams.update(params)
    return params


def check_axes(ax, *, three_d: bool = False):
    """``ax`` if it is a matplotlib ``Axes`` (a 3-D one with ``three_d``), else a ValueError."""
    if not isinstance(ax, Axes) or (three_d and not hasattr(ax, "set_zlabel")):
        kind = "3-D (projection='3d') " if three_d else ""
        raise ValueError(f"ax must be a matplotlib {kind}Axes, got {type(ax).__name__}")
    return ax


def check_dims(dims, d: int) -> tuple[int, int]:
    """Two different axes in ``[0, d)``."""
    if isinstance(dims, (str, bytes)) or not hasattr(dims, "__len__") or len(dims) != 2:
        raise ValueError(f"dims must be a pair of axis indices (i, j), got {dims!r}")
    i, j = _checks.index("dims[0]", dims[0], d), _checks.index("dims[1]", dims[1], d)
    if i == j:
        raise ValueError(f"dims must name two different axes, got {dims!r}")
    return i, j


def check_style(color=None, title=None, cmap=None) -> None:
    """A matplotlib colour (or None), a str title (or None), a colormap name (or None)."""
    if color is not None and not is_color_like(color):
        raise ValueError(f"color must be a matplotlib colour (a name such as 'black', '#rrggbb' as in "
                         f"swingby.style.PALETTE, or an RGB tuple), got {color!r}")
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a str or None, got {title!r}")
    if cmap is not None:
        try:
            plt.get_cmap(cmap)
        except (ValueError, TypeError):
            raise ValueError(f"cmap must be the name of a matplotlib colormap (e.g. 'viridis'), got {cmap!r}") from None
