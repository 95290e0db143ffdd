"""Read-outs of a diffusion sweep for the confirmatory checks of paper Sec. 5: a disc test
that does not count noise as a disc (the pixel check calls every noise image valid), the
first checkpoint at which a run's samples show discs, and class 11's concept-space path
of each run from there on. The unit is the run; thresholds: :data:`swingby.claims.diffusion.DESIGN`.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from scipy import ndimage

from swingby import _checks, verdicts
from swingby.claims.diffusion import DESIGN, check_design

__all__ = ["CheckCount", "RunPaths", "run_paths"]

CLASS_11 = 3  #: index of the held-out class in the sweep's class axis


class DiscTest(NamedTuple):
    """``disc_test`` of ``n`` images, each field ``(n,)``."""

    is_disc: np.ndarray     #: bool: a flat background, enough contrast, one blob
    peak: np.ndarray        #: largest channel deviation from the border median
    background: np.ndarray  #: 90th percentile of the border pixels' own deviation
    blob_share: np.ndarray  #: share of the disc mask in its largest 8-connected component
    area: np.ndarray        #: share of the image in the disc mask


def disc_test(images: np.ndarray, design=DESIGN) -> DiscTest:
    """Whether each image ``(n, 3, H, W)`` in [0, 1] shows a disc: flat background, contrast, one blob, not too big."""
    design = check_design(design)
    x = _checks.array("images", images)
    if x.ndim != 4 or x.shape[1] != 3 or min(x.shape[2:]) < 4:
        raise ValueError(f"images must be (n, 3, H, W) with n >= 1 and H, W >= 4, got {x.shape}")
    if np.any(x < 0) or np.any(x > 1):
        raise ValueError("images must hold pixel values in [0, 1]")
    n = x.shape[0]
    border = np.concatenate([x[:, :, 0], x[:, :, -1], x[:, :, 1:-1, 0], x[:, :, 1:-1, -1]], axis=2)
    bg = np.median(border, axis=2)
    dev = np.abs(x - bg[:, :, None, None]).max(axis=1)
    peak = dev.reshape(n, -1).max(axis=1)
    bdev = np.abs(border - bg[:, :, None]).max(axis=1)             # (n, border pixels)
    off_disc = np.where(bdev <= 0.5 * peak[:, None], bdev, np.nan)  # a disc may touch the border
    with warnings.catch_warnings():                                  # a border all in the mask: no background
        warnings.simplefilter("ignore", RuntimeWarning)
        background = np.nan_to_num(np.nanquantile(off_disc, 0.9, axis=1), nan=np.inf)
    mask = dev > 0.5 * peak[:, None, None]
    area = mask.reshape(n, -1).mean(axis=1)
    share = np.zeros(n)
    eight = np.ones((3, 3), bool)
    for i in range(n):
        lab, n_lab = ndimage.label(mask[i], structure=eight)
        if n_lab:
            sizes = np.bincount(lab.ravel())[1:]
            share[i] = sizes.max() / sizes.sum()
    ok = (peak >= design.disc_min_contrast) & (peak >= design.disc_background_ratio * background) \
        & (share >= design.disc_blob_share) & (area <= design.disc_max_area)
    return DiscTest(ok, peak, background, share, area)


def sustained(ok: np.ndarray, w: int) -> int:
    """First index from which ``ok`` holds for ``w`` entries in a row; ``len(ok)`` if none."""
    for k in range(len(ok) - w + 1):
        if ok[k:k + w].all():
            return k
    return len(ok)


def _check_res(res: dict) -> dict:
    """``res`` if it is a complete sweep with thumbnails and classifier outputs, else raise."""
    if not isinstance(res, dict) or not {"probs", "thumbs", "meta"} <= set(res):
        raise ValueError("res must be a sweep of swingby.diffusion.runs.storage.load_results with 'probs', "
                         f"'thumbs' and 'meta', got {type(res).__name__}")
    p, th = np.shape(res["probs"]), np.shape(res["thumbs"])
    if len(p) != 6 or len(th) != 8 or p[:4] != th[:4] or p[3] != 4 or p[5] != 2:
        raise ValueError(f"res['probs'] must be (D, S, K, 4, n, 2) and res['thumbs'] (D, S, K, 4, m, 3, H, W) "
                         f"over the same runs and checkpoints, got {p} and {th}")
    if not np.all(np.isfinite(res["probs"])):
        raise ValueError("res['probs'] holds NaN: some runs are unfinished; finish the sweep first")
    return res


def sweep_onsets(res: dict, design=DESIGN) -> np.ndarray:
    """Each run's first of ``design.sustain`` checkpoints with disc shares >= ``onset_share`` ``(D, S)``, else K."""
    th = np.asarray(_check_res(res)["thumbs"])
    D, S, K = th.shape[:3]
    if "disc" in res and design == DESIGN:  # every sample's flag, stored by the evaluation with DESIGN
        disc = np.asarray(res["disc"], bool).reshape(D, S, K, -1)
    else:
        flat = th.reshape(-1, *th.shape[-3:]).astype(float) / 255.0
        disc = disc_test(flat, design).is_disc.reshape(D, S, K, -1)
    ok = disc.mean(axis=-1) >= design.onset_share
    return np.array([[sustained(ok[i, s], design.sustain) for s in range(S)] for i in range(D)])


class RunPaths(NamedTuple):
    """Class 11's concept-space path of every run, with its noise level (:func:`run_paths`)."""

    dc: np.ndarray      #: (D,) colour separations
    steps: np.ndarray   #: (K,) checkpoint steps
    onset: np.ndarray   #: (D, S) first disc checkpoint of each run
    points: np.ndarray  #: (D, S, K, 2) (P(blue), P(small)), mean over samples
    se: np.ndarray      #: (D, S, K, 2) sampling standard error of each point
    noise: np.ndarray   #: (D, S, 2) the run's noise level per coordinate (``noise_level``)

    def run(self, i: int, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Steps ``(L,)``, points ``(L, 2)`` and noise ``(2,)`` of one run from its onset on.

        Parameters
        ----------
        i, s : int
            Indices of the separation and the seed.
        """
        k0 = int(self.onset[i, s])
        return self.steps[k0:], self.points[i, s, k0:], self.noise[i, s]


class CheckCount(NamedTuple):
    """What :func:`swingby.verdicts.judge` needs for one registered claim, and the units."""

    key: str                 #: the claim's key in its register
    form: str                #: one of :data:`swingby.verdicts.FORMS`
    k: int                   #: passing units
    n: int                   #: units
    null_k: int              #: passing units of the wrong model (or of the group claimed smaller)
    null_n: int              #: its units
    pairs: tuple | None      #: ``(b, c)`` discordant pairs where units are paired, else None
    passed: np.ndarray       #: (n,) bool, per unit
    note: str = ""           #: what the units and the comparator were

    def judgement(self):
        """The verdict with its numbers (:func:`swingby.verdicts.judge`)."""
        return verdicts.judge(self.form, self.k, self.n, self.null_k, self.null_n, pairs=self.pairs)


def noise_level(x: np.ndarray, se: np.ndarray) -> float:
    """The larger of ``median(se)`` and the jitter of ``x (K,)`` (robust std of second differences)."""
    d2 = x[2:] - 2 * x[1:-1] + x[:-2]
    jitter = 1.4826 * np.median(np.abs(d2 - np.median(d2))) / np.sqrt(6)
    return float(max(np.median(se), jitter))


def run_paths(res: dict, design=DESIGN) -> RunPaths:
    """Class 11's concept-space path of every run, its sampling errors, disc onset and noise level (from the onset).

    Parameters
    ----------
    res, design : dict, DiffusionDesign
        A complete sweep (:func:`~swingby.diffusion.runs.storage.load_results`) and the thresholds.
    """
    design = check_design(design)
    p = np.asarray(_check_res(res)["probs"], float)[:, :, :, CLASS_11]      # (D, S, K, n, 2)
    pts, se = p.mean(-2), p.std(-2, ddof=1) / np.sqrt(p.shape[-2])
    onset = sweep_onsets(res, design)
    D, S, K = pts.shape[:3]
    noise = np.full((D, S, 2), np.nan)
    for i, s, c in np.ndindex(D, S, 2):
        if onset[i, s] <= K - 3:
            noise[i, s, c] = max(design.noise_floor, noise_level(pts[i, s, onset[i, s]:, c], se[i, s, onset[i, s]:, c]))
    dcs = np.asarray(res["meta"]["config"]["separations"], float)
    return RunPaths(dcs, np.asarray(res["meta"]["checkpoint_steps"], float), onset, pts, se, noise)


def window_means(x: np.ndarray, sigma: float, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Means of ``w`` consecutive points of ``x (..., K)`` and their standard error ``sigma / sqrt(w)``."""
    x = np.asarray(x, float)
    c = np.cumsum(np.concatenate([np.zeros(x.shape[:-1] + (1,)), x], axis=-1), axis=-1)
    return (c[..., w:] - c[..., :-w]) / w, np.asarray(sigma, float) / np.sqrt(w)
