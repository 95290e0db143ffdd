"""The trajectory and test-loss explorer of ``book/observations.md`` (Sec. 3, App. F;
``swingby.live.explorer``: a static explorable in the built book).
"""
from __future__ import annotations

import matplotlib.pyplot as plt

from swingby import _checks
from swingby.explorable import Axis, along, switch
from swingby.live import MAX_EPOCHS, MAX_POINTS, Explorer, explorer, ipywidgets
from swingby.observations.plots import plot_sweep_trajectories, plot_test_losses
from swingby.observations.runs import record_grid
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.train import train
from swingby.sim.train_loop import steps_per_epoch

__all__ = ["trajectory_explorer"]


def trajectory_explorer(n_per_cluster: int = 1000, epochs: int = 40, seed: int = 0) -> Explorer | None:
    """The live explorer (``None`` in static mode, which shows the static explorable of the Notes) of the output
    trajectory (Fig. 2) and OOD test loss (Fig. 3) of an MLP on two concepts: sliders for ``mu``, ``sigma``
    (standard deviations), the origin cluster, depth, ``d``, activation and learning rate, by default the
    four-layer ``d = 2`` run of Fig. 2(c). Each redraw trains one model.

    Parameters
    ----------
    n_per_cluster, epochs
        Points per cluster in ``[1, MAX_POINTS]`` (fewer than the paper's 5000, so a redraw takes a second),
        and training epochs in ``[1, MAX_EPOCHS]``.
    seed : int
        Seed of data, initialisation and shuffling.

    Notes
    -----
    The static page's explorable (:mod:`swingby.explorable`) moves the depth over 1 to 4, switches
    the origin cluster, and sets ``d`` and the learning rate to Fig. 2(c)'s 2 and 0.01 or the
    authors' high-dimensional 64 and 0.1: 16 runs of about 0.2 s, trained one by one (each grid
    point differs in architecture, data shape or learning rate, which the batched engine cannot
    stack), trained and drawn in about 8 s.
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
        fig, (ax_traj, ax_loss) = plt.subplots(1, 2, figsize=(8, 3.6))  # legible at page width
        plot_sweep_trajectories(ax_traj, [rec], [f"depth {depth}, d = {d}"], title="output trajectory at x_hat")
        plot_test_losses(ax_loss, [rec], ["test loss"], title="OOD test loss")
        plt.tight_layout()
        return fig

    def make_controls():
        w = ipywidgets()
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

    grid = [along("depth", "depth", [1, 2, 3, 4]),
            switch("origin", "origin cluster"),
            Axis("d, learning rate", (("2, 0.01", dict(d=2, lr=0.01)), ("64, 0.1", dict(d=64, lr=0.1))), False)]
    return explorer(draw, values, make_controls, grid=grid,
                    alt="output trajectory at x_hat and OOD test loss of one MLP")
