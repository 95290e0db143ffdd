"""tools/submission_size.py: the size of a session's commits as a submission counts it."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import submission_size as SS  # noqa: E402


def _repo(tmp_path: Path) -> Path:
    def git(*a):
        subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True)
    git("init", "-q")
    git("config", "user.email", "t@t")
    git("config", "user.name", "t")
    (tmp_path / "a.txt").write_text("a\n")
    git("add", "a.txt")
    git("commit", "-qm", "base")
    return tmp_path


def test_an_added_and_deleted_file_counts_twice_in_the_diffs(tmp_path):
    root = _repo(tmp_path)
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    blob = random.Random(0).randbytes(100_000)  # 100 kB of incompressible binary, like a model state
    (root / "state.pt").write_bytes(blob)
    subprocess.run(["git", "add", "state.pt"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "add"], cwd=root, check=True)
    one = SS.sizes(base, root)
    subprocess.run(["git", "rm", "-q", "state.pt"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "rm"], cwd=root, check=True)
    two = SS.sizes(base, root)
    assert one["commits"] == 1 and two["commits"] == 2
    assert one["diff_bytes"] > len(blob) and two["diff_bytes"] > 1.9 * one["diff_bytes"]
    assert two["pack_bytes"] > 0


def test_a_base_that_is_not_an_ancestor_is_refused(tmp_path):
    with pytest.raises(ValueError, match="base must be a commit"):
        SS.sizes("no-such-commit", _repo(tmp_path))
