"""The order homomorphism of App. B on the hypercube test points (eq. B.1, B.2; Fig. 7).

:func:`~swingby.observations.hypercube.comparable_pairs` lists the pairs ``u <= v`` of test points,
:func:`~swingby.observations.hypercube.order_property` the share of them whose losses keep that order at each recorded
time, and :func:`~swingby.observations.hypercube.hypercube_learning_times` the learning time of every test point. Used
in ``book/topological_order.md``. Every name is imported from
:mod:`swingby.observations`.
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.observations.learning import _record
from swingby.sim.train_loop import TrainRecord

#: Most rows :func:`comparable_pairs` accepts: ``2**12`` (``s = 12`` concepts), because it
#: compares every pair of rows (``4**s`` comparisons) and returns about ``3**s`` pairs.
MAX_PAIR_ROWS = 2**12


def _check_test_index(test_index) -> np.ndarray:
    V = _checks.array("test_index", test_index, ndim=2, allow_bool=True)
    if not np.all((V == 0) | (V == 1)):
        raise ValueError("test_index must hold 0/1 vectors v in {0,1}^s (one per row)")
    if len(V) > MAX_PAIR_ROWS:
        raise ValueError(
            f"test_index has {len(V)} rows (s = {V.shape[1]} concepts); comparing every pair takes "
            f"4**s steps and about 3**s pairs of memory, so at most {MAX_PAIR_ROWS} rows (s <= 12) are allowed")
    return V


def comparable_pairs(test_index: np.ndarray) -> list[tuple[int, int]]:
    """All pairs ``(i, j)``, ``i != j``, with ``v_i <= v_j`` componentwise (App. B), in
    lexicographic order of ``(i, j)``. ``test_index`` has at most :data:`MAX_PAIR_ROWS` rows."""
    V = _check_test_index(test_index)
    le = np.ones((len(V), len(V)), dtype=bool)
    for p in range(V.shape[1]):
        le &= V[:, None, p] <= V[None, :, p]
    np.fill_diagonal(le, False)
    return list(zip(*(idx.tolist() for idx in np.nonzero(le))))


def order_property(rec: TrainRecord, *, skip_initial: bool = True,
                   exclude_origin: bool = False) -> np.ndarray:
    """Per recorded time, the fraction of comparable pairs ``u <= v`` that satisfy
    the order property of eq. (B.2): ``loss(x^(u)) <= loss(x^(v))``. Used in
    ``book/topological_order.md``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run.
    skip_initial : bool
        Drop step 0 (the untrained model, which eq. B.2 is not about).
    exclude_origin : bool
        Drop the pairs with ``u = 0`` (the origin).

    Returns
    -------
    numpy.ndarray
        ``(R,)`` fractions in ``[0, 1]``, one per kept record.
    """
    rec = _record("rec", rec)
    L = rec.test_point_losses()
    if _checks.flag("skip_initial", skip_initial) and rec.steps[0] == 0:
        L = L[1:]
    if len(L) == 0:
        raise ValueError("rec has no records after step 0 (skip_initial=True drops the initial model)")
    exclude_origin = _checks.flag("exclude_origin", exclude_origin)
    pairs = np.array(comparable_pairs(rec.test_index))
    if exclude_origin:
        pairs = pairs[np.asarray(rec.test_index)[pairs[:, 0]].sum(axis=1) > 0]
    ok = L[:, pairs[:, 0]] <= L[:, pairs[:, 1]]
    return ok.mean(axis=1)


#: The additive nulls :func:`hypercube_learning_times` can build from a run's losses.
ADDITIVE_NULLS = ("sum", "origin")


def hypercube_learning_times(rec: TrainRecord, level: float = 0.1, *, additive: str | None = None) -> np.ndarray:
    """Learning time ``T(v)`` of every test point of eq. (B.1): the first recorded epoch
    at which its loss is at most ``level`` (``inf`` if never). Eq. (B.2) read as learning
    times is ``u <= v  =>  T(u) <= T(v)``; used in ``book/topological_order.md``.

    Parameters
    ----------
    rec : TrainRecord
        A finite run.
    level : float
        Loss at which a test point counts as learned, ``> 0`` (the chapter: 0.1, a tenth
        of Fig. 7's colour scale).
    additive : {None, "sum", "origin"}
        ``None``: the run's own losses. Otherwise an *additive* null built from them:
        ``"sum"``, ``sum_{p in v} l(e_p)``, a model whose loss is a sum of non-negative
        per-concept terms (it satisfies eq. B.2 by construction, issue 23);
        ``"origin"``, ``l(0) + sum_{p in v} (l(e_p) - l(0))``, the same relative to the
        origin's loss (the first form tried: its terms can be negative, because the
        origin's loss comes from the bias, so it need not satisfy eq. B.2).

    Returns
    -------
    numpy.ndarray
        ``(2**s,)`` epochs, in the order of ``rec.test_index``.
    """
    rec = _record("rec", rec)
    level = _checks.positive_float("level", level)
    losses = rec.test_point_losses()
    if additive is not None:
        additive = _checks.choice("additive", additive, ADDITIVE_NULLS)
        index = np.asarray(rec.test_index)
        origin = int(np.flatnonzero(index.sum(axis=1) == 0)[0])
        singles = [int(np.flatnonzero((index.sum(axis=1) == 1) & (index[:, p] == 1))[0])
                   for p in range(index.shape[1])]
        if additive == "sum":
            losses = losses[:, singles] @ index.T.astype(float)
        else:
            gain = losses[:, singles] - losses[:, [origin]]
            losses = losses[:, [origin]] + gain @ index.T.astype(float)
    below = losses <= level
    return np.where(below.any(axis=0), rec.epochs[np.argmax(below, axis=0)], np.inf)
