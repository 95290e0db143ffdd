"""Every definition, setting and threshold of the open-question checks (issue 27),
fixed before the runs that judge them.

``book/open_questions.md`` reads its seed counts, settings and thresholds only from
:data:`OQ_RULES`; :func:`fingerprint` is a short hash of their values, and
``tests/test_open_questions.py`` fails when a value changes, so that a later change has
to be made visibly (the chapter then shows the result under both rules).

Definitions reused from the observations chapter (``book/observations.md``), so that the
answers are comparable with it:

* **non-monotone** (swing-by read from the test loss): :func:`swingby.observations.swingby.record_rise`
  above ``rise`` (the observations chapter's ``rho_0``);
* **order**: :func:`swingby.observations.learning.order_passes` with ``time_ratio``; the predicted
  first concept is the one with the larger ``a_p`` of the raw data (concept 2 for
  ``mu = (2, 4)``);
* **reach**: :func:`swingby.observations.ood.relative_distance` at the end below ``reach``
  (a run that diverged has not reached ``x_hat``).

Every per-run check is judged like the book's claims: the count of passing runs against
the pass rate of a *plausible wrong model* at the same settings (the equal-signal data
``mu = (null_mu, null_mu)``, same ``||x_hat||``: no strongest concept to be learned first
or to swing towards), by :func:`swingby.diffusion.rules.verdict`. The verdict word
is translated into an answer by :data:`ANSWER_OF_VERDICT`. A *dependence* on a setting
is decided by a two-sided Fisher exact test of the pass counts at ``alpha``; where it is
not decided the chapter states how many independent seeds per setting a difference of
the observed size would need (:func:`swingby.observations.swingby.fisher_seeds_needed`, power
``power``). Every run has its own seed streams (:func:`swingby.observations.runs.run_seed`):
runs of different settings are independent replicates.

What each question judges (the chapter shows more, unjudged):

* Q3 (batch): in each of :attr:`OpenRules.batch_modes`, non-monotone runs and order
  against the equal-signal runs of the same mode; dependence: ``"mini"`` against
  ``"full_steps"`` (Fisher, non-monotone counts).
* Q4 (normalisation): order (one linear layer) and non-monotone runs (four linear
  layers) in each variant and layout against the equal-signal runs of the same variant
  and layout; the theory's prediction (gradient flow of one linear layer with bias under
  the normalised second-moment matrix; order predicted when its learning-time ratio is at
  least ``time_ratio``) agrees run by run with the trained order more often than the
  prediction of the raw ``A`` (a plausible wrong model that ignores the normalisation);
  judged by a one-sided sign test over the runs where the two predictions differ.
* Q1 (initialisation): per model and scale, reach (share of runs reaching ``x_hat``)
  and non-monotone runs against the equal-signal runs of the same cell; dependence on
  the scale: Fisher, smallest scale against the largest, per model.
* Q5 (depth / width): per depth and width, non-monotone runs against the equal-signal
  runs of the same cell; dependence on depth: a two-sided permutation test (runs
  permuted across depths, within a width) of the Spearman correlation of depth and the
  non-monotone indicator, the same test on the equal-signal runs reported beside it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math

#: the book's verdict words (:data:`swingby.diffusion.rules.VERDICTS`) as answers to
#: an open question ("does the phenomenon hold under this setting?")
ANSWER_OF_VERDICT = {
    "reproduced": "holds",
    "partly": "holds in part",
    "inconclusive": "undecided",
    "differs": "does not hold",
    "not reproduced": "does not hold",
}


@dataclasses.dataclass(frozen=True)
class OpenRules:
    """The settings and thresholds of the open-question checks. One frozen instance,
    :data:`OQ_RULES`, is used."""

    # ------------------------------------------------------------------ general
    alpha: float = 0.05                 #: level of every test, and the largest null pass rate that counts
    power: float = 0.8                  #: power asked of "how many seeds would decide it"
    rise: float = 0.05                  #: rho_0 of the observations chapter: non-monotone above it
    time_ratio: float = 1.2             #: order: the later learning time exceeds the earlier by this factor
    reach: float = 0.01                 #: reached: final distance / ||x_hat|| below this
    n_resamples: int = 2000             #: permutations of the permutation tests
    # ------------------------------------------- the shared setting (Fig. 2c / 3 at d = 2)
    d: int = 2                          #: the paper's low dimension, where the swing-by shows
    mu: tuple = (2.0, 4.0)              #: the authors' script's mu of Fig. 2(c)
    sigma: float = math.sqrt(0.05)      #: the authors' "0.05" as a standard deviation
    null_mu: float = math.sqrt(10.0)    #: equal signal, same ||x_hat|| as (2, 4)
    lr: float = 0.01                    #: the script's lr at d = 2
    width: int = 4                      #: the script's hidden width at d = 2
    epochs: int = 40                    #: the paper's 40 epochs
    batch_size: int = 128               #: the paper's batch 128
    n_per_cluster: int = 5000           #: with the origin cluster, as the authors
    # ------------------------------------------------------------ Q3: batch
    #: "mini": batch 128, 40 epochs; "full_steps": full batch, as many steps (equal lr and
    #: steps); "full_epochs": full batch, 40 epochs (40 steps)
    batch_modes: tuple = ("mini", "full_steps", "full_epochs")
    batch_depth: int = 4                #: four linear layers (Fig. 2c / 3)
    batch_seeds: int = 60               #: independent seeds per mode and data
    # ---------------------------------------------------- Q4: normalisation
    #: "raw": the authors' data; "standardised": inputs and targets standardised per input
    #: dimension with the training set's mean and standard deviation; "norm_layer": a
    #: fixed standardisation layer in front of the model (the targets stay raw)
    norm_variants: tuple = ("raw", "standardised", "norm_layer")
    #: "aligned": concept axes are the input axes (no rotation); "rotated": a random
    #: rotation per run (App. F.1)
    norm_layouts: tuple = ("aligned", "rotated")
    norm_seeds: int = 40                #: independent seeds per variant, layout, depth and data
    norm_depths: tuple = (1, 4)         #: one layer (order), four layers (swing-by)
    # ------------------------------------------------ Q1: initialisation scale
    init_scales: tuple = (0.03, 0.1, 0.3, 1.0, 3.0)   #: multipliers of PyTorch's default initialisation
    #: (activation, depth) of the models
    init_models: tuple = (("linear", 1), ("linear", 2), ("relu", 2), ("linear", 4), ("relu", 4))
    init_seeds: int = 30                #: independent seeds per model, scale and data
    # ------------------------------------------------------ Q5: depth and width
    depth_depths: tuple = (1, 2, 3, 4, 5, 6)
    depth_widths: tuple = (4, 16)
    depth_seeds: int = 40               #: independent seeds per depth, width and data


#: the rules every check of ``book/open_questions.md`` reads
OQ_RULES = OpenRules()


def values(rules=OQ_RULES) -> dict:
    """The rules as a plain dict of name to value (tuples as lists).

    Parameters
    ----------
    rules : OpenRules
        Which rules.

    Returns
    -------
    dict
    """
    if not isinstance(rules, OpenRules):
        raise ValueError(f"rules must be an OpenRules, got {type(rules).__name__}")

    def plain(v):
        return [plain(x) for x in v] if isinstance(v, tuple) else v
    return {k: plain(v) for k, v in dataclasses.asdict(rules).items()}


def fingerprint(rules=OQ_RULES) -> str:
    """A short sha256 (16 hex digits) of the rules' values (the JSON of the sorted dict
    of :func:`values`, so a comment may change, a value not).

    Parameters
    ----------
    rules : OpenRules
        Which rules (default: :data:`OQ_RULES`).

    Returns
    -------
    str
    """
    text = json.dumps({"class": type(rules).__name__, **values(rules)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def answer(verdict_word: str) -> str:
    """The answer word (:data:`ANSWER_OF_VERDICT`) of a verdict word.

    Parameters
    ----------
    verdict_word : str
        One of :data:`swingby.diffusion.rules.VERDICTS`.

    Returns
    -------
    str
    """
    if verdict_word not in ANSWER_OF_VERDICT:
        raise ValueError(f"verdict_word must be one of {sorted(ANSWER_OF_VERDICT)}, got {verdict_word!r}")
    return ANSWER_OF_VERDICT[verdict_word]
