"""Argument checks shared by the package: every bad input gets a ``ValueError``
that names the argument and says what is allowed."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def positive_int(name: str, value) -> int:
    """Return ``value`` as an ``int`` if it is a positive integer, else raise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def positive_float(name: str, value) -> float:
    """Return ``value`` as a ``float`` if it is finite and > 0, else raise."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number, got {value!r}") from None
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return v


def nonneg_vector(name: str, value, length: int | None = None) -> np.ndarray:
    """Return a 1-D float array of non-negative finite entries.

    A scalar is broadcast to ``length`` when ``length`` is given.
    """
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0 and length is not None:
        arr = np.full(length, float(arr))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers, got {value!r}")
    if length is not None and arr.size != length:
        raise ValueError(
            f"len({name}) = {arr.size} must equal len(mu) = {length} "
            f"(one value per concept), or {name} must be a single number"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must contain only finite numbers >= 0, got {value!r}")
    return arr


def choice(name: str, value, allowed: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value
