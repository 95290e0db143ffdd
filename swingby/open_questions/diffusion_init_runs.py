"""Q1 in a diffusion model (``book/open_questions_diffusion.md``): the runs of the contrast
fixed in :mod:`swingby.open_questions.diffusion_init` (``run_contrast``,
``python -m swingby.open_questions diffusion-init``) and their reader (:func:`read_contrast`).
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import NamedTuple

import numpy as np

from swingby.diffusion.concept_space import joint_accuracy
from swingby.diffusion.presets import Preset
from swingby.diffusion.runs import position_search as PS
from swingby.diffusion.runs.storage import load_results
from swingby.open_questions import diffusion_init as DI
from swingby.results import part_dir

__all__ = ["Contrast", "read_contrast"]


def contrast_dir() -> Path:
    """The folder of the larger-initialisation sweep (unfinished runs' states under ``partial/``)."""
    return part_dir("open_questions") / "diffusion_init"


def run_contrast(*, preset: Preset | None = None, out_dir=None, default_dir=None, progress: bool = True,
                 log=print) -> Path:
    """Train (or resume) the larger-initialisation runs, read by the stored default sweep's classifier."""
    from swingby.diffusion.runs.driver import sweep
    from swingby.diffusion.runs.evaluation import classifier_path
    from swingby.diffusion.runs.storage import results_dir

    p = DI.contrast_preset() if preset is None else preset
    out = contrast_dir() if out_dir is None else Path(out_dir)
    src = classifier_path(results_dir() if default_dir is None else Path(default_dir), p)
    dst = classifier_path(out, p)
    if src.is_file() and not dst.exists():
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    return sweep(p, out_dir=out, progress=progress, log=log)


class Contrast(NamedTuple):
    """What :func:`read_contrast` returns."""

    runs: list            #: per (separation, seed): {"dc", "seed", "default": outcome, "larger": outcome or None}
    answer: DI.Answer     #: :func:`~swingby.open_questions.diffusion_init.contrast_answer`
    steps: np.ndarray     #: the checkpoints' training steps
    curves: dict          #: (dc, seed) -> (default, larger or None): class 11's pixel blue-small share per checkpoint
    codes: tuple          #: (default, larger) code identities of the two files
    classifiers: tuple    #: (default, larger) classifier reports of the two files


def _curves(res: dict) -> dict:
    cfg = res["meta"]["config"]
    out = {}
    for i, dc in enumerate(cfg["separations"]):
        for j, s in enumerate(cfg["seeds"]):
            if res["done"][i, j].all():
                pix, probs = res["pixels"][i, j].astype(float), res["probs"][i, j].astype(float)
                out[float(dc), int(s)] = np.array([float(joint_accuracy(probs[k, 3], pix[k, 3], "pixels"))
                                                   for k in range(pix.shape[0])])
    return out


def read_contrast(*, preset: Preset | None = None, out_dir=None, default_path=None) -> Contrast:
    """The outcomes of the larger-initialisation runs and of their stored default counterparts per
    (separation, seed), and the answer.

    Parameters
    ----------
    preset : Preset, optional
        Default ``contrast_preset()``.
    out_dir, default_path : path-like, optional
        The folder of its results file (default ``contrast_dir()``) and the stored default sweep (default:
        the ``cpu`` sweep in :func:`swingby.diffusion.runs.storage.results_dir`).
    """
    from swingby.diffusion.runs.identity import IDENTITY_KEY
    from swingby.diffusion.runs.storage import results_dir
    from swingby.diffusion.sweep import checkpoint_steps, results_path

    p = DI.contrast_preset() if preset is None else DI.check_preset("preset", preset)
    path = results_path(contrast_dir() if out_dir is None else Path(out_dir), p)
    if not path.is_file():
        raise ValueError(f"out_dir: no larger-initialisation runs at {path}; "
                         "run: python -m swingby.open_questions diffusion-init")
    dpath = results_path(results_dir(), DI.base_preset(p.name)) if default_path is None else Path(default_path)
    if not dpath.is_file():
        raise ValueError(f"default_path: no stored default sweep at {dpath}")
    res, dres = load_results(path), load_results(dpath)
    if res["meta"]["config"] != p.to_dict():
        raise ValueError(f"out_dir: {path.name} holds another preset's runs")
    dcfg = dres["meta"]["config"]
    same = {k: v for k, v in p.to_dict().items() if k not in DI.VARIED}
    if "init_scale" in dcfg or {k: v for k, v in dcfg.items() if k not in DI.VARIED} != same:
        raise ValueError(f"default_path: {dpath.name} is not the default-initialisation sweep of the contrast's "
                         "preset (it must differ only in the scale, separations and seeds)")
    larger = {(r["dc"], r["seed"]): r for r in PS.run_outcomes(res)}
    default = {(r["dc"], r["seed"]): r for r in PS.run_outcomes(dres)}
    dcurves, lcurves = _curves(dres), _curves(res)
    keys = [(float(dc), int(s)) for s in p.seeds for dc in p.separations]
    lost = [k for k in keys if k not in default]
    if lost:
        raise ValueError(f"default_path: {dpath.name} lacks the finished {'run' if len(lost) == 1 else 'runs'} {lost}")
    runs = [{"dc": k[0], "seed": k[1], "default": default[k], "larger": larger.get(k)} for k in keys]
    ans = DI.contrast_answer([default[k] for k in keys], [larger[k] for k in keys if k in larger], p.seeds)
    return Contrast(runs, ans, checkpoint_steps(p.steps, p.n_checkpoints),
                    {k: (dcurves[k], lcurves.get(k)) for k in keys},
                    (dres["meta"]["code_version"].get(IDENTITY_KEY), res["meta"]["code_version"].get(IDENTITY_KEY)),
                    (dres["meta"].get("classifier"), res["meta"].get("classifier")))
