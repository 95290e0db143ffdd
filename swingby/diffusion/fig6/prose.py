"""Sentences of ``book/diffusion.md`` that depend on the stored sweep (issue 22): each
function is pure (numbers and words in, no I/O) and returns a sentence or clause
(``str``, without its full stop), so the chapter reads true whatever a sweep shows. The
verdicts they mention are computed elsewhere (:mod:`swingby.diffusion.fig6.report`).
"""
from __future__ import annotations

import numpy as np

from swingby import _checks
from swingby.diffusion.rules import RULES, Rules


def _join(items) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    items = [str(i) for i in items]
    if not items:
        raise ValueError("items must not be empty")
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _dcs(dcs) -> list[str]:
    """Separations as the chapter prints them."""
    return [f"{float(d):.3g}" for d in _checks.array("dcs", dcs, ndim=1)]


def _same_length(name: str, values, dcs) -> np.ndarray:
    values = np.asarray(values)
    if values.ndim != 1 or values.shape[0] != len(dcs):
        raise ValueError(f"{name} must have one entry per separation ({len(dcs)}), got shape {values.shape}")
    return values


# ------------------------------------------------------------------ the sweep's design
def positions(position: float) -> str:
    """Where the discs of a preset lie, in words.

    Parameters
    ----------
    position : float
        ``Preset.position``: disc centres uniform in ``[-position, position]^2``.
    """
    position = _checks.number("position", position, low=0, high=1)
    return "at the centre of the image" if position == 0 else f"with centres uniform in [-{position:g}, {position:g}]²"


def sweep_design(config: dict) -> str:
    """A stored sweep's design in one clause: separations, seeds and how they are
    seeded, checkpoints, samples per class point and where the discs lie.

    Parameters
    ----------
    config : dict
        ``res["meta"]["config"]`` (a preset's ``to_dict()``); a config without
        ``seeding`` was made before the field existed and shares its seeds.
    """
    keys = ("separations", "seeds", "n_checkpoints", "samples_per_class", "position")
    if not isinstance(config, dict) or not all(k in config for k in keys):
        raise ValueError(f"config must be a sweep's config dict with {keys}, got {config!r}")
    n_dc, n_seed = len(config["separations"]), len(config["seeds"])
    seeding = config.get("seeding", "shared")
    if seeding not in ("shared", "per_run"):
        raise ValueError(f"config['seeding'] must be 'shared' or 'per_run', got {seeding!r}")
    how = ("one seed shared across the separations (initial weights, batch order, data draw and sampling noise)"
           if seeding == "shared" else "independent randomness per (separation, seed)")
    return (f"{n_dc} colour separations ({_join(_dcs(config['separations']))}) x {n_seed} seeds with {how}, "
            f"{config['n_checkpoints']} checkpoints, {config['samples_per_class']} samples per class and "
            f"checkpoint, discs {positions(config['position'])}")


def search_status(stored: dict, chosen: dict, name: str, command: str) -> str:
    """The sentence that closes the position search: whether the sections below read
    the chosen candidate's sweep or, until it is complete, an earlier one.

    Parameters
    ----------
    stored : dict
        The stored sweep's config (``res["meta"]["config"]``).
    chosen : dict
        The config of the chosen candidate's sweep (``sweep_preset(CHOSEN).to_dict()``).
    name : str
        The chosen candidate's name.
    command : str
        The command that makes the chosen sweep.
    """
    if not isinstance(name, str) or not isinstance(command, str):
        raise ValueError(f"name and command must be strings, got {name!r} and {command!r}")
    if stored == chosen:
        return (f"The sections below read the sweep of the chosen candidate, {name} (`{command}`): "
                f"{sweep_design(stored)}")
    return (f"A new sweep runs on the chosen candidate, {name} (`{command}`: {sweep_design(chosen)}); until it "
            f"is complete, the sections below read an earlier sweep: {sweep_design(stored)}")


# ------------------------------------------------------------------ the held-out class
def readings(dcs, pixels, classifier) -> str:
    """How far the pixel check and the classifier disagree on class 11 at the end of
    training, and how the weakest and the strongest separation compare.

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations, weakest first.
    pixels, classifier : array_like (D,)
        Final share of class-11 samples that are blue small, by each reading.
    """
    names = _dcs(dcs)
    pix = _same_length("pixels", pixels, names).astype(float)
    clf = _same_length("classifier", classifier, names).astype(float)
    gap = np.abs(pix - clf)
    i = int(np.argmax(gap))
    cmp = "fewer than" if pix[0] < pix[-1] else "as many as" if pix[0] == pix[-1] else "more than"
    return (f"The two readings differ by at most {100 * gap[i]:.0f} percentage points (at dc = {names[i]}). "
            f"At the weakest separation, dc = {names[0]}, {100 * pix[0]:.0f} % of the final class-11 samples are blue "
            f"small discs by the pixels, {cmp} at dc = {names[-1]} ({100 * pix[-1]:.0f} %)")


# ------------------------------------------------------------------ Fig. 6(a): order
def first_concepts(dcs, firsts) -> str:
    """Which concept the seed-mean contrasts learn first, by separation.

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations.
    firsts : sequence of str
        ``"colour"``, ``"size"`` or ``"tie"`` per separation.
    """
    names = _dcs(dcs)
    firsts = list(_same_length("firsts", np.asarray(firsts, dtype=object), names))
    if not set(firsts) <= {"colour", "size", "tie"}:
        raise ValueError(f"firsts must hold 'colour', 'size' or 'tie', got {firsts!r}")
    parts = [f"{w} comes first at dc = {_join([n for n, f in zip(names, firsts) if f == w])}"
             for w in ("size", "colour") if w in firsts]
    if "tie" in firsts:
        parts.append(f"neither at dc = {_join([n for n, f in zip(names, firsts) if f == 'tie'])}")
    return "in the seed means, " + "; ".join(parts)


def colour_times(dcs, t_colour) -> str:
    """Whether the colour contrast passes one half sooner the larger the separation.

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations, increasing.
    t_colour : array_like (D,)
        Step at which the seed-mean colour contrast reaches one half (``inf``: never).
    """
    names = _dcs(dcs)
    t = _same_length("t_colour", t_colour, names).astype(float)
    late = [f"{names[i]} to {names[i + 1]}" for i in range(len(t) - 1) if not t[i] > t[i + 1]]
    if len(t) < 2:
        return "with one separation there is no trend to see"
    return ("colour is learned sooner at every larger separation" if not late else
            f"colour is not learned sooner at every larger separation (not from dc = {_join(late)})")


def order_flips(flips) -> str:
    """In how many seeds the order flips (size first at the weakest separation, colour
    first at the strongest).

    Parameters
    ----------
    flips : array_like (S,) of bool
        :attr:`swingby.diffusion.fig6.claims.OrderCheck.flips`.
    """
    f = np.asarray(flips)
    if f.ndim != 1 or f.size == 0 or f.dtype != bool:
        raise ValueError(f"flips must be a non-empty 1-d bool array, got {flips!r}")
    n, k = f.size, int(f.sum())
    if k == n:
        return f"The flip holds in every one of the {n} seeds"
    if k == 0:
        return f"The flip holds in none of the {n} seeds"
    return f"The flip holds in {k} of the {n} seeds (seeds {_join(np.flatnonzero(f))})"


# ------------------------------------------------------------------ Fig. 6(a): swing
def null_too_high(dcs, null_rates, alpha: float = RULES.alpha) -> str:
    """The separations at which a check's null passes more often than the rule allows
    (there the check cannot decide), or that it passes less often everywhere.

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations.
    null_rates : array_like (D,)
        The null's pass rate at each.
    alpha : float
        The rule's largest null pass rate.
    """
    names = _dcs(dcs)
    rates = _same_length("null_rates", null_rates, names).astype(float)
    alpha = _checks.number("alpha", alpha, low=0, high=1)
    high = [f"{n} ({100 * r:.1f} %)" for n, r in zip(names, rates) if r > alpha]
    if not high:
        return f"its null passes at most {100 * rates.max():.1f} % of the time at every separation"
    return (f"its null passes more often than the rule's {100 * alpha:.0f} % at dc = {_join(high)}, so there it "
            "cannot decide")


def undecidable(dcs, towards, decidable, dip_fall: float = RULES.dip_fall) -> str:
    """Where the swing check's read-out has no room to show the swing (the coordinate
    that should dip starts below ``dip_fall``).

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations.
    towards : sequence of str
        ``"01"`` (size first: P(blue) dips) or ``"10"`` (colour first: P(small) dips).
    decidable : array_like (D,) of bool
        :attr:`swingby.diffusion.fig6.checks.DipCheck.decidable`.
    dip_fall : float
        The smallest fall the check asks for.
    """
    names = _dcs(dcs)
    towards = list(_same_length("towards", np.asarray(towards, dtype=object), names))
    dec = _same_length("decidable", decidable, names).astype(bool)
    if not set(towards) <= {"01", "10"}:
        raise ValueError(f"towards must hold '01' or '10', got {towards!r}")
    coord = {"01": "P(blue)", "10": "P(small)"}
    bad = [(n, t) for n, t, d in zip(names, towards, dec) if not d]
    if not bad:
        return "At every separation the coordinate the check reads starts high enough to show a dip"
    which = _join([f"{n} (it reads {coord[t]}, toward {'red small' if t == '01' else 'blue big'})" for n, t in bad])
    return (f"At dc = {which} the read-out cannot show the swing this way: class 11's coordinate starts below "
            f"{dip_fall:.2f} at the first trained checkpoint (in the seed mean), so it has no room to fall, and "
            "the swing is seen only on the trajectory, which the old check reads")


# ------------------------------------------------------------------ Fig. 6(b): MSE rise
def noise_artefact(noise, noise_mse: float, corner_mse: float) -> str:
    """What the classifier's reading of noise images means for the MSE of Fig. 6(b).

    Parameters
    ----------
    noise : array_like (2,)
        (P(blue), P(small)) of noise images.
    noise_mse : float
        Its concept MSE to (1, 1).
    corner_mse : float
        The smaller MSE of the two training corners.
    """
    p = _checks.array("noise", noise, shape=(2,))
    noise_mse, corner_mse = _checks.number("noise_mse", noise_mse, low=0), _checks.number("corner_mse", corner_mse,
                                                                                       low=0)
    head = (f"Noise images, which the barely trained model draws under every prompt, read as (P(blue), P(small)) "
            f"≈ ({p[0]:.2f}, {p[1]:.2f}), an MSE of {noise_mse:.2f}")
    if noise_mse > corner_mse:
        return (f"{head}, above the {corner_mse:.2f} of either training corner. From there a move toward a training "
                "class lowers the MSE, so while samples are still noise the swing cannot show as a rise, whatever "
                "the model does")
    return (f"{head}, not above the {corner_mse:.2f} of the training corners, so a move toward a training class can "
            "raise the MSE even while samples are noise; the disc-only read-out keeps noise images out all the same")


def mse_outcome(dcs, verdicts, per_seed_pass, null_rates, n_decidable, rules: Rules = RULES) -> str:
    """The new MSE check per separation in words: where it passes (with how many seeds
    and its null), and why it cannot decide elsewhere.

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations.
    verdicts : sequence of str
        :attr:`swingby.diffusion.fig6.mse_checks.MSECheck.verdict` per separation.
    per_seed_pass : array_like (D, S) of bool
        Seeds whose disc-only MSE rises and falls.
    null_rates : array_like (D,)
        The null's pass rate at each separation.
    n_decidable : array_like (D,) of int
        Seeds whose read-out could show the rise.
    rules : Rules
        Supplies ``alpha`` and ``partly_seed_fraction``.
    """
    names = _dcs(dcs)
    words = list(_same_length("verdicts", np.asarray(verdicts, dtype=object), names))
    ok = np.asarray(per_seed_pass, bool)
    if ok.ndim != 2 or ok.shape[0] != len(names):
        raise ValueError(f"per_seed_pass must be (D, S) with D = {len(names)}, got {ok.shape}")
    rates = _same_length("null_rates", null_rates, names).astype(float)
    dec = _same_length("n_decidable", n_decidable, names).astype(int)
    S = ok.shape[1]
    passing = [i for i, w in enumerate(words) if w in ("reproduced", "partly")]
    out = []
    if passing:
        out.append("the check passes at " + _join([f"dc = {names[i]} ({int(ok[i].sum())} of {S} seeds, null "
                                                   f"{100 * rates[i]:.1f} %)" for i in passing]))
    else:
        out.append("the check passes at no separation")
    for i, w in enumerate(words):
        if i in passing:
            continue
        why = (f"the monotone null passes {100 * rates[i]:.1f} %, more than the rule's {100 * rules.alpha:.0f} %"
               if rates[i] > rules.alpha else
               f"only {dec[i]} of {S} seeds have a read-out that could show the rise"
               if dec[i] < rules.partly_seed_fraction * S else
               "even a pass in every seed could not beat the null at this sample size" if w == "inconclusive"
               else "it could have passed and does not")
        out.append(f"at dc = {names[i]}, {w}: a rise-then-fall in {int(ok[i].sum())} of {S} seeds, and {why}")
    return "; ".join(out)


# ------------------------------------------------------------------ Fig. 6(c): slowing
def saturation(drop: float, dc: float, n_saturated: int, n_seeds: int) -> str:
    """What the old rule's largest drop was made of.

    Parameters
    ----------
    drop : float
        The old rule's largest first-to-last drop.
    dc : float
        Its separation.
    n_saturated : int
        Seeds there whose read-out reaches a corner before the late window.
    n_seeds : int
        Seeds.
    """
    n_seeds = _checks.integer("n_seeds", n_seeds, low=1)
    n_saturated = _checks.integer("n_saturated", n_saturated, low=0, high=n_seeds)
    drop = _checks.number("drop", drop, low=0)
    head = f"The old rule's largest drop, {drop:.0f}-fold at dc = {float(dc):.3g},"
    if n_saturated:
        return (f"{head} comes with the classifier saturating: there {n_saturated} of the {n_seeds} seeds reach a "
                "corner of concept space before the late window, and the new check leaves them out")
    return f"{head} comes from runs whose read-out does not saturate: the new check counts every seed there"


def moving(n_moving: int, n_late: int, steps: int, stopped_factor: float = RULES.stopped_factor) -> str:
    """How many runs are still moving at the end of training.

    Parameters
    ----------
    n_moving : int
        Runs whose late speed exceeds ``stopped_factor`` noise floors.
    n_late : int
        Runs with a late speed.
    steps : int
        Training steps.
    stopped_factor : float
        The rule's line between stopped and moving.
    """
    n_late = _checks.integer("n_late", n_late, low=1)
    n_moving = _checks.integer("n_moving", n_moving, low=0, high=n_late)
    steps = _checks.integer("steps", steps, low=1)
    share = "most" if n_moving > n_late / 2 else "half" if 2 * n_moving == n_late else "a minority"
    if n_moving == 0:
        return f"none of the {n_late} runs is still moving (above {stopped_factor:.0f} noise floors) at step {steps}"
    return (f"{n_moving} of the {n_late} runs ({share}) are still moving (above {stopped_factor:.0f} noise floors) "
            f"at the end of their {steps} steps")


def shapes(dcs, shape) -> str:
    """The decided shapes of the late decay, in words.

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations.
    shape : sequence of str
        ``"exponential"``, ``"power law"`` or ``"undetermined"`` per separation.
    """
    names = _dcs(dcs)
    shape = list(_same_length("shape", np.asarray(shape, dtype=object), names))
    if not set(shape) <= {"exponential", "power law", "undetermined"}:
        raise ValueError(f"shape must hold 'exponential', 'power law' or 'undetermined', got {shape!r}")
    n_exp = shape.count("exponential")
    parts = [f"{w} at dc = {_join([n for n, s in zip(names, shape) if s == w])}"
             for w in ("exponential", "power law", "undetermined") if w in shape]
    if n_exp == len(shape):
        tail = "the paper's exponential rate holds at every separation"
    elif n_exp:
        tail = f"the paper's exponential rate is decided at {n_exp} of the {len(shape)} separations"
    else:
        tail = "the paper's exponential rate is decided at no separation, so this sweep does not check it"
    return f"{'; '.join(parts)}: {tail}"


def reached(dcs, reached_target, steps: int) -> str:
    """Which separations' class 11 reach their target by the end of training.

    Parameters
    ----------
    dcs : array_like (D,)
        Colour separations.
    reached_target : array_like (D,) of bool
        :attr:`swingby.diffusion.fig6.slowing.SlowingResult.reached`.
    steps : int
        Training steps.
    """
    names = _dcs(dcs)
    r = _same_length("reached_target", reached_target, names).astype(bool)
    steps = _checks.integer("steps", steps, low=1)
    if r.all() or not r.any():
        return f"in {steps} steps class 11 reaches its target at {'every' if r.all() else 'no'} separation"
    return (f"in {steps} steps class 11 reaches its target at dc = {_join([n for n, x in zip(names, r) if x])}, "
            f"not at dc = {_join([n for n, x in zip(names, r) if not x])}")
