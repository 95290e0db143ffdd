"""The Fig. 6 checks under the old and the new rules, as markdown tables
(``book/diffusion.md`` shows them; :mod:`swingby.diffusion.rules_report` gathers them
into the report on the stored sweep), and the verdict words of the chapter's status
rows: the order check, the decay's shape and the data of Fig. 19 read by the verdict
rule, and :func:`rule_outcome`, the outcome each new check's verdict was made from.
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.diffusion import rules as R
from swingby.diffusion.concept_space import concept_mse
from swingby.diffusion.fig6 import checks as F
from swingby.diffusion.fig6 import claims as OLD
from swingby.diffusion.fig6 import mse_checks as FM
from swingby.diffusion.fig6 import slowing as FS
from swingby.diffusion.rules import Outcome, combine
from swingby.diffusion.tables import _f, _head, _row

#: App. G's stated disc diameters, big and small, as shares of the image (paper text)
APP_G_DIAMETERS = (0.70, 0.30)


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
        :func:`swingby.diffusion.fig6.mse_checks.mse_rise_checks` (new rule).

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
        :func:`swingby.diffusion.fig6.slowing.slowing_checks` (old rule).
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
    noise = FM.noise_reading(res)
    out.append(f"Classifier reading of noise images: ({noise[0]:.2f}, {noise[1]:.2f}), MSE "
               f"{float(concept_mse(noise)):.2f} against 0.50 at either training corner: from there a move toward a "
               "corner lowers the MSE. New read-out: only samples the pixel check sees as a disc.")
    out.append("")
    out += mse_table(OLD.bend_checks(res), FM.mse_rise_checks(res, rules)).split("\n")
    out += ["", "## Fig. 6(c): learning slows down", ""]
    out += slowing_table(FS.slowing_checks(res), FS.terminal_slowing(res, rules)).split("\n")
    out += [""]
    return out


def order_outcome(per_seed, flips) -> Outcome:
    """The order check as the verdict rule reads it, the seed as the unit: a seed passes
    when it flips; its null (the colour and size times of each run exchangeable) makes a
    seed flip with probability 1/4 where both of its runs order the concepts (1/2 each),
    and never where one is a tie.

    Parameters
    ----------
    per_seed : array_like (D, S) of str
        :attr:`swingby.diffusion.fig6.claims.OrderCheck.per_seed`.
    flips : array_like (S,) of bool
        :attr:`swingby.diffusion.fig6.claims.OrderCheck.flips`.

    Returns
    -------
    Outcome
    """
    per_seed, f = np.asarray(per_seed, dtype=object), np.asarray(flips)
    if per_seed.ndim != 2 or f.ndim != 1 or f.dtype != bool or per_seed.shape[1] != f.size or f.size == 0:
        raise ValueError(f"per_seed must be (D, S) and flips (S,) bool, got {per_seed.shape} and {f.shape}")
    ordered = (per_seed[0] != "tie") & (per_seed[-1] != "tie")
    return Outcome(int(f.sum()), int(f.size), float(np.mean(np.where(ordered, 0.25, 0.0))))


def shape_word(shape) -> str:
    """The verdict on "an exponential rate" (Fig. 6c): per separation, an exponential
    decided by its interval counts as reproduced, a power law so decided as "differs"
    (a significant effect of another shape), an undetermined shape as inconclusive;
    combined over separations by :func:`swingby.diffusion.rules.combine`.

    Parameters
    ----------
    shape : sequence of str
        ``"exponential"``, ``"power law"`` or ``"undetermined"`` per separation.
    """
    shape = list(shape)
    word = {"exponential": "reproduced", "power law": "differs", "undetermined": "inconclusive"}
    if not shape or not set(shape) <= set(word):
        raise ValueError(f"shape must be a non-empty sequence of {sorted(word)}, got {shape!r}")
    return combine([word[s] for s in shape])


def data_word(gaps_ok: bool, diameters, stated=APP_G_DIAMETERS) -> str:
    """The verdict on the data of Fig. 19: the generator delivers the separations it is
    asked for (else "not reproduced"), and its disc diameters are App. G's (to the
    percent; else "differs"), combined by :func:`swingby.diffusion.rules.combine`.

    Parameters
    ----------
    gaps_ok : bool
        The colour and size gaps measured on the pixels are within tolerance at every
        separation.
    diameters : array_like (2,)
        The generator's big and small disc diameters as shares of the image.
    stated : array_like (2,)
        The paper's stated diameters.
    """
    _checks.flag("gaps_ok", gaps_ok)
    d, s = _checks.array("diameters", diameters, shape=(2,)), _checks.array("stated", stated, shape=(2,))
    same = bool(np.all(np.abs(d - s) < 0.005))
    return combine(["reproduced" if gaps_ok else "not reproduced", "reproduced" if same else "differs"])


def rule_outcome(check) -> Outcome:
    """The :class:`~swingby.diffusion.rules.Outcome` a new check's ``verdict`` was made
    from, rebuilt from its fields (the chapter asserts ``verdict(rule_outcome(c)) ==
    c.verdict``): a dip check counts its seeds, an MSE check is decidable when at least
    ``partly_seed_fraction`` of its seeds are, a slowing check counts its measurable seeds.

    Parameters
    ----------
    check : DipCheck, MSECheck or SlowingResult
        One separation's record of :func:`~swingby.diffusion.fig6.checks.dip_checks`,
        :func:`~swingby.diffusion.fig6.mse_checks.mse_rise_checks` or
        :func:`~swingby.diffusion.fig6.slowing.terminal_slowing`.

    Returns
    -------
    Outcome
    """
    n_pass = int(np.sum(getattr(check, "per_seed", [])))
    if isinstance(check, F.DipCheck):
        return Outcome(n_pass, int(check.per_seed.size), check.null_pass_rate, check.decidable)
    if isinstance(check, FM.MSECheck):
        dec = bool(np.mean(check.decidable) >= R.RULES.partly_seed_fraction)
        return Outcome(n_pass, int(check.per_seed.size), check.null_pass_rate, dec)
    if isinstance(check, FS.SlowingResult):
        n_meas = int(np.sum(check.measurable))
        return Outcome(n_pass, n_meas, check.null_pass_rate, n_meas > 0)
    raise ValueError(f"check must be a DipCheck, MSECheck or SlowingResult, got {type(check).__name__}")


def counted(k: int, noun: str, plural: str | None = None, verb: tuple[str, str] | None = None) -> str:
    """A count in words that reads well for any number: ``"no run"``, ``"one run"``,
    ``"3 runs"`` (with ``verb=("has", "have")``: ``"one run has"``, ``"3 runs have"``).
    Used by the diffusion chapter's glued sentences.

    Parameters
    ----------
    k : int
        The count, >= 0.
    noun : str
        The singular noun.
    plural : str, optional
        The plural (default: ``noun + "s"``).
    verb : tuple of str, optional
        ``(singular, plural)`` verb forms to append.

    Returns
    -------
    str
    """
    k = _checks.integer("k", k, low=0)
    _checks.instance("noun", noun, str)
    many = noun + "s" if plural is None else _checks.instance("plural", plural, str)
    text = "no " + noun if k == 0 else "one " + noun if k == 1 else f"{k} {many}"
    if verb is not None:
        if not (isinstance(verb, tuple) and len(verb) == 2 and all(isinstance(v, str) for v in verb)):
            raise ValueError(f"verb must be a (singular, plural) pair of str, got {verb!r}")
        text += " " + (verb[1] if k > 1 else verb[0])
    return text
