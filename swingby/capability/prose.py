"""Sentences of the capability chapter (``book/capability.md``) built from the checks'
results, so that the prose says what the stored sweep shows, whichever way it came out.

Every public function returns a ``str``, is pure (no I/O) and raises ``ValueError`` on
input it cannot describe; counts are phrased by :func:`count_phrase` ("all 20 runs",
"15 of the 20 runs").
"""
from __future__ import annotations

import math

import numpy as np

from swingby.diffusion.rules import VERDICTS

#: the unit the probe p-values permute (``probe_claims.probe_score``), by the sweep's seeding
PERM_UNIT = {"shared": "the seed, one permutation at every separation, since a seed is shared across separations",
             "per_run": "the run, each separation on its own, since every (separation, seed) run is independent"}


def _count(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _real(name: str, value) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if math.isnan(x):
        raise ValueError(f"{name} must not be NaN")
    return x


def _reals(**kw) -> list[float]:
    return [_real(k, v) for k, v in kw.items()]


def _pct(x: float, digits: int = 0) -> str:
    """A share as the book writes it: ``0.5`` -> "50 %"."""
    return f"{100 * x:.{digits}f} %"


def _word(name: str, word: str) -> str:
    if word not in VERDICTS:
        raise ValueError(f"{name} must be one of {VERDICTS}, got {word!r}")
    return word


def _seeding(seeding: str) -> str:
    if seeding not in ("shared", "per_run"):
        raise ValueError(f"seeding must be 'shared' or 'per_run', got {seeding!r}")
    return seeding


def count_phrase(k: int, n: int, noun: str = "runs") -> str:
    """``k`` of ``n`` in words: "all 20 runs", "none of the 20 runs", "15 of the 20 runs"
    ("the one run" or "no run" when ``n == 1``).

    Parameters
    ----------
    k, n : int
        How many, of how many (``0 <= k <= n``).
    noun : str
        The plural noun; a final "s" is dropped for one.
    """
    k, n = _count("k", k), _count("n", n)
    if k > n:
        raise ValueError(f"k must be at most n, got k={k}, n={n}")
    one = noun[:-1] if noun.endswith("s") else noun
    if n <= 1:
        return f"the one {one}" if k else f"no {one}"
    return f"all {n} {noun}" if k == n else f"none of the {n} {noun}" if k == 0 else f"{k} of the {n} {noun}"


def sweep_phrase(image_size: int, position: float, n_dcs: int, n_seeds: int, seeding: str) -> str:
    """The sweep's images and which of its runs are independent, two clauses joined by "; ".

    Parameters
    ----------
    image_size, n_dcs, n_seeds : int
        Pixels per side, separations, seeds.
    position : float
        Disc centres uniform in ``[-position, position]`` on the ``[-1, 1]`` grid (0: centred).
    seeding : {"shared", "per_run"}
        One seed shared across the separations, or independent randomness per run.
    """
    size, n_dcs, n_seeds = _count("image_size", image_size), _count("n_dcs", n_dcs), _count("n_seeds", n_seeds)
    position = _real("position", position)
    where = ("discs at the centre of" if position == 0 else
             f"discs with centres uniform in [{-position:g}, {position:g}] (image grid [-1, 1]) in")
    runs = (f"one seed shared across the separations, so its {n_seeds} seeds are the independent replicates"
            if _seeding(seeding) == "shared" else "independent randomness in each (separation, seed) run, so all "
            f"{n_dcs * n_seeds} runs are independent replicates")
    return f"{where} {size} x {size} images; {runs}"


def memorization_sentence(corners_weak, corners_strong, weak_dc: float, dc_high: float) -> str:
    """Which trained corner class 11 heads for first (study Fig. 1), in the study's colour
    range and at the strongest separation.

    Parameters
    ----------
    corners_weak, corners_strong : array of str
        ``"01"`` or ``"10"`` per finished run at ``dc <= weak_dc`` and at ``dc_high``.
    weak_dc, dc_high : float
        The study's range's upper end and the strongest separation.
    """
    weak, strong = np.asarray(corners_weak, str).ravel(), np.asarray(corners_strong, str).ravel()
    for name, a in (("corners_weak", weak), ("corners_strong", strong)):
        if not np.isin(a, ("01", "10")).all():
            raise ValueError(f"{name} must hold only '01' and '10', got {sorted(set(a))}")
    weak_dc, dc_high = _reals(weak_dc=weak_dc, dc_high=dc_high)
    n01, n10 = int(np.sum(weak == "01")), int(np.sum(strong == "10"))
    rest01 = "" if n01 == weak.size else " (in the others for 10)"
    rest10 = "" if n10 == strong.size else " (in the others for 01)"
    return (f"In {count_phrase(n01, weak.size, f'finished runs with dc <= {weak_dc:g}')} class 11 heads for 01 "
            f"(red small) first{rest01}; at dc = {dc_high:.3g} it heads for 10 (blue big) first in "
            f"{count_phrase(n10, strong.size)}{rest10}")


def correlation_sentence(rho: float, null_rate: float, min_rho: float, alpha: float, what: str) -> str:
    """A rank correlation against the threshold its check asks, with its null's pass rate.

    Parameters
    ----------
    rho, null_rate : float
        The correlation and the share of shuffles reaching ``min_rho``.
    min_rho, alpha : float
        The threshold and the largest null pass rate that counts.
    what : str
        What is correlated.
    """
    rho, null_rate, min_rho, alpha = _reals(rho=rho, null_rate=null_rate, min_rho=min_rho, alpha=alpha)
    calib = "" if null_rate <= alpha else f", more than {_pct(alpha)}, so a pass would not count"
    return (f"the rank correlation of {what} is {rho:.2f}, {'at least' if rho >= min_rho else 'below'} the "
            f"{min_rho:g} the check asks (shuffles reach {min_rho:g} in {_pct(null_rate, 1)} of cases{calib})")


def lead_separation_sentence(rho: float, null_rate: float, alpha: float, max_rho: float = -0.5) -> str:
    """How the lead of capability over behaviour changes with the colour separation.

    Parameters
    ----------
    rho, null_rate : float
        Rank correlation of separation and lead, and the share of shuffles reaching ``max_rho``.
    alpha, max_rho : float
        The level and the correlation that counts as a fall.
    """
    rho, null_rate, alpha, max_rho = _reals(rho=rho, null_rate=null_rate, alpha=alpha, max_rho=max_rho)
    how = ("falls with the separation, so the behaviour time is set mostly by the colour signal"
           if rho <= max_rho and null_rate <= alpha else "does not fall clearly with the separation")
    return (f"The lead $\\Delta t$ {how}: rank correlation {rho:.2f} (a shuffle of the runs reaches "
            f"{max_rho:g} in {_pct(null_rate, 1)} of cases).")


def bump_sentence(bump: float, level: float, step: int) -> str:
    """The early bump of capability (faint blobs read as blue-small) against the level.

    Parameters
    ----------
    bump, level : float
        The bump's largest capability over the runs and the crossing level (0 to 1).
    step : int
        The bump's checkpoint step.
    """
    bump, level = _reals(bump=bump, level=level)
    if not 0 <= bump <= 1:
        raise ValueError(f"bump must be in [0, 1], got {bump}")
    reach = (f"in no run does it reach {_pct(level)} (at most {_pct(bump)})" if bump < level else
             f"in some runs it reaches {_pct(level)} (up to {_pct(bump)}), so there a first crossing is the bump")
    return (f"The early bump at step {_count('step', step)} is the barely trained model drawing faint blobs "
            f"that happen to read as blue and small under every prompt; {reach}.")


def check_phrase(passed: bool, null_rate: float, alpha: float) -> str:
    """ "passes" or "fails", with a warning where the check's null passes too often.

    Parameters
    ----------
    passed : bool
        The outcome.
    null_rate, alpha : float
        The null's pass rate and the largest that counts.
    """
    null_rate, alpha = _reals(null_rate=null_rate, alpha=alpha)
    calib = "" if null_rate <= alpha else f" (but its null passes {_pct(null_rate, 1)}, above {_pct(alpha)}: it cannot count)"
    return ("passes" if bool(passed) else "fails") + calib


def trend_sentence(low: float, high: float, dc_low: float, dc_high: float) -> str:
    """How the median lead changes from the weakest to the strongest separation.

    Parameters
    ----------
    low, high : float
        The median lead (steps) at the weakest and the strongest separation.
    dc_low, dc_high : float
        The two separations.
    """
    low, high, dc_low, dc_high = _reals(low=low, high=high, dc_low=dc_low, dc_high=dc_high)
    how = "shrinks" if high < low else "grows" if high > low else "stays the same"
    return (f"the median lead {how} as the colour signal grows: {low:.0f} steps at dc = {dc_low:.3g}, "
            f"{high:.0f} at dc = {dc_high:.3g}")


def readings_phrase(words: dict) -> str:
    """Verdicts per reading: "**reproduced** under both readings" or "**partly**
    (classifier) and **inconclusive** (pixels)".

    Parameters
    ----------
    words : dict
        Reading to verdict word.
    """
    if not isinstance(words, dict) or not words:
        raise ValueError("words must be a non-empty dict of reading to verdict word")
    for by, w in words.items():
        _word(f"words[{by!r}]", w)
    if len(set(words.values())) == 1:
        return f"**{next(iter(words.values()))}** under {'both readings' if len(words) == 2 else 'every reading'}"
    return " and ".join(f"**{w}** ({by})" for by, w in words.items())


def levels_phrase(levels, verdicts) -> str:
    """The crossing levels at which the lead's verdict is reproduced or partly.

    Parameters
    ----------
    levels : sequence of float
        The levels.
    verdicts : sequence of str
        The verdict per level.
    """
    levels, verdicts = list(levels), [_word("verdicts", v) for v in verdicts]
    if len(levels) != len(verdicts) or not levels:
        raise ValueError("levels and verdicts must be non-empty and of one length")
    good = [lv for lv, w in zip(levels, verdicts) if w in ("reproduced", "partly")]
    if len(good) == len(levels):
        return f"the lead holds at every level from {_pct(levels[0])} to {_pct(levels[-1])}"
    return ("the lead holds at " + ", ".join(_pct(lv) for lv in good) + " only") if good else \
        "the lead holds at none of the levels"


def separation_sentence(medians, p_value: float, word: str, alpha: float) -> str:
    """Whether the capability time falls with the colour separation (study App. C).

    Parameters
    ----------
    medians : sequence of float
        Median capability time per separation, weakest first (``inf``: never).
    p_value, alpha : float
        The p-value of a fall and the level.
    word : str
        The check's verdict.
    """
    m = np.asarray(medians, float)
    if m.ndim != 1 or m.size < 2:
        raise ValueError("medians must hold one median per separation, at least two")
    p, alpha, word = _real("p_value", p_value), _real("alpha", alpha), _word("word", word)
    how = ("falls significantly as the separation grows" if p <= alpha and word in ("reproduced", "partly") else
           "rises with the separation" if word == "differs" else "does not fall significantly with the separation")
    meds = ", ".join(f"{v:.0f}" if np.isfinite(v) else "never" for v in m)
    return f"The capability time {how}: the medians per separation are {meds} steps"


def linear_sentence(word: str, r2: float, r2_pix: float, passed: bool, min_r2: float) -> str:
    """The old linear check of study Fig. 3.

    Parameters
    ----------
    word : str
        The row's verdict.
    r2, r2_pix, min_r2 : float
        R^2 under the classifier and the pixel check (NaN: no fit), and the R^2 asked.
    passed : bool
        The linear check (classifier).
    """
    word, min_r2 = _word("word", word), _real("min_r2", min_r2)
    r2s = [f"{float(v):.2f}" if np.isfinite(float(v)) else "undefined" for v in (r2, r2_pix)]
    only = "" if np.isfinite(float(r2)) and float(r2) >= min_r2 else " only"
    return (f"**{word}**: the line explains{only} $R^2 =$ {r2s[0]} of the variance of the behaviour times (pixel "
            f"check: {r2s[1]}; the check asks {min_r2:g}), so the linear check {'passes' if passed else 'fails'}")


def coincide_phrase(results: dict) -> str:
    """A coincidence check per reading: "passes under both readings", "passes under the
    classifier only", "fails under both readings".

    Parameters
    ----------
    results : dict
        Reading to bool.
    """
    if not isinstance(results, dict) or not results:
        raise ValueError("results must be a non-empty dict of reading to bool")
    ok = [by for by, v in results.items() if bool(v)]
    both = "both readings" if len(results) == 2 else "every reading"
    if len(ok) in (0, len(results)):
        return f"{'passes' if ok else 'fails'} under {both}"
    return "passes under the " + " and the ".join(ok) + " only"


def clock_phrase(r_capability: float, r_behaviour: float) -> str:
    """A capability clock or a behaviour clock, by the time a probe correlates with more
    (neither below 0.5).

    Parameters
    ----------
    r_capability, r_behaviour : float
        Its correlations with the capability and the behaviour time.
    """
    rc, rb = _reals(r_capability=r_capability, r_behaviour=r_behaviour)
    if max(rc, rb) < 0.5:
        return "neither clock: it correlates with neither time by 0.5"
    return "a behaviour clock" if rb > rc else "a capability clock"


def ci_phrase(lo: float, hi: float, min_r: float) -> str:
    """What a correlation's confidence interval includes: no relation (0), ``min_r``.

    Parameters
    ----------
    lo, hi, min_r : float
        The interval and the correlation that makes "closely related".
    """
    lo, hi, min_r = _reals(lo=lo, hi=hi, min_r=min_r)
    if lo > hi:
        raise ValueError(f"lo must be at most hi, got {lo}, {hi}")
    zero, close = lo <= 0 <= hi, hi >= min_r
    close_txt = f"the {min_r:g} of \"closely related\""
    return (f"both no relation and {close_txt}" if zero and close else f"no relation but not {close_txt}" if zero
            else f"{close_txt} but not no relation" if close else f"neither no relation nor {close_txt}")


def best_probe_sentence(best: str, chosen: str, n: int, p: float, word: str) -> str:
    """The family-wise best-probe check (study Fig. 4).

    Parameters
    ----------
    best, chosen : str
        The probe with the largest correlation and the one the claim names.
    n : int
        Probes compared.
    p : float
        The family-wise p-value.
    word : str
        The verdict.
    """
    word, p, n = _word("word", word), _real("p", p), _count("n", n)
    who = (f"the {chosen} is the best of the {n} probes" if best == chosen else
           f"the best of the {n} probes is the {best}, not the {chosen}")
    return f"{who}, with a family-wise p = {p:.3f}: **{word}**"


def loss_mark_sentence(p: float, injected_p: float, bump: float, alpha: float, word: str) -> str:
    """The loss-mark check (study Fig. 4, left).

    Parameters
    ----------
    p, injected_p : float
        P-values of a feature at the capability time, without and with an injected bump.
    bump, alpha : float
        The bump's relative size and the level.
    word : str
        The verdict.
    """
    p, q, bump, alpha = _reals(p=p, injected_p=injected_p, bump=bump, alpha=alpha)
    found = "would have been found" if q <= alpha else "would not have been found either"
    return (f"the log loss shows {'a' if p <= alpha else 'no'} feature at the capability time (p = {p:.3f}), "
            f"and a {_pct(bump)} bump there {found} (p = {q:.3f}): **{_word('word', word)}**")


def beats_phrase(names_r: dict, reference: str, r_reference: float) -> str:
    """Which probes correlate with the capability time at least as well as a reference.

    Parameters
    ----------
    names_r : dict
        Probe name to correlation.
    reference : str
        The reference probe's name.
    r_reference : float
        Its correlation.
    """
    if not isinstance(names_r, dict) or not names_r:
        raise ValueError("names_r must be a non-empty dict of probe name to correlation")
    r0 = _real("r_reference", r_reference)
    better = [n for n, r in names_r.items() if np.isfinite(r) and r >= r0]
    if not better:
        return f"none of the {len(names_r)} correlates with the capability time as well as the {reference}"
    return (f"{count_phrase(len(better), len(names_r), 'probes')} correlate with it at least as well as the "
            f"{reference} ({', '.join(better)})")
