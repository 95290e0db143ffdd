"""The diffusion chapter's explorer of a stored sweep (``book/diffusion.md``): the stored samples of each
class and where the classes sit in concept space at one separation, seed and checkpoint; :func:`lean` words
the answers of two of its "try this" questions."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.diffusion.data import CLASSES
from swingby.diffusion.fig6 import analysis as A
from swingby.diffusion.fig6.plots import CLASS_COLOURS, CLASS_NAMES, corners, plot_image_grid
from swingby.diffusion.rules import RULES
from swingby.explorable import along
from swingby.live import Explorer, explorer

__all__ = ["lean", "sweep_explorer", "sweep_grid"]


def sweep_grid(separations, steps, n_even: int, start: int, page_checkpoints=()) -> list:
    """The static page's controls of a stored sweep's explorer (:mod:`swingby.explorable`): every
    colour separation (draw argument ``i``) and checkpoints (``k``): ``n_even`` evenly spaced ones,
    ``start`` and ``page_checkpoints``.

    Parameters
    ----------
    separations, steps : sequence
        The sweep's separations and checkpoint steps.
    n_even, start : int
        How many evenly spaced checkpoints, and the starting checkpoint's index.
    page_checkpoints : sequence of int
        Further checkpoints, by index (e.g. those a chapter's questions name).
    """
    n = len(steps)
    extra = [_checks.index(f"page_checkpoints[{j}]", k, n) for j, k in enumerate(page_checkpoints)]
    ks = sorted({*np.linspace(0, n - 1, n_even).round().astype(int).tolist(), start, *extra})
    return [along("i", "colour separation dc", list(range(len(separations))), [f"{d:.3g}" for d in separations]),
            along("k", "step", ks, [str(steps[k]) for k in ks])]


def sweep_explorer(res: dict, dc_index: int = 0, seed_index: int = 0, checkpoint: int | None = None,
                   page_checkpoints=()) -> Explorer | None:
    """Menus for separation and seed and a slider for the checkpoint; draws the samples (left) and the
    concept-space points of every class for that seed, with its path so far (right). A live notebook shows
    the controls below the view; in static mode the page's explorable replaces both (and it returns None).

    Parameters
    ----------
    res : dict
        A sweep result of :func:`swingby.diffusion.runs.storage.load_results`.
    dc_index, seed_index : int
        The colour separation and the seed to start at (indices into the sweep's lists).
    checkpoint : int or None
        The checkpoint to start at; ``None`` for the last.
    page_checkpoints : sequence of int
        Checkpoints the static page's slider holds besides its evenly spaced ones (e.g. those a
        chapter's questions name).

    Notes
    -----
    The static page's explorable (:mod:`swingby.explorable`) moves the separation over every
    value of the sweep and the checkpoint over seven evenly spaced ones, the starting one and
    ``page_checkpoints``, at the starting seed: about 36 figures of the stored sweep's 4
    separations, drawn in about 6 s.
    """
    traj = A.trajectories(res)  # checks res
    cfg, steps = res["meta"]["config"], res["meta"]["checkpoint_steps"]
    n_dc, n_seed, n_ckpt = traj.shape[:3]
    if len(cfg.get("seeds", ())) != n_seed or "thumbs" not in res \
            or np.ndim(res["thumbs"]) != 8 or np.shape(res["thumbs"])[:4] != (n_dc, n_seed, n_ckpt, 4):
        raise ValueError("res must be a sweep result from swingby.diffusion.runs.storage.load_results, with "
                         "config.seeds and thumbs of shape (n_dc, n_seed, n_ckpt, 4, n, 3, H, W)")
    # the starting point must exist (a widget would silently clamp it)
    _checks.index("dc_index", dc_index, n_dc)
    _checks.index("seed_index", seed_index, n_seed)
    if checkpoint is not None:
        _checks.index("checkpoint", checkpoint, n_ckpt)
    values = dict(i=dc_index, j=seed_index, k=len(steps) - 1 if checkpoint is None else checkpoint)

    def draw(i: int, j: int, k: int):
        fig, (a0, a1) = plt.subplots(1, 2, figsize=(8, 3.7), gridspec_kw={"width_ratios": [1.1, 1]})
        plot_image_grid(res["thumbs"][i, j, k], a0, row_labels=[CLASS_NAMES[c] for c in CLASSES],
                        title=f"samples at step {steps[k]}")
        for c, cls in enumerate(CLASSES):
            a1.plot(traj[i, j, :k + 1, c, 0], traj[i, j, :k + 1, c, 1], "-", color=CLASS_COLOURS[cls],
                    lw=1, alpha=0.6)
            a1.plot(*traj[i, j, k, c], "o", color=CLASS_COLOURS[cls], label=CLASS_NAMES[cls])
        corners(a1)
        a1.set_ylabel("P(small)")
        a1.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))  # off the paths
        a1.set_title(f"dc = {cfg['separations'][i]:.3g}, seed {cfg['seeds'][j]}", fontsize=10)
        plt.tight_layout()
        return fig

    def make_controls():
        import ipywidgets as widgets
        return dict(
            i=widgets.Dropdown(options=[(f"{d:.3g}", i) for i, d in enumerate(cfg["separations"])],
                               value=values["i"], description="dc"),
            j=widgets.Dropdown(options=[(str(s), j) for j, s in enumerate(cfg["seeds"])],
                               value=values["j"], description="seed"),
            k=widgets.IntSlider(value=values["k"], min=0, max=len(steps) - 1, description="checkpoint",
                                continuous_update=False),
        )

    grid = sweep_grid(cfg["separations"], steps, 7, values["k"], page_checkpoints)
    return explorer(draw, values, make_controls, layout=(3,), side=False, grid=grid,
                    alt="stored samples of the four classes and their concept-space paths")


# the answers of the chapter's "try this" questions, from the stored runs
def lean(point, final: float, toward: str) -> str:
    """An explorer answer: the class-11 point of one run where it leans most toward a training class (by
    ``RULES.swing_min`` or more it draws that class), and its colour at the end.

    Parameters
    ----------
    point : array_like (2,)
        (P(blue), P(small)) at that checkpoint.
    final : float
        The run's final P(blue).
    toward : {"01", "10"}
        The training class: red small (01) or blue big (10).
    """
    p = _checks.array("point", point, shape=(2,))
    final = _checks.number("final", final, low=0, high=1)
    toward = _checks.choice("toward", toward, ("01", "10"))
    name = {"01": "red small (class 01)", "10": "blue big (class 10)"}[toward]
    by = p[1] - p[0] if toward == "01" else p[0] - p[1]
    gap = "its P(small) exceeds its P(blue)" if toward == "01" else "its P(blue) exceeds its P(small)"
    swing_min = RULES.swing_min
    head = (f"there class 11 looks like {name}: {gap} by {by:.2f} (concept memorization, the swing)"
            if by >= swing_min else f"class 11 is only a little like {name}: {gap} by {by:.2f}, less than "
            f"{swing_min:g}; no clear swing in this run")
    end = "blue" if final > 0.5 else "still reddish"
    return f"{head}; at the end of training it is {end} (P(blue) = {final:.2f})"

