"""ipywidgets explorers of the chapters (Neuromatch's pattern, issue 14).

Each explorer first draws its figure at the default values as a plain matplotlib
output (``plt.show()`` outside any ``widgets.Output``), so a page built without a kernel
shows it as an image, visible without JavaScript; it then displays the live widget:
sliders beside an output area that stays empty until a control changes, when the
figure is drawn again there for the new values. Each returns the widget box.
"""
from __future__ import annotations

from typing import Callable, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from swingby import _checks
from swingby.models import MLP
from swingby.observations import record_grid
from swingby.plotting import (
    plot_jacobian_entries,
    plot_output_trajectory,
    plot_sim_3d,
    plot_sweep_trajectories,
    plot_test_losses,
)
from swingby.sim import make_sim, second_moment
from swingby.theory import detect_stages, dynamics_a, initial_U, simulate_symmetric
from swingby.train import steps_per_epoch, train

#: Largest ``n_per_cluster`` / ``epochs`` / ``steps`` of an explorer: every slider move
#: reruns the work, which must stay interactive.
MAX_POINTS, MAX_EPOCHS, MAX_STEPS = 20_000, 200, 200_000


def _show(fig) -> None:
    """Show ``fig`` (an image under the inline backend) and close it, so that no figure is
    left open to be shown twice or to pile up in a script."""
    plt.show()
    plt.close(fig)


def _explorer(controls: Sequence[widgets.Widget], draw: Callable[[], None]) -> widgets.HBox:
    """Draw the static view, then display ``controls`` beside an empty output area that
    ``draw`` fills again whenever a control changes; return the box."""
    draw()  # the static view at the default values: a plain output, outside the widget
    out = widgets.Output()

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            draw()

    for w in controls:
        w.observe(redraw, names="value")
    box = widgets.HBox([widgets.VBox(list(controls)), out])
    display(box)
    return box


def _slider_values(name: str, values, length: int, low: float, high: float) -> list[float]:
    """``length`` numbers in ``[low, high]``, the range of the explorer's sliders (a slider
    would silently clamp anything outside)."""
    arr = _checks.array(name, values, shape=(length,))
    if np.any(arr < low) or np.any(arr > high):
        raise ValueError(f"{name} must hold numbers in [{low}, {high}] (the sliders' range), got {list(values)}")
    return arr.tolist()


def sim_data_explorer(mu=(1.0, 2.0, 1.5), sigma=(0.2, 0.2, 0.2), n_per_cluster: int = 300) -> widgets.HBox:
    """Explore the SIM training set (Fig. 1c) for chosen ``mu`` and ``sigma`` (``s = 3``,
    ``d = 3``): sliders redraw the clusters, the test points and ``a = diag(A)``.
    Used in ``book/sim_task.md``.

    Parameters
    ----------
    mu : sequence of float
        3 cluster distances in ``[0, 4]`` (the sliders' range).
    sigma : sequence of float
        3 standard deviations in ``[0, 1.5]``.
    n_per_cluster : int
        Points per cluster, in ``[1, MAX_POINTS]``.

    Returns
    -------
    ipywidgets.HBox
        The live explorer (its static view at the given values is drawn first).
    """
    mu, sigma = _slider_values("mu", mu, 3, 0.0, 4.0), _slider_values("sigma", sigma, 3, 0.0, 1.5)
    n_per_cluster = _checks.integer("n_per_cluster", n_per_cluster, low=1, high=MAX_POINTS)
    sl = dict(continuous_update=False, readout_format=".2f")
    w_mu = [widgets.FloatSlider(value=m, min=0.0, max=4.0, step=0.1, description=f"mu_{k + 1}", **sl)
            for k, m in enumerate(mu)]
    w_sigma = [widgets.FloatSlider(value=v, min=0.0, max=1.5, step=0.05, description=f"sigma_{k + 1}", **sl)
               for k, v in enumerate(sigma)]
    w_origin = widgets.Checkbox(value=False, description="origin cluster")
    w_truncate = widgets.Checkbox(value=False, description="truncate")

    def draw():
        mu_now, sigma_now = [w.value for w in w_mu], [w.value for w in w_sigma]
        if w_truncate.value and min(mu_now) == 0:
            print("truncation needs every mu > 0")
            return
        data = make_sim(mu_now, sigma_now, 3, n_per_cluster, origin_cluster=w_origin.value,
                        truncate=w_truncate.value, seed=0)
        a = second_moment(mu_now, sigma_now, 3, origin_cluster=w_origin.value)
        fig = plt.figure(figsize=(5.5, 5))
        ax = fig.add_subplot(projection="3d")
        plot_sim_3d(data, ax)
        ax.set_title("a = diag(A) = (" + ", ".join(f"{v:.2f}" for v in a) + ")", fontsize=9)
        _show(fig)

    return _explorer(w_mu + w_sigma + [w_origin, w_truncate], draw)


# ---------------------------------------------------------------------------------
# Theory chapters (book/two_layer_theory, book/beyond_two_concepts)
# ---------------------------------------------------------------------------------
def symmetric_dynamics_explorer(mu=(1.0, 1.5), sigma: float = 0.05, init_scale: float = 0.2,
                                seed: int = 0, steps: int = 2000, eta: float = 0.01) -> widgets.HBox:
    """Explore the symmetric two-layer dynamics (Fig. 5) at ``d = 3``, ``s = 2``.

    Sliders for ``mu``, ``sigma``, the initialisation scale and the seed, and a switch
    between the authors' ``A^2`` (default, :func:`swingby.theory.authors_a`) and the
    paper's ``A`` (eq. C.13 with the origin cluster), redraw the Jacobian entries, the
    test loss and the output trajectory (uniform initialisation; gradient descent on
    ``U``, i.e. eq. D.2 up to ``O(eta^2)`` per step, which unlike iterating D.2 on ``W``
    cannot leave the PSD cone). Used in ``book/two_layer_theory.md``.

    Parameters
    ----------
    mu : sequence of float
        2 cluster distances in ``[0.2, 3]`` (the sliders' range).
    sigma : float
        Standard deviation, in ``[0, 1.5]``.
    init_scale : float
        Scale of the uniform initial ``U``, in ``[0.001, 1]``.
    seed : int
        Seed of the initialisation, in ``[0, 2**31 - 1]``.
    steps : int
        Gradient steps, in ``[2, MAX_STEPS]``.
    eta : float
        Step size, ``> 0``.

    Returns
    -------
    ipywidgets.HBox
        The live explorer (its static view at the given values is drawn first).
    """
    mu = _slider_values("mu", mu, 2, 0.2, 3.0)
    sigma = _checks.number("sigma", sigma, low=0.0, high=1.5)
    init_scale = _checks.number("init_scale", init_scale, low=1e-3, high=1.0)
    seed = _checks.integer("seed", seed, low=0, high=2**31 - 1)
    steps = _checks.integer("steps", steps, low=2, high=MAX_STEPS)
    eta = _checks.positive_float("eta", eta)
    sl = dict(continuous_update=False)
    w_mu = [widgets.FloatSlider(value=m, min=0.2, max=3.0, step=0.05, description=f"mu_{k + 1}", **sl)
            for k, m in enumerate(mu)]
    w_sigma = widgets.FloatSlider(value=sigma, min=0.0, max=1.5, step=0.05, description="sigma", **sl)
    w_scale = widgets.FloatLogSlider(value=init_scale, base=10, min=-3, max=0, step=0.1,
                                     description="init scale", **sl)
    w_seed = widgets.BoundedIntText(value=seed, min=0, max=2**31 - 1, description="seed")
    w_matrix = widgets.ToggleButtons(options=[("authors: A^2", "authors"), ("paper: A", "paper")],
                                     value="authors", description="matrix")

    def draw():
        mu_now = np.array([w.value for w in w_mu])
        paper = w_matrix.value == "paper"
        a = dynamics_a(mu_now, w_sigma.value, 3, matrix=w_matrix.value, origin_cluster=paper)
        x_hat = np.array([mu_now[0], mu_now[1], 0.0])
        U0 = initial_U(3, [w_seed.value], init="uniform", init_scale=w_scale.value)[0]
        rec = simulate_symmetric(U0, a, eta, steps, x_hat, record_every=max(1, steps // 1000), iterate="U")
        if not np.all(np.isfinite(rec.test_loss)):
            print("the simulation overflowed for these settings; try a smaller mu or sigma")
            return
        stages = detect_stages(rec, 2)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
        plot_jacobian_entries(ax1, rec, 2, stages=stages)
        ax1.set_title(f"a = ({a[0]:.2f}, {a[1]:.2f}); {stages.n_descents} descent(s)", fontsize=9)
        plot_output_trajectory(ax2, rec, mu_now)
        plt.tight_layout()
        _show(fig)

    return _explorer(w_mu + [w_sigma, w_scale, w_seed, w_matrix], draw)


# ---------------------------------------------------------------------------
# Chapter observations (Sec. 3, App. F): trajectory and test-loss explorer
# ---------------------------------------------------------------------------


def trajectory_explorer(n_per_cluster: int = 1000, epochs: int = 40, seed: int = 0) -> widgets.HBox:
    """Explore output trajectories (Fig. 2) and OOD test losses (Fig. 3) of an MLP on the
    SIM task with ``s = 2``. Used in ``book/observations.md``.

    Sliders for ``mu_1, mu_2, sigma_1, sigma_2`` (standard deviations; default 0.224,
    the authors' 0.05), the origin cluster (on, as in the authors' runs), depth, ``d``,
    activation and learning rate; the defaults are the four-layer ``d = 2`` run of
    Fig. 2(c). Each redraw trains one model.

    Parameters
    ----------
    n_per_cluster : int
        Points per cluster, in ``[1, MAX_POINTS]``; smaller than the paper's 5000 (with
        batch 128 that is fewer SGD steps) so that a redraw takes about a second.
    epochs : int
        Training epochs, in ``[1, MAX_EPOCHS]``.
    seed : int
        Seed of data, initialisation and shuffling.

    Returns
    -------
    ipywidgets.HBox
        The live explorer (its static view at the default values is drawn first).
    """
    n_per_cluster = _checks.integer("n_per_cluster", n_per_cluster, low=1, high=MAX_POINTS)
    epochs = _checks.integer("epochs", epochs, low=1, high=MAX_EPOCHS)
    seed = _checks.seed("seed", seed)
    sl = dict(continuous_update=False)
    w_mu1 = widgets.FloatSlider(value=2.0, min=0.5, max=4.0, step=0.25, description="mu_1", **sl)
    w_mu2 = widgets.FloatSlider(value=4.0, min=0.5, max=4.0, step=0.25, description="mu_2", **sl)
    # sigma is a standard deviation; the default 0.224 is the authors' "0.05" (a variance)
    w_s1 = widgets.FloatLogSlider(value=0.05**0.5, base=10, min=-2, max=0.5, step=0.05, description="sigma_1", **sl)
    w_s2 = widgets.FloatLogSlider(value=0.05**0.5, base=10, min=-2, max=0.5, step=0.05, description="sigma_2", **sl)
    w_origin = widgets.Checkbox(value=True, description="origin cluster")
    w_depth = widgets.IntSlider(value=4, min=1, max=5, description="depth", **sl)
    w_d = widgets.Dropdown(options=[2, 3, 8, 64], value=2, description="d")
    w_act = widgets.Dropdown(options=["linear", "relu"], value="linear", description="activation")
    w_lr = widgets.FloatLogSlider(value=0.01, base=10, min=-3, max=-0.5, step=0.25, description="lr", **sl)

    def draw():
        d = w_d.value
        data = make_sim([w_mu1.value, w_mu2.value], [w_s1.value, w_s2.value], d, n_per_cluster,
                        origin_cluster=w_origin.value, rotate=d > 3, seed=seed)
        model = MLP(d, w_depth.value, width=max(4, d), activation=w_act.value, seed=seed)
        n_steps = epochs * steps_per_epoch(data.X.shape[0], 128)
        rec = train(model, data, lr=w_lr.value, epochs=epochs, record_train_loss=False, seed=seed,
                    record_steps=record_grid(n_steps, every=max(1, n_steps // 200)))
        fig, (ax_traj, ax_loss) = plt.subplots(1, 2, figsize=(10, 4))
        plot_sweep_trajectories(ax_traj, [rec], [f"depth {w_depth.value}, d = {d}"],
                                title="output trajectory at x_hat")
        plot_test_losses(ax_loss, [rec], ["test loss"], title="OOD test loss")
        plt.tight_layout()
        _show(fig)

    return _explorer([w_mu1, w_mu2, w_s1, w_s2, w_origin, w_depth, w_d, w_act, w_lr], draw)
