"""The README's five-line example runs as written."""
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_example_runs(tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    assert blocks, "the README has no python example"
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "README.md", "exec"), {})
    assert (tmp_path / "trajectory.png").stat().st_size > 0
    assert os.listdir(tmp_path) == ["trajectory.png"]


def test_the_readme_speed_sentence_is_the_stored_benchmark():
    """The bf16 speed-ups the README quotes are those of results/diffusion/timings.json
    (rewrite the sentence after `bench_diffusion.py --store`)."""
    import json

    t = json.loads((ROOT / "results" / "diffusion" / "timings.json").read_text())
    text = " ".join((ROOT / "README.md").read_text().split())
    for name in ("cpu", "paper"):
        sp = t["presets"][name]["bf16_speedup_train"]["1 thread"]
        lo, hi = sp["range"]
        assert f"{sp['median']:.2f}x" in text and f"{lo:.2f}-{hi:.2f}" in text, name
