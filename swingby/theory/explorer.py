"""The explorer of the symmetric two-layer dynamics (``book/two_layer_theory.md``): ipywidgets
(``swingby.live.explorer``), a static explorable when the book is built."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.explorable import along
from swingby.live import MAX_STEPS, Explorer, explorer, ipywidgets, slider_values
from swingby.sim.symmetric import dynamics_a, initial_U, simulate_symmetric
from swingby.theory.figures import descents_text
from swingby.theory.plots import plot_jacobian_entries, plot_output_trajectory
from swingby.theory.stages import detect_stages

__all__ = ["symmetric_dynamics_explorer"]


def symmetric_dynamics_explorer(mu=(1.0, 1.5), sigma: float = 0.05, init_scale: float = 0.2,
                                seed: int = 0, steps: int = 2000, eta: float = 0.01) -> Explorer | None:
    """Explore the symmetric two-layer dynamics (Fig. 5) at ``d = 3``, ``s = 2``; ``None`` in
    static mode (which shows the static explorable of the Notes).

    Sliders for ``mu``, ``sigma``, the initialisation scale and the seed, and a switch
    between the authors' ``A^2`` (default, :func:`swingby.sim.symmetric.authors_a`) and the
    paper's ``A`` (eq. C.13 with the origin cluster), redraw the Jacobian entries, the test
    loss and the output trajectory (uniform initialisation; gradient descent on ``U``).

    Parameters
    ----------
    mu : sequence of float
        2 cluster distances in ``[0.2, 3]`` (the sliders' range).
    sigma, init_scale : float
        Standard deviation in ``[0, 1.5]``, scale of the uniform initial ``U`` in ``[0.001, 1]``.
    seed, steps, eta
        Seed of the initialisation, gradient steps in ``[2, MAX_STEPS]``, step size.

    Notes
    -----
    The static page's explorable (:mod:`swingby.explorable`) moves ``mu_1`` over 0.5 to 1 in five
    steps, the initialisation scale between 0.2 and 1, and switches the matrix (each grid holding
    its default): 20 runs, simulated in 10 batches of both scales (under a second), drawn in about
    8 s.
    """
    mu = slider_values("mu", mu, 2, 0.2, 3.0)
    sigma = _checks.number("sigma", sigma, low=0.0, high=1.5)
    init_scale = _checks.number("init_scale", init_scale, low=1e-3, high=1.0)
    seed = _checks.integer("seed", seed, low=0, high=2**31 - 1)
    steps = _checks.integer("steps", steps, low=2, high=MAX_STEPS)
    eta = _checks.positive_float("eta", eta)
    values = dict(mu_1=mu[0], mu_2=mu[1], sigma=sigma, init_scale=init_scale, seed=seed, matrix="authors")
    runs = {}  # the static grid's runs, simulated by prepare in batches of initialisation scales

    def simulate(mu_1, mu_2, sigma, seed, matrix, scales):
        """``{scale: (a, record)}`` of one setting from each initialisation scale, in one batch."""
        a = dynamics_a(np.array([mu_1, mu_2]), sigma, 3, matrix=matrix, origin_cluster=matrix == "paper")
        U0 = np.stack([initial_U(3, [seed], init="uniform", init_scale=s)[0] for s in scales])
        rec = simulate_symmetric(U0 if len(scales) > 1 else U0[0], a, eta, steps, np.array([mu_1, mu_2, 0.0]),
                                 record_every=max(1, steps // 1000), iterate="U")
        return {s: (a, rec.pick(b) if len(scales) > 1 else rec) for b, s in enumerate(scales)}

    def prepare(settings):
        groups = {}
        for kw in settings:
            key = (kw["mu_1"], kw["mu_2"], kw["sigma"], kw["seed"], kw["matrix"])
            groups.setdefault(key, set()).add(kw["init_scale"])
        for key, scales in groups.items():
            runs.update({key + (s,): run for s, run in simulate(*key, sorted(scales)).items()})

    def draw(mu_1, mu_2, sigma, init_scale, seed, matrix):
        mu_now = np.array([mu_1, mu_2])
        key = (mu_1, mu_2, sigma, seed, matrix)
        a, rec = runs.get(key + (init_scale,)) or simulate(*key, [init_scale])[init_scale]
        if not np.all(np.isfinite(rec.test_loss)):
            print(f"the simulation overflowed for these settings: the step eta = {eta:g} is stable only below "
                  f"1 / max(a) = {1 / a.max():.3g}; try a smaller mu or sigma, or a smaller eta")
            return None
        stages = detect_stages(rec, 2)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8.5, 3.8))  # legible at page width
        plot_jacobian_entries(ax1, rec, 2, stages)
        ax1.set_title(f"a = ({a[0]:.2f}, {a[1]:.2f}); {descents_text(stages.n_descents)}", fontsize=9)
        plot_output_trajectory(ax2, rec, mu_now)
        plt.tight_layout()
        return fig

    def make_controls():
        w = ipywidgets()
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

    grid = [along("mu_1", "μ₁", sorted({0.5, 0.625, 0.75, 0.875, 1.0, mu[0]})),
            along("init_scale", "init scale", sorted({0.2, 1.0, init_scale}), slider=False),
            along("matrix", "matrix", ["authors", "paper"], ["authors' A²", "paper's A"], slider=False)]
    return explorer(draw, values, make_controls, grid=grid, prepare=prepare,
                    alt="Jacobian entries, test loss and output trajectory of the symmetric two-layer model")
