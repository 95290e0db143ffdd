"""Files of the diffusion sweep: where results live, atomic writes, safe loading, a lock,
and the results file (one compressed ``.npz`` per sweep)."""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import tempfile
import zipfile
import zlib
from pathlib import Path

import numpy as np
import torch
from filelock import FileLock, Timeout

from swingby import _checks
from swingby.diffusion import _inputs
from swingby.diffusion.data import CLASSES
from swingby.diffusion.presets import get_preset
from swingby.results import ENV_VAR, in_checkout, part_dir

__all__ = ["SweepFileError", "atomic_save", "load_results", "results_dir"]

#: an evaluation's arrays and dtypes: ``probs (4, n, 2)``, ``pixels (4, n, 4)``, ``thumbs (4, n_thumbs, 3, H, W)``,
#: ``cap_probs (P, n, 2)``, ``cap_pixels (P, n, 4)``, ``emb (4, E)``, ``wnorm (3,)`` (colour, size, conv weight norms)
EVAL_ARRAYS = {"probs": np.float32, "pixels": np.float32, "thumbs": np.uint8, "cap_probs": np.float32,
               "cap_pixels": np.float32, "emb": np.float32, "wnorm": np.float32}
DISC_ARRAYS = ("disc", "cap_disc")  #: per-sample disc flags of the plain and capability prompts (older files lack them)


class SweepFileError(ValueError):
    """A results, state or classifier file that cannot be used; the message names the file and the way out."""


def results_dir(*, for_writing: bool = False) -> Path:
    """``diffusion/`` of the results folder; ``for_writing`` refuses an installed copy without ``$SWINGBY_RESULTS``."""
    if for_writing and not os.environ.get(ENV_VAR) and not in_checkout():
        raise ValueError(f"this is an installed copy of swingby: give --out (out_dir) or set {ENV_VAR} "
                         "to say where sweep results go")
    return part_dir("diffusion")


def writable_dir(name: str, value, default: Path | None = None) -> Path:
    """Argument ``name``, else ``default``, else the writable :func:`results_dir`: a directory (created) to write to."""
    d = _inputs.path(name, value) if value is not None else default or results_dir(for_writing=True)
    if d.exists() and not d.is_dir():
        raise ValueError(f"{name} must be a directory, but {d} is a file")
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=d, prefix=".write-test-")
        os.close(fd)
        os.remove(probe)
    except OSError as e:
        raise ValueError(f"{name} {d} is not writable ({e.strerror}); choose another directory") from None
    return d


def atomic_save(obj_writer, path: Path) -> None:
    """Write ``path`` atomically: ``obj_writer(tmp_path)`` writes a file beside it, which then replaces it.

    Parameters
    ----------
    obj_writer, path : callable, path-like
    """
    _inputs.function("obj_writer", obj_writer)
    path = _inputs.path("path", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    os.close(fd)
    try:
        obj_writer(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # like a normally created file (mkstemp makes it private)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_torch(path: Path, *, what: str, remedy: str):
    """``torch.load(path, weights_only=True)``; a failure is a ``SweepFileError`` naming ``what`` and ``remedy``."""
    path = _inputs.path("path", path)
    for name, text in (("what", what), ("remedy", remedy)):
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a str (it goes into the message), got {text!r}")
    try:
        return torch.load(path, weights_only=True, map_location="cpu")
    except Exception as e:  # noqa: BLE001 - truncated, bit-flipped, foreign or unsafe pickles
        raise SweepFileError(f"the {what} file {path} cannot be read ({type(e).__name__}); {remedy}") from None


@contextlib.contextmanager
def lock(results: Path, busy: Exception | None = None):
    """Hold the lock file ``<results>.lock`` (``filelock``); when it is held, raise ``busy`` (a ValueError) at once."""
    lock_path = Path(str(results) + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    flock = FileLock(lock_path, is_singleton=False, thread_local=False)
    try:
        flock.acquire(timeout=0)
    except Timeout:
        raise busy or ValueError(f"another sweep is writing {results} (lock {lock_path} is held); "
                                 "wait for it or use another --out") from None
    try:
        yield
    finally:
        flock.release()


def _check_records(name: str, records) -> None:
    """Refuse run records without their ``evals``, ``loss`` and ``seconds``."""
    if not isinstance(records, dict) or not {"evals", "loss", "seconds"} <= set(records) \
            or not isinstance(records["evals"], list):
        raise TypeError(f"{name} must be a run's records: a dict with 'evals' (a list), 'loss' and 'seconds', "
                        f"got {_checks.short_repr(records)}")


def records_to_state(records: dict) -> dict:
    """Run records with numpy arrays turned into tensors (for ``weights_only`` loading)."""
    _check_records("records", records)
    evals = [{k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in e.items()} for e in records["evals"]]
    out = {"evals": evals, "loss": [list(map(float, r)) for r in records["loss"]], "seconds": float(records["seconds"])}
    if "repeats" in records:
        out["repeats"] = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in records["repeats"].items()}
    return out


def records_from_state(st: dict) -> dict:
    """Inverse of ``records_to_state``."""
    _check_records("st", st)
    evals = [{k: v.numpy() for k, v in e.items()} for e in st["evals"]]
    out = {"evals": evals, "loss": [list(r) for r in st["loss"]], "seconds": float(st["seconds"])}
    if "repeats" in st:
        out["repeats"] = {k: v.numpy() for k, v in st["repeats"].items()}
    return out


def _shapes(p, n_loss_fields: int, n_cap: int, emb_dim: int) -> dict:
    """The shape of every array in the results file of preset ``p``."""
    from swingby.diffusion.sweep import N_REPEATS, checkpoint_steps

    D, S = len(p.separations), len(p.seeds)
    K = len(checkpoint_steps(p.steps, p.n_checkpoints))
    n, H, L = p.samples_per_class, p.image_size, p.steps // max(1, p.steps // p.n_loss_records)
    return {"probs": (D, S, K, 4, n, 2), "pixels": (D, S, K, 4, n, 4), "thumbs": (D, S, K, 4, p.n_thumbs, 3, H, H),
            "cap_probs": (D, S, K, n_cap, n, 2), "cap_pixels": (D, S, K, n_cap, n, 4),
            "emb": (D, S, K, 4, emb_dim), "wnorm": (D, S, K, 3), "done": (D, S, K), "loss": (D, S, L, n_loss_fields),
            "run_seconds": (D, S), "rep_probs": (D, S, N_REPEATS, 4, n, 2), "rep_pixels": (D, S, N_REPEATS, 4, n, 4),
            "disc": (D, S, K, 4, n), "cap_disc": (D, S, K, n_cap, n), "rep_disc": (D, S, N_REPEATS, 4, n)}


def save_results(path: Path, p, runs: dict, meta_extra: dict) -> None:
    """Write ``runs`` (``(dc, seed) -> records``) of preset ``p`` as one ``.npz`` (``done``: the checkpoints there)."""
    from swingby.diffusion.presets import validate_preset
    from swingby.diffusion.sweep import checkpoint_steps
    from swingby.diffusion.training import LOSS_FIELDS

    path = _inputs.path("path", path)
    validate_preset(p)
    if not isinstance(runs, dict):
        raise TypeError(f"runs must be a dict (dc, seed) -> run records, got {_checks.short_repr(runs)}")
    for key, r in runs.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise TypeError(f"runs must be keyed by (dc, seed) pairs, got the key {key!r}")
        _check_records(f"runs[{key!r}]", r)
    if not isinstance(meta_extra, dict):
        raise TypeError(f"meta_extra must be a dict, got {_checks.short_repr(meta_extra)}")
    first = next((r["evals"][0] for r in runs.values() if r["evals"]), None)
    n_cap = first["cap_probs"].shape[0] if first is not None else 0
    emb_dim = first["emb"].shape[1] if first is not None else 0
    shapes = _shapes(p, len(LOSS_FIELDS), n_cap, emb_dim)
    if first is not None and "disc" not in first:  # records of code that did not store disc flags
        shapes = {k: v for k, v in shapes.items() if k not in (*DISC_ARRAYS, "rep_disc")}
    discs = [k for k in DISC_ARRAYS if k in shapes]
    arr = {k: (np.zeros(s, np.uint8) if k == "thumbs" else np.zeros(s, bool) if k in ("done", *DISC_ARRAYS, "rep_disc")
               else np.full(s, np.nan, np.float32 if k in EVAL_ARRAYS or k.startswith("rep_") else np.float64))
           for k, s in shapes.items()}
    codes = {}
    for i, dc in enumerate(p.separations):
        for j, seed in enumerate(p.seeds):
            r = runs.get((float(dc), int(seed)))
            if r is None:
                continue
            for k, e in enumerate(r["evals"]):
                for name in (*EVAL_ARRAYS, *discs):
                    arr[name][i, j, k] = e[name]
                arr["done"][i, j, k] = True
            m = min(len(r["loss"]), shapes["loss"][2])
            if m:
                arr["loss"][i, j, :m] = np.asarray(r["loss"], float)[:m]
            arr["run_seconds"][i, j] = r["seconds"]
            if "repeats" in r:
                arr["rep_probs"][i, j], arr["rep_pixels"][i, j] = r["repeats"]["probs"], r["repeats"]["pixels"]
                if discs:
                    arr["rep_disc"][i, j] = r["repeats"]["disc"]
            codes[f"{dc}:{seed}"] = r.get("code")
    meta = {"config": p.to_dict(), "checkpoint_steps": checkpoint_steps(p.steps, p.n_checkpoints).tolist(),
            "classes": list(CLASSES), "loss_fields": list(LOSS_FIELDS), "run_code": codes, **meta_extra}
    arr["meta"] = np.array(json.dumps(meta))
    atomic_save(lambda f: np.savez_compressed(open(f, "wb"), **arr), path)


def load_results(path: Path) -> dict:
    """A sweep's results file, checked: its arrays (``probs (D, S, K, 4, n, 2)``, ``pixels``, ``thumbs``,
    ``done``, ``loss``, ...) and ``meta``; a file that is missing, corrupt or inconsistent raises a
    :class:`SweepFileError` naming it and the way out."""
    path = _inputs.path("path", path)
    remedy = ("restore it (git checkout -- <file> for a stored sweep) or delete it and rerun "
              "`python -m swingby.diffusion sweep`")
    if not path.exists():
        raise SweepFileError(f"results file {path} does not exist; run `python -m swingby.diffusion sweep` "
                             f"or set {ENV_VAR} to the directory that holds it")
    try:
        with np.load(path, allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
        out["meta"] = json.loads(str(out["meta"]))
        _check_results(out)
    except SweepFileError:
        raise
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError, TypeError, zlib.error) as e:
        raise SweepFileError(f"results file {path} is corrupt ({type(e).__name__}: {e}); {remedy}") from None
    return out


def _check_results(res: dict) -> None:
    """Refuse arrays whose shapes or ``done`` flags do not fit the file's config."""
    meta = res["meta"]
    cfg = dict(meta["config"])
    p = get_preset(cfg.pop("name") if cfg["name"] in ("paper", "cpu", "tiny") else "tiny", **cfg)
    n_cap, emb_dim = res["cap_probs"].shape[3], res["emb"].shape[4]
    for k, s in _shapes(p, len(meta["loss_fields"]), n_cap, emb_dim).items():
        if k not in res and (k.startswith("rep_") or k in DISC_ARRAYS):  # files made before these were stored
            continue
        if res[k].shape != s:
            raise ValueError(f"array {k!r} has shape {res[k].shape}, the config needs {s}")
    done = res["done"]
    if np.any(done[..., 1:] & ~done[..., :-1]):
        raise ValueError("'done' marks a checkpoint whose predecessor is missing")
    if not np.isfinite(res["probs"][done]).all() or np.isfinite(res["probs"][~done]).any():
        raise ValueError("'done' does not match the stored probabilities")
    if "rep_probs" in res and not np.isfinite(res["rep_probs"][done.all(axis=2)]).all():
        raise ValueError("a finished run lacks its repeated final draws")


def runs_from_results(res: dict) -> dict:
    """The completed runs of a loaded results file as ``(dc, seed) -> records`` (for resuming)."""
    p, codes, runs = res["meta"]["config"], res["meta"].get("run_code", {}), {}
    names = [*EVAL_ARRAYS, *(k for k in DISC_ARRAYS if k in res)]
    for (i, dc), (j, seed) in itertools.product(enumerate(p["separations"]), enumerate(p["seeds"])):
        if not res["done"][i, j].all():
            continue
        ok = ~np.isnan(res["loss"][i, j, :, 0])
        run = runs[(float(dc), int(seed))] = {
            "evals": [{name: res[name][i, j, k] for name in names} for k in range(res["done"].shape[2])],
            "loss": res["loss"][i, j][ok].tolist(), "seconds": float(res["run_seconds"][i, j]),
            "code": codes.get(f"{dc}:{seed}")}
        if "rep_probs" in res:
            run["repeats"] = {"probs": res["rep_probs"][i, j], "pixels": res["rep_pixels"][i, j],
                              **({"disc": res["rep_disc"][i, j]} if "rep_disc" in res else {})}
    return runs
