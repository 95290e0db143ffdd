"""The concept classifier (paper Sec. 5): a small CNN that reads an image's concept-space
coordinates ``(P(blue), P(small))`` off its pixels. A measuring instrument, not the model
under test, it is trained on all four classes at separations drawn from the sweep's range.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from swingby import _checks
from swingby.diffusion.data import CLASSES, CirclesConfig, render, sample_attributes

__all__ = ["ConceptClassifier", "accuracy_by_class"]


def _images(images, batch: int | None = None) -> torch.Tensor:
    """``images`` as a float32 tensor ``(n, 3, H, W)`` in [0, 1], else a ``ValueError``."""
    if isinstance(images, np.ndarray):
        images = torch.from_numpy(images)
    if not isinstance(images, torch.Tensor) or images.ndim != 4 or images.shape[1] != 3 \
            or images.shape[0] == 0 or min(images.shape[2:]) < 4 or not images.is_floating_point():
        raise ValueError("images must be a float tensor (n, 3, H, W) with n >= 1 and H, W >= 4, got "
                         f"{tuple(images.shape) if hasattr(images, 'shape') else type(images).__name__}")
    lo, hi = float(images.min()), float(images.max())
    if not (0.0 <= lo and hi <= 1.0):  # NaN fails too
        raise ValueError(f"images must hold finite pixel values in [0, 1], got values from {lo:.4g} to {hi:.4g}")
    return images.float()


def _config(cfg) -> CirclesConfig:
    """``cfg`` if it is a CirclesConfig."""
    return _checks.instance("cfg", cfg, CirclesConfig, "swingby.diffusion.data.CirclesConfig")


def _separations(dcs) -> list[float]:
    """``dcs`` as a list of separations in [0, 1]."""
    arr = _checks.array("dcs", dcs, ndim=1)
    if np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"dcs must hold colour separations in [0, 1], got {list(dcs)}")
    return arr.tolist()


def _image_memory(n: int, cfg: CirclesConfig, what: str) -> None:
    """Refuse ``n`` images that would not fit in memory."""
    _checks.memory(3 * 8.0 * 3 * n * cfg.image_size**2, f"{what} of {cfg.image_size}x{cfg.image_size} images")


class ConceptClassifier(nn.Module):
    """Conv-GELU stages with pooling, then global average *and* max pooling (a small disc's colour
    is a local signal that an average alone dilutes) and two logits, (blue, small)."""

    def __init__(self, width: int = 16):
        super().__init__()
        w = _checks.positive_int("width", width)
        _checks.memory(4.0 * 64 * w * w, f"width = {w}")
        self.body = nn.Sequential(
            nn.Conv2d(3, w, 3, padding=1), nn.GELU(), nn.Conv2d(w, w, 3, padding=1), nn.GELU(),
            nn.AvgPool2d(2),
            nn.Conv2d(w, 2 * w, 3, padding=1), nn.GELU(), nn.AvgPool2d(2),
            nn.Conv2d(2 * w, 2 * w, 3, padding=1), nn.GELU(),
        )
        self.head = nn.Linear(4 * w, 2)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Logits ``(n, 2)``: (blue, small) for images ``(n, 3, H, W)`` in [0, 1]."""
        h = self.body(_images(images) * 2 - 1)
        return self.head(torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=1))

    @torch.no_grad()
    def probabilities(self, images: torch.Tensor, batch: int = 512) -> np.ndarray:
        """The concept-space coordinates ``(n, 2)``, ``(P(blue), P(small))``, of images.

        Parameters
        ----------
        images : torch.Tensor (n, 3, H, W)
            Images in [0, 1].
        batch : int
            Images per forward pass.
        """
        images = _images(images)
        batch = _checks.positive_int("batch", batch)
        self.eval()
        out = [torch.sigmoid(self(images[i:i + batch])) for i in range(0, len(images), batch)]
        return torch.cat(out).numpy().astype(np.float64)


def labelled_batch(cfg: CirclesConfig, n: int, rng: np.random.Generator,
                   dcs: Sequence[float] | None = None, test_fraction: float = 0.25):
    """``n`` images of all four classes at separations ``dcs`` (some as test prompts), and their labels."""
    cfg = _config(cfg)
    n = _checks.positive_int("n", n)
    _image_memory(n, cfg, f"n = {n}")
    _checks.instance("rng", rng, np.random.Generator, "numpy.random.Generator")
    dcs = [cfg.dc] if dcs is None else _separations(dcs)
    test_fraction = _checks.number("test_fraction", test_fraction, low=0, high=1)
    imgs, labels = [], []
    cls_idx = rng.integers(0, 4, size=n)
    dc_idx = rng.integers(0, len(dcs), size=n)
    test = rng.random(n) < test_fraction
    for k, cls in enumerate(CLASSES):
        for j, dc in enumerate(dcs):
            for is_test in (False, True):
                sel = (cls_idx == k) & (dc_idx == j) & (test == is_test)
                m = int(sel.sum())
                if m == 0:
                    continue
                c = replace(cfg, dc=float(dc))
                imgs.append(render(c, sample_attributes(c, cls, m, rng, test=is_test), rng))
                labels.append(np.tile([int(cls[0]), int(cls[1])], (m, 1)))
    perm = rng.permutation(n)
    return (torch.from_numpy(np.concatenate(imgs)[perm]), torch.from_numpy(np.concatenate(labels)[perm]).float())


def train_classifier(cfg: CirclesConfig, dcs: Sequence[float], *, steps: int = 600, batch: int = 128,
                     lr: float = 3e-3, width: int = 16, seed: int = 0, progress: bool = False
                     ) -> ConceptClassifier:
    """A :class:`ConceptClassifier` trained on fresh batches at ``dcs`` (AdamW, one-cycle schedule)."""
    cfg, dcs = _config(cfg), _separations(dcs)
    steps, batch = _checks.positive_int("steps", steps), _checks.positive_int("batch", batch)
    lr, seed = _checks.positive_float("lr", lr), _checks.seed("seed", seed)
    progress = _checks.flag("progress", progress)
    _image_memory(batch, cfg, f"batch = {batch}")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    clf = ConceptClassifier(width)
    opt = torch.optim.AdamW(clf.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=int(steps))
    clf.train()
    for step in tqdm(range(1, steps + 1), desc="classifier", disable=not progress):
        x, y = labelled_batch(cfg, batch, rng, dcs)
        loss = F.binary_cross_entropy_with_logits(clf(x), y)
        if not math.isfinite(loss.item()):
            raise ValueError(f"train_classifier diverged: the loss became {loss.item()} at step {step} "
                             f"with lr = {lr}; use a smaller lr")
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return clf.eval()


def accuracy_by_class(clf: ConceptClassifier, cfg: CirclesConfig, dcs: Sequence[float],
                      n_per_class: int = 500, seed: int = 12345) -> dict:
    """``{(dc, class): accuracy}`` of both concepts jointly, on fresh images (half as test prompts).

    Parameters
    ----------
    clf : ConceptClassifier
    cfg : CirclesConfig
    dcs : sequence of float
        Colour separations.
    n_per_class : int
        Images per class and separation.
    seed : int
    """
    _checks.instance("clf", clf, ConceptClassifier, "ConceptClassifier")
    cfg, dcs = _config(cfg), _separations(dcs)
    n_per_class = _checks.positive_int("n_per_class", n_per_class)
    _image_memory(2 * n_per_class, cfg, f"n_per_class = {n_per_class}")
    rng = np.random.default_rng(_checks.seed("seed", seed))
    acc = {}
    for dc in dcs:
        c = replace(cfg, dc=float(dc))
        for cls in CLASSES:
            a = sample_attributes(c, cls, n_per_class, rng)
            x = np.concatenate([render(c, a, rng),
                                render(c, sample_attributes(c, cls, n_per_class, rng, test=True), rng)])
            p = clf.probabilities(torch.from_numpy(x))
            want = np.array([int(cls[0]), int(cls[1])])
            acc[(float(dc), cls)] = float(np.mean(np.all((p > 0.5) == want, axis=1)))
    return acc
