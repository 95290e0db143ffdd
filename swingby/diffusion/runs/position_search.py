"""The search on the authors' random disc positions (issue 21): can a CPU-sized model
draw the held-out class when the discs are where the authors' code puts them?

The first search (:mod:`swingby.diffusion.runs.search`) stopped once discs at the centre of
the image worked; every negative result there was one seed at one separation. This one
runs every candidate with **one code version**, at **two separations** (the decisive
dc = 0.689 and the weak dc = 0.247 of the authors' sweep) and **two seeds**, with
independent randomness per (separation, seed) (``seeding="per_run"``), for the
``cpu`` sweep's 2400 steps, sampled at :data:`N_CHECKPOINTS` checkpoints so that one
sees whether the held-out class settles.

Everything that decides the outcome is written here before the runs:

* the candidates (:data:`CANDIDATES`): a position dose-response at the ``cpu`` model
  (centred, spread 0.1, 0.25, the authors' 0.5), then at the authors' positions four
  larger or differently trained models (32 x 32 images, two ResNet blocks per level,
  wider channels, the paper's batch of 128);
* the criterion (:data:`CRITERION`, :func:`passes`): at the decisive separation class 11
  is at least 80 % blue small discs by the pixel check *and* by the classifier, and at
  both separations every trained class is at least 95 % discs, in **every** seed, at the
  last checkpoint;
* the choice (:data:`CHOICE`): among the candidates that pass, the one with the widest
  positions (closest to the authors' data), then the cheapest per step. If a candidate
  at the authors' positions passes, random positions become the ``cpu`` preset; if
  none does, the chapter shows the dose-response that says where they stop working.

Each candidate is one sweep results file under ``<results>/search-positions/``, resumable
(unfinished runs' states under ``<results>/search-positions/partial/``).

A cost rule, added on 2026-11-23 after the 32 x 32 candidate's seed 0 had failed (it
changes no verdict, only which runs are made): the criterion must hold in every seed, so
once a *finished* run fails it, the candidate fails whatever its other runs show, and its
unfinished runs are not trained (:func:`passes` ``decided``; :func:`run_candidate`). The
table marks such a candidate "no (decided early)".

    python -m swingby.diffusion position-search [--only NAME ...]
    python -m swingby.diffusion position-search --new-sweep   # the new cpu sweep of CHOSEN
"""
from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from swingby import _checks
from swingby.capability.measures import joint_accuracy
from swingby.diffusion.presets import Preset, validate_preset
from swingby.diffusion.runs.storage import atomic_save, check_results_dict, load_results, results_dir

#: the decisive separation (strongest colour signal) and the weak one (inside 0.2-0.3)
DECISIVE_DC, WEAK_DC = 0.689, 0.247
SEEDS = (0, 1)
N_CHECKPOINTS = 8  #: evenly spaced in sqrt(step) up to the last step, as in every sweep
#: the ``cpu`` model and training of the first search's winner, at the authors' positions
BASE = dict(image_size=16, widths=(16, 32, 64), n_res=1, attention=True, steps=2400, batch=48, lr=2e-3,
            ema=0.99, sample_steps=25, samples_per_class=32, n_thumbs=4, classifier_steps=3000,
            position=0.5, seeding="per_run", bf16=False, separations=(DECISIVE_DC, WEAK_DC), seeds=SEEDS,
            n_checkpoints=N_CHECKPOINTS, workers=2, threads=1)

#: (name, what changes, preset overrides of :data:`BASE`), in the order they run
CANDIDATES = (
    ("authors' positions", "centres uniform in [-0.5, 0.5] (the authors' code)", {}),
    ("centred", "discs always at the centre", dict(position=0.0)),
    ("32 x 32", "authors' positions, 32 x 32 images", dict(image_size=32)),
    ("spread 0.25", "centres uniform in [-0.25, 0.25]", dict(position=0.25)),
    ("spread 0.1", "centres uniform in [-0.1, 0.1]", dict(position=0.1)),
    ("wider", "authors' positions, channels (32, 64, 128)", dict(widths=(32, 64, 128))),
    ("two blocks per level", "authors' positions, two ResNet blocks per level", dict(n_res=2)),
    ("paper's batch", "authors' positions, batch 128 (App. G)", dict(batch=128)),
)

#: the criterion, fixed before the runs
CRITERION = dict(
    blue_small_11=0.80,  #: class 11 blue small discs at the decisive dc, by the pixels and by the classifier
    disc_trained=0.95,  #: every trained class (00, 01, 10) drawn as a disc, at both separations
    settle_range=0.20,  #: reported, not judged: class 11's blue-small fraction over the last 3 checkpoints
)
#: how a candidate is chosen among those that pass
CHOICE = ("among the candidates that pass and whose sweep fits the budget (:func:`sweep_hours` <= "
          ":data:`SWEEP_BUDGET_HOURS`): the widest positions (closest to the authors' data), then the "
          "fewest minutes per run")

#: the new sweep (issue 21 item 3), fixed before the search's results: the chosen
#: candidate's model and data with these settings. 8 seeds with independent randomness
#: per (separation, seed); four separations, three of them inside the paper text's
#: 0.2-0.7 and 0.175 (the hidden-capabilities study's weakest) below it; 48 checkpoints
#: evenly spaced in sqrt(step), about 30 steps apart near step 200 and 66 near step 1000,
#: where the transitions are; 32 samples per prompt (the authors' number)
SWEEP = dict(seeds=tuple(range(8)), separations=(0.175, 0.247, 0.468, 0.689), n_checkpoints=48,
             samples_per_class=32, seeding="per_run", workers=2)
#: a fifth separation, added only if the sweep with it still fits the budget
OPTIONAL_SEPARATION = 0.3
#: single-process hours the new sweep may take
SWEEP_BUDGET_HOURS = 10.0
#: a sweep run costs about this many search runs: the same training, 48 checkpoints
#: instead of 8 (measured for the ``cpu`` model: training 5.6 min, one evaluation of
#: 32 samples per prompt 9.8 s, on a 2-core AVX2 machine)
SWEEP_RUN_PER_SEARCH_RUN = 2.0


def sweep_hours(minutes_per_search_run: float, n_separations: int = len(SWEEP["separations"])) -> float:
    """Estimated single-process hours of the new sweep for a candidate whose search runs
    took ``minutes_per_search_run`` (median over its runs).

    Parameters
    ----------
    minutes_per_search_run : float
        The candidate's median minutes per search run (:func:`run_outcomes`).
    n_separations : int
        Separations of the sweep.

    Returns
    -------
    float
    """
    if not isinstance(minutes_per_search_run, (int, float)) or not 0 < minutes_per_search_run < 1e5:
        raise ValueError(f"minutes_per_search_run must be a positive number, got {minutes_per_search_run!r}")
    n_separations = _checks.integer("n_separations", n_separations, low=1, high=100)
    runs = n_separations * len(SWEEP["seeds"])
    return runs * SWEEP_RUN_PER_SEARCH_RUN * minutes_per_search_run / 60


#: the candidate whose model and data make the new ``cpu`` sweep, chosen by :data:`CHOICE`
#: (:func:`choose`) on 2026-11-24 from the five candidates finished by then (centred and
#: spread 0.1 pass, spread 0.1 has the wider positions and fits the budget). The three
#: then not yet run (wider, two blocks per level, the paper's batch) are larger models
#: whose training step costs at least 1.5 times the ``cpu`` model's (one thread,
#: interleaved repeats), while spread 0.1's sweep already needs nearly all of
#: :data:`SWEEP_BUDGET_HOURS`, so none of theirs could fit; they ran after the sweep
#: (2026-11-26, same code version), each failed the criterion in its first seed, and
#: :func:`choose` over every candidate gives the same answer (the diffusion chapter
#: asserts it).
CHOSEN = "spread 0.1"


def choose(rows: list[dict]) -> dict:
    """:data:`CHOICE` applied to the finished candidates of :func:`collect`.

    Parameters
    ----------
    rows : list of dict
        :func:`collect`.

    Returns
    -------
    dict
        ``chosen`` (a name, or None when no finished candidate passes and fits the
        budget), ``eligible`` (names that pass and fit, in the order of the choice),
        ``hours`` (each complete candidate's :func:`sweep_hours`) and ``pending`` (the
        candidates that are not yet decided).
    """
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "runs" in r and "name" in r for r in rows):
        raise ValueError("rows must be the list that collect() returns")
    hours = {r["name"]: sweep_hours(float(np.median([x["minutes"] for x in r["runs"]])))
             for r in rows if r["complete"]}
    eligible = [r for r in rows if r["passes"] and hours[r["name"]] <= SWEEP_BUDGET_HOURS]
    eligible.sort(key=lambda r: (-candidate_preset(r["name"]).position, hours[r["name"]]))
    done = {r["name"] for r in rows if r["decided"]}
    return {"chosen": eligible[0]["name"] if eligible else None, "eligible": [r["name"] for r in eligible],
            "hours": hours, "pending": [n for n, _, _ in CANDIDATES if n not in done]}


def sweep_preset(name: str) -> Preset:
    """The new ``cpu`` sweep's preset if candidate ``name`` is chosen: its model and data,
    with :data:`SWEEP`'s seeds, separations and checkpoints.

    Parameters
    ----------
    name : str
        A candidate's name in :data:`CANDIDATES`.

    Returns
    -------
    Preset
    """
    return replace(candidate_preset(name), **SWEEP)


def candidate_preset(name: str) -> Preset:
    """The preset of candidate ``name``: :data:`BASE` with its overrides.

    Parameters
    ----------
    name : str
        A candidate's name in :data:`CANDIDATES`.

    Returns
    -------
    Preset
    """
    over = {n: o for n, _, o in CANDIDATES}
    if not isinstance(name, str) or name not in over:
        raise ValueError(f"name: the candidate must be one of {list(over)}, got {name!r}")
    names = {f.name for f in fields(Preset)}
    assert set(over[name]) <= names and set(BASE) <= names
    p = replace(Preset(name="cpu", image_size=16), **{**BASE, **over[name]})  # files: sweep_cpu-custom-<hash>
    validate_preset(p)
    return p


def search_dir() -> Path:
    """``<results>/search-positions``: one results file per candidate."""
    return results_dir() / "search-positions"


def run_outcomes(res: dict) -> list[dict]:
    """Outcome of every finished run of a candidate's results file at its last checkpoint.

    Parameters
    ----------
    res : dict
        A candidate's results file from :func:`~swingby.diffusion.runs.storage.load_results`.

    Returns
    -------
    list of dict
        One per (separation, seed): ``dc``, ``seed``, ``disc`` (4 classes),
        ``blue_small_11`` (pixels), ``clf_blue_small_11`` (classifier), ``last3_11``
        (class 11's pixel blue-small fraction at the last three checkpoints).
    """
    check_results_dict("res", res)
    cfg, out = res["meta"]["config"], []
    for i, dc in enumerate(cfg["separations"]):
        for j, seed in enumerate(cfg["seeds"]):
            if not res["done"][i, j].all():
                continue
            pix, probs = res["pixels"][i, j].astype(float), res["probs"][i, j].astype(float)
            last3 = [float(joint_accuracy(probs[k, 3], pix[k, 3], "pixels")) for k in range(-3, 0)]
            out.append({"dc": float(dc), "seed": int(seed),
                        "disc": [float((pix[-1, c, :, 0] > 0.5).mean()) for c in range(4)],
                        "blue_small_11": last3[-1],
                        "clf_blue_small_11": float(joint_accuracy(probs[-1, 3], pix[-1, 3], "classifier")),
                        "last3_11": last3, "minutes": float(res["run_seconds"][i, j] / 60)})
    return out


def passes(runs: list[dict]) -> dict:
    """The criterion (:data:`CRITERION`) on a candidate's runs.

    Parameters
    ----------
    runs : list of dict
        :func:`run_outcomes` of one candidate.

    Returns
    -------
    dict
        ``complete`` (every (separation, seed) run finished), ``passes`` (complete and
        every condition holds in every seed), ``decided`` (complete, or a finished run
        already fails a condition: the candidate cannot pass), and the conditions one by
        one.
    """
    if not isinstance(runs, list):
        raise ValueError(f"runs must be the list of run_outcomes, got {type(runs).__name__}")
    have = {(r["dc"], r["seed"]) for r in runs}
    complete = have >= {(dc, s) for dc in (DECISIVE_DC, WEAK_DC) for s in SEEDS}
    dec = [r for r in runs if r["dc"] == DECISIVE_DC]
    c11 = all(r["blue_small_11"] >= CRITERION["blue_small_11"] and r["clf_blue_small_11"] >= CRITERION["blue_small_11"]
              for r in dec)
    trained = all(min(r["disc"][:3]) >= CRITERION["disc_trained"] for r in runs)
    settled = all(max(r["last3_11"]) - min(r["last3_11"]) <= CRITERION["settle_range"] for r in runs)
    return {"complete": bool(complete), "class_11": bool(c11), "trained_discs": bool(trained),
            "settled": bool(settled), "passes": bool(complete and c11 and trained),
            "decided": bool(complete or not (c11 and trained))}


def run_candidate(name: str, *, progress: bool = True) -> dict:
    """Train (or resume) one candidate and return its runs' outcomes and the criterion.

    A candidate whose stored finished runs already fail the criterion (``decided``) is
    not resumed: no other run can change its verdict.

    Parameters
    ----------
    name : str
        A candidate's name in :data:`CANDIDATES`.
    progress : bool
        Show a progress bar.

    Returns
    -------
    dict
    """
    from swingby.diffusion.runs.driver import sweep
    from swingby.diffusion.sweep import results_path

    _checks.flag("progress", progress)
    p = candidate_preset(name)
    path = results_path(search_dir(), p)
    if path.exists():
        runs = run_outcomes(load_results(path))
        if passes(runs)["decided"]:
            return {"runs": runs, **passes(runs)}
    path = sweep(p, out_dir=search_dir(), progress=progress)
    runs = run_outcomes(load_results(path))
    return {"runs": runs, **passes(runs)}


def run_new_sweep(*, progress: bool = True) -> Path:
    """Train (or resume) the new ``cpu`` sweep, :func:`sweep_preset` of :data:`CHOSEN`,
    into ``<results>`` (its unfinished runs' states under ``<results>/partial/``, kept in
    the repository while a run is unfinished). Until every run is in, the preset table
    keeps the stored sweep as ``cpu``; the file of this one is
    ``sweep_cpu-custom-<hash>.npz``.

    Parameters
    ----------
    progress : bool
        Show a progress bar.

    Returns
    -------
    pathlib.Path
        The results file.
    """
    from swingby.diffusion.runs.driver import sweep

    _checks.flag("progress", progress)
    return sweep(sweep_preset(CHOSEN), out_dir=results_dir(), progress=progress)


def collect() -> list[dict]:
    """Every candidate that has a results file, in the order of :data:`CANDIDATES` (read
    only), with its runs, the criterion and the code that made it."""
    from swingby.diffusion.sweep import results_path

    rows = []
    for name, what, over in CANDIDATES:
        path = results_path(search_dir(), candidate_preset(name))
        if not path.exists():
            continue
        res = load_results(path)
        runs = run_outcomes(res)
        rows.append({"name": name, "what": what,
                     "overrides": {k: list(v) if isinstance(v, tuple) else v for k, v in over.items()},
                     "runs": runs, **passes(runs), "finished": bool(res["meta"].get("finished")),
                     "file": path.name, "code": res["meta"]["code_version"]})
    return rows


def summarise() -> list[dict]:
    """:func:`collect`, also written to ``<results>/search-positions.json``."""
    rows = collect()
    atomic_save(lambda f: Path(f).write_text(json.dumps(rows, indent=1)), results_dir() / "search-positions.json")
    return rows


def table(rows: list[dict]) -> str:
    """The search as a markdown table: one line per candidate, the worst seed of each
    quantity (the criterion must hold in every seed)."""
    lines = ["| candidate | change | runs | min disc, trained | class 11 blue small at dc 0.689 "
             "(pixels / classifier, worst seed) | class 11 at dc 0.247 (pixels, per seed) | passes |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        runs = r["runs"]
        dec = [x for x in runs if x["dc"] == DECISIVE_DC]
        weak = [x for x in runs if x["dc"] == WEAK_DC]
        disc = min((min(x["disc"][:3]) for x in runs), default=np.nan)
        c11 = (f"{min(x['blue_small_11'] for x in dec):.0%} / {min(x['clf_blue_small_11'] for x in dec):.0%}"
               if dec else "-")
        w11 = ", ".join(f"{x['blue_small_11']:.0%}" for x in weak) or "-"
        verdict = (("yes" if r["passes"] else "no") if r["complete"]
                   else "no (decided early)" if r["decided"] else "unfinished")
        lines.append(f"| {r['name']} | {r['what']} | {len(runs)} | {disc:.0%} | {c11} | {w11} | {verdict} |")
    return "\n".join(lines)
