"""Over-prompting before the capability (the hidden-capabilities study, App. B; ``book/capability.md``): does
the pure-blue prompt draw big blue discs before a run's capability time, and the plain prompt as often?"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby.capability.measures import CLASS_11, check_times
from swingby.diffusion.rules import RULES

__all__ = ["BlueBig", "blue_big_before_capability"]


class BlueBig(NamedTuple):
    """Runs ``(D, S)`` in which a prompt draws big blue discs before the capability time."""

    per_run: np.ndarray       #: the pure-blue prompt does
    null_per_run: np.ndarray  #: the plain prompt does


def _blue_big(points: np.ndarray, before: np.ndarray, p: float) -> np.ndarray:
    big_blue = (points[..., 0] >= p) & (points[..., 1] <= 1 - p)
    return (big_blue & before).any(axis=-1)


def blue_big_before_capability(res: dict, t_cap: np.ndarray, p: float = RULES.blue_big_p) -> BlueBig:
    """Whether the pure-blue capability prompt (the first) draws discs read as blue and big (sample means
    ``P(blue) >= p``, ``P(small) <= 1 - p``) at a trained checkpoint before the run's capability time, and
    whether the plain prompt does.

    Parameters
    ----------
    res : dict
    t_cap : array (D, S)
        Capability times.
    p : float
    """
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    t = check_times("t_cap", t_cap)
    before = (steps[None, None, :] < np.where(np.isnan(t), -1, t)[..., None]) & (steps > 0)
    blue = np.asarray(res["cap_probs"], float)[:, :, :, 0].mean(-2)            # (D, S, K, 2)
    plain = np.asarray(res["probs"], float)[:, :, :, CLASS_11].mean(-2)
    return BlueBig(_blue_big(blue, before, p), _blue_big(plain, before, p))
