"""ipywidgets explorers of the SIM and theory chapters (Neuromatch's pattern).

Each explorer draws its figure at the default values as a plain matplotlib output, so
a page built without a kernel shows it as an image. In a live notebook it then shows
its controls beside an output area that is drawn again when a control changes, and
returns a :class:`swingby.live.Explorer`; in static mode (``SWINGBY_STATIC=1``: the
book build, the tests) it creates no widget and returns ``None``
(:func:`swingby.live.explorer`).
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.live import Explorer, explorer
from swingby.observations.runs import record_grid
from swingby.plotting import plot_sim_3d, plot_sweep_trajectories, plot_test_losses
from swingby.sim.data import make_sim, second_moment
from swingby.sim.models import MLP
from swingby.sim.train import steps_per_epoch, train
from swingby.theory import detect_stages, dynamics_a, initial_U, simulate_symmetric
from swingby.theory.plots import plot_jacobian_entries, plot_output_trajectory

#: Largest ``n_per_cluster`` / ``epochs`` / ``steps`` of an explorer: every slider move
#: reruns the work, which must stay interactive.
MAX_POINTS, MAX_EPOCHS, MAX_STEPS = 20_000, 200, 200_000


def _slider_values(name: str, values, length: int, low: float, high: float) -> list[float]:
    """``length`` numbers in ``[low, high]``, the range of the explorer's sliders (a slider
    would silently clamp anything outside)."""
    arr = _checks.array(name, values, shape=(length,))
    if np.any(arr < low) or np.any(arr > high):
        raise ValueError(f"{name} must hold numbers in [{low}, {high}] (the sliders' range), got {list(values)}")
    return arr.tolist()


def _widgets():
    """ipywidgets, imported only when a live explorer makes its controls."""
    import ipywidgets
    return ipywidgets


def sim_data_explorer(mu=(1.0, 2.0, 1.5), sigma=(0.2, 0.2, 0.2), n_per_cluster: int = 300) -> Explorer | None:
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
    swingby.live.Explorer or None
        The live explorer; ``None`` in static mode (the default view is drawn either way).
    """
    mu, sigma = _slider_values("mu", mu, 3, 0.0, 4.0), _slider_values("sigma", sigma, 3, 0.0, 1.5)
    n_per_cluster = _checks.integer("n_per_cluster", n_per_cluster, low=1, high=MAX_POINTS)
    values = {**{f"mu_{k + 1}": m for k, m in enumerate(mu)}, **{f"sigma_{k + 1}": v for k, v in enumerate(sigma)},
              "origin": False, "truncate": False}

    def draw(mu_1, mu_2, mu_3, sigma_1, sigma_2, sigma_3, origin, truncate):
        mu_now, sigma_now = [mu_1, mu_2, mu_3], [sigma_1, sigma_2, sigma_3]
        if truncate and min(mu_now) == 0:
            print("truncation needs every mu > 0")
            return None
        data = make_sim(mu_now, sigma_now, 3, n_per_cluster, origin_cluster=origin, truncate=truncate, seed=0)
        a = second_moment(mu_now, sigma_now, 3, origin_cluster=origin)
        fig = plt.figure(figsize=(5.5, 5))
        ax = fig.add_subplot(projection="3d")
        plot_sim_3d(data, ax)
        ax.set_title("a = diag(A) = (" + ", ".join(f"{v:.2f}" for v in a) + ")", fontsize=9)
        return fig

    def make_controls():
        w = _widgets()
        sl = dict(continuous_update=False, readout_format=".2f")
        controls = {f"mu_{k + 1}": w.FloatSlider(value=m, min=0.0, max=4.0, step=0.1, description=f"mu_{k + 1}", **sl)
                    for k, m in enumerate(mu)}
        controls.update({f"sigma_{k + 1}": w.FloatSlider(value=v, min=0.0, max=1.5, step=0.05,
                                                         description=f"sigma_{k + 1}", **sl)
                         for k, v in enumerate(sigma)})
        controls["origin"] = w.Checkbox(value=False, description="origin cluster")
        controls["truncate"] = w.Checkbox(value=False, description="truncate")
        return controls

    return explorer(draw, values, make_controls)


# ---------------------------------------------------------------------------------
# Theory chapters (book/two_layer_theory, book/beyond_two_concepts)
# ---------------------------------------------------------------------------------
def symmetric_dynamics_explorer(mu=(1.0, 1.5), sigma: float = 0.05, init_scale: float = 0.2,
                                seed: int = 0, steps: int = 2000, eta: float = 0.01) -> Explorer | None:
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
    swingby.live.Explorer or None
        The live explorer; ``None`` in static mode (the default view is drawn either way).
    """
    mu = _slider_values("mu", mu, 2, 0.2, 3.0)
    sigma = _checks.number("sigma", sigma, low=0.0, high=1.5)
    init_scale = _checks.number("init_scale", init_scale, low=1e-3, high=1.0)
    seed = _checks.integer("seed", seed, low=0, high=2**31 - 1)
    steps = _checks.integer("steps", steps, low=2, high=MAX_STEPS)
    eta = _checks.positive_float("eta", eta)
    values = dict(mu_1=mu[0], mu_2=mu[1], sigma=sigma, init_scale=init_scale, seed=seed, matrix="authors")

    def draw(mu_1, mu_2, sigma, init_scale, seed, matrix):
        mu_now = np.array([mu_1, mu_2])
        paper = matrix == "paper"
        a = dynamics_a(mu_now, sigma, 3, matrix=matrix, origin_cluster=paper)
        x_hat = np.array([mu_1, mu_2, 0.0])
        U0 = initial_U(3, [seed], init="uniform", init_scale=init_scale)[0]
        rec = simulate_symmetric(U0, a, eta, steps, x_hat, record_every=max(1, steps // 1000), iterate="U")
        if not np.all(np.isfinite(rec.test_loss)):
            print("the simulation overflowed for these settings; try a smaller mu or sigma")
            return None
        stages = detect_stages(rec, 2)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
        plot_jacobian_entries(ax1, rec, 2, stages=stages)
        ax1.set_title(f"a = ({a[0]:.2f}, {a[1]:.2f}); {stages.n_descents} descent(s)", fontsize=9)
        plot_output_trajectory(ax2, rec, mu_now)
        plt.tight_layout()
        return fig

    def make_controls():
        w = _widgets()
        sl = dict(continuous_update=False)
        controls = {f"mu_{k + 1}": w.FloatSlider(value=m, min=0.2, max=3.0, step=0.05, description=f"mu_{k + 1}", **sl)
                    for k, m in enumerate(mu)}
        controls["sigma"] = w.FloatSlider(value=sigma, min=0.0, max=1.5, step=0.05, description="sigma", **sl)
        controls["init_scale"] = w.FloatLogSlider(value=init_scale, base=10, min=-3, max=0, step=0.1,
                                                  description="init scale", **sl)
        controls["seed"] = w.BoundedIntText(value=seed, min=0, max=2**31 - 1, description="seed")
        controls["matrix"] = w.ToggleButtons(options=[("authors: A^2", "authors"), ("paper: A", "paper")],
                                             value="authors", description="matrix")
        return controls

    return explorer(draw, values, make_controls)


# ---------------------------------------------------------------------------
# Chapter observations (Sec. 3, App. F): trajectory and test-loss explorer
# ---------------------------------------------------------------------------


def trajectory_explorer(n_per_cluster: int = 1000, epochs: int = 40, seed: int = 0) -> Explorer | None:
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
    swingby.live.Explorer or None
        The live explorer; ``None`` in static mode (the default view is drawn either way).
    """
    n_per_cluster = _checks.integer("n_per_cluster", n_per_cluster, low=1, high=MAX_POINTS)
    epochs = _checks.integer("epochs", epochs, low=1, high=MAX_EPOCHS)
    seed = _checks.seed("seed", seed)
    # sigma is a standard deviation; the default 0.224 is the authors' "0.05" (a variance)
    values = dict(mu_1=2.0, mu_2=4.0, sigma_1=0.05**0.5, sigma_2=0.05**0.5, origin=True, depth=4, d=2,
                  activation="linear", lr=0.01)

    def draw(mu_1, mu_2, sigma_1, sigma_2, origin, depth, d, activation, lr):
        data = make_sim([mu_1, mu_2], [sigma_1, sigma_2], d, n_per_cluster, origin_cluster=origin, rotate=d > 3,
                        seed=seed)
        model = MLP(d, depth, width=max(4, d), activation=activation, seed=seed)
        n_steps = epochs * steps_per_epoch(data.X.shape[0], 128)
        rec = train(model, data, lr=lr, epochs=epochs, record_train_loss=False, seed=seed,
                    record_steps=record_grid(n_steps, every=max(1, n_steps // 200)))
        fig, (ax_traj, ax_loss) = plt.subplots(1, 2, figsize=(10, 4))
        plot_sweep_trajectories(ax_traj, [rec], [f"depth {depth}, d = {d}"], title="output trajectory at x_hat")
        plot_test_losses(ax_loss, [rec], ["test loss"], title="OOD test loss")
        plt.tight_layout()
        return fig

    def make_controls():
        w = _widgets()
        sl = dict(continuous_update=False)
        return dict(
            mu_1=w.FloatSlider(value=2.0, min=0.5, max=4.0, step=0.25, description="mu_1", **sl),
            mu_2=w.FloatSlider(value=4.0, min=0.5, max=4.0, step=0.25, description="mu_2", **sl),
            sigma_1=w.FloatLogSlider(value=values["sigma_1"], base=10, min=-2, max=0.5, step=0.05,
                                     description="sigma_1", **sl),
            sigma_2=w.FloatLogSlider(value=values["sigma_2"], base=10, min=-2, max=0.5, step=0.05,
                                     description="sigma_2", **sl),
            origin=w.Checkbox(value=True, description="origin cluster"),
            depth=w.IntSlider(value=4, min=1, max=5, description="depth", **sl),
            d=w.Dropdown(options=[2, 3, 8, 64], value=2, description="d"),
            activation=w.Dropdown(options=["linear", "relu"], value="linear", description="activation"),
            lr=w.FloatLogSlider(value=0.01, base=10, min=-3, max=-0.5, step=0.25, description="lr", **sl),
        )

    return explorer(draw, values, make_controls)
