"""Q2 of ``book/open_questions.md``: does the *early alignment* of two-layer ReLU
networks (App. E.4; Maennel et al. 2018, Min et al. 2023) happen on the SIM task, and
does the network then follow the linear theory's stages? Settings, measures, claim,
null and thresholds, all fixed (with a fingerprint, :func:`fingerprint`) before the
judged runs.

**Setting** (:data:`ALIGNMENT_RULES`). The chapter's data (the authors' Fig. 2(c) data
at ``d = 2``: ``mu = (2, 4)``, standard deviation ``sqrt(0.05)``, 5000 points per
cluster and the origin cluster, a random rotation per run), a two-layer ReLU MLP
(:class:`swingby.sim.models.MLP`, bias, hidden ``width``) whose default initialisation
is multiplied by ``init_scale`` (small), trained as the chapter trains (SGD, lr 0.01,
batch 128, 40 epochs, shuffled once, loss averaged over batch and dimensions). The
weights are recorded at ``n_records`` log-spaced steps.

**Null** (a plausible wrong model): the two-layer *linear* network of the same shape,
scale and training, started from the same weights on the same data (paired: run ``k``
of both models shares its data draw, rotation, initial weights and shuffling). It has
no early alignment of its own: its directions turn by the different growth rates of
the concepts, which needs the norms to grow.

**Measures** of one run (neuron ``j``: input weight ``w_j``, row ``j`` of the first
layer; output weight ``v_j``, column ``j`` of the second; the weight norm ``N(t) =
sqrt(||W_1||^2 + ||W_2||^2)``, biases excluded):

* :func:`growth_step`: the first recorded step ``t_g`` at which ``N(t) >= growth
  N(0)`` (the norms are still "small" before it: below ``growth`` times their start).
* :func:`turn_share`: of the neurons' total turning (the angular path of ``w_j /
  ||w_j||`` summed over the records, each neuron weighted by its final size ``||w_j||
  ||v_j||``), the share done before ``t_g``.
* :func:`cluster_alignment`: at ``t_g``, the weighted mean over neurons of ``max_p
  |cos(w_j, c_p)|`` with the cluster directions ``c_p`` (shown, not judged).
* :func:`~swingby.open_questions.alignment_stages.jacobian_share`: the same share for the direction ``J / ||J||_F`` of the
  input-output Jacobian at each training cluster's centre and at ``x_hat`` (shown).
* :func:`~swingby.open_questions.alignment_stages.stage_times`: from the Jacobian at ``x_hat`` in concept coordinates, the step
  at which the stronger concept's major entry reaches ``growth_level``, the step at
  which the weaker one does, and the step of the peak of the minor entry ``J[weak,
  strong]`` (the paper's growth and suppression stages, Sec. 4.2, App. D); compared
  with the symmetric model's prediction (:func:`~swingby.open_questions.alignment_stages.stage_match`).

**Claim** ("early alignment happens"): a ReLU run *passes* when its :func:`turn_share`
is at least ``share_min`` (the neurons turn most of their way while the norms are
still below ``growth`` times their start). Judged by :func:`alignment_check`: the
passing ReLU runs against the pass rate of the linear runs, by the book's verdict rule
(:func:`swingby.open_questions.checks.cell_check`, words holds / holds in part /
undecided / does not hold). That the ReLU network turns *more* than the linear one is
a one-sided sign test of the paired shares at ``alpha`` (:func:`paired_sign_test`).

**Stages** (shown with a threshold fixed here, not judged by the verdict rule): a run
follows the theory's stages when the stronger concept's entry grows first, the minor
entry peaks between the two growths, and the ratio of the two growth steps lies within
a factor ``stage_tol`` of the ratio the symmetric model of Sec. 4.2 predicts
(:func:`swingby.theory.simulation.simulate_symmetric` with the paper's ``A``, eq. C.13
with the origin cluster, from a Gaussian ``U`` whose Jacobian has the runs' median
initial size).

**Seeds**: ``seeds`` judged seeds ``0 .. seeds - 1``, each its own data draw and
initialisation (:func:`swingby.observations.runs.run_seed` with stream ``stream``,
which no other question uses); the pilot seeds :data:`PILOT_SEEDS`, used to choose
``init_scale``, ``width`` and ``growth``, are not among them.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby import _checks
from swingby.open_questions.checks import CellCheck, cell_check

#: seeds of the pilot runs that chose the design (init scale 0.03, 0.001, 0.0001; width
#: 16; growth 1.5 to 30): not judged
PILOT_SEEDS = (1000, 1001, 1002, 1003, 1004, 1005)


@dataclasses.dataclass(frozen=True)
class AlignmentRules:
    """Settings and thresholds of Q2, fixed before the judged runs. One frozen instance,
    :data:`ALIGNMENT_RULES`, is used."""

    # ------------------------------------------------------------------ data
    d: int = 2                          #: the chapter's low dimension
    mu: tuple = (2.0, 4.0)              #: the authors' Fig. 2(c) mu
    sigma: float = math.sqrt(0.05)      #: the authors' "0.05" as a standard deviation
    n_per_cluster: int = 5000           #: with the origin cluster
    # ------------------------------------------------------------ model, training
    width: int = 16                     #: hidden width of both networks
    init_scale: float = 0.001           #: multiplier of PyTorch's default initialisation
    lr: float = 0.01
    batch_size: int = 128
    epochs: int = 40
    n_records: int = 150                #: about this many log-spaced recorded steps
    # ------------------------------------------------------------ the claim
    growth: float = 10.0                #: "norms still small": below growth x their start
    share_min: float = 0.5              #: "most of their way": turn share at least this
    alpha: float = 0.05                 #: level of the sign test (and of the verdict rule)
    # ------------------------------------------------------------ stages
    growth_level: float = 0.5           #: a major Jacobian entry has grown at this value
    stage_tol: float = 1.5              #: growth-step ratio within this factor of the theory's
    theory_seeds: int = 40              #: initialisations of the symmetric model
    theory_eta: float = 0.005           #: its step (eq. D.2 clock; ratios do not depend on it)
    theory_steps: int = 20000           #: its steps
    # ------------------------------------------------------------ seeds
    seeds: int = 30                     #: judged seeds 0 .. seeds - 1
    stream: int = 2                     #: run_seed stream of Q2 (Q1 uses 0 and 1)


#: the rules Q2 reads
ALIGNMENT_RULES = AlignmentRules()


def values(rules: AlignmentRules = ALIGNMENT_RULES) -> dict:
    """The rules as a plain dict of name to value (tuples as lists).

    Parameters
    ----------
    rules : AlignmentRules
        Which rules.

    Returns
    -------
    dict
    """
    if not isinstance(rules, AlignmentRules):
        raise ValueError(f"rules must be an AlignmentRules, got {type(rules).__name__}")
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(rules).items()}


def fingerprint(rules: AlignmentRules = ALIGNMENT_RULES) -> str:
    """A short sha256 (16 hex digits) of the rules' values.

    Parameters
    ----------
    rules : AlignmentRules
        Which rules (default: :data:`ALIGNMENT_RULES`).

    Returns
    -------
    str
    """
    text = json.dumps({"class": type(rules).__name__, **values(rules)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ------------------------------------------------------------------ measures
def _weights(W1, W2) -> tuple[np.ndarray, np.ndarray]:
    w1 = _checks.array("W1", W1, ndim=3)
    w2 = _checks.array("W2", W2, ndim=3)
    T, h, _ = w1.shape
    if w2.shape[0] != T or w2.shape[2] != h or T < 2:
        raise ValueError(f"W2 must have shape (T, d_out, {h}) with T = {T} >= 2 records to match W1 (T, width, d), "
                         f"got {w2.shape}")
    return w1, w2


def weight_norm(W1, W2) -> np.ndarray:
    """``N(t) = sqrt(||W_1(t)||^2 + ||W_2(t)||^2)`` over the records (biases excluded).

    Parameters
    ----------
    W1 : array_like(float, ndim=3)
        ``(T, width, d)`` first-layer weights at ``T >= 2`` records.
    W2 : array_like(float, ndim=3)
        ``(T, d_out, width)`` second-layer weights.

    Returns
    -------
    numpy.ndarray
        ``(T,)``.
    """
    w1, w2 = _weights(W1, W2)
    return np.sqrt((w1 ** 2).sum((1, 2)) + (w2 ** 2).sum((1, 2)))


def growth_step(W1, W2, growth: float = ALIGNMENT_RULES.growth) -> int:
    """Index of the first record at which the weight norm reaches ``growth`` times its
    start (the last record if it never does).

    Parameters
    ----------
    W1, W2 : array_like(float, ndim=3)
        As in :func:`weight_norm`.
    growth : float
        ``> 1``.

    Returns
    -------
    int
    """
    growth = _checks.number("growth", growth, low=1, low_open=True)
    n = weight_norm(W1, W2)
    if not n[0] > 0:
        raise ValueError("W1 and W2 must not start at zero: the growth of their norm is undefined")
    hit = np.flatnonzero(n >= growth * n[0])
    return int(hit[0]) if hit.size else n.size - 1


def _unit_rows(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, norm, out=np.zeros_like(v), where=norm > 0)


def _path(u: np.ndarray) -> np.ndarray:
    """``(T - 1, ...)`` angles between consecutive unit vectors (last axis), as
    ``2 arcsin(|u' - u| / 2)`` (exactly 0 for equal vectors, unlike ``arccos`` of a
    rounded dot product); 0 where either is the zero vector, and below ``1e-12``
    (rounding of the normalisation, not a turn)."""
    both = (np.linalg.norm(u[1:], axis=-1) > 0) & (np.linalg.norm(u[:-1], axis=-1) > 0)
    angle = 2 * np.arcsin(np.clip(np.linalg.norm(u[1:] - u[:-1], axis=-1) / 2, 0.0, 1.0))
    return np.where(both & (angle > 1e-12), angle, 0.0)


def _share(steps_angle: np.ndarray, k: int, weight=None) -> float:
    per = steps_angle if weight is None else steps_angle * weight
    per = per.reshape(per.shape[0], -1).sum(1)
    total = per.sum()
    return float(per[:k].sum() / total) if total > 0 else float("nan")


def neuron_weights(W1, W2) -> np.ndarray:
    """Each neuron's final size ``||w_j(T)|| ||v_j(T)||``, the weight of its turning.

    Parameters
    ----------
    W1, W2 : array_like(float, ndim=3)
        As in :func:`weight_norm`.

    Returns
    -------
    numpy.ndarray
        ``(width,)``.
    """
    w1, w2 = _weights(W1, W2)
    return np.linalg.norm(w1[-1], axis=1) * np.linalg.norm(w2[-1], axis=0)


def turn_share(W1, W2, growth: float = ALIGNMENT_RULES.growth) -> float:
    """Share of the neurons' total turning done before the weight norm reaches
    ``growth`` times its start (record :func:`growth_step`): the angular path of every
    ``w_j / ||w_j||`` over the records, weighted by :func:`neuron_weights`. NaN where
    no neuron turns.

    Parameters
    ----------
    W1, W2 : array_like(float, ndim=3)
        As in :func:`weight_norm`.
    growth : float
        ``> 1``.

    Returns
    -------
    float
        In ``[0, 1]``.
    """
    k = growth_step(W1, W2, growth)
    w1, _ = _weights(W1, W2)
    return _share(_path(_unit_rows(w1)), k, neuron_weights(W1, W2))


def cluster_alignment(W1, W2, centres, growth: float = ALIGNMENT_RULES.growth) -> float:
    """At record :func:`growth_step`, the mean over neurons (weighted by
    :func:`neuron_weights`) of ``max_p |cos(w_j, c_p)|``.

    Parameters
    ----------
    W1, W2 : array_like(float, ndim=3)
        As in :func:`weight_norm`.
    centres : array_like(float, ndim=2)
        ``(s, d)`` the training clusters' centres (input coordinates), non-zero.
    growth : float
        ``> 1``.

    Returns
    -------
    float
        In ``[0, 1]``.
    """
    w1, _ = _weights(W1, W2)
    c = _checks.array("centres", centres, ndim=2)
    if c.shape[1] != w1.shape[2] or np.any(np.linalg.norm(c, axis=1) == 0):
        raise ValueError(f"centres must be non-zero rows of length d = {w1.shape[2]}, got shape {c.shape}")
    k = growth_step(W1, W2, growth)
    cos = np.abs(_unit_rows(w1[k]) @ _unit_rows(c).T).max(1)
    wt = neuron_weights(W1, W2)
    return float((cos * wt).sum() / wt.sum()) if wt.sum() > 0 else float("nan")


# ------------------------------------------------------------------ the check
def alignment_passes(shares, rules: AlignmentRules = ALIGNMENT_RULES) -> np.ndarray:
    """Per run, whether its :func:`turn_share` is at least ``share_min`` (NaN fails).

    Parameters
    ----------
    shares : array_like(float, ndim=1)
        Turn shares of the runs (NaN allowed).
    rules : AlignmentRules
        Supplies ``share_min``.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` bool.
    """
    x = _checks.array("shares", shares, ndim=1, finite=False)
    if not isinstance(rules, AlignmentRules):
        raise ValueError(f"rules must be an AlignmentRules, got {type(rules).__name__}")
    return np.nan_to_num(x, nan=-1.0) >= rules.share_min


def alignment_check(relu_shares, linear_shares, rules: AlignmentRules = ALIGNMENT_RULES) -> CellCheck:
    """The claim of Q2 judged: the ReLU runs that pass :func:`alignment_passes` against
    the pass rate of the linear runs (the null), by the book's verdict rule
    (:func:`swingby.open_questions.checks.cell_check`).

    Parameters
    ----------
    relu_shares, linear_shares : array_like(float, ndim=1)
        :func:`turn_share` of every ReLU and every linear run.
    rules : AlignmentRules
        The thresholds.

    Returns
    -------
    CellCheck
    """
    return cell_check(alignment_passes(relu_shares, rules), alignment_passes(linear_shares, rules))


class SignTest(NamedTuple):
    """What :func:`paired_sign_test` returns."""

    n_more: int     #: pairs in which the ReLU run's share is larger
    n: int          #: pairs with a difference (ties and NaN left out)
    p: float        #: one-sided binomial p (1/2)
    more: bool      #: ``p <= alpha``


def paired_sign_test(relu_shares, linear_shares, rules: AlignmentRules = ALIGNMENT_RULES) -> SignTest:
    """Does the ReLU network turn more before ``t_g`` than the linear one started from
    the same weights on the same data? One-sided sign test over the pairs.

    Parameters
    ----------
    relu_shares, linear_shares : array_like(float, ndim=1)
        Paired :func:`turn_share` s, one length.
    rules : AlignmentRules
        Supplies ``alpha``.

    Returns
    -------
    SignTest
    """
    a = _checks.array("relu_shares", relu_shares, ndim=1, finite=False)
    b = _checks.array("linear_shares", linear_shares, ndim=1, finite=False)
    if a.size != b.size:
        raise ValueError(f"relu_shares and linear_shares must be paired (one length), got {a.size} and {b.size}")
    if not isinstance(rules, AlignmentRules):
        raise ValueError(f"rules must be an AlignmentRules, got {type(rules).__name__}")
    ok = np.isfinite(a) & np.isfinite(b) & (a != b)
    k, n = int(np.sum(a[ok] > b[ok])), int(ok.sum())
    p = float(stats.binomtest(k, n, 0.5, alternative="greater").pvalue) if n else 1.0
    return SignTest(k, n, p, p <= rules.alpha)
