"""The sweep of paper Sec. 5: train one diffusion model per (colour separation, seed),
sample every class at checkpoints evenly spaced in sqrt(step), map the samples to
concept space, and store everything in one results file.

Resuming: each run saves its model, EMA, optimiser, random-generator state and the
evaluations so far to a scratch directory (not part of the repository) at every
checkpoint; a restarted sweep continues every unfinished run from its last
completed checkpoint and skips runs already in the results file.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from swingby.diffusion.classifier import ConceptClassifier, accuracy_by_class, train_classifier
from swingby.diffusion.concept_space import pixel_measure
from swingby.diffusion.data import CLASSES, CirclesConfig, class_prompt, make_dataset
from swingby.diffusion.presets import Preset, get_preset
from swingby.diffusion.unet import CondUNet
from swingby.diffusion.vdm import VDM

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parents[1]
DEFAULT_OUT = REPO_ROOT / "results" / "diffusion"
#: colour separations the classifier is trained on (one classifier serves every sweep)
CLASSIFIER_SEPARATIONS = tuple(np.round(np.linspace(0.1, 0.75, 14), 3).tolist())


def checkpoint_steps(steps: int, n_checkpoints: int) -> np.ndarray:
    """Evaluation steps evenly spaced in ``sqrt(step)`` from 0 to ``steps`` (App. G)."""
    if steps < 1 or n_checkpoints < 2:
        raise ValueError(f"need steps >= 1 and n_checkpoints >= 2, got {steps!r}, {n_checkpoints!r}")
    return np.unique(np.round(np.linspace(0, np.sqrt(steps), n_checkpoints) ** 2).astype(int))


def code_version() -> dict:
    """Git commit (if any) and a SHA-256 of the ``swingby/diffusion`` sources."""
    h = hashlib.sha256()
    for f in sorted(PACKAGE_DIR.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
    except Exception:  # noqa: BLE001 - no git: still record the source hash
        commit = None
    return {"git_commit": commit, "diffusion_sources_sha256": h.hexdigest()}


def circles_config(p: Preset, dc: float) -> CirclesConfig:
    return CirclesConfig(image_size=p.image_size, dc=float(dc), ds=p.ds)


def build_model(p: Preset) -> VDM:
    """The preset's VDM with its conditional U-Net."""
    return VDM(CondUNet(p.widths, n_res=p.n_res, attention=p.attention))


def atomic_save(obj_writer, path: Path) -> None:
    """Write via ``obj_writer(tmp_path)`` to a temporary file beside ``path``, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    os.close(fd)
    try:
        obj_writer(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# --------------------------------------------------------------------- classifier
def classifier_path(out_dir: Path, p: Preset) -> Path:
    return Path(out_dir) / f"classifier_{p.name}.pt"


def get_classifier(p: Preset, out_dir: Path, *, progress: bool = False) -> tuple[ConceptClassifier, dict]:
    """Load the preset's classifier from ``out_dir`` or train and store it.

    Returns the classifier and its report (held-out accuracy per separation and class).
    """
    path = classifier_path(out_dir, p)
    cfg = circles_config(p, p.separations[0])
    if path.exists():
        blob = torch.load(path, weights_only=False)
        if blob["image_size"] == p.image_size and blob["steps"] == p.classifier_steps \
                and blob["width"] == p.classifier_width:
            clf = ConceptClassifier(blob["width"])
            clf.load_state_dict(blob["state"])
            return clf.eval(), blob["report"]
    t0 = time.time()
    if p.threads:
        torch.set_num_threads(p.threads)
    clf = train_classifier(cfg, CLASSIFIER_SEPARATIONS, steps=p.classifier_steps, width=p.classifier_width,
                           seed=0, progress=progress)
    acc = accuracy_by_class(clf, cfg, p.separations, n_per_class=200 if p.name == "tiny" else 500)
    report = {"accuracy": {f"{dc}:{c}": a for (dc, c), a in acc.items()},
              "min_accuracy": min(acc.values()), "train_seconds": time.time() - t0,
              "command": f"python -m swingby.diffusion classifier --preset {p.name}"}
    blob = {"state": clf.state_dict(), "width": p.classifier_width, "image_size": p.image_size,
            "separations": list(CLASSIFIER_SEPARATIONS), "steps": p.classifier_steps, "report": report}
    atomic_save(lambda f: torch.save(blob, f), path)
    return clf, report


# --------------------------------------------------------------------- one run
def evaluate(model: VDM, clf: ConceptClassifier, p: Preset, dc: float, seed: int, k: int) -> dict:
    """Sample every class under its test prompt and measure the samples.

    Returns ``probs (4, n, 2)``, ``pixels (4, n, 4)`` and ``thumbs (4, n_thumbs, 3, H, W)`` uint8.
    """
    cfg = circles_config(p, dc)
    n = p.samples_per_class
    cond = torch.from_numpy(np.concatenate([np.tile(class_prompt(cfg, c), (n, 1)) for c in CLASSES]))
    g = torch.Generator().manual_seed(10_000 * seed + 100 + k)
    model.eval()
    imgs = model.sample(cond, p.sample_steps, p.image_size, generator=g)
    probs = clf.probabilities(imgs).reshape(4, n, 2)
    pix = pixel_measure(imgs.numpy()).reshape(4, n, 4)
    thumbs = (imgs.numpy().reshape(4, n, 3, p.image_size, p.image_size)[:, :p.n_thumbs] * 255
              ).round().astype(np.uint8)
    return {"probs": probs.astype(np.float32), "pixels": pix.astype(np.float32), "thumbs": thumbs}


def run_one(p: Preset, dc: float, seed: int, scratch: Path, clf: ConceptClassifier,
            progress_queue=None) -> dict:
    """Train and evaluate one (separation, seed) run, resuming from ``scratch``."""
    if p.threads:
        torch.set_num_threads(p.threads)
    ckpts = checkpoint_steps(p.steps, p.n_checkpoints)
    loss_every = max(1, p.steps // p.n_loss_records)
    state_path = Path(scratch) / f"dc{dc:.4f}_seed{seed}.pt"
    torch.manual_seed(seed)
    model = build_model(p)
    ema = copy.deepcopy(model) if p.ema > 0 else model
    opt = torch.optim.AdamW(model.parameters(), lr=p.lr, weight_decay=p.weight_decay)
    gen = torch.Generator().manual_seed(seed)
    rec = {"evals": [], "loss": [], "loss_parts": [], "gamma": [], "seconds": 0.0}
    step = 0
    if state_path.exists():
        st = torch.load(state_path, weights_only=False)
        model.load_state_dict(st["model"])
        ema.load_state_dict(st["ema"])
        opt.load_state_dict(st["opt"])
        gen.set_state(st["gen"])
        rec, step = st["rec"], st["step"]
    data = make_dataset(circles_config(p, dc), p.n_per_class, seed=seed)
    images, cond = data["images"], data["cond"]
    acc, acc_parts, n_acc = 0.0, np.zeros(3), 0
    t_start = time.time()
    for k, target in enumerate(ckpts):
        if k < len(rec["evals"]):  # done before an interruption
            if progress_queue is not None:
                progress_queue.put(1)
            continue
        model.train()
        while step < target:
            idx = torch.randint(0, len(images), (p.batch,), generator=gen)
            loss, parts = model.loss(images[idx], cond[idx], generator=gen)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if p.grad_clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), p.grad_clip)
            opt.step()
            if p.ema > 0:  # EMA with the usual warm-up, so early checkpoints are not stuck at init
                decay = min(p.ema, (1 + step) / (10 + step))
                with torch.no_grad():
                    for pe, pm in zip(ema.parameters(), model.parameters()):
                        pe.lerp_(pm, 1 - decay)
            step += 1
            acc += float(loss.detach()) / images[0].numel()
            acc_parts += [parts["diff"], parts["prior"], parts["recon"]]
            n_acc += 1
            if step % loss_every == 0:
                rec["loss"].append((step, acc / n_acc))
                rec["loss_parts"].append(list(acc_parts / n_acc))
                rec["gamma"].append((float(model.gamma.gamma_min.detach()), float(model.gamma.gamma_max.detach())))
                acc, acc_parts, n_acc = 0.0, np.zeros(3), 0
        rec["evals"].append(evaluate(ema, clf, p, dc, seed, k))
        rec["seconds"] += time.time() - t_start
        t_start = time.time()
        st = {"model": model.state_dict(), "ema": ema.state_dict(), "opt": opt.state_dict(),
              "gen": gen.get_state(), "rec": rec, "step": step}
        atomic_save(lambda f: torch.save(st, f), state_path)
        if progress_queue is not None:
            progress_queue.put(1)
    return rec


def _worker(args):
    p_dict, dc, seed, scratch, clf_state, clf_width, queue = args
    p = get_preset(p_dict["name"], **{k: v for k, v in p_dict.items() if k != "name"})
    clf = ConceptClassifier(clf_width)
    clf.load_state_dict(clf_state)
    return dc, seed, run_one(p, dc, seed, Path(scratch), clf.eval(), queue)


# --------------------------------------------------------------------- results file
def _tag(p: Preset) -> str:
    """The preset's name, plus a short hash of its config when it differs from the
    stored preset of that name (so an override never overwrites a preset's results)."""
    from swingby.diffusion.presets import PRESETS

    if PRESETS.get(p.name) == p:
        return p.name
    h = hashlib.sha256(json.dumps(p.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
    return f"{p.name}-custom-{h}"


def results_path(out_dir: Path, p: Preset) -> Path:
    """``out_dir/sweep_<preset>.npz`` (``sweep_<preset>-custom-<hash>.npz`` for overrides)."""
    return Path(out_dir) / f"sweep_{_tag(p)}.npz"


def save_results(path: Path, p: Preset, runs: dict, meta_extra: dict) -> None:
    """Write the sweep's results atomically as one compressed ``.npz``.

    ``runs`` maps ``(dc, seed)`` to a run record; missing checkpoints are NaN and
    ``done[i, j, k]`` says which exist.
    """
    D, S = len(p.separations), len(p.seeds)
    ckpts = checkpoint_steps(p.steps, p.n_checkpoints)
    K, n, H = len(ckpts), p.samples_per_class, p.image_size
    probs = np.full((D, S, K, 4, n, 2), np.nan, np.float32)
    pixels = np.full((D, S, K, 4, n, 4), np.nan, np.float32)
    thumbs = np.zeros((D, S, K, 4, p.n_thumbs, 3, H, H), np.uint8)
    done = np.zeros((D, S, K), bool)
    L = p.steps // max(1, p.steps // p.n_loss_records)
    loss = np.full((D, S, L, 2), np.nan)
    loss_parts = np.full((D, S, L, 3), np.nan)
    gamma = np.full((D, S, L, 2), np.nan)
    seconds = np.zeros((D, S))
    for i, dc in enumerate(p.separations):
        for j, seed in enumerate(p.seeds):
            r = runs.get((float(dc), int(seed)))
            if r is None:
                continue
            for k, e in enumerate(r["evals"]):
                probs[i, j, k], pixels[i, j, k], thumbs[i, j, k] = e["probs"], e["pixels"], e["thumbs"]
                done[i, j, k] = True
            m = min(len(r["loss"]), L)
            if m:
                loss[i, j, :m] = np.asarray(r["loss"])[:m]
                loss_parts[i, j, :m] = np.asarray(r["loss_parts"])[:m]
                gamma[i, j, :m] = np.asarray(r["gamma"])[:m]
            seconds[i, j] = r["seconds"]
    meta = {"config": p.to_dict(), "checkpoint_steps": ckpts.tolist(), "classes": list(CLASSES),
            **meta_extra}
    arrays = dict(probs=probs, pixels=pixels, thumbs=thumbs, done=done, loss=loss,
                  loss_parts=loss_parts, gamma=gamma, run_seconds=seconds,
                  meta=np.array(json.dumps(meta)))
    atomic_save(lambda f: np.savez_compressed(open(f, "wb"), **arrays), path)


def load_results(path: Path) -> dict:
    """Read a results file written by :func:`save_results`; ``meta`` is a dict."""
    with np.load(path, allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    out["meta"] = json.loads(str(out["meta"]))
    return out


def runs_from_results(res: dict) -> dict:
    """Completed runs of a results file, as run records (for resuming)."""
    p = res["meta"]["config"]
    runs = {}
    for i, dc in enumerate(p["separations"]):
        for j, seed in enumerate(p["seeds"]):
            if res["done"][i, j].all():
                evals = [{"probs": res["probs"][i, j, k], "pixels": res["pixels"][i, j, k],
                          "thumbs": res["thumbs"][i, j, k]} for k in range(res["done"].shape[2])]
                ok = ~np.isnan(res["loss"][i, j, :, 0])
                runs[(float(dc), int(seed))] = {
                    "evals": evals, "loss": res["loss"][i, j][ok].tolist(),
                    "loss_parts": res["loss_parts"][i, j][ok].tolist(),
                    "gamma": res["gamma"][i, j][ok].tolist(), "seconds": float(res["run_seconds"][i, j])}
    return runs


# --------------------------------------------------------------------- the sweep
def default_scratch(p: Preset) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "swingby-diffusion" / _tag(p)


def sweep(preset: str | Preset = "cpu", *, seeds=None, separations=None, out_dir=None,
          scratch=None, progress: bool = True) -> Path:
    """Run (or resume) a sweep and return the path of its results file.

    Parameters
    ----------
    preset : ``"paper"``, ``"cpu"``, ``"tiny"`` or a :class:`Preset`.
    seeds, separations : override the preset's (they are stored in the config).
    out_dir : where the results file and the classifier go (default ``results/diffusion``).
    scratch : resumable per-run states (default ``~/.cache/swingby-diffusion/<preset>``).
    """
    from tqdm.auto import tqdm

    over = {}
    if seeds is not None:
        over["seeds"] = tuple(int(s) for s in seeds)
    if separations is not None:
        over["separations"] = tuple(float(s) for s in separations)
    p = get_preset(preset, **over) if isinstance(preset, str) else preset
    if isinstance(preset, Preset) and over:
        p = replace(p, **over)
    out_dir = Path(out_dir) if out_dir is not None else DEFAULT_OUT
    scratch = Path(scratch) if scratch is not None else default_scratch(p)
    scratch.mkdir(parents=True, exist_ok=True)
    path = results_path(out_dir, p)
    t0 = time.time()
    clf, clf_report = get_classifier(p, out_dir, progress=progress)
    runs, wall_before = {}, 0.0
    if path.exists():
        old = load_results(path)
        if old["meta"]["config"] == p.to_dict():
            runs = runs_from_results(old)
            wall_before = old["meta"].get("wall_seconds", 0.0)
    # seed-major order: a sweep stopped early still has every separation for its first seeds
    todo = [(float(dc), int(s)) for s in p.seeds for dc in p.separations if (float(dc), int(s)) not in runs]
    n_ck = len(checkpoint_steps(p.steps, p.n_checkpoints))

    def meta_extra():
        return {"code_version": code_version(), "classifier": clf_report,
                "wall_seconds": wall_before + time.time() - t0,
                "command": f"python -m swingby.diffusion sweep --preset {p.name}",
                "finished": len(runs) == len(p.separations) * len(p.seeds)}

    bar = tqdm(total=len(todo) * n_ck, desc=f"sweep {p.name}", disable=not progress)
    if todo:
        import multiprocessing as mp

        args = [(p.to_dict(), dc, s, str(scratch), clf.state_dict(), p.classifier_width)
                for dc, s in todo]
        if p.workers == 1:  # in this process
            import queue as _q
            local = _q.SimpleQueue()
            for a in args:
                dc, s, rec = _worker(a + (local,))
                while not local.empty():
                    bar.update(local.get())
                runs[(dc, s)] = rec
                save_results(path, p, runs, meta_extra())
        else:  # worker processes started fresh ("spawn"), so their torch threads are clean
            ctx = mp.get_context("spawn")
            manager = ctx.Manager()
            queue = manager.Queue()
            with ctx.Pool(min(p.workers, len(args))) as pool:
                pending = [pool.apply_async(_worker, (a + (queue,),)) for a in args]
                while pending:
                    time.sleep(1.0)
                    while not queue.empty():
                        bar.update(queue.get())
                    for r in [r for r in pending if r.ready()]:
                        pending.remove(r)
                        dc, s, rec = r.get()
                        runs[(dc, s)] = rec
                        save_results(path, p, runs, meta_extra())
            manager.shutdown()
    bar.close()
    save_results(path, p, runs, meta_extra())
    return path
