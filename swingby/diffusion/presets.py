"""Sweep presets: ``paper`` (the authors' scale, for a GPU) and ``cpu`` (found by
measurement to run on a 2-core CPU; see ``book/diffusion.md`` for what it trades)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace


@dataclass(frozen=True)
class Preset:
    """Everything a sweep needs; stored verbatim in the results file."""

    name: str
    image_size: int
    widths: tuple = (64, 128, 256)
    n_res: int = 2  #: ResNet blocks per U-Net level
    attention: bool = True
    steps: int = 20_000
    batch: int = 128
    lr: float = 1e-3
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    ema: float = 0.0  #: EMA decay of the weights used for sampling (0: no EMA)
    n_per_class: int = 2048  #: training images per trained class
    ds: float = 0.4  #: size separation
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
    threads: int = 0  #: torch threads per process (0: torch's default)

    def to_dict(self) -> dict:
        d = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


PRESETS = {
    "paper": Preset(name="paper", image_size=32),
    "cpu": Preset(
        name="cpu", image_size=16, widths=(16, 32, 64), n_res=1, attention=True,
        steps=1600, batch=48, lr=2e-3, ema=0.99,
        separations=(0.137, 0.32, 0.505, 0.689), seeds=(0, 1, 2),
        n_checkpoints=20, sample_steps=25, samples_per_class=32, n_thumbs=4,
        classifier_steps=3000, workers=3, threads=1,
    ),
    "tiny": Preset(  # the end-to-end smoke test of the chapter's quick mode and of the tests
        name="tiny", image_size=8, widths=(8, 8, 8), n_res=1, attention=False,
        steps=30, batch=16, lr=2e-3, ema=0.0, n_per_class=64,
        separations=(0.2, 0.6), seeds=(0,), n_checkpoints=3, sample_steps=4,
        samples_per_class=4, n_thumbs=2, n_loss_records=5, classifier_steps=40,
        classifier_width=8, workers=1, threads=1,
    ),
}


def get_preset(name: str, **overrides) -> Preset:
    """The preset called ``name`` (``paper``, ``cpu`` or ``tiny``), with optional overrides."""
    if name not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {name!r}")
    p = PRESETS[name]
    if overrides:
        p = replace(p, **{k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items()})
    validate_preset(p)
    return p


def validate_preset(p: Preset) -> None:
    """Raise ``ValueError`` naming the first bad field of ``p``."""
    if p.image_size < 8 or p.image_size % 4:
        raise ValueError(f"image_size must be >= 8 and divisible by 4, got {p.image_size!r}")
    if not p.separations or any(not 0 <= s <= 1 for s in p.separations):
        raise ValueError(f"separations must be colour separations in [0, 1], got {p.separations!r}")
    if not p.seeds or any(int(s) != s or s < 0 for s in p.seeds):
        raise ValueError(f"seeds must be non-negative integers, got {p.seeds!r}")
    for k in ("steps", "batch", "n_checkpoints", "sample_steps", "samples_per_class", "workers",
              "n_per_class", "classifier_steps"):
        if getattr(p, k) < 1:
            raise ValueError(f"{k} must be a positive integer, got {getattr(p, k)!r}")
    if not 0 <= p.ema < 1:
        raise ValueError(f"ema must be in [0, 1), got {p.ema!r}")
