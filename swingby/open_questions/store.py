"""Stored results of the open-question sweeps (``book/open_questions.md``, ``book/open_questions_training.md``),
which take longer than a chapter may run: per-run measures in ``<results>/open_questions/NAME.npz`` with
the rules' fingerprint, cells, seeds and code identity (:func:`source_identity`) in its ``meta``;
``python -m swingby.open_questions run [--only NAME]`` regenerates them.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from swingby import _checks
from swingby._source_identity import code_only
from swingby.open_questions.experiments import EXPERIMENTS, cell_records, experiment_cells, run_measures
from swingby.open_questions.rules import OQ_RULES, OpenRules, fingerprint
from swingby.open_questions.theory import predicted_orders
from swingby.results import ENV_VAR, part_dir

__all__ = ["load", "source_identity"]

PKG = Path(__file__).resolve().parents[1]
MEASURES = ("rise", "distance", "order", "t_first", "t_second", "diverged")
N_SHOW = 3  #: seeds per cell and data whose curves are kept for the figures
#: the source files (under ``swingby/``) whose code made the results (the code identity)
SOURCES = ("open_questions/engine.py", "open_questions/experiments.py", "open_questions/theory.py",
           "open_questions/store.py", "open_questions/rules.py", "sim/models.py", "sim/data.py",
           "sim/batched.py", "sim/train_loop.py", "sim/run_checks.py", "observations/learning.py",
           "observations/swingby.py", "observations/ood.py", "observations/runs.py")


def results_dir() -> Path:
    """The stored results' folder: ``open_questions/`` under :func:`swingby.results.root`."""
    return part_dir("open_questions")


def source_identity() -> str:
    """A short sha256 (12 hex digits) of the code of ``SOURCES`` without docstrings and comments."""
    h = hashlib.sha256()
    for rel in SOURCES:
        path = PKG / rel
        h.update(rel.encode())
        h.update(code_only(path.read_text()).encode() if path.is_file() else b"")
    return h.hexdigest()[:12]


def run_experiment(name: str, *, seeds: Sequence[int] | None = None, cells: Sequence[int] | None = None,
                   rules: OpenRules = OQ_RULES, progress: bool = True) -> dict:
    """Measures ``(n_cells, 2 [real, null], n_seeds)`` of experiment ``name``'s runs, a few curves, ``meta``."""
    all_cells, n_seeds = experiment_cells(name, rules)
    seeds = list(range(n_seeds)) if seeds is None else [int(s) for s in seeds]
    todo = list(range(len(all_cells))) if cells is None else [int(c) for c in cells]
    shape = (len(all_cells), 2, len(seeds))
    out = {m: np.full(shape, np.nan) for m in MEASURES}
    out["pred_norm"], out["pred_raw"] = np.full(shape, np.nan), np.full(shape, np.nan)
    start = time.time()
    for n_done, i in enumerate(todo):
        cell = all_cells[i]
        for j, null in enumerate((False, True)):
            runs = cell_records(cell, seeds, null=null, config_index=i, rules=rules)
            ms = [run_measures(r, rules=rules) for r in runs.records]
            for m in MEASURES:
                out[m][i, j] = [getattr(x, m) for x in ms]
            if name == "norm" and cell.depth == 1:
                out["pred_norm"][i, j], out["pred_raw"][i, j] = predicted_orders(runs, cell, rules)
            show = runs.records[:N_SHOW]
            out[f"loss_{i}_{j}"] = np.stack([r.test_loss for r in show]).astype(np.float32)
            out[f"traj_{i}_{j}"] = np.stack([r.trajectory[:, :2] for r in show]).astype(np.float32)
            out[f"epochs_{i}"] = show[0].epochs
        if progress:
            print(f"[{name}] cell {n_done + 1}/{len(todo)} {dict(cell._asdict())} "
                  f"({time.time() - start:.0f} s)", file=sys.stderr, flush=True)
    out["meta"] = json.dumps(dict(name=name, rules_fingerprint=fingerprint(rules), rules=dataclasses.asdict(rules),
                                  cells=[c._asdict() for c in all_cells], seeds=seeds, ran_cells=todo,
                                  source_identity=source_identity(), seconds=round(time.time() - start, 1)))
    return out


def save(name: str, result: dict) -> Path:
    """Write ``result`` (``run_experiment``) to ``NAME.npz`` in ``results_dir``."""
    directory = results_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.npz"
    np.savez_compressed(path, **result)
    return path


def load(name: str, directory: Path | None = None) -> tuple[dict, dict]:
    """The stored arrays and meta of experiment ``name`` (one of ``EXPERIMENTS``).

    Parameters
    ----------
    name : str
    directory : pathlib.Path, optional
        Default ``results_dir()``.
    """
    _checks.choice("name", name, tuple(EXPERIMENTS))
    path = (results_dir() if directory is None else Path(directory)) / f"{name}.npz"
    if not path.is_file():
        raise ValueError(f"name: no stored results at {path}; run: python -m swingby.open_questions run --only {name}"
                         f" (or set {ENV_VAR} to the folder that holds diffusion/ and open_questions/)")
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
        meta = json.loads(str(f["meta"]))
    return arrays, meta
