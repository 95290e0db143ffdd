"""Q1 in a diffusion model (``book/open_questions_diffusion.md``): does the held-out class still
generalise when the U-Net starts from a clearly larger initialisation? Fixed here before any of its
runs: the scale, separations and seeds, the runs (the ``cpu`` preset with these, each paired with
the stored default run of its separation and seed), the criterion (the position search's) and the
answer rule; ``fingerprint`` hashes them. The runs: :mod:`swingby.open_questions.diffusion_init_runs`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from swingby import _checks, verdicts
from swingby.diffusion.presets import Preset, get_preset, validate_preset
from swingby.diffusion.runs import position_search as PS

__all__ = ["Answer", "BASE_PRESET", "INIT_SCALE", "InitialMeasures", "SEEDS", "SEPARATIONS", "base_preset",
           "contrast_answer", "initial_measures"]

#: the larger initialisation, times PyTorch's default (every weight matrix and kernel; biases
#: and norms unchanged): the largest multiplier of Q1's SIM experiment. Chosen without any
#: judged run: in the initial ``cpu`` network (:func:`initial_measures`, seed 0) at scales 1,
#: 2, 3, 5, 10 the attention logits' standard deviation is 0.34, 1.4, 3.2, 8.8, 35 and the
#: conditioning's size over the features 0.51, 1.6, 3.6, 10, 41 (from 5 on attention is close
#: to one-hot); in a ``tiny`` pilot (300 steps, dc 0.6) the training loss per dimension falls
#: from 5.75 to 4.58 over steps 50-300 at 1, from 5.93 to 5.11 at 3, and stays at 5.94-5.90
#: at 10: 3 is clearly larger and still trains.
INIT_SCALE = 3.0
SEPARATIONS = (PS.DECISIVE_DC, PS.WEAK_DC)  #: 0.689 (judged for class 11) and the weak 0.247
SEEDS = (0, 1, 2)  #: with SEPARATIONS, six larger-initialisation runs
BASE = "cpu"  #: the name of the preset of the contrast and of its stored default runs
#: the ``cpu`` preset as the contrast ran it (2400 steps, 48 checkpoints, seeds 0-7); its
#: stored sweep is the contrast's default arm
BASE_PRESET = Preset(
    name="cpu", image_size=16, widths=(16, 32, 64), n_res=1, attention=True, position=0.1,
    steps=2400, batch=48, lr=2e-3, ema=0.99, separations=(0.175, 0.247, 0.468, 0.689),
    seeds=(0, 1, 2, 3, 4, 5, 6, 7), n_checkpoints=48, sample_steps=25, samples_per_class=32,
    n_thumbs=4, classifier_steps=3000, workers=2, threads=1, seeding="per_run",
)
#: the answer words
ANSWERS = ("holds", "does not hold", "depends on the seed", "undecided", "pending")
#: the rule of :func:`contrast_answer`, in words (part of the fingerprint)
ANSWER_RULE = ("per seed, the criterion on the larger-initialisation runs at both separations; among the "
               "seeds whose default runs pass it: holds if every one passes, does not hold if none does, "
               "depends on the seed otherwise; undecided if no default seed passes; pending while a run "
               "is missing")
#: the fields in which the contrast preset may differ from the stored default sweep's
VARIED = ("init_scale", "separations", "seeds")


def contrast_preset(base: str = BASE, **overrides) -> Preset:
    """The preset of the larger-initialisation runs: :func:`base_preset` with the scale, separations and seeds."""
    if "init_scale" in overrides:
        raise ValueError("overrides: the scale is fixed (INIT_SCALE), do not override init_scale")
    return base_preset(base, **{"init_scale": INIT_SCALE, "separations": SEPARATIONS, "seeds": SEEDS,
                                **overrides})


def base_preset(base: str = BASE, **overrides) -> Preset:
    """:data:`BASE_PRESET` if ``base`` is ``BASE``, else the preset ``base`` (a name for
    :func:`~swingby.diffusion.presets.get_preset`), with the preset fields ``overrides``.

    Parameters
    ----------
    base : str
    **overrides
    """
    if base != BASE:
        return get_preset(base, **overrides)
    p = replace(BASE_PRESET, **overrides)
    validate_preset(p)
    return p


def design() -> dict:
    """The design as plain data: scale, separations, seeds, the contrast preset, criterion, answer rule."""
    return {"init_scale": INIT_SCALE, "separations": list(SEPARATIONS), "seeds": list(SEEDS), "base": BASE,
            "preset": contrast_preset().to_dict(), "criterion": dict(PS.CRITERION),
            "decisive_dc": PS.DECISIVE_DC, "answer_rule": ANSWER_RULE}


def fingerprint() -> str:
    """A short hash (16 hex digits) of ``design``."""
    return verdicts.fingerprint(design())


def check_preset(name: str, p) -> Preset:
    """``p`` if it is a valid :class:`~swingby.diffusion.presets.Preset`, else a ValueError naming ``name``."""
    if not isinstance(p, Preset):
        raise ValueError(f"{name} must be a swingby.diffusion.presets.Preset, got {type(p).__name__}")
    validate_preset(p)
    return p


def seed_passes(runs: list[dict], seeds) -> dict:
    """Per seed, the position search's criterion on its runs at both separations (None when one is missing)."""
    out = {}
    for s in seeds:
        mine = [r for r in runs if r["seed"] == s and r["dc"] in SEPARATIONS]
        if {r["dc"] for r in mine} != set(SEPARATIONS):
            out[s] = None
            continue
        crit = PS.passes(mine)
        out[s] = bool(crit["class_11"] and crit["trained_discs"])
    return out


class Answer(NamedTuple):
    """What :func:`contrast_answer` returns."""

    word: str          #: one of ``ANSWERS``
    reference: tuple   #: seeds whose default runs pass the criterion
    passing: tuple     #: of these, seeds whose larger-initialisation runs pass
    other: tuple       #: seeds outside the reference whose larger-initialisation runs pass (not judged)
    n_seeds: int       #: seeds of the contrast


def contrast_answer(default_runs: list[dict], larger_runs: list[dict], seeds=SEEDS) -> Answer:
    """The answer rule (``ANSWER_RULE``) on the outcomes of both initialisations.

    Parameters
    ----------
    default_runs, larger_runs : list of dict
        :func:`~swingby.diffusion.runs.position_search.run_outcomes` of the default runs (all there) and of
        the larger-initialisation runs (missing ones: "pending").
    seeds : sequence of int
    """
    for name, runs in (("default_runs", default_runs), ("larger_runs", larger_runs)):
        if not isinstance(runs, list) or not all(isinstance(r, dict) and {"dc", "seed"} <= set(r) for r in runs):
            raise ValueError(f"{name} must be the list of run_outcomes rows (dicts with 'dc' and 'seed')")
    seeds = [_checks.seed(f"seeds[{k}]", s) for k, s in enumerate(seeds)]
    if not seeds:
        raise ValueError("seeds must name at least one seed")
    d, g = seed_passes(default_runs, seeds), seed_passes(larger_runs, seeds)
    missing = [s for s, v in d.items() if v is None]
    if missing:
        seeds_word = "seed" if len(missing) == 1 else "seeds"
        raise ValueError(f"default_runs: the stored default sweep lacks {seeds_word} {missing} at a separation of "
                         f"{SEPARATIONS}")
    ref = tuple(s for s, v in d.items() if v)
    passing = tuple(s for s in ref if g[s])
    other = tuple(s for s, v in g.items() if v and s not in ref)
    if any(v is None for v in g.values()):
        word = "pending"
    elif not ref:
        word = "undecided"
    else:
        word = "holds" if len(passing) == len(ref) else "does not hold" if not passing else "depends on the seed"
    return Answer(word, ref, passing, other, len(d))


class InitialMeasures(NamedTuple):
    """What :func:`initial_measures` returns."""

    output_max: float           #: largest absolute output (0: the output convolution starts at zero)
    attention_logit_std: float  #: standard deviation of the attention logits (NaN without attention)
    conditioning_share: float   #: median over blocks of the conditioning embedding's norm over the features'


def initial_measures(p: Preset, seed: int = 0, n: int = 48) -> InitialMeasures:
    """How the scale acts inside the initial network of preset ``p`` (with its ``init_scale``) on ``n`` noisy
    inputs over the whole noise range (the evidence behind :data:`INIT_SCALE`).

    Parameters
    ----------
    p : Preset
    seed : int
        Seeds the weights and the inputs.
    n : int
    """
    import torch

    from swingby.diffusion.training import Run
    from swingby.diffusion.unet import Attention, ResBlock

    p = check_preset("p", p)
    n = _checks.integer("n", n, low=2, high=4096)
    net = Run(p, _checks.seed("seed", seed), torch.device("cpu")).model.net
    logits, share, c1, hooks = [], [], {}, []
    for m in net.modules():
        if isinstance(m, Attention):
            def on_qkv(mod, inp, out):
                q, k, _ = out.flatten(2).chunk(3, dim=1)
                logits.append(float((torch.einsum("bcn,bcm->bnm", q, k) / q.shape[1] ** 0.5).std()))
            hooks.append(m.qkv.register_forward_hook(on_qkv))
        if isinstance(m, ResBlock) and hasattr(m, "emb"):
            hooks.append(m.c1.register_forward_hook(lambda mod, i, o, m=m: c1.__setitem__(m, o.pow(2).mean().sqrt())))
            hooks.append(m.emb.register_forward_hook(
                lambda mod, i, o, m=m: share.append(float(o.pow(2).mean().sqrt() / c1[m]))))
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(n, 3, p.image_size, p.image_size, generator=g)
    with torch.no_grad():
        out = net(z, torch.linspace(-5.0, 10.0, n), torch.rand(n, net.cond_dim, generator=g))
    for h in hooks:
        h.remove()
    return InitialMeasures(float(out.abs().max()), float(np.mean(logits)) if logits else float("nan"),
                           float(np.median(share)) if share else float("nan"))
