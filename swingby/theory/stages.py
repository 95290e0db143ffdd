"""Stage detection and descents (Sec. 4.2.1-4.2.2, App. E): growth and suppression
stages and the descents of the test loss of a simulated trajectory, the checks on them
and the escape time of a major entry (the statistics over many seeds are in
``swingby.theory.statistics``). Chapters: ``book/two_layer_theory.md``,
``book/beyond_two_concepts.md``, ``book/one_layer_theory.md``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.theory.simulation import SymmetricRecord, _single_record


class LossSegment(NamedTuple):
    """One monotone stretch of the test loss found by :func:`detect_stages` (it still
    unpacks like the tuple it used to be: ``kind, t_start, t_end, loss_start, loss_end``)."""

    kind: str  #: ``"descent"`` or ``"ascent"``
    t_start: float  #: time at which the stretch starts (eq. 4.3 clock)
    t_end: float  #: time at which it ends
    loss_start: float  #: test loss at ``t_start``
    loss_end: float  #: test loss at ``t_end``


class Growth(NamedTuple):
    """A major entry and the time it first reaches ``growth_level`` (:attr:`Stages.initial_growth`)."""

    p: int  #: index of the major entry ``w_pp``
    t: float  #: time on the eq. 4.3 clock


@dataclass
class Stages:
    """What :func:`detect_stages` found in one trajectory (times on the eq. 4.3 clock)."""

    growth: dict  #: major entry ``p`` -> time ``w_pp`` first reaches ``growth_level``
    growth_order: list  #: major entries sorted by that time (never-grown ones left out)
    suppression: dict  #: minor entry ``(i, j)``, ``i < j`` -> time of its peak ``|w_ij|``
    loss_segments: list  #: the :class:`LossSegment` s of the test loss, in time order
    n_descents: int  #: number of descents of the test loss
    failed: list  #: major entries that never reached ``growth_level``

    @property
    def s(self) -> int:
        """Number of major entries examined (grown or failed)."""
        return len(self.growth) + len(self.failed)

    @property
    def initial_growth(self) -> Growth:
        """The major entry that grows first (the end of the initial-growth stage,
        Lemmas D.1-D.3) and the time it reaches ``growth_level``."""
        if not self.growth_order:
            raise ValueError("no major entry reached growth_level in this trajectory")
        p = self.growth_order[0]
        return Growth(p, self.growth[p])

    @property
    def ascents(self) -> list[LossSegment]:
        """The ascent segments of the test loss."""
        return [seg for seg in self.loss_segments if seg.kind == "ascent"]

    @property
    def descents(self) -> list[LossSegment]:
        """The descent segments of the test loss."""
        return [seg for seg in self.loss_segments if seg.kind == "descent"]


def loss_turning_points(loss, tol: float) -> list[int]:
    """Indices where the series changes direction by more than ``tol`` (hysteresis),
    first and last index included: the ends of its monotone segments (used by
    :func:`detect_stages` and :func:`count_descents`).

    Parameters
    ----------
    loss : array_like(float, ndim=1)
        A finite series of at least 2 values (a test loss over time).
    tol : float
        ``>= 0``; a change of direction counts only once the series has moved back by
        more than ``tol`` from its running extremum.

    Returns
    -------
    list of int
        Increasing indices into ``loss``, starting with 0.
    """
    loss = _checks.array("loss", loss, min_size=0, finite=False)
    if loss.ndim != 1 or loss.size < 2:
        raise ValueError(f"loss must be a 1-D series of at least 2 values, got shape {loss.shape}")
    if not np.all(np.isfinite(loss)):
        raise ValueError("loss must be finite (no NaN or inf); a non-finite loss means the run diverged")
    tol = _checks.number("tol", tol, low=0)
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


def _finite_record(record: "SymmetricRecord") -> "SymmetricRecord":
    if not (np.all(np.isfinite(record.W)) and np.all(np.isfinite(record.test_loss))):
        raise ValueError("record holds NaN or infinite entries: the iteration diverged (see "
                         "simulate_symmetric, iterate='U' cannot); its stages are undefined")
    return record


def detect_stages(record: SymmetricRecord, s: int, *, growth_level: float = 0.5,
                  rel_tol: float = 0.01, suppression_drop: float = 0.5) -> Stages:
    """Stages of one simulated trajectory (Sec. 4.2.1, Fig. 5, App. E.1).

    * growth of major entry ``p < s``: first time ``w_pp >= growth_level``;
    * suppression of minor entry ``(i, j)`` (``i < j``, ``i < s``): the time of its peak
      ``|w_ij|``, counted only if it later falls below ``suppression_drop`` times the peak;
    * descents / ascents of the test loss: monotone segments whose change exceeds
      ``rel_tol`` times the initial test loss.

    Used by ``book/two_layer_theory.md`` (Fig. 5) and ``book/beyond_two_concepts.md``
    (Figs. 8-10).

    Parameters
    ----------
    record : SymmetricRecord
        A single (not batched) trajectory of :func:`~swingby.theory.simulation.simulate_symmetric`.
    s : int
        Number of informative directions (major entries), ``1 <= s <= d``.
    growth_level : float
        The value a major entry must reach to count as grown.
    rel_tol : float
        ``>= 0``, the hysteresis of the test-loss segments, a fraction of the initial loss.
    suppression_drop : float
        In ``(0, 1]``: a minor entry counts as suppressed once it falls below this
        fraction of its peak.

    Returns
    -------
    Stages
    """
    record = _finite_record(_single_record("record", record))
    d = record.W.shape[-1]
    s = _checks.positive_int("s", s)
    if s > d:
        raise ValueError(f"s must be <= d = {d}, got {s}")
    growth_level = _checks.number("growth_level", growth_level)
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    suppression_drop = _checks.number("suppression_drop", suppression_drop, low=0, high=1, low_open=True)
    t = record.time
    growth, failed = {}, []
    for p in range(s):
        hit = np.flatnonzero(record.W[:, p, p] >= growth_level)
        if hit.size:
            growth[p] = float(t[hit[0]])
        else:
            failed.append(p)
    suppression = {}
    for i in range(s):
        for j in range(i + 1, d):
            w = np.abs(record.W[:, i, j])
            k = int(np.argmax(w))
            if 0 < k < w.size - 1 and w[k:].min() < suppression_drop * w[k]:
                suppression[(i, j)] = float(t[k])
    loss = record.test_loss
    tol = rel_tol * max(float(loss[0]), 1e-300)
    pts = loss_turning_points(loss, tol)
    segs = [LossSegment("descent" if loss[v] < loss[u] else "ascent", float(t[u]), float(t[v]),
                        float(loss[u]), float(loss[v])) for u, v in zip(pts[:-1], pts[1:])]
    return Stages(growth, sorted(growth, key=growth.get), suppression, segs,
                  sum(seg.kind == "descent" for seg in segs), failed)


def count_descents(test_loss, rel_tol: float = 0.01) -> np.ndarray:
    """Number of descents of each test-loss curve in a batch, with the hysteresis of
    :func:`detect_stages` (App. E.1; ``book/beyond_two_concepts.md``,
    ``book/one_layer_theory.md``).

    Parameters
    ----------
    test_loss : array_like(float)
        ``(B, R)`` curves (or one ``(R,)``), finite.
    rel_tol : float
        ``>= 0``, a fraction of each curve's initial value: a rise smaller than that does
        not separate two descents.

    Returns
    -------
    numpy.ndarray
        ``(B,)`` integers (``(1,)`` for one curve).
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


def growth_in_descents(stages: Stages, loss_stages: Stages | None = None) -> bool:
    """Whether the ``k``-th major entry to grow passes ``growth_level`` during the
    ``k``-th descent of the test loss, for every ``k`` (Sec. 4.2.2, App. E.1).

    Parameters
    ----------
    stages : Stages
        Growth times, from :func:`detect_stages`.
    loss_stages : Stages, optional
        Take the descents from this (another) trajectory instead: the null model of
        the book's claim checks (stage times paired with another run's loss curve).

    Returns
    -------
    bool
        ``False`` also when the numbers of grown entries and descents differ.
    """
    _checks.instance("stages", stages, Stages, "swingby.theory.stages.Stages (from detect_stages)")
    loss_stages = stages if loss_stages is None else \
        _checks.instance("loss_stages", loss_stages, Stages, "swingby.theory.stages.Stages (from detect_stages)")
    desc = loss_stages.descents
    if len(desc) != len(stages.growth_order) or stages.failed:
        return False
    return all(desc[k].t_start <= stages.growth[p] <= desc[k].t_end for k, p in enumerate(stages.growth_order))


class StageAlignment(NamedTuple):
    """Output of :func:`stage_alignment`: the two halves of the check that the stages of
    the weights line up with the stages of the test loss."""

    in_descents: bool  #: the ``k``-th major entry to grow does so during the ``k``-th descent
    by_a: bool  #: the major entries grow in the order of decreasing ``a_p``

    @property
    def holds(self) -> bool:
        """Both halves hold."""
        return self.in_descents and self.by_a


def stage_alignment(stages: Stages, a) -> StageAlignment:
    """Whether the stages of one trajectory line up as Sec. 4.2.2 and App. E.1 say: the
    ``k``-th major entry to grow passes ``growth_level`` during the ``k``-th descent of the
    test loss (:func:`growth_in_descents`), and the major entries grow in the order of
    decreasing ``a_p``.

    The claim checks of ``book/two_layer_theory.md`` (Fig. 5, over 200 initialisations)
    and ``book/beyond_two_concepts.md`` (Figs. 8 and 9) apply it to every run with ``s``
    descents.

    Parameters
    ----------
    stages : Stages
        From :func:`detect_stages` with ``s`` major entries.
    a : array_like(float, ndim=1)
        The diagonal the dynamics ran with (``record.a``), at least ``s`` entries.

    Returns
    -------
    StageAlignment
        ``(in_descents, by_a)``; ``.holds`` is both.
    """
    _checks.instance("stages", stages, Stages, "swingby.theory.stages.Stages (from detect_stages)")
    a = _checks.nonneg_vector("a", a)
    if a.size < stages.s:
        raise ValueError(f"a must have at least s = {stages.s} entries (one per major entry), got {a.size}")
    return StageAlignment(growth_in_descents(stages), stages.growth_order == list(np.argsort(-a[:stages.s])))


def shrink_fraction(record: SymmetricRecord, t0: float, t1: float, i: int, j: int) -> float:
    """Fraction of the recorded steps in ``[t0, t1]`` over which ``|w_ij|`` decreases
    (1 means it shrinks throughout: a suppression, Sec. 4.2.2;
    ``book/two_layer_theory.md`` checks it over the ascent of the test loss).

    Parameters
    ----------
    record : SymmetricRecord
        A single trajectory.
    t0, t1 : float
        The time window, ``t0 <= t1``, holding at least 2 records.
    i, j : int
        The entry ``w_ij``, indices in ``[0, d)``.

    Returns
    -------
    float
        In ``[0, 1]``.
    """
    record = _single_record("record", record)
    t0, t1 = _checks.number("t0", t0), _checks.number("t1", t1)
    if not t0 <= t1:
        raise ValueError(f"t0 must be <= t1, got t0 = {t0}, t1 = {t1}")
    d = record.W.shape[-1]
    i, j = _checks.index("i", i, d), _checks.index("j", j, d)
    w = np.abs(record.W[(record.time >= t0) & (record.time <= t1), i, j])
    if w.size < 2:
        raise ValueError(f"fewer than 2 records in [t0, t1] = [{t0}, {t1}]")
    return float(np.mean(np.diff(w) < 0))


def escape_time(record: SymmetricRecord, p: int = 0, level: float = 0.5) -> np.ndarray:
    """Time at which the major entry ``w_pp`` passes ``level``: measured where it does
    within the record, predicted where it does not (App. E.3's failure mode).

    The prediction treats ``w_pp`` as decoupled from the converged directions, so that
    it follows the logistic law ``dw/dt = 2 a_p w (1 - w)`` (exercise of
    ``book/two_layer_theory.md``) from its last recorded value ``w_T``:
    ``t = T + [log(1/w_T - 1) - log(1/level - 1)] / (2 a_p)``. ``inf`` where ``w_T <= 0``
    (outside the PSD cone, possible only when (D.2) is iterated on ``W``) or the run
    overflowed.

    Parameters
    ----------
    record : SymmetricRecord
        Single or batched.
    p : int
        Index of the major entry.
    level : float
        In ``(0, 1)``.

    Returns
    -------
    numpy.ndarray
        ``(B,)`` (or a 0-d array for a single record).
    """
    _checks.instance("record", record, SymmetricRecord, "swingby.theory.simulation.SymmetricRecord")
    p = _checks.index("p", p, record.W.shape[-1])
    level = _checks.number("level", level, low=0, high=1, low_open=True, high_open=True)
    w = np.atleast_2d(record.W[..., p, p])  # (B, R)
    t = record.time
    out = np.full(w.shape[0], np.inf)
    for b, row in enumerate(w):
        hit = np.flatnonzero(row >= level)
        if hit.size:
            out[b] = t[hit[0]]
        elif np.isfinite(row[-1]) and 0 < row[-1] < level:
            out[b] = t[-1] + (np.log(1 / row[-1] - 1) - np.log(1 / level - 1)) / (2 * record.a[p])
    return out if record.W.ndim == 4 else out[0]
