"""What the capability time depends on and what marks it (the hidden-capabilities
study, issue 22), checked with the seed as the unit of every permutation
(``scipy.stats.permutation_test``) and thresholds from
:data:`swingby.diffusion.rules.RULES`. The first half of the new capability checks is in
:mod:`swingby.capability.checks`.

* :func:`time_vs_separation`: the capability time falls as the colour separation grows
  (the study's appendix). Per seed, the rank correlation of separation and capability
  time; null: its sign flipped at random per seed.
* :func:`loss_mark`: the training loss has no feature at the capability time (study
  Fig. 4, left). Null: each seed's loss paired with another seed's capability times.
  Its sensitivity: the same test on the loss with a bump of ``loss_bump`` added at each
  run's own capability time; only a test that sees that bump can say "no hint".
* :func:`disentanglement`: the embedding disentanglement's transition step tracks the
  capability time (study Fig. 5); an honest "inconclusive" with the seeds a decision
  would need (Fisher-z power from the observed correlation).
* :func:`best_probe`: the probe that marks the capability time best, with a family-wise
  p-value over all probes (choosing the best of several after the fact is paid for).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby.capability import measures as M
from swingby.diffusion.rules import RULES, Rules, runs_needed_for_r


def _perm(data, statistic, rules: Rules, seed: int, kind: str, alternative: str) -> float:
    return float(stats.permutation_test(data, statistic, permutation_type=kind, vectorized=False,
                                        n_resamples=rules.n_resamples, alternative=alternative,
                                        rng=np.random.default_rng(seed)).pvalue)


class SeparationDependence(NamedTuple):
    """Does the capability time fall with the colour separation?"""

    rho_per_seed: np.ndarray  #: (S,) Spearman correlation of separation and capability time
    mean_rho: float
    p_value: float            #: sign-flip permutation over seeds (one-sided, falling)
    verdict: str
    needed: str


def time_vs_separation(t_cap: np.ndarray, dcs: np.ndarray, rules: Rules = RULES, seed: int = 0
                       ) -> SeparationDependence:
    """Per seed, the rank correlation of colour separation and capability time (``inf``
    ranks last); their mean is tested against sign flips per seed (the seed is the unit).

    Parameters
    ----------
    t_cap : array (D, S)
        Capability times.
    dcs : array (D,)
        The separations.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the permutations.

    Returns
    -------
    SeparationDependence
    """
    t = M._times("t_cap", t_cap)
    dcs = np.asarray(dcs, float)
    rho = []
    for s in range(t.shape[1]):
        ok = ~np.isnan(t[:, s])
        r = stats.spearmanr(dcs[ok], t[ok, s]).statistic if ok.sum() >= 3 else np.nan
        rho.append(r)
    rho = np.asarray(rho, float)
    good = rho[np.isfinite(rho)]
    p = _perm((good,), np.mean, rules, seed, "samples", "less") if good.size >= 2 else 1.0
    n_neg = int(np.sum(good < 0))
    if p <= rules.alpha:
        share = n_neg / good.size
        word = "reproduced" if share >= rules.every_seed_fraction else \
            "partly" if share >= rules.partly_seed_fraction else "inconclusive"
    elif good.size and np.mean(good) > 0 and _perm((good,), np.mean, rules, seed, "samples", "greater") <= rules.alpha:
        word = "differs"
    else:
        word = "inconclusive"
    sd = float(np.std(good, ddof=1)) if good.size > 1 else float("nan")
    m = float(np.mean(good)) if good.size else float("nan")
    z = stats.norm.isf(rules.alpha) + stats.norm.ppf(rules.power)
    need = max(int(math.ceil((z * sd / abs(m)) ** 2)), 5) if m < 0 and sd > 0 else None
    needed = (f"decided at this size ({good.size} seeds)" if p <= rules.alpha else
              f"{need} seeds (one-sided, power {rules.power:.0%}, the observed mean and spread; a sign-flip "
              f"test needs at least 5)" if need else "no sample size: the mean correlation is not negative")
    return SeparationDependence(rho, m, p, word, needed)


class LossMark(NamedTuple):
    """Does the training loss show a feature at the capability time (study Fig. 4)?"""

    statistic: float            #: mean over runs of the absolute residual near the capability time minus elsewhere
    p_value: float              #: each seed's loss paired with another seed's capability times
    injected_p: float           #: the same test after adding a ``loss_bump`` feature at each run's own time
    old_spread: float           #: the old rule: std(t_loss) / std(t_cap)
    old_null_pass_rate: float   #: the old rule on loss curves shuffled among all runs
    verdict: str                #: "reproduced" (no hint, and the test can see one), "differs", "inconclusive"
    needed: str                 #: what would decide it


def _residual(log_loss: np.ndarray, w: int) -> np.ndarray:
    """``log_loss (..., R)`` minus its moving average over ``2 w + 1`` records (edges: nearest)."""
    pad = np.concatenate([np.repeat(log_loss[..., :1], w, -1), log_loss, np.repeat(log_loss[..., -1:], w, -1)], -1)
    kernel = np.ones(2 * w + 1) / (2 * w + 1)
    smooth = np.apply_along_axis(lambda x: np.convolve(x, kernel, mode="valid"), -1, pad)
    return log_loss - smooth


def _mark(resid: np.ndarray, rec_steps: np.ndarray, t_cap: np.ndarray, w: int) -> float:
    """Mean over runs of ``mean |resid|`` within ``w`` records of ``t_cap`` minus elsewhere."""
    vals = []
    for i, j in np.ndindex(t_cap.shape):
        if not np.isfinite(t_cap[i, j]) or np.isnan(resid[i, j]).any():
            continue
        k = int(np.argmin(np.abs(rec_steps - t_cap[i, j])))
        near = np.zeros(rec_steps.size, bool)
        near[max(k - w, 0):k + w + 1] = True
        vals.append(np.abs(resid[i, j, near]).mean() - np.abs(resid[i, j, ~near]).mean())
    return float(np.mean(vals)) if vals else float("nan")


def loss_mark(res: dict, t_cap: np.ndarray, rules: Rules = RULES, seed: int = 0) -> LossMark:
    """The loss half of the study's Fig. 4 with a null and a sensitivity test.

    Parameters
    ----------
    res : dict
        A results dict (needs the training log ``loss``).
    t_cap : array (D, S)
        Capability times.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the permutations.

    Returns
    -------
    LossMark
    """
    from swingby.capability.probes import loss_log, transition_step
    t = M._times("t_cap", t_cap)
    rec, loss = loss_log(res, "loss")
    w = rules.loss_window
    log_loss = np.log(np.maximum(loss, 1e-12))

    def test(ll):
        resid = _residual(ll, w)
        stat = _mark(resid, rec, t, w)
        p = _perm((np.arange(t.shape[1]),), lambda idx: _mark(resid[:, np.asarray(idx, int)], rec, t, w),
                  rules, seed, "pairings", "greater")
        return stat, p
    stat, p = test(log_loss)
    bump = np.zeros_like(log_loss)
    for i, j in np.ndindex(t.shape):
        if np.isfinite(t[i, j]):
            k = int(np.argmin(np.abs(rec - t[i, j])))
            bump[i, j, max(k - 1, 0):k + 2] = math.log1p(rules.loss_bump)
    _, p_inj = test(log_loss + bump)
    t_loss = transition_step(rec, loss)
    fin = np.isfinite(t)
    spread = float(np.nanstd(t_loss) / np.nanstd(np.where(fin, t, np.nan)))
    rng = np.random.default_rng(seed)
    flat = loss.reshape(-1, loss.shape[-1])
    old_null = np.mean([np.nanstd(transition_step(rec, flat[rng.permutation(len(flat))]))
                        / np.nanstd(np.where(fin, t, np.nan)) < 0.25 for _ in range(min(rules.n_null, 50))])
    word = "differs" if p <= rules.alpha else "reproduced" if p_inj <= rules.alpha else "inconclusive"
    need = ("decided at this size" if word != "inconclusive" else
            f"more seeds: a {rules.loss_bump:.0%} feature at the capability time is not seen with {t.shape[1]} "
            f"(the smallest p of a permutation of S seeds is 1 / S!)")
    return LossMark(stat, p, p_inj, spread, float(old_null), word, need)


class Disentanglement(NamedTuple):
    """Does the embedding disentanglement's transition track the capability time?"""

    r: float            #: Pearson correlation over the runs where both are finite
    n_runs: int
    p_value: float      #: seeds permuted against each other (the same permutation at every separation)
    r_ci: tuple         #: Fisher-z confidence interval of ``r``
    verdict: str
    needed: str


def disentanglement(t_probe: np.ndarray, t_cap: np.ndarray, rules: Rules = RULES, seed: int = 0) -> Disentanglement:
    """Correlation of a probe's transition steps with the capability times, ``(D, S)``
    each. Reproduced when significant and at least ``min_r``; not reproduced when the
    interval lies below ``min_r``; else inconclusive, with the runs (and seeds at this
    number of separations) at which the observed correlation would be significant.

    Parameters
    ----------
    t_probe, t_cap : array (D, S)
        Transition steps of the probe and capability times.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the permutations.

    Returns
    -------
    Disentanglement
    """
    tc = M._times("t_cap", t_cap)
    tp = M._times("t_probe", t_probe, tc.shape)

    def corr(idx):
        x = tp[:, np.asarray(idx, int)]
        ok = np.isfinite(x) & np.isfinite(tc)
        return float(np.corrcoef(x[ok], tc[ok])[0, 1]) if ok.sum() >= 3 else float("nan")
    S = tc.shape[1]
    r = corr(np.arange(S))
    n = int((np.isfinite(tp) & np.isfinite(tc)).sum())
    p = _perm((np.arange(S),), corr, rules, seed, "pairings", "greater") if np.isfinite(r) else 1.0
    half = stats.norm.isf((1 - rules.ci_level) / 2) / math.sqrt(max(n - 3, 1))
    ci = (math.tanh(math.atanh(np.clip(r, -0.999, 0.999)) - half), math.tanh(math.atanh(np.clip(r, -0.999, 0.999)) + half))
    if p <= rules.alpha and r >= rules.min_r:
        word = "reproduced"
    elif ci[1] < rules.min_r:
        word = "not reproduced"
    else:
        word = "inconclusive"
    runs = runs_needed_for_r(r, rules)
    need = (f"about {runs} independent runs ({math.ceil(runs / tc.shape[0])} seeds at {tc.shape[0]} separations) "
            f"for r = {r:.2f}" if runs else "no sample size: the correlation is not positive")
    return Disentanglement(r, n, p, ci, word, need)


class BestProbe(NamedTuple):
    """Which probe marks the capability time best, with the choice among probes paid for."""

    best: str               #: the probe with the largest correlation
    r: dict                 #: name to correlation with the capability time
    familywise_p: float     #: p of the largest correlation against seeds permuted (max over the probes)
    chosen: str             #: the probe fixed in advance (the study's "end of concept memorization")
    chosen_is_best: bool
    verdict: str            #: for the chosen probe: "reproduced" if it is the best and ``familywise_p <= alpha``


def best_probe(probes: dict, t_cap: np.ndarray, chosen: str, rules: Rules = RULES, seed: int = 0) -> BestProbe:
    """The probe whose transition steps correlate best with the capability time, with a
    family-wise p-value: the seeds of every probe are permuted together (the seed is the
    unit) and the largest correlation over all probes is the statistic, so picking the
    best of several probes after the fact is paid for.

    Parameters
    ----------
    probes : dict
        Name to transition steps ``(D, S)``.
    t_cap : array (D, S)
        Capability times.
    chosen : str
        The probe the claim names (one of ``probes``).
    rules : Rules
        The thresholds.
    seed : int
        Seeds the permutations.

    Returns
    -------
    BestProbe
    """
    tc = M._times("t_cap", t_cap)
    if chosen not in probes:
        raise ValueError(f"chosen must be one of {sorted(probes)}, got {chosen!r}")
    names = list(probes)
    arr = np.stack([M._times(f"probes[{n!r}]", probes[n], tc.shape) for n in names])

    def rs(idx):
        x = arr[:, :, np.asarray(idx, int)]
        out = []
        for a in x:
            ok = np.isfinite(a) & np.isfinite(tc)
            out.append(np.corrcoef(a[ok], tc[ok])[0, 1] if ok.sum() >= 3 and np.ptp(a[ok]) > 0 else -np.inf)
        return np.asarray(out)
    r0 = rs(np.arange(tc.shape[1]))
    p = _perm((np.arange(tc.shape[1]),), lambda idx: float(np.max(rs(idx))), rules, seed, "pairings", "greater")
    best = names[int(np.argmax(r0))]
    word = "reproduced" if best == chosen and p <= rules.alpha and r0.max() >= rules.min_r else \
        "inconclusive" if best == chosen else "differs"
    return BestProbe(best, {n: float(v) for n, v in zip(names, r0)}, p, chosen, best == chosen, word)
