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
