"""Stages of a simulated trajectory (Sec. 4.2.1-4.2.2, App. E): growth of the major entries,
descents and ascents of the test loss, whether they line up, and the escape time of a major entry."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.symmetric import SymmetricRecord, symmetric_record

__all__ = ["LossSegment", "StageAlignment", "Stages", "count_descents", "detect_stages", "escape_time",
           "stage_alignment"]


class LossSegment(NamedTuple):
    """One monotone stretch of the test loss found by :func:`detect_stages`."""

    kind: str  #: ``"descent"`` or ``"ascent"``
    t_start: float  #: time at which the stretch starts (eq. 4.3 clock)
    t_end: float  #: time at which it ends
    loss_start: float  #: test loss at ``t_start``
    loss_end: float  #: test loss at ``t_end``


@dataclass
class Stages:
    """What :func:`detect_stages` found in one trajectory (times on the eq. 4.3 clock)."""

    growth: dict  #: major entry ``p`` -> time ``w_pp`` first reaches ``growth_level``
    growth_order: list  #: major entries sorted by that time (never-grown ones left out)
    loss_segments: list  #: the :class:`LossSegment` s of the test loss, in time order
    n_descents: int  #: number of descents of the test loss
    failed: list  #: major entries that never reached ``growth_level``

    @property
    def s(self) -> int:
        """Number of major entries examined (grown or failed)."""
        return len(self.growth) + len(self.failed)

    @property
    def ascents(self) -> list[LossSegment]:
        """The ascent segments of the test loss."""
        return [seg for seg in self.loss_segments if seg.kind == "ascent"]

    @property
    def descents(self) -> list[LossSegment]:
        """The descent segments of the test loss."""
        return [seg for seg in self.loss_segments if seg.kind == "descent"]


def loss_turning_points(loss: np.ndarray, tol: float) -> list[int]:
    """Indices where a finite series turns by more than ``tol`` (hysteresis), first and last included."""
    pts = [0]
    direction = 0  # +1 rising, -1 falling, 0 unknown
    ext = 0  # index of the running extremum of the current segment
    for k in range(1, loss.size):
        if direction == 0:
            if loss[k] - loss[0] > tol:
                direction, ext = 1, k
            elif loss[0] - loss[k] > tol:
                direction, ext = -1, k
            continue
        if direction * (loss[k] - loss[ext]) > 0:
            ext = k
        elif direction * (loss[ext] - loss[k]) > tol:
            pts.append(ext)
            direction, ext = -direction, k
    if direction != 0:
        pts.append(ext)
    if pts[-1] != loss.size - 1 and abs(loss[-1] - loss[pts[-1]]) > tol:
        pts.append(loss.size - 1)
    return pts


def detect_stages(record: SymmetricRecord, s: int, *, growth_level: float = 0.5, rel_tol: float = 0.01) -> Stages:
    """Stages of one trajectory (Sec. 4.2.1, App. E.1): the growth of major entry ``p < s`` (first time
    ``w_pp >= growth_level``), and the descents and ascents of the test loss (monotone stretches that
    change by more than ``rel_tol >= 0`` times its start).

    Parameters
    ----------
    record, s, growth_level, rel_tol
        A single, finite trajectory; the number of major entries; the thresholds above.
    """
    record = symmetric_record("record", record)
    if not (np.all(np.isfinite(record.W)) and np.all(np.isfinite(record.test_loss))):
        raise ValueError("record holds NaN or infinite entries: the iteration diverged (see "
                         "simulate_symmetric, iterate='U' cannot); its stages are undefined")
    d = record.W.shape[-1]
    s = _checks.positive_int("s", s)
    if s > d:
        raise ValueError(f"s must be <= d = {d}, got {s}")
    growth_level = _checks.number("growth_level", growth_level)
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    t = record.time
    grown = record.W[:, range(s), range(s)] >= growth_level  # (R, s)
    growth = {p: float(t[np.argmax(grown[:, p])]) for p in range(s) if grown[:, p].any()}
    failed = [p for p in range(s) if p not in growth]
    loss = record.test_loss
    pts = loss_turning_points(loss, rel_tol * max(float(loss[0]), 1e-300))
    segs = [LossSegment("descent" if loss[v] < loss[u] else "ascent", float(t[u]), float(t[v]),
                        float(loss[u]), float(loss[v])) for u, v in zip(pts[:-1], pts[1:])]
    return Stages(growth, sorted(growth, key=growth.get), segs, sum(seg.kind == "descent" for seg in segs), failed)


def count_descents(test_loss, rel_tol: float = 0.01) -> np.ndarray:
    """Number of descents of each test-loss curve, ``(B,)``, with the hysteresis of :func:`detect_stages`.

    Parameters
    ----------
    test_loss, rel_tol
        ``(B, R)`` finite curves (or one ``(R,)``); a rise below this share of a curve's start does
        not separate two descents.
    """
    L = _checks.array("test_loss", test_loss, ndim=(1, 2), finite=False)
    if not np.all(np.isfinite(L)):
        raise ValueError("test_loss must be finite (no NaN or inf); drop the diverged runs first "
                         "(descent_statistics flags them)")
    L = np.atleast_2d(L)
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    out = np.empty(L.shape[0], dtype=int)
    for b, loss in enumerate(L):
        pts = loss_turning_points(loss, rel_tol * max(float(loss[0]), 1e-300))
        out[b] = sum(loss[v] < loss[u] for u, v in zip(pts[:-1], pts[1:]))
    return out


class StageAlignment(NamedTuple):
    """Output of :func:`stage_alignment`: the two halves of the check."""

    in_descents: bool  #: the ``k``-th major entry to grow does so during the ``k``-th descent
    by_a: bool  #: the major entries grow in the order of decreasing ``a_p``

    @property
    def holds(self) -> bool:
        """Both halves hold."""
        return self.in_descents and self.by_a


def stage_alignment(stages: Stages, a) -> StageAlignment:
    """Whether the stages of one trajectory line up as Sec. 4.2.2 and App. E.1 say: the ``k``-th major
    entry to grow does so during the ``k``-th descent of the test loss, and in the order of decreasing ``a_p``.

    Parameters
    ----------
    stages, a
        From :func:`detect_stages`; the diagonal the dynamics ran with (``record.a``).
    """
    _checks.instance("stages", stages, Stages, "swingby.theory.stages.Stages (from detect_stages)")
    a = _checks.nonneg_vector("a", a)
    if a.size < stages.s:
        raise ValueError(f"a must have at least s = {stages.s} entries (one per major entry), got {a.size}")
    desc = stages.descents
    in_descents = (len(desc) == len(stages.growth_order) and not stages.failed and
                   all(desc[k].t_start <= stages.growth[p] <= desc[k].t_end for k, p in enumerate(stages.growth_order)))
    return StageAlignment(in_descents, stages.growth_order == list(np.argsort(-a[:stages.s])))


def escape_time(record: SymmetricRecord, p: int = 0, level: float = 0.5) -> np.ndarray:
    """Time at which ``w_pp`` passes ``level``, ``(B,)`` (0-d for a single record): measured, else
    predicted from the last value ``w_T`` by the logistic law ``dw/dt = 2 a_p w (1 - w)`` (App. E.3),
    ``t = T + [log(1/w_T - 1) - log(1/level - 1)] / (2 a_p)``; ``inf`` where ``w_T <= 0``.

    Parameters
    ----------
    record, p, level
        Single or batched; the major entry; the level, in ``(0, 1)``.
    """
    symmetric_record("record", record, batched=None)
    p = _checks.index("p", p, record.W.shape[-1])
    level = _checks.number("level", level, low=0, high=1, low_open=True, high_open=True)
    w = np.atleast_2d(record.W[..., p, p])  # (B, R)
    hit, last = w >= level, w[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        law = record.time[-1] + (np.log(1 / last - 1) - np.log(1 / level - 1)) / (2 * record.a[p])
    out = np.where(hit.any(axis=1), record.time[np.argmax(hit, axis=1)],
                   np.where(np.isfinite(last) & (0 < last) & (last < level), law, np.inf))
    return out if record.W.ndim == 4 else out[0]
