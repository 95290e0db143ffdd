"""The units of the observation chapters' registered claims (``swingby.claims.observations``): the order of
Sec. 3.1, the slowing of Sec. 3.2, the swing-by of Sec. 3.3 and the end point of Sec. 3. The swing-by's wrong
model has equal signal ``mu_1 = mu_2``: its loss (4.1) is isotropic on the concept plane, so in the symmetric
model of Sec. 4.2 its test loss can only fall (:func:`equal_signal_audit`).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from swingby import _checks, verdicts
from swingby.observations.learning import a_diagonal, check_records, order_passes
from swingby.observations.ood import relative_distance
from swingby.observations.rules import OBS_RULES, ObsRules
from swingby.observations.runs import EQUAL_MU, FIG2A, FIG2B, FIG2C_MU, SIGMA_05, run_sweep
from swingby.observations.slowing import normalised_sgd_sweep, terminal_slowing
from swingby.observations.swingby import loss_rise, record_rise
from swingby.sim.symmetric import dynamics_a, initial_U, simulate_symmetric
from swingby.sim.train_loop import TrainRecord

__all__ = ["Units", "OrderSlowing", "order_and_slowing", "count_nonmonotone", "reach_units", "Audit",
           "equal_signal_audit"]

#: the configurations of the order sweep (Figs. 2a, 2b and two with equal mu)
ORDER_CONFIGS = FIG2A + FIG2B[1:] + EQUAL_MU


class Units(NamedTuple):
    """Passing units of a claim and of its wrong model (or of the smaller group)."""

    k: int                          #: passing units
    n: int                          #: units
    null_k: int                     #: passing units of the wrong model
    null_n: int                     #: units of the wrong model
    pairs: tuple | None = None      #: ``(b, c)`` discordant pairs of a paired design

    def judge(self, form: str) -> verdicts.Judgement:
        """:func:`swingby.verdicts.judge` of these counts in the given form."""
        return verdicts.judge(form, self.k, self.n, self.null_k, self.null_n, pairs=self.pairs)


def discriminating(configs: Sequence[dict] = ORDER_CONFIGS, *, margin: float = 1.2) -> list[int]:
    """Configurations whose ``a_p`` (eq. C.13) differ over ``margin``-fold and whose order ``mu`` alone misses."""
    out = []
    for i, c in enumerate(configs):
        mu, sigma = np.asarray(c["mu"], float), np.asarray(c["sigma"], float)
        a = sigma**2 + mu**2 / (mu.size + 1)
        if a.max() > margin * a.min() and (mu[0] == mu[1] or np.argmax(a) != np.argmax(mu)):
            out.append(i)
    return out


class OrderSlowing(NamedTuple):
    """What :func:`order_and_slowing` returns."""

    order: Units              #: larger ``a_p`` first, vs the same configurations without diversity
    slowing: Units            #: ``terminal_slowing``, vs normalised SGD
    runs: list                #: the real runs, configuration-major, activation by activation
    null_runs: list           #: the runs with the diversity removed
    normalised_runs: list     #: the normalised-SGD runs


def order_and_slowing(seeds: Sequence[int], *, depth: int = 1, activations: Sequence[str] = ("linear",),
                      null_seeds: Sequence[int] | None = None, slow_null_seeds: Sequence[int] | None = None,
                      rules: ObsRules = OBS_RULES) -> OrderSlowing:
    """The units of Sec. 3.1 (order: ``order_passes``, against runs without diversity, stream 1) and 3.2
    (slowing: ``terminal_slowing``, against normalised SGD, stream 2) on the discriminating configurations.

    Parameters
    ----------
    seeds, null_seeds, slow_null_seeds
        Distinct seeds of the real runs, of those without diversity and of normalised SGD (default ``seeds``).
    depth, activations, rules
        Layers (1: Sec. 3.1, 3.2; 2: Figs. 11, 12), "linear" and/or "relu", and the thresholds.
    """
    rules = _checks.instance("rules", rules, ObsRules, "swingby.observations.rules.ObsRules")
    if isinstance(activations, str) or not list(activations):
        raise ValueError(f"activations must be a non-empty sequence of 'linear'/'relu', got {activations!r}")
    idx = discriminating(margin=rules.order_margin)
    configs = [ORDER_CONFIGS[i] for i in idx]
    no_div = [dict(mu=c["mu"], sigma=(SIGMA_05, SIGMA_05)) for c in configs]
    max_ratio = rules.slowdown_one if depth == 1 else rules.slowdown_two
    runs, nulls, norms, order, order_null = [], [], [], [], []
    for act in activations:
        kw = dict(depth=depth, seeds=seeds, seeding="independent", activation=act)
        real = run_sweep(configs, **kw)
        null = run_sweep(no_div, stream=1, **dict(kw, seeds=seeds if null_seeds is None else null_seeds))
        norm = normalised_sgd_sweep(configs, depth=depth, activation=act, lr=rules.slow_null_lr, stream=2,
                                    seeds=seeds if slow_null_seeds is None else slow_null_seeds)
        for recs, nrecs in zip(real, null):
            first = int(np.argmax(a_diagonal(recs[0])))
            order += [order_passes(r, time_ratio=rules.order_time_ratio) for r in recs]
            order_null += [order_passes(r, time_ratio=rules.order_time_ratio, first=first) for r in nrecs]
        runs += [r for rs in real for r in rs]
        nulls += [r for rs in null for r in rs]
        norms += [r for rs in norm for r in rs]
    slow, slow_null = ([terminal_slowing(r, max_ratio=max_ratio, band_low=rules.slow_band_low,
                                         min_gradual=rules.slow_min_gradual).passes for r in recs]
                       for recs in (runs, norms))
    return OrderSlowing(Units(sum(order), len(order), sum(order_null), len(order_null)),
                        Units(sum(slow), len(slow), sum(slow_null), len(slow_null)), runs, nulls, norms)


def count_nonmonotone(records: Sequence[TrainRecord], threshold: float = OBS_RULES.rise) -> int:
    """How many runs have a non-monotone OOD test loss, a rise (eq. obs-rise) above ``threshold`` (Sec. 3.3).

    Parameters
    ----------
    records, threshold
        Finite runs, and the rise ``rho_0 >= 0``.
    """
    threshold = _checks.number("threshold", threshold, low=0)
    return int(sum(record_rise(r) > threshold for r in check_records("records", records)))


def reach_units(with_origin: Sequence[TrainRecord], without_origin: Sequence[TrainRecord], *,
                level: float = OBS_RULES.reach_deep) -> Units:
    """Paired units of "with enough training the output reaches ``x_hat``" (Sec. 3, 4.1), a run ending within
    ``level * ||x_hat||`` of it, against the same network without the origin cluster.

    Parameters
    ----------
    with_origin, without_origin, level
        Equally long sequences of runs, paired by position; the largest final distance / ``||x_hat||``.
    """
    level = _checks.positive_float("level", level)
    a, b = list(with_origin), list(without_origin)
    if not a or len(a) != len(b):
        raise ValueError("with_origin and without_origin must be non-empty and equally long, "
                         f"got {len(a)} and {len(b)}")
    pa = np.array([relative_distance(r) < level for r in a])
    pb = np.array([relative_distance(r) < level for r in b])
    return Units(int(pa.sum()), len(pa), int(pb.sum()), len(pb), verdicts.discordant_pairs(pa, pb))


class Audit(NamedTuple):
    """What :func:`equal_signal_audit` returns."""

    equal: int     #: initialisations with a rising test loss, equal signal
    unequal: int   #: the same, with the real data's ``mu``
    n: int         #: initialisations
    max_rise_equal: float  #: largest rise with equal signal


def equal_signal_audit(rules: ObsRules = OBS_RULES) -> Audit:
    """The null audit of the equal-signal model (module docstring): the symmetric model of Sec. 4.2 at
    ``d = rules.low_d`` from ``rules.audit_runs`` initialisations, for ``mu = FIG2C_MU`` and for equal
    signal; a run counts when its rise exceeds ``rules.rise``."""
    rules = _checks.instance("rules", rules, ObsRules, "swingby.observations.rules.ObsRules")
    d = rules.low_d
    U0 = initial_U(d, range(rules.audit_runs), init_scale=rules.audit_init_scale)
    counts, tops = [], []
    for mu in ((rules.null_mu, rules.null_mu), FIG2C_MU):
        a = dynamics_a(mu, SIGMA_05, d, matrix="paper", origin_cluster=True)
        x_hat = np.zeros(d)
        x_hat[:2] = mu
        rec = simulate_symmetric(U0, a, rules.audit_eta, rules.audit_steps, x_hat, record_every=10, iterate="U")
        rises = np.array([loss_rise(L, 0.5 * float(x_hat @ x_hat)) for L in rec.test_loss])
        counts.append(int(np.sum(rises > rules.rise)))
        tops.append(float(rises.max()))
    return Audit(counts[0], counts[1], rules.audit_runs, tops[0])
