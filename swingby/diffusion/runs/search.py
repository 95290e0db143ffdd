"""The first measured search for the ``cpu`` preset (``book/diffusion_cpu.md``), and what every
search shares: a candidate is a preset whose runs are a sweep results file under
``<results>/<search>/``. Here each candidate runs the decisive case only (strongest separation,
one seed); what counts is class 11's share of discs and of blue small discs at the end.
"""
from __future__ import annotations

import json
from pathlib import Path

from swingby.diffusion.concept_space import joint_accuracy
from swingby.diffusion.presets import AUTHORS_DETAILS, Preset
from swingby.diffusion.runs.driver import sweep
from swingby.diffusion.runs.storage import atomic_save, load_results, results_dir
from swingby.diffusion.sweep import results_path

__all__ = ["CANDIDATES", "collect", "search_dir", "table"]

#: the case every candidate is measured on
DECISIVE = dict(separations=(0.689,), seeds=(0,), samples_per_class=64, n_checkpoints=6, workers=1)
#: the book's first ``cpu`` preset: every field that differs from the defaults of Preset
FIRST_CPU = dict(image_size=16, widths=(16, 32, 64), n_res=1, steps=1600, batch=48, lr=2e-3, ema=0.99,
                 sample_steps=25, classifier_steps=3000, position=0.5)

#: the candidates in the order they were tried: (name, what changes, preset overrides)
CANDIDATES = (
    ("first cpu preset", "the book's first `cpu` preset", {}),
    ("authors' details", "+ every model detail of the authors' code", AUTHORS_DETAILS),
    ("4x steps", "first preset, 6400 steps", dict(steps=6400)),
    ("centred discs", "first preset, discs always at the centre", dict(position=0.0)),
    ("centred, authors' details", "authors' details, discs at the centre", {**AUTHORS_DETAILS, "position": 0.0}),
    ("authors' details, 4x steps", "authors' details, 6400 steps", {**AUTHORS_DETAILS, "steps": 6400}),
    ("centred discs, bf16", "centred discs, bfloat16 autocast", dict(position=0.0, bf16=True)),
)


def read_candidate(directory: Path, p: Preset) -> tuple[dict | None, dict]:
    """The results of candidate ``p`` in ``directory`` (None without a file), and the fields every row ends with."""
    path = results_path(directory, p)
    if not path.exists():
        return None, {}
    res = load_results(path)
    return res, {"finished": bool(res["meta"].get("finished")), "file": path.name, "code": res["meta"]["code_version"]}


def as_json(overrides: dict) -> dict:
    """Preset overrides with tuples as lists."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in overrides.items()}


def candidate_names(only, candidates) -> list[str]:
    """The names in ``only`` (default: every one of ``candidates``), each checked."""
    names = [n for n, _, _ in candidates]
    bad = [n for n in only or [] if n not in names]
    if bad:
        word = "candidate" if len(bad) == 1 else "candidates"
        raise ValueError(f"only: unknown {word} {bad}; the candidates are {names}")
    return list(only or names)


def write_json(name: str, doc) -> None:
    """Write ``doc`` to ``<results>/<name>`` atomically."""
    atomic_save(lambda f: Path(f).write_text(json.dumps(doc, indent=1)), results_dir(for_writing=True) / name)


def candidate_preset(overrides: dict) -> Preset:
    """The first ``cpu`` preset with ``overrides``, on the decisive case."""
    return Preset(name="cpu", **{**FIRST_CPU, **DECISIVE, **overrides})


def search_dir() -> Path:
    """``<results>/search``: one results file per candidate."""
    return results_dir() / "search"


def outcome(res: dict) -> dict:
    """Class 11's (and class 01's) outcome in a one-run results file at its last checkpoint."""
    pix, probs = res["pixels"][0, 0, -1].astype(float), res["probs"][0, 0, -1].astype(float)
    valid = pix[..., 0] > 0.5
    return {"disc_11": float(valid[3].mean()), "blue_small_11": float(joint_accuracy(probs[3], pix[3], "pixels")),
            "disc_01": float(valid[1].mean()),
            "clf_blue_small_11": float(joint_accuracy(probs[3], pix[3], "classifier")),
            "minutes": float(res["run_seconds"][0, 0] / 60)}


def run_search(only=None, *, progress: bool = True) -> list[dict]:
    """Train (or resume) the candidates ``only`` (default: all); returns :func:`collect`."""
    over = {n: o for n, _, o in CANDIDATES}
    for name in candidate_names(only, CANDIDATES):
        path = sweep(candidate_preset(over[name]), out_dir=search_dir(), progress=progress)
        print(name, outcome(load_results(path)), flush=True)
    rows = collect()
    write_json("search.json", rows)
    return rows


def collect() -> list[dict]:
    """A row per finished candidate: ``name``, ``what`` it changes, class 11's ``outcome``, its ``file``."""
    rows = []
    for name, what, over in CANDIDATES:
        res, common = read_candidate(search_dir(), candidate_preset(over))
        if res is not None and common.pop("finished"):
            rows.append({"name": name, "what": what, "overrides": as_json(over), **outcome(res), **common})
    return rows


def table(rows: list[dict]) -> str:
    """The search (:func:`collect` ``rows``) as a markdown table."""
    lines = ["| candidate | change | minutes | disc (11) | blue small (11, pixels) | blue small (11, classifier) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['what']} | {r['minutes']:.1f} | {r['disc_11']:.0%} | "
                     f"{r['blue_small_11']:.0%} | {r['clf_blue_small_11']:.0%} |")
    return "\n".join(lines)
