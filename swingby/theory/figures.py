"""Figures of the theory chapters that draw several runs side by side (App. E,
``book/beyond_two_concepts.md``). Kept out of ``swingby.theory``'s namespace so that
importing the theory does not import matplotlib: ``from swingby.theory.figures import ...``.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from swingby import _checks
from swingby.theory.plots import plot_jacobian_entries, plot_output_trajectory
from swingby.theory.simulation import SymmetricRecord
from swingby.theory.stages import Stages


class StagePanel(NamedTuple):
    """One row of :func:`plot_stage_rows`."""

    record: SymmetricRecord  #: a single trajectory
    stages: Stages  #: its stages (:func:`swingby.theory.stages.detect_stages`)
    title: str  #: the title of the row's left panel


def plot_stage_rows(panels: Sequence[StagePanel], mu, *, dims=(0, 1), title_size: float | None = None,
                    figsize: tuple | None = None) -> Figure:
    """One row per run: the test loss and the entries of ``W(t)`` with the stages
    shaded (log time, from ``t = 0.1``), and the output trajectory at ``x_hat``.

    Figs. 8, 9 and 10 of ``book/beyond_two_concepts.md`` (the authors' run above the
    paper's matrix, or the runs of the failure mode).

    Parameters
    ----------
    panels : sequence of StagePanel
        ``(record, stages, title)`` for each row, top to bottom.
    mu : array_like(float, ndim=1)
        The cluster distances of the setting (``s = len(mu)`` major entries).
    dims : tuple of int
        The two concepts of the output trajectory's plane.
    title_size : float, optional
        Font size of the left panels' titles (default: the style's).
    figsize : tuple, optional
        Default ``(8, 3.7 * len(panels))``: narrow enough that the labels stay legible
        when the figure is scaled to a book page's width (about 700 px at 1280 px).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if isinstance(panels, (str, bytes)) or not hasattr(panels, "__iter__"):
        raise ValueError(f"panels must be a non-empty sequence of (record, stages, title), got {panels!r}")
    panels = list(panels)
    if not panels:
        raise ValueError("panels must be a non-empty sequence of (record, stages, title), got an empty one")
    for k, panel in enumerate(panels):
        if not isinstance(panel, tuple) or len(panel) != 3 or not isinstance(panel[2], str):
            raise ValueError(f"panels[{k}] must be a (record, stages, title) tuple, got {_checks.short_repr(panel)}")
    panels = [StagePanel(*panel) for panel in panels]
    s = _checks.nonneg_vector("mu", mu).size
    title_kw = {} if title_size is None else {"fontsize": _checks.positive_float("title_size", title_size)}
    fig, axes = plt.subplots(len(panels), 2, figsize=figsize or (8, 3.7 * len(panels)), squeeze=False,
                             gridspec_kw={"width_ratios": [1.6, 1]})
    for row, panel in zip(axes, panels):
        plot_jacobian_entries(row[0], panel.record, s=s, stages=panel.stages, logx=True)
        row[0].set_xlim(left=0.1)
        row[0].set_title(panel.title, **title_kw)
        plot_output_trajectory(row[1], panel.record, mu, dims=dims)
        row[1].set_title(f"output trajectory, concepts {dims[0] + 1} and {dims[1] + 1}")
    fig.tight_layout()
    return fig

