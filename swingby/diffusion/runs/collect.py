"""Collecting the runs of a submitit or SLURM sweep (:mod:`swingby.diffusion.runs.executors`):
read each finished run's result file, check it was made by this preset config and code, and
merge the runs into the results file through
:func:`swingby.diffusion.runs.storage.save_results` (``sweep --collect``, or the end of a
waiting ``sweep``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from swingby.diffusion import _inputs
from swingby.diffusion import sweep as SP
from swingby.diffusion.presets import Preset, validate_preset
from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import evaluation as EV
from swingby.diffusion.runs import storage
from swingby.diffusion.runs.job_options import (
    check_executor,
)


# ------------------------------------------------------------------ collecting
def run_result_path(scratch, dc: float, seed: int) -> Path:
    """``<scratch>/finished/dc<dc>_seed<seed>.pt``: a finished job's run records.

    Parameters
    ----------
    scratch : path-like
        The scratch directory.
    dc : float
        The colour separation.
    seed : int
        The run's seed.

    Returns
    -------
    pathlib.Path
    """
    st = SP.state_path(scratch, dc, seed)
    return st.parent / "finished" / st.name


def read_run_result(path, p: Preset, code: str) -> dict:
    """A finished job's run records, if made by preset ``p`` and code ``code``.

    Parameters
    ----------
    path : path-like
        A :func:`run_result_path` file.
    p : Preset
        The sweep's preset.
    code : str
        The code identity the results file is made with.

    Returns
    -------
    dict
        The blob, with ``records`` as run records (:func:`~swingby.diffusion.runs.storage.records_from_state`).

    Raises
    ------
    SweepFileError
        Naming the file and why it is refused (unreadable, another preset config, other code).
    """
    path = _inputs.path("path", path)
    validate_preset(p)
    remedy = "delete it and submit its run again"
    blob = storage.load_torch(path, what="run result", remedy=remedy)
    if not isinstance(blob, dict) or not {"config", "code", "records", "dc", "seed"} <= set(blob):
        raise storage.SweepFileError(f"the run result file {path} is not a run result; {remedy}")
    if SP.state_path(path.parent, blob["dc"], blob["seed"]).name != path.name:
        raise storage.SweepFileError(f"the run result file {path} holds run dc={blob['dc']} seed={blob['seed']}, "
                                     f"not the run its name says; not merged: {remedy}")
    if blob["config"] != p.to_dict():
        diff = sorted(k for k in set(blob["config"]) | set(p.to_dict())
                      if blob["config"].get(k) != p.to_dict().get(k))
        raise storage.SweepFileError(f"the run result file {path} was made by another preset config "
                                     f"(differs in {diff}); not merged: {remedy}")
    if blob["code"] != code:
        raise storage.SweepFileError(f"the run result file {path} was made by other code (identity "
                                     f"{str(blob['code'])[:12]}, this code {code[:12]}); not merged: {remedy}")
    return {**blob, "records": {**storage.records_from_state(blob["records"]), "code": blob["code"]}}


@dataclass
class Collected:
    """What :func:`collect` did."""

    path: Path  #: the results file
    merged: list  #: (dc, seed) runs merged now
    missing: list  #: runs with no finished result yet
    refused: list  #: messages about result files that were not merged
    finished: bool  #: whether the results file now holds every run


def collect(preset: str | Preset = "cpu", *, seeds=None, separations=None, out_dir=None, scratch=None,
            executor: str | None = None, log=print) -> Collected:
    """Merge the finished jobs' run results into the sweep's results file, atomically and
    under its lock; refuse (with a message) any made by another preset config or code.

    Parameters
    ----------
    preset : str or Preset
        As for :func:`swingby.diffusion.runs.driver.sweep`.
    seeds, separations : sequence, optional
        Override the preset's.
    out_dir : path, optional
        The results directory (default :func:`~swingby.diffusion.runs.storage.results_dir`).
    scratch : path, optional
        The scratch directory the jobs wrote to (default :func:`~swingby.diffusion.sweep.default_scratch`).
    executor : str, optional
        Recorded in the results file's ``meta`` (None: ``"submitit"``).
    log : callable
        Receives one-line messages.

    Returns
    -------
    Collected
    """
    p = S._resolve_preset(preset, seeds, separations)
    executor = "submitit" if executor is None else check_executor(executor)
    _inputs.function("log", log)
    out_dir = _inputs.path("out_dir", out_dir) if out_dir is not None else storage.results_dir(for_writing=True)
    scratch = _inputs.path("scratch", scratch) if scratch is not None else SP.default_scratch(p)
    storage.check_writable(out_dir, "out_dir")
    path = SP.results_path(out_dir, p)
    with storage.lock(path):
        code = S.code_hash()
        runs, wall_before, finished = S._existing_runs(path, p, code, log)
        if finished:
            return Collected(path, [], [], [], True)
        merged, missing, refused, blobs = [], [], [], []
        for s in p.seeds:
            for dc in p.separations:
                key = (float(dc), int(s))
                if key in runs:
                    continue
                f = run_result_path(scratch, *key)
                if not f.exists():
                    missing.append(key)
                    continue
                try:
                    blob = read_run_result(f, p, code)
                except storage.SweepFileError as e:
                    refused.append(str(e))
                    log(str(e))
                    continue
                runs[key] = blob["records"]
                merged.append(key)
                blobs.append(blob)
        done = len(runs) == len(p.separations) * len(p.seeds)
        if merged:
            _, clf_report = EV.get_classifier(p, out_dir, progress=False)
            old = storage.load_results(path)["meta"] if path.exists() else {}
            devices = sorted({b["device"] for b in blobs} | set(filter(None, old.get("device", "").split(", "))))
            # wall time: the span from the first job's start to the last one's end, over every merge
            old_span = old.get("jobs_span")
            span = [min([b["started"] for b in blobs] + ([old_span[0]] if old_span else [])),
                    max([b["finished"] for b in blobs] + ([old_span[1]] if old_span else []))]
            base = wall_before - (old_span[1] - old_span[0] if old_span else 0.0)
            meta = {"code_version": S.code_version(), "classifier": clf_report, "device": ", ".join(devices),
                    "wall_seconds": base + span[1] - span[0], "jobs_span": span, "executor": executor,
                    "command": f"python -m swingby.diffusion sweep --preset {p.name} "
                               + (f"--executor {executor}" if executor != "submitit" else "--collect"),
                    "finished": done}
            storage.save_results(path, p, runs, meta)
    return Collected(path, merged, missing, refused, done)
