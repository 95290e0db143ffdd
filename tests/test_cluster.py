"""Issue 26: the sweep's runs as submitit jobs (``--executor submitit-local|slurm``).

With the real engine (submitit's LocalExecutor, separate processes, the ``tiny`` preset):
one job is preempted mid-run (``SIGUSR2``, the signal SLURM sends), is requeued, resumes
from its state, and the merged results file equals a single-process ``pool`` sweep in
every array. The SLURM job script is checked without a cluster; bad options, the
refusal of run results made by another preset or other code, the device choice, and
the package without submitit are checked too."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from swingby.diffusion import sweep as SP
from swingby.diffusion.presets import get_preset
from swingby.diffusion.runs import cli, storage
from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import evaluation as EV
from swingby.diffusion.runs import executors as E
from swingby.diffusion.training import resolve_device

ROOT = Path(__file__).resolve().parents[1]
torch.set_num_threads(1)
QUIET = dict(progress=False, log=lambda m: None)
try:
    import submitit  # noqa: F401
    HAVE_SUBMITIT = True
except ImportError:  # the optional extra 'cluster' is not installed
    HAVE_SUBMITIT = False
needs_submitit = pytest.mark.skipif(not HAVE_SUBMITIT,
                                    reason="submitit is not installed (pip install 'swingby[cluster]'); "
                                           "the job tests need it")


def _same_arrays(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for k in a:
        if k not in ("meta", "run_seconds"):  # run_seconds is a timing
            assert np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"), k


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _state_step(path: Path) -> int:
    try:
        return int(torch.load(path, weights_only=True)["step"])
    except Exception:  # noqa: BLE001 - not there yet
        return 0


@needs_submitit
def test_a_preempted_job_is_requeued_resumes_and_the_merge_equals_a_pool_sweep(tmp_path):
    import submitit

    # checkpoints 0, 11, 43, 96: the job is preempted after its state at step 11, with 85 steps
    # (seconds) still to go; more steps would only cost CPU time in every CI run
    p = get_preset("tiny", steps=96, classifier_steps=5, ema=0.9, n_checkpoints=4)
    ref = storage.load_results(S.sweep(p, out_dir=tmp_path / "pool", scratch=tmp_path / "pool_s", **QUIET))
    scratch, logs, done = tmp_path / "s", [], []
    parent = threading.Thread(target=lambda: done.append(E.submit(  # the blocking parent: waits and merges
        p, executor="submitit-local", out_dir=tmp_path / "o", scratch=scratch, poll_s=0.5, log=logs.append)))
    parent.start()
    state = SP.state_path(scratch, 0.2, 0)  # the first job's run: preempted once it has saved a state past step 0
    deadline = time.time() + 90
    while time.time() < deadline and _state_step(state) == 0:
        time.sleep(0.1)
    step = _state_step(state)
    assert 0 < step < p.steps, f"the job did not save a state mid-run: {logs}"
    controller = int(re.search(r"job ids \['(\d+)'", next(m for m in logs if "submitted" in m)).group(1))
    tasks = _children(controller)  # submitit's local controller runs the job: python -m submitit.core._submit
    assert len(tasks) == 1
    os.kill(tasks[0], signal.SIGUSR2)  # what SLURM sends on preemption or time-out
    parent.join(timeout=180)
    assert done and not parent.is_alive(), logs
    jobs, c = done[0]
    assert len(jobs) == 2 and all(isinstance(j, submitit.LocalJob) for j in jobs) and jobs[0].job_id == str(controller)
    victim = jobs[0]
    out = victim.stdout()
    assert "preempted or timed out; requeued" in out and f"resuming from step {step} of" in out, out
    blob = torch.load(E.run_result_path(scratch, 0.2, 0), weights_only=True)
    assert blob["starts"] == [0, step], blob["starts"]  # the requeued job started from the state, not step 0
    assert torch.load(E.run_result_path(scratch, 0.6, 0), weights_only=True)["starts"] == [0]
    assert c.finished and not c.refused and not any("failed" in m for m in logs), logs
    merged = storage.load_results(c.path)
    _same_arrays(ref, merged)
    meta = merged["meta"]
    assert meta["finished"] and meta["executor"] == "submitit-local" and meta["config"] == p.to_dict()
    assert meta["code_version"]["code_identity"] == S.code_hash() == ref["meta"]["code_version"]["code_identity"]
    # a finished file is left as it is by a later collect or submit
    before = c.path.read_bytes()
    assert E.collect(p, out_dir=tmp_path / "o", scratch=scratch, log=logs.append).finished
    assert E.submit(p, executor="submitit-local", out_dir=tmp_path / "o", scratch=scratch, log=logs.append)[0] == []
    assert c.path.read_bytes() == before


def test_run_results_of_another_preset_or_other_code_are_refused(tmp_path):
    """A job runs the pool's own worker (here in this process); collect merges its file,
    and refuses, naming the file, one made by another preset config or by other code."""
    p = get_preset("tiny", separations=(0.5,), steps=16, classifier_steps=5, ema=0.9, n_checkpoints=4)
    clf, _ = EV.get_classifier(p, tmp_path / "o", progress=False)
    scratch = tmp_path / "s"
    job = E.RunJob(p.to_dict(), 0.5, 0, str(scratch), clf.state_dict(), p.classifier_width, "cpu")
    with storage.lock(SP.state_path(scratch, 0.5, 0)):  # the same run already trained by another job
        with pytest.raises(RuntimeError, match="another job is training this run"):
            job()
    f = Path(job())
    assert f == E.run_result_path(scratch, 0.5, 0) and job.starts == [0]
    logs = []
    other = get_preset("tiny", separations=(0.5,), steps=16, classifier_steps=5, ema=0.9, n_checkpoints=4, lr=1e-2)
    c = E.collect(other, out_dir=tmp_path / "o2", scratch=scratch, log=logs.append)
    assert c.refused and not c.merged and not c.path.exists()
    assert str(f) in logs[0] and "another preset config" in logs[0] and "'lr'" in logs[0], logs
    blob = torch.load(f, weights_only=True)
    storage.atomic_save(lambda g: torch.save({**blob, "code": "0" * 64}, g), f)
    logs.clear()
    c = E.collect(p, out_dir=tmp_path / "o", scratch=scratch, log=logs.append)
    assert c.refused and not c.path.exists() and "other code" in logs[0] and str(f) in logs[0], logs
    storage.atomic_save(lambda g: torch.save(blob, g), f)
    c = E.collect(p, out_dir=tmp_path / "o", scratch=scratch, log=logs.append)
    assert c.finished and c.merged == [(0.5, 0)]
    ref = storage.load_results(S.sweep(p, out_dir=tmp_path / "pool", scratch=tmp_path / "ps", **QUIET))
    _same_arrays(ref, storage.load_results(c.path))


@needs_submitit
def test_the_slurm_job_script_from_the_command_line_and_a_config_file(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "slurm.toml"
    cfg.write_text('partition = "cpu"\ntime = "2:00:00"\ngpus_per_job = 1\ncpus_per_job = 4\n'
                   'array_parallelism = 3\nmem_gb = 16\nsetup = ["module load cuda", "source .venv/bin/activate"]\n')
    argv = ["sweep", "--preset", "paper", "--separations", "0.137", "0.689", "--seeds", "0", "1",
            "--executor", "slurm", "--scratch", str(tmp_path / "s"), "--slurm-config", str(cfg),
            "--partition", "gpu", "--account", "lab", "--device", "auto", "--dry-run"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    for line in ("#SBATCH --partition=gpu", "#SBATCH --time=120", "#SBATCH --gpus-per-node=1",
                 "#SBATCH --cpus-per-task=4", "#SBATCH --array=0-3%3", "#SBATCH --mem=16GB",
                 "#SBATCH --account=lab", "#SBATCH --signal=USR2@120", "module load cuda",
                 "#SBATCH --job-name=swingby-paper-custom-", f"#SBATCH --output={tmp_path / 's' / 'jobs'}/%A_%a_0_log.out",
                 "-m submitit.core._submit"):
        assert line in text, (line, text)
    # the executor a real submission would use carries the same parameters
    import submitit

    monkeypatch.setattr(submitit.SlurmExecutor, "affinity", classmethod(lambda cls: 2))
    opts = E.slurm_options(cfg, partition="gpu", time=None)
    ex = E.make_executor("slurm", tmp_path / "jobs", opts, "swingby-paper")
    assert {k: ex.parameters[k] for k in ("partition", "time", "gpus_per_node", "cpus_per_task",
                                          "array_parallelism", "job_name", "mem")} == \
        {"partition": "gpu", "time": 120, "gpus_per_node": 1, "cpus_per_task": 4, "array_parallelism": 3,
         "job_name": "swingby-paper", "mem": "16GB"}
    assert ex.max_num_timeout == 3 and Path(ex.folder) == tmp_path / "jobs"
    jcfg = tmp_path / "slurm.json"
    jcfg.write_text(json.dumps({"time": 30, "max_requeues": 5}))
    assert E.make_executor("slurm", tmp_path / "j", E.slurm_options(jcfg), "x").max_num_timeout == 5
    monkeypatch.undo()
    if not submitit.SlurmExecutor.affinity() > 0:  # no srun here: a clear message, not a traceback
        with pytest.raises(ValueError, match="srun"):
            E.make_executor("slurm", tmp_path / "j", opts)


def test_bad_options_are_refused_with_a_message(tmp_path, capsys):
    with pytest.raises(ValueError, match=r"executor must be one of \['pool', 'submitit-local', 'slurm'\]"):
        E.check_executor("foo")
    with pytest.raises(ValueError, match="ambiguous.*pool.*submitit-local"):
        E.check_executor("local")
    for kw, msg in ((dict(gpus_per_job=-1), "gpus_per_job must be an integer >= 0"),
                    (dict(time=0), "time must be a positive number of minutes"),
                    (dict(time="0:00:00"), "time must be"), (dict(time="1:75"), "time must be"),
                    (dict(cpus_per_job=0), "cpus_per_job must be an integer >= 1"),
                    (dict(array_parallelism=True), "array_parallelism"), (dict(mem_gb=-2), "mem_gb"),
                    (dict(partition="a b"), "partition must be a SLURM name"),
                    (dict(time=1, signal_delay_s=120), "signal_delay_s")):
        with pytest.raises(ValueError, match=msg):
            E.SlurmOptions(**kw)
    assert E.parse_time("2-01:30:00") == 2 * 1440 + 90 and E.parse_time("0:59:30") == 60 and E.parse_time(45) == 45
    bad = tmp_path / "c.toml"
    bad.write_text('partition = "gpu"\ngpus = 2\n')
    with pytest.raises(ValueError, match=r"c.toml: unknown key \['gpus'\]; allowed: .*gpus_per_job"):
        E.slurm_options(bad)
    (tmp_path / "c.yaml").write_text("x: 1")
    with pytest.raises(ValueError, match=r"\.toml or \.json"):
        E.slurm_options(tmp_path / "c.yaml")
    with pytest.raises(ValueError, match="device must be"):
        E.check_device("gpu")
    for argv, msg in ((["--executor", "foo"], "executor must be one of"),
                      (["--executor", "slurm"], "--scratch is required with --executor slurm"),
                      (["--executor", "slurm", "--scratch", str(tmp_path), "--time", "0"], "time must be"),
                      (["--executor", "submitit-local", "--dry-run"], "it needs --executor slurm"),
                      (["--partition", "gpu"], "need --executor submitit-local or slurm")):
        with pytest.raises(SystemExit) as e:
            cli.main(["sweep", "--preset", "tiny", *argv])
        err = capsys.readouterr().err
        assert e.value.code == 2 and msg in err, (argv, err)


def test_device_auto_picks_cuda_when_present_and_cuda_without_a_gpu_is_an_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == torch.device("cuda") and resolve_device(None).type == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == torch.device("cpu")
    with pytest.raises(ValueError, match="no CUDA GPU"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="no CUDA GPU"):
        S.sweep("tiny", device="cuda", **QUIET)
    assert E.check_device("cuda:1") == "cuda:1"  # a job's device is checked on its node, not here
    with pytest.raises(ValueError, match="needs gpus_per_job"):
        E.submit("tiny", executor="submitit-local", device="cuda", options=E.SlurmOptions(gpus_per_job=0))


def test_the_package_works_without_submitit(tmp_path):
    code = ("import sys; sys.modules['submitit'] = None\n"
            "from swingby.diffusion.runs import executors as E\n"
            "assert E.RunJob.__mro__[1] is object\n"
            "try:\n    E.make_executor('slurm', sys.argv[1], E.SlurmOptions())\n"
            "except ValueError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "needs submitit, which is not installed" in out.stdout and "swingby[cluster]" in out.stdout


@needs_submitit
def test_the_job_is_a_submitit_checkpointable_that_resubmits_itself():
    import submitit

    job = E.RunJob({"name": "tiny"}, 0.2, 0, "/tmp/x", {}, 8, "auto")
    assert isinstance(job, submitit.helpers.Checkpointable)
    again = job.checkpoint()
    assert isinstance(again, submitit.helpers.DelayedSubmission) and again.function is job


def test_collect_from_the_command_line_reports_what_is_missing(tmp_path, capsys):
    argv = ["sweep", "--preset", "tiny", "--collect", "--scratch", str(tmp_path / "s"), "--out", str(tmp_path / "o")]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "merged 0 runs, 2 not finished, 0 refused; not complete yet" in out, out
    assert not SP.results_path(tmp_path / "o", get_preset("tiny")).exists()
