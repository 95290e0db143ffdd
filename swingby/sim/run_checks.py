"""Checks of training runs shared by the SIM, observation and theory code: a list of seeds, the compute
budget of a call (``MAX_FLOPS``), and the warning a diverging run gives (:class:`TrainingDiverged`)."""
from __future__ import annotations

from swingby._checks import is_integer, seed

__all__ = ["TrainingDiverged"]

#: The most floating-point work one call may ask for: about a day on two cores.
MAX_FLOPS = 1e15


class TrainingDiverged(RuntimeWarning):
    """Warned when a training run's loss or outputs become NaN or infinite."""


def seed_list(name: str, value, *, distinct: bool = False) -> list[int]:
    """A non-empty sequence of seeds as a list of ``int`` (``distinct``: no repeats), else a ValueError."""
    if is_integer(value) or isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be a non-empty sequence of integers in [0, 2**32), got {value!r}")
    seeds = [seed(f"{name}[{k}]", s) for k, s in enumerate(value)]
    if not seeds:
        raise ValueError(f"{name} must be a non-empty sequence of integers in [0, 2**32), got {value!r}")
    if distinct and len(set(seeds)) != len(seeds):
        raise ValueError(f"{name} must not repeat a seed (a repeat is the same run counted twice), got {seeds}")
    return seeds


def work(flops: float, what: str) -> None:
    """A ValueError if a call needs more than ``MAX_FLOPS`` operations; ``what`` names the sizes that set it."""
    if not flops <= MAX_FLOPS:
        raise ValueError(f"{what} needs about {flops:.3g} floating-point operations, more than a 2-core machine "
                         f"does in a day ({MAX_FLOPS:.0e}); use fewer steps, runs or smaller sizes")
