"""Argument checks shared by the package: every bad input gets a ``ValueError``
that names the argument and says what is allowed.

Conventions: integers are Python or NumPy integers (never ``bool`` or a float such as
``1.5``), numbers are finite reals (never ``bool``, a string, NaN or inf), flags are
``bool`` or ``numpy.bool_``, seeds are integers in ``[0, 2**32)`` (what NumPy's and
PyTorch's seeding both accept), and no call may ask for more than :data:`MAX_BYTES`
of memory (the book targets a 2-core machine with 24 GB).
"""
from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np

#: The most memory one call may ask for; larger requests fail at once with a ValueError.
MAX_BYTES = 12 * 2**30
#: Seeds are integers in ``[0, SEED_LIMIT)``.
SEED_LIMIT = 2**32
#: Sizes and counts are below this (they must fit a NumPy / PyTorch index).
INT_LIMIT = 2**63
# ------------------------------------------------------------------ scalars
def _is_bool(value) -> bool:
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
    """Return ``value`` as an ``int`` if it is an integer in ``[low, high]``, else raise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.
    low, high : int, optional
        Inclusive bounds.

    Returns
    -------
    int
    """
    if not is_integer(value) or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer{_interval(low, high)}, got {value!r}")
    return int(value)


def positive_int(name: str, value) -> int:
    """Return ``value`` as an ``int`` if it is a positive integer (below 2**63), else raise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.

    Returns
    -------
    int
    """
    if not is_integer(value) or not 0 < value < INT_LIMIT:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def seed(name: str, value) -> int:
    """Return ``value`` as an ``int`` if it is a seed: an integer in ``[0, 2**32)``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.

    Returns
    -------
    int
    """
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
    """Return ``value`` as a ``float`` if it is a finite real in the given range, else raise.

    ``low_open`` / ``high_open`` exclude the end points.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.
    low, high : float, optional
        Bounds of the allowed range.
    low_open, high_open : bool
        Exclude ``low`` / ``high`` themselves.

    Returns
    -------
    float
    """
    v = as_real(value)
    ok = v is not None and bool(np.isfinite(v))
    ok = ok and (low is None or (v > low if low_open else v >= low))
    ok = ok and (high is None or (v < high if high_open else v <= high))
    if not ok:
        where = _interval(low, high, low_open, high_open)
        raise ValueError(f"{name} must be a finite number{where}, got {value!r}")
    return v


def positive_float(name: str, value) -> float:
    """Return ``value`` as a ``float`` if it is finite and > 0, else raise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.

    Returns
    -------
    float
    """
    v = as_real(value)
    if v is None or not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a positive number (finite and > 0), got {value!r}")
    return v


def flag(name: str, value) -> bool:
    """Return ``value`` as a ``bool`` if it is ``True`` or ``False`` (NumPy's too), else raise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.

    Returns
    -------
    bool
    """
    if not _is_bool(value):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def choice(name: str, value, allowed: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.
    allowed : sequence of str
        The allowed values.

    Returns
    -------
    str
    """
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def instance(name: str, value, cls, what: str | None = None):
    """Return ``value`` if it is an instance of ``cls``, else raise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.
    cls : type or tuple of type
        The allowed class(es).
    what : str, optional
        How the message names the class (default: its ``__name__``).

    Returns
    -------
    object
        ``value`` itself.
    """
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
    """Return ``value`` as a ``float`` ndarray after checking it.

    ``ndim`` is an int or a tuple of allowed ones; ``shape`` a tuple with ``None`` for
    any length; ``min_size`` the fewest entries; ``finite`` forbids NaN and inf;
    ``nonneg`` forbids negative entries; booleans are refused unless ``allow_bool``.
    Torch tensors are read as arrays.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : array_like or torch.Tensor
        The value to check.
    ndim : int or tuple of int, optional
        Allowed numbers of dimensions.
    shape : tuple, optional
        Required shape, ``None`` for an axis of any length.
    min_size : int
        Fewest entries.
    finite : bool
        Refuse NaN and inf.
    nonneg : bool
        Refuse negative entries.
    allow_bool : bool
        Accept a boolean array.

    Returns
    -------
    numpy.ndarray
        Of dtype ``float``.
    """
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
    """Return a 1-D float array of non-negative finite entries.

    A scalar is broadcast to ``length`` when ``length`` is given.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : float or array_like
        The vector, or one number.
    length : int, optional
        Required length; a single number is broadcast to it.

    Returns
    -------
    numpy.ndarray
        1-D, of dtype ``float``.
    """
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
    """Return ``value`` as an ``int`` if it is an index in ``[0, size)``, else raise.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.
    size : int
        Length of the sequence it indexes.

    Returns
    -------
    int
    """
    return integer(name, value, low=0, high=size - 1)


# ------------------------------------------------------------------ resources
def memory(n_bytes: float, what: str) -> None:
    """Raise if a call needs more than :data:`MAX_BYTES`; ``what`` names the arguments
    that set the size (e.g. ``"n_per_cluster = 10**9 with d = 64"``).

    Parameters
    ----------
    n_bytes : float
        Memory the call would need.
    what : str
        The arguments that set the size, for the message.
    """
    if not n_bytes <= MAX_BYTES:
        raise ValueError(
            f"{what} needs about {n_bytes / 2**30:.3g} GiB of memory, more than the "
            f"{MAX_BYTES / 2**30:.0f} GiB allowed (the book targets a 2-core, 24 GB machine); "
            f"use smaller sizes"
        )
