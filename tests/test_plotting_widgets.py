"""Smoke tests of swingby.plotting and swingby.widgets (issue 13 and issue 14).

Every public plotting function and every explorer is called once on tiny inputs with
the Agg backend, so a plot that breaks fails a test. The explorers are also checked for
the behaviour the static book relies on: the default figure is shown as a plain output
*before* the live widget is displayed, and the widget's own output area is drawn again
only when a control changes.
"""
from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from swingby import plotting as P  # noqa: E402
from swingby import theory as T  # noqa: E402
from swingby import widgets as W  # noqa: E402
from swingby.models import MLP  # noqa: E402
from swingby.sim import make_sim  # noqa: E402
from swingby.train import train  # noqa: E402

torch.set_num_threads(1)
DATA3 = make_sim([1.0, 2.0, 1.5], 0.2, 3, 20, seed=0)
DATA2 = make_sim([1.0, 2.0], 0.2, 2, 20, origin_cluster=True, seed=0)
REC = train(MLP(2, 1), DATA2, epochs=2, batch_size=10, record_every=1)
SYM = T.simulate_symmetric(np.full((2, 2), 0.1), np.array([1.0, 0.5]), 0.05, 40, np.array([1.0, 1.0]))
STAGES = T.detect_stages(SYM, 2)
IDX2 = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _ax():
    return plt.figure().add_subplot()


def test_plot_sim_3d():
    ax = P.plot_sim_3d(DATA3, max_points=5)
    assert hasattr(ax, "set_zlabel") and len(ax.collections) >= 4  # 3 clusters, test points, x_hat
    ax2 = plt.figure().add_subplot(projection="3d")
    assert P.plot_sim_3d(make_sim([1.0, 2.0], 0.2, 2, 10, origin_cluster=True), ax2) is ax2  # s = 2 padded


def test_trajectory_and_concept_plane():
    ax = _ax()
    line = P.plot_trajectory(ax, REC.trajectory, n_markers=3, label="run", color="tab:red")
    assert isinstance(line, Line2D) and len(ax.lines) == 2  # the path and its markers
    P.mark_concept_plane(ax, [1.0, 2.0])
    assert ax.get_xlabel() == "output along concept 1"


def test_plot_entry_types():
    ax = P.plot_entry_types(3, 2, group=0)
    assert isinstance(ax, Axes) and len(ax.texts) == 9


def test_theory_panels():
    ax = _ax()
    assert P.plot_jacobian_entries(ax, SYM, 2, stages=STAGES, logx=True, loss_scale=2.0) is ax
    P.shade_loss_segments(_ax(), STAGES)
    ax = _ax()
    assert P.plot_output_trajectory(ax, SYM, [1.0, 1.0], centres=True) is ax
    assert len(ax.lines) >= 6  # three trajectories with their markers


def test_sweep_panels():
    ax = _ax()
    assert P.plot_sweep_trajectories(ax, [REC, REC], ["a", "b"], n_markers=4, title="t") is ax
    assert ax.get_title() == "t" and ax.get_legend() is not None
    ax = _ax()
    assert P.plot_test_losses(ax, [REC], ["loss"], logx=False) is ax
    assert len(ax.lines) == 1


def test_hypercube():
    pos = P.hypercube_layout(IDX2)
    np.testing.assert_array_equal(pos[:, 0], [0, 1, 1, 2])
    sc = P.plot_hypercube(_ax(), IDX2, np.array([0.0, 0.3, 0.6, 2.0]), vmax=1.0, title="h")
    assert isinstance(sc, PathCollection)
    np.testing.assert_allclose(sc.get_array(), [0.0, 0.3, 0.6, 1.0])  # truncated at vmax


# ----------------------------------------------------------------------------- explorers
@pytest.fixture
def calls(monkeypatch):
    """Record, in order, every ``plt.show`` (``"show"``) and ``display`` (``"display"``)."""
    log = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: log.append("show"))
    monkeypatch.setattr(W, "display", lambda *a, **k: log.append("display"))
    return log


EXPLORERS = [
    (W.sim_data_explorer, dict(n_per_cluster=10)),
    (W.symmetric_dynamics_explorer, dict(steps=50)),
    (W.trajectory_explorer, dict(n_per_cluster=20, epochs=1)),
]


@pytest.mark.parametrize("explorer, kwargs", EXPLORERS, ids=[e.__name__ for e, _ in EXPLORERS])
def test_explorer_static_view_first_then_live_widget(explorer, kwargs, calls):
    import ipywidgets as widgets

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # e.g. tight_layout on a tiny figure
        box = explorer(**kwargs)
    # the default figure is a plain output, shown before the widget is displayed
    assert calls == ["show", "display"]
    assert not plt.get_fignums()  # and closed, so it is not shown a second time
    assert isinstance(box, widgets.HBox)
    controls, out = box.children
    assert isinstance(out, widgets.Output) and out.outputs == ()  # empty until a control changes
    # changing a control draws again
    slider = next(w for w in controls.children if isinstance(w, (widgets.FloatSlider, widgets.FloatLogSlider)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        slider.value = slider.value * 0.9
    assert calls == ["show", "display", "show"]
