"""The Jacobian measures of Q2 of ``book/open_questions.md`` (early alignment, App.
E.4): how the direction of the input-output Jacobian at a point settles, and the growth
and suppression stages of the Jacobian at ``x_hat`` (Sec. 4.2, App. D) compared with the
symmetric model's. Their thresholds are those of
:data:`swingby.open_questions.alignment.ALIGNMENT_RULES`, fixed before the judged runs.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.open_questions.alignment import ALIGNMENT_RULES, _path, _share, _unit_rows


def jacobian_share(J, k: int) -> float:
    """Share of the turning of the Jacobian's direction ``J / ||J||_F`` done before
    record ``k`` (NaN where it never turns).

    Parameters
    ----------
    J : array_like(float, ndim=3)
        ``(T, d, d)`` the Jacobian at one point over the records.
    k : int
        A record index, ``0 <= k < T``.

    Returns
    -------
    float
    """
    j = _checks.array("J", J, ndim=3)
    k = _checks.integer("k", k, low=0, high=j.shape[0] - 1)
    return _share(_path(_unit_rows(j.reshape(j.shape[0], -1))), k)


class StageTimes(NamedTuple):
    """What :func:`stage_times` returns (steps; ``inf`` where a stage never happens)."""

    strong: float   #: the stronger concept's major entry reaches ``growth_level``
    weak: float     #: the weaker concept's major entry does
    minor_peak: float  #: the minor entry ``J[weak, strong]`` is largest


def stage_times(steps, J, mu, growth_level: float = ALIGNMENT_RULES.growth_level) -> StageTimes:
    """The growth and suppression stages of the Jacobian at ``x_hat`` (Sec. 4.2).

    Parameters
    ----------
    steps : array_like(int, ndim=1)
        ``(T,)`` increasing recorded steps.
    J : array_like(float, ndim=3)
        ``(T, d, d)`` the Jacobian at ``x_hat`` in concept coordinates.
    mu : array_like(float, ndim=1)
        The two concepts' ``mu`` (different).
    growth_level : float
        ``> 0``.

    Returns
    -------
    StageTimes
    """
    st = _checks.array("steps", steps, ndim=1)
    j = _checks.array("J", J, ndim=3)
    m = _checks.nonneg_vector("mu", mu)
    if j.shape[0] != st.size or np.any(np.diff(st) <= 0):
        raise ValueError(f"steps must be {j.shape[0]} increasing values (one per record of J), got {st.size}")
    if m.size < 2 or m[0] == m[1] or j.shape[1] < 2:
        raise ValueError(f"mu must hold two different values and J be at least 2 x 2, got mu = {m.tolist()}")
    growth_level = _checks.positive_float("growth_level", growth_level)
    s, w = int(np.argmax(m[:2])), int(np.argmin(m[:2]))

    def first(x):
        hit = np.flatnonzero(x >= growth_level)
        return float(st[hit[0]]) if hit.size else math.inf
    return StageTimes(first(j[:, s, s]), first(j[:, w, w]), float(st[int(np.argmax(j[:, w, s]))]))


def stage_match(times: StageTimes, predicted_ratio: float, tol: float = ALIGNMENT_RULES.stage_tol) -> bool:
    """Whether a run follows the theory's stages: the stronger concept grows first, the
    minor entry peaks between the two growths, and ``weak / strong`` is within a factor
    ``tol`` of ``predicted_ratio``.

    Parameters
    ----------
    times : StageTimes
        Of the run.
    predicted_ratio : float
        The symmetric model's ``weak / strong`` growth-time ratio, ``> 0``.
    tol : float
        ``>= 1``.

    Returns
    -------
    bool
    """
    _checks.instance("times", times, StageTimes, "StageTimes")
    predicted_ratio = _checks.positive_float("predicted_ratio", predicted_ratio)
    tol = _checks.number("tol", tol, low=1)
    if not (0 < times.strong < times.weak < math.inf):
        return False
    ratio = times.weak / times.strong
    return bool(times.strong <= times.minor_peak <= times.weak and abs(math.log(ratio / predicted_ratio))
                <= math.log(tol))
