"""The explorer of the SIM data (``book/sim_task.md``; ``swingby.live.explorer``: a static explorable in the built book)."""
from __future__ import annotations

import matplotlib.pyplot as plt

from swingby import _checks
from swingby.explorable import Axis, switch
from swingby.live import MAX_POINTS, Explorer, explorer, ipywidgets, slider_values
from swingby.sim.data import make_sim, second_moment
from swingby.sim.plots import plot_sim_3d

__all__ = ["sim_data_explorer"]


def sim_data_explorer(mu=(1.0, 2.0, 1.5), sigma=(0.2, 0.2, 0.2), n_per_cluster: int = 300) -> Explorer | None:
    """The live explorer of the SIM training set (Fig. 1c, ``s = d = 3``), ``None`` in static mode (which
    shows the static explorable of the Notes instead): sliders redraw the clusters, the test points and ``a = diag(A)``.

    Parameters
    ----------
    mu, sigma : sequence of float
        3 cluster distances in ``[0, 4]`` and 3 standard deviations in ``[0, 1.5]`` (the sliders' ranges).
    n_per_cluster : int
        Points per cluster, in ``[1, MAX_POINTS]``.

    Notes
    -----
    The static page's explorable (:mod:`swingby.explorable`) has a menu of four ``sigma``: the
    default, ``sigma_1`` raised to 0.6 and to 1, and every ``sigma_p`` at 1; and the origin cluster
    and truncation switched on and off: 16 settings, drawn in about 5 s.
    """
    mu, sigma = slider_values("mu", mu, 3, 0.0, 4.0), slider_values("sigma", sigma, 3, 0.0, 1.5)
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
        w = ipywidgets()
        sl = dict(continuous_update=False, readout_format=".2f")
        controls = {f"mu_{k + 1}": w.FloatSlider(value=m, min=0.0, max=4.0, step=0.1, description=f"mu_{k + 1}", **sl)
                    for k, m in enumerate(mu)}
        controls.update({f"sigma_{k + 1}": w.FloatSlider(value=v, min=0.0, max=1.5, step=0.05,
                                                         description=f"sigma_{k + 1}", **sl)
                         for k, v in enumerate(sigma)})
        controls["origin"] = w.Checkbox(value=False, description="origin cluster")
        controls["truncate"] = w.Checkbox(value=False, description="truncate")
        return controls

    spreads = list(dict.fromkeys([tuple(sigma), (0.6, *sigma[1:]), (1.0, *sigma[1:]), (1.0, 1.0, 1.0)]))
    grid = [Axis("σ = (σ₁, σ₂, σ₃)", tuple((", ".join(f"{v:g}" for v in sp),
                                          {f"sigma_{k + 1}": v for k, v in enumerate(sp)}) for sp in spreads), False),
            switch("origin", "origin cluster"), switch("truncate", "truncate")]
    return explorer(draw, values, make_controls, grid=grid, alt="the SIM training set in 3-D and its test points")
