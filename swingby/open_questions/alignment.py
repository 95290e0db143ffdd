"""Q2 of ``book/open_questions.md``: does the *early alignment* of two-layer ReLU networks
(App. E.4) happen on the SIM task, and do they then follow the linear theory's stages (Sec. 4.2)?
A ReLU run passes when its ``turn_share`` (turning done before the weight norm has grown
``growth``-fold) is at least ``share_min``; the null is the linear network started from the same
weights on the same data. Settings and thresholds were fixed before the judged runs.
"""
from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby import _checks, verdicts
from swingby.open_questions.checks import CellCheck, cell_check

__all__ = ["ALIGNMENT_RULES", "AlignmentRules", "PILOT_SEEDS", "SignTest", "alignment_passes", "fingerprint",
           "paired_sign_test"]

#: seeds of the pilot runs that chose the design (init scale, width, growth): not judged
PILOT_SEEDS = (1000, 1001, 1002, 1003, 1004, 1005)


@dataclasses.dataclass(frozen=True)
class AlignmentRules:
    """Settings and thresholds of Q2, fixed before the judged runs (one instance: :data:`ALIGNMENT_RULES`)."""

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


def fingerprint(rules: AlignmentRules = ALIGNMENT_RULES) -> str:
    """A short hash (16 hex digits) of the rules' values (:func:`swingby.verdicts.fingerprint`)."""
    return verdicts.fingerprint(rules)


# ------------------------------------------------------------------ measures
# W1: (T, width, d) first-layer weights at T records; W2: (T, d_out, width) second-layer weights
def weight_norm(W1: np.ndarray, W2: np.ndarray) -> np.ndarray:
    """``N(t) = sqrt(||W_1(t)||^2 + ||W_2(t)||^2)`` over the records (biases excluded)."""
    return np.sqrt((W1 ** 2).sum((1, 2)) + (W2 ** 2).sum((1, 2)))


def growth_step(W1: np.ndarray, W2: np.ndarray, growth: float = ALIGNMENT_RULES.growth) -> int:
    """The first record at which the weight norm reaches ``growth`` times its start (else the last)."""
    n = weight_norm(W1, W2)
    hit = np.flatnonzero(n >= growth * n[0])
    return int(hit[0]) if hit.size else n.size - 1


def _unit_rows(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, norm, out=np.zeros_like(v), where=norm > 0)


def _angles(u: np.ndarray) -> np.ndarray:
    """Angles ``2 arcsin(|u' - u| / 2)`` between consecutive unit vectors; 0 for zero vectors and below 1e-12."""
    both = (np.linalg.norm(u[1:], axis=-1) > 0) & (np.linalg.norm(u[:-1], axis=-1) > 0)
    angle = 2 * np.arcsin(np.clip(np.linalg.norm(u[1:] - u[:-1], axis=-1) / 2, 0.0, 1.0))
    return np.where(both & (angle > 1e-12), angle, 0.0)


def _share_before(per_step: np.ndarray, k: int) -> float:
    total = per_step.sum()
    return float(per_step[:k].sum() / total) if total > 0 else float("nan")


def neuron_weights(W1: np.ndarray, W2: np.ndarray) -> np.ndarray:
    """Each neuron's final size ``||w_j(T)|| ||v_j(T)||``, the weight of its turning."""
    return np.linalg.norm(W1[-1], axis=1) * np.linalg.norm(W2[-1], axis=0)


def turning(W1: np.ndarray, W2: np.ndarray) -> np.ndarray:
    """Per step between records, the angles the neurons' directions turn, weighted by ``neuron_weights``."""
    return (_angles(_unit_rows(W1)) * neuron_weights(W1, W2)).sum(1)


def turn_share(W1: np.ndarray, W2: np.ndarray, growth: float = ALIGNMENT_RULES.growth) -> float:
    """Share of the neurons' ``turning`` done before ``growth_step`` (NaN if none turns)."""
    return _share_before(turning(W1, W2), growth_step(W1, W2, growth))


def cluster_alignment(W1: np.ndarray, W2: np.ndarray, centres: np.ndarray,
                      growth: float = ALIGNMENT_RULES.growth) -> float:
    """At ``growth_step``, the weighted mean over neurons of ``max_p |cos(w_j, c_p)|`` (``c_p``: ``centres``)."""
    k = growth_step(W1, W2, growth)
    cos = np.abs(_unit_rows(W1[k]) @ _unit_rows(centres).T).max(1)
    wt = neuron_weights(W1, W2)
    return float((cos * wt).sum() / wt.sum()) if wt.sum() > 0 else float("nan")


def jacobian_share(J: np.ndarray, k: int) -> float:
    """Share of the turning of the direction ``J / ||J||_F`` (``J``: ``(T, d, d)``) done before record ``k``."""
    return _share_before(_angles(_unit_rows(J.reshape(J.shape[0], -1))), k)


class StageTimes(NamedTuple):
    """What ``stage_times`` returns (steps; ``inf`` where a stage never happens)."""

    strong: float      #: the stronger concept's major entry reaches ``growth_level``
    weak: float        #: the weaker concept's major entry does
    minor_peak: float  #: the minor entry ``J[weak, strong]`` is largest


def stage_times(steps: np.ndarray, J: np.ndarray, mu, growth_level: float = ALIGNMENT_RULES.growth_level
                ) -> StageTimes:
    """The growth and suppression stages (Sec. 4.2) of the Jacobian ``J`` (concept coordinates) over ``steps``."""
    s, w = int(np.argmax(mu[:2])), int(np.argmin(mu[:2]))

    def first(x):
        hit = np.flatnonzero(x >= growth_level)
        return float(steps[hit[0]]) if hit.size else math.inf
    return StageTimes(first(J[:, s, s]), first(J[:, w, w]), float(steps[int(np.argmax(J[:, w, s]))]))


def stage_match(times: StageTimes, predicted_ratio: float, tol: float = ALIGNMENT_RULES.stage_tol) -> bool:
    """Stronger concept first, minor peak between the growths, ``weak / strong`` within ``tol`` of the theory's."""
    if not (0 < times.strong < times.weak < math.inf):
        return False
    ratio = times.weak / times.strong
    return bool(times.strong <= times.minor_peak <= times.weak and abs(math.log(ratio / predicted_ratio))
                <= math.log(tol))


# ------------------------------------------------------------------ the check
def alignment_passes(shares, rules: AlignmentRules = ALIGNMENT_RULES) -> np.ndarray:
    """Per run, whether its ``turn_share`` (``shares``, NaN allowed) is at least ``rules.share_min`` (NaN fails).

    Parameters
    ----------
    shares : array_like(float, ndim=1)
    rules : AlignmentRules
    """
    x = _checks.array("shares", shares, ndim=1, finite=False)
    if not isinstance(rules, AlignmentRules):
        raise ValueError(f"rules must be an AlignmentRules, got {type(rules).__name__}")
    return np.nan_to_num(x, nan=-1.0) >= rules.share_min


def alignment_check(relu_shares, linear_shares, rules: AlignmentRules = ALIGNMENT_RULES) -> CellCheck:
    """The claim of Q2 judged: the passing ReLU runs against the linear runs' pass rate."""
    return cell_check(alignment_passes(relu_shares, rules), alignment_passes(linear_shares, rules))


class SignTest(NamedTuple):
    """What :func:`paired_sign_test` returns."""

    n_more: int     #: pairs in which the ReLU run's share is larger
    n: int          #: pairs with a difference (ties and NaN left out)
    p: float        #: one-sided binomial p (1/2)
    more: bool      #: ``p <= alpha``


def paired_sign_test(relu_shares, linear_shares, rules: AlignmentRules = ALIGNMENT_RULES) -> SignTest:
    """One-sided sign test (level ``rules.alpha``) over the paired ``turn_share`` s: does the ReLU network turn
    more before ``t_g`` than the linear one?

    Parameters
    ----------
    relu_shares, linear_shares : array_like(float, ndim=1)
    rules : AlignmentRules
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
