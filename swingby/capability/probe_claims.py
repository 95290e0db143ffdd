"""The probe claims of the capability study (``book/capability.md``, App. D of the
hidden-capabilities paper): how well a probe's transition step tracks the capability
time run by run (:func:`probe_score`, :func:`coincidence_check`), against the null of the
probe's steps shuffled among the seeds of each separation (:func:`coincidence_with_null`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby import _checks
from swingby.capability.measures import CrossingTimes, _times
from swingby.capability.probes import checkpoint_gap
from swingby.capability.spread import _corr, permute_seeds
from swingby.diffusion.fig6.nulls import pass_rate
from swingby.diffusion.presets import SEEDINGS
from swingby.diffusion.rules import OLD_RULES as R


class ProbeScore(NamedTuple):
    """How well a probe's transition step predicts capability time over the runs.

    ``r_capability``: Pearson correlation with the capability time; ``p_value``: one-sided
    ``scipy.stats.permutation_test`` of that correlation with the probe's steps permuted
    among the seeds of each separation (:func:`probe_score` says which unit is permuted);
    ``median_gap``: median of ``|t_probe - t_capability|``; ``r_behaviour``: the
    correlation with the behaviour time (runs where behaviour crosses); ``n``: runs used.
    """

    name: str
    r_capability: float
    p_value: float
    median_gap: float
    r_behaviour: float
    n: int


def _within_separation(idx: np.ndarray, used: np.ndarray) -> np.ndarray:
    """The order in which the permutation ``idx`` of the seeds ``0..S-1`` takes the used
    seeds ``used`` of one separation: a uniformly random permutation of ``idx`` gives a
    uniformly random permutation of ``used``, and the runs left out stay put."""
    idx = np.asarray(idx, int)
    return idx[np.isin(idx, used)]


def probe_score(name: str, t_probe: np.ndarray, times: CrossingTimes, *, n_perm: int = R.n_perm,
                seed: int = 0, seeding: str = "shared") -> ProbeScore:
    """Score one probe against the capability time (the probe table of the chapter).

    Old rule (:data:`~swingby.diffusion.rules.OLD_RULES`), kept until the chapters move to
    :func:`swingby.capability.time_checks.disentanglement` (seed-level permutation, power).

    The p-value is a one-sided ``scipy.stats.permutation_test``
    (``permutation_type="pairings"``) of the correlation over the runs where both steps
    are finite: the probe's steps are permuted among those runs *within each separation*,
    so a probe that only knows the separation does not score. The permuted unit is the
    independent one: with ``seeding="shared"`` (one seed shared across the separations)
    the seed, so one permutation of the seeds is applied at every separation; with
    ``seeding="per_run"`` (independent randomness per (separation, seed) run) the run, so
    each separation is permuted on its own. Where all ``S!`` (or ``(S!)^D``) permutations
    number at most ``n_perm`` the test is exact.

    Parameters
    ----------
    name : str
        The probe's name in the table.
    t_probe : array (D, S)
        The probe's transition step per run.
    times : CrossingTimes
        Capability and behaviour times per run.
    n_perm : int
        Permutations for the p-value (``n_resamples`` of ``scipy.stats.permutation_test``).
    seed : int
        Seeds the permutations.
    seeding : {"shared", "per_run"}
        The sweep's seeding (``res["meta"]["config"].get("seeding", "shared")``).

    Returns
    -------
    ProbeScore
    """
    _checks.instance("times", times, CrossingTimes)
    t_cap = _times("times.capability", times.capability)
    t_beh = _times("times.behaviour", times.behaviour, t_cap.shape)
    t = _times("t_probe", t_probe, t_cap.shape)
    n_perm = _checks.positive_int("n_perm", n_perm)
    seed = _checks.seed("seed", seed)
    seeding = _checks.choice("seeding", seeding, SEEDINGS)
    ok = np.isfinite(t) & np.isfinite(t_cap)
    r = _corr(t[ok], t_cap[ok])
    p = _permutation_p(t, t_cap, ok, r, n_perm, seed, seeding) if np.isfinite(r) else float("nan")
    okb = ok & np.isfinite(t_beh)
    gap = float(np.median(np.abs(t[ok] - t_cap[ok]))) if ok.any() else float("nan")
    return ProbeScore(str(name), r, p, gap, _corr(t[okb], t_beh[okb]), int(ok.sum()))


def _permutation_p(t: np.ndarray, t_cap: np.ndarray, ok: np.ndarray, r: float, n_perm: int, seed: int,
                   seeding: str) -> float:
    """P-value of :func:`probe_score` (``scipy.stats.permutation_test``, one-sided)."""
    D, S = t.shape
    used = [np.flatnonzero(ok[i]) for i in range(D)]

    def corr(*idx) -> float:
        x = t.copy()
        for i in range(D):
            x[i, used[i]] = t[i, _within_separation(idx[0] if seeding == "shared" else idx[i], used[i])]
        return _corr(x[ok], t_cap[ok])
    # one sample of seed indices (the seed is the unit) or one per separation (the run is)
    data = (np.arange(S),) if seeding == "shared" else tuple(np.arange(S) for _ in range(D))
    res = stats.permutation_test(data, corr, permutation_type="pairings", vectorized=False,
                                 n_resamples=n_perm, alternative="greater", rng=np.random.default_rng(seed))
    return float(res.pvalue)


def coincidence_check(t_probe: np.ndarray, t_cap: np.ndarray, tolerance: np.ndarray, *,
                      min_r: float = R.coincide_min_r, min_fraction: float = R.coincide_min_fraction) -> bool:
    """Claim check: a probe's transition coincides with the capability time.

    Passes when, over the runs where both are measured, the correlation is at least
    ``min_r`` and in at least ``min_fraction`` of the runs ``|t_probe - t_cap|`` is within
    ``tolerance`` (per run, e.g. :func:`~swingby.capability.probes.checkpoint_gap` at the capability time).

    Parameters
    ----------
    t_probe, t_cap : array (D, S)
        Probe and capability times per run.
    tolerance : array (D, S) or float
        Largest gap that counts as coinciding.
    min_r : float
        Smallest correlation over the runs.
    min_fraction : float
        Share of runs that must coincide.

    Returns
    -------
    bool
    """
    t_cap = _times("t_cap", t_cap)
    t = _times("t_probe", t_probe, t_cap.shape)
    tol = np.broadcast_to(np.asarray(tolerance, float), t_cap.shape)
    min_r = _checks.number("min_r", min_r, low=-1, high=1)
    min_fraction = _checks.number("min_fraction", min_fraction, low=0, high=1, low_open=True)
    ok = np.isfinite(t) & np.isfinite(t_cap) & np.isfinite(tol)
    if ok.sum() < 3:
        raise ValueError(f"need at least three runs where t_probe, t_cap and tolerance are finite, got {ok.sum()}")
    r = _corr(t[ok], t_cap[ok])
    close = np.abs(t[ok] - t_cap[ok]) <= tol[ok]
    return bool(np.isfinite(r) and r >= min_r and close.mean() >= min_fraction)


def coincidence_with_null(t_probe: np.ndarray, t_cap: np.ndarray, steps: np.ndarray, *, n: int = R.n_null,
                          seed: int = 0) -> tuple[bool, float]:
    """:func:`coincidence_check` of a probe's steps with the capability times, within one
    checkpoint interval at the capability time, and the pass rate of its null (the
    probe's steps shuffled among the seeds of each separation) (``book/capability.md``).

    Parameters
    ----------
    t_probe, t_cap : numpy.ndarray
        The probe's transition steps and the capability times, ``(D, S)``.
    steps : numpy.ndarray
        The checkpoint steps.
    n, seed : int
        Null data sets and the seed of their generator.

    Returns
    -------
    tuple of (bool, float)
        The verdict and the null's pass rate.
    """
    tol = checkpoint_gap(steps, np.where(np.isfinite(t_cap), t_cap, np.nan))

    def check(t: np.ndarray) -> bool:
        return coincidence_check(t, t_cap, tol)
    return check(t_probe), pass_rate(check, lambda g: permute_seeds(t_probe, g), n=n, seed=seed)


# ------------------------------------------------------- the chapter's two timings of every run
class Leads(NamedTuple):
    """Capability and behaviour times of every run by first and by held crossings of 50 %,
    and the leads ``book/capability.md`` reads from them (:func:`leads`)."""

    first: CrossingTimes           #: first crossings (the study's timing), classifier
    held: CrossingTimes            #: held crossings (``checks.sustained_crossing``), classifier
    onset: np.ndarray              #: each run's first checkpoint step that draws discs
    lead_first: np.ndarray         #: lead of capability by first crossings (eq. ``eq-cap-lead``)
    lead_held: np.ndarray          #: lead by held crossings, classifier
    lead_held_pixels: np.ndarray   #: lead by held crossings, pixel check
    noise_held: np.ndarray         #: held lead of prompts that change nothing, median of redraws
    censored: np.ndarray           #: runs whose behaviour never reaches 50 % (first crossings)


def leads(res: dict, sustain: int, seed: int = 0, n_redraws: int = 20) -> Leads:
    """Both timings of every run of a sweep and the leads of capability over behaviour
    (study Figs. 2, 7; ``book/capability.md``).

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    sustain : int
        Checkpoints a held crossing stays at or above 50 %.
    seed : int
        Seeds the redraws of prompts that change nothing (``claims.noise_lead``).
    n_redraws : int
        Redraws of that yardstick.

    Returns
    -------
    Leads
    """
    from swingby.capability import measures as M
    from swingby.capability.checks import sustained_crossing
    from swingby.capability.claims import capability_lead, noise_lead
    from swingby.diffusion.readouts import sweep_onsets

    sustain = _checks.positive_int("sustain", sustain)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    end = float(steps[-1])

    def held(s, y):
        return sustained_crossing(s, y, 0.5, sustain)

    def held_times(by):
        return CrossingTimes(held(steps, M.capability(res, by)), held(steps, M.behaviour(res, by)))

    first = M.crossing_times(res)
    lead = capability_lead(first, end)
    hc, hp = held_times("classifier"), held_times("pixels")
    n_s, n_p = int(res["meta"]["config"]["samples_per_class"]), int(res["cap_probs"].shape[3])
    noise = noise_lead(M.behaviour(res), steps, end, n_s, n_p, np.random.default_rng(seed),
                       n_redraws=n_redraws, timing=held)
    return Leads(first, hc, steps[sweep_onsets(res)], lead.steps, capability_lead(hc, end).steps,
                 capability_lead(hp, end).steps, noise, lead.censored)


def leads_table(res: dict, lds: Leads) -> str:
    """Per separation, the capability times and the median leads of :func:`leads` as a
    Markdown table (``book/capability.md``).

    Parameters
    ----------
    res : dict
        The sweep (for its separations).
    lds : Leads
    """
    dcs = res["meta"]["config"]["separations"]
    tc, th = lds.first.capability, lds.held.capability
    rows = ["| dc | first $t_C$, median (range) | $t_C$ before discs: first, held "
            "| lead: first | held | held, pixels | held, prompts that change nothing |",
            "|---|---|---|---|---|---|---|"]
    for i, dc in enumerate(dcs):
        rows.append(
            f"| {dc:.3g} | {np.median(tc[i]):.0f} ({tc[i].min():.0f} to {tc[i].max():.0f}) "
            f"| {np.sum(tc[i] < lds.onset[i])}, {np.sum(th[i] < lds.onset[i])} of {tc[i].size} "
            f"| {np.nanmedian(lds.lead_first[i]):.0f} | {np.nanmedian(lds.lead_held[i]):.0f} "
            f"| {np.nanmedian(lds.lead_held_pixels[i]):.0f} | {np.nanmedian(lds.noise_held[i]):.0f} |")
    return "\n".join(rows)


def probe_table_pair(first: list, held: list) -> str:
    """The probe table of ``book/capability.md`` for both timings: per probe, the
    correlations with the capability and the behaviour time by first and by held
    crossings, and the permutation p-value of the held correlation with capability.

    Parameters
    ----------
    first, held : list of ProbeScore
        :func:`probe_score` of each probe against the first and the held crossing times,
        in the same order.
    """
    if not first or len(first) != len(held) or \
            not all(isinstance(s, ProbeScore) for s in (*first, *held)):
        raise ValueError("first and held must be equally long non-empty lists of ProbeScore")

    def f(v, fmt):
        return "—" if not np.isfinite(v) else format(v, fmt)
    rows = ["| probe | first: r, capability | r, behaviour | held: r, capability | p "
            "| r, behaviour |", "|---|---|---|---|---|---|"]
    for a, b in zip(first, held):
        cells = (f(a.r_capability, ".2f"), f(a.r_behaviour, ".2f"), f(b.r_capability, ".2f"),
                 f(b.p_value, ".3f"), f(b.r_behaviour, ".2f"))
        rows.append(f"| {a.name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
