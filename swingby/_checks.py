"""The argument checks the public entry points share: a bad input gets a ``ValueError`` naming the argument and
what is allowed. Integers are Python or NumPy integers (never ``bool``), numbers finite reals, flags ``bool``, seeds
integers in ``[0, 2**32)``, and no call may ask for more than ``MAX_BYTES`` of memory (a 2-core, 24 GB machine).
"""
from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np

__all__ = []

#: The most memory one call may ask for; larger requests fail at once with a ValueError.
MAX_BYTES = 12 * 2**30
#: Seeds are integers in ``[0, SEED_LIMIT)``.
SEED_LIMIT = 2**32
#: Sizes and counts are below this (they must fit a NumPy / PyTorch index).
INT_LIMIT = 2**63
# ------------------------------------------------------------------ scalars
def _is_bool(value) -> bool:
    """Whether ``value`` is a Python or NumPy bool."""
    return isinstance(value, (bool, np.bool_))


def is_integer(value) -> bool:
    """Whether ``value`` is a Python or NumPy integer (``bool`` is not)."""
    return isinstance(value, (int, np.integer)) and not _is_bool(value)


def _interval(low, high, low_open: bool = False, high_open: bool = False) -> str:
    """`` in [low, high]``, `` > low`` and the like, for messages."""
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '>='} {low}"
    return "" if high is None else f" {'<' if high_open else '<='} {high}"


def integer(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is an integer in ``[low, high]``, else a ValueError naming ``name``."""
    if not is_integer(value) or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer{_interval(low, high)}, got {value!r}")
    return int(value)


def positive_int(name: str, value) -> int:
    """``value`` as an ``int`` if it is a positive integer (below 2**63), else a ValueError."""
    if not is_integer(value) or not 0 < value < INT_LIMIT:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def seed(name: str, value) -> int:
    """``value`` as an ``int`` if it is a seed, an integer in ``[0, 2**32)``, else a ValueError."""
    if not is_integer(value) or not 0 <= value < SEED_LIMIT:
        raise ValueError(f"{name} must be an integer in [0, 2**32), got {value!r}")
    return int(value)


def as_real(value) -> float | None:
    """``value`` as a float if it is a real number (not bool or str), else None."""
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    if _is_bool(value) or isinstance(value, (str, bytes)):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        return float(value)
    return None


def number(name: str, value, *, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False) -> float:
    """``value`` as a ``float`` if it is a finite real in the range (``*_open``: end point excluded), else raise."""
    v = as_real(value)
    ok = v is not None and bool(np.isfinite(v))
    ok = ok and (low is None or (v > low if low_open else v >= low))
    ok = ok and (high is None or (v < high if high_open else v <= high))
    if not ok:
        where = _interval(low, high, low_open, high_open)
        raise ValueError(f"{name} must be a finite number{where}, got {value!r}")
    return v


def positive_float(name: str, value) -> float:
    """``value`` as a ``float`` if it is finite and > 0, else a ValueError."""
    v = as_real(value)
    if v is None or not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a positive number (finite and > 0), got {value!r}")
    return v


def flag(name: str, value) -> bool:
    """``value`` as a ``bool`` if it is ``True`` or ``False`` (NumPy's too), else a ValueError."""
    if not _is_bool(value):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def choice(name: str, value, allowed: Sequence[str]) -> str:
    """``value`` if it is one of ``allowed``, else a ValueError."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def instance(name: str, value, cls, what: str | None = None):
    """``value`` if it is an instance of ``cls`` (named ``what`` in the message), else a ValueError."""
    if not isinstance(value, cls):
        what = what or getattr(cls, "__name__", str(cls))
        raise ValueError(f"{name} must be a {what}, got {type(value).__name__}")
    return value


# ------------------------------------------------------------------ arrays
def short_repr(value) -> str:
    """``repr(value)``, cut to 80 characters for error messages."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def array(name: str, value, *, ndim=None, shape=None, min_size: int = 1, finite: bool = True,
          nonneg: bool = False, allow_bool: bool = False) -> np.ndarray:
    """``value`` (array or tensor) as a float ndarray, checked for ``ndim``, ``shape``, size, NaN, sign, bools."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    try:
        raw = np.asarray(value)
        ok = raw.dtype.kind in ("biuf" if allow_bool else "iuf")
        arr = raw.astype(float) if ok else None
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be an array of numbers, got {short_repr(value)}")
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if allowed is not None and arr.ndim not in allowed:
        want = " or ".join(f"{k}-D" for k in allowed)
        raise ValueError(f"{name} must be {want}, got an array of shape {arr.shape}")
    if shape is not None and (arr.ndim != len(shape) or
                              any(w is not None and w != s for w, s in zip(shape, arr.shape))):
        want = "(" + ", ".join("n" if w is None else str(w) for w in shape) + ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} must hold at least {min_size} value(s), got shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    if nonneg and np.any(arr < 0):
        raise ValueError(f"{name} must contain only numbers >= 0, got {short_repr(value)}")
    return arr


def nonneg_vector(name: str, value, length: int | None = None) -> np.ndarray:
    """A non-empty 1-D float array of finite entries >= 0 (a number broadcast to ``length``)."""
    arr = array(name, value, min_size=0, finite=False)
    if arr.ndim == 0 and length is not None:
        arr = np.full(length, float(arr))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers, got {short_repr(value)}")
    if length is not None and arr.size != length:
        raise ValueError(
            f"len({name}) = {arr.size} must equal len(mu) = {length} "
            f"(one value per concept), or {name} must be a single number"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must contain only finite numbers >= 0, got {short_repr(value)}")
    return arr


def index(name: str, value, size: int) -> int:
    """``value`` as an ``int`` if it indexes a sequence of length ``size``, else a ValueError."""
    return integer(name, value, low=0, high=size - 1)


# ------------------------------------------------------------------ resources
def memory(n_bytes: float, what: str) -> None:
    """A ValueError if a call needs more than ``MAX_BYTES``; ``what`` names the sizes that set it."""
    if not n_bytes <= MAX_BYTES:
        raise ValueError(
            f"{what} needs about {n_bytes / 2**30:.3g} GiB of memory, more than the "
            f"{MAX_BYTES / 2**30:.0f} GiB allowed (the book targets a 2-core, 24 GB machine); "
            f"use smaller sizes"
        )


def square(name: str, M, d: int) -> np.ndarray:
    """A finite ``(..., d, d)`` array."""
    M = array(name, M, min_size=0)
    if M.ndim < 2 or M.shape[-2:] != (d, d):
        raise ValueError(f"{name} must have shape (..., {d}, {d}) to match len(a) = {d}, got {M.shape}")
    return M


def vector(name: str, v, d: int) -> np.ndarray:
    """A finite ``(d,)`` vector."""
    v = array(name, v, min_size=0)
    if v.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match len(a), got {v.shape}")
    return v


def sequence(name: str, value) -> list:
    """A non-empty sequence as a list."""
    items = [] if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") else list(value)
    if not items:
        raise ValueError(f"{name} must be a non-empty sequence, got {value!r}")
    return items
