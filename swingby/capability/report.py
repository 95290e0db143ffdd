"""The capability checks under the old and the new rules, as markdown tables
(``book/capability.md`` shows them; :mod:`swingby.diffusion.rules_report` gathers them
into the report on the stored sweep).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby.capability import checks as K
from swingby.capability import claims as CC
from swingby.capability import measures as CM
from swingby.capability import probe_claims as CPC
from swingby.capability import probes as CP
from swingby.capability import time_checks as T
from swingby.diffusion import rules as R
from swingby.diffusion.tables import _f, _head, _row


def lead_table(res: dict, scans: dict, rules: R.Rules = R.RULES) -> str:
    """Markdown table of "capability before behaviour" (study Fig. 2) per reading under
    the old rule (first 50 % crossing) and the new one (sustained crossings at every
    level of ``rules.crossing_levels``, the seed as the unit).

    Parameters
    ----------
    res : dict
        A complete sweep.
    scans : dict
        Reading ("classifier", "pixels") to
        :func:`swingby.capability.checks.lead_over_levels`.
    rules : Rules
        The new rules.

    Returns
    -------
    str
    """
    if not isinstance(scans, dict) or not scans:
        raise ValueError("scans must be a non-empty dict of reading to LevelScan")
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    end = float(steps[-1])
    old_r = R.OLD_RULES
    out = _head("reading", "old: first 50 % crossing, precedes", "new: per level " + str(rules.crossing_levels),
                "null per level", "new verdict (robust over levels)", "to decide")
    for by, scan in scans.items():
        old = CC.precedes_check(CC.capability_lead(CM.crossing_times(res, by), end), old_r.min_lead_fraction * end)
        out.append(_row(by, old, " ".join(f"{lv}:{w}" for lv, w in zip(scan.levels, scan.verdicts)),
                        _f(scan.null_pass_rate, ".1%"), scan.verdict, scan.needed))
    return "\n".join(out)


def seed_spread_table(sp, dcs) -> str:
    """Markdown table of the seed spread of the capability time per separation.

    Parameters
    ----------
    sp : SeedSpread
        :func:`swingby.capability.checks.seed_spread`.
    dcs : array (D,)
        The separations.

    Returns
    -------
    str
    """
    dcs = np.asarray(dcs, float)
    if dcs.shape != np.shape(sp.low):
        raise ValueError(f"dcs must have one separation per row of the spread, got {dcs.shape}")
    out = _head("dc", "earliest seed", "latest seed", "std", "std / mean")
    for i, dc in enumerate(dcs):
        out.append(_row(f"{dc:.3g}", f"{sp.low[i]:.0f}", f"{sp.high[i]:.0f}", f"{sp.std[i]:.0f}", f"{sp.cv[i]:.2f}"))
    return "\n".join(out)


def robust_table(ws, rules: R.Rules = R.RULES) -> str:
    """Markdown table of "capability is robust to seed" (study Figs. 8, 9) under the old
    rule (spread ratio over all of training) and the new one (up to the step where every
    seed's capability is saturated).

    Parameters
    ----------
    ws : WindowSpread
        :func:`swingby.capability.checks.window_spread_ratio`.
    rules : Rules
        The new rules.

    Returns
    -------
    str
    """
    old_r = R.OLD_RULES
    out = _head("rule", "window", "spread ratio (capability / behaviour)", "passes", "null", "verdict")
    out.append(_row("old", "all of training", f"{ws.whole_ratio:.2f}", ws.whole_ratio <= old_r.max_spread_ratio,
                    "-", "-"))
    out.append(_row("new", f"up to every seed's capability >= {rules.cap_saturation} (steps "
                    f"{_f(ws.window_end, '.0f')})", f"{ws.ratio:.2f} (per dc {_f(ws.per_dc)})", ws.passed,
                    f"{ws.null_pass_rate:.1%}", ws.verdict))
    return "\n".join(out)


def loss_table(lm, rules: R.Rules = R.RULES) -> str:
    """Markdown table of "the loss shows no hint of the capability time" (study Fig. 4,
    left) under the old rule (spread of the loss's transition step) and the new one (a
    local feature of the log loss at the capability time, seeds' losses paired with
    other seeds' times).

    Parameters
    ----------
    lm : LossMark
        :func:`swingby.capability.time_checks.loss_mark`.
    rules : Rules
        The new rules.

    Returns
    -------
    str
    """
    old_r = R.OLD_RULES
    out = _head("rule", "statistic", "passes", "null pass rate / p", "can it see a mark?", "verdict")
    out.append(_row("old", f"std(t_loss) / std(t_cap) = {lm.old_spread:.2f}", lm.old_spread < old_r.loss_max_spread,
                    f"{lm.old_null_pass_rate:.0%} of loss curves shuffled among runs pass", "no (any early drop passes)",
                    "-"))
    out.append(_row("new", f"residual of log loss near t_cap minus elsewhere = {lm.statistic:.4f}",
                    lm.p_value > rules.alpha, f"p = {lm.p_value:.3f}",
                    f"a {rules.loss_bump:.0%} bump gives p = {lm.injected_p:.3f}", lm.verdict))
    return "\n".join(out)


def probes_table(rows: list) -> str:
    """Markdown table of probes of the capability time (study Fig. 5, App. D) under the
    old rule (within-separation shuffles, the run as unit) and the new one (seeds
    permuted, a confidence interval).

    Parameters
    ----------
    rows : list of (str, ProbeScore, Disentanglement)
        Name, :func:`swingby.capability.probe_claims.probe_score` and
        :func:`swingby.capability.time_checks.disentanglement` of each probe.

    Returns
    -------
    str
    """
    out = _head("probe", "old: r, p (within-dc shuffles)", "new: r [CI], p (seeds permuted)", "new verdict",
                "to decide")
    for name, o, d in rows:
        out.append(_row(name, f"{o.r_capability:.2f}, {o.p_value:.3f}",
                        f"{d.r:.2f} {_f(d.r_ci)}, {d.p_value:.3f}", d.verdict, d.needed))
    return "\n".join(out)


def best_probe_table(bp, old_p: float) -> str:
    """Markdown table of "the concept-space turn marks the capability time" (study Fig.
    4, right) under the old rule (the best probe's own p-value) and the new one (a
    family-wise p over every probe, the seed as the unit).

    Parameters
    ----------
    bp : BestProbe
        :func:`swingby.capability.time_checks.best_probe`.
    old_p : float
        The chosen probe's own p-value under the old rule.

    Returns
    -------
    str
    """
    out = _head("rule", "probe", "r with t_cap", "p", "verdict")
    out.append(_row("old", bp.chosen, f"{bp.r[bp.chosen]:.2f}", f"{old_p:.3f} (this probe alone, chosen as best)",
                    "-"))
    out.append(_row("new", f"{bp.chosen} (best of {len(bp.r)}: {bp.best})", f"{bp.r[bp.chosen]:.2f}",
                    f"{bp.familywise_p:.3f} (family-wise, seeds permuted)", bp.verdict))
    return "\n".join(out)


def capability_section(res: dict, rules: R.Rules = R.RULES) -> list[str]:
    """Markdown lines: the capability checks under the old and the new rules.

    Parameters
    ----------
    res : dict
        A complete sweep.
    rules : Rules
        The new rules.

    Returns
    -------
    list of str
    """
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    dcs = np.asarray(res["meta"]["config"]["separations"], float)
    old_r = R.OLD_RULES
    out = ["## Capability before behaviour (study Fig. 2)", ""]
    out += lead_table(res, {by: K.lead_over_levels(res, by, rules) for by in ("classifier", "pixels")},
                      rules).split("\n")
    t_old = CM.crossing_times(res).capability
    t_cap = K.sustained_crossing(steps, CM.capability(res), rules.crossing_level, rules.sustain_k)
    sp = K.seed_spread(t_cap)
    out += ["", f"Sustained ({rules.sustain_k} checkpoints) and first crossings differ in "
            f"{int(np.sum(t_old != t_cap))} runs at level {rules.crossing_level}.", "",
            "## Seed spread of the capability time", ""]
    out += seed_spread_table(sp, dcs).split("\n")
    ws = K.window_spread_ratio(CM.capability(res), CM.behaviour(res), steps, rules)
    out += ["", "## Capability is robust to seed (study Figs. 8, 9)", "",
            f"Old rule (whole training): ratio {ws.whole_ratio:.2f} <= {old_r.max_spread_ratio} -> "
            f"{ws.whole_ratio <= old_r.max_spread_ratio}. New rule (each separation up to the first checkpoint where "
            f"every seed's capability >= {rules.cap_saturation}; windows end at steps {_f(ws.window_end, '.0f')}): "
            f"ratio {ws.ratio:.2f} (per dc {_f(ws.per_dc)}), null (curves swapped per seed) "
            f"{ws.null_pass_rate:.1%}. **New verdict: {ws.verdict}**; to decide: {ws.needed}.", ""]
    sep = T.time_vs_separation(t_cap, dcs, rules)
    out += ["## Capability time against colour separation (study appendix)", "",
            f"Per-seed Spearman rho(dc, t_cap) {_f(sep.rho_per_seed)}, mean {sep.mean_rho:.2f}, sign-flip "
            f"permutation p = {sep.p_value:.3f}. **New verdict: {sep.verdict}**; to decide: {sep.needed}. "
            "(No old check.)", ""]
    bb = K.blue_big_before_capability(res, t_cap, rules)
    out += ["## The pure-blue prompt draws big blue discs before capability", "",
            f"Runs showing it (rows dc, columns seed): {bb.per_run.astype(int).tolist()}; plain prompt (null): "
            f"{bb.null_per_run.astype(int).tolist()}. Seeds with it at dc <= {rules.weak_dc}: "
            f"{int(bb.per_seed.sum())} of {bb.per_seed.size}, null per seed {bb.null_pass_rate:.1%}. "
            f"**New verdict: {bb.verdict}**; to decide: {bb.needed}. (No old check.)", ""]
    lm = T.loss_mark(res, t_cap, rules)
    out += ["## The loss shows no hint of the capability time (study Fig. 4, left)", "",
            f"Old rule: std(t_loss) / std(t_cap) = {lm.old_spread:.2f} < {old_r.loss_max_spread}; that check passes "
            f"on {lm.old_null_pass_rate:.0%} of loss curves shuffled among runs (any early-dropping loss passes). "
            f"New: |residual| of log loss near t_cap minus elsewhere = {lm.statistic:.4f}, p = {lm.p_value:.3f} "
            f"(seeds' losses paired with other seeds' times); a {rules.loss_bump:.0%} bump at t_cap would give "
            f"p = {lm.injected_p:.3f}. **New verdict: {lm.verdict}**; to decide: {lm.needed}.", ""]
    ed = CP.embedding_disentanglement(res)
    out += ["## Embedding disentanglement tracks the capability time (study Fig. 5)", ""]
    out += _head("probe", "old: probe_score r, p (within-dc shuffles)", "new: r [CI], p (seeds permuted)",
                 "new verdict", "to decide")
    for name, tp in (("transition step", CP.transition_step(steps, ed)), ("step of maximum", CP.peak_step(steps, ed))):
        o = CPC.probe_score(name, tp, CM.crossing_times(res), n_perm=1000,
                            seeding=res["meta"]["config"].get("seeding", "shared"))
        d = T.disentanglement(tp, t_cap, rules)
        out.append(_row(name, f"{o.r_capability:.2f}, {o.p_value:.3f}",
                        f"{d.r:.2f} {_f(d.r_ci)}, {d.p_value:.3f}", d.verdict, d.needed))
    out += ["", "## What marks the capability time (study Fig. 4): the best of the probes", ""]
    bp = T.best_probe(_probes(res, steps, ed), t_cap, "concept space: turn", rules)
    out += ["Correlations with the capability time: " + "; ".join(f"{k} {v:.2f}" for k, v in bp.r.items())
            + f". Best: {bp.best}; family-wise p (seeds permuted, maximum over the {len(bp.r)} probes) = "
            f"{bp.familywise_p:.3f}. Old rule: the turn was chosen because it scored best, with a p-value for that "
            f"probe alone. **New verdict for the turn: {bp.verdict}.**", ""]
    return out


class MemorizationWord(NamedTuple):
    """The verdict of the study's Fig. 1 (concept memorization), from its two checks."""

    n_pass: int          #: independent units in the study's range whose runs all head for 01 first
    n_units: int         #: independent units there (seeds if shared across separations, else runs)
    null_rate: float     #: how often a coin between 01 and 10 lets a unit pass (0.5 ** its runs, the largest)
    p_value: float       #: one-sided binomial test of ``n_pass`` against ``null_rate``
    corner_word: str     #: the verdict of the corner check
    leave_word: str      #: the verdict of the leaving-step check (rank correlation >= 0.5 with its null)
    word: str            #: the weaker of the two (:func:`swingby.diffusion.rules.weakest`)
    combined: str        #: the word :func:`swingby.diffusion.rules.combine` gives (used until 2026-11-26)


def memorization_word(corner: np.ndarray, done: np.ndarray, dcs: np.ndarray, seeding: str, rho_leave: float,
                      null_leave: float, min_rho: float = 0.5, rules: R.Rules = R.RULES) -> MemorizationWord:
    """The Fig. 1 row's verdict, by :func:`~swingby.diffusion.rules.verdict` like every
    other row. Corner check: an independent unit (the seed when it is shared across the
    separations, else the run) passes when its finished runs at ``dc <= rules.weak_dc``
    all head for 01 first; the null is a coin between the two trained corners, which lets
    a unit of ``m`` runs pass with probability ``0.5 ** m`` (the largest over the units is
    the null's pass rate, so a unit of one run, as on a per-run sweep, can never give more
    than "inconclusive": the rule asks a null that passes at most ``alpha``); a
    significant share of units heading for 10 instead "differs". Leaving check: the rank
    correlation of the leaving step with the final concept-space MSE reaches ``min_rho``,
    its null (MSE shuffled among runs) passing ``null_leave``, as one unit.

    Parameters
    ----------
    corner : array of str (D, S)
        ``"01"`` or ``"10"`` per run (:func:`swingby.capability.probes.concept_turn`).
    done : array of bool (D, S)
        Finished runs.
    dcs : array (D,)
        The separations.
    seeding : {"shared", "per_run"}
        The sweep's seeding.
    rho_leave, null_leave : float
        The leaving check's correlation and its null's pass rate.
    min_rho : float
        The correlation the leaving check asks (the chapter's 0.5).
    rules : Rules
        Supplies ``weak_dc``, ``alpha`` and the seed fractions.

    Returns
    -------
    MemorizationWord
    """
    corner, done = np.asarray(corner, str), np.asarray(done, bool)
    if corner.ndim != 2 or corner.shape != done.shape or len(dcs) != corner.shape[0]:
        raise ValueError(f"corner and done must be (D, S) with D = len(dcs), got {corner.shape}, {done.shape}")
    if seeding not in ("shared", "per_run"):
        raise ValueError(f"seeding must be 'shared' or 'per_run', got {seeding!r}")
    weak = (np.asarray(dcs, float) <= rules.weak_dc + 1e-9)[:, None] & done
    if seeding == "shared":
        units = [corner[weak[:, j], j] for j in range(corner.shape[1]) if weak[:, j].any()]
    else:
        units = [np.array([c]) for c in corner[weak]]
    k, n = sum(bool((u == "01").all()) for u in units), len(units)
    k10 = sum(bool((u == "10").all()) for u in units)
    null = max((0.5 ** len(u) for u in units), default=1.0)
    p = R.binomial_p(k, n, null) if n else 1.0
    opposite = bool(n and k10 > k and R.binomial_p(k10, n, null) <= rules.alpha)
    corner_word = R.verdict(R.Outcome(k, n, float(null), opposite=opposite), rules)
    leave_word = R.verdict(R.Outcome(int(rho_leave >= min_rho), 1, float(null_leave)), rules)
    return MemorizationWord(k, n, float(null), float(p), corner_word, leave_word,
                            R.weakest([corner_word, leave_word]), R.combine([corner_word, leave_word]))


def linear_word(passed: bool, null_linear: float, rho_lead: float, null_lead: float, max_rho: float = -0.5,
                rules: R.Rules = R.RULES) -> str:
    """The Fig. 3 row's verdict (old rule only): the linear check as one unit of
    :func:`~swingby.diffusion.rules.verdict` with its null (behaviour times shuffled),
    "differs" when it fails while the lead falls significantly with the separation (rank
    correlation at most ``max_rho``, its null passing at most ``alpha``): the behaviour
    time is set by the colour signal rather than by the capability time.

    Parameters
    ----------
    passed : bool
        The linear check.
    null_linear : float
        Its null's pass rate.
    rho_lead, null_lead : float
        Rank correlation of separation and lead, and its null's pass rate.
    max_rho : float
        The chapter's -0.5.
    rules : Rules
        Supplies ``alpha``.

    Returns
    -------
    str
    """
    other = (not passed) and rho_lead <= max_rho and null_lead <= rules.alpha
    return R.verdict(R.Outcome(int(bool(passed)), 1, float(null_linear), opposite=bool(other)), rules)


def claim_word_app_d(mark_word: str) -> str:
    """The App. D row's verdict. The study claims only that the probes "reflect different
    aspects" of training; the chapter checks a stronger statement, that they *mark* the
    capability time. A mark found (reproduced, partly) supports the claim; a mark not
    found does not decide the weaker claim: "inconclusive".

    Parameters
    ----------
    mark_word : str
        The combined verdict of the mark checks.

    Returns
    -------
    str
    """
    if mark_word not in R.VERDICTS:
        raise ValueError(f"mark_word must be one of {R.VERDICTS}, got {mark_word!r}")
    return mark_word if mark_word in ("reproduced", "partly") else "inconclusive"


def _probes(res: dict, steps: np.ndarray, ed: np.ndarray) -> dict:
    """The transition steps of the chapter's probes, ``(D, S)`` each."""
    turn = CP.concept_turn(res)
    wnorm = np.where(res["done"][..., None], res["wnorm"], np.nan)
    out = {"concept space: turn": turn.turn, "concept space: leaving step": turn.departure,
           "embedding disentanglement": CP.transition_step(steps, ed),
           "parallelogram cosine": CP.transition_step(steps, CP.embedding_parallelogram(res))}
    for j, name in enumerate(("colour inputs", "size input", "convolutions")):
        out[f"weight norm, {name}"] = CP.transition_step(steps, wnorm[..., j])
    for f in ("grad_colour", "grad_size", "grad_conv", "loss"):
        out[f] = CP.transition_step(*CP.loss_log(res, f))
    return out
