"""Interactive explorer of capability (``book/capability.md``): pick a colour separation, a seed, a
checkpoint and a prompt of class 11; see the stored samples of the four class prompts and where
class 11 sits in concept space under each prompt (the sweep stores images only for the plain
prompts, so the capability prompts appear as concept-space points)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks
from swingby.capability import measures as CM
from swingby.capability import probes as CP
from swingby.capability.plots import CAP_COLOUR
from swingby.diffusion.data import CLASSES
from swingby.diffusion.fig6.explorer import sweep_grid
from swingby.diffusion.fig6.plots import CLASS_COLOURS, CLASS_NAMES, corners, plot_image_grid
from swingby.live import Explorer, explorer

__all__ = ["capability_explorer"]


def draw_capability_view(res: dict, dc_index: int, seed_index: int, checkpoint: int, prompt: int, axes):
    """Draw the explorer's view of one run, checkpoint and prompt (0: plain) on two axes."""
    D, S, K = np.shape(res["done"])
    i, j = _checks.index("dc_index", dc_index, D), _checks.index("seed_index", seed_index, S)
    k = _checks.index("checkpoint", checkpoint, K)
    labels = CM.prompt_labels(res, i)
    q = _checks.index("prompt", prompt, len(labels))
    a0, a1 = axes
    steps = res["meta"]["checkpoint_steps"]
    if not np.asarray(res["done"])[i, j, k]:
        for ax in (a0, a1):
            ax.set_axis_off()
        a0.set_title("this run is not finished in the stored sweep", fontsize=10)
        return axes
    plot_image_grid(res["thumbs"][i, j, k], a0, row_labels=[CLASS_NAMES[c] for c in CLASSES],
                    title=f"plain prompts, step {steps[k]}")
    cap = CM.masked(res, np.asarray(res["cap_probs"], float).mean(axis=4))
    pts = np.concatenate([CP.class_points(res)[:, :, :, CM.CLASS_11][:, :, :, None], cap], axis=3)[i, j]  # 0: plain
    clf = np.concatenate([[CM.behaviour(res, "classifier")[i, j, k]], CM.prompt_accuracies(res, "classifier")[i, j, k]])
    pix = np.concatenate([[CM.behaviour(res, "pixels")[i, j, k]], CM.prompt_accuracies(res, "pixels")[i, j, k]])
    train = CP.class_points(res)[i, j, k]
    for c, cls in enumerate(CLASSES[:3]):
        a1.plot(*train[c], "s", color=CLASS_COLOURS[cls], ms=6, label=f"{cls} (plain)")
    a1.plot(pts[k, 1:, 0], pts[k, 1:, 1], "o", color=CAP_COLOUR, alpha=0.5, ms=6, label="11, capability prompts")
    a1.plot(*pts[k, 0], "o", color=CLASS_COLOURS["11"], ms=7, label="11, plain prompt")
    a1.plot(pts[:k + 1, q, 0], pts[:k + 1, q, 1], "-", color="k", lw=1, alpha=0.7)
    a1.plot(*pts[k, q], "o", mfc="none", mec="k", ms=13, mew=2, label="chosen prompt")
    corners(a1)
    a1.set_ylabel("P(small)")
    a1.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
    a1.set_title(f"{labels[q]}\nblue-small: classifier {clf[q]:.0%}, pixels {pix[q]:.0%}; "
                 f"plain prompt {clf[0]:.0%}; capability {max(clf):.0%}", fontsize=8)
    return axes


def capability_explorer(res: dict, dc_index: int = 0, seed_index: int = 0, checkpoint: int | None = None,
                        prompt: int = 0, page_checkpoints=()) -> Explorer | None:
    """The view at the given values, drawn at once; in a live notebook, menus that redraw it
    (``swingby.live.explorer``; ``None`` in static mode, ``SWINGBY_STATIC=1``).

    Parameters
    ----------
    res : dict
        A results dict of a sweep with capability prompts.
    dc_index, seed_index : int
        Starting run.
    checkpoint : int or None
        Starting checkpoint (None: the last).
    prompt : int
        Starting prompt (0: plain).
    page_checkpoints : sequence of int
        As in :func:`swingby.diffusion.fig6.explorer.sweep_explorer`.

    Notes
    -----
    The static page's explorable (:func:`~swingby.diffusion.fig6.explorer.sweep_grid` with six
    evenly spaced checkpoints) holds the starting seed and prompt: about 36 figures of the stored
    sweep's 4 separations, drawn in about 8 s.
    """
    if not isinstance(res, dict) or not {"thumbs", "cap_probs", "done", "meta"} <= set(res):
        raise ValueError("res must be a results dict of swingby.diffusion.runs.storage.load_results with thumbs and "
                         "cap_probs")
    cfg, steps = res["meta"]["config"], res["meta"]["checkpoint_steps"]
    D, S, K = np.shape(res["done"])
    k0 = K - 1 if checkpoint is None else _checks.index("checkpoint", checkpoint, K)
    values = dict(i=dc_index, j=seed_index, k=k0, q=prompt)

    def draw(i, j, k, q):
        fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.9), gridspec_kw={"width_ratios": [1, 1.1]})
        draw_capability_view(res, i, j, k, q, axes)
        fig.suptitle(f"dc = {cfg['separations'][i]:.3g}, seed {cfg['seeds'][j]}", fontsize=10)
        plt.tight_layout()
        return fig

    def make_controls():
        import ipywidgets as widgets
        names = [lab.split(":")[0] for lab in CM.prompt_labels(res, dc_index)]  # the same at every dc
        return dict(
            i=widgets.Dropdown(options=[(f"{d:.3g}", i) for i, d in enumerate(cfg["separations"])],
                               value=dc_index, description="dc"),
            j=widgets.Dropdown(options=[(str(s), j) for j, s in enumerate(cfg["seeds"])], value=seed_index,
                               description="seed"),
            k=widgets.SelectionSlider(options=[(str(s), k) for k, s in enumerate(steps)], value=k0,
                                      description="step", continuous_update=False),
            q=widgets.Dropdown(options=[(lab, q) for q, lab in enumerate(names)], value=prompt,
                               description="prompt", layout=widgets.Layout(width="360px")),
        )

    # the default view checks the starting values (draw_capability_view) before any widget exists
    grid = sweep_grid(cfg["separations"], steps, 6, k0, page_checkpoints)
    return explorer(draw, values, make_controls, layout=(2, 2), side=False, grid=grid,
                    note="Move a control to redraw the view above for other values (needs a running kernel).",
                    alt="stored samples of the plain prompts and class 11 in concept space under every prompt")
