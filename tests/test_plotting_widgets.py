"""Smoke tests of the figures (swingby.style, sim/observations/theory plots) and the explorers.

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

from swingby import explorable
from swingby.observations import explorer as OX
from swingby.observations import plots as OP
from swingby.sim import explorer as SX
from swingby.sim import plots as SPL
from swingby.sim import symmetric as SIMU
from swingby.sim.data import make_sim  # noqa: E402
from swingby.sim.models import MLP  # noqa: E402
from swingby.sim.train import train  # noqa: E402
from swingby.theory import explorer as TX
from swingby.theory import plots as TP
from swingby.theory import stages as TST

torch.set_num_threads(1)
DATA3 = make_sim([1.0, 2.0, 1.5], 0.2, 3, 20, seed=0)
DATA2 = make_sim([1.0, 2.0], 0.2, 2, 20, origin_cluster=True, seed=0)
REC = train(MLP(2, 1), DATA2, epochs=2, batch_size=10, record_every=1)
SYM = SIMU.simulate_symmetric(np.full((2, 2), 0.1), np.array([1.0, 0.5]), 0.05, 40, np.array([1.0, 1.0]))
STAGES = TST.detect_stages(SYM, 2)
IDX2 = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _ax():
    return plt.figure().add_subplot()


def test_plot_sim_3d():
    ax = SPL.plot_sim_3d(DATA3, max_points=5)
    assert hasattr(ax, "set_zlabel") and len(ax.collections) >= 4  # 3 clusters, test points, x_hat
    ax2 = plt.figure().add_subplot(projection="3d")
    assert SPL.plot_sim_3d(make_sim([1.0, 2.0], 0.2, 2, 10, origin_cluster=True), ax2) is ax2  # s = 2 padded


def test_trajectory_and_concept_plane():
    ax = _ax()
    line = OP.plot_trajectory(ax, REC.trajectory, n_markers=3, label="run", color="tab:red")
    assert isinstance(line, Line2D) and len(ax.lines) == 1  # the path
    assert len(ax.texts) == 4  # an arrowhead at each of the 3 + 1 marker steps
    leftward = _ax()  # the arrowheads point the way the path goes (a fixed '>' marker would point right)
    OP.plot_trajectory(leftward, np.array([[2.0, 0.0], [1.0, 0.5], [0.0, 1.0]]), n_markers=2)
    assert len(leftward.texts) == 3
    assert all(t.xy[0] < t.xyann[0] and t.xy[1] > t.xyann[1] for t in leftward.texts)
    OP.mark_concept_plane(ax, [1.0, 2.0])
    assert ax.get_xlabel() == "output along concept 1"


def test_the_book_style_is_okabe_ito_at_150_dpi():
    from swingby import style

    with plt.rc_context(style.rc_params()):
        assert plt.rcParams["figure.dpi"] == plt.rcParams["savefig.dpi"] == 150
        assert plt.rcParams["axes.prop_cycle"].by_key()["color"] == [style.PALETTE[c] for c in style.CYCLE]
        assert plt.rcParams["legend.frameon"] and plt.rcParams["font.size"] >= 9
    assert set(style.CYCLE) == set(style.PALETTE) and style.cycle_colour(9) == style.PALETTE[style.CYCLE[1]]
    assert not style.rc_params(grid=False)["axes.grid"]


def test_plot_entry_types():
    ax = TP.plot_entry_types(3, 2, group=0)
    assert isinstance(ax, Axes) and len(ax.texts) == 9


def test_theory_panels():
    ax = _ax()
    assert TP.plot_jacobian_entries(ax, SYM, 2, STAGES) is ax
    TP.shade_loss_segments(_ax(), STAGES)
    ax = _ax()
    TP.shade_loss_segments(ax, STAGES, growth_colours=TP.ENTRY_COLOURS[:2])
    assert not ax.texts  # coloured growth lines go without rotated labels
    ax = _ax()
    assert TP.plot_output_trajectory(ax, SYM, [1.0, 1.0], centres=True) is ax
    assert len(ax.lines) >= 3 and len(ax.texts) >= 3  # three trajectories with their arrowheads


def test_sweep_panels():
    ax = _ax()
    assert OP.plot_sweep_trajectories(ax, [REC, REC], ["a", "b"], n_markers=4, title="t") is ax
    assert ax.get_title() == "t" and ax.get_legend() is not None
    ax = _ax()
    assert OP.plot_test_losses(ax, [REC], ["loss"], logx=False) is ax
    assert len(ax.lines) == 1


def test_hypercube():
    sc = OP.plot_hypercube(_ax(), IDX2, np.array([0.0, 0.3, 0.6, 2.0]), vmax=1.0, title="h")
    assert isinstance(sc, PathCollection)
    np.testing.assert_allclose(sc.get_array(), [0.0, 0.3, 0.6, 1.0])  # truncated at vmax


# ----------------------------------------------------------------------------- explorers
@pytest.fixture
def shows(monkeypatch):
    """Count every ``plt.show`` (the static view and each redraw call it once)."""
    log = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: log.append("show"))
    return log


EXPLORERS = [
    (SX.sim_data_explorer, dict(n_per_cluster=10), "mu_1"),
    (TX.symmetric_dynamics_explorer, dict(steps=50), "mu_1"),
    (OX.trajectory_explorer, dict(n_per_cluster=20, epochs=1), "mu_2"),
]
IDS = [e.__name__ for e, _, _ in EXPLORERS]


@pytest.mark.parametrize("explorer, kwargs, control", EXPLORERS, ids=IDS)
def test_explorer_in_static_mode_draws_its_explorable_and_no_widget(explorer, kwargs, control, shows,
                                                                     monkeypatch):
    import IPython.display
    import ipywidgets as widgets

    monkeypatch.setenv("SWINGBY_STATIC", "1")
    made, shown = [], []
    monkeypatch.setattr(widgets.Widget, "open", lambda self: made.append(type(self).__name__))
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    # every grid point is drawn; encoding is tested in tests/test_explorable.py
    monkeypatch.setattr(explorable, "_frame", lambda fig: (plt.close(fig), str(len(made) + len(shown)).encode())[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert explorer(**kwargs) is None
    assert shows == [] and not plt.get_fignums()  # every frame drawn and closed, none shown
    assert len(shown) == 1 and '<div class="sb-explorable"' in shown[0].data  # the static explorable
    assert made == []  # not one widget (no comm, no traffic between kernel and client)


@pytest.mark.parametrize("explorer, kwargs, control", EXPLORERS, ids=IDS)
def test_live_explorer_redraws_a_new_figure_when_a_control_moves(explorer, kwargs, control, shows, monkeypatch):
    import ipywidgets as widgets

    from swingby import live
    monkeypatch.setenv("SWINGBY_STATIC", "0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        exp = explorer(**kwargs)
    assert isinstance(exp, live.Explorer) and exp.draws == 1 and exp.last_png
    assert shows == ["show"] and not plt.get_fignums()  # the default view is a plain output, closed
    panel, out = exp.box.children
    assert isinstance(out, widgets.Output) and out.outputs == ()  # empty until a control changes
    first = exp.last_png
    slider = exp.controls[control]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        slider.value = slider.value * 0.8
    assert exp.draws == 2 and shows == ["show", "show"]
    assert exp.last_png and exp.last_png != first  # a different figure for the new value


@pytest.mark.parametrize("value, expected", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_static_mode_is_read_from_the_environment(value, expected, monkeypatch):
    from swingby import live
    monkeypatch.setenv("SWINGBY_STATIC", value)
    assert live.static() is expected
    bar = live.progress(range(3), desc="x")
    assert bar.disable is expected and list(bar) == [0, 1, 2]
    bar.close()


def test_static_mode_refuses_a_typo(monkeypatch):
    from swingby import live
    monkeypatch.setenv("SWINGBY_STATIC", "static")
    with pytest.raises(ValueError, match="SWINGBY_STATIC"):
        live.static()
    monkeypatch.delenv("SWINGBY_STATIC")
    assert live.static() is False
    assert live.progress(range(3), enabled=False).disable


def test_a_live_explorer_redraws_in_a_kernel(monkeypatch):
    """In a real kernel, as a reader's Jupyter drives it, without SWINGBY_STATIC: the
    explorer is created with its widgets (comm messages), a control is moved, and the
    redraw in its output area is a new figure, different from the default view.

    The kernel is driven by jupyter_client, as a front end does. (nbclient, the client of
    the book build, can wait its whole timeout after such widget traffic: nbclient issue
    312, the reason static mode exists; measured here, 2 of 3 runs of this test through
    nbclient waited out a 120 s timeout, none of 3 through jupyter_client.)"""
    from jupyter_client.manager import start_new_kernel

    monkeypatch.delenv("SWINGBY_STATIC", raising=False)
    km, kc = start_new_kernel(kernel_name="python3")
    msgs = []
    try:
        for code in ["%matplotlib inline\nfrom swingby.sim.explorer import sim_data_explorer\n"
                     "e = sim_data_explorer(n_per_cluster=10)\nfirst = e.last_png",
                     "e.controls['mu_1'].value = 2.5\n"
                     "assert e.draws == 2 and e.last_png and e.last_png != first\nprint('redrawn')"]:
            msgs.append([])
            reply = kc.execute_interactive(code, timeout=60, output_hook=msgs[-1].append)
            assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    first, second = ([(m["msg_type"], m["content"]) for m in cell] for cell in msgs)
    images = [c for t, c in first if t == "display_data" and "image/png" in c["data"]]
    assert len(images) == 1  # the default view, a plain image outside any widget
    assert any(t == "comm_open" for t, _ in first)  # the live controls
    # the redraw: the output area is cleared and gets the new figure, then the check prints
    assert [t for t, c in second if t == "clear_output" or (t == "display_data" and "image/png" in c["data"])] \
        == ["clear_output", "display_data"]
    assert any(t == "stream" and c["text"].strip() == "redrawn" for t, c in second)
