"""Fault injection on the diffusion sweep (the `tiny` preset): kill and resume, corrupt
files, a changed preset or code, unwritable or wrong output paths, duplicates, two
sweeps at once, unsafe pickles, and the process tree on SIGTERM / SIGKILL."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from swingby.diffusion import sweep as SP
from swingby.diffusion.presets import PRESETS, get_preset
from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import evaluation, storage
from swingby.diffusion.runs import evaluation as EV
from swingby.diffusion.runs import storage as ST
from swingby.diffusion.runs.storage import SweepFileError
from swingby.diffusion.training import Run

ROOT = Path(__file__).resolve().parents[1]
torch.set_num_threads(1)
QUIET = dict(progress=False, log=lambda m: None)


def tiny(**kw):
    return get_preset("tiny", **{"separations": (0.5,), "steps": 16, "classifier_steps": 5, "ema": 0.9,
                                 "n_checkpoints": 4, **kw})


class Killed(Exception):
    pass


def _kill_at(monkeypatch, step: int):
    """Make training raise (like a kill) when it reaches ``step``."""
    orig = Run._one_step

    def one_step(self, images, cond):
        if self.step == step:
            raise Killed
        orig(self, images, cond)
    monkeypatch.setattr(Run, "_one_step", one_step)


def test_resume_after_a_kill_equals_an_uninterrupted_run(tmp_path, monkeypatch):
    p = tiny()
    full = ST.load_results(S.sweep(p, out_dir=tmp_path / "a", scratch=tmp_path / "sa", **QUIET))
    with monkeypatch.context() as m:
        _kill_at(m, 7)  # between the checkpoints at steps 2 and 7: the loss window is half full
        with pytest.raises(Killed):
            S.sweep(p, out_dir=tmp_path / "b", scratch=tmp_path / "sb", **QUIET)
    st = torch.load(next((tmp_path / "sb").glob("*.pt")), weights_only=True)
    assert 0 < st["step"] < p.steps
    resumed = ST.load_results(S.sweep(p, out_dir=tmp_path / "b", scratch=tmp_path / "sb", **QUIET))
    for k in full:
        if k not in ("meta", "run_seconds"):  # run_seconds is a timing
            assert np.array_equal(full[k], resumed[k], equal_nan=full[k].dtype.kind == "f"), k


def test_a_changed_preset_or_code_is_never_resumed(tmp_path, monkeypatch):
    p = tiny()
    scratch = tmp_path / "s"
    with monkeypatch.context() as m:
        _kill_at(m, 7)
        with pytest.raises(Killed):
            S.sweep(p, out_dir=tmp_path / "o", scratch=scratch, **QUIET)
    # the same preset name, edited (steps and lr), into a fresh --out but the same scratch
    edited = replace(PRESETS["tiny"], separations=(0.5,), steps=24, lr=2e-2, classifier_steps=5, ema=0.9,
                     n_checkpoints=4)
    monkeypatch.setitem(PRESETS, "tiny", edited)
    logs = []
    res = ST.load_results(S.sweep("tiny", out_dir=tmp_path / "o2", scratch=scratch, progress=False,
                                 log=logs.append))
    assert any("another preset config" in m_ for m_ in logs), logs
    assert res["meta"]["config"]["steps"] == 24 and res["loss"][0, 0, -1, 0] == 24
    # a code change: the state is not resumed either
    with monkeypatch.context() as m:
        _kill_at(m, 7)
        with pytest.raises(Killed):
            S.sweep(p, out_dir=tmp_path / "o3", scratch=tmp_path / "s3", **QUIET)
    monkeypatch.setattr(S, "code_hash", lambda: "0" * 64)
    logs.clear()
    S.sweep(p, out_dir=tmp_path / "o3", scratch=tmp_path / "s3", progress=False, log=logs.append)
    assert any("another code" in m_ for m_ in logs), logs


def test_a_finished_sweep_is_not_restamped(tmp_path, monkeypatch):
    p = tiny()
    path = S.sweep(p, out_dir=tmp_path, scratch=tmp_path / "s", **QUIET)
    before = path.read_bytes()
    monkeypatch.setattr(S, "code_hash", lambda: "f" * 64)
    logs = []
    assert S.sweep(p, out_dir=tmp_path, scratch=tmp_path / "s", progress=False, log=logs.append) == path
    assert path.read_bytes() == before and any("finished sweep made by other code" in m for m in logs)


@pytest.mark.parametrize("damage", ["truncate", "empty", "flip"])
def test_corrupt_results_file_names_itself(tmp_path, damage):
    path = S.sweep(tiny(), out_dir=tmp_path, scratch=tmp_path / "s", **QUIET)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        b = bytearray(data)
        b[len(b) // 2] ^= 0xFF
        path.write_bytes(bytes(b))
    with pytest.raises(SweepFileError, match=path.name) as e:
        ST.load_results(path)
    assert "delete it" in str(e.value) or "restore it" in str(e.value)


def test_tampered_done_array_is_rejected(tmp_path):
    path = S.sweep(tiny(), out_dir=tmp_path, scratch=tmp_path / "s", **QUIET)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["done"][0, 0, 1] = False  # checkpoint 2 done but 1 not
    np.savez_compressed(path, **arrays)
    with pytest.raises(SweepFileError, match="done"):
        ST.load_results(path)


def test_corrupt_state_restarts_the_run_and_corrupt_classifier_is_an_error(tmp_path, monkeypatch):
    p = tiny()
    with monkeypatch.context() as m:
        _kill_at(m, 7)
        with pytest.raises(Killed):
            S.sweep(p, out_dir=tmp_path / "o", scratch=tmp_path / "s", **QUIET)
    state = next((tmp_path / "s").glob("*.pt"))
    state.write_bytes(state.read_bytes()[:100])
    logs = []
    res = ST.load_results(S.sweep(p, out_dir=tmp_path / "o", scratch=tmp_path / "s", progress=False,
                                 log=logs.append))
    assert res["done"].all() and any(state.name in m_ and "restarting" in m_ for m_ in logs), logs
    clf = EV.classifier_path(tmp_path / "o", p)
    clf.write_bytes(b"not a torch file")
    (tmp_path / "o" / SP.results_path(tmp_path, p).name).unlink()
    with pytest.raises(SweepFileError, match=clf.name):
        S.sweep(p, out_dir=tmp_path / "o", scratch=tmp_path / "s", **QUIET)


def test_unsafe_pickle_is_refused(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))
    bad = tmp_path / "classifier.pt"
    torch.save({"state": Evil()}, bad)
    with pytest.raises(SweepFileError, match="classifier.pt"):
        storage.load_torch(bad, what="classifier", remedy="delete it")
    assert not marker.exists()


def test_unwritable_or_wrong_output_fails_before_any_work(tmp_path, monkeypatch):
    called = []
    monkeypatch.setattr(evaluation, "train_classifier", lambda *a, **k: called.append(1))
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ValueError, match="out_dir must be a directory"):
        S.sweep(tiny(), out_dir=a_file, scratch=tmp_path / "s", **QUIET)

    real_mkstemp = storage.tempfile.mkstemp

    def refuse(*a, **k):  # a read-only file system under the directories named ro*
        if Path(k.get("dir", "")).name.startswith("ro"):
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*a, **k)
    with monkeypatch.context() as m:
        m.setattr(storage.tempfile, "mkstemp", refuse)
        for kw, name in ((dict(out_dir=tmp_path / "ro"), "out_dir"), (dict(scratch=tmp_path / "ro2"), "scratch")):
            with pytest.raises(ValueError, match=f"{name} .* is not writable"):
                S.sweep(tiny(), **{"out_dir": tmp_path / "o", "scratch": tmp_path / "s", **kw}, **QUIET)
    assert not called


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_directory(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    with pytest.raises(ValueError, match="not writable"):
        S.sweep(tiny(), out_dir=ro, scratch=tmp_path / "s", **QUIET)


def test_duplicates_and_a_held_lock_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="seeds must not repeat"):
        S.sweep("tiny", seeds=[0, 0], out_dir=tmp_path, scratch=tmp_path / "s", **QUIET)
    with pytest.raises(ValueError, match="separations must not repeat"):
        get_preset("tiny", separations=(0.2, 0.2))
    p = tiny()
    with storage.lock(SP.results_path(tmp_path, p)):
        with pytest.raises(ValueError, match="another sweep is writing"):
            S.sweep(p, out_dir=tmp_path, scratch=tmp_path / "s", **QUIET)


def test_installed_copy_needs_an_explicit_results_location(monkeypatch, tmp_path):
    monkeypatch.delenv("SWINGBY_RESULTS", raising=False)
    assert storage.results_dir() == ROOT / "results" / "diffusion"
    monkeypatch.setattr(storage, "in_checkout", lambda: False)
    with pytest.raises(ValueError, match="SWINGBY_RESULTS"):
        storage.results_dir(for_writing=True)
    monkeypatch.setenv("SWINGBY_RESULTS", str(tmp_path))  # the results folder: its diffusion/ is the directory
    assert storage.results_dir(for_writing=True) == storage.results_dir() == tmp_path / "diffusion"


def test_a_diverging_run_is_reported(tmp_path):
    p = tiny(lr=1.0, grad_clip=0.0, steps=60)
    with pytest.raises(FloatingPointError, match="diverged"):
        S.sweep(p, out_dir=tmp_path, scratch=tmp_path / "s", **QUIET)


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_signals_stop_the_whole_process_tree(tmp_path, sig):
    code = (f"from swingby.diffusion.runs import driver as S; from swingby.diffusion.presets import get_preset;"
            f"S.sweep(get_preset('tiny', separations=(0.2, 0.6), steps=100000, n_checkpoints=3, "
            f"classifier_steps=5, workers=2), out_dir={str(tmp_path)!r}, scratch={str(tmp_path / 's')!r}, "
            f"progress=False)")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(_children(proc.pid)) < 3:  # two workers + resource tracker
        time.sleep(0.5)
    all_kids = _children(proc.pid)
    assert len(all_kids) >= 2, "the sweep did not start its workers"
    time.sleep(2)  # let them train
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)
    deadline = time.time() + 30
    while time.time() < deadline and any(_alive(k) for k in all_kids):
        time.sleep(0.5)
    left = [k for k in all_kids if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert not left, f"{sig!r} left {len(left)} worker process(es) running"


def test_the_lock_is_portable_and_refuses_a_second_process(tmp_path):
    """Issue 20 item 4: the lock is filelock's (fcntl is POSIX only), and a lock held by
    another process is refused with the same clear message."""
    import inspect

    assert "import fcntl" not in inspect.getsource(storage)
    results = tmp_path / "sweep_x.npz"
    code = ("import sys, time\nfrom swingby.diffusion.runs import storage\n"
            f"with storage.lock({str(results)!r}):\n    print('held', flush=True)\n    time.sleep(30)\n")
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(Path(S.__file__).parents[2])})
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ValueError, match="another sweep is writing"):
            with storage.lock(results):
                pass
    finally:
        holder.kill()
        holder.wait()
    with storage.lock(results):  # free again once the holder is gone
        pass


def test_the_classifier_key_records_its_training_distribution(tmp_path, monkeypatch):
    """Issue 20 item 5: the stored cpu classifier is found by the cpu preset (never
    retrained), its key records the distribution that trained it, and a preset with
    another distribution gets a classifier of its own, never the stored one."""
    def no_training(*a, **k):
        raise AssertionError("the stored classifier was retrained")

    cpu = get_preset("cpu")
    path = EV.classifier_path(S.DEFAULT_OUT, cpu)
    assert path.exists(), path
    blob = storage.load_torch(path, what="classifier", remedy="")
    dist = blob["key"]["distribution"]
    assert dist == evaluation.classifier_distribution(cpu) and dist["image_size"] == 16 and dist["position"] == 0.5
    with monkeypatch.context() as m:
        m.setattr(evaluation, "train_classifier", no_training)
        evaluation.get_classifier(cpu, S.DEFAULT_OUT)
    for other in (replace(cpu, ds=0.3), replace(cpu, position=0.8), replace(cpu, image_size=32)):
        assert EV.classifier_path(S.DEFAULT_OUT, other) != path
    # a file at the right name whose key holds another distribution is retrained, not reused
    p, q = tiny(), tiny(ds=0.3)
    evaluation.get_classifier(p, tmp_path)
    EV.classifier_path(tmp_path, p).rename(EV.classifier_path(tmp_path, q))
    calls = []
    real = evaluation.train_classifier
    monkeypatch.setattr(evaluation, "train_classifier", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    evaluation.get_classifier(q, tmp_path)
    assert len(calls) == 1 and calls[0].ds == 0.3
    key = storage.load_torch(EV.classifier_path(tmp_path, q), what="classifier", remedy="")["key"]
    assert key["distribution"]["ds"] == 0.3
