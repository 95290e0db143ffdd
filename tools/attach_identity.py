"""Attach today's code identity to the stored ``cpu`` sweep after a code change that
should not change its numbers (issue 20's procedure, as a command).

It retrains run dc = 0.689, first seed, of the stored sweep with today's code up to its
checkpoints up to step 11 (``tests/test_replay.py``'s :func:`replay_differences`), and only
if every recorded quantity matches the stored file within the replay test's tolerances
it rewrites the file's ``meta["code_version"]``: ``code_identity`` becomes today's, the
replaced identity moves to ``code_identity_attached["earlier"]`` with its commit, and
the measured differences are recorded. No stored array changes (checked after writing).

Commit the code change first: the attachment names ``HEAD`` as the commit that was
replayed, and refuses to run with uncommitted changes under ``swingby/``.

    python tools/attach_identity.py
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    import test_replay as R

    from swingby.diffusion import sweep as SP
    from swingby.diffusion.presets import get_preset
    from swingby.diffusion.runs import driver as S
    from swingby.diffusion.runs.storage import atomic_save

    dirty = subprocess.run(["git", "status", "--porcelain", "--", "swingby"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.strip()
    if dirty:
        print(f"refused: uncommitted changes under swingby/ (commit them first):\n{dirty}")
        return 2
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    path = SP.results_path(S.DEFAULT_OUT, get_preset("cpu"))
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("meta")))
    cv = meta["code_version"]
    new = S.code_hash()
    if cv.get("code_identity") == new:
        print(f"{path.name} already carries today's identity {new[:12]}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        diffs = R.replay_differences(R.n_replayed(meta["checkpoint_steps"]), Path(tmp))
    excess = R._excess(diffs)
    if excess:
        print(f"refused: today's code does not reproduce the stored run ({excess}); rerun the sweep")
        return 1
    old = cv.get("code_identity_attached", {})
    earlier = list(old.get("earlier", [])) + [{"code_identity": cv["code_identity"], "at_commit": old.get("at_commit")}]
    cv["code_identity"] = new
    cv["code_identity_attached"] = {
        **old, "at_commit": head, "earlier": earlier,
        "replay_max_abs_difference": {f"step_{s}": d for s, d in zip(meta["checkpoint_steps"], diffs)},
        "tolerance": {k: list(v) for k, v in R.TOLERANCE.items()}}
    atomic_save(lambda f: np.savez_compressed(open(f, "wb"), **arrays, meta=np.array(json.dumps(meta))), path)
    with np.load(path, allow_pickle=False) as z:
        assert all(np.array_equal(z[k], v) for k, v in arrays.items()), "a stored array changed"
    print(f"attached identity {new[:12]} to {path.name} (replayed at {head[:7]}): "
          + ", ".join(f"{k} {v:.1e}" for k, v in diffs[-1].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
