"""The hidden-capabilities study's claims, checked per seed against nulls a plausible
wrong model passes (issue 22), with every threshold from
:data:`swingby.diffusion.rules.RULES`; resampling by ``scipy.stats``.

* :func:`sustained_crossing`: a time counts when the curve stays at or above the level
  for ``sustain_k`` checkpoints (an early blip does not count).
* :func:`lead_over_levels`: capability precedes behaviour at every level of
  ``crossing_levels``. Null: prompts that change nothing
  (:func:`~swingby.capability.claims.noise_capability`).
* :func:`seed_spread`: how far the seeds disagree on the capability time.
* :func:`window_spread_ratio`: capability's seed spread against behaviour's, only over
  the window before capability saturates. Null: the two curves swapped per seed.
* :func:`~swingby.capability.time_checks.time_vs_separation`: capability time falls with the colour separation.
  Null: sign flips of the per-seed rank correlations (the seed is the unit).
* :func:`blue_big_before_capability`: before capability the pure-blue prompt draws big
  blue discs. Null: a pure-blue prompt that draws what the plain prompt draws.
* :func:`~swingby.capability.time_checks.loss_mark`: the training loss shows no feature at the capability time (study
  Fig. 4, left). Null: each seed's loss paired with another seed's capability times; a
  feature of size ``loss_bump`` injected at the capability time says whether the test
  could see one.
* :func:`~swingby.capability.time_checks.disentanglement`: the embedding disentanglement's transition tracks the
  capability time; "inconclusive" says how many seeds would decide it.

:mod:`swingby.capability.time_checks` holds the second half of these (from
:func:`~swingby.capability.time_checks.time_vs_separation` on).
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from swingby.capability import measures as M
from swingby.capability import spread as CSP
from swingby.capability.claims import noise_capability
from swingby.diffusion.rules import RULES, Outcome, Rules, binomial_p, seeds_needed, verdict


def sustained_crossing(steps: np.ndarray, y: np.ndarray, level: float, k: int) -> np.ndarray:
    """First step at which each curve reaches ``level`` and stays there for ``k``
    checkpoints (or to the end, if fewer remain); linear interpolation into that
    checkpoint as in :func:`~swingby.capability.measures.first_crossing`.

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing checkpoint steps.
    y : array (..., K)
        Curves (a NaN makes the run missing).
    level : float
        The level.
    k : int
        Checkpoints the curve must stay at or above the level.

    Returns
    -------
    array (...)
        ``inf`` where never, NaN where missing.
    """
    y, s = M._curves(y, steps)
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    above = y >= level
    K = y.shape[-1]
    stay = np.ones_like(above)
    for j in range(k):  # above at j, j+1, ..., j+k-1 (as far as the curve goes)
        stay &= np.concatenate([above[..., j:], np.ones(above.shape[:-1] + (j,), bool)], axis=-1)
    flat, sflat = y.reshape(-1, K), stay.reshape(-1, K)
    out = np.empty(len(flat))
    for i, (c, st) in enumerate(zip(flat, sflat)):
        hit = np.flatnonzero(st)
        if np.isnan(c).any():
            out[i] = np.nan
        elif not hit.size:
            out[i] = np.inf
        elif hit[0] == 0 or c[hit[0] - 1] >= level:
            out[i] = s[hit[0]]
        else:
            j = hit[0]
            out[i] = s[j - 1] + (level - c[j - 1]) / (c[j] - c[j - 1]) * (s[j] - s[j - 1])
    return out.reshape(y.shape[:-1])


def _lead_pass(t_cap: np.ndarray, t_beh: np.ndarray, end: float, rules: Rules) -> np.ndarray:
    """Per seed ``(S,)``: share of its runs in which capability leads behaviour by at least
    ``min_lead_fraction * end`` (a behaviour that never crosses counts at ``end``)."""
    lead = np.where(np.isinf(t_beh), end, t_beh) - t_cap
    ok = np.isfinite(t_cap)
    with np.errstate(invalid="ignore"):
        hit = np.where(ok, lead >= rules.min_lead_fraction * end, False)
    return hit.sum(0) / np.maximum(ok.sum(0), 1)


class LevelScan(NamedTuple):
    """Capability before behaviour, with sustained crossings, at every scanned level."""

    levels: tuple
    per_seed: np.ndarray      #: (L, S) share of the seed's runs with the lead
    passed: np.ndarray        #: (L,) bool: every seed passes the level
    null_pass_rate: np.ndarray  #: (L,) per seed, prompts that change nothing
    t_capability: np.ndarray  #: (L, D, S) sustained capability times
    t_behaviour: np.ndarray   #: (L, D, S)
    verdicts: tuple           #: per level
    verdict: str              #: the weakest over the levels (robust to the level)
    needed: str               #: what would decide the weakest level


def lead_over_levels(res: dict, by: str = "classifier", rules: Rules = RULES, seed: int = 0) -> LevelScan:
    """The precedes claim with sustained crossings at every level of ``rules.crossing_levels``.
    A seed passes a level when at least ``rules.min_lead_runs`` of its runs lead by
    ``rules.min_lead_fraction`` of training.

    Parameters
    ----------
    res : dict
        A results dict.
    by : {"classifier", "pixels"}
        The reading.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the null.

    Returns
    -------
    LevelScan
    """
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    end = float(steps[-1])
    cap, beh = M.capability(res, by), M.behaviour(res, by)
    n_samples, n_prompts = np.shape(res["cap_probs"])[-2], np.shape(res["cap_probs"])[3]
    rng = np.random.default_rng(seed)
    shares, nulls, tcs, tbs, words = [], [], [], [], []
    for level in rules.crossing_levels:
        tc = sustained_crossing(steps, cap, level, rules.sustain_k)
        tb = sustained_crossing(steps, beh, level, rules.sustain_k)
        share = _lead_pass(tc, tb, end, rules)
        null = np.mean([_lead_pass(sustained_crossing(steps, noise_capability(beh, n_samples, n_prompts, rng),
                                                      level, rules.sustain_k), tb, end, rules) >= rules.min_lead_runs
                        for _ in range(rules.n_null)])
        words.append(verdict(Outcome(int(np.sum(share >= rules.min_lead_runs)), share.size, float(null)), rules))
        shares.append(share), nulls.append(float(null)), tcs.append(tc), tbs.append(tb)
    shares = np.array(shares)
    order = {w: i for i, w in enumerate(("reproduced", "partly", "inconclusive", "differs", "not reproduced"))}
    worst = max(range(len(words)), key=lambda j: order[words[j]])
    n_pass = int(np.sum(shares[worst] >= rules.min_lead_runs))
    k = seeds_needed(n_pass / shares.shape[1], nulls[worst], rules)
    need = (f"decided at this size ({n_pass}/{shares.shape[1]} seeds at level {rules.crossing_levels[worst]})"
            if binomial_p(n_pass, shares.shape[1], nulls[worst]) <= rules.alpha and nulls[worst] <= rules.alpha
            else f"{k} seeds at the observed share" if k else "no sample size: it does not beat its null")
    return LevelScan(tuple(rules.crossing_levels), shares, (shares >= rules.min_lead_runs).all(axis=1),
                     np.array(nulls), np.array(tcs), np.array(tbs), tuple(words), words[worst], need)


class SeedSpread(NamedTuple):
    """How far the seeds disagree on the capability time, per separation."""

    low: np.ndarray     #: (D,) earliest seed
    high: np.ndarray    #: (D,) latest seed
    std: np.ndarray     #: (D,) standard deviation over seeds (finite times)
    cv: np.ndarray      #: (D,) std / mean
    n_never: np.ndarray  #: (D,) seeds that never cross


def seed_spread(t_cap: np.ndarray) -> SeedSpread:
    """Seed spread of capability times ``(D, S)``.

    Parameters
    ----------
    t_cap : array (D, S)
        Capability times (``inf``: never, NaN: missing run).

    Returns
    -------
    SeedSpread
    """
    t = M._times("t_cap", t_cap)
    f = np.where(np.isfinite(t), t, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a separation with fewer than two finite times
        std = np.nanstd(f, axis=1, ddof=1)
        return SeedSpread(np.nanmin(f, 1), np.nanmax(f, 1), std, std / np.nanmean(f, 1), np.isinf(t).sum(1))


class WindowSpread(NamedTuple):
    """Capability's seed spread against behaviour's, before capability saturates."""

    ratio: float            #: pooled over separations, each over its window
    per_dc: np.ndarray      #: (D,) ratio per separation
    window_end: np.ndarray  #: (D,) last step of each window
    whole_ratio: float      #: the old rule: over the whole of training
    passed: bool            #: ``ratio <= max_spread_ratio``
    null_pass_rate: float   #: the curves swapped per seed (the same swap at every separation)
    verdict: str
    needed: str             #: what would decide it


def _window_ratio(cap, beh, steps, ends):
    c_sd, b_sd = CSP.seed_std(cap), CSP.seed_std(beh)
    c, b = [], []
    for i, e in enumerate(ends):
        w = steps <= e
        if w.sum() < 2:
            w[:2] = True
        c.append(CSP.time_mean(c_sd[i, w], steps[w])), b.append(CSP.time_mean(b_sd[i, w], steps[w]))
    c, b = np.array(c), np.array(b)
    ok = np.isfinite(c) & np.isfinite(b)
    return float(c[ok].sum() / max(b[ok].sum(), 1e-12)), c / np.where(b > 0, b, np.nan)


def window_spread_ratio(cap: np.ndarray, beh: np.ndarray, steps: np.ndarray, rules: Rules = RULES,
                        seed: int = 0) -> WindowSpread:
    """Seed-robustness of capability over the window from the start to the first
    checkpoint at which every seed's capability is at least ``rules.cap_saturation``
    (after it, capability is 1 everywhere and its spread is trivially zero).

    Parameters
    ----------
    cap, beh : array (D, S, K)
        Capability and behaviour curves.
    steps : array (K,)
        Checkpoint steps.
    rules : Rules
        The thresholds.
    seed : int
        Seeds the null.

    Returns
    -------
    WindowSpread
    """
    steps = M._steps(steps)
    full = (np.nan_to_num(cap, nan=1.0) >= rules.cap_saturation).all(axis=1)       # (D, K)
    ends = np.array([steps[np.argmax(f)] if f.any() else steps[-1] for f in full])
    ratio, per_dc = _window_ratio(cap, beh, steps, ends)
    rng = np.random.default_rng(seed)
    null = 0
    for _ in range(rules.n_null):
        flip = (rng.random(cap.shape[1]) < 0.5)[None, :, None]
        null += _window_ratio(np.where(flip, beh, cap), np.where(flip, cap, beh), steps, ends)[0] \
            <= rules.max_spread_ratio
    rate = float(null / rules.n_null)
    passed = ratio <= rules.max_spread_ratio
    word = verdict(Outcome(int(passed), 1, rate), rules)
    try:
        whole = CSP.spread_ratio(cap, beh, steps)
    except ValueError:   # behaviour does not vary between seeds: the old ratio is undefined
        whole = float("nan")
    S = cap.shape[1]
    need = (f"more seeds: with {S} the per-seed swap null passes {rate:.1%} > {rules.alpha:.0%}" if rate > rules.alpha
            else f"decided at this size ({S} seeds)")
    return WindowSpread(ratio, per_dc, ends, whole, bool(passed), rate, word, need)


class BlueBig(NamedTuple):
    """Before capability, the pure-blue prompt draws big blue discs."""

    per_run: np.ndarray       #: (D, S) bool: some checkpoint before the capability time reads blue big
    null_per_run: np.ndarray  #: (D, S) bool: the plain prompt does so at those checkpoints
    per_seed: np.ndarray      #: (S,) bool: some run of the seed with ``dc <= weak_dc`` does (the study's range)
    null_pass_rate: float     #: per seed, from the plain prompt's per-run rate at those separations
    verdict: str
    needed: str


def _blue_big(points: np.ndarray, before: np.ndarray, p: float) -> np.ndarray:
    big_blue = (points[..., 0] >= p) & (points[..., 1] <= 1 - p)
    return (big_blue & before).any(axis=-1)


def blue_big_before_capability(res: dict, t_cap: np.ndarray, rules: Rules = RULES) -> BlueBig:
    """Whether the pure-blue capability prompt (the first, colour (0, 0, 1) at the small
    radius) draws discs the classifier reads as blue and big (``P(blue) >= blue_big_p``,
    ``P(small) <= 1 - blue_big_p``, class means over samples) at a trained checkpoint
    before the run's capability time; judged per seed over the separations up to
    ``weak_dc`` (the study's range; at strong colour signal the plain prompt itself
    swings to blue big).

    Parameters
    ----------
    res : dict
        A results dict (needs ``cap_probs``, ``probs``).
    t_cap : array (D, S)
        Capability times.
    rules : Rules
        The thresholds.

    Returns
    -------
    BlueBig
    """
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    t = M._times("t_cap", t_cap)
    before = (steps[None, None, :] < np.where(np.isnan(t), -1, t)[..., None]) & (steps > 0)
    blue = np.asarray(res["cap_probs"], float)[:, :, :, 0].mean(-2)            # (D, S, K, 2)
    plain = np.asarray(res["probs"], float)[:, :, :, M.CLASS_11].mean(-2)
    run, null_run = _blue_big(blue, before, rules.blue_big_p), _blue_big(plain, before, rules.blue_big_p)
    weak = np.asarray(res["meta"]["config"]["separations"], float) <= rules.weak_dc + 1e-9
    per_seed = run[weak].any(0)
    r = float(null_run[weak].mean())
    null = 1 - (1 - r) ** int(weak.sum())
    oc = Outcome(int(per_seed.sum()), per_seed.size, null)
    k = seeds_needed(per_seed.mean(), null, rules)
    need = (f"a null passing at most {rules.alpha:.0%} (here {null:.1%})" if null > rules.alpha else
            f"decided at this size ({int(per_seed.sum())}/{per_seed.size})"
            if binomial_p(int(per_seed.sum()), per_seed.size, null) <= rules.alpha else
            f"{k} seeds at the observed share" if k else "no sample size: the plain prompt does as often")
    return BlueBig(run, null_run, per_seed, float(null), verdict(oc, rules), need)


class EarlyBump(NamedTuple):
    """The early bump of capability: faint blobs of a barely trained model that happen to
    read as blue-small under every prompt (``book/capability.md``)."""

    value: float   #: the largest capability of any run before the earliest capability time
    step: float    #: the checkpoint step where it occurs
    reading: str   #: the reading ("classifier" or "pixels") that shows it


def early_bump(res: dict, readings: tuple = ("classifier", "pixels"), rules: Rules = RULES) -> EarlyBump:
    """The largest capability of any run at a checkpoint before the earliest sustained
    capability time (:func:`sustained_crossing` at ``rules.crossing_level``) of any run,
    per reading; the reading with the larger one is returned. A first (not sustained)
    crossing of the level there would be the bump, not the capability.

    Parameters
    ----------
    res : dict
        A results dict.
    readings : tuple of str
        The readings to scan.
    rules : Rules
        Supplies ``crossing_level`` and ``sustain_k``.

    Returns
    -------
    EarlyBump
    """
    if not readings:
        raise ValueError("readings must name at least one reading")
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    best = EarlyBump(float("nan"), float("nan"), "")
    for by in readings:
        cap = M.capability(res, by)
        first = np.nanmin(sustained_crossing(steps, cap, rules.crossing_level, rules.sustain_k))
        early = steps < first
        if not early.any():
            continue
        peak = np.nanmax(cap[:, :, early], axis=(0, 1))
        if not best.reading or peak.max() > best.value:
            best = EarlyBump(float(peak.max()), float(steps[early][int(np.argmax(peak))]), by)
    return best
