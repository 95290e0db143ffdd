"""A diffusion run's evaluation at a checkpoint (paper Sec. 5): samples of every class and of
class 11 under the capability prompts, read into concept space, with the conditioning
embeddings and weight norms; the repeated final draws; the concept classifier of a sweep.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from swingby import _checks
from swingby.diffusion import _inputs
from swingby.diffusion.classifier import ConceptClassifier, accuracy_by_class, train_classifier
from swingby.diffusion.concept_space import pixel_measure
from swingby.diffusion.data import CLASSES, CirclesConfig, capability_prompts, class_prompt
from swingby.diffusion.presets import Preset, validate_preset
from swingby.diffusion.readouts import disc_test
from swingby.diffusion.runs import storage
from swingby.diffusion.runs.storage import atomic_save
from swingby.diffusion.sweep import N_REPEATS
from swingby.diffusion.training import autocast, resolve_device, weight_norms
from swingby.diffusion.vdm import VDM

__all__ = ["circles_config", "get_classifier"]

#: colour separations the classifier is trained on (one classifier serves every sweep)
CLASSIFIER_SEPARATIONS = tuple(np.round(np.linspace(0.1, 0.75, 14), 3).tolist())
CLASSIFIER_MIN_POSITION = CirclesConfig.position  #: the classifier's least centre spread (it reads any disc)


def circles_config(p: Preset, dc: float) -> CirclesConfig:
    """The data-generating process of preset ``p`` at colour separation ``dc``.

    Parameters
    ----------
    p, dc : Preset, float
    """
    validate_preset(p)
    return CirclesConfig(image_size=p.image_size, dc=_checks.number("dc", dc, low=0.0, high=1.0), ds=p.ds,
                         position=p.position)


def plain_prompts(p: Preset, dc: float) -> np.ndarray:
    """The test prompts ``(4, 4)`` of the four classes (colour and radius means)."""
    cfg = circles_config(p, dc)
    return np.stack([class_prompt(cfg, c) for c in CLASSES])


def classifier_path(out_dir: Path, p: Preset) -> Path:
    """The classifier file of ``p`` in ``out_dir``, named by its settings and a hash of its training distribution."""
    validate_preset(p)
    if not isinstance(out_dir, (str, Path)) or not str(out_dir):
        raise TypeError(f"out_dir must be a directory path (str or pathlib.Path), got {out_dir!r}")
    tag = hashlib.sha256(json.dumps(classifier_distribution(p), sort_keys=True).encode()).hexdigest()[:8]
    return Path(out_dir) / f"classifier_{p.image_size}px_w{p.classifier_width}_s{p.classifier_steps}_d{tag}.pt"


def classifier_config(p: Preset) -> CirclesConfig:
    """What ``p``'s classifier is trained on: its first separation, centres spread >= ``CLASSIFIER_MIN_POSITION``."""
    cfg = circles_config(p, p.separations[0])
    return replace(cfg, position=max(cfg.position, CLASSIFIER_MIN_POSITION))


def classifier_distribution(p: Preset) -> dict:
    """``classifier_config`` but ``dc``, with the separations the classifier draws from."""
    d = classifier_config(p).to_dict()
    del d["dc"]
    return {**d, "separations": list(CLASSIFIER_SEPARATIONS)}


def _classifier_key(p: Preset) -> dict:
    """What a stored classifier must have been trained with to serve preset ``p``."""
    return {"image_size": p.image_size, "steps": p.classifier_steps, "width": p.classifier_width,
            "separations": list(CLASSIFIER_SEPARATIONS), "distribution": classifier_distribution(p)}


def get_classifier(p: Preset, out_dir: Path, *, progress: bool = False) -> tuple[ConceptClassifier, dict]:
    """``(classifier, report)``: the preset's concept classifier, loaded from ``out_dir`` or trained and
    stored there (one of other settings is retrained), and its held-out accuracy per separation and class,
    the minimum and the training time.

    Parameters
    ----------
    p, out_dir : Preset, path-like
    progress : bool
        Show a progress bar while training.
    """
    _checks.flag("progress", progress)
    path = classifier_path(out_dir, p)
    if path.exists():
        blob = storage.load_torch(path, what="classifier", remedy="delete it to train a new one")
        if blob.get("key") == _classifier_key(p):
            clf = ConceptClassifier(p.classifier_width)
            clf.load_state_dict(blob["state"])
            return clf.eval(), json.loads(blob["report"])
    t0 = time.time()
    torch.set_num_threads(p.threads)
    cfg = classifier_config(p)
    clf = train_classifier(cfg, CLASSIFIER_SEPARATIONS, steps=p.classifier_steps, width=p.classifier_width,
                           seed=0, progress=progress)
    acc = accuracy_by_class(clf, circles_config(p, p.separations[0]), p.separations,
                            n_per_class=200 if p.name == "tiny" else 500)
    report = {"accuracy": {f"{dc}:{c}": a for (dc, c), a in acc.items()},
              "min_accuracy": min(acc.values()), "train_seconds": time.time() - t0,
              "command": f"python -m swingby.diffusion classifier --preset {p.name}"}
    blob = {"state": clf.state_dict(), "key": _classifier_key(p), "report": json.dumps(report)}
    atomic_save(lambda f: torch.save(blob, f), path)
    return clf.eval(), report


def class_embeddings(model, prompts: torch.Tensor) -> np.ndarray:
    """Conditioning embeddings ``(P, E)`` of ``prompts (P, 4)`` (Fig. 5), every block's concatenated."""
    _inputs.instance("model", model, VDM, "swingby.diffusion.vdm.VDM")
    _inputs.batch_cond("prompts", prompts, None, getattr(model.net, "cond_dim", None))
    net = model.net
    with torch.no_grad():
        if net.style == "shared":
            e = net.c_mlp(prompts)
        else:
            e = torch.cat([m.c_proj(prompts) for m in net.modules() if hasattr(m, "c_proj")], dim=1)
    return e.float().cpu().numpy()


def _check_eval(model, clf, p: Preset, dc, seed, device) -> torch.device:
    """Check the arguments shared by ``evaluate`` and ``final_repeats``."""
    _inputs.instance("model", model, VDM, "swingby.diffusion.vdm.VDM")
    _inputs.instance("clf", clf, ConceptClassifier, "swingby.diffusion.classifier.ConceptClassifier")
    validate_preset(p)
    _checks.number("dc", dc, low=0.0, high=1.0)
    _checks.seed("seed", seed)
    if isinstance(device, str):
        device = resolve_device(device)
    return _inputs.instance("device", device, torch.device, "torch.device")


def _sample(model, p: Preset, prompts: np.ndarray, n: int, g: torch.Generator, device) -> torch.Tensor:
    """``n`` samples of every prompt, in one chain."""
    cond = torch.from_numpy(np.repeat(prompts, n, axis=0)).to(device)
    with autocast(p, device):
        return model.sample(cond, p.sample_steps, p.image_size, generator=g).cpu()


def evaluate(model, clf: ConceptClassifier, p: Preset, dc: float, seed: int, k: int,
             device=torch.device("cpu")) -> dict:
    """Read-outs at checkpoint ``k`` of run ``(dc, seed)``: ``EVAL_ARRAYS``, ``disc``, ``cap_disc``."""
    device = _check_eval(model, clf, p, dc, seed, device)
    k = _checks.integer("k", k, low=0, high=p.n_checkpoints)
    cfg, plain = circles_config(p, dc), plain_prompts(p, dc)
    n = p.samples_per_class
    cap, _ = capability_prompts(cfg)
    g = torch.Generator(device=device).manual_seed(10_000 * seed + 100 + k)
    model.eval()
    both = _sample(model, p, np.concatenate([plain, cap]), n, g, device)  # one chain for every prompt
    imgs, cap_imgs = both[:4 * n], both[4 * n:]
    if not torch.isfinite(both).all():
        raise FloatingPointError(f"training diverged: the samples at checkpoint {k} (dc={dc}, seed={seed}) "
                                 f"are not finite (lr={p.lr}, grad_clip={p.grad_clip}); lower the learning rate")
    H = p.image_size
    return {
        "probs": clf.probabilities(imgs).reshape(4, n, 2).astype(np.float32),
        "pixels": pixel_measure(imgs.numpy()).reshape(4, n, 4).astype(np.float32),
        "thumbs": (imgs.numpy().reshape(4, n, 3, H, H)[:, :p.n_thumbs] * 255).round().astype(np.uint8),
        "cap_probs": clf.probabilities(cap_imgs).reshape(len(cap), n, 2).astype(np.float32),
        "cap_pixels": pixel_measure(cap_imgs.numpy()).reshape(len(cap), n, 4).astype(np.float32),
        "disc": disc_test(imgs.numpy()).is_disc.reshape(4, n),
        "cap_disc": disc_test(cap_imgs.numpy()).is_disc.reshape(len(cap), n),
        "emb": class_embeddings(model, torch.from_numpy(plain).to(device)),
        "wnorm": weight_norms(model).astype(np.float32),
    }


def final_repeats(model, clf: ConceptClassifier, p: Preset, dc: float, seed: int,
                  device=torch.device("cpu")) -> dict:
    """``probs``, ``pixels``, ``disc`` of :data:`~swingby.diffusion.sweep.N_REPEATS` draws from the final model."""
    device = _check_eval(model, clf, p, dc, seed, device)
    plain = plain_prompts(p, dc)
    n = p.samples_per_class
    model.eval()
    probs, pixels, discs = [], [], []
    for r in range(N_REPEATS):
        g = torch.Generator(device=device).manual_seed(10_000 * seed + 9_000 + r)
        imgs = _sample(model, p, plain, n, g, device)
        probs.append(clf.probabilities(imgs).reshape(4, n, 2))
        pixels.append(pixel_measure(imgs.numpy()).reshape(4, n, 4))
        discs.append(disc_test(imgs.numpy()).is_disc.reshape(4, n))
    return {"probs": np.stack(probs).astype(np.float32), "pixels": np.stack(pixels).astype(np.float32),
            "disc": np.stack(discs)}
