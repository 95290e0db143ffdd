"""How large the commits since ``BASE`` are, as a submission counts them: the packed size
of their objects and the text size of all their diffs (binary files included, a file
added in one commit and deleted in a later one counted twice). Run it before a session
stops, with the commit the session started from:

    python tools/submission_size.py BASE [--max-pack-mib 512] [--max-diff-mib 256]

It exits 1 when either is over its limit (defaults: the workplace's limits, with a
margin asked for by ``--margin``). Why it exists: a session that committed the resumable
state of every diffusion run (about 8 MB each, added and later deleted) was refused
whole for its size; commit ``results/diffusion/partial/`` only in a session's last
commit (see README, "Long runs across sessions").
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIB = 2 ** 20


def _git(*args: str, root: Path = ROOT, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=True).stdout


def sizes(base: str, root: Path = ROOT) -> dict:
    """``pack_bytes`` and ``diff_bytes`` of the commits in ``base..HEAD``, and their count.

    Parameters
    ----------
    base : str
        A commit (hash, branch or tag) that HEAD descends from.
    root : pathlib.Path
        The repository (default: this one).

    Returns
    -------
    dict
    """
    try:
        _git("merge-base", "--is-ancestor", base, "HEAD", root=root)
    except subprocess.CalledProcessError:
        raise ValueError(f"base must be a commit that HEAD descends from, got {base!r}") from None
    commits = _git("rev-list", f"{base}..HEAD", root=root).split()
    objects = _git("rev-list", "--objects", f"{base}..HEAD", root=root)
    pack = _git("pack-objects", "--stdout", "-q", root=root, stdin=objects) if objects.strip() else b""
    diff = 0
    for c in commits:
        diff += len(_git("show", "--format=", "--binary", "--no-color", c.decode(), root=root))
    return {"commits": len(commits), "pack_bytes": len(pack), "diff_bytes": diff}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("--max-pack-mib", type=float, default=512.0)
    ap.add_argument("--max-diff-mib", type=float, default=256.0)
    ap.add_argument("--margin", type=float, default=0.8, help="share of each limit allowed (default 0.8)")
    a = ap.parse_args(argv)
    if not 0 < a.margin <= 1:
        ap.error(f"--margin must be in (0, 1], got {a.margin}")
    s = sizes(a.base)
    pack, diff = s["pack_bytes"] / MIB, s["diff_bytes"] / MIB
    ok = pack <= a.margin * a.max_pack_mib and diff <= a.margin * a.max_diff_mib
    print(f"{s['commits']} commits since {a.base}: packed {pack:.1f} MiB (limit {a.max_pack_mib:g}), "
          f"diffs {diff:.1f} MiB (limit {a.max_diff_mib:g}); {'ok' if ok else 'OVER ' + f'{a.margin:.0%} of a limit'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
