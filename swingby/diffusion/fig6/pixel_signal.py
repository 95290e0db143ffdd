"""The colour and the size signal of the coloured circles measured on the pixels, for
the exercise on the order of learning in the diffusion chapter (``book/diffusion.md``)."""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.diffusion.data import render, sample_attributes
from swingby.diffusion.presets import Preset
from swingby.diffusion.runs.evaluation import circles_config

__all__ = ["pixel_signals"]


def pixel_signals(preset: Preset, dcs, n_per_class: int, seed: int) -> np.ndarray:
    """Each concept's signal on the pixels ``(G, 2)``: the squared distance between the mean test images
    of 00 and 10 (colour) and of 00 and 01 (size), at each colour separation.

    Parameters
    ----------
    preset, dcs : Preset, array_like (G,)
        The image size, ``ds`` and positions; the colour separations, each in [0, 1].
    n_per_class, seed : int
        Images per class and separation (>= 1), and the seed of the draws.
    """
    dcs = _checks.array("dcs", dcs, ndim=1)
    n_per_class = _checks.integer("n_per_class", n_per_class, low=1)
    rng = np.random.default_rng(_checks.integer("seed", seed, low=0))
    out = []
    for dc in dcs:
        cfg = circles_config(preset, float(dc))
        mean = {c: render(cfg, sample_attributes(cfg, c, n_per_class, rng, test=True), rng).mean(axis=0)
                for c in ("00", "01", "10")}
        out.append([np.sum((mean["10"] - mean["00"]) ** 2), np.sum((mean["01"] - mean["00"]) ** 2)])
    return np.array(out)
