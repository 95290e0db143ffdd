"""The book's verdict rule (``book/status.md``): one exact one-sided test per form of claim (:data:`FORMS`)
at level :data:`ALPHA` on independent units, beside a *wrong model* without the paper's mechanism, a comparator
and never a veto (:func:`judge`), and the table of judged settings under a claim box (:func:`judgement_table`).
:func:`outcome_verdict` is the earlier rule, a pass count against a null's pass rate, which still judges the open
questions and the Jacobian link.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import NamedTuple, Sequence

import numpy as np
from scipy import stats

from swingby import _checks, exact_tests
from swingby.exact_tests import binomial_power, discordant_pairs, fisher_p, fisher_power, sign_test_p, smallest_units

__all__ = ["ALPHA", "POWER", "EFFECT", "TYPICAL_SHARE", "UNIVERSAL_MIN_UNITS", "FORMS", "WORDS", "Claim",
           "Judgement", "judge", "judge_units", "weakest", "combine_parts", "format_p", "judgement_table",
           "fingerprint", "Outcome", "outcome_verdict", "verdict_rule_text"]

#: level of every test
ALPHA = exact_tests.ALPHA
#: power a failed test must have had for "not reproduced", and the power of "units needed"
POWER = exact_tests.POWER
#: fewest units that can accept a universal claim: none failing in this many excludes a failure
#: rate of 5 % at level 0.05 (ln 0.05 / ln 0.95 = 58.4)
UNIVERSAL_MIN_UNITS = math.ceil(math.log(ALPHA) / math.log(1 - ALPHA))
#: share of passing units "the typical run" implies, for the power of the share test
TYPICAL_SHARE = 0.75
#: difference of pass rates a comparison implies, for the power of a two-sample test
EFFECT = 0.25
#: largest number of units "units needed" searches
MAX_UNITS = exact_tests.MAX_UNITS

#: the five words, strongest first
WORDS = ("reproduced", "partly", "inconclusive", "differs", "not reproduced")
#: the forms of claim
FORMS = ("identity", "universal", "typical", "possibility", "subtle", "comparative")

_PASSED, _FAILED, _UNDECIDED, _OPPOSITE = "passed", "failed", "undecided", "opposite"


class Judgement(NamedTuple):
    """A claim's verdict with the numbers behind it (:func:`judge`)."""

    word: str                #: one of :data:`WORDS`
    form: str                #: one of :data:`FORMS`
    k: int                   #: passing units
    n: int                   #: units
    null_k: int | None       #: passing units of the wrong model (or of the smaller group)
    null_n: int | None       #: units of the wrong model
    p: float | None          #: p-value of the two-sample (or paired) test
    p_share: float | None    #: p-value of the share test (typical, subtle), or None
    power: float | None      #: power the two-sample test had for the implied effect
    units_needed: int | None  #: units per group that would decide an undecided part

    def effect(self) -> str:
        """The effect in words: ``"k of n vs k0 of n0, p = ..."``."""
        text = f"{self.k} of {self.n}"
        if self.null_n is not None:
            text += f" vs {self.null_k} of {self.null_n}"
        if self.p is not None:
            text += f", p = {format_p(self.p)}"
        if self.p_share is not None:
            text += f"; share test p = {format_p(self.p_share)}"
        return text


def format_p(p: float | None) -> str:
    """A p-value in two significant digits (``"-"`` for None), as the tables print it."""
    if p is None:
        return "-"
    if not (0 <= p <= 1 or np.isnan(p)):
        raise ValueError(f"p must be a probability in [0, 1] or None, got {p!r}")
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def _count(name: str, value, upper: int | None = None) -> int:
    """``value`` as a non-negative int not above ``upper``, else a ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if upper is not None and value > upper:
        raise ValueError(f"{name} must be at most {upper}, got {value!r}")
    return int(value)


def _compare(k, n, null_k, null_n, pairs, p1_implied):
    """Part state, p-value, power and units needed of the comparison with the wrong model."""
    def test(alternative):
        return sign_test_p(*pairs, alternative) if pairs is not None else fisher_p(k, n, null_k, null_n, alternative)

    p = test("greater")
    if p <= ALPHA:
        return _PASSED, p, None, None
    if test("less") <= ALPHA:
        return _OPPOSITE, p, None, None
    if pairs is not None:  # the exact McNemar test: a sign test on the discordant pairs
        pw = binomial_power(0.5 + EFFECT / 2, sum(pairs))
        need = smallest_units(lambda m: binomial_power(0.5 + EFFECT / 2, m), sum(pairs) + 1)
    else:
        r0 = null_k / null_n
        p1 = min(1.0, r0 + EFFECT) if p1_implied is None else p1_implied
        pw = fisher_power(p1, n, r0, null_n) if p1 > r0 else 0.0
        need = None
        if k / n > r0:  # the units at which the observed rates would be decided (equal groups)
            need = smallest_units(lambda m: fisher_power(k / n, m, r0, m), max(n, null_n))
    return (_FAILED if pw >= POWER else _UNDECIDED), p, pw, need


def _word(parts) -> str:
    """The word for a claim's part states."""
    if _OPPOSITE in parts:
        return "differs"
    if all(s == _PASSED for s in parts):
        return "reproduced"
    if _PASSED in parts and _FAILED in parts:
        return "partly"
    if _FAILED in parts and _PASSED not in parts:
        return "not reproduced"
    return "inconclusive"


def judge(form: str, k: int, n: int, null_k: int | None = None, null_n: int | None = None,
          *, pairs: tuple[int, int] | None = None) -> Judgement:
    """The verdict of a claim of the given form, with its numbers.

    Parameters
    ----------
    form : str
        One of :data:`FORMS`.
    k, n, null_k, null_n : int
        ``k`` of ``n`` independent units pass, and ``null_k`` of ``null_n`` of the wrong model (``identity``:
        wrong variants; ``comparative``: the group the claim says is smaller).
    pairs : tuple of int, optional
        ``(b, c)``: paired units where only the claimed side passes, and only the other (exact McNemar test).
    """
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    n = _count("n", n)
    k = _count("k", k, n)
    if null_n is None or null_k is None:
        raise ValueError(f"null_k and null_n are required: every {form} claim is judged beside a wrong model")
    null_n = _count("null_n", null_n)
    null_k = _count("null_k", null_k, null_n)
    if n == 0 or null_n == 0:
        raise ValueError(f"n and null_n must be positive, got n={n}, null_n={null_n}")
    if pairs is not None:
        if len(pairs) != 2:
            raise ValueError(f"pairs must be (b, c), got {pairs!r}")
        pairs = (_count("pairs[0]", pairs[0]), _count("pairs[1]", pairs[1]))

    def result(word, p=None, p_share=None, pw=None, need=None):
        return Judgement(word, form, k, n, null_k, null_n, p, p_share, pw, need)

    if form == "identity":
        return result("not reproduced" if k < n else ("reproduced" if null_k == 0 else "inconclusive"))
    if form == "universal":
        if k < n:  # one failing unit refutes a universal claim
            return result("not reproduced")
        state, p, pw, need = _compare(k, n, null_k, null_n, pairs, 1.0)
        if n < UNIVERSAL_MIN_UNITS:
            need = max(need or 0, UNIVERSAL_MIN_UNITS)
        # a wrong model that passes as often cannot show the absence of failures: undecided
        parts = [_PASSED if n >= UNIVERSAL_MIN_UNITS else _UNDECIDED, _UNDECIDED if state == _FAILED else state]
        return result(_word(parts), p, None, pw, need)
    state, p, pw, need = _compare(k, n, null_k, null_n, pairs, None)
    if form == "comparative":
        return result(_word([state]), p, None, pw, need)
    if form == "typical":
        p_share = float(stats.binomtest(k, n, 0.5, alternative="greater").pvalue)
        if p_share <= ALPHA:
            share = _PASSED
        elif stats.binomtest(k, n, 0.5, alternative="less").pvalue <= ALPHA:
            share = _FAILED
        else:
            share = _FAILED if binomial_power(TYPICAL_SHARE, n) >= POWER else _UNDECIDED
            if share == _UNDECIDED and k / n > 0.5:
                need = max(need or 0, smallest_units(lambda m: binomial_power(k / n, m), n) or 0) or None
        return result(_word([share, state]), p, p_share, pw, need)
    parts = [_PASSED if k > 0 else (_FAILED if state == _FAILED else _UNDECIDED), state]  # occurs, and more often
    p_share = None
    if form == "subtle":
        p_share = float(stats.binomtest(k, n, 0.5, alternative="less").pvalue)
        above = stats.binomtest(k, n, 0.5, alternative="greater").pvalue <= ALPHA
        parts.append(_PASSED if p_share <= ALPHA else (_FAILED if above else _UNDECIDED))
    return result(_word(parts), p, p_share, pw, need)


def judge_units(form: str, passes, null_passes, *, paired: bool = False) -> Judgement:
    """:func:`judge` from one boolean outcome per unit.

    Parameters
    ----------
    form, passes, null_passes
        One of :data:`FORMS`; boolean 1-D arrays, an outcome per unit of the claim and of its wrong model.
    paired : bool
        Unit ``i`` of both comes from the same seed: the exact McNemar test (equal lengths); else Fisher's.
    """
    a, b = np.asarray(passes), np.asarray(null_passes)
    for name, x in (("passes", a), ("null_passes", b)):
        if x.ndim != 1 or x.size == 0 or x.dtype != bool:
            raise ValueError(f"{name} must be a non-empty boolean 1-D array, got {x.dtype} {x.shape}")
    pairs = discordant_pairs(a, b) if paired else None
    return judge(form, int(a.sum()), a.size, int(b.sum()), b.size, pairs=pairs)


def _words(words) -> list[str]:
    """``words`` (one word or a sequence) as a list of :data:`WORDS`, else a ValueError."""
    words = [words] if isinstance(words, str) else list(words)
    if not words or any(w not in WORDS for w in words):
        raise ValueError(f"words must be a non-empty sequence of {WORDS}, got {words!r}")
    return words


def weakest(words) -> str:
    """The word of a row resting on several different checks: the weakest, in the order of :data:`WORDS`."""
    return max(_words(words), key=WORDS.index)


def combine_parts(words) -> str:
    """The word of one claim judged in parts: the rule of :func:`judge` on the parts' words, so that
    parts decided both ways give "partly" (a row of different claims takes :func:`weakest`)."""
    state = {"reproduced": [_PASSED], "not reproduced": [_FAILED], "differs": [_OPPOSITE],
             "inconclusive": [_UNDECIDED], "partly": [_PASSED, _FAILED]}
    return _word([s for w in _words(words) for s in state[w]])


def judgement_table(rows: Sequence[tuple[str, Judgement]], *, setting: str = "setting",
                    wrong_model: str = "wrong model") -> str:
    """A Markdown table of judged settings: setting, ``k of n`` passing units, the wrong model's ``k of
    n``, the p-value (and the share test's, where the form has one) and the verdict word.

    Parameters
    ----------
    rows : sequence of (str, Judgement)
        One row per setting: its name and its :func:`judge` result.
    setting, wrong_model : str
        Headers of the first column and of the wrong model's column.
    """
    rows = list(rows) if hasattr(rows, "__iter__") and not isinstance(rows, str) else None
    if not rows or any(not (isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], Judgement)) for r in rows):
        raise ValueError("rows must be a non-empty sequence of (name, Judgement) pairs")
    _checks.instance("setting", setting, str)
    _checks.instance("wrong_model", wrong_model, str)
    share = any(j.p_share is not None for _, j in rows)
    head = [setting, "passing units", wrong_model, "p"] + (["p (share)"] if share else []) + ["verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, j in rows:
        cells = [name, f"{j.k} of {j.n}", f"{j.null_k} of {j.null_n}", format_p(j.p)]
        cells += [format_p(j.p_share)] if share else []
        lines.append("| " + " | ".join(cells + [f"**{j.word}** ({j.form})"]) + " |")
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Claim:
    """One registered claim: what the paper says, its form, and how it is judged."""

    key: str          #: the label of the claim box in its chapter (e.g. "claim-obs-order")
    section: str      #: where in the paper ("Sec. 3.1", "App. F.2, Fig. 11")
    quote: str        #: the paper's sentence
    form: str         #: one of FORMS
    unit: str         #: the independent unit, and how many
    check: str        #: what makes one unit pass
    wrong_model: str  #: the comparator, and why it lacks the paper's mechanism by its own theory
    design: str = ""  #: seeds, settings, thresholds and other choices fixed with the claim

    def __post_init__(self):
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}, got {self.form!r}")


def fingerprint(obj) -> str:
    """A short sha256 (16 hex digits) of plain data: the JSON of ``obj`` with sorted keys, dataclasses
    as dicts with their class name, tuples as lists (a comment may change, a value not)."""
    def plain(x):
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return {"class": type(x).__name__, **{f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)}}
        if isinstance(x, dict):
            return {str(k): plain(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [plain(v) for v in x]
        return x
    text = json.dumps(plain(obj), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def rule_constants() -> dict:
    """The rule's constants, as hashed into every register's fingerprint."""
    return {"alpha": ALPHA, "power": POWER, "universal_min_units": UNIVERSAL_MIN_UNITS,
            "typical_share": TYPICAL_SHARE, "effect": EFFECT, "max_units": MAX_UNITS,
            "forms": list(FORMS), "words": list(WORDS)}


# ------------------------------------------------------------------ the outcome rule
class Outcome(NamedTuple):
    """What a check found, in the terms of :func:`outcome_verdict`."""

    n_pass: int              #: units (seeds) in which the check passes
    n_units: int             #: units checked
    null_pass_rate: float    #: the share of null data sets (per unit) on which the check passes
    decidable: bool = True   #: False where the read-out cannot show the effect
    opposite: bool = False   #: a significant effect of another direction or shape was found


#: shares of passing units the outcome rule asks for "reproduced" and for "partly"
EVERY_SEED_FRACTION, PARTLY_SEED_FRACTION = 1.0, 0.5


def verdict_rule_text() -> str:
    """The outcome rule of :func:`outcome_verdict` in words, as the audit appendix prints it."""
    return (
        f"reproduced: the check passes in at least {EVERY_SEED_FRACTION:.0%} of the seeds at the paper's settings "
        f"(or a stated simplification), its null passes at most {ALPHA:g} of the time, and the seeds' pass count "
        f"beats the null's pass rate in a binomial test at level {ALPHA:g}; "
        f"partly: it passes in at least {PARTLY_SEED_FRACTION:.0%} of the seeds (or at some but not all settings) "
        f"with a null that passes at most {ALPHA:g}; "
        f"inconclusive: the read-out cannot decide, the null passes more than {ALPHA:g} of the time, or the "
        f"sample is too small for the test to reach {ALPHA:g} (the record says how many seeds would); "
        "differs: the data show a significant effect of another direction or shape than the claim; "
        "not reproduced: the check could have passed at this sample size and fails.")


def binomial_p(n_pass: int, n_units: int, null_rate: float) -> float:
    """One-sided binomial p-value of ``n_pass`` of ``n_units`` at the null's pass rate (1 for no unit)."""
    if n_units <= 0:
        return 1.0
    rate = min(max(float(null_rate), 1e-6), 1 - 1e-6)
    return float(stats.binomtest(int(n_pass), int(n_units), rate, alternative="greater").pvalue)


def outcome_verdict(outcome: Outcome) -> str:
    """The word of the outcome rule (:func:`verdict_rule_text`) for one check's outcome."""
    if not isinstance(outcome, Outcome):
        raise ValueError(f"outcome must be a swingby.verdicts.Outcome, got {type(outcome).__name__}")
    _count("outcome.n_units", outcome.n_units)
    _count("outcome.n_pass", outcome.n_pass, outcome.n_units)
    if not 0 <= outcome.null_pass_rate <= 1:
        raise ValueError(f"outcome.null_pass_rate must be in [0, 1], got {outcome.null_pass_rate!r}")
    if outcome.opposite:
        return "differs"
    if not outcome.decidable or outcome.n_units == 0 or outcome.null_pass_rate > ALPHA:
        return "inconclusive"
    if binomial_p(outcome.n_units, outcome.n_units, outcome.null_pass_rate) > ALPHA:
        return "inconclusive"  # even a pass in every unit could not beat the null at this sample size
    share = outcome.n_pass / outcome.n_units
    p = binomial_p(outcome.n_pass, outcome.n_units, outcome.null_pass_rate)
    if share >= EVERY_SEED_FRACTION and p <= ALPHA:
        return "reproduced"
    if share >= PARTLY_SEED_FRACTION and p <= ALPHA:
        return "partly"
    if outcome.n_pass > 0 and p > ALPHA:
        return "inconclusive"
    return "not reproduced"
