"""The sweep of paper Sec. 5: one diffusion model per (colour separation, seed), every class sampled at checkpoints
evenly spaced in sqrt(step) and read into concept space, all in one results file. A run saves its training state,
stamped with the preset config and the code identity, at every checkpoint and resumes from it bit for bit (never
from another config's or code's); files are written atomically under a lock, and SIGTERM / SIGINT stop the workers.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import torch
from tqdm.auto import tqdm

from swingby import _checks
from swingby.claims import capability as capability_claims
from swingby.claims import diffusion as diffusion_claims
from swingby.diffusion import _inputs, rules
from swingby.diffusion.classifier import ConceptClassifier
from swingby.diffusion.data import make_dataset
from swingby.diffusion.presets import PRESETS, Preset, get_preset, run_seed, validate_preset
from swingby.diffusion.runs import storage
from swingby.diffusion.runs.evaluation import circles_config, evaluate, final_repeats, get_classifier
from swingby.diffusion.runs.identity import IDENTITY_KEY, code_identity
from swingby.diffusion.runs.storage import SweepFileError, atomic_save, load_results, results_dir, save_results
from swingby.diffusion.sweep import checkpoint_steps, partial_dir, results_path, state_path
from swingby.diffusion.training import Run, resolve_device

__all__ = ["DEFAULT_OUT", "code_hash", "sweep"]  # noqa: F822 (DEFAULT_OUT: module __getattr__)

REPO_ROOT = Path(__file__).resolve().parents[3]


def __getattr__(name: str):
    """``DEFAULT_OUT``, the stored sweeps' folder, read when asked (``SWINGBY_RESULTS`` may be set later)."""
    if name == "DEFAULT_OUT":
        return results_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_CODE_IDENTITY = code_identity()  # the code this process runs: computed when it was imported


def code_hash() -> str:
    """The identity (64 hex digits) of the code that makes a results file's numbers, as this process imported it."""
    return _CODE_IDENTITY


def code_version() -> dict:
    """``{"git_commit": ..., "code_identity": ...}`` of the code that makes the numbers."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
    except Exception:  # noqa: BLE001 - no git: still record the source hash
        commit = None
    return {"git_commit": commit, IDENTITY_KEY: code_hash()}


def _load_run_state(path: Path, p: Preset, code: str, run: Run, log) -> None:
    """Resume ``run`` from ``path`` if it was made by the same config and code."""
    if not path.exists():
        return
    try:
        st = storage.load_torch(path, what="run state", remedy="it is deleted and the run restarts")
        if st["config"] != p.to_dict() or st["code"] != code:
            why = "preset config" if st["config"] != p.to_dict() else "code"
            log(f"{path.name}: made by another {why}; restarting this run from step 0")
            return
        run.load_state({**st, "records": storage.records_from_state(st["records"])})
    except (SweepFileError, KeyError, RuntimeError, ValueError) as e:
        log(f"{path.name}: unusable ({e}); restarting this run from step 0")
        run.__init__(p, run.seed, run.device)


def run_one(p: Preset, dc: float, seed: int, scratch: Path, clf: ConceptClassifier,
            progress_queue=None, *, device: str | None = "cpu", log=print) -> dict:
    """Records (``evals``, ``loss``, ``seconds``, ``repeats``, ``code``) of run ``(dc, seed)``, resumed from scratch."""
    validate_preset(p)
    _inputs.instance("clf", clf, ConceptClassifier, "swingby.diffusion.classifier.ConceptClassifier")
    if progress_queue is not None and not callable(getattr(progress_queue, "put", None)):
        raise TypeError(f"progress_queue must be None or have a put method (a queue), got {progress_queue!r}")
    _inputs.function("log", log)
    torch.set_num_threads(p.threads)
    dev = resolve_device(device)
    code = code_hash()
    ckpts = checkpoint_steps(p.steps, p.n_checkpoints)
    path = state_path(scratch, dc, seed)
    rs = run_seed(p, dc, seed)  # the seed itself, or independent per (dc, seed) (p.seeding)
    run = Run(p, rs, dev)
    _load_run_state(path, p, code, run, log)
    data = make_dataset(circles_config(p, dc), p.n_per_class, seed=rs)
    images, cond = data["images"].to(dev), data["cond"].to(dev)
    t_start = time.time()
    for k, target in enumerate(ckpts):
        if k < len(run.records["evals"]):  # done before an interruption
            if progress_queue is not None:
                progress_queue.put(1)
            continue
        run.train_to(int(target), images, cond, check=_exit_if_orphaned)
        run.records["evals"].append(evaluate(run.ema, clf, p, dc, rs, k, dev))
        run.records["seconds"] += time.time() - t_start
        t_start = time.time()
        st = {**run.state(), "records": storage.records_to_state(run.records), "config": p.to_dict(),
              "code": code, "dc": float(dc), "seed": int(seed)}
        atomic_save(lambda f: torch.save(st, f), path)
        if progress_queue is not None:
            progress_queue.put(1)
    if "repeats" not in run.records:
        run.records["repeats"] = final_repeats(run.ema, clf, p, dc, rs, dev)
        st = {**run.state(), "records": storage.records_to_state(run.records), "config": p.to_dict(),
              "code": code, "dc": float(dc), "seed": int(seed)}
        atomic_save(lambda f: torch.save(st, f), path)
    return {**run.records, "code": code}


_QUEUE = None
_PARENT = None
_LOG = print  #: where run messages go (a worker process prints them)


def _exit_if_orphaned() -> None:
    """In a worker process: exit at once when the sweep process that started it is gone."""
    if _PARENT is not None and os.getppid() != _PARENT:
        os._exit(1)


def _init_worker(queue) -> None:
    """Set up a worker process of the pool."""
    global _QUEUE, _PARENT
    _QUEUE, _PARENT = queue, os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us


def _worker(args):
    """``(dc, seed, records)`` of one run from its picklable arguments."""
    p_dict, dc, seed, scratch, clf_state, clf_width, device = args
    p = get_preset(p_dict["name"], **{k: v for k, v in p_dict.items() if k != "name"})
    clf = ConceptClassifier(clf_width)
    clf.load_state_dict(clf_state)
    return dc, seed, run_one(p, dc, seed, Path(scratch), clf.eval(), _QUEUE, device=device, log=_LOG)


def resolve_preset(preset, seeds, separations) -> Preset:
    """The preset of a sweep: a name or a Preset, with ``seeds`` and ``separations`` overridden."""
    over = {}
    for name, value in (("seeds", seeds), ("separations", separations)):
        if value is not None and (isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__")):
            raise TypeError(f"{name} must be a sequence (or None for the preset's), got {value!r}")
        if value is not None:
            over[name] = tuple(value)
    if isinstance(preset, str):
        return get_preset(preset, **over)
    if not isinstance(preset, Preset):
        raise ValueError(f"preset must be a preset name {sorted(PRESETS)} or a Preset, got {preset!r}")
    p = replace(preset, **over) if over else preset
    validate_preset(p)
    return p


def existing_runs(path: Path, p: Preset, code: str, log) -> tuple[dict, float, bool]:
    """The kept runs of a results file, its wall time, and whether it is a finished sweep of this config."""
    if not path.exists():
        return {}, 0.0, False
    old = load_results(path)
    meta = old["meta"]
    if meta["config"] != p.to_dict():
        log(f"{path.name}: made by another preset config; its runs are redone")
        return {}, 0.0, False
    made_by = meta.get("code_version", {}).get(IDENTITY_KEY)
    if meta.get("finished"):
        if made_by != code:
            log(f"{path.name}: a finished sweep made by other code ({str(made_by)[:12]}); left as it is. "
                "Delete it (or use another --out) to remake it with this code.")
        return {}, 0.0, True
    if made_by != code:
        log(f"{path.name}: partial results made by other code; its runs are redone")
        return {}, 0.0, False
    return storage.runs_from_results(old), float(meta.get("wall_seconds", 0.0)), False


def sweep(preset: str | Preset = "cpu", *, seeds=None, separations=None, out_dir=None,
          scratch=None, progress: bool = True, device: str | None = "cpu", log=print, stop=None) -> Path:
    """Run (or resume) a sweep; the path of its results file.

    Parameters
    ----------
    preset : str or Preset
        A name of ``swingby.diffusion.presets.PRESETS`` or a Preset.
    seeds, separations : sequence, optional
        Override the preset's.
    out_dir, scratch : path, optional
        The results file and classifier (default :func:`~swingby.diffusion.runs.storage.results_dir`); the
        runs' resumable states (default ``<out_dir>/partial/<preset>-<hash>``), deleted once stored.
    progress : bool
    device : {"cpu", "cuda", "auto"}
    log, stop : callable
        Receives one-line messages; called after each stored run (optional), True stops the sweep.
    """
    p = resolve_preset(preset, seeds, separations)
    resolve_device(device)
    _checks.flag("progress", progress)
    _inputs.function("log", log)
    _inputs.function("stop", stop, optional=True)
    out_dir = storage.writable_dir("out_dir", out_dir)
    scratch = storage.writable_dir("scratch", scratch, partial_dir(out_dir, p))
    path = results_path(out_dir, p)
    with storage.lock(path):
        code = code_hash()
        runs, wall_before, finished = existing_runs(path, p, code, log)
        if finished:
            remove_if_empty(scratch)
            return path
        t0 = time.time()
        clf, clf_report = get_classifier(p, out_dir, progress=progress)
        # seed-major order: a sweep stopped early still has every separation for its first seeds
        todo = [(float(dc), int(s)) for s in p.seeds for dc in p.separations if (float(dc), int(s)) not in runs]

        def save():
            meta = {"code_version": code_version(), "rules_fingerprint": rules.fingerprint(),
                    "claims_fingerprints": {"diffusion": diffusion_claims.fingerprint(),
                                            "capability": capability_claims.fingerprint()},
                    "independent_unit": "run" if p.seeding == "per_run" else "seed",
                    "classifier": clf_report, "device": str(resolve_device(device)),
                    "wall_seconds": wall_before + time.time() - t0,
                    "command": f"python -m swingby.diffusion sweep --preset {p.name}",
                    "finished": len(runs) == len(p.separations) * len(p.seeds)}
            save_results(path, p, runs, meta)

        n_ck = len(checkpoint_steps(p.steps, p.n_checkpoints))
        bar = tqdm(total=len(todo) * n_ck, desc=f"sweep {p.name}", disable=not progress)
        args = [(p.to_dict(), dc, s, str(scratch), clf.state_dict(), p.classifier_width, device) for dc, s in todo]
        for dc, s, rec in _run_all(args, p.workers, bar, log):
            runs[(dc, s)] = rec
            save()
            # the run is in the results file now: its resumable state is no longer needed
            state_path(scratch, dc, s).unlink(missing_ok=True)
            if stop is not None and stop():
                break
        bar.close()
        save()
    remove_if_empty(scratch)
    return path


def remove_if_empty(scratch: Path) -> None:
    """Remove the scratch folder (and a ``partial`` folder above it) once empty."""
    for d in (scratch, scratch.parent if scratch.parent.name == "partial" else None):
        if d is not None and d.is_dir() and not any(d.iterdir()):
            d.rmdir()


def _run_all(args: list, workers: int, bar, log=print):
    """``(dc, seed, records)`` of every run, in this process or in a pool that SIGTERM / SIGINT also stop."""
    if not args:
        return
    global _QUEUE, _LOG
    if workers == 1:  # in this process
        _QUEUE, _LOG = SimpleNamespace(put=bar.update), log  # a queue that moves the bar at once
        try:
            for a in args:
                yield _worker(a)
        finally:
            _QUEUE, _LOG = None, print
        return
    import multiprocessing as mp
    ctx = mp.get_context("spawn")  # fresh processes, so their torch threads are clean
    queue = ctx.Queue()
    pool = ctx.Pool(min(workers, len(args)), initializer=_init_worker, initargs=(queue,))
    old_term = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        pending = [pool.apply_async(_worker, (a,)) for a in args]
        while pending:
            time.sleep(0.5)
            while not queue.empty():
                bar.update(queue.get())
            for r in [r for r in pending if r.ready()]:
                pending.remove(r)
                yield r.get()
        pool.close()
        pool.join()
    finally:
        pool.terminate()
        signal.signal(signal.SIGTERM, old_term)

