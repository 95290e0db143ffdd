"""The position search finished at 4800 steps, and the confirmatory sweep it chooses.

The first position search (:mod:`~swingby.diffusion.runs.position_search`) stopped at
2400 steps with a criterion that rejected near-good models. This search trains twice as
long and judges on confidence intervals. Fixed here before its runs: the candidates,
widest disc positions first (:data:`CANDIDATES`); the criterion (:data:`CRITERION`,
:func:`judge_candidate`) on the samples of each run's last checkpoint and final repeated
draws (160 per class and run), pooled over the candidate's runs; the cost rules (a
candidate stops as soon as its finished runs decide it; a candidate narrower than one
that passed is not run; the 100-sampling-step candidate takes the model of
:func:`best_of` the two before it); and the choice (:data:`CHOICE`, :func:`choose`).
The confirmatory sweep (:data:`SWEEP`) is the diffusion chapter's ``cpu`` sweep.

    python -m swingby.diffusion long-search [--only NAME ...] [--sweep]
"""
from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy import stats

from swingby.diffusion.concept_space import RADIUS_SPLIT
from swingby.diffusion.presets import Preset
from swingby.diffusion.runs.search import as_json, candidate_names, read_candidate, write_json
from swingby.diffusion.runs.storage import results_dir

__all__ = ["CANDIDATES", "DECISIVE_DC", "STEPS", "SWEEP", "choose", "collect", "sweep_model", "sweep_preset"]

STEPS = 4800
DECISIVE_DC, WEAK_DC = 0.689, 0.247  #: the strongest colour signal, and a weak one
SEEDS = (200, 201)  #: seed labels no earlier search or sweep used (randomness per run)
#: the ``cpu`` model and training (the first search's winner) at the authors' positions; 16
#: checkpoints, the last three show whether class 11 settles; bf16 autocast (the paired check
#: of :mod:`~swingby.diffusion.runs.precision_check` keeps the outcome within the seed spread)
BASE = dict(image_size=16, widths=(16, 32, 64), n_res=1, attention=True, steps=STEPS, batch=48, lr=2e-3,
            ema=0.99, sample_steps=25, samples_per_class=32, n_thumbs=4, classifier_steps=3000,
            position=0.5, seeding="per_run", bf16=True, separations=(DECISIVE_DC, WEAK_DC), seeds=SEEDS,
            n_checkpoints=16, workers=2, threads=1)

#: (name, what changes, preset overrides of :data:`BASE`), in the order they run. The
#: third takes the overrides of :func:`best_of` the first two, plus 100 sampling steps.
CANDIDATES = (
    ("two blocks per level", "authors' positions, two ResNet blocks per level", dict(n_res=2)),
    ("slower lr and EMA", "authors' positions, lr 1e-3 and EMA 0.999", dict(lr=1e-3, ema=0.999)),
    ("best + 100 sampling steps", "authors' positions, the better of the two above, 100 sampling steps (the paper's)",
     dict(sample_steps=100)),
    ("spread 0.25", "centres uniform in [-0.25, 0.25]", dict(position=0.25)),
    ("spread 0.1", "centres uniform in [-0.1, 0.1] (the first search's choice)", dict(position=0.1)),
)
BEST_OF = ("two blocks per level", "slower lr and EMA")  #: the candidates :func:`best_of` compares
FALLBACK = "spread 0.1"  #: the sweep's candidate if none passes

#: the criterion, fixed before the runs
CRITERION = dict(
    confidence=0.95,      #: one-sided Clopper-Pearson lower bounds
    disc_trained=0.90,    #: lower bound of each trained class's disc share, at each separation
    blue_small_11=0.75,   #: lower bound of class 11's blue-small share at the decisive separation
    run_min_11=0.50,      #: every run's own class-11 blue-small share at the decisive separation
)
#: how a candidate is chosen among those that pass
CHOICE = ("among the candidates that pass and whose sweep fits the budget: the widest positions, then the "
          "highest lower bound of class 11's blue-small share (classifier)")

#: the confirmatory sweep: the chosen candidate's model and data with these settings
SWEEP = dict(steps=STEPS, seeds=tuple(range(1000, 1008)), separations=(0.175, 0.247, 0.468, 0.689),
             n_checkpoints=64, samples_per_class=32, seeding="per_run", workers=2)
SWEEP_BUDGET_HOURS = 14.0  #: single-process hours the sweep may take
#: a sweep run's cost over a search run's, by sampling steps: the same training, 64
#: evaluations instead of 16 (estimated from the measured step and evaluation costs)
SWEEP_RUN_PER_SEARCH_RUN = {25: 1.4, 100: 2.1}


def candidate_overrides(name: str, rows: list[dict] | None = None) -> dict:
    """The preset overrides of candidate ``name`` (for the 100-sampling-step candidate, those
    of :func:`best_of` ``rows`` too, default :func:`collect`)."""
    over = {n: o for n, _, o in CANDIDATES}
    if not isinstance(name, str) or name not in over:
        raise ValueError(f"name: the candidate must be one of {list(over)}, got {name!r}")
    if name != CANDIDATES[2][0]:
        return dict(over[name])
    best = best_of(rows if rows is not None else collect())
    if best is None:
        raise ValueError(f"{name!r} needs both of {list(BEST_OF)} decided first")
    return {**over[best], **over[name]}


def candidate_preset(name: str, rows: list[dict] | None = None) -> Preset:
    """The preset of candidate ``name``: :data:`BASE` with :func:`candidate_overrides` ``(name, rows)``."""
    return Preset(name="cpu", **{**BASE, **candidate_overrides(name, rows)})


def sweep_model(name: str | None = None) -> dict:
    """The model and data fields of the sweep of candidate ``name`` (default: the chosen one
    once the search has chosen, else :data:`BASE`), without its seeds, separations,
    checkpoints, workers and steps."""
    if name is None:
        name = choose(collect())["chosen"] if search_dir().exists() else None
    d = dict(BASE) if name is None else {**BASE, **candidate_overrides(name)}
    for k in ("separations", "seeds", "n_checkpoints", "workers", "steps"):
        d.pop(k, None)
    return as_json(d)


def sweep_preset(name: str) -> Preset:
    """The confirmatory sweep's preset if candidate ``name`` is chosen."""
    return replace(candidate_preset(name), **SWEEP)


def search_dir() -> Path:
    """``<results>/search-4800``: one results file per candidate."""
    return results_dir() / "search-4800"


def _bound(k: int, n: int) -> float:
    """One-sided lower confidence bound (:data:`CRITERION` ``confidence``) of a share ``k / n``."""
    if n == 0:
        return 0.0
    return float(stats.binomtest(int(k), int(n), alternative="greater").proportion_ci(
        CRITERION["confidence"], method="exact").low)


def run_counts(res: dict) -> list[dict]:
    """Per finished run of a candidate's results, the counts the criterion reads: the last
    checkpoint's and the final repeated draws' samples of every class: ``dc``, ``seed``,
    ``n`` (samples per class), ``disc`` (discs per class), ``blue_small_11_clf`` and
    ``blue_small_11_pix``, ``last3_11`` (class 11's classifier blue-small share at the last
    three checkpoints), ``minutes``, and ``disc_11_path`` (class 11's disc share at every
    checkpoint ``steps``)."""
    if "disc" not in res or "rep_disc" not in res:
        raise ValueError("res must hold per-sample disc flags ('disc', 'rep_disc'): made by code that stores them")
    cfg, out = res["meta"]["config"], []
    for i, dc in enumerate(cfg["separations"]):
        for j, seed in enumerate(cfg["seeds"]):
            if not res["done"][i, j].all():
                continue
            probs = np.concatenate([res["probs"][i, j, -1][None], res["rep_probs"][i, j]]).astype(float)
            pix = np.concatenate([res["pixels"][i, j, -1][None], res["rep_pixels"][i, j]]).astype(float)
            disc = np.concatenate([res["disc"][i, j, -1][None], res["rep_disc"][i, j]])  # (R + 1, 4, n)
            clf_bs = disc[:, 3] & (probs[:, 3, :, 0] > 0.5) & (probs[:, 3, :, 1] > 0.5)
            pix_bs = disc[:, 3] & (pix[:, 3, :, 2] > 0) & (pix[:, 3, :, 1] < RADIUS_SPLIT)
            p11 = res["probs"][i, j, -3:, 3].astype(float)
            last3 = [float(((q[:, 0] > 0.5) & (q[:, 1] > 0.5)).mean()) for q in p11]
            out.append({"dc": float(dc), "seed": int(seed), "n": int(disc.shape[0] * disc.shape[2]),
                        "disc": [int(disc[:, c].sum()) for c in range(4)],
                        "blue_small_11_clf": int(clf_bs.sum()), "blue_small_11_pix": int(pix_bs.sum()),
                        "last3_11": last3, "minutes": float(res["run_seconds"][i, j] / 60),
                        "disc_11_path": res["disc"][i, j, :, 3].mean(-1).tolist(),
                        "steps": list(res["meta"]["checkpoint_steps"])})
    return out


def judge_candidate(runs: list[dict], n_per_run: int) -> dict:
    """The criterion (:data:`CRITERION`) on a candidate's :func:`run_counts`, each run of
    ``n_per_run`` samples per class: ``complete``, ``passes`` (complete and every condition
    holds), ``decided`` (complete, or it fails even if every sample still to come were a
    success), the bounds (``disc_bounds`` per separation and trained class,
    ``blue_small_11_clf``, ``blue_small_11_pix``) and ``runs_11`` (every decisive run's
    own share >= the minimum)."""
    need = {(dc, s) for dc in (DECISIVE_DC, WEAK_DC) for s in SEEDS}
    have = {(r["dc"], r["seed"]) for r in runs}
    complete = have >= need

    def bounds(optimistic: bool) -> dict:
        extra = {dc: n_per_run * len({(d, s) for d, s in need - have if d == dc}) if optimistic else 0
                 for dc in (DECISIVE_DC, WEAK_DC)}
        out = {"disc_bounds": {}}
        for dc in (DECISIVE_DC, WEAK_DC):
            rs = [r for r in runs if r["dc"] == dc]
            n = sum(r["n"] for r in rs) + extra[dc]
            out["disc_bounds"][str(dc)] = [_bound(sum(r["disc"][c] for r in rs) + extra[dc], n) for c in range(3)]
        dec = [r for r in runs if r["dc"] == DECISIVE_DC]
        n = sum(r["n"] for r in dec) + extra[DECISIVE_DC]
        for key in ("blue_small_11_clf", "blue_small_11_pix"):
            out[key] = _bound(sum(r[key] for r in dec) + extra[DECISIVE_DC], n)
        out["runs_11"] = all(min(r["blue_small_11_clf"], r["blue_small_11_pix"]) / r["n"] >= CRITERION["run_min_11"]
                             for r in dec)
        out["ok"] = (all(b >= CRITERION["disc_trained"] for bs in out["disc_bounds"].values() for b in bs)
                     and min(out["blue_small_11_clf"], out["blue_small_11_pix"]) >= CRITERION["blue_small_11"]
                     and out["runs_11"])
        return out

    now, best = bounds(False), bounds(True)
    return {"complete": bool(complete), "passes": bool(complete and now["ok"]),
            "decided": bool(complete or not best["ok"]), **{k: v for k, v in now.items() if k != "ok"}}


def best_of(rows: list[dict]) -> str | None:
    """The better of :data:`BEST_OF` once both are decided (None before): the higher lower
    bound of class 11's blue-small share by the classifier, then the fewer minutes per run."""
    by = {r["name"]: r for r in rows}
    if not all(n in by and by[n]["decided"] for n in BEST_OF):
        return None
    return max(BEST_OF, key=lambda n: (by[n]["blue_small_11_clf"], -_minutes(by[n])))


def _minutes(row: dict) -> float:
    """A candidate's median minutes per run."""
    return float(np.median([x["minutes"] for x in row["runs"]]))


def sweep_hours(row: dict) -> float:
    """Estimated single-process hours of the sweep for a decided candidate ``row``."""
    factor = SWEEP_RUN_PER_SEARCH_RUN[100 if row["overrides"].get("sample_steps") == 100 else 25]
    return len(SWEEP["seeds"]) * len(SWEEP["separations"]) * factor * _minutes(row) / 60


def choose(rows: list[dict]) -> dict:
    """The choice (:data:`CHOICE`) among the candidates of :func:`collect` ``rows``.

    Returns
    -------
    dict
        ``chosen`` (a name; :data:`FALLBACK` when every candidate is decided and none passes),
        ``eligible`` (names that pass and fit, in the order of the choice), ``hours`` (each
        complete candidate's estimated sweep hours), ``pending`` (candidates still to run) and
        ``skipped`` (not run: narrower than one that passed).
    """
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "runs" in r and "name" in r for r in rows):
        raise ValueError("rows must be the list that collect() returns")
    hours = {r["name"]: sweep_hours(r) for r in rows if r["complete"]}
    eligible = [r for r in rows if r["passes"] and hours[r["name"]] <= SWEEP_BUDGET_HOURS]
    eligible.sort(key=lambda r: (-r["position"], -r["blue_small_11_clf"]))
    widest = max((r["position"] for r in eligible), default=None)
    done = {r["name"] for r in rows if r["decided"]}
    skipped = [n for n, _, o in CANDIDATES if n not in done and widest is not None
               and o.get("position", BASE["position"]) < widest]
    pending = [n for n, _, _ in CANDIDATES if n not in done and n not in skipped]
    chosen = None if pending else eligible[0]["name"] if eligible else FALLBACK
    return {"chosen": chosen, "eligible": [r["name"] for r in eligible], "hours": hours, "pending": pending, "skipped": skipped}


def collect() -> list[dict]:
    """Every candidate that has a results file, in the order of :data:`CANDIDATES` (read only):
    one row each, with its ``name``, ``what`` it changes, ``overrides``, disc ``position``,
    ``runs`` (the counts of every finished run), the criterion's bounds and verdict
    (``complete``, ``passes``, ``decided``) and its results ``file``."""
    rows = []
    for name, what, _ in CANDIDATES:
        try:
            p = candidate_preset(name, rows)
        except ValueError:  # the 100-step candidate before its model is known
            continue
        res, common = read_candidate(search_dir(), p)
        if res is not None:
            runs = run_counts(res)
            rows.append({"name": name, "what": what, "overrides": as_json(candidate_overrides(name, rows)),
                         "position": p.position, "runs": runs, **judge_candidate(runs, p.samples_per_class * 5),
                         **common})
    return rows


def summarise() -> list[dict]:
    """:func:`collect`, also written to ``<results>/search-4800.json`` with the choice."""
    rows = collect()
    write_json("search-4800.json", {"criterion": CRITERION, "choice": CHOICE, "state": choose(rows),
                                    "candidates": rows})
    return rows


def run_search(only=None, *, sweep: bool = False, progress: bool = True):
    """Run (or resume) the candidates ``only`` (default: all) in order under the cost rules
    (returns :func:`collect`); with ``sweep``, the confirmatory sweep of the chosen candidate
    instead (returns its results file; refused until the search has chosen)."""
    from swingby.diffusion.runs import driver
    from swingby.diffusion.sweep import N_REPEATS, partial_dir

    names = candidate_names(only, CANDIDATES)
    if sweep:
        if only:
            raise ValueError("--sweep runs the chosen candidate's sweep; leave out --only")
        state = choose(collect())
        if state["chosen"] is None:
            raise ValueError(f"the search has not chosen yet: still to run {state['pending']}")
        return driver.sweep(sweep_preset(state["chosen"]), out_dir=results_dir(), progress=progress)
    assert N_REPEATS == 4  # the criterion's 160 samples per class and run: last checkpoint + 4 draws

    def decided(name: str) -> bool:  # the early stop: its finished runs already decide it
        return any(r["name"] == name and r["decided"] for r in collect())

    for name in names:
        rows = collect()
        if name not in choose(rows)["pending"]:
            continue
        p = candidate_preset(name, rows)
        driver.sweep(p, out_dir=search_dir(), progress=progress, stop=lambda: decided(name))
        if decided(name):  # stopped early or finished: its unfinished runs are never resumed
            shutil.rmtree(partial_dir(search_dir(), p), ignore_errors=True)
            driver.remove_if_empty(partial_dir(search_dir(), p))
        summarise()
    return summarise()
