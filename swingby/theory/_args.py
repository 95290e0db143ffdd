"""Argument checks shared by the modules of :mod:`swingby.theory` (thin wrappers of
:mod:`swingby._checks` that name the array in the error)."""
from __future__ import annotations

import numpy as np

from swingby import _checks


def _vector_a(a) -> np.ndarray:
    return _checks.nonneg_vector("a", a)


def _square(name: str, M, d: int) -> np.ndarray:
    M = _checks.array(name, M, min_size=0)
    if M.ndim < 2 or M.shape[-2:] != (d, d):
        raise ValueError(f"{name} must have shape (..., {d}, {d}) to match len(a) = {d}, got {M.shape}")
    return M


def _eta(eta) -> float:
    return _checks.positive_float("eta", eta)


def _vector(name: str, v, d: int) -> np.ndarray:
    """A finite ``(d,)`` vector, named ``name`` in the error."""
    v = _checks.array(name, v, min_size=0)
    if v.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match len(a), got {v.shape}")
    return v


def _times(t) -> np.ndarray:
    t_arr = _checks.array("t", t, ndim=(0, 1), finite=False)
    if np.any(t_arr < 0) or not np.all(np.isfinite(t_arr)):
        raise ValueError(f"t must be a number or 1-D array of finite times >= 0, got {t!r}")
    return t_arr


def _sequence(name: str, value) -> list:
    items = [] if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") else list(value)
    if not items:
        raise ValueError(f"{name} must be a non-empty sequence, got {value!r}")
    return items
