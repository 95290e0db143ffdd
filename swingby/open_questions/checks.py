"""The claim checks of the open questions (``book/open_questions.md``, ``book/open_questions_training.md``)
with the thresholds of :mod:`swingby.open_questions.rules`: each cell's runs against its equal-signal null,
the tests of a dependence on a setting, and the theory's prediction of the order (Q4). ``arrays``: the
stored arrays of an experiment (:func:`swingby.open_questions.store.load`); ``rules``: an ``OpenRules``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby import _checks
from swingby.observations.swingby import fisher_seeds_needed
from swingby.open_questions.rules import OQ_RULES, OpenRules, answer
from swingby.verdicts import Outcome, outcome_verdict

__all__ = ["CellCheck", "PredictionTest", "Trend", "check_cells", "fisher_two_sided", "late_over_early",
           "pass_flags", "prediction_test", "seeds_to_decide", "trend_test"]

WHATS = ("nonmonotone", "order", "reach")


def pass_flags(arrays: dict, cell: int, null: bool, what: str, rules: OpenRules = OQ_RULES) -> np.ndarray:
    """Per run of the stored cell of index ``cell``, ``(n_seeds,)`` bool: the pass flag of ``what``.

    Parameters
    ----------
    arrays : dict
    cell : int
    null : bool
        The equal-signal runs instead of the real ones.
    what : {"nonmonotone", "order", "reach"}
        Rise above ``rules.rise``; the predicted concept first; final distance below ``rules.reach``
        (a diverged run passes none).
    rules : OpenRules
    """
    if not isinstance(arrays, dict) or "rise" not in arrays:
        raise ValueError("arrays must be the stored arrays of an experiment (with 'rise')")
    cell = _checks.integer("cell", cell, low=0, high=arrays["rise"].shape[0] - 1)
    j = int(_checks.flag("null", null))
    what = _checks.choice("what", what, WHATS)
    if np.isnan(arrays["distance"][cell, j]).all():
        raise ValueError(f"cell {cell} was not run (its measures are NaN)")
    if what == "nonmonotone":
        return np.nan_to_num(arrays["rise"][cell, j], nan=0.0) > rules.rise
    if what == "order":
        return arrays["order"][cell, j] == 1
    return arrays["distance"][cell, j] < rules.reach


def _bools(name: str, x) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of pass flags, got shape {arr.shape}")
    if arr.dtype != bool:
        if not np.all(np.isin(arr, (0, 1))):
            raise ValueError(f"{name} must hold pass flags (True/False or 0/1), got values {np.unique(arr)[:5]}")
        arr = arr.astype(bool)
    return arr


class CellCheck(NamedTuple):
    """One cell's runs judged against its null (:func:`check_cells`)."""

    n_pass: int          #: runs that pass
    n: int               #: runs
    null_rate: float     #: share of the null's runs that pass
    p_vs_null: float     #: one-sided Fisher p of the runs against the null's runs
    verdict: str         #: the book's verdict word
    answer: str          #: :func:`~swingby.open_questions.rules.answer` of it


def cell_check(passes: np.ndarray, null_passes: np.ndarray) -> CellCheck:
    """Judge a cell's pass flags against its null's by the book's verdict rule."""
    k, n, rate = int(passes.sum()), int(passes.size), float(null_passes.mean())
    y = int(null_passes.sum())
    p = float(stats.fisher_exact([[k, n - k], [y, null_passes.size - y]], alternative="greater").pvalue)
    word = outcome_verdict(Outcome(k, n, rate))
    return CellCheck(k, n, rate, p, word, answer(word))


def check_cells(arrays: dict, cells, what: str, rules: OpenRules = OQ_RULES) -> list[CellCheck]:
    """Each stored cell's runs on the real data judged against its equal-signal runs.

    Parameters
    ----------
    arrays : dict
    cells : sequence of int
        Indices of the cells.
    what : {"nonmonotone", "order", "reach"}
        The pass flag (:func:`pass_flags`).
    rules : OpenRules
    """
    return [cell_check(pass_flags(arrays, i, False, what, rules), pass_flags(arrays, i, True, what, rules))
            for i in cells]


def fisher_two_sided(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher exact p that two pass rates (``k1`` of ``n1 > 0``, ``k2`` of ``n2 > 0``) differ.

    Parameters
    ----------
    k1, n1, k2, n2 : int
    """
    n1, n2 = _checks.positive_int("n1", n1), _checks.positive_int("n2", n2)
    k1, k2 = _checks.integer("k1", k1, low=0, high=n1), _checks.integer("k2", k2, low=0, high=n2)
    return float(stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="two-sided").pvalue)


def seeds_to_decide(p1: float, p2: float, rules: OpenRules = OQ_RULES) -> int | None:
    """Seeds per setting at which a one-sided Fisher test would tell the observed rates ``p1`` and ``p2``
    apart at the rules' ``alpha`` and ``power`` (None if equal or over 2000).

    Parameters
    ----------
    p1, p2 : float
    rules : OpenRules
    """
    p1 = _checks.number("p1", p1, low=0, high=1)
    p2 = _checks.number("p2", p2, low=0, high=1)
    return fisher_seeds_needed(max(p1, p2), min(p1, p2), alpha=rules.alpha, power=rules.power)


class Trend(NamedTuple):
    """What :func:`trend_test` returns."""

    rho: float    #: Spearman correlation of the setting and the pass flag over all runs
    p: float      #: two-sided permutation p (runs permuted across settings)


def trend_test(levels, passes, *, n_resamples: int = 2000, seed: int = 0) -> Trend:
    """Permutation test of a monotone trend of a pass rate over an ordered setting.

    Parameters
    ----------
    levels : array_like(float, ndim=1)
        The setting (e.g. depth) of each run.
    passes : array_like(bool, ndim=1)
        The pass flag of each run.
    n_resamples, seed : int
    """
    lv = _checks.array("levels", levels, ndim=1)
    x = _bools("passes", passes)
    if lv.size != x.size:
        raise ValueError(f"levels and passes must have one length, got {lv.size} and {x.size}")
    n_resamples = _checks.positive_int("n_resamples", n_resamples)
    rng = np.random.default_rng(_checks.seed("seed", seed))
    if np.unique(lv).size < 2 or x.all() or not x.any():
        return Trend(0.0, 1.0)
    rl = stats.rankdata(lv)
    rx = stats.rankdata(x.astype(float))

    def rho(r):
        return float(np.corrcoef(rl, r)[0, 1])
    obs = rho(rx)
    perm = np.array([rho(rng.permutation(rx)) for _ in range(n_resamples)])
    p = (1 + np.sum(np.abs(perm) >= abs(obs) - 1e-12)) / (n_resamples + 1)
    return Trend(obs, float(p))


class PredictionTest(NamedTuple):
    """What :func:`prediction_test` returns."""

    agree_norm: float   #: share of runs whose order the normalised-moment theory predicts
    agree_raw: float    #: the same for the raw-moment theory (the null)
    n_differ: int       #: runs where the two predictions differ
    k_norm: int         #: of these, runs the normalised theory gets right
    p: float            #: one-sided sign-test p (binomial, 1/2)


def prediction_test(pred_norm, pred_raw, observed) -> PredictionTest:
    """Sign test over the runs where they differ: does the theory under the normalised second moment
    predict the trained order better than under the raw one?

    Parameters
    ----------
    pred_norm, pred_raw, observed : array_like(bool, ndim=1)
        Per run, the predicted and the trained order check.
    """
    a, b, o = _bools("pred_norm", pred_norm), _bools("pred_raw", pred_raw), _bools("observed", observed)
    if not a.size == b.size == o.size:
        raise ValueError(f"pred_norm, pred_raw and observed must have one length, got {a.size}, {b.size}, {o.size}")
    differ = a != b
    k = int(np.sum((a == o) & differ))
    m = int(differ.sum())
    p = float(stats.binomtest(k, m, 0.5, alternative="greater").pvalue) if m else 1.0
    return PredictionTest(float(np.mean(a == o)), float(np.mean(b == o)), m, k, p)


def late_over_early(trajectory, epochs) -> float:
    """Path length of the output trajectory in the second half of training over that in the first
    (Sec. 3.2: the slowing down makes it small).

    Parameters
    ----------
    trajectory : array_like(float, ndim=2)
        ``(records, k)`` positions of the output at ``x_hat``.
    epochs : array_like(float, ndim=1)
        Increasing, one per record.
    """
    tr = _checks.array("trajectory", trajectory, ndim=2)
    ep = _checks.array("epochs", epochs, ndim=1)
    if ep.size != tr.shape[0] or ep.size < 3 or np.any(np.diff(ep) <= 0):
        raise ValueError(f"epochs must be {tr.shape[0]} increasing values (one per record, at least 3), "
                         f"got {ep.size}")
    steps = np.linalg.norm(np.diff(tr, axis=0), axis=1)
    late = ep[1:] > ep[-1] / 2
    early = steps[~late].sum()
    if early == 0:
        raise ValueError("trajectory does not move in the first half of training: the ratio is undefined")
    return float(steps[late].sum() / early)
