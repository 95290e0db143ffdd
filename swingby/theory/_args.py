"""Argument checks shared by the entry points of :mod:`swingby.theory` (wrappers of ``swingby._checks``)."""
from __future__ import annotations

import numpy as np

from swingby import _checks

__all__ = []


def square(name: str, M, d: int) -> np.ndarray:
    """A finite ``(..., d, d)`` array."""
    M = _checks.array(name, M, min_size=0)
    if M.ndim < 2 or M.shape[-2:] != (d, d):
        raise ValueError(f"{name} must have shape (..., {d}, {d}) to match len(a) = {d}, got {M.shape}")
    return M


def vector(name: str, v, d: int) -> np.ndarray:
    """A finite ``(d,)`` vector."""
    v = _checks.array(name, v, min_size=0)
    if v.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match len(a), got {v.shape}")
    return v


def sequence(name: str, value) -> list:
    """A non-empty sequence as a list."""
    items = [] if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") else list(value)
    if not items:
        raise ValueError(f"{name} must be a non-empty sequence, got {value!r}")
    return items
