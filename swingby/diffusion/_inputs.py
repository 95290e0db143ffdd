"""Input checks of the diffusion code that need torch (the generic ones: ``swingby._checks``);
a bad input is a ``ValueError`` (``TypeError`` for a wrong type) naming the argument."""
from __future__ import annotations

import numpy as np
import torch

from swingby import _checks

__all__ = []


def tensor(name: str, value, *, ndim: int | None = None, dtypes=None, min_len: int = 0,
           low: float | None = None, high: float | None = None, finite: bool = True):
    """``value`` if it is a float tensor of ``dtypes``, ``ndim``, ``min_len`` rows, in ``[low, high]``, ``finite``."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if dtypes is not None and value.dtype not in dtypes:
        want = " or ".join(str(d) for d in dtypes)
        raise TypeError(f"{name} must have dtype {want}, got {value.dtype} (convert it yourself: "
                        "nothing is cast or rescaled silently)")
    if dtypes is None and not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {tuple(value.shape)}")
    if value.ndim and value.shape[0] < min_len:
        raise ValueError(f"{name} must hold at least {min_len} entries along its first axis, "
                         f"got shape {tuple(value.shape)}")
    if value.numel() == 0:
        return value
    if finite and not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} must contain only finite numbers, but it holds NaN or inf")
    if low is not None or high is not None:
        lo, hi = float(value.min()), float(value.max())
        if (low is not None and lo < low) or (high is not None and hi > high):
            raise ValueError(f"{name} must lie in [{low}, {high}], got values from {lo:.4g} to {hi:.4g}"
                             " (nothing is rescaled: convert it yourself)")
    return value


def images(name: str, value, *, n: int | None = None, low: float = 0.0, high: float = 1.0,
           dtypes=(torch.float32,)) -> torch.Tensor:
    """``value`` if it is ``n`` finite RGB images ``(n, 3, H, H)`` in ``[low, high]``, ``H >= 8`` divisible by 4."""
    t = tensor(name, value, dtypes=dtypes, finite=False)
    if t.ndim != 4 or t.shape[0] < 1 or t.shape[1] != 3 or t.shape[2] != t.shape[3] or t.shape[2] < 8 \
            or t.shape[2] % 4:
        raise ValueError(f"{name} must be a batch (n, 3, H, H) of RGB images with H >= 8 divisible by 4 "
                         f"(the U-Net halves H twice), got shape {tuple(t.shape)}")
    if n is not None and t.shape[0] != n:
        raise ValueError(f"{name} must hold {n} images, got {t.shape[0]}")
    return tensor(name, t, low=low, high=high)


def batch_cond(name: str, value, n: int | None = None, dim: int | None = None) -> torch.Tensor:
    """``value`` if it is a float32 batch ``(n, dim)`` of finite conditioning vectors (at least one)."""
    t = tensor(name, value, dtypes=(torch.float32,), finite=False)
    if t.ndim != 2 or (n is not None and t.shape[0] != n) or t.shape[0] < 1 \
            or (dim is not None and t.shape[1] != dim):
        want = f"({n if n is not None else 'n >= 1'}, {dim if dim is not None else 'd'})"
        raise ValueError(f"{name} must be a batch {want} of conditioning vectors, one per image (at least "
                         f"one), got shape {tuple(t.shape)}")
    return tensor(name, t)


def instance(name: str, value, cls, what: str):
    """``value`` if it is an instance of ``cls``, else a ``TypeError`` naming ``what`` is allowed."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a {what}, got {_checks.short_repr(value)}")
    return value


def generator(name: str, value, cls, *, optional: bool = False):
    """``value`` if it is a random generator of class ``cls`` (or None when ``optional``)."""
    if (value is None and optional) or isinstance(value, cls):
        return value
    hint = "np.random.default_rng(seed)" if cls is np.random.Generator else "torch.Generator().manual_seed(seed)"
    raise TypeError(f"{name} must be a {cls.__module__}.{cls.__name__} (e.g. {hint})"
                    f"{' or None' if optional else ''}, got {_checks.short_repr(value)}")


def path(name: str, value):
    """``value`` as a ``pathlib.Path`` if it is a non-empty str or path."""
    import os
    from pathlib import Path

    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise TypeError(f"{name} must be a path (a non-empty str or pathlib.Path), got {_checks.short_repr(value)}")
    return Path(value)


def function(name: str, value, *, optional: bool = False):
    """``value`` if it is callable (or None when ``optional``)."""
    if (value is None and optional) or callable(value):
        return value
    raise TypeError(f"{name} must be a function{' or None' if optional else ''}, got {_checks.short_repr(value)}")


def finite_output(where: str, value) -> None:
    """Raise ``FloatingPointError`` saying ``where`` if ``value`` (a tensor or array) holds NaN or inf."""
    if hasattr(value, "detach"):
        value = value.detach().float().cpu().numpy()
    if not np.all(np.isfinite(value)):
        raise FloatingPointError(f"{where} is not finite (NaN or inf): the model's weights or its inputs "
                                 "have diverged; lower the learning rate or check the inputs")
