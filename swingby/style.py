"""The figure helpers every part shares: argument checks of an ``Axes`` and of the plotted
dimensions, and the one figure style (colours, titles). The parts' figures are in
:mod:`swingby.sim.plots`, :mod:`swingby.observations.plots`, :mod:`swingby.theory.plots`,
:mod:`swingby.diffusion.fig6.plots` and :mod:`swingby.capability.plots`.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.colors import is_color_like

from swingby import _checks
from swingby.observations.learning import _record


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
        raise ValueError(f"color must be a matplotlib colour (a name such as 'tab:red', '#rrggbb' or "
                         f"an RGB tuple), got {color!r}")
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a str or None, got {title!r}")
    if cmap is not None:
        try:
            plt.get_cmap(cmap)
        except (ValueError, TypeError):
            raise ValueError(f"cmap must be the name of a matplotlib colormap (e.g. 'viridis'), got {cmap!r}") from None
