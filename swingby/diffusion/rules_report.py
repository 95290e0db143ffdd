"""Every check under the old and the new rules on a stored sweep, as markdown
(``python -m swingby.diffusion.rules_report`` writes ``results/diffusion/rules_on_stored_sweep.md``).

The report is generated, never typed: it is what the chapters will show when they move
to :data:`swingby.diffusion.rules.RULES`.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from swingby.capability import checks as K
from swingby.capability import claims as CC
from swingby.capability import measures as CM
from swingby.capability import probes as CP
from swingby.capability import time_checks as T
from swingby.diffusion import rules as R
from swingby.diffusion.fig6 import checks as F
from swingby.diffusion.fig6 import claims as OLD
from swingby.diffusion.fig6 import slowing as FS

DEFAULT_SWEEP = Path(__file__).resolve().parents[2] / "results" / "diffusion" / "sweep_cpu.npz"


def _f(x, fmt=".2f") -> str:
    return "[" + ", ".join(format(float(v), fmt) for v in np.ravel(x)) + "]"


def _row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _head(*cols) -> list[str]:
    return [_row(*cols), _row(*["---"] * len(cols))]


def _independence(res: dict) -> str:
    meta = res["meta"]
    seeds = meta["config"]["seeds"]
    if meta.get("independent_runs"):
        return f"The sweep draws independent randomness per (separation, seed): {len(seeds)} seeds x " \
               f"{len(meta['config']['separations'])} separations independent runs."
    return (f"**This sweep shares one seed across all separations** (initial weights, batch order, data draw "
            f"and sampling noise), so its {len(seeds) * len(meta['config']['separations'])} runs are about "
            f"{len(seeds)} independent replicates. Per-seed statistics and p-values below use the seed as the "
            f"unit and are illustrative; a verdict here is not the verdict of the new sweep.")


def sweep_note(meta: dict, short: bool = False) -> str:
    """One sentence on how far a sweep's verdicts go, from
    :func:`swingby.diffusion.rules.sweep_rules` of its meta: for a sweep made before the
    rules were fixed ("predates"), that it predates them and (if so) shares one seed
    across separations, so the verdicts are illustrative with the seed as the unit; for
    a sweep made under today's rules ("current"), that it was.

    Parameters
    ----------
    meta : dict
        ``res["meta"]`` of a stored sweep.
    short : bool
        A clause for a summary instead of the full sentence.

    Returns
    -------
    str
    """
    state = R.sweep_rules(meta)
    if not isinstance(short, bool):
        raise ValueError(f"short must be True or False, got {short!r}")
    if short:
        if state == "current":
            return "this sweep was made under those rules, so their verdicts stand"
        shared = "" if meta.get("independent_runs") else " and shares one seed across separations"
        return f"this sweep predates those rules{shared}, so the new verdicts are illustrative"
    cfg = meta.get("config", {})
    n_seeds, n_dcs = len(cfg.get("seeds", ())), len(cfg.get("separations", ()))
    if state == "current":
        return (f"This sweep was made after the rules of the checks were fixed (fingerprint "
                f"`{R.fingerprint()}`), with independent randomness per run: its verdicts are "
                f"the verdicts of the rule, with the seed as the unit ({n_seeds} seeds).")
    shared = "" if meta.get("independent_runs") else (
        f" and shares one seed across all separations (initial weights, batch order, data "
        f"draw and sampling noise), so its {n_seeds * n_dcs} runs are about {n_seeds} "
        "independent replicates")
    return ("This sweep predates the rules of the checks (it was made before their thresholds "
            f"were fixed){shared}: every verdict below is illustrative, with the seed as the "
            "unit, and a new sweep made under the rules will replace it.")


def swing_table(swings: list, dips: list) -> str:
    """Markdown table of the swing (paper Fig. 6a) per separation under the old rule
    (seed-mean swing against a straight-path null) and the new one (a dip and recovery
    of class 11 per seed against monotone-per-coordinate paths).

    Parameters
    ----------
    swings : list
        :func:`swingby.diffusion.fig6.claims.swing_checks` (old rule).
    dips : list of DipCheck
        :func:`swingby.diffusion.fig6.checks.dip_checks` (new rule).

    Returns
    -------
    str
    """
    if len(swings) != len(dips):
        raise ValueError(f"swings and dips must have one entry per separation, got {len(swings)} and {len(dips)}")
    out = _head("dc", "old: seed-mean swing (passed, null)", "new: toward", "new: dip per seed (fall / recovery)",
                "new: null (monotone per coordinate)", "old check on that null", "new verdict", "to decide")
    for s, d in zip(swings, dips):
        out.append(_row(f"{d.dc:.3g}", f"{s.result.passed} ({s.result.swing:.2f}; {s.null_pass_rate:.1%})", d.toward,
                        f"{''.join('x' if p else '.' for p in d.per_seed)} {_f(d.fall)} / {_f(d.recovery)}",
                        f"{d.null_pass_rate:.1%}", f"{d.old_null_pass_rate:.1%}", d.verdict, d.needed))
    return "\n".join(out)


def mse_table(bends: list, mses: list) -> str:
    """Markdown table of the MSE rise (paper Fig. 6b) per separation under the old rule
    (seed-mean bend on every sample's classifier reading) and the new one (rise then
    fall per seed on the disc-only reading).

    Parameters
    ----------
    bends : list
        :func:`swingby.diffusion.fig6.claims.bend_checks` (old rule).
    mses : list of MSECheck
        :func:`swingby.diffusion.fig6.checks.mse_rise_checks` (new rule).

    Returns
    -------
    str
    """
    if len(bends) != len(mses):
        raise ValueError(f"bends and mses must have one entry per separation, got {len(bends)} and {len(mses)}")
    out = _head("dc", "old: seed-mean bend (passed, null)", "old read-out decidable (seeds)",
                "new: rise-then-fall per seed", "new read-out decidable (seeds)", "new: null", "new verdict",
                "to decide")
    for b, m in zip(bends, mses):
        out.append(_row(f"{m.dc:.3g}", f"{b.result.passed} ({b.null_pass_rate:.1%})", int(m.old_decidable.sum()),
                        f"{''.join('x' if p else '.' for p in m.per_seed)} rise {_f(m.rise)}",
                        int(m.decidable.sum()), f"{m.null_pass_rate:.1%}", m.verdict, m.needed))
    return "\n".join(out)


def slowing_table(olds: list, news: list) -> str:
    """Markdown table of the slowing (paper Fig. 6c) per separation under the old rule
    (seed mean, a stopped-model null, the better of two fits) and the new one (per seed,
    a model that keeps moving at its late speed, a shape decided only by a confidence
    interval).

    Parameters
    ----------
    olds : list
        :func:`swingby.diffusion.fig6.claims.slowing_checks` (old rule).
    news : list of SlowingResult
        :func:`swingby.diffusion.fig6.slowing.terminal_slowing` (new rule).

    Returns
    -------
    str
    """
    if len(olds) != len(news):
        raise ValueError(f"olds and news must have one entry per separation, got {len(olds)} and {len(news)}")
    out = _head("dc", "old: passed (null), better fit", "new: per seed (measurable)", "early / floor",
                "late / floor", "drop", "saturated", "reached", "new: null (keeps moving)", "shape (CI)",
                "new verdict")
    for o, n in zip(olds, news):
        fit = o.fits.better if o.fits is not None else "none"
        out.append(_row(f"{n.dc:.3g}", f"{o.passed} ({o.null_pass_rate:.1%}), {fit}",
                        "".join("x" if p else "." if m else "-" for p, m in zip(n.per_seed, n.measurable)),
                        _f(n.moving, ".1f"), _f(n.stopped, ".1f"), _f(n.drop, ".0f"), n.saturated, n.reached,
                        f"{n.null_pass_rate:.1%}", f"{n.shape} {_f(n.shape_ci, '.3f')}", n.verdict))
    out += ["", "x: passes, .: fails, -: not measurable (the read-out saturates before the late window)."]
    return "\n".join(out)


def fig6_section(res: dict, rules: R.Rules = R.RULES) -> list[str]:
    """Markdown lines: the Fig. 6 checks under the old and the new rules.

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
    out = ["## Fig. 6(a): the swing", ""]
    order = OLD.order_check(res)
    swings = OLD.swing_checks(res, order)
    dips = F.dip_checks(res, rules)
    out += swing_table(swings, dips).split("\n")
    share, oc, word = F.weak_signal_dip(dips, rules)
    out += ["", f"Weak colour signal (dc <= {rules.weak_dc}): share of each seed's runs with the dip "
            f"{_f(share)}; {oc.n_pass} of {oc.n_units} seeds pass (null per seed {oc.null_pass_rate:.2%}); "
            f"runs with the dip: {sum(int(d.per_seed.sum()) for d in dips if d.dc <= rules.weak_dc + 1e-9)} of "
            f"{sum(d.per_seed.size for d in dips if d.dc <= rules.weak_dc + 1e-9)}. **New verdict: {word}.** "
            f"Old verdict: the swing passes at {sum(s.result.passed for s in swings)} of {len(swings)} separations "
            "on the seed mean, against a straight-path null.", ""]
    out += ["## Fig. 6(b): a non-monotone concept-space MSE", ""]
    noise = F.noise_reading(res)
    out.append(f"Classifier reading of noise images: ({noise[0]:.2f}, {noise[1]:.2f}), MSE "
               f"{float(F.concept_mse(noise)):.2f} against 0.50 at either training corner: from there a move toward a "
               "corner lowers the MSE. New read-out: only samples the pixel check sees as a disc.")
    out.append("")
    out += mse_table(OLD.bend_checks(res), F.mse_rise_checks(res, rules)).split("\n")
    out += ["", "## Fig. 6(c): learning slows down", ""]
    out += slowing_table(OLD.slowing_checks(res), FS.terminal_slowing(res, rules)).split("\n")
    out += [""]
    return out


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
        Name, :func:`swingby.capability.claims.probe_score` and
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
        o = CC.probe_score(name, tp, CM.crossing_times(res), n_perm=1000)
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


def report(res: dict, rules: R.Rules = R.RULES) -> str:
    """The whole markdown report for one stored sweep.

    Parameters
    ----------
    res : dict
        A complete sweep (:func:`swingby.diffusion.runs.storage.load_results`).
    rules : Rules
        The new rules.

    Returns
    -------
    str
    """
    lines = ["# The checks under the old and the new rules, on the stored sweep", "",
             "Generated by `python -m swingby.diffusion.rules_report`; do not edit by hand.", "",
             f"Rules fingerprint `{R.fingerprint(rules)}`; the sweep's: "
             f"`{res['meta'].get('rules_fingerprint', 'none (made before the rules were fixed)')}`.", "",
             _independence(res), "", "## The rules", ""]
    old, new = R.values(R.OLD_RULES), R.values(rules)
    lines += _head("rule", "old", "new")
    for k in sorted(set(old) | set(new)):
        lines.append(_row(k, old.get(k, "-"), new.get(k, "-")))
    lines += ["", "Verdict rule: " + R.VERDICT_RULE, ""]
    lines += fig6_section(res, rules) + capability_section(res, rules)
    return "\n".join(lines)


def main(argv=None) -> None:
    """Write the report of a stored sweep (command line).

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default: the command line).

    Returns
    -------
    None
    """
    from swingby.diffusion.runs.storage import load_results
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sweep", type=Path, default=DEFAULT_SWEEP)
    ap.add_argument("--out", type=Path, default=DEFAULT_SWEEP.parent / "rules_on_stored_sweep.md")
    args = ap.parse_args(argv)
    args.out.write_text(report(load_results(args.sweep)) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
