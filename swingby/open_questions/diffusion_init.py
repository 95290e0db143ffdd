"""Q1 in a diffusion model (issue 27): does the held-out class still generalise when the
U-Net starts from a clearly larger initialisation? Chapter:
``book/open_questions_diffusion.md``.

Everything that decides the answer is fixed here, before any of its runs:

* **the larger scale** :data:`INIT_SCALE` = 3: every weight matrix and kernel of the
  U-Net times 3 at initialisation (``Preset.init_scale``; biases and norms unchanged).
  It is the largest multiplier of Q1's SIM experiment
  (:attr:`~swingby.open_questions.rules.OpenRules.init_scales`), so both halves of Q1 ask
  about the same factor over PyTorch's default. It was checked without any judged run,
  on 2026-11-26, in two ways that cost seconds:

  - the initial ``cpu`` network (:func:`initial_measures`, seed 0): its output is zero
    at every scale (the output convolution starts at zero), so the scale acts inside
    it. At 1, 2, 3, 5 and 10 the standard deviation of the bottleneck attention's
    logits is 0.34, 1.4, 3.2, 8.8 and 35, and the conditioning embedding's size relative
    to the features it is added to (median over blocks) 0.51, 1.6, 3.6, 10 and 41: at 3
    the conditioning outweighs the features and the attention is sharp but not one-hot;
    from 5 on, attention is close to one-hot (its gradients vanish) and the
    conditioning swamps the image;
  - a pilot on the ``tiny`` preset (``get_preset("tiny", init_scale=c, steps=300,
    n_loss_records=6, seeding="per_run", separations=(0.6,))``, one sweep each): the
    training loss per dimension falls from 5.75 to 4.58 over steps 50-300 at scale 1,
    from 5.93 to 5.11 at 3, and stays at 5.94-5.90 at 10. So at 3 training starts,
    more slowly (Adam moves each weight by about ``lr`` a step, a smaller share of a
    larger weight), while at 10 it does not start within the pilot: 3 is clearly larger
    than the default and still a trainable network, 10 would only say that a network
    that does not train does not generalise.

* **the separations** :data:`SEPARATIONS`: the strongest colour signal, 0.689, where the
  criterion is judged, and the weak 0.247 inside 0.2-0.3 (the position search's pair,
  :data:`~swingby.diffusion.runs.position_search.DECISIVE_DC` and ``WEAK_DC``);
* **the seeds** :data:`SEEDS` = 0, 1, 2: six larger-initialisation runs in all;
* **the runs**: :func:`contrast_preset`, the ``cpu`` preset with these separations,
  seeds and scale. The ``cpu`` preset seeds every (separation, seed) run on its own
  (``seeding="per_run"``) and the scale draws no randomness, so a larger-initialisation
  run starts from the default run's weights times 3 and sees the same data, batches,
  diffusion noise and sampling noise. The default-initialisation counterpart of each
  run is therefore the stored ``cpu`` sweep's run of the same (separation, seed): it
  needs no new run and is read from that sweep
  (:func:`~swingby.open_questions.diffusion_init_runs.read_contrast` checks that the
  two presets differ only in the scale, the separations and the seeds). Both read their
  samples with the same concept classifier
  (:func:`~swingby.open_questions.diffusion_init_runs.run_contrast` copies the stored one);
* **the criterion** (per seed, at the last checkpoint): the position search's
  (:data:`~swingby.diffusion.runs.position_search.CRITERION`,
  :func:`~swingby.diffusion.runs.position_search.run_outcomes` and
  :func:`~swingby.diffusion.runs.position_search.passes`, reused): at dc 0.689 class 11
  is at least 80 % blue small discs by the pixels and by the classifier, and at both
  separations every trained class is at least 95 % discs;
* **the answer** (:func:`contrast_answer`): among the seeds in which the default
  initialisation passes (the reference), "holds" if the larger one passes in every one,
  "does not hold" if in none, "depends on the seed" otherwise; "undecided" when the
  default passes in no seed (no reference), "pending" while a larger-initialisation run
  is missing. With three seeds this is a contrast of paired runs, not a frequency.

:func:`fingerprint` is a short hash of these settings (with the whole contrast preset);
``tests/test_oq_diffusion_init.py`` fails when it changes. The runs and their reader are
in :mod:`swingby.open_questions.diffusion_init_runs`:

    python -m swingby.open_questions diffusion-init   # the six runs, resumable
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.diffusion.presets import Preset, get_preset, validate_preset
from swingby.diffusion.runs import position_search as PS

INIT_SCALE = 3.0  #: the larger initialisation, times PyTorch's default (see above for why 3)
SEPARATIONS = (PS.DECISIVE_DC, PS.WEAK_DC)  #: 0.689 (judged for class 11) and the weak 0.247
SEEDS = (0, 1, 2)  #: with SEPARATIONS, six larger-initialisation runs
BASE = "cpu"  #: the name of the preset of the contrast and of its stored default runs
#: that preset as it was when the contrast ran (2400 steps, 48 checkpoints, seeds 0-7), kept
#: here since ``cpu`` became the confirmatory sweep's preset; its stored sweep is the
#: contrast's default arm
BASE_PRESET = Preset(
    name="cpu", image_size=16, widths=(16, 32, 64), n_res=1, attention=True, position=0.1,
    steps=2400, batch=48, lr=2e-3, ema=0.99, separations=(0.175, 0.247, 0.468, 0.689),
    seeds=(0, 1, 2, 3, 4, 5, 6, 7), n_checkpoints=48, sample_steps=25, samples_per_class=32,
    n_thumbs=4, classifier_steps=3000, workers=2, threads=1, seeding="per_run",
)
#: the answer words (as :mod:`swingby.open_questions.checks` words its answers)
ANSWERS = ("holds", "does not hold", "depends on the seed", "undecided", "pending")
#: the rule of :func:`contrast_answer`, in words (part of the fingerprint)
ANSWER_RULE = ("per seed, the criterion on the larger-initialisation runs at both separations; among the "
               "seeds whose default runs pass it: holds if every one passes, does not hold if none does, "
               "depends on the seed otherwise; undecided if no default seed passes; pending while a run "
               "is missing")
#: the fields in which the contrast preset may differ from the stored default sweep's
VARIED = ("init_scale", "separations", "seeds")


def contrast_preset(base: str = BASE, **overrides) -> Preset:
    """The preset of the larger-initialisation runs: ``base`` with :data:`INIT_SCALE`,
    :data:`SEPARATIONS` and :data:`SEEDS` (tests pass ``"tiny"`` and smaller overrides).

    Parameters
    ----------
    base : str
        A preset name (:func:`~swingby.diffusion.presets.get_preset`).
    **overrides
        Further preset fields (not ``init_scale``).

    Returns
    -------
    Preset
    """
    if "init_scale" in overrides:
        raise ValueError("overrides: the scale is fixed (INIT_SCALE), do not override init_scale")
    return base_preset(base, **{"init_scale": INIT_SCALE, "separations": SEPARATIONS, "seeds": SEEDS,
                                **overrides})


def base_preset(base: str = BASE, **overrides) -> Preset:
    """:data:`BASE_PRESET` if ``base`` is :data:`BASE`, else the preset ``base`` (tests pass
    ``"tiny"``), with ``overrides``.

    Parameters
    ----------
    base : str
        :data:`BASE` or a preset name (:func:`~swingby.diffusion.presets.get_preset`).
    **overrides
        Preset fields.

    Returns
    -------
    Preset
    """
    if base != BASE:
        return get_preset(base, **overrides)
    p = replace(BASE_PRESET, **overrides)
    validate_preset(p)
    return p


def design() -> dict:
    """The design as a plain dict: scale, separations, seeds, the contrast preset's
    config, the criterion and the answer rule.

    Returns
    -------
    dict
    """
    return {"init_scale": INIT_SCALE, "separations": list(SEPARATIONS), "seeds": list(SEEDS), "base": BASE,
            "preset": contrast_preset().to_dict(), "criterion": dict(PS.CRITERION),
            "decisive_dc": PS.DECISIVE_DC, "answer_rule": ANSWER_RULE}


def fingerprint() -> str:
    """A short sha256 (16 hex digits) of :func:`design` (sorted JSON).

    Returns
    -------
    str
    """
    return hashlib.sha256(json.dumps(design(), sort_keys=True).encode()).hexdigest()[:16]


def check_preset(name: str, p) -> Preset:
    """``p`` if it is a valid :class:`~swingby.diffusion.presets.Preset`, else a ValueError
    naming ``name``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    p : Preset
        The value to check.

    Returns
    -------
    Preset
    """
    if not isinstance(p, Preset):
        raise ValueError(f"{name} must be a swingby.diffusion.presets.Preset, got {type(p).__name__}")
    validate_preset(p)
    return p


def seed_passes(runs: list[dict], seeds=SEEDS) -> dict:
    """Per seed, the criterion on its runs at both :data:`SEPARATIONS`
    (:func:`~swingby.diffusion.runs.position_search.passes`), or None when one is missing.

    Parameters
    ----------
    runs : list of dict
        :func:`~swingby.diffusion.runs.position_search.run_outcomes` rows.
    seeds : sequence of int
        Which seeds.

    Returns
    -------
    dict
        seed -> True, False or None.
    """
    if not isinstance(runs, list) or not all(isinstance(r, dict) and {"dc", "seed"} <= set(r) for r in runs):
        raise ValueError("runs must be the list of run_outcomes rows (dicts with 'dc' and 'seed')")
    seeds = [_checks.seed(f"seeds[{k}]", s) for k, s in enumerate(seeds)]
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

    word: str          #: one of :data:`ANSWERS`
    reference: tuple   #: seeds whose default runs pass the criterion
    passing: tuple     #: of these, seeds whose larger-initialisation runs pass
    other: tuple       #: seeds outside the reference whose larger-initialisation runs pass (not judged)
    n_seeds: int       #: seeds of the contrast


def contrast_answer(default_runs: list[dict], larger_runs: list[dict], seeds=SEEDS) -> Answer:
    """The answer rule (:data:`ANSWER_RULE`) on the outcomes of both initialisations.

    Parameters
    ----------
    default_runs : list of dict
        :func:`~swingby.diffusion.runs.position_search.run_outcomes` of the default runs;
        every (separation, seed) of the contrast must be there.
    larger_runs : list of dict
        The same for the larger-initialisation runs (missing ones: "pending").
    seeds : sequence of int
        The contrast's seeds.

    Returns
    -------
    Answer
    """
    try:
        d = seed_passes(default_runs, seeds)
    except ValueError as e:
        raise ValueError(f"default_runs: {e}") from None
    try:
        g = seed_passes(larger_runs, seeds)
    except ValueError as e:
        raise ValueError(f"larger_runs: {e}") from None
    if not d:
        raise ValueError("seeds must name at least one seed")
    missing = [s for s, v in d.items() if v is None]
    if missing:
        raise ValueError(f"default_runs: the stored default sweep lacks seed(s) {missing} at a separation of "
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


def answer_sentence(ans: Answer) -> str:
    """The chapter's one-sentence answer.

    Parameters
    ----------
    ans : Answer
        :func:`contrast_answer`.

    Returns
    -------
    str
    """
    if not isinstance(ans, Answer):
        raise ValueError(f"ans must be an Answer (contrast_answer), got {type(ans).__name__}")
    start = f"From {INIT_SCALE:g} times PyTorch's default initialisation"
    tail = (f" (with {ans.n_seeds} seeds of paired runs this is a contrast, not a frequency)")
    k, n = len(ans.passing), len(ans.reference)
    if ans.word == "pending":
        return f"{start}, the answer is pending: not every larger-initialisation run is in."
    if ans.word == "undecided":
        return (f"{start}, the contrast is undecided: the default initialisation itself passes the criterion "
                f"in none of the {ans.n_seeds} seeds, so there is nothing to compare with{tail}.")
    what = {"holds": "the held-out class still generalises", "does not hold": "the held-out class no longer "
            "generalises", "depends on the seed": "whether the held-out class generalises depends on the seed"}
    return (f"{start}, {what[ans.word]}: the criterion holds in {k} of the {n} seeds in which it holds from "
            f"the default initialisation{tail}.")


class InitialMeasures(NamedTuple):
    """What :func:`initial_measures` returns."""

    output_max: float          #: largest absolute output of the initial network (0: the output convolution starts at zero)
    attention_logit_std: float  #: standard deviation of the attention logits (NaN without attention)
    #: median over blocks of the norm of the conditioning embedding over that of the features it is added to
    conditioning_share: float


def initial_measures(p: Preset, seed: int = 0, n: int = 48) -> InitialMeasures:
    """How the scale acts inside the initial network of preset ``p`` (seconds; the
    evidence behind :data:`INIT_SCALE`), on ``n`` noisy inputs over the whole noise range.

    Parameters
    ----------
    p : Preset
        The preset (with its ``init_scale``).
    seed : int
        Seeds the weights and the inputs.
    n : int
        Inputs, ``> 1``.

    Returns
    -------
    InitialMeasures
    """
    import torch

    from swingby.diffusion.training import Run
    from swingby.diffusion.unet import Attention, ResBlock

    p = check_preset("p", p)
    n = _checks.integer("n", n, low=2, high=4096)
    net = Run(p, _checks.seed("seed", seed), torch.device("cpu")).model.net
    logits, share, c1 = [], [], {}
    hooks = []
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
