"""Sweep presets: ``paper`` (the authors' scale, for a GPU), ``cpu`` (found by measured
searches to run on a 2-core CPU, ``book/diffusion_cpu.md``) and ``tiny`` (a smoke test)."""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

from swingby.diffusion.vdm import DETAILS

__all__ = ["AUTHORS_DETAILS", "PRESETS", "Preset", "get_preset"]

BLOCKS = ("shared", "authors")  #: the block styles of ``swingby.diffusion.unet.CondUNet``
SEEDINGS = ("shared", "per_run")  #: ``run_seed``: every separation of a seed alike, or each run its own
#: the model details of the authors' code, as preset fields (see ``book/authors_code.md``)
AUTHORS_DETAILS = dict(block="authors", dropout=0.1, residual=True, parameterization="eps",
                       decoder="gaussian", data_range="01", sampler="z0", grad_clip=0.01)


@dataclass(frozen=True)
class Preset:
    """Everything a sweep needs; stored verbatim in the results file (``to_dict``)."""

    name: str
    image_size: int
    widths: tuple = (64, 128, 256)
    n_res: int = 2  #: ResNet blocks per U-Net level
    attention: bool = True
    block: str = "shared"  #: U-Net block style: "shared" (the book's first) or "authors"
    dropout: float = 0.0  #: dropout in every ResNet block (authors: 0.1)
    residual: bool = False  #: network output h + z (authors: yes)
    parameterization: str = "v"  #: "v" or "eps" (authors)
    decoder: str = "discrete"  #: "discrete" (256 bins) or "gaussian" (authors, data noise 1e-3)
    data_range: str = "pm1"  #: data in [-1, 1] ("pm1") or [0, 1] ("01", authors)
    sampler: str = "clamp_xhat"  #: "clamp_xhat" or "z0" (authors: no clamping, returns z_0)
    steps: int = 20_000
    batch: int = 128
    lr: float = 1e-3
    weight_decay: float = 0.01
    grad_clip: float = 1.0  #: gradient-norm clipping (0: none; authors: 0.01)
    ema: float = 0.0  #: EMA decay of the weights used for sampling (0: no EMA)
    bf16: bool = False  #: bfloat16 autocast for the network (CPU with AVX512-BF16, or GPU)
    n_per_class: int = 2048  #: training images per trained class
    ds: float = 0.4  #: size separation
    position: float = 0.5  #: disc centres uniform in [-position, position] (0: always centred)
    separations: tuple = (0.137, 0.247, 0.358, 0.468, 0.579, 0.689)  #: colour separations dc
    seeds: tuple = (0, 1, 2, 3, 4)
    n_checkpoints: int = 60  #: evaluations, evenly spaced in sqrt(step)
    sample_steps: int = 100  #: ancestral sampling steps
    samples_per_class: int = 32
    n_thumbs: int = 4  #: sample images per class kept in the results file
    n_loss_records: int = 100  #: training-loss averages stored
    classifier_steps: int = 1500
    classifier_width: int = 16
    workers: int = 1  #: parallel training processes
    threads: int = 1  #: torch threads per process (fixed, so that numbers do not depend on the machine)
    seeding: str = "shared"  #: "shared" or "per_run" (``SEEDINGS``, ``run_seed``)
    #: every U-Net weight matrix and kernel times this at initialisation (the open questions' Q1)
    init_scale: float = 1.0

    def __post_init__(self):
        for k in ("widths", "separations", "seeds"):  # a list is stored as a tuple, as get_preset does
            if isinstance(getattr(self, k), list):
                object.__setattr__(self, k, tuple(getattr(self, k)))
        validate_preset(self)

    def to_dict(self) -> dict:
        """JSON-ready dict; ``seeding`` and ``init_scale`` only off their defaults (stored configs stay unchanged)."""
        d = asdict(self)
        if d["seeding"] == "shared":
            del d["seeding"]
        if d["init_scale"] == 1.0:
            del d["init_scale"]
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


_CHOICES = {"block": BLOCKS, "seeding": SEEDINGS, **DETAILS}
_POSITIVE_INTS = ("image_size", "steps", "batch", "n_checkpoints", "sample_steps", "samples_per_class",
                  "workers", "n_per_class", "classifier_steps", "classifier_width", "n_res",
                  "n_loss_records", "threads")

#: upper bounds of the integer fields: beyond them a sweep would not end or not fit in memory
_UPPER = {"steps": 10 ** 7, "batch": 2 ** 14, "sample_steps": 100_000, "samples_per_class": 2 ** 14,
          "n_checkpoints": 10 ** 4, "workers": 256, "threads": 1024, "classifier_steps": 10 ** 7,
          "classifier_width": 1024, "n_res": 16, "n_loss_records": 10 ** 6}


def run_seed(p: Preset, dc: float, seed: int) -> int:
    """Run ``(dc, seed)``'s seed: ``seed`` (``"shared"``), or drawn from both by ``SeedSequence`` (``"per_run"``)."""
    validate_preset(p)
    if not _is_real(dc) or not 0 <= dc <= 1:
        raise ValueError(f"dc must be a colour separation in [0, 1], got {dc!r}")
    if not _is_int(seed) or not 0 <= seed < 2 ** 31:
        raise ValueError(f"seed must be an integer in [0, 2**31), got {seed!r}")
    if p.seeding == "shared":
        return seed
    state = np.random.SeedSequence([seed, int(round(dc * 1_000_000))]).generate_state(1, dtype=np.uint32)
    return int(state[0] % 2 ** 31)


def get_preset(name: str, **overrides) -> Preset:
    """The preset called ``name``, every field checked.

    Parameters
    ----------
    name : {"paper", "cpu", "tiny"}
    **overrides
        Fields of :class:`Preset` to change (a list is stored as a tuple).
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(f"name: the preset must be one of {sorted(PRESETS)}, got {name!r}")
    names = {f.name for f in fields(Preset)}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise ValueError(f"unknown preset field(s) {unknown}; the fields are {sorted(names)}")
    p = PRESETS[name]
    if overrides:
        p = replace(p, **{k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items()})
    validate_preset(p)
    return p


def _is_int(v) -> bool:
    """Whether ``v`` is an int (not a bool)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _is_real(v) -> bool:
    """Whether ``v`` is a finite real number (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def validate_preset(p: Preset) -> None:
    """Raise ``ValueError`` naming the first bad field of preset ``p``."""
    if not isinstance(p, Preset):
        raise TypeError(f"p must be a swingby.diffusion.presets.Preset (see get_preset), got {p!r}"[:200])
    if not isinstance(p.name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", p.name):
        raise ValueError(f"name must be 1 to 64 letters, digits, '_', '.' or '-' (it names files), got {p.name!r}")
    for k in _POSITIVE_INTS:
        if not _is_int(getattr(p, k)) or not 1 <= getattr(p, k) <= _UPPER.get(k, 2 ** 31):
            raise ValueError(f"{k} must be an integer in [1, {_UPPER.get(k, 2 ** 31)}], got {getattr(p, k)!r}")
    if p.image_size < 8 or p.image_size % 4:
        raise ValueError(f"image_size must be >= 8 and divisible by 4, got {p.image_size!r}")
    if p.image_size > 128:
        raise ValueError(f"image_size above 128 does not fit this package's U-Net budget, got {p.image_size}")
    if not isinstance(p.widths, tuple) or len(p.widths) != 3 or not all(_is_int(w) and w >= 1 for w in p.widths):
        raise ValueError(f"widths must be three positive integers, got {p.widths!r}")
    for k, allowed in _CHOICES.items():
        if not isinstance(getattr(p, k), str) or getattr(p, k) not in allowed:
            raise ValueError(f"{k} must be one of {allowed}, got {getattr(p, k)!r}")
    for k in ("attention", "residual", "bf16"):
        if not isinstance(getattr(p, k), bool):
            raise ValueError(f"{k} must be True or False, got {getattr(p, k)!r}")
    for k, lo, hi in (("lr", 0, 1), ("weight_decay", 0, 1), ("grad_clip", 0, 1e6), ("dropout", 0, 0.99),
                      ("ema", 0, 0.999999), ("ds", 0, 1), ("position", 0, 0.9), ("init_scale", 0, 100)):
        v = getattr(p, k)
        if not _is_real(v) or not lo <= v <= hi or (k in ("lr", "init_scale") and v == 0):
            positive = " and > 0" if k in ("lr", "init_scale") else ""
            raise ValueError(f"{k} must be a finite number in [{lo}, {hi}]{positive}, got {v!r}")
    if not isinstance(p.separations, tuple) or not p.separations \
            or not all(_is_real(s) and 0 <= s <= 1 for s in p.separations):
        raise ValueError(f"separations must be colour separations in [0, 1], got {p.separations!r}")
    if len(set(p.separations)) != len(p.separations):
        raise ValueError(f"separations must not repeat, got {p.separations!r}")
    if not isinstance(p.seeds, tuple) or not p.seeds or not all(_is_int(s) and 0 <= s < 2 ** 31 for s in p.seeds):
        raise ValueError(f"seeds must be integers in [0, 2**31), got {p.seeds!r}")
    if len(set(p.seeds)) != len(p.seeds):
        raise ValueError(f"seeds must not repeat (a repeated seed is the same run), got {p.seeds!r}")
    if p.n_checkpoints < 2:
        raise ValueError(f"n_checkpoints must be >= 2, got {p.n_checkpoints!r}")
    if not _is_int(p.n_thumbs) or p.n_thumbs < 0 or p.n_thumbs > p.samples_per_class:
        raise ValueError(f"n_thumbs must be an integer in [0, samples_per_class={p.samples_per_class}], "
                         f"got {p.n_thumbs!r}")
    if p.n_loss_records > p.steps:
        raise ValueError(f"n_loss_records must be <= steps={p.steps}, got {p.n_loss_records!r}")
    if max(p.widths) > 1024:
        raise ValueError(f"widths above 1024 do not fit this package's U-Net budget, got widths={p.widths}")
    if p.n_per_class * 3 * 3 * p.image_size ** 2 * 4 > 8e9:
        raise ValueError(f"n_per_class={p.n_per_class} at image_size={p.image_size} needs more than 8 GB "
                         "for the training set; use fewer images")


PRESETS = {
    "paper": Preset(name="paper", image_size=32, **AUTHORS_DETAILS, batch=64),
    # the confirmatory sweep of the 4800-step search's choice (long_search.sweep_preset; a test keeps them equal)
    "cpu": Preset(
        name="cpu", image_size=16, widths=(16, 32, 64), n_res=1, attention=True, position=0.1,
        steps=4800, batch=48, lr=2e-3, ema=0.99, bf16=True,
        separations=(0.175, 0.247, 0.468, 0.689), seeds=tuple(range(1000, 1008)),
        n_checkpoints=64, sample_steps=25, samples_per_class=32, n_thumbs=4,
        classifier_steps=3000, workers=2, threads=1, seeding="per_run",
    ),
    "tiny": Preset(  # the end-to-end smoke test of the chapter and of the tests
        name="tiny", image_size=8, widths=(8, 8, 8), n_res=1, attention=False,
        steps=30, batch=16, lr=2e-3, ema=0.0, n_per_class=64,
        separations=(0.2, 0.6), seeds=(0,), n_checkpoints=3, sample_steps=4,
        samples_per_class=4, n_thumbs=2, n_loss_records=5, classifier_steps=40,
        classifier_width=8, workers=1, threads=1,
    ),
}
