"""The figure helpers every part shares: the book's one figure style (the Okabe-Ito
colour-blind-safe :data:`PALETTE`, applied by :func:`apply_style`, which
:func:`swingby.chapter.setup` calls at the top of every chapter) and argument checks of
an ``Axes``, of the plotted dimensions and of colours and titles. The parts' figures are
in :mod:`swingby.sim.plots`, :mod:`swingby.observations.plots`, :mod:`swingby.theory.plots`,
:mod:`swingby.diffusion.fig6.plots` and :mod:`swingby.capability.plots`; they take their
colours from :data:`PALETTE` (and greys), one meaning per colour within a figure.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.colors import is_color_like

from swingby import _checks
from swingby.observations.learning import _record

# ----------------------------------------------------------------------------- style
#: The Okabe-Ito palette (Okabe and Ito 2008, "Color universal design"): eight colours
#: that people with the common colour-vision deficiencies can tell apart. Besides greys,
#: the book's figures use no other colours; vermillion and bluish green stand in for red
#: and green, which they never set against each other.
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",       # bluish green
    "vermillion": "#D55E00",
    "purple": "#CC79A7",      # reddish purple
    "sky": "#56B4E9",         # sky blue
    "yellow": "#F0E442",
    "black": "#000000",
}
#: The order of matplotlib's colour cycle (``"C0"``, ``"C1"``, ...): the first five
#: follow matplotlib's own (blue, orange, green, red, purple); yellow, weak on white,
#: comes late.
CYCLE = ("blue", "orange", "green", "vermillion", "purple", "sky", "yellow", "black")
#: Figures at 150 dpi on screen and on file, the Okabe-Ito cycle, a light grid, framed
#: legends and font sizes that stay legible when a figure about 8 inches wide is scaled
#: to the width of a book page.
RC_PARAMS = {
    "figure.dpi": 150,
    "savefig.dpi": 150,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "figure.titlesize": 11,
    "legend.frameon": True,
    "legend.framealpha": 0.9,
    "legend.edgecolor": "0.8",
}


def rc_params(grid: bool = True) -> dict:
    """The book's figure style as matplotlib rcParams: :data:`RC_PARAMS` with the
    Okabe-Ito colour cycle (:data:`PALETTE` in the order of :data:`CYCLE`).

    Parameters
    ----------
    grid : bool
        Draw a light grid on every axes.

    Returns
    -------
    dict
        rcParams, for ``plt.rcParams.update`` or ``plt.rc_context``.
    """
    from cycler import cycler

    grid = _checks.flag("grid", grid)
    return dict(RC_PARAMS, **{"axes.grid": grid,
                              "axes.prop_cycle": cycler(color=[PALETTE[name] for name in CYCLE])})


def cycle_colour(k: int) -> str:
    """The ``k``-th colour of the book's cycle (:data:`CYCLE`, repeated): for one line
    per seed or per run where the cycle of the axes is not used.

    Parameters
    ----------
    k : int
        Index of the line, ``>= 0``.

    Returns
    -------
    str
        A ``#rrggbb`` colour of :data:`PALETTE`.
    """
    k = _checks.integer("k", k, low=0)
    return PALETTE[CYCLE[k % len(CYCLE)]]


def apply_style(grid: bool = True) -> dict:
    """Apply the book's figure style (:func:`rc_params`) to matplotlib's rcParams, for
    every figure drawn after the call; :func:`swingby.chapter.setup` calls it at the top
    of every chapter.

    Parameters
    ----------
    grid : bool
        Draw a light grid on every axes (the topological-order chapter turns it off
        for its heat maps).

    Returns
    -------
    dict
        The rcParams that were set.
    """
    params = rc_params(grid)
    plt.rcParams.update(params)
    return params



# ----------------------------------------------------------------------------- checks
def _axes(ax, *, three_d: bool = False):
    if not isinstance(ax, Axes) or (three_d and not hasattr(ax, "set_zlabel")):
        kind = "3-D (projection='3d') " if three_d else ""
        raise ValueError(f"ax must be a matplotlib {kind}Axes, got {type(ax).__name__}")
    return ax


def _dims(dims, d: int) -> tuple[int, int]:
    """Two different axes in ``[0, d)``."""
    if isinstance(dims, (str, bytes)) or not hasattr(dims, "__len__") or len(dims) != 2:
        raise ValueError(f"dims must be a pair of axis indices (i, j), got {dims!r}")
    i, j = _checks.index("dims[0]", dims[0], d), _checks.index("dims[1]", dims[1], d)
    if i == j:
        raise ValueError(f"dims must name two different axes, got {dims!r}")
    return i, j


def _records_labels(records, labels) -> tuple[list, list]:
    """Finite :class:`~swingby.sim.train_loop.TrainRecord` s and one label each."""
    if isinstance(records, (str, bytes)) or not hasattr(records, "__iter__"):
        raise ValueError(f"records must be a sequence of TrainRecord, got {type(records).__name__}")
    records = [_record(f"records[{k}]", r) for k, r in enumerate(records)]
    labels = [] if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__") else list(labels)
    if not records or len(labels) != len(records):
        raise ValueError(f"records and labels must be non-empty and of one length (one label per record), "
                         f"got {len(records)} records and labels {labels!r}")
    return records, labels


def _style(color=None, title=None, cmap=None) -> None:
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
