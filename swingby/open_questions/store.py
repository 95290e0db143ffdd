"""Stored results of the open-question sweeps (chapter: ``book/open_questions.md``).

The sweeps take minutes on the book's 2-core machine, longer than a chapter may run, so
their per-run measures are kept in ``results/open_questions/NAME.npz``, with the rules'
fingerprint, the cells, the seeds and the code identity (:func:`source_identity`) in its
``meta`` (in another directory when ``$SWINGBY_OPEN_QUESTIONS_RESULTS`` names one, as an
installed copy needs). ``python -m swingby.open_questions run [--only NAME]`` regenerates them;
``tests/test_open_questions.py`` recomputes one small stored entry and checks that it
matches (replay).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from swingby import _checks
from swingby._source_identity import code_only
from swingby.open_questions import rules as rules_module
from swingby.open_questions.experiments import EXPERIMENTS, cell_records, experiment_cells, run_measures
from swingby.open_questions.rules import OQ_RULES, OpenRules
from swingby.open_questions.theory import flow_learning_times
from swingby.sim import run_checks
from swingby.sim.models import MLP

ROOT = Path(__file__).resolve().parents[2]
#: where the stored results live in a checkout
RESULTS = ROOT / "results" / "open_questions"
#: names another directory for them (an installed copy, as in Colab, has no checkout)
ENV_VAR = "SWINGBY_OPEN_QUESTIONS_RESULTS"
MEASURES = ("rise", "distance", "order", "t_first", "t_second", "diverged")
N_SHOW = 3  #: seeds per cell and data whose curves are kept for the figures
#: the source files whose code made the results (the code identity)
SOURCES = ("open_questions/engine.py", "open_questions/experiments.py", "open_questions/theory.py",
           "open_questions/store.py", "open_questions/rules.py", "sim/models.py", "sim/data.py",
           "sim/batched.py", "sim/train_loop.py", "sim/run_checks.py", "observations/learning.py",
           "observations/swingby.py", "observations/ood.py", "observations/runs.py")


def results_dir() -> Path:
    """The stored results' directory: ``$SWINGBY_OPEN_QUESTIONS_RESULTS`` when it is set,
    else :data:`RESULTS` of the checkout.

    Returns
    -------
    pathlib.Path
    """
    env = os.environ.get(ENV_VAR)
    return Path(env).expanduser() if env else RESULTS


def source_identity() -> str:
    """A short sha256 (12 hex digits) of the code of the source files :data:`SOURCES`
    that make the stored results: their syntax trees without docstrings and comments,
    so that editing a description keeps the identity and editing code changes it (a
    file that has moved counts as empty).

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    pkg = ROOT / "swingby"
    for rel in SOURCES:
        path = pkg / rel
        h.update(rel.encode())
        h.update(code_only(path.read_text()).encode() if path.is_file() else b"")
    return h.hexdigest()[:12]


def _theory_orders(runs, cell, rules: OpenRules) -> tuple[np.ndarray, np.ndarray]:
    """Per run: the order predicted by the flow under the inputs the model sees, and under
    the raw inputs (the prediction that ignores the normalisation)."""
    pred_norm, pred_raw = [], []
    for rec, dat, st in zip(*runs):
        init = MLP(rules.d, 1, activation="linear", init_scale=cell.init_scale, seed=rec.config["seed"])
        W0 = init.layers[0].weight.detach().double().numpy()
        b0 = init.layers[0].bias.detach().double().numpy()
        R = dat.rotation.double().numpy()
        X = dat.X.double().numpy()
        x_hat = dat.x_hat.double().numpy()
        mu = rec.test_points[-1, :2]

        def passes(t):
            return bool(np.isfinite(t[1]) and t[0] >= rules.time_ratio * t[1])

        raw = flow_learning_times(X, X, x_hat, W0, b0, lambda y: y @ R, mu)
        if st is None:
            norm = raw
        else:
            Z = st(dat.X).double().numpy()
            z_hat = st(dat.x_hat).double().numpy()
            if cell.variant == "standardised":
                norm = flow_learning_times(Z, Z, z_hat, W0, b0, lambda y, st=st: st.invert(y) @ R, mu)
            else:
                norm = flow_learning_times(Z, X, z_hat, W0, b0, lambda y: y @ R, mu)
        pred_norm.append(passes(norm))
        pred_raw.append(passes(raw))
    return np.array(pred_norm), np.array(pred_raw)


def run_experiment(name: str, *, seeds: Sequence[int] | None = None, cells: Sequence[int] | None = None,
                   rules: OpenRules = OQ_RULES, progress: bool = True) -> dict:
    """Train the cells of experiment ``name`` on real and null data and measure every run.

    Parameters
    ----------
    name : str
        One of :data:`~swingby.open_questions.experiments.EXPERIMENTS`.
    seeds : sequence of int, optional
        Seeds per cell and data (default: ``range`` of the rules' seed count).
    cells : sequence of int, optional
        Indices of the cells to run (default: all); others are left NaN.
    rules : OpenRules
        The rules.
    progress : bool
        Print a text progress line per cell to stderr.

    Returns
    -------
    dict
        Arrays ``MEASURE`` of shape ``(n_cells, 2, n_seeds)`` (axis 1: real, null), the
        theory's ``pred_norm`` / ``pred_raw`` (Q4), the curves ``loss_i_j``, ``traj_i_j``,
        ``epochs_i`` of the first :data:`N_SHOW` seeds, and ``meta`` (JSON text).
    """
    all_cells, n_seeds = experiment_cells(name, rules)
    seeds = list(range(n_seeds)) if seeds is None else run_checks.seed_list("seeds", seeds, distinct=True)
    todo = list(range(len(all_cells))) if cells is None else [
        _checks.integer(f"cells[{k}]", c, low=0, high=len(all_cells) - 1) for k, c in enumerate(cells)]
    progress = _checks.flag("progress", progress)
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
                out["pred_norm"][i, j], out["pred_raw"][i, j] = _theory_orders(runs, cell, rules)
            show = runs.records[:N_SHOW]
            out[f"loss_{i}_{j}"] = np.stack([r.test_loss for r in show]).astype(np.float32)
            out[f"traj_{i}_{j}"] = np.stack([r.trajectory[:, :2] for r in show]).astype(np.float32)
            out[f"epochs_{i}"] = show[0].epochs
        if progress:
            print(f"[{name}] cell {n_done + 1}/{len(todo)} {dict(cell._asdict())} "
                  f"({time.time() - start:.0f} s)", file=sys.stderr, flush=True)
    out["meta"] = json.dumps(dict(name=name, rules_fingerprint=rules_module.fingerprint(rules),
                                  rules=rules_module.values(rules), cells=[c._asdict() for c in all_cells],
                                  seeds=seeds, ran_cells=todo, source_identity=source_identity(),
                                  seconds=round(time.time() - start, 1)))
    return out


def save(name: str, result: dict, directory: Path | None = None) -> Path:
    """Write ``result`` (from :func:`run_experiment`) to ``DIRECTORY/NAME.npz``.

    Parameters
    ----------
    name : str
        The experiment's name.
    result : dict
        What :func:`run_experiment` returned.
    directory : pathlib.Path, optional
        Default :func:`results_dir`.

    Returns
    -------
    pathlib.Path
    """
    _checks.choice("name", name, tuple(EXPERIMENTS))
    if not isinstance(result, dict) or "meta" not in result:
        raise ValueError("result must be the dict run_experiment returns (with 'meta')")
    directory = results_dir() if directory is None else Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.npz"
    np.savez_compressed(path, **result)
    return path


def load(name: str, directory: Path | None = None) -> tuple[dict, dict]:
    """The stored arrays and meta of experiment ``name``.

    Parameters
    ----------
    name : str
        One of :data:`~swingby.open_questions.experiments.EXPERIMENTS`.
    directory : pathlib.Path, optional
        Default :func:`results_dir`.

    Returns
    -------
    (dict, dict)
        The arrays and the meta.
    """
    _checks.choice("name", name, tuple(EXPERIMENTS))
    path = (results_dir() if directory is None else Path(directory)) / f"{name}.npz"
    if not path.is_file():
        raise ValueError(f"name: no stored results at {path}; run: python -m swingby.open_questions run --only {name}"
                         f" (or set {ENV_VAR} to the directory that holds them)")
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
        meta = json.loads(str(f["meta"]))
    return arrays, meta
