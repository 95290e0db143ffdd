"""Stage detection and descents (Sec. 4.2.1-4.2.2, App. E): growth and suppression
stages and the descents of the test loss of a simulated trajectory, the checks on them,
the escape time of a major entry, and the descent statistics over many seeds (App. E.1-E.3).
Chapters: ``book/two_layer_theory.md``, ``book/beyond_two_concepts.md``,
``book/one_layer_theory.md``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.theory._args import _sequence
from swingby.theory.symmetric import (
    SymmetricRecord, _single_record, dynamics_a, initial_U, simulate_symmetric,
)


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
        A single (not batched) trajectory of :func:`simulate_symmetric`.
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
    _checks.instance("stages", stages, Stages, "swingby.theory.Stages (from detect_stages)")
    loss_stages = stages if loss_stages is None else \
        _checks.instance("loss_stages", loss_stages, Stages, "swingby.theory.Stages (from detect_stages)")
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
    _checks.instance("stages", stages, Stages, "swingby.theory.Stages (from detect_stages)")
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
    _checks.instance("record", record, SymmetricRecord, "swingby.theory.SymmetricRecord")
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


class DescentStats(NamedTuple):
    """Output of :func:`descent_statistics`, one entry per initialisation."""

    n_descents: np.ndarray  #: ``(B,)`` descents of the test loss (``-1`` where (D.2) diverged)
    unfinished: np.ndarray  #: ``(B,)`` bool, some major entry still below 1/2 at the end
    diverged: np.ndarray  #: ``(B,)`` bool, the iteration overflowed (only ``iterate="W"``)
    record: SymmetricRecord  #: the batched trajectories


def descent_statistics(mu, sigma, d: int, *, n_seeds: int = 200, init: str = "uniform",
                       init_scale: float = 0.1, d_prime: int | None = None, eta: float = 0.01,
                       steps: int = 10_000, rel_tol: float = 0.01, record_every: int = 10,
                       iterate: str = "U", origin_cluster: bool = False,
                       matrix: str = "authors") -> DescentStats:
    """Simulate ``n_seeds`` initialisations (seeds ``0..n_seeds-1`` of
    :func:`initial_U`) of the symmetric model at one SIM setting and count, for each,
    the descents of the test loss and whether it is unfinished (App. E.1-E.3: how often
    multiple descents and failures occur, rather than one tuned seed).

    ``a`` comes from :func:`dynamics_a` with ``matrix`` (default ``"authors"``, the ``A^2``
    of the authors' scripts; ``"paper"``: eq. C.13, ``sigma`` a standard deviation),
    ``x_hat = sum_p mu_p e_p``. ``iterate="U"`` (default) keeps ``W`` PSD; with ``"W"`` the
    runs that diverge are flagged and get ``n_descents = -1``. Used by
    ``book/two_layer_theory.md``, ``book/beyond_two_concepts.md`` and
    ``book/one_layer_theory.md``.

    Parameters
    ----------
    mu : array_like(float, ndim=1)
        Cluster distances ``mu_p >= 0`` (``s = len(mu)``).
    sigma : float or array_like(float, ndim=1)
        Standard deviation, as in :func:`dynamics_a`.
    d : int
        Dimension, ``>= s``.
    n_seeds : int
        Initialisations, seeds ``0..n_seeds-1``.
    init, init_scale, d_prime
        As in :func:`initial_U`.
    eta, steps, record_every, iterate
        As in :func:`simulate_symmetric`.
    rel_tol : float
        As in :func:`count_descents`.
    origin_cluster : bool
        As in :func:`dynamics_a`.
    matrix : {"authors", "paper"}
        As in :func:`dynamics_a`.

    Returns
    -------
    DescentStats
        ``(n_descents, unfinished, diverged, record)``.
    """
    a = dynamics_a(mu, sigma, d, matrix=matrix, origin_cluster=origin_cluster)
    s = len(np.atleast_1d(mu))
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    x_hat = np.zeros(d)
    x_hat[:s] = mu
    U0 = initial_U(d, range(_checks.positive_int("n_seeds", n_seeds)), d_prime=d_prime, init=init,
                   init_scale=init_scale)
    rec = simulate_symmetric(U0, a, eta, steps, x_hat, record_every=record_every, iterate=iterate)
    diverged = ~np.isfinite(rec.test_loss).all(axis=1)
    n_desc = np.full(U0.shape[0], -1)
    if (~diverged).any():
        n_desc[~diverged] = count_descents(rec.test_loss[~diverged], rel_tol=rel_tol)
    final_diag = np.diagonal(rec.W[:, -1], axis1=-2, axis2=-1)[:, :s]
    unfinished = ~diverged & (final_diag < 0.5).any(axis=1)
    return DescentStats(n_desc, unfinished, diverged, rec)


class PhaseDiagram(NamedTuple):
    """Output of :func:`phase_diagram`."""

    percent: np.ndarray  #: ``(len(d_values), len(taus))`` % of runs with two or more descents
    d_values: tuple
    taus: tuple


def phase_diagram(mu, sigma, d_values, taus, *, matrix: str = "authors", n_seeds: int = 100,
                  eta: float = 0.02, steps: int = 2500, rel_tol: float = 0.01) -> PhaseDiagram:
    """How often swing-by occurs over the dimension and the initialisation scale (App. E.2).

    For each ``d`` in ``d_values`` (``d' = d``) and each ``tau`` in ``taus``, ``n_seeds``
    Gaussian initialisations ``U ~ N(0, tau^2)`` (seeds ``0..n_seeds-1`` of
    :func:`initial_U`) are run with gradient descent on ``U`` (``iterate="U"``) and ``a``
    from :func:`dynamics_a` with ``matrix``; all ``tau`` of one ``d`` in one batch.

    Used by ``book/beyond_two_concepts.md``.

    Parameters
    ----------
    mu, sigma
        The SIM setting (``sigma`` a standard deviation), as in :func:`dynamics_a`.
    d_values : sequence of int
        Dimensions ``>= len(mu)``.
    taus : sequence of float
        Initialisation scales ``> 0``.
    matrix : {"authors", "paper"}
        As in :func:`dynamics_a`.
    n_seeds, eta, steps, rel_tol
        As in :func:`descent_statistics`.

    Returns
    -------
    PhaseDiagram
        The percentage of runs whose test loss descends two or more times.
    """
    d_values = tuple(_checks.positive_int(f"d_values[{k}]", d) for k, d in enumerate(_sequence("d_values", d_values)))
    taus = tuple(_checks.positive_float(f"taus[{k}]", t) for k, t in enumerate(_sequence("taus", taus)))
    n = _checks.positive_int("n_seeds", n_seeds)
    _checks.memory(8.0 * n * len(taus) * (_checks.positive_int("steps", steps) // 10 + 2) * max(d_values) ** 2,
                   f"n_seeds = {n} x {len(taus)} taus x steps = {steps} at d = {max(d_values)}")
    s = len(np.atleast_1d(mu))
    percent = np.zeros((len(d_values), len(taus)))
    for i, d in enumerate(d_values):
        a = dynamics_a(mu, sigma, d, matrix=matrix)
        x_hat = np.zeros(d)
        x_hat[:s] = mu
        base = initial_U(d, range(n), init="gaussian", init_scale=1.0)
        U0 = np.concatenate([base * tau for tau in taus])
        rec = simulate_symmetric(U0, a, eta, steps, x_hat, record_every=10, iterate="U")
        if not np.all(np.isfinite(rec.test_loss)):
            raise ValueError(f"the dynamics overflowed at d = {d}: eta = {eta} is too large for the largest "
                             f"a = {a.max():.3g} (mu, sigma) or tau = {max(taus)}; use a smaller eta")
        n_desc = count_descents(rec.test_loss, rel_tol=rel_tol).reshape(len(taus), n)
        percent[i] = np.mean(n_desc >= 2, axis=1) * 100
    return PhaseDiagram(percent, d_values, taus)
