"""The sweep's runs as `submitit <https://github.com/facebookincubator/submitit>`_ jobs (``sweep
--executor submitit-local|slurm``). A job (``RunJob``) trains one run, saving its state in the
scratch directory the nodes share, and requeues itself on preemption or time-out (``SIGUSR2``); its
records go to ``<scratch>/finished/``, which ``collect`` merges under the sweep's lock, refusing
another config's or code's. ``submitit`` is optional: only submitting needs it.
"""
from __future__ import annotations

import json
import re
import socket
import time
from dataclasses import dataclass, fields
from pathlib import Path

import torch

from swingby import _checks
from swingby.diffusion import _inputs
from swingby.diffusion import sweep as SP
from swingby.diffusion.classifier import ConceptClassifier
from swingby.diffusion.presets import Preset, get_preset
from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import evaluation as EV
from swingby.diffusion.runs import storage
from swingby.diffusion.training import resolve_device

try:  # optional: the package and the pool executor work without submitit
    from submitit.helpers import Checkpointable as _JobBase
    from submitit.helpers import DelayedSubmission
except ImportError:  # pragma: no cover - exercised where submitit is absent
    _JobBase = object

__all__ = []

EXECUTORS = ("pool", "submitit-local", "slurm")  #: the executors of ``--executor``; ``pool`` is the default


def check_executor(name) -> str:
    """``name`` if it is one of ``EXECUTORS``, else a ``ValueError``."""
    if name == "local":
        raise ValueError("executor 'local' is ambiguous: use 'pool' (the local worker pool, the default) or "
                         "'submitit-local' (one submitit process per run, as a cluster job would be)")
    if not isinstance(name, str) or name not in EXECUTORS:
        raise ValueError(f"executor must be one of {list(EXECUTORS)}, got {name!r}")
    return name


def check_device(device) -> str:
    """``device`` if it is spelled as a job's device (checked on the job's node, not here)."""
    if not isinstance(device, str) or not re.fullmatch(r"auto|cpu|cuda(:\d+)?", device):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    return device


def _import_submitit():
    try:
        import submitit
    except ImportError:
        raise ValueError("this executor needs submitit, which is not installed: pip install 'swingby[cluster]' "
                         "(or: pip install submitit==1.5.4)") from None
    return submitit


def parse_time(value) -> int:
    """A SLURM time limit in whole minutes (seconds round up) from minutes or ``"[D-]HH:MM[:SS]"``."""
    text = value.strip() if isinstance(value, str) else ""
    m = re.fullmatch(r"(?:(\d+)-)?(\d+):([0-5]\d)(?::([0-5]\d))?", text)
    if isinstance(value, int) and not isinstance(value, bool):
        minutes = value
    elif re.fullmatch(r"\d+", text):
        minutes = int(value)
    elif m:
        d, h, mi, s = (int(x or 0) for x in m.groups())
        minutes = d * 1440 + h * 60 + mi + (s > 0)
    else:
        minutes = 0
    if not 1 <= minutes <= 366 * 1440:
        raise ValueError(f"time must be a positive number of minutes or 'D-HH:MM:SS' / 'HH:MM:SS' / 'HH:MM', "
                         f"got {value!r}")
    return minutes


@dataclass(frozen=True)
class SlurmOptions:
    """What each job asks the scheduler for; the fields are the keys of ``--slurm-config``."""

    partition: str | None = None  #: SLURM partition (None: the cluster's default)
    time: int = 60  #: minutes per job before it is stopped and requeued (``--time``)
    gpus_per_job: int = 0  #: GPUs per job (``--gpus-per-node``; each job is one node's task)
    cpus_per_job: int = 1  #: CPU cores per job (``--cpus-per-task``)
    array_parallelism: int = 32  #: jobs of the array running at once
    mem_gb: float | None = None  #: memory per job in GB (None: the partition's default)
    account: str | None = None
    qos: str | None = None
    constraint: str | None = None
    setup: tuple = ()  #: shell lines run before each job (``module load ...``, ``source .venv/bin/activate``)
    max_requeues: int = 3  #: time-outs after which a job is no longer requeued (preemptions are not counted)
    signal_delay_s: int = 120  #: seconds between the preemption / time-out signal and the kill

    def __post_init__(self):
        if isinstance(self.setup, (list, str)):
            object.__setattr__(self, "setup", (self.setup,) if isinstance(self.setup, str) else tuple(self.setup))
        object.__setattr__(self, "time", parse_time(self.time))
        for k in ("partition", "account", "qos", "constraint"):
            v = getattr(self, k)
            if v is not None and (not isinstance(v, str) or not re.fullmatch(r"[A-Za-z0-9_.,:|&!*\[\]()-]{1,128}", v)):
                raise ValueError(f"{k} must be a SLURM name (letters, digits and _.,:|&!-), got {v!r}")
        for k, lo in (("gpus_per_job", 0), ("cpus_per_job", 1), ("array_parallelism", 1), ("max_requeues", 0),
                      ("signal_delay_s", 1)):
            v = getattr(self, k)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= 100_000:
                raise ValueError(f"{k} must be an integer >= {lo}, got {v!r}")
        if self.mem_gb is not None and (isinstance(self.mem_gb, bool) or not isinstance(self.mem_gb, (int, float))
                                        or not 0 < self.mem_gb <= 1e5):
            raise ValueError(f"mem_gb must be a positive number of GB (or None), got {self.mem_gb!r}")
        if not all(isinstance(s, str) for s in self.setup):
            raise ValueError(f"setup must be a list of shell lines (strings), got {self.setup!r}")
        if self.signal_delay_s >= self.time * 60:
            raise ValueError(f"signal_delay_s ({self.signal_delay_s} s) must be shorter than time ({self.time} min)")


def slurm_options(config=None, **cli) -> SlurmOptions:
    """The options of a ``--slurm-config`` TOML or JSON file, overridden by the command line's (None: left out)."""
    cfg = {}
    if config is not None:
        path = _inputs.path("slurm_config", config)
        if not path.is_file():
            raise ValueError(f"slurm_config {path} is not a file")
        if path.suffix not in (".toml", ".json"):
            raise ValueError(f"slurm_config must be a .toml or .json file, got {path.name}")
        try:
            if path.suffix == ".toml":
                import tomllib  # Python 3.11+

                cfg = tomllib.loads(path.read_text())
            else:
                cfg = json.loads(path.read_text())
        except ImportError:
            raise ValueError("slurm_config: a .toml file needs Python 3.11+; use a .json file") from None
        except Exception as e:  # noqa: BLE001 - a file that does not parse
            raise ValueError(f"slurm_config {path} cannot be read ({e})") from None
        if not isinstance(cfg, dict):
            raise ValueError(f"slurm_config {path} must hold a table of options, got {type(cfg).__name__}")
        allowed = [f.name for f in fields(SlurmOptions)]
        unknown = sorted(set(cfg) - set(allowed))
        if unknown:
            keys = "key" if len(unknown) == 1 else "keys"
            raise ValueError(f"slurm_config {path.name}: unknown {keys} {unknown}; allowed: {allowed}")
    return SlurmOptions(**{**cfg, **{k: v for k, v in cli.items() if v is not None}})


def job_name(p: Preset) -> str:
    """``swingby-<preset tag>``: the SLURM job name of a sweep's runs."""
    return "swingby-" + SP.results_path(Path("."), p).stem.removeprefix("sweep_")


def slurm_parameters(options: SlurmOptions, name: str) -> dict:
    """The parameters given to ``submitit.SlurmExecutor.update_parameters``."""
    names = {k: getattr(options, k) for k in ("partition", "account", "qos", "constraint") if getattr(options, k)}
    par = {"job_name": name, "time": options.time, "cpus_per_task": options.cpus_per_job,
           "array_parallelism": options.array_parallelism, "signal_delay_s": options.signal_delay_s,
           "ntasks_per_node": 1, "nodes": 1, **names}
    if options.gpus_per_job:
        par["gpus_per_node"] = options.gpus_per_job
    if options.mem_gb is not None:
        par["mem"] = f"{int(options.mem_gb)}GB" if options.mem_gb == int(options.mem_gb) \
            else f"{int(options.mem_gb * 1024)}MB"
    if options.setup:
        par["setup"] = list(options.setup)
    return par


def make_executor(kind: str, folder, options: SlurmOptions, name: str = "swingby"):
    """A submitit executor of ``kind`` (``"submitit-local"`` or ``"slurm"``), its job files and logs in ``folder``."""
    submitit = _import_submitit()
    if kind == "submitit-local":
        ex = submitit.LocalExecutor(folder, max_num_timeout=options.max_requeues)
        ex.update_parameters(timeout_min=options.time, signal_delay_s=options.signal_delay_s,
                             gpus_per_node=options.gpus_per_job)  # every job sees GPUs 0..n-1: they share them
        return ex
    try:
        ex = submitit.SlurmExecutor(folder, max_num_timeout=options.max_requeues)
    except RuntimeError as e:
        raise ValueError(f"executor 'slurm': {e} (use --dry-run to see the job script here)") from None
    ex.update_parameters(**slurm_parameters(options, name))
    return ex


def sbatch_script(options: SlurmOptions, folder, n_jobs: int, name: str = "swingby") -> str:
    """The sbatch script submitit would submit for ``n_jobs`` runs, made by submitit itself (``--dry-run``)."""
    submitit = _import_submitit()

    class _DrySlurm(submitit.SlurmExecutor):  # no srun needed: the script is only shown
        @classmethod
        def affinity(cls) -> int:
            return 2

    ex = _DrySlurm(folder, max_num_timeout=options.max_requeues)
    ex.update_parameters(**slurm_parameters(options, name))
    if n_jobs > 1:
        ex.parameters["map_count"] = n_jobs
    return ex._make_submission_file_text(ex._submitit_command_str, "dry-run")


def run_result_path(scratch, dc: float, seed: int) -> Path:
    """``<scratch>/finished/dc<dc>_seed<seed>.pt``: a finished job's run records."""
    st = SP.state_path(scratch, dc, seed)
    return st.parent / "finished" / st.name


def read_run_result(path: Path, p: Preset, code: str) -> dict:
    """A finished job's run result; a ``SweepFileError`` when unreadable or of another config or code."""
    remedy = "delete it and submit its run again"
    blob = storage.load_torch(path, what="run result", remedy=remedy)
    if not isinstance(blob, dict) or not {"config", "code", "records", "dc", "seed"} <= set(blob):
        raise storage.SweepFileError(f"the run result file {path} is not a run result; {remedy}")
    if SP.state_path(path.parent, blob["dc"], blob["seed"]).name != path.name:
        raise storage.SweepFileError(f"the run result file {path} holds run dc={blob['dc']} seed={blob['seed']}, "
                                     f"not the run its name says; not merged: {remedy}")
    if blob["config"] != p.to_dict():
        diff = sorted(k for k in set(blob["config"]) | set(p.to_dict()) if blob["config"].get(k) != p.to_dict().get(k))
        raise storage.SweepFileError(f"the run result file {path} was made by another preset config "
                                     f"(differs in {diff}); not merged: {remedy}")
    if blob["code"] != code:
        raise storage.SweepFileError(f"the run result file {path} was made by other code (identity "
                                     f"{str(blob['code'])[:12]}, this code {code[:12]}); not merged: {remedy}")
    return {**blob, "records": {**storage.records_from_state(blob["records"]), "code": blob["code"]}}


@dataclass
class Collected:
    """What ``collect`` did."""

    path: Path  #: the results file
    merged: list  #: (dc, seed) runs merged now
    missing: list  #: runs with no finished result yet
    refused: list  #: messages about result files that were not merged
    finished: bool  #: whether the results file now holds every run


def collect(preset: str | Preset = "cpu", *, seeds=None, separations=None, out_dir=None, scratch=None,
            executor: str | None = None, log=print) -> Collected:
    """Merge the finished jobs' runs into the results file (arguments of ``sweep``)."""
    p = S.resolve_preset(preset, seeds, separations)
    executor = "submitit" if executor is None else check_executor(executor)
    _inputs.function("log", log)
    out_dir = storage.writable_dir("out_dir", out_dir)
    scratch = _inputs.path("scratch", scratch) if scratch is not None else SP.default_scratch(p)
    path = SP.results_path(out_dir, p)
    with storage.lock(path):
        code = S.code_hash()
        runs, wall_before, finished = S.existing_runs(path, p, code, log)
        if finished:
            return Collected(path, [], [], [], True)
        merged, missing, refused, blobs = [], [], [], []
        for key in [(float(dc), int(s)) for s in p.seeds for dc in p.separations if (float(dc), int(s)) not in runs]:
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


def _state_step(path: Path, p: Preset, code: str) -> int:
    """The step a run would resume from (0: no usable state of this config and code)."""
    if not path.exists():
        return 0
    try:
        st = storage.load_torch(path, what="run state", remedy="")
        return int(st["step"]) if st["config"] == p.to_dict() and st["code"] == code else 0
    except (storage.SweepFileError, KeyError, TypeError, ValueError):
        return 0


class RunJob(_JobBase):
    """One run of ``preset`` (a dict) as a job that resubmits itself; ``device`` is resolved on its node."""

    def __init__(self, preset: dict, dc: float, seed: int, scratch: str, clf_state: dict, clf_width: int,
                 device: str = "cpu"):
        self.preset, self.dc, self.seed, self.scratch = preset, float(dc), int(seed), str(scratch)
        self.clf_state, self.clf_width, self.device = clf_state, int(clf_width), check_device(device)
        self.starts: list[int] = []  #: the step each attempt started from
        self.started: float | None = None  #: when the first attempt started (seconds since the epoch)

    def __call__(self) -> str:
        """Train the run to completion (resuming from its state); the path of its result file."""
        p = get_preset(self.preset["name"], **{k: v for k, v in self.preset.items() if k != "name"})
        state = SP.state_path(self.scratch, self.dc, self.seed)
        busy = RuntimeError(f"{state.name}: another job is training this run; this job stops")
        with storage.lock(state, busy):  # a sweep submitted twice: the second job of a run stops
            step = _state_step(state, p, S.code_hash())
            self.starts.append(step)
            self.started = self.started or time.time()
            what = f"resuming from step {step} of {state}" if step else "starting at step 0"
            print(f"run dc={self.dc} seed={self.seed}: attempt {len(self.starts)}, {what}", flush=True)
            clf = ConceptClassifier(self.clf_width)
            clf.load_state_dict(self.clf_state)
            rec = S.run_one(p, self.dc, self.seed, Path(self.scratch), clf.eval(), device=self.device)
            out = run_result_path(self.scratch, self.dc, self.seed)
            blob = {"config": p.to_dict(), "code": rec["code"], "dc": self.dc, "seed": self.seed,
                    "records": storage.records_to_state(rec), "device": str(resolve_device(self.device)),
                    "starts": list(self.starts), "started": float(self.started), "finished": time.time(),
                    "host": socket.gethostname()}
            storage.atomic_save(lambda f: torch.save(blob, f), out)
            print(f"run dc={self.dc} seed={self.seed}: finished, records in {out}", flush=True)
            return str(out)

    def checkpoint(self, *args, **kwargs):
        """Called by submitit on preemption or time-out: resubmit this job unchanged."""
        print(f"run dc={self.dc} seed={self.seed}: preempted or timed out; requeued", flush=True)
        return DelayedSubmission(self, *args, **kwargs)


def submit(preset: str | Preset = "cpu", *, executor: str = "slurm", seeds=None, separations=None,
           out_dir=None, scratch=None, device: str = "cpu", options: SlurmOptions | None = None,
           jobs_dir=None, wait: bool = True, poll_s: float = 10.0, log=print):
    """``(jobs, last Collected or None)``: each missing run as a job; with ``wait``, merged as they finish."""
    if check_executor(executor) == "pool":
        raise ValueError("executor 'pool' runs through swingby.diffusion.runs.driver.sweep")
    p = S.resolve_preset(preset, seeds, separations)
    check_device(device)
    options = SlurmOptions() if options is None else options
    _inputs.instance("options", options, SlurmOptions, "swingby.diffusion.runs.executors.SlurmOptions")
    if device.startswith("cuda") and options.gpus_per_job == 0:
        raise ValueError(f"device {device!r} needs gpus_per_job (--gpus-per-job) >= 1: a job is given no GPU "
                         "otherwise; or use --device auto")
    _checks.flag("wait", wait)
    poll_s = _checks.number("poll_s", poll_s, low=0.01, high=3600)
    _inputs.function("log", log)
    out_dir = storage.writable_dir("out_dir", out_dir)
    scratch = storage.writable_dir("scratch", scratch, SP.default_scratch(p))
    jobs_dir = storage.writable_dir("jobs_dir", jobs_dir, scratch / "jobs")
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
    pending, last = list(zip(jobs, todo)), first
    while pending:
        time.sleep(poll_s)
        for job, key in [(j, k) for j, k in pending if j.done()]:
            pending.remove((job, key))
            try:
                job.result()
            except Exception as e:  # noqa: BLE001 - a failed job is reported, the others go on
                log(f"run dc={key[0]} seed={key[1]} (job {job.job_id}) failed: {str(e).strip()[-500:]}")
                continue
            last = _try_collect(p, out_dir, scratch, executor, log) or last
    return jobs, _try_collect(p, out_dir, scratch, executor, log) or last


def _try_collect(p: Preset, out_dir: Path, scratch: Path, executor: str, log):
    """``collect``, or None (with a message) while another process holds the results' lock."""
    try:
        return collect(p, out_dir=out_dir, scratch=scratch, executor=executor, log=log)
    except ValueError as e:
        if "another sweep is writing" not in str(e):
            raise
        log(f"merge postponed ({e}); `sweep --collect` merges the finished runs later")
        return None
