"""The book's verdict rule: one exact test per form of claim.

Every claim of the paper has a *form*, and each form is judged by its own one-sided
exact test at level :data:`ALPHA`, always on independent units (a run with its own
randomness; a seed shared across settings is one unit) and always beside a *wrong
model*: a plausible model that lacks the paper's mechanism by the paper's own theory.
The wrong model is a comparator in a two-sample test, never a veto.

========================  ==========================================================
form                      reproduced when
========================  ==========================================================
``identity``              every unit passes and every wrong variant fails
``universal``             no unit fails, in at least :data:`UNIVERSAL_MIN_UNITS`
                          units, and the wrong model fails significantly more often
                          (one failing unit refutes the claim)
``typical``               more than half the units pass (binomial test) and more
                          than the wrong model's (two-sample test)
``possibility``           passing units occur, significantly more often than for
                          the wrong model
``subtle``                a possibility "only with a subtle choice": as
                          ``possibility``, and the share is below one half
``comparative``           the group the claim says is larger passes significantly
                          more often than the other (``null_k`` of ``null_n``)
========================  ==========================================================

Each part of a claim is *passed* (significant), *failed* (not significant although the
test had :data:`POWER` for the effect the claim implies, or significant the other way)
or *undecided*. The word: every part passed, "reproduced"; a comparison significant in
the other direction, "differs"; parts decided both ways, "partly"; failed parts and no
passed one, "not reproduced"; otherwise "inconclusive", with the units that would
decide (:attr:`Judgement.units_needed`). The effect a claim implies, for the power of
its test: every unit passing for a universal claim, :data:`TYPICAL_SHARE` of the units
for a typical one, and pass rates :data:`EFFECT` apart for a comparison with a wrong
model or between groups.

Two-sample tests are Fisher's exact test (``scipy.stats.fisher_exact``); where the units
are paired (the same seed with and without a change) the exact McNemar test, a sign
test on the discordant pairs (``pairs=(b, c)``: pairs in which only the claimed side
passes, and only the other). :func:`fingerprint` hashes any plain-data description; the
claim registers of the chapters are hashed with it before the runs they judge.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby import exact_tests
from swingby.exact_tests import (  # noqa: F401  (exposed beside the rule)
    binomial_power,
    discordant_pairs,
    fisher_p,
    fisher_power,
    sign_test_p,
    smallest_units,
)

#: level of every test
ALPHA = exact_tests.ALPHA
#: power a failed test must have had for "not reproduced"; also the power of "units needed"
POWER = exact_tests.POWER
#: fewest units in which a universal claim can be accepted: with none failing in this many,
#: a failure rate of 5 % is excluded at level 0.05 (ln 0.05 / ln 0.95 = 58.4)
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
    """A claim's verdict with the numbers behind it."""

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
        """The effect in words: ``"k of n vs null k0 of n0, p = ..."``."""
        text = f"{self.k} of {self.n}"
        if self.null_n is not None:
            text += f" vs {self.null_k} of {self.null_n}"
        if self.p is not None:
            text += f", p = {format_p(self.p)}"
        if self.p_share is not None:
            text += f"; share test p = {format_p(self.p_share)}"
        return text


def format_p(p: float | None) -> str:
    """A p-value in two significant digits (``"-"`` for None), as tables and effects print it.

    Parameters
    ----------
    p : float or None

    Returns
    -------
    str
    """
    if p is None:
        return "-"
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
    if pairs is not None:
        b, c = pairs
        p = sign_test_p(b, c)
        if p <= ALPHA:
            return _PASSED, p, None, None
        if sign_test_p(b, c, "less") <= ALPHA:
            return _OPPOSITE, p, None, None
        pw = binomial_power(0.5 + EFFECT / 2, b + c) if b + c else 0.0
        need = smallest_units(lambda m: binomial_power(0.5 + EFFECT / 2, m), b + c + 1)
        return (_FAILED if pw >= POWER else _UNDECIDED), p, pw, need
    p = fisher_p(k, n, null_k, null_n)
    if p <= ALPHA:
        return _PASSED, p, None, None
    if fisher_p(k, n, null_k, null_n, "less") <= ALPHA:
        return _OPPOSITE, p, None, None
    r0 = null_k / null_n
    p1 = min(1.0, r0 + EFFECT) if p1_implied is None else p1_implied
    pw = fisher_power(p1, n, r0, null_n) if p1 > r0 else 0.0
    r1 = k / n
    need = None
    if r1 > r0:  # the units at which the observed rates would be decided (equal groups)
        need = smallest_units(lambda m: fisher_power(r1, m, r0, m), max(n, null_n))
    return (_FAILED if pw >= POWER else _UNDECIDED), p, pw, need


def _word(parts) -> str:
    """The word for a claim's parts (see the module docstring)."""
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
    k, n : int
        ``k`` of ``n`` independent units pass the check.
    null_k, null_n : int
        ``null_k`` of ``null_n`` units of the wrong model pass the same check (for
        ``identity``: wrong variants that pass; for ``comparative``: the group the claim
        says is smaller). Required for every form.
    pairs : tuple of int, optional
        ``(b, c)`` discordant pairs where the units are paired (only the claimed side
        passes, only the other): the comparison is then the exact McNemar test.

    Returns
    -------
    Judgement

    Raises
    ------
    ValueError
        For an unknown form, counts that are not non-negative integers, ``k > n``,
        a missing wrong model, or no units.
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
    p_share = None
    if form == "identity":
        word = "not reproduced" if k < n else ("reproduced" if null_k == 0 else "inconclusive")
        return Judgement(word, form, k, n, null_k, null_n, None, None, None, None)
    if form == "universal":
        if k < n:  # one failing unit refutes a universal claim
            return Judgement("not reproduced", form, k, n, null_k, null_n, None, None, None, None)
        state, p, pw, need = _compare(k, n, null_k, null_n, pairs, 1.0)
        enough = _PASSED if n >= UNIVERSAL_MIN_UNITS else _UNDECIDED
        if enough == _UNDECIDED:
            need = max(need or 0, UNIVERSAL_MIN_UNITS)
        # a wrong model that passes as often cannot show the absence of failures: undecided
        parts = [enough, _UNDECIDED if state == _FAILED else state]
        return Judgement(_word(parts), form, k, n, null_k, null_n, p, None, pw, need)
    if form == "comparative":
        state, p, pw, need = _compare(k, n, null_k, null_n, pairs, None)
        return Judgement(_word([state]), form, k, n, null_k, null_n, p, None, pw, need)
    state, p, pw, need = _compare(k, n, null_k, null_n, pairs, None)
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
        return Judgement(_word([share, state]), form, k, n, null_k, null_n, p, p_share, pw, need)
    occurs = _PASSED if k > 0 else (_FAILED if state == _FAILED else _UNDECIDED)
    parts = [occurs, state]
    if form == "subtle":
        p_share = float(stats.binomtest(k, n, 0.5, alternative="less").pvalue)
        above = stats.binomtest(k, n, 0.5, alternative="greater").pvalue <= ALPHA
        parts.append(_PASSED if p_share <= ALPHA else (_FAILED if above else _UNDECIDED))
    return Judgement(_word(parts), form, k, n, null_k, null_n, p, p_share, pw, need)


def judge_units(form: str, passes, null_passes, *, paired: bool = False) -> Judgement:
    """:func:`judge` from one outcome per unit.

    Parameters
    ----------
    form : str
        One of :data:`FORMS`.
    passes, null_passes : array_like(bool, ndim=1)
        One outcome per unit of the claim and of its wrong model.
    paired : bool
        Unit ``i`` of both comes from the same seed or run: the exact McNemar test on
        :func:`~swingby.exact_tests.discordant_pairs` (equally long); else two groups (Fisher).
    """
    a, b = np.asarray(passes), np.asarray(null_passes)
    for name, x in (("passes", a), ("null_passes", b)):
        if x.ndim != 1 or x.size == 0 or x.dtype != bool:
            raise ValueError(f"{name} must be a non-empty boolean 1-D array, got {x.dtype} {x.shape}")
    pairs = discordant_pairs(a, b) if paired else None
    return judge(form, int(a.sum()), a.size, int(b.sum()), b.size, pairs=pairs)


def verdict(form: str, k: int, n: int, null_k: int | None = None, null_n: int | None = None,
            *, pairs: tuple[int, int] | None = None) -> str:
    """The word of :func:`judge` (same arguments; :func:`judge` has the numbers)."""
    return judge(form, k, n, null_k, null_n, pairs=pairs).word


def weakest(words) -> str:
    """The word of a row resting on several checks: the weakest, in the order of :data:`WORDS`.

    Parameters
    ----------
    words : sequence of str
        Each one of :data:`WORDS`.

    Returns
    -------
    str
    """
    words = [words] if isinstance(words, str) else list(words)
    if not words or any(w not in WORDS for w in words):
        raise ValueError(f"words must be a non-empty sequence of {WORDS}, got {words!r}")
    return max(words, key=WORDS.index)


def combine_parts(words) -> str:
    """The word of one claim judged in parts (each part a :func:`judge` of its own, e.g. a
    failure that occurs, and that it is permanent): the rule of :func:`judge` on the parts,
    so that a claim whose parts are decided both ways is "partly". A row of *different*
    claims takes :func:`weakest` instead.

    Parameters
    ----------
    words : sequence of str
        The parts' words, each one of :data:`WORDS`.

    Returns
    -------
    str
    """
    words = [words] if isinstance(words, str) else list(words)
    if not words or any(w not in WORDS for w in words):
        raise ValueError(f"words must be a non-empty sequence of {WORDS}, got {words!r}")
    state = {"reproduced": [_PASSED], "not reproduced": [_FAILED], "differs": [_OPPOSITE],
             "inconclusive": [_UNDECIDED], "partly": [_PASSED, _FAILED]}
    return _word([s for w in words for s in state[w]])


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
    """A short sha256 (16 hex digits) of plain data: the JSON of ``obj`` with sorted keys,
    where dataclasses become dicts and tuples lists (a comment may change, a value not).

    Parameters
    ----------
    obj : object
        Plain data, dataclass instances, or sequences of them.

    Returns
    -------
    str
    """
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


def rule_text() -> str:
    """The verdict rule in words, as the status page prints it (a test keeps them equal)."""
    a, pw = f"{ALPHA:g}", f"{POWER:.0%}"
    return (
        f"Each claim is judged by the test of its form, one-sided and exact at level {a}, on "
        "independent units, beside a wrong model that lacks the paper's mechanism by the paper's own "
        "theory (Fisher's exact test; the exact McNemar test where units are paired). "
        "*Identity*: every unit passes and every wrong variant fails. "
        f"*Universal*: no unit fails in at least {UNIVERSAL_MIN_UNITS} units, and the wrong model fails "
        "significantly more often; one failing unit refutes the claim. "
        "*Typical*: more than half the units pass (binomial test), and more than the wrong model's. "
        "*Possibility*: passing units occur, significantly more often than for the wrong model; "
        "*subtle* (\"only with a subtle choice\") adds that they are a minority. "
        "*Comparative*: the group the claim says is larger passes significantly more often. "
        "A claim whose parts all pass is **reproduced**; one decided both ways, **partly**; one "
        "significant in the other direction, **differs**; one whose tests fail although they had "
        f"{pw} power for the effect the claim implies (all units passing for a universal claim, "
        f"{TYPICAL_SHARE:.0%} of them for a typical one, pass rates {EFFECT:g} apart for a comparison), "
        "**not reproduced**; otherwise **inconclusive**, with the number of units that would decide.")
