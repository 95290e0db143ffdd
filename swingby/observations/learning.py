"""Which concept is learned first, and the terminal slowing down (Sec. 3.1, 3.2).

Metrics computed on a :class:`~swingby.sim.train_loop.TrainRecord` of
:func:`swingby.observations.runs.run_sweep`, used in ``book/observations.md`` (Figs. 2,
11, 12): :func:`~swingby.observations.learning.learning_times` and :func:`~swingby.observations.learning.progress_along_concepts` (the generalisation
order), :func:`~swingby.observations.learning.a_diagonal` and :func:`~swingby.observations.learning.order_agreement` (does the larger ``a_p`` go
first?), :func:`~swingby.observations.learning.displacement_per_interval`, :func:`~swingby.observations.learning.marker_indices` and
:func:`~swingby.observations.learning.slowdown` (the spacing of the paper's arrows). Also the checks of records that
the other ``swingby.observations_*`` modules share. Every name is imported from
:mod:`swingby.observations`.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from swingby import _checks
from swingby.sim.train_loop import TrainRecord


def _record(name: str, rec, *, finite: bool = True) -> TrainRecord:
    """``rec`` if it is a :class:`TrainRecord` (with finite outputs, when ``finite``), else raise."""
    _checks.instance(name, rec, TrainRecord, "swingby.sim.train_loop.TrainRecord")
    if finite and not (np.all(np.isfinite(rec.outputs)) and np.all(np.isfinite(rec.test_loss))):
        at = rec.config.get("diverged_at_step")
        raise ValueError(
            f"{name} holds NaN or infinite outputs: the run diverged"
            f"{'' if at is None else f' after step {at}'} (lr = {rec.config.get('lr', '?')}); "
            "its metrics would be meaningless, so they are refused (train with a smaller lr)")
    return rec


def _x_hat_norm(rec: TrainRecord) -> float:
    norm = float(np.linalg.norm(rec.test_points[-1]))
    if norm == 0:
        raise ValueError("rec has x_hat = 0 (every mu_p = 0); the metric divides by ||x_hat||")
    return norm


def _record_list(name: str, records) -> list[TrainRecord]:
    """A non-empty sequence of finite :class:`TrainRecord` s, as a list, else raise."""
    if isinstance(records, (TrainRecord, str, bytes)) or not hasattr(records, "__iter__"):
        raise ValueError(f"{name} must be a non-empty sequence of TrainRecord, got {type(records).__name__}")
    records = [_record(f"{name}[{k}]", r) for k, r in enumerate(records)]
    if not records:
        raise ValueError(f"{name} must be a non-empty sequence of TrainRecord, got an empty one")
    return records


def progress_along_concepts(rec: TrainRecord) -> np.ndarray:
    """``(R, s)`` fraction of the way the output at ``x_hat`` has moved along each
    concept: ``(y_p(t) - y_p(0)) / (mu_p - y_p(0))`` (1 = concept ``p`` learned)."""
    rec = _record("rec", rec)
    s = rec.test_index.shape[1]
    mu = rec.test_points[-1, :s]
    y = rec.trajectory[:, :s]
    if np.any(mu == y[0]):
        raise ValueError(f"rec starts at y_p(0) = mu_p for concept(s) {np.flatnonzero(mu == y[0]).tolist()}: "
                         "the progress towards mu_p is undefined there")
    return (y - y[0]) / (mu - y[0])


def learning_times(rec: TrainRecord, frac: float = 0.5) -> np.ndarray:
    """Epoch at which the output at ``x_hat`` first covers ``frac`` of the way to
    ``mu_p e_p`` along each concept ``p`` (``inf`` if never): the generalisation
    order of Sec. 3.1 is the order of these times (eq. obs-learning-time,
    ``book/observations.md``).

    Parameters
    ----------
    rec : TrainRecord
        A finite run whose output does not start at ``mu_p`` along any concept.
    frac : float
        Share of the way, in ``(0, 1]``.

    Returns
    -------
    numpy.ndarray
        ``(s,)`` epochs, one per concept.
    """
    value = _checks.as_real(frac)
    if value is None or not 0 < value <= 1:
        raise ValueError(f"frac must lie in (0, 1], got {frac!r}")
    frac = value
    q = progress_along_concepts(rec)
    times = np.full(q.shape[1], np.inf)
    for p in range(q.shape[1]):
        hit = np.flatnonzero(q[:, p] >= frac)
        if hit.size:
            times[p] = rec.epochs[hit[0]]
    return times


class Displacements(NamedTuple):
    """What :func:`displacement_per_interval` returns (unpacks as ``mids, dist``)."""

    mid_epochs: np.ndarray  #: ``(n_intervals,)`` epoch at the middle of each interval
    distances: np.ndarray  #: ``(n_intervals,)`` distance moved in each interval


def displacement_per_interval(rec: TrainRecord, n_intervals: int = 20) -> Displacements:
    """Distance the output at ``x_hat`` moves in each of ``n_intervals`` equal
    training-time intervals (the spacing of the paper's arrows, Sec. 3.2).

    Used in ``book/observations.md`` (eq. obs-displacement).

    Parameters
    ----------
    rec : TrainRecord
        A finite run recorded near the interval ends (:func:`~swingby.observations.runs.record_grid` does this).
    n_intervals : int
        Number of equal training-time intervals, ``> 0``.

    Returns
    -------
    Displacements
        ``(mid_epochs, distances)``, one entry per interval.
    """
    rec = _record("rec", rec)
    n_intervals = _checks.positive_int("n_intervals", n_intervals)
    _checks.memory(16.0 * (n_intervals + 1) * len(rec.steps), f"n_intervals = {n_intervals}")
    idx = marker_indices(rec, n_intervals)
    ends = np.linspace(0, rec.steps[-1], n_intervals + 1)
    if np.any(np.abs(rec.steps[idx] - ends) > 0.1 * rec.steps[-1] / n_intervals):
        raise ValueError("the record has no steps near the interval ends; record on a finer grid")
    traj = rec.trajectory[idx]
    dist = np.linalg.norm(np.diff(traj, axis=0), axis=1)
    mids = 0.5 * (rec.epochs[idx][1:] + rec.epochs[idx][:-1])
    return Displacements(mids, dist)


def marker_indices(rec: TrainRecord, n_markers: int = 10) -> np.ndarray:
    """Indices of the records at the ends of ``n_markers`` equal training-time intervals
    (the arrows of Fig. 2; ``book/observations.md``).

    Parameters
    ----------
    rec : TrainRecord
        A run.
    n_markers : int
        Number of intervals, ``> 0``.

    Returns
    -------
    numpy.ndarray
        ``(n_markers + 1,)`` record indices, nearest to the interval ends.
    """
    rec = _record("rec", rec, finite=False)
    n_markers = _checks.positive_int("n_markers", n_markers)
    _checks.memory(16.0 * (n_markers + 1) * len(rec.steps), f"n_markers = {n_markers} with {len(rec.steps)} records")
    ends = np.linspace(0, rec.steps[-1], n_markers + 1)
    return np.abs(rec.steps[None, :] - ends[:, None]).argmin(axis=1)


def slowdown(rec: TrainRecord, n_intervals: int = 20) -> float:
    """Terminal slowing down (Sec. 3.2): mean distance moved per interval over the last
    quarter of the ``n_intervals`` intervals, divided by the largest distance
    (:func:`displacement_per_interval`). A path walked at constant speed gives 1.

    Used in ``book/observations.md``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run whose output moves.
    n_intervals : int
        Number of equal training-time intervals, ``> 0``.

    Returns
    -------
    float
        The ratio, in ``[0, 1]``.
    """
    n_intervals = _checks.positive_int("n_intervals", n_intervals)
    _, dist = displacement_per_interval(rec, n_intervals)
    if dist.max() == 0:
        raise ValueError("rec has an output at x_hat that never moves: its slowing down is undefined")
    return float(dist[-n_intervals // 4:].mean() / dist.max())


def a_diagonal(rec: TrainRecord) -> np.ndarray:
    """``a_p = sigma_p^2 + mu_p^2 / n_c`` (eq. C.13) of the run's data, from its config:
    ``n_c = s``, or ``s + 1`` when the data hold the origin cluster."""
    rec = _record("rec", rec, finite=False)
    if "mu" not in rec.config or "sigma" not in rec.config:
        raise ValueError("rec.config has no 'mu' and 'sigma': a_diagonal needs a record from run_sweep")
    mu, sigma = np.asarray(rec.config["mu"]), np.asarray(rec.config["sigma"])
    n_clusters = len(mu) + int(bool(rec.config.get("origin_cluster", False)))
    return sigma**2 + mu**2 / n_clusters


#: Rules :func:`order_agreement` can test: ``"a"`` (the concept with the larger ``a_p`` is
#: learned first, Sec. 4.1) and ``"mu"`` (the larger ``mu_p``: the null that ignores diversity).
ORDER_RULES = ("a", "mu")


class OrderAgreement(NamedTuple):
    """What :func:`order_agreement` returns."""

    clear: int  #: runs whose ``a_p`` differ clearly (largest above ``margin`` times smallest)
    agree: int  #: of those, the runs where the rule's concept is learned first


def order_agreement(records: Sequence[TrainRecord], rule: str = "a", *, margin: float = 1.2) -> OrderAgreement:
    """How often a rule predicts which concept is learned first (Sec. 3.1).

    Among the runs whose ``a_p`` (:func:`a_diagonal`) differ clearly, count those where
    the concept the rule picks has the smallest :func:`learning_times`. Used in
    ``book/observations.md`` (Figs. 2a, 2b) and ``book/observations_variants.md`` (Figs. 11, 12).

    Parameters
    ----------
    records : sequence of TrainRecord
        Finite runs from :func:`~swingby.observations.runs.run_sweep`, non-empty.
    rule : {"a", "mu"}
        ``"a"``: the larger ``a_p`` is learned first; ``"mu"``: the larger ``mu_p`` (the
        null that ignores diversity). A rule that cannot choose (equal ``mu_p``, or equal
        ``a_p``) predicts nothing and counts as wrong, not as the first concept (before
        issue 23 ``argmax`` picked concept 1 on a tie, which let the ``"mu"`` null score
        on the equal-``mu`` runs).
    margin : float
        A run is clear when ``max(a) > margin * min(a)``; ``>= 1``.

    Returns
    -------
    OrderAgreement
        ``(clear, agree)``: the clear runs and how many of them the rule gets right.
    """
    records = _record_list("records", records)
    rule = _checks.choice("rule", rule, ORDER_RULES)
    margin = _checks.number("margin", margin, low=1)
    clear = agree = 0
    for rec in records:
        a, t = a_diagonal(rec), learning_times(rec)
        if max(a) > margin * min(a):
            clear += 1
            score = a if rule == "a" else np.asarray(rec.config["mu"], dtype=float)
            if np.sum(score == score.max()) > 1:
                continue  # a tie: the rule predicts nothing
            agree += int(int(np.argmax(score)) == np.argmin(t))
    return OrderAgreement(clear, agree)


def order_passes(rec: TrainRecord, *, time_ratio: float = 1.2, first: int | None = None) -> bool:
    """The per-run check of Sec. 3.1: the concept with the larger ``a_p`` (eq. C.13) is
    learned first, and the other one at least ``time_ratio`` times later
    (:func:`learning_times`), so that a near tie does not count. Used in
    ``book/observations.md`` on the runs and on their null (the same runs with the
    diversity removed).

    Parameters
    ----------
    rec : TrainRecord
        A finite run of two concepts from :func:`~swingby.observations.runs.run_sweep`.
    time_ratio : float
        Least ratio of the later to the earlier learning time, ``>= 1``.
    first : int or None
        The concept predicted to come first; ``None`` for the larger ``a_p`` of the run's
        own data. A null run (the same configuration with the diversity removed) passes
        the real runs' prediction.

    Returns
    -------
    bool
    """
    rec = _record("rec", rec)
    time_ratio = _checks.number("time_ratio", time_ratio, low=1)
    a, t = a_diagonal(rec), learning_times(rec)
    if a.size != 2:
        raise ValueError(f"rec must have two concepts, got {a.size}")
    if first is None:
        first = int(np.argmax(a))
        if not a[first] > a[1 - first]:
            return False
    else:
        first = _checks.integer("first", first, low=0, high=1)
    return bool(np.isfinite(t[first]) and t[1 - first] >= time_ratio * t[first])
