"""The measured search for the ``cpu`` preset (the book's diffusion chapter shows it).

Each candidate is a preset, trained on the decisive case only: the strongest colour
separation of the ``cpu`` sweep, one seed, 64 samples per class at every checkpoint.
What counts is the held-out class 11 at the end of training: the fraction of its
samples that contain a disc, and the fraction that are blue small discs by the pixel
check (:mod:`swingby.diffusion.concept_space`). Each candidate's run is an ordinary
sweep results file under ``<results>/search/``; :func:`summarise` collects them into
``<results>/search.json``, with what each cost.

    python -m swingby.diffusion search [--only NAME ...]
"""
from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

from swingby import _checks
from swingby.capability.measures import joint_accuracy
from swingby.diffusion.presets import AUTHORS_DETAILS, Preset, validate_preset
from swingby.diffusion.runs.storage import atomic_save, check_results_dict, load_results, results_dir

#: the case every candidate is measured on
DECISIVE = dict(separations=(0.689,), seeds=(0,), samples_per_class=64, n_checkpoints=6, workers=1)
#: the book's first ``cpu`` preset, every field that differs from :class:`~swingby.diffusion.presets.Preset`'s defaults
FIRST_CPU = dict(image_size=16, widths=(16, 32, 64), n_res=1, steps=1600, batch=48, lr=2e-3, ema=0.99,
                 sample_steps=25, classifier_steps=3000, position=0.5)

#: candidates in the order they were tried: (name, what changes, preset overrides)
CANDIDATES = (
    ("first cpu preset", "the book's first `cpu` preset", {}),
    ("authors' details", "+ every model detail of the authors' code", AUTHORS_DETAILS),
    ("4x steps", "first preset, 6400 steps", dict(steps=6400)),
    ("centred discs", "first preset, discs always at the centre", dict(position=0.0)),
    ("centred, authors' details", "authors' details, discs at the centre", {**AUTHORS_DETAILS, "position": 0.0}),
    ("authors' details, 4x steps", "authors' details, 6400 steps", {**AUTHORS_DETAILS, "steps": 6400}),
    ("centred discs, bf16", "centred discs, bfloat16 autocast", dict(position=0.0, bf16=True)),
)


def candidate_preset(overrides: dict) -> Preset:
    """The preset of a candidate: the first ``cpu`` preset with ``overrides``, set to the
    decisive case (independent of the current ``cpu`` preset).

    Parameters
    ----------
    overrides : dict
        Preset fields that the candidate changes.

    Returns
    -------
    Preset
    """
    names = {f.name for f in fields(Preset)}
    if not isinstance(overrides, dict) or not set(overrides) <= names:
        raise TypeError(f"overrides must be a dict of Preset fields {sorted(names)}, got {overrides!r}"[:300])
    p = replace(Preset(name="cpu", image_size=16), **{**FIRST_CPU, **DECISIVE, **overrides})
    validate_preset(p)
    return p


def search_dir() -> Path:
    """``<results>/search``: one results file per candidate."""
    return results_dir() / "search"


def outcome(res: dict) -> dict:
    """Class-11 outcome of a one-run results file at its last checkpoint (and class 01's).

    Parameters
    ----------
    res : dict
        A one-run results file from :func:`~swingby.diffusion.runs.storage.load_results`.

    Returns
    -------
    dict
    """
    check_results_dict("res", res)
    pix, probs = res["pixels"][0, 0, -1].astype(float), res["probs"][0, 0, -1].astype(float)
    valid = pix[..., 0] > 0.5
    return {"disc_11": float(valid[3].mean()), "blue_small_11": float(joint_accuracy(probs[3], pix[3], "pixels")),
            "disc_01": float(valid[1].mean()),
            "clf_blue_small_11": float(joint_accuracy(probs[3], pix[3], "classifier")),
            "minutes": float(res["run_seconds"][0, 0] / 60)}


def run_candidate(name: str, *, progress: bool = True) -> dict:
    """Train (or resume) one candidate and return its outcome.

    Parameters
    ----------
    name : str
        A candidate's name in :data:`CANDIDATES`.
    progress : bool
        Show a progress bar.

    Returns
    -------
    dict
        The candidate's :func:`outcome`.
    """
    from swingby.diffusion.runs.driver import sweep

    _checks.flag("progress", progress)
    over = {n: o for n, _, o in CANDIDATES}
    if not isinstance(name, str) or name not in over:
        raise ValueError(f"name: the candidate must be one of {[n for n, _, _ in CANDIDATES]}, got {name!r}")
    path = sweep(candidate_preset(over[name]), out_dir=search_dir(), progress=progress)
    return outcome(load_results(path))


def collect() -> list[dict]:
    """Outcomes of every finished candidate run, in the order of :data:`CANDIDATES`
    (read only: nothing is written)."""
    from swingby.diffusion.sweep import results_path

    rows = []
    for name, what, over in CANDIDATES:
        path = results_path(search_dir(), candidate_preset(over))
        if not path.exists():
            continue
        res = load_results(path)
        if not res["meta"].get("finished"):
            continue
        rows.append({"name": name, "what": what, "overrides": {k: list(v) if isinstance(v, tuple) else v
                                                                for k, v in over.items()},
                     **outcome(res), "file": path.name, "code": res["meta"]["code_version"]})
    return rows


def summarise() -> list[dict]:
    """:func:`collect`, also written to ``<results>/search.json``."""
    rows = collect()
    atomic_save(lambda f: Path(f).write_text(json.dumps(rows, indent=1)), results_dir() / "search.json")
    return rows


def table(rows: list[dict]) -> str:
    """The search as a markdown table."""
    lines = ["| candidate | change | minutes | disc (11) | blue small (11, pixels) | blue small (11, classifier) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['what']} | {r['minutes']:.1f} | {r['disc_11']:.0%} | "
                     f"{r['blue_small_11']:.0%} | {r['clf_blue_small_11']:.0%} |")
    return "\n".join(lines)

