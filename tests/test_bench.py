"""benchmarks/bench_diffusion.py refuses to store timings taken on a loaded machine (issue 21)."""
from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_diffusion", ROOT / "benchmarks" / "bench_diffusion.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_store_is_refused_on_a_loaded_machine(tmp_path, monkeypatch, capsys):
    bench = _bench()
    monkeypatch.setenv("SWINGBY_RESULTS", str(tmp_path))  # the results folder: timings go to its diffusion/
    monkeypatch.setattr(bench.os, "getloadavg", lambda: (bench.LOAD_MAX + 1.0, 1.0, 1.0))
    monkeypatch.setattr(sys, "argv", ["bench_diffusion.py", "--store", "--presets", "tiny"])
    with pytest.raises(SystemExit) as e:
        bench.main()
    assert e.value.code == 2 and "--store refused" in capsys.readouterr().err
    assert not (tmp_path / "diffusion" / "timings.json").exists()


def test_one_repeat_is_refused(monkeypatch):
    bench = _bench()
    monkeypatch.setattr(sys, "argv", ["bench_diffusion.py", "--repeats", "1"])
    with pytest.raises(SystemExit) as e:
        bench.main()
    assert e.value.code == 2


def test_the_cpu_model_and_its_bf16_instructions_are_read(monkeypatch):
    bench = _bench()
    cpuinfo = "processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu avx512_bf16 sse2 amx_bf16\n"
    monkeypatch.setattr(bench, "open", lambda path: io.StringIO(cpuinfo), raising=False)
    assert bench._cpu_info() == ("Test CPU 9000", ["amx_bf16", "avx512_bf16"])
    monkeypatch.setattr(bench, "open", lambda path: io.StringIO("flags\t: fpu sse2\n"), raising=False)
    assert bench._cpu_info() == ("unknown", [])
