"""The sweep's runs dispatched as jobs through `submitit <https://github.com/facebookincubator/submitit>`_:
SLURM on a cluster, or submitit's local executor (separate processes, for tests).

Three executors (``python -m swingby.diffusion sweep --executor NAME``):

* ``pool`` (the default): today's pool of local worker processes
  (:func:`swingby.diffusion.runs.driver.sweep`); nothing here is used;
* ``submitit-local``: every (separation, seed) run is one job of
  ``submitit.LocalExecutor``, a process of its own on this machine, with the same
  preemption and requeue handling as on a cluster (used by the tests);
* ``slurm``: every run is one task of a SLURM job array (``submitit.SlurmExecutor``).

One code path trains a run: a job (:class:`RunJob`) calls the pool's own worker
(:func:`swingby.diffusion.runs.driver.run_one` through ``sweep._worker``), which checkpoints
its resumable state in the scratch directory at every evaluation, stamped with the
preset config and the code identity. On preemption or time-out, SLURM (or the local
executor) sends ``SIGUSR2``; submitit calls :meth:`RunJob.checkpoint`, which resubmits
the job itself, and the requeued job resumes from the last state in the scratch
directory (so the scratch directory must be on storage the compute nodes share).

A finished job writes its run's records to ``<scratch>/finished/`` (:func:`~swingby.diffusion.runs.collect.run_result_path`),
stamped with the preset config and the code identity of the job's process.
:func:`~swingby.diffusion.runs.collect.collect` (the end of a waiting ``sweep``, or ``sweep --collect`` later) merges
them into the one results file under the sweep's lock, written atomically by
:func:`swingby.diffusion.runs.storage.save_results`; a file made by another preset config or
by other code is refused with a message naming it, never merged.

``submitit`` is an optional dependency (``pip install 'swingby[cluster]'``); this module
imports without it, and only submitting needs it.
"""
from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

from swingby import _checks
from swingby.diffusion import _inputs
from swingby.diffusion import sweep as SP
from swingby.diffusion.presets import Preset, get_preset
from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import evaluation as EV
from swingby.diffusion.runs import storage
from swingby.diffusion.runs.collect import collect, run_result_path
from swingby.diffusion.runs.job_options import (
    SlurmOptions,
    _import_submitit,
    check_device,
    check_executor,
    job_name,
    make_executor,
)

try:  # optional: the package and the pool executor work without submitit
    from submitit.helpers import Checkpointable as _JobBase
except ImportError:  # pragma: no cover - exercised where submitit is absent
    _JobBase = object


# ------------------------------------------------------------------ one run as a job
def _state_step(path: Path, p: Preset, code: str) -> int:
    """The step a run would resume from (0: no usable state of this config and code)."""
    if not path.exists():
        return 0
    try:
        st = storage.load_torch(path, what="run state", remedy="")
        return int(st["step"]) if st["config"] == p.to_dict() and st["code"] == code else 0
    except (storage.SweepFileError, KeyError, TypeError, ValueError):
        return 0


@contextlib.contextmanager
def _run_lock(state: Path):
    """``<state>.lock``, held while a job trains the run: a second job of the same run (a
    sweep submitted twice) stops at once instead of writing the same state. The operating
    system frees it when a preempted or killed job's process ends."""
    from filelock import FileLock, Timeout

    state.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(state) + ".lock", is_singleton=False, thread_local=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RuntimeError(f"{state.name}: another job is training this run (lock {lock.lock_file} is held); "
                           "this job stops") from None
    try:
        yield
    finally:
        lock.release()


class RunJob(_JobBase):
    """One (separation, seed) run as a submitit job: a ``submitit.helpers.Checkpointable``
    (when submitit is installed) whose :meth:`checkpoint` resubmits the job itself, so a
    requeued job resumes from the run's state in the scratch directory.

    Parameters
    ----------
    preset : dict
        :meth:`~swingby.diffusion.presets.Preset.to_dict` of the sweep's preset.
    dc : float
        The colour separation.
    seed : int
        The run's seed.
    scratch : str
        The scratch directory (shared with the compute nodes).
    clf_state : dict
        The concept classifier's state dict.
    clf_width : int
        The classifier's width.
    device : str
        ``"auto"``, ``"cpu"`` or ``"cuda"``: resolved on the job's node.
    """

    def __init__(self, preset: dict, dc: float, seed: int, scratch: str, clf_state: dict, clf_width: int,
                 device: str = "cpu"):
        self.preset, self.dc, self.seed, self.scratch = preset, float(dc), int(seed), str(scratch)
        self.clf_state, self.clf_width, self.device = clf_state, int(clf_width), check_device(device)
        self.starts: list[int] = []  #: the step each attempt started from
        self.started: float | None = None  #: when the first attempt started (seconds since the epoch)

    def __call__(self) -> str:
        """Train the run to completion (resuming from its state) and write its result file.

        Returns
        -------
        str
            The path of the result file (:func:`~swingby.diffusion.runs.collect.run_result_path`).
        """
        p = get_preset(self.preset["name"], **{k: v for k, v in self.preset.items() if k != "name"})
        state = SP.state_path(self.scratch, self.dc, self.seed)
        with _run_lock(state):
            return self._train(p, state)

    def _train(self, p: Preset, state: Path) -> str:
        from swingby.diffusion.training import resolve_device

        step = _state_step(state, p, S.code_hash())
        self.starts.append(step)
        self.started = self.started or time.time()
        what = f"resuming from step {step} of {state}" if step else "starting at step 0"
        print(f"run dc={self.dc} seed={self.seed}: attempt {len(self.starts)}, {what}", flush=True)
        dc, seed, rec = S._worker((self.preset, self.dc, self.seed, self.scratch, self.clf_state,
                                   self.clf_width, self.device))
        out = run_result_path(self.scratch, dc, seed)
        blob = {"config": p.to_dict(), "code": rec["code"], "dc": float(dc), "seed": int(seed),
                "records": storage.records_to_state(rec), "device": str(resolve_device(self.device)),
                "starts": list(self.starts), "started": float(self.started), "finished": time.time(),
                "host": socket.gethostname()}
        import torch

        storage.atomic_save(lambda f: torch.save(blob, f), out)
        print(f"run dc={dc} seed={seed}: finished, records in {out}", flush=True)
        return str(out)

    def checkpoint(self, *args, **kwargs):
        """Called by submitit on preemption or time-out: resubmit this job unchanged (its
        training state is already in the scratch directory, saved at every evaluation).

        Parameters
        ----------
        *args, **kwargs
            The job's call arguments (none).

        Returns
        -------
        submitit.helpers.DelayedSubmission
        """
        from submitit.helpers import DelayedSubmission

        print(f"run dc={self.dc} seed={self.seed}: preempted or timed out; requeued", flush=True)
        return DelayedSubmission(self, *args, **kwargs)


# ------------------------------------------------------------------ submitting
def submit(preset: str | Preset = "cpu", *, executor: str = "slurm", seeds=None, separations=None,
           out_dir=None, scratch=None, device: str = "cpu", options: SlurmOptions | None = None,
           jobs_dir=None, wait: bool = True, poll_s: float = 10.0, log=print):
    """Submit every run of a sweep not yet in its results file as one job, and (``wait``)
    merge the runs as their jobs finish.

    Parameters
    ----------
    preset : str or Preset
        As for :func:`swingby.diffusion.runs.driver.sweep`.
    executor : str
        ``"submitit-local"`` or ``"slurm"``.
    seeds, separations : sequence, optional
        Override the preset's.
    out_dir : path, optional
        The results directory (the classifier is trained or loaded there, in this process).
    scratch : path, optional
        Run states and finished runs; on storage the jobs' nodes share.
    device : str
        ``"cpu"``, ``"cuda"`` or ``"auto"``: resolved on each job's node.
    options : SlurmOptions, optional
        Time limit, requeues and (SLURM) resources of each job.
    jobs_dir : path, optional
        submitit's job files and logs (default ``<scratch>/jobs``).
    wait : bool
        Wait for the jobs and merge their runs; otherwise return after submitting
        (merge later with :func:`~swingby.diffusion.runs.collect.collect`).
    poll_s : float
        Seconds between looks at the jobs while waiting.
    log : callable
        Receives one-line messages.

    Returns
    -------
    tuple
        ``(jobs, collected)``: the submitit jobs and the last :class:`~swingby.diffusion.runs.collect.Collected` (None
        when not waiting).
    """
    check_executor(executor)
    if executor == "pool":
        raise ValueError("executor 'pool' runs through swingby.diffusion.runs.driver.sweep")
    p = S._resolve_preset(preset, seeds, separations)
    check_device(device)
    options = SlurmOptions() if options is None else options
    _inputs.instance("options", options, SlurmOptions, "swingby.diffusion.runs.executors.SlurmOptions")
    if device.startswith("cuda") and options.gpus_per_job == 0:
        raise ValueError(f"device {device!r} needs gpus_per_job (--gpus-per-job) >= 1: a job is given no GPU "
                         "otherwise; or use --device auto")
    _checks.flag("wait", wait)
    poll_s = _checks.number("poll_s", poll_s, low=0.01, high=3600)
    _inputs.function("log", log)
    out_dir = _inputs.path("out_dir", out_dir) if out_dir is not None else storage.results_dir(for_writing=True)
    scratch = _inputs.path("scratch", scratch) if scratch is not None else SP.default_scratch(p)
    jobs_dir = _inputs.path("jobs_dir", jobs_dir) if jobs_dir is not None else scratch / "jobs"
    for d, n in ((out_dir, "out_dir"), (scratch, "scratch"), (jobs_dir, "jobs_dir")):
        storage.check_writable(d, n)
    _import_submitit()
    first = collect(p, out_dir=out_dir, scratch=scratch, executor=executor, log=log)  # finished jobs of before
    if first.finished:
        log(f"{first.path.name}: every run is in it; nothing to submit")
        return [], first
    clf, _ = EV.get_classifier(p, out_dir, progress=False)
    done = set(storage.runs_from_results(storage.load_results(first.path))) if first.path.exists() else set()
    todo = [(float(dc), int(s)) for s in p.seeds for dc in p.separations if (float(dc), int(s)) not in done]
    name = job_name(p)
    ex = make_executor(executor, jobs_dir, options, name)
    clf_state = {k: v.clone() for k, v in clf.state_dict().items()}
    with ex.batch():
        jobs = [ex.submit(RunJob(p.to_dict(), dc, s, str(scratch), clf_state, p.classifier_width, device))
                for dc, s in todo]
    runs = "one run" if len(jobs) == 1 else f"{len(jobs)} runs"
    log(f"submitted {runs} of {name} ({executor}): job ids {[j.job_id for j in jobs]}; "
        f"logs in {jobs_dir}; states in {scratch}")
    if not wait:
        return jobs, None
    pending = dict(zip(range(len(jobs)), zip(jobs, todo)))
    last = first
    while pending:
        time.sleep(poll_s)
        for i, (job, key) in list(pending.items()):
            if not job.done():
                continue
            del pending[i]
            try:
                job.result()
            except Exception as e:  # noqa: BLE001 - a failed job is reported, the others go on
                log(f"run dc={key[0]} seed={key[1]} (job {job.job_id}) failed: {str(e).strip()[-500:]}")
                continue
            last = _try_collect(p, out_dir, scratch, executor, log) or last
    return jobs, _try_collect(p, out_dir, scratch, executor, log) or last


def _try_collect(p: Preset, out_dir: Path, scratch: Path, executor: str, log):
    """:func:`~swingby.diffusion.runs.collect.collect`, or None (with a message) while another process holds the results' lock."""
    try:
        return collect(p, out_dir=out_dir, scratch=scratch, executor=executor, log=log)
    except ValueError as e:
        if "another sweep is writing" not in str(e):
            raise
        log(f"merge postponed ({e}); `sweep --collect` merges the finished runs later")
        return None
