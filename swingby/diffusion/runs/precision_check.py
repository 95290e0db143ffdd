"""Does bfloat16 autocast keep the outcome of a diffusion run? Each seed is trained in fp32 and
with bf16 from the same weights, data, batches and noise, and read at the same checkpoints. Two
designs fixed before their runs (``DESIGNS``) compare the mean absolute paired difference
with the fp32 seed standard deviation (``first``) or with the mean difference between two fp32
seeds (``second``, the book's: changing the precision moves a run no more than its seed).
"""
from __future__ import annotations

import json
import time
from dataclasses import replace

import numpy as np
import torch
from scipy import stats

from swingby.diffusion.classifier import ConceptClassifier
from swingby.diffusion.data import make_dataset
from swingby.diffusion.presets import get_preset
from swingby.diffusion.runs.evaluation import circles_config, evaluate, get_classifier
from swingby.diffusion.runs.search import write_json
from swingby.diffusion.runs.storage import results_dir
from swingby.diffusion.training import Run

__all__ = ["summary"]

#: the position search's base at the decisive separation, where class 11 moves most in a few hundred steps
DESIGNS = {
    "first": dict(model=dict(position=0.5, seeding="per_run"), dc=0.689, seeds=(11, 12, 13, 14),
                  checkpoints=(150, 300, 600), comparator="seed standard deviation"),
    "second": dict(model=dict(position=0.5, seeding="per_run"), dc=0.689, seeds=(21, 22, 23, 24, 25, 26),
                   checkpoints=(150, 300, 450, 600), comparator="mean difference between two seeds"),
}
READOUTS = ("P(blue)", "P(small)", "disc share")  #: per class; plus class 11's blue-small share


def _readouts(ev: dict) -> np.ndarray:
    """``(13,)``: per class mean P(blue), mean P(small), disc share; class 11's blue-small share."""
    probs = ev["probs"].astype(float)
    per_class = np.stack([probs[..., 0].mean(1), probs[..., 1].mean(1), ev["disc"].mean(1)], axis=1)
    blue_small = ((probs[3, :, 0] > 0.5) & (probs[3, :, 1] > 0.5)).mean()
    return np.append(per_class.ravel(), blue_small)


def _one(args) -> np.ndarray:
    """Read-outs ``(checkpoints, 13)`` of one seed at one precision."""
    p_dict, seed, bf16, clf_state, width, design = args
    d = DESIGNS[design]
    torch.set_num_threads(1)
    p = get_preset("cpu", **{**{k: v for k, v in p_dict.items() if k != "name"}, "bf16": bf16})
    clf = ConceptClassifier(width)
    clf.load_state_dict(clf_state)
    clf.eval()
    run = Run(p, seed, torch.device("cpu"))
    data = make_dataset(circles_config(p, d["dc"]), p.n_per_class, seed=seed)
    out = []
    for k, step in enumerate(d["checkpoints"]):
        run.train_to(step, data["images"], data["cond"])
        out.append(_readouts(evaluate(run.ema, clf, p, d["dc"], seed, k)))
    return np.array(out)


def _compare(r: np.ndarray) -> tuple[np.ndarray, dict]:
    """Mean absolute paired difference of ``r (seed, precision, checkpoint, read-out)``, each design's comparator."""
    i, j = np.triu_indices(r.shape[0], 1)
    return np.abs(r[:, 1] - r[:, 0]).mean(axis=(0, 1)), {"first": r[:, 0].std(axis=0, ddof=1).mean(axis=0),
                                                          "second": np.abs(r[i, 0] - r[j, 0]).mean(axis=(0, 1))}


def run_check(design: str = "second", *, workers: int = 2) -> dict:
    """Run ``design`` in ``workers`` processes; stored in ``<results>/precision_check.json`` and returned."""
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {sorted(DESIGNS)}, got {design!r}")
    d = DESIGNS[design]
    p = replace(get_preset("cpu", **d["model"]), steps=max(d["checkpoints"]))
    clf, _ = get_classifier(p, results_dir())
    args = [(p.to_dict(), s, b, clf.state_dict(), p.classifier_width, design)
            for s in d["seeds"] for b in (False, True)]
    t0 = time.time()
    if workers == 1:
        outs = [_one(a) for a in args]
    else:
        import multiprocessing as mp
        with mp.get_context("spawn").Pool(workers) as pool:
            outs = pool.map(_one, args)
    r = np.array(outs).reshape(len(d["seeds"]), 2, len(d["checkpoints"]), -1)  # seed, precision, ckpt, read-out
    diff, comparators = _compare(r)
    comp = comparators[design]
    names = [f"class {c} {what}" for c in ("00", "01", "10", "11") for what in READOUTS] + ["class 11 blue-small share"]
    out = {"design": {**d, "seeds": list(d["seeds"]), "checkpoints": list(d["checkpoints"])},
           "readouts": names, "difference": diff.tolist(), "comparator": comp.tolist(),
           "keeps": bool(np.all(diff <= comp)), "max_ratio": float(np.max(diff / np.maximum(comp, 1e-12))),
           "values": r.tolist(), "seconds": time.time() - t0}
    path = results_dir(for_writing=True) / "precision_check.json"
    stored = {k: v for k, v in (json.loads(path.read_text()) if path.exists() else {}).items() if k in DESIGNS}
    write_json(path.name, {**stored, design: out})
    return out


def summary(stored: dict) -> dict:
    """What the chapter quotes from the loaded ``precision_check.json``: per design, the largest ratio of
    paired difference to either comparator (``ratio_sd``, ``ratio_pairs``); ``blue_small_shift``: the second
    design's mean signed shift of class 11's final blue-small share, with a 95 % t-interval over seeds."""
    if not isinstance(stored, dict) or not set(DESIGNS) <= set(stored):
        raise ValueError(f"stored must be precision_check.json with the designs {sorted(DESIGNS)}")
    out = {}
    for name in DESIGNS:
        diff, comp = _compare(np.asarray(stored[name]["values"], float))
        out[name] = {"ratio_sd": float(np.max(diff / comp["first"])),
                     "ratio_pairs": float(np.max(diff / comp["second"]))}
    r = np.asarray(stored["second"]["values"], float)
    signed = r[:, 1, -1, -1] - r[:, 0, -1, -1]
    low, high = stats.t.interval(0.95, len(signed) - 1, loc=signed.mean(), scale=stats.sem(signed))
    out["blue_small_shift"] = {"mean": float(signed.mean()), "low": float(low), "high": float(high),
                               "step": int(stored["second"]["design"]["checkpoints"][-1])}
    return out
