"""The coloured-circles data-generating process (paper Sec. 5, App. G; ``book/authors_code.md``):
a blurred disc on a light background. Colour (red / blue, means ``0.5 +- dc/2``) and size (big /
small, radius means ``0.45 +- ds/2``) name four classes by their bits: ``00`` red big, ``01`` red
small, ``10`` blue big, ``11`` blue small (held out: the compositional test). ``cfg`` is always
a :class:`CirclesConfig`, whose fields are the generator's.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch

from swingby import _checks
from swingby.diffusion import _inputs

__all__ = ["CLASSES", "CirclesConfig", "make_dataset", "radius_mean", "render", "sample_attributes"]

CLASSES = ("00", "01", "10", "11")  #: (colour bit, size bit); colour 1 = blue, size 1 = small
TRAIN_CLASSES = ("00", "01", "10")
#: the over-prompted colours of seed 003 (App. B), all at the small radius
CAPABILITY_COLOURS = ((0.0, 0.0, 1.0), (0.1, 0.1, 0.9), (0.2, 0.2, 0.8), (0.3, 0.3, 0.7), (0.4, 0.4, 0.6))
CAPABILITY_SCALES = (1.5, 2.0, 3.0)  #: the same scaled to each separation: blue means at these multiples of dc


@dataclass(frozen=True)
class CirclesConfig:
    """The generator's parameters (defaults: the authors', but ``image_size``, which each preset sets)."""

    image_size: int = 32
    dc: float = 0.4  #: colour separation
    ds: float = 0.4  #: size separation
    colour_jitter: float = 1 / 8  #: colour jitter half-width, in units of dc
    size_jitter: float = 3 / 8  #: radius jitter half-width, in units of ds
    min_radius: float = 0.1  #: floor of the jittered radius
    position: float = 0.5  #: disc centres uniform in [-position, position] (the grid is [-1, 1])
    bg_low: float = 0.8  #: background channels uniform in [bg_low, bg_high]
    bg_high: float = 1.0
    bg_test: float = 0.9  #: background of a test image
    blur: float = 2 / 31  #: Gaussian blur std in grid units (1 pixel at 32x32)
    pixel_noise: float = 1e-3  #: std of the pixel noise (then clipped to [0, 1])

    def __post_init__(self):
        validate(self)

    def to_dict(self) -> dict:
        """The fields as a dict."""
        return asdict(self)


#: allowed range of each real field of :class:`CirclesConfig` (a jitter of half the separation
#: makes the two colours or sizes overlap; a blur of a whole grid unit blurs the disc away)
FIELD_RANGES = {"dc": (0.0, 1.0), "ds": (0.0, 1.0), "colour_jitter": (0.0, 0.5), "size_jitter": (0.0, 0.5),
                "min_radius": (0.0, 1.0), "position": (0.0, 1.0), "bg_low": (0.0, 1.0), "bg_high": (0.0, 1.0),
                "bg_test": (0.0, 1.0), "blur": (0.0, 1.0), "pixel_noise": (0.0, 1.0)}


def validate(cfg: CirclesConfig) -> None:
    """Raise ``ValueError`` naming the bad field of ``cfg``."""
    _inputs.instance("cfg", cfg, CirclesConfig, "swingby.diffusion.data.CirclesConfig")
    if not _checks.is_integer(cfg.image_size) or cfg.image_size < 8 or cfg.image_size % 4 \
            or cfg.image_size > 256:
        raise ValueError(f"image_size must be an integer >= 8 divisible by 4 (the U-Net halves it "
                         f"twice) and at most 256, got {cfg.image_size!r}")
    for name, (lo, hi) in FIELD_RANGES.items():
        _checks.number(name, getattr(cfg, name), low=lo, high=hi)
    if cfg.dc * (0.5 + cfg.colour_jitter) > 0.5:
        raise ValueError(f"dc={cfg.dc} with colour_jitter={cfg.colour_jitter} puts jittered colours outside "
                         "[0, 1] (the colour means are 0.5 +- dc/2, jittered by +- colour_jitter * dc); "
                         "need dc * (0.5 + colour_jitter) <= 0.5")
    if not cfg.bg_low <= cfg.bg_high:
        raise ValueError(f"need bg_low <= bg_high, got bg_low={cfg.bg_low}, bg_high={cfg.bg_high}")


def _check_class(cls: str) -> tuple[int, int]:
    """The (colour, size) bits of class ``cls``."""
    if not isinstance(cls, str) or cls not in CLASSES:
        raise ValueError(f"cls: the class must be one of {list(CLASSES)}, got {cls!r}")
    return int(cls[0]), int(cls[1])


def colour_mean(cfg: CirclesConfig, blue: int) -> np.ndarray:
    """RGB mean ``(3,)`` of the red (``blue=0``) or blue (``blue=1``) class."""
    validate(cfg)
    blue = _checks.integer("blue", blue, low=0, high=1)
    h = cfg.dc / 2
    return np.array([0.5 - h, 0.5 - h, 0.5 + h]) if blue else np.array([0.5 + h, 0.5 - h, 0.5 - h])


def radius_mean(cfg: CirclesConfig, small: int) -> float:
    """Radius mean (grid units) of the big or small class.

    Parameters
    ----------
    cfg : CirclesConfig
    small : {0, 1}
        The size bit.
    """
    validate(cfg)
    _checks.integer("small", small, low=0, high=1)
    return 0.45 - cfg.ds / 2 if small else 0.45 + cfg.ds / 2


def class_prompt(cfg: CirclesConfig, cls: str) -> np.ndarray:
    """The test prompt of class ``cls``: the conditioning vector ``(R, G, B, radius)`` of its means."""
    blue, small = _check_class(cls)
    return np.concatenate([colour_mean(cfg, blue), [radius_mean(cfg, small)]]).astype(np.float32)


def capability_prompts(cfg: CirclesConfig) -> tuple[np.ndarray, list[str]]:
    """``(prompts (P, 4), labels)`` asking for blue-small more strongly than class 11's prompt (App. B)."""
    validate(cfg)
    r = radius_mean(cfg, 1)
    cols = [np.array(c) for c in CAPABILITY_COLOURS]
    labels = [f"({c[0]:.1f}, {c[1]:.1f}, {c[2]:.1f})" for c in CAPABILITY_COLOURS]
    for k in CAPABILITY_SCALES:
        h = min(k * cfg.dc, 1.0) / 2
        cols.append(np.array([0.5 - h, 0.5 - h, 0.5 + h]))
        labels.append(f"{k:g} dc")
    prompts = np.array([np.concatenate([c, [r]]) for c in cols], dtype=np.float32)
    return prompts, labels


def sample_attributes(cfg: CirclesConfig, cls: str, n: int, rng: np.random.Generator,
                      *, test: bool = False) -> dict:
    """Attributes of ``n`` images of class ``cls``: ``colour (n, 3)``, ``radius``, ``centre (n, 2)``, ``background``.

    Parameters
    ----------
    cfg : CirclesConfig
    cls : {"00", "01", "10", "11"}
    n : int
    rng : numpy.random.Generator
    test : bool
        Test images: the class means and background ``bg_test`` (the centre is still random).
    """
    validate(cfg)
    n = _checks.integer("n", n, low=0, high=10 ** 8)
    blue, small = _check_class(cls)
    _inputs.generator("rng", rng, np.random.Generator)
    test = _checks.flag("test", test)
    if test:
        colour = np.tile(colour_mean(cfg, blue), (n, 1))
        radius = np.full(n, radius_mean(cfg, small))
        bg = np.full((n, 3), cfg.bg_test)
    else:
        cj, sj = cfg.colour_jitter * cfg.dc, cfg.size_jitter * cfg.ds
        colour = colour_mean(cfg, blue) + rng.uniform(-cj, cj, size=(n, 3))
        radius = np.maximum(radius_mean(cfg, small) + rng.uniform(-sj, sj, size=n), cfg.min_radius)
        bg = rng.uniform(cfg.bg_low, cfg.bg_high, size=(n, 3))
    centre = rng.uniform(-cfg.position, cfg.position, size=(n, 2))
    return {"colour": colour, "radius": radius, "centre": centre, "background": bg}


#: the arrays of an attribute dict: (columns or None for a vector, allowed range)
ATTRS = {"colour": (3, (0.0, 1.0)), "radius": (None, (0.0, 3.0)), "centre": (2, (-1.0, 1.0)),
         "background": (3, (0.0, 1.0))}


def check_attrs(attrs, keys=tuple(ATTRS)) -> dict:
    """``attrs`` with its arrays ``keys`` as float arrays of one length, each in its range of ``ATTRS``."""
    if not isinstance(attrs, dict):
        raise TypeError(f"attrs must be a dict of arrays {list(keys)} (from sample_attributes), "
                        f"got {_checks.short_repr(attrs)}")
    missing = [k for k in keys if k not in attrs]
    if missing:
        raise ValueError(f"attrs lacks {missing}; it needs {list(keys)} (from sample_attributes)")
    out, n = {}, None
    for k in keys:
        cols, (lo, hi) = ATTRS[k]
        a = _checks.array(f"attrs[{k!r}]", attrs[k], shape=(None,) if cols is None else (None, cols), min_size=0)
        if a.size and (a.min() < lo or a.max() > hi):
            raise ValueError(f"attrs[{k!r}] must lie in [{lo}, {hi}], got values from {a.min():.4g} to "
                             f"{a.max():.4g}")
        if n is not None and len(a) != n:
            raise ValueError(f"attrs[{k!r}] has {len(a)} rows but attrs[{keys[0]!r}] has {n}: one per image")
        out[k], n = a, len(a)
    return out


def _blur_kernel(cfg: CirclesConfig) -> np.ndarray | None:
    """The 1-D Gaussian kernel of the blur (None for no blur)."""
    sigma_px = cfg.blur * (cfg.image_size - 1) / 2
    if sigma_px <= 0:
        return None
    half = max(1, int(np.ceil(3 * sigma_px)))
    x = np.arange(-half, half + 1)
    k = np.exp(-0.5 * (x / sigma_px) ** 2)
    return k / k.sum()


def render(cfg: CirclesConfig, attrs: dict, rng: np.random.Generator) -> np.ndarray:
    """Images ``(n, 3, H, W)``, float32 in [0, 1], of the attributes ``attrs`` (App. G).

    Parameters
    ----------
    cfg : CirclesConfig
    attrs : dict
        From :func:`sample_attributes`.
    rng : numpy.random.Generator
        Draws the pixel noise.
    """
    validate(cfg)
    attrs = check_attrs(attrs)
    _inputs.generator("rng", rng, np.random.Generator)
    _checks.memory(8.0 * 3 * 3 * len(attrs["radius"]) * cfg.image_size ** 2,
                   f"{len(attrs['radius'])} images of {cfg.image_size}x{cfg.image_size}")
    g = np.linspace(-1, 1, cfg.image_size)
    X, Y = np.meshgrid(g, g, indexing="xy")
    cx, cy = attrs["centre"][:, 0, None, None], attrs["centre"][:, 1, None, None]
    mask = (np.hypot(X - cx, Y - cy) < attrs["radius"][:, None, None]).astype(np.float64)
    k = _blur_kernel(cfg)
    if k is not None:  # separable Gaussian blur with edge padding
        h = len(k) // 2
        m = np.pad(mask, ((0, 0), (h, h), (0, 0)), mode="edge")
        mask = sum(k[i] * m[:, i:i + cfg.image_size] for i in range(len(k)))
        m = np.pad(mask, ((0, 0), (0, 0), (h, h)), mode="edge")
        mask = sum(k[i] * m[:, :, i:i + cfg.image_size] for i in range(len(k)))
    fg, bg = attrs["colour"][:, :, None, None], attrs["background"][:, :, None, None]
    img = bg + (fg - bg) * mask[:, None]
    img = img + cfg.pixel_noise * rng.standard_normal(img.shape)
    return np.clip(img, 0, 1).astype(np.float32)


def conditioning(attrs: dict) -> np.ndarray:
    """Conditioning vectors ``(n, 4)``: the sampled RGB colour and radius of each image."""
    attrs = check_attrs(attrs, ("colour", "radius"))
    return np.concatenate([attrs["colour"], attrs["radius"][:, None]], axis=1).astype(np.float32)


def make_dataset(cfg: CirclesConfig, n_per_class: int = 2048, *, classes=TRAIN_CLASSES,
                 seed: int = 0) -> dict:
    """The training set of Sec. 5: tensors ``images (N, 3, H, W)`` in [0, 1], ``cond (N, 4)``,
    ``labels (N, 2)`` (colour bit, size bit), and ``attrs`` (each image's radius and colour).

    Parameters
    ----------
    cfg : CirclesConfig
    n_per_class : int
    classes : sequence of str
        Default: the three trained ones.
    seed : int
    """
    validate(cfg)
    n_per_class = _checks.positive_int("n_per_class", n_per_class)
    if isinstance(classes, str) or not isinstance(classes, (tuple, list)) or not classes \
            or not all(isinstance(c, str) and c in CLASSES for c in classes) or len(set(classes)) != len(classes):
        raise ValueError(f"classes must be a non-empty list of distinct classes from {list(CLASSES)}, "
                         f"got {classes!r}")
    seed = _checks.seed("seed", seed)
    need = 8 * 3 * cfg.image_size ** 2 * int(n_per_class) * len(classes)  # float64 while rendering
    if need > 8e9:
        raise ValueError(f"n_per_class={n_per_class} at image_size={cfg.image_size} needs about "
                         f"{need / 1e9:.0f} GB to render; use fewer images")
    rng = np.random.default_rng(seed)
    imgs, conds, labels, radii, colours = [], [], [], [], []
    for cls in classes:
        blue, small = _check_class(cls)
        a = sample_attributes(cfg, cls, int(n_per_class), rng)
        imgs.append(render(cfg, a, rng))
        conds.append(conditioning(a))
        labels.append(np.tile([blue, small], (int(n_per_class), 1)))
        radii.append(a["radius"])
        colours.append(a["colour"])
    return {
        "images": torch.from_numpy(np.concatenate(imgs)),
        "cond": torch.from_numpy(np.concatenate(conds)),
        "labels": torch.from_numpy(np.concatenate(labels)).long(),
        "attrs": {"radius": np.concatenate(radii), "colour": np.concatenate(colours)},
    }
