"""Reading a stored diffusion sweep (paper Sec. 5, Fig. 6) for ``book/diffusion.md``: each class's point in
concept space per run and checkpoint, the shares of samples that show a disc or both of a class's concepts,
the words and App. G values of the chapter's glued sentences, and each concept's signal on the pixels (for the
exercise on the order of learning). ``res``: a complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.diffusion.concept_space import RADIUS_SPLIT
from swingby.diffusion.data import CLASSES, render, sample_attributes
from swingby.diffusion.presets import Preset
from swingby.diffusion.runs.evaluation import circles_config

__all__ = ["APP_G_DIAMETERS", "counted", "joint_accuracy", "mean_trajectories", "pixel_signals", "trajectories",
           "valid_fraction"]

CLASS_11 = 3  #: index of the held-out class in ``CLASSES``
#: App. G's stated disc diameters, big and small, as shares of the image (paper text)
APP_G_DIAMETERS = (0.70, 0.30)


def _check_res(res: dict, key: str = "probs") -> dict:
    """``res`` if its ``res[key]`` is complete, finite, ``(D, S, K, 4, n, c)`` and matches its meta, else raise."""
    def bad(why: str):
        return ValueError(f"res must be a sweep result from swingby.diffusion.runs.storage.load_results: {why}")

    if not isinstance(res, dict) or key not in res or "meta" not in res:
        raise bad(f"a dict with keys {key!r} and 'meta', got {type(res).__name__}")
    meta = res["meta"]
    try:
        steps = np.asarray(meta["checkpoint_steps"], dtype=float)
        n_dc = len(meta["config"]["separations"])
    except (KeyError, TypeError, ValueError) as err:
        raise bad(f"res['meta'] lacks checkpoint_steps or config.separations ({err!r})") from None
    arr = np.asarray(res[key])
    want = {"probs": 2, "pixels": 4}[key]
    if arr.ndim != 6 or (arr.shape[0], arr.shape[2], arr.shape[3], arr.shape[5]) != (n_dc, steps.size, 4, want) \
            or 0 in arr.shape:
        raise bad(f"res[{key!r}] must have shape (n_dc = {n_dc}, n_seed, n_ckpt = {steps.size}, 4, n, {want}), "
                  f"got {arr.shape}")
    if steps.ndim != 1 or np.any(np.diff(steps) <= 0):
        raise bad("res['meta']['checkpoint_steps'] must be strictly increasing")
    if not np.all(np.isfinite(arr)):
        raise bad(f"res[{key!r}] holds NaN: some runs are unfinished (res['done'] is False there); "
                  "finish the sweep before analysing it")
    return res


def trajectories(res: dict) -> np.ndarray:
    """Concept-space points ``(n_dc, n_seed, n_ckpt, 4, 2)``: per class, mean over samples."""
    return np.asarray(_check_res(res)["probs"], dtype=float).mean(axis=4)


def mean_trajectories(res: dict) -> np.ndarray:
    """``(n_dc, n_ckpt, 4, 2)``: class points averaged over samples *and* seeds (Fig. 6a)."""
    return trajectories(res).mean(axis=1)


def valid_fraction(res: dict) -> np.ndarray:
    """``(n_dc, n_ckpt, 4)``: fraction of samples with a visible disc (pixel check)."""
    return (np.asarray(_check_res(res, "pixels")["pixels"])[..., 0] > 0.5).mean(axis=(1, 4))


def joint_accuracy(res: dict, cls: int = CLASS_11) -> tuple[np.ndarray, np.ndarray]:
    """Shares of class ``cls``'s samples ``(n_dc, n_ckpt)`` showing *both* its concepts, by the classifier
    (both probabilities on the right side of 1/2) and by the pixel check (a disc of the right colour and size).

    Parameters
    ----------
    res, cls : dict, int
        A complete sweep and the class's index in ``CLASSES``.
    """
    cls = _checks.index("cls", cls, 4)
    want = np.array([int(CLASSES[cls][0]), int(CLASSES[cls][1])], bool)
    p = np.asarray(_check_res(res)["probs"])[:, :, :, cls].astype(float)
    by_clf = np.all((p > 0.5) == want, axis=-1).mean(axis=(1, 3))
    px = np.asarray(_check_res(res, "pixels")["pixels"])[:, :, :, cls].astype(float)
    blue, small = px[..., 2] > 0, px[..., 1] < RADIUS_SPLIT
    by_pix = ((px[..., 0] > 0.5) & (blue == want[0]) & (small == want[1])).mean(axis=(1, 3))
    return by_clf, by_pix


def counted(k: int, noun: str, verb: tuple[str, str] | None = None) -> str:
    """A count in words: ``"no run"``, ``"one run"``, ``"3 runs"``; with ``verb=("has", "have")``: ``"3 runs have"``.

    Parameters
    ----------
    k, noun : int, str
        The count (>= 0) and the singular noun.
    verb : tuple of str, optional
        ``(singular, plural)`` verb forms to append.
    """
    k = _checks.integer("k", k, low=0)
    _checks.instance("noun", noun, str)
    text = "no " + noun if k == 0 else "one " + noun if k == 1 else f"{k} {noun}s"
    if verb is not None:
        if not (isinstance(verb, tuple) and len(verb) == 2 and all(isinstance(v, str) for v in verb)):
            raise ValueError(f"verb must be a (singular, plural) pair of str, got {verb!r}")
        text += " " + (verb[1] if k > 1 else verb[0])
    return text


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
