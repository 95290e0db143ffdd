"""The capability checks under the old and the new rules, as markdown tables
(``book/capability.md`` shows them; :mod:`swingby.diffusion.rules_report` gathers them
into the report on the stored sweep).
"""
from __future__ import annotations

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
        o = CPC.probe_score(name, tp, CM.crossing_times(res), n_perm=1000)
        d = T.disentanglement(tp, t_cap, rules)
        out.append(_row(name, f"{o.r_capability:.2f}, {o.p_value:.3f} (chapter: not reproduced)",
                        f"{d.r:.2f} {_f(d.r_ci)}, {d.p_value:.3f}", d.verdict, d.needed))
    out += ["", "## What marks the capability time (study Fig. 4): the best of the probes", ""]
    bp = T.best_probe(_probes(res, steps, ed), t_cap, "concept space: turn", rules)
    out += ["Correlations with the capability time: " + "; ".join(f"{k} {v:.2f}" for k, v in bp.r.items())
            + f". Best: {bp.best}; family-wise p (seeds permuted, maximum over the {len(bp.r)} probes) = "
            f"{bp.familywise_p:.3f}. Old rule: the turn was chosen because it scored best, with a p-value for that "
            f"probe alone. **New verdict for the turn: {bp.verdict}.**", ""]
    return out


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
