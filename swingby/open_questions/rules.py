"""Every setting and threshold of the open-question checks (``book/open_questions.md``,
``book/open_questions_training.md``), fixed before the runs that judge them. The measures are the
observations chapter's; each cell's runs are judged against its runs on equal-signal data
``mu = (null_mu, null_mu)`` by the book's verdict rule, a dependence on a setting by a two-sided
Fisher exact test at ``alpha``.
"""
from __future__ import annotations

import dataclasses
import math

from swingby import verdicts

__all__ = ["OQ_RULES", "OpenRules", "answer", "fingerprint"]

#: the book's verdict words as answers to "does the phenomenon hold under this setting?"
ANSWER_OF_VERDICT = {
    "reproduced": "holds",
    "partly": "holds in part",
    "inconclusive": "undecided",
    "differs": "does not hold",
    "not reproduced": "does not hold",
}


@dataclasses.dataclass(frozen=True)
class OpenRules:
    """The settings and thresholds of the open-question checks (one instance: :data:`OQ_RULES`)."""

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


#: the rules every check of the open-question chapters reads
OQ_RULES = OpenRules()


def fingerprint(rules: OpenRules = OQ_RULES) -> str:
    """A short hash (16 hex digits) of the rules' values (:func:`swingby.verdicts.fingerprint`)."""
    return verdicts.fingerprint(rules)


def answer(verdict_word: str) -> str:
    """The answer word (``ANSWER_OF_VERDICT``) of a verdict word."""
    if verdict_word not in ANSWER_OF_VERDICT:
        raise ValueError(f"verdict_word must be one of {sorted(ANSWER_OF_VERDICT)}, got {verdict_word!r}")
    return ANSWER_OF_VERDICT[verdict_word]
