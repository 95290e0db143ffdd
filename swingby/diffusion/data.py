"""The coloured-circles data-generating process (paper Sec. 5, App. G; seed 003).

An image is a blurred disc of one colour on a light background. Two concepts:
colour (red / blue, separated by ``dc``) and size (big / small, separated by
``ds``). The four classes are named by (colour, size) bits::

    "00" red big    "01" red small    "10" blue big    "11" blue small

Classes 00, 01 and 10 are trained; 11 is held out and is the compositional test.
Every parameter of the authors' generator (see ``book/authors_code.md``) is an argument:

* pixel grid ``linspace(-1, 1, image_size)``; disc ``r < radius`` blurred by a
  Gaussian of ``blur`` *grid units* (default ``2/31``, one pixel at 32x32, so an
  image at another resolution shows the same picture), pixel noise std
  ``pixel_noise``, clipped to [0, 1];
* centre ``x, y ~ U[-position, position]`` (``position = 0.5``);
* background: each channel ``U[bg_low, bg_high]`` = ``U[0.8, 1.0]`` (test: 0.9);
* colour means red ``(0.5+dc/2, 0.5-dc/2, 0.5-dc/2)``, blue
  ``(0.5-dc/2, 0.5-dc/2, 0.5+dc/2)``, jittered per channel by ``U[-dc/8, dc/8]``;
* radius means ``0.45 + ds/2`` (big), ``0.45 - ds/2`` (small), jittered by
  ``U[-3 ds/8, 3 ds/8]``, floored at ``0.1``.

The conditioning vector of an image is its sampled colour (RGB) and radius; test
prompts use the exact class means (:func:`class_prompt`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch

CLASSES = ("00", "01", "10", "11")  #: (colour bit, size bit); colour 1 = blue, size 1 = small
TRAIN_CLASSES = ("00", "01", "10")
#: the over-prompted colours of seed 003 (App. B), all at the small radius
CAPABILITY_COLOURS = ((0.0, 0.0, 1.0), (0.1, 0.1, 0.9), (0.2, 0.2, 0.8), (0.3, 0.3, 0.7), (0.4, 0.4, 0.6))
#: the same idea scaled to each colour separation: blue means at these multiples of dc
CAPABILITY_SCALES = (1.5, 2.0, 3.0)


@dataclass(frozen=True)
class CirclesConfig:
    """Parameters of the data-generating process (defaults: the authors' values,
    except ``image_size``, which each preset chooses)."""

    image_size: int = 32
    dc: float = 0.4  #: colour separation
    ds: float = 0.4  #: size separation
    colour_jitter: float = 1 / 8  #: colour jitter half-width, in units of dc
    size_jitter: float = 3 / 8  #: radius jitter half-width, in units of ds
    min_radius: float = 0.1
    position: float = 0.5
    bg_low: float = 0.8
    bg_high: float = 1.0
    bg_test: float = 0.9
    blur: float = 2 / 31  #: Gaussian blur std in grid units (1 pixel at 32x32)
    pixel_noise: float = 1e-3

    def __post_init__(self):
        validate(self)

    def to_dict(self) -> dict:
        return asdict(self)


def validate(cfg: CirclesConfig) -> None:
    """Raise ``ValueError`` naming the bad field of ``cfg``."""
    if isinstance(cfg.image_size, bool) or not isinstance(cfg.image_size, (int, np.integer)) \
            or cfg.image_size < 8 or cfg.image_size % 4 or cfg.image_size > 256:
        raise ValueError(f"image_size must be an integer >= 8 divisible by 4 (the U-Net halves it "
                         f"twice) and at most 256, got {cfg.image_size!r}")
    for name in ("dc", "ds"):
        v = getattr(cfg, name)
        if not np.isfinite(v) or v < 0 or v > 1:
            raise ValueError(f"{name} (a separation) must be in [0, 1], got {v!r}")
    for name in ("colour_jitter", "size_jitter", "blur", "pixel_noise", "position", "min_radius"):
        v = getattr(cfg, name)
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    if not 0 <= cfg.bg_low <= cfg.bg_high <= 1:
        raise ValueError(f"need 0 <= bg_low <= bg_high <= 1, got {cfg.bg_low}, {cfg.bg_high}")


def _check_class(cls: str) -> tuple[int, int]:
    if cls not in CLASSES:
        raise ValueError(f"class must be one of {list(CLASSES)}, got {cls!r}")
    return int(cls[0]), int(cls[1])


def colour_mean(cfg: CirclesConfig, blue: int) -> np.ndarray:
    """RGB mean of the red (``blue=0``) or blue (``blue=1``) class.

    Parameters
    ----------
    cfg : CirclesConfig
        The data-generating process (sets ``dc``).
    blue : {0, 1}
        The colour bit.

    Returns
    -------
    numpy.ndarray (3,)
    """
    h = cfg.dc / 2
    return np.array([0.5 - h, 0.5 - h, 0.5 + h]) if blue else np.array([0.5 + h, 0.5 - h, 0.5 - h])


def radius_mean(cfg: CirclesConfig, small: int) -> float:
    """Radius mean (grid units) of the big (``small=0``) or small (``small=1``) class.

    Parameters
    ----------
    cfg : CirclesConfig
        The data-generating process (sets ``ds``).
    small : {0, 1}
        The size bit.

    Returns
    -------
    float
    """
    return 0.45 - cfg.ds / 2 if small else 0.45 + cfg.ds / 2


def class_prompt(cfg: CirclesConfig, cls: str) -> np.ndarray:
    """Conditioning vector ``(R, G, B, radius)`` of the class means (the test prompt).

    Parameters
    ----------
    cfg : CirclesConfig
        The data-generating process.
    cls : {"00", "01", "10", "11"}
        The class (colour bit, size bit).

    Returns
    -------
    numpy.ndarray (4,)
    """
    blue, small = _check_class(cls)
    return np.concatenate([colour_mean(cfg, blue), [radius_mean(cfg, small)]]).astype(np.float32)


def capability_prompts(cfg: CirclesConfig) -> tuple[np.ndarray, list[str]]:
    """Prompts that ask for blue-small more strongly than the plain class-11 prompt.

    The five fixed colours of seed 003 (App. B), then the blue mean at ``k * dc`` for
    ``k`` in :data:`CAPABILITY_SCALES` (capped at full blue), all at the small radius.
    Returns ``(prompts (P, 4) float32, labels)``; capability is the best joint accuracy
    of class 11 over these prompts.
    """
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
    """Draw ``n`` sets of image attributes (colour, radius, centre, background) of ``cls``.

    With ``test=True`` colour and radius are the class means and the background is
    ``bg_test`` (the paper's test prompt); the centre is still random.

    Parameters
    ----------
    cfg : CirclesConfig
        The data-generating process.
    cls : {"00", "01", "10", "11"}
        The class (colour bit, size bit).
    n : int
        Images to draw, in [0, 1e8].
    rng : numpy.random.Generator
        Source of the jitter, centres and backgrounds.
    test : bool
        Draw test prompts (class means) instead of training images.

    Returns
    -------
    dict
        Arrays ``colour (n, 3)``, ``radius (n,)``, ``centre (n, 2)``, ``background (n, 3)``.
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or not 0 <= n <= 10 ** 8:
        raise ValueError(f"n must be an integer in [0, 1e8], got {n!r}")
    blue, small = _check_class(cls)
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


def _blur_kernel(cfg: CirclesConfig) -> np.ndarray | None:
    sigma_px = cfg.blur * (cfg.image_size - 1) / 2
    if sigma_px <= 0:
        return None
    half = max(1, int(np.ceil(3 * sigma_px)))
    x = np.arange(-half, half + 1)
    k = np.exp(-0.5 * (x / sigma_px) ** 2)
    return k / k.sum()


def render(cfg: CirclesConfig, attrs: dict, rng: np.random.Generator) -> np.ndarray:
    """Render attributes to images ``(n, 3, H, W)`` float32 in [0, 1] (App. G).

    Parameters
    ----------
    cfg : CirclesConfig
        The data-generating process (image size, blur, pixel noise).
    attrs : dict
        From :func:`sample_attributes`.
    rng : numpy.random.Generator
        Source of the pixel noise.

    Returns
    -------
    numpy.ndarray (n, 3, H, W)
    """
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
    return np.concatenate([attrs["colour"], attrs["radius"][:, None]], axis=1).astype(np.float32)


def make_dataset(cfg: CirclesConfig, n_per_class: int = 2048, *, classes=TRAIN_CLASSES,
                 seed: int = 0) -> dict:
    """The training set of Sec. 5: ``n_per_class`` images of each of ``classes``.

    Returns a dict of tensors: ``images (N, 3, H, W)`` in [0, 1], ``cond (N, 4)``,
    ``labels (N, 2)`` (colour bit, size bit) and the raw ``attrs``.

    Parameters
    ----------
    cfg : CirclesConfig
        The data-generating process.
    n_per_class : int
        Images per class.
    classes : sequence of str
        The classes to draw (default: the three trained ones).
    seed : int
        Seeds the draw.

    Returns
    -------
    dict
    """
    if not isinstance(n_per_class, (int, np.integer)) or isinstance(n_per_class, bool) or n_per_class < 1:
        raise ValueError(f"n_per_class must be a positive integer, got {n_per_class!r}")
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
