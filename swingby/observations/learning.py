"""Which concept is learned first (Sec. 3.1) and the terminal slowing down (Sec. 3.2) of a run ``rec``."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.train_loop import TrainRecord

__all__ = ["learning_times", "Displacements", "displacement_per_interval", "slowdown", "a_diagonal", "order_passes"]


def check_record(name: str, rec, *, finite: bool = True) -> TrainRecord:
    """``rec`` if it is a ``TrainRecord`` (with finite outputs, when ``finite``), else a ValueError."""
    _checks.instance(name, rec, TrainRecord, "swingby.sim.train_loop.TrainRecord")
    if finite and not (np.all(np.isfinite(rec.outputs)) and np.all(np.isfinite(rec.test_loss))):
        at = rec.config.get("diverged_at_step")
        raise ValueError(f"{name} holds NaN or infinite outputs: the run diverged"
                         f"{'' if at is None else f' after step {at}'} (lr = {rec.config.get('lr', '?')}); "
                         "its metrics would be meaningless, so they are refused (train with a smaller lr)")
    return rec


def check_records(name: str, records) -> list[TrainRecord]:
    """A non-empty sequence of finite ``TrainRecord`` s as a list, else a ValueError."""
    if isinstance(records, (TrainRecord, str, bytes)) or not hasattr(records, "__iter__") or not (rs := list(records)):
        raise ValueError(f"{name} must be a non-empty sequence of TrainRecord, got {type(records).__name__}")
    return [check_record(f"{name}[{k}]", r) for k, r in enumerate(rs)]


def x_hat_norm(rec: TrainRecord) -> float:
    """``||x_hat||`` of a record, else a ValueError if it is 0."""
    norm = float(np.linalg.norm(rec.test_points[-1]))
    if norm == 0:
        raise ValueError("rec has x_hat = 0 (every mu_p = 0); the metric divides by ||x_hat||")
    return norm


def first_time(hit: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Per column of ``hit`` (a row per record), the first of ``times`` where it is true, ``inf`` if never."""
    return np.where(hit.any(axis=0), times[np.argmax(hit, axis=0)], np.inf)


def learning_times(rec: TrainRecord, frac: float = 0.5) -> np.ndarray:
    """Per concept ``p``, the epoch at which the output at ``x_hat`` first covers ``frac`` of the way from
    its start ``y_p(0)`` to ``mu_p`` (``inf`` if never): Sec. 3.1's order is theirs (eq. obs-learning-time).

    Parameters
    ----------
    rec, frac
        A finite run whose output does not start at ``mu_p`` along any concept; the share, in ``(0, 1]``.
    """
    frac = _checks.number("frac", frac, low=0, high=1, low_open=True)
    rec = check_record("rec", rec)
    s = rec.test_index.shape[1]
    mu, y = rec.test_points[-1, :s], rec.trajectory[:, :s]
    if at := np.flatnonzero(mu == y[0]).tolist():
        raise ValueError(f"rec starts at y_p(0) = mu_p for {'concept' if len(at) == 1 else 'concepts'} {at}: "
                         "the progress towards mu_p is undefined there")
    return first_time((y - y[0]) / (mu - y[0]) >= frac, rec.epochs)


class Displacements(NamedTuple):
    """What :func:`displacement_per_interval` returns (unpacks as ``mids, dist``)."""

    mid_epochs: np.ndarray  #: ``(n_intervals,)`` epoch at the middle of each interval
    distances: np.ndarray  #: ``(n_intervals,)`` distance moved in each interval


def marker_indices(rec: TrainRecord, n_markers: int = 10) -> np.ndarray:
    """Indices of the records nearest the ends of ``n_markers`` equal training-time intervals."""
    ends = np.linspace(0, rec.steps[-1], n_markers + 1)
    return np.abs(rec.steps[None, :] - ends[:, None]).argmin(axis=1)


def displacement_per_interval(rec: TrainRecord, n_intervals: int = 20) -> Displacements:
    """Distance the output at ``x_hat`` moves in each of ``n_intervals`` equal training-time intervals (the
    spacing of the paper's arrows, Sec. 3.2; eq. obs-displacement).

    Parameters
    ----------
    rec, n_intervals
        A finite run recorded near the interval ends (``record_grid`` does this); the number of intervals.
    """
    rec = check_record("rec", rec)
    n_intervals = _checks.positive_int("n_intervals", n_intervals)
    _checks.memory(16.0 * (n_intervals + 1) * len(rec.steps), f"n_intervals = {n_intervals}")
    idx = marker_indices(rec, n_intervals)
    ends = np.linspace(0, rec.steps[-1], n_intervals + 1)
    if np.any(np.abs(rec.steps[idx] - ends) > 0.1 * rec.steps[-1] / n_intervals):
        raise ValueError("the record has no steps near the interval ends; record on a finer grid")
    dist = np.linalg.norm(np.diff(rec.trajectory[idx], axis=0), axis=1)
    mids = 0.5 * (rec.epochs[idx][1:] + rec.epochs[idx][:-1])
    return Displacements(mids, dist)


def slowdown(rec: TrainRecord, n_intervals: int = 20) -> float:
    """Terminal slowing down (Sec. 3.2): the mean distance moved per interval over the last quarter of the
    intervals over the largest (:func:`displacement_per_interval`); 1 for a path walked at constant speed.

    Parameters
    ----------
    rec, n_intervals
        A finite run whose output moves; the number of intervals.
    """
    _, dist = displacement_per_interval(rec, n_intervals)
    if dist.max() == 0:
        raise ValueError("rec has an output at x_hat that never moves: its slowing down is undefined")
    return float(dist[-n_intervals // 4:].mean() / dist.max())


def a_diagonal(rec: TrainRecord) -> np.ndarray:
    """``a_p = sigma_p^2 + mu_p^2 / n_c`` (eq. C.13) of a :func:`~swingby.observations.runs.run_sweep`
    run's data, ``n_c = s`` or ``s + 1`` with the origin cluster."""
    rec = check_record("rec", rec, finite=False)
    if "mu" not in rec.config or "sigma" not in rec.config:
        raise ValueError("rec.config has no 'mu' and 'sigma': a_diagonal needs a record from run_sweep")
    mu, sigma = np.asarray(rec.config["mu"]), np.asarray(rec.config["sigma"])
    return sigma**2 + mu**2 / (len(mu) + int(bool(rec.config.get("origin_cluster", False))))


def order_passes(rec: TrainRecord, *, time_ratio: float = 1.2, first: int | None = None) -> bool:
    """Sec. 3.1 on one run: concept ``first`` is learned first (:func:`learning_times`), the other at least
    ``time_ratio`` times later.

    Parameters
    ----------
    rec, time_ratio
        A finite two-concept run from :func:`~swingby.observations.runs.run_sweep`; the least ratio, ``>= 1``.
    first : {0, 1} or None
        The concept predicted first; ``None``: the larger ``a_p`` of the run's data (fails if they are equal).
    """
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
