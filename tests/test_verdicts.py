"""The verdict rule of :mod:`swingby.verdicts`: each form decides for, against and
undecided, and the wrong model is a comparator, never a veto."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from swingby import exact_tests as E
from swingby import verdicts as V


def word(*args, **kwargs) -> str:
    return V.judge(*args, **kwargs).word


def test_a_wrong_model_that_sometimes_passes_is_a_comparator_not_a_veto():
    assert word("typical", 8, 8, 2, 18) == "reproduced"
    assert word("possibility", 8, 8, 2, 18) == "reproduced"
    assert word("comparative", 8, 8, 2, 18) == "reproduced"


@pytest.mark.parametrize("form, args, expected", [
    # universal: accepted only with >= 59 units, none failing, and a wrong model that fails more
    ("universal", (60, 60, 30, 60), "reproduced"),
    ("universal", (59, 60, 0, 60), "not reproduced"),          # one failure refutes
    ("universal", (20, 20, 0, 20), "inconclusive"),            # too few units
    ("universal", (80, 80, 80, 80), "inconclusive"),           # the detector misses the wrong model's failures
    # typical: more than half, and more than the wrong model's
    ("typical", (151, 152, 0, 152), "reproduced"),
    ("typical", (10, 100, 5, 100), "not reproduced"),          # a minority, decided against
    ("typical", (90, 100, 88, 100), "partly"),                 # typical, but no more than the wrong model
    ("typical", (4, 6, 2, 6), "inconclusive"),
    ("typical", (10, 100, 60, 100), "differs"),                # the wrong model passes more
    # possibility: occurs, more often than the wrong model
    ("possibility", (19, 100, 8, 100), "reproduced"),
    ("possibility", (2, 10, 1, 10), "inconclusive"),
    ("possibility", (0, 200, 0, 200), "not reproduced"),
    # subtle: a possibility, and a minority
    ("subtle", (30, 200, 2, 200), "reproduced"),
    ("subtle", (150, 200, 2, 200), "partly"),                  # occurs, but in the majority
    ("subtle", (3, 10, 0, 10), "inconclusive"),
    # comparative
    ("comparative", (19, 100, 0, 20), "reproduced"),
    ("comparative", (0, 20, 19, 100), "differs"),
    ("comparative", (20, 200, 20, 200), "not reproduced"),     # powered for a 0.25 difference
    ("comparative", (2, 10, 1, 10), "inconclusive"),
    # identity: every unit passes, every wrong variant fails
    ("identity", (10, 10, 0, 3), "reproduced"),
    ("identity", (9, 10, 0, 3), "not reproduced"),
    ("identity", (10, 10, 1, 3), "inconclusive"),
])
def test_each_form_decides_for_against_and_undecided(form, args, expected):
    assert V.judge(form, *args).word == expected


def test_universal_needs_its_units():
    assert V.UNIVERSAL_MIN_UNITS == 59 == math.ceil(math.log(0.05) / math.log(0.95))
    assert word("universal", 58, 58, 0, 58) == "inconclusive"
    assert V.judge("universal", 58, 58, 0, 58).units_needed == 59
    assert word("universal", 59, 59, 0, 59) == "reproduced"


def test_inconclusive_says_how_many_units_would_decide():
    j = V.judge("comparative", 6, 20, 2, 20)
    assert j.word == "inconclusive" and j.units_needed is not None
    m = j.units_needed
    assert E.fisher_power(0.3, m, 0.1, m) >= E.POWER > E.fisher_power(0.3, m - 1, 0.1, m - 1) - 0.05


def test_paired_units_use_the_exact_mcnemar_test():
    assert E.sign_test_p(9, 0) == pytest.approx(0.5 ** 9)
    assert word("comparative", 30, 40, 21, 40, pairs=(9, 0)) == "reproduced"
    assert word("comparative", 30, 40, 21, 40, pairs=(0, 9)) == "differs"
    assert E.sign_test_p(0, 0) == 1.0


def test_fisher_p_and_power_agree_with_scipy_and_simulation():
    assert E.fisher_p(19, 100, 8, 100) == pytest.approx(
        stats.fisher_exact([[19, 81], [8, 92]], alternative="greater").pvalue)
    rng = np.random.default_rng(0)
    a, b = rng.binomial(40, 0.5, 2000), rng.binomial(40, 0.2, 2000)
    hits = np.mean([E.fisher_p(int(x), 40, int(y), 40) <= E.ALPHA for x, y in zip(a, b)])
    assert E.fisher_power(0.5, 40, 0.2, 40) == pytest.approx(hits, abs=0.03)
    assert E.binomial_power(0.75, 20) == pytest.approx(
        stats.binom.sf(15 - 1, 20, 0.75), abs=1e-12)  # 15 of 20 is the smallest count with p <= 0.05


def test_judgement_effect_gives_the_counts_and_p():
    j = V.judge("possibility", 19, 100, 8, 100)
    assert "19 of 100" in j.effect() and "8 of 100" in j.effect() and V.format_p(j.p) in j.effect()


@pytest.mark.parametrize("kwargs, match", [
    (dict(form="usual", k=1, n=2, null_k=0, null_n=2), "form must be one of"),
    (dict(form="typical", k=3, n=2, null_k=0, null_n=2), "k must be at most 2"),
    (dict(form="typical", k=-1, n=2, null_k=0, null_n=2), "k must be a non-negative integer"),
    (dict(form="typical", k=1.5, n=2, null_k=0, null_n=2), "k must be a non-negative integer"),
    (dict(form="typical", k=1, n=2), "null_k and null_n are required"),
    (dict(form="typical", k=0, n=0, null_k=0, null_n=2), "n and null_n must be positive"),
    (dict(form="typical", k=1, n=2, null_k=0, null_n=2, pairs=(1,)), "pairs must be"),
])
def test_bad_arguments_are_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        V.judge(**kwargs)


def test_weakest_and_claim_validation():
    assert V.weakest(["reproduced", "partly"]) == "partly"
    assert V.weakest("differs") == "differs"
    with pytest.raises(ValueError, match="words must be"):
        V.weakest(["fine"])
    with pytest.raises(ValueError, match="form must be one of"):
        V.Claim("k", "Sec. 1", "q", "usual", "u", "c", "w")


def test_fingerprint_reads_values():
    c = V.Claim("k", "Sec. 1", "q", "typical", "u", "c", "w")
    assert V.fingerprint([c]) == V.fingerprint((V.Claim("k", "Sec. 1", "q", "typical", "u", "c", "w"),))
    assert V.fingerprint([c]) != V.fingerprint([V.Claim("k", "Sec. 1", "q", "universal", "u", "c", "w")])
    assert len(V.fingerprint({"a": 1})) == 16


def test_combine_parts_of_one_claim():
    assert V.combine_parts(["reproduced", "not reproduced"]) == "partly"
    assert V.combine_parts(["reproduced", "reproduced"]) == "reproduced"
    assert V.combine_parts(["reproduced", "inconclusive"]) == "inconclusive"
    assert V.combine_parts(["not reproduced", "inconclusive"]) == "not reproduced"
    assert V.combine_parts(["reproduced", "differs"]) == "differs"
    assert V.combine_parts("partly") == "partly"
    with pytest.raises(ValueError, match="words must be"):
        V.combine_parts([])
