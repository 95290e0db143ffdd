"""Options of the sweep's job executors (:mod:`swingby.diffusion.runs.executors`): the
executor names, what each SLURM job asks for (:class:`SlurmOptions`, from the command
line and a ``--slurm-config`` file), and the submitit executor made from them.

Every bad option is a ``ValueError`` naming the option and what is allowed.
``submitit`` is optional (``pip install 'swingby[cluster]'``): only :func:`make_executor`
and :func:`sbatch_script` import it.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from swingby import _checks
from swingby.diffusion import _inputs
from swingby.diffusion import sweep as SP
from swingby.diffusion.presets import Preset

#: the executors of ``--executor``; ``pool`` is the default
EXECUTORS = ("pool", "submitit-local", "slurm")
#: how to install the optional dependency
INSTALL = "pip install 'swingby[cluster]' (or: pip install submitit==1.5.4)"


def check_executor(name) -> str:
    """Return ``name`` if it is one of :data:`EXECUTORS`, else raise ``ValueError``.

    Parameters
    ----------
    name : str
        The executor's name.

    Returns
    -------
    str
    """
    if name == "local":
        raise ValueError("executor 'local' is ambiguous: use 'pool' (the local worker pool, the default) or "
                         "'submitit-local' (one submitit process per run, as a cluster job would be)")
    if not isinstance(name, str) or name not in EXECUTORS:
        raise ValueError(f"executor must be one of {list(EXECUTORS)}, got {name!r}")
    return name


def check_device(device) -> str:
    """Check the spelling of a device for a job, without asking whether this machine has
    it (a cluster's login node has no GPU; the job checks on its node).

    Parameters
    ----------
    device : str
        ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.

    Returns
    -------
    str
    """
    if not isinstance(device, str) or not re.fullmatch(r"auto|cpu|cuda(:\d+)?", device):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    return device


def _import_submitit():
    try:
        import submitit
    except ImportError:
        raise ValueError(f"this executor needs submitit, which is not installed: {INSTALL}") from None
    return submitit


# ------------------------------------------------------------------ SLURM options
def parse_time(value) -> int:
    """A SLURM time limit in whole minutes: an integer of minutes, or ``"[D-]HH:MM[:SS]"``.

    Parameters
    ----------
    value : int or str
        ``90``, ``"90"``, ``"1:30:00"``, ``"2-00:00:00"`` ...

    Returns
    -------
    int
        Minutes (seconds round up), at least 1.
    """
    bad = ValueError(f"time must be a positive number of minutes or 'D-HH:MM:SS' / 'HH:MM:SS' / 'HH:MM', "
                     f"got {value!r}")
    if isinstance(value, bool):
        raise bad
    if isinstance(value, int):
        minutes = value
    elif isinstance(value, str) and re.fullmatch(r"\d+", value.strip()):
        minutes = int(value)
    elif isinstance(value, str) and (m := re.fullmatch(r"(?:(\d+)-)?(\d+):(\d\d)(?::(\d\d))?", value.strip())):
        d, h, mi, s = (int(x) if x else 0 for x in m.groups())
        if mi > 59 or s > 59:
            raise bad
        minutes = d * 1440 + h * 60 + mi + (s > 0)
    else:
        raise bad
    if not 1 <= minutes <= 366 * 1440:
        raise bad
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


def load_config(path) -> dict:
    """Read a ``--slurm-config`` file: TOML (``.toml``) or JSON (``.json``), flat keys
    named as the fields of :class:`SlurmOptions`.

    Parameters
    ----------
    path : path-like
        The file.

    Returns
    -------
    dict
    """
    path = _inputs.path("slurm_config", path)
    if not path.is_file():
        raise ValueError(f"slurm_config {path} is not a file")
    try:
        if path.suffix == ".toml":
            import tomllib  # Python 3.11+

            cfg = tomllib.loads(path.read_text())
        elif path.suffix == ".json":
            cfg = json.loads(path.read_text())
        else:
            raise ValueError(f"slurm_config must be a .toml or .json file, got {path.name}")
    except ImportError:
        raise ValueError("slurm_config: a .toml file needs Python 3.11+; use a .json file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"slurm_config {path} cannot be read ({e})") from None
    except Exception as e:  # tomllib.TOMLDecodeError
        if isinstance(e, ValueError) and str(e).startswith("slurm_config"):
            raise
        raise ValueError(f"slurm_config {path} cannot be read ({e})") from None
    if not isinstance(cfg, dict):
        raise ValueError(f"slurm_config {path} must hold a table of options, got {type(cfg).__name__}")
    allowed = [f.name for f in fields(SlurmOptions)]
    unknown = sorted(set(cfg) - set(allowed))
    if unknown:
        raise ValueError(f"slurm_config {path.name}: unknown key(s) {unknown}; allowed: {allowed}")
    return cfg


def slurm_options(config=None, **cli) -> SlurmOptions:
    """The options of a config file (optional), overridden by the command line's.

    Parameters
    ----------
    config : path-like, optional
        A ``--slurm-config`` file (:func:`load_config`).
    **cli
        Fields of :class:`SlurmOptions`; ``None`` values are left out.

    Returns
    -------
    SlurmOptions
    """
    allowed = [f.name for f in fields(SlurmOptions)]
    unknown = sorted(set(cli) - set(allowed))
    if unknown:
        raise ValueError(f"unknown SLURM option(s) {unknown}; allowed: {allowed}")
    merged = {**(load_config(config) if config is not None else {}),
              **{k: v for k, v in cli.items() if v is not None}}
    return SlurmOptions(**merged)


def job_name(p: Preset) -> str:
    """``swingby-<preset tag>``: the SLURM job name of a sweep's runs.

    Parameters
    ----------
    p : Preset
        The preset.

    Returns
    -------
    str
    """
    return "swingby-" + SP.results_path(Path("."), p).stem.removeprefix("sweep_")


def slurm_parameters(options: SlurmOptions, name: str) -> dict:
    """The parameters given to ``submitit.SlurmExecutor.update_parameters``.

    Parameters
    ----------
    options : SlurmOptions
        What each job asks for.
    name : str
        The job name.

    Returns
    -------
    dict
    """
    _inputs.instance("options", options, SlurmOptions, "swingby.diffusion.runs.executors.SlurmOptions")
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    par = {"job_name": name, "time": options.time, "cpus_per_task": options.cpus_per_job,
           "array_parallelism": options.array_parallelism, "signal_delay_s": options.signal_delay_s,
           "ntasks_per_node": 1, "nodes": 1}
    if options.gpus_per_job:
        par["gpus_per_node"] = options.gpus_per_job
    if options.mem_gb is not None:
        par["mem"] = f"{int(options.mem_gb)}GB" if options.mem_gb == int(options.mem_gb) \
            else f"{int(options.mem_gb * 1024)}MB"
    for k in ("partition", "account", "qos", "constraint"):
        if getattr(options, k) is not None:
            par[k] = getattr(options, k)
    if options.setup:
        par["setup"] = list(options.setup)
    return par


def make_executor(kind: str, folder, options: SlurmOptions, name: str = "swingby"):
    """A submitit executor for ``kind`` (``"submitit-local"`` or ``"slurm"``) that writes
    its job files and logs to ``folder``.

    Parameters
    ----------
    kind : str
        ``"submitit-local"`` or ``"slurm"``.
    folder : path-like
        submitit's folder (pickled jobs, stdout and stderr logs).
    options : SlurmOptions
        Time limit and requeues (both executors); the rest for SLURM.
    name : str
        The job name.

    Returns
    -------
    submitit.Executor
    """
    check_executor(kind)
    folder = _inputs.path("folder", folder)
    _inputs.instance("options", options, SlurmOptions, "swingby.diffusion.runs.executors.SlurmOptions")
    if kind == "pool":
        raise ValueError("executor 'pool' runs in swingby.diffusion.runs.driver.sweep, not through submitit")
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
    """The sbatch script submitit would submit for ``n_jobs`` runs (an array when more
    than one), made by submitit itself; nothing is submitted (``--dry-run``).

    Parameters
    ----------
    options : SlurmOptions
        What each job asks for.
    folder : path-like
        submitit's folder.
    n_jobs : int
        Runs in the array.
    name : str
        The job name.

    Returns
    -------
    str
    """
    submitit = _import_submitit()
    n_jobs = _checks.integer("n_jobs", n_jobs, low=1, high=10 ** 6)

    class _DrySlurm(submitit.SlurmExecutor):  # no srun needed: the script is only shown
        @classmethod
        def affinity(cls) -> int:
            return 2

    ex = _DrySlurm(_inputs.path("folder", folder), max_num_timeout=options.max_requeues)
    ex.update_parameters(**slurm_parameters(options, name))
    if n_jobs > 1:
        ex.parameters["map_count"] = n_jobs
    return ex._make_submission_file_text(ex._submitit_command_str, "dry-run")


def options_dict(options: SlurmOptions) -> dict:
    """:class:`SlurmOptions` as a plain dict (the keys of ``--slurm-config``).

    Parameters
    ----------
    options : SlurmOptions
        The options.

    Returns
    -------
    dict
    """
    _inputs.instance("options", options, SlurmOptions, "swingby.diffusion.runs.executors.SlurmOptions")
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(options).items()}
