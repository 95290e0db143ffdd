"""The thresholds of the diffusion and capability checks are frozen before the data they
judge, and the outcome rule of :mod:`swingby.verdicts` maps a check's outcome to its five words.

If ``test_rules_are_frozen`` fails, a rule changed: a sweep made under the old rules (its
meta records ``rules_fingerprint``) must then be judged under both before the constant here
is updated.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from swingby import audit, verdicts
from swingby.diffusion import rules as R

#: the fingerprint of the rules as fixed before the new sweep
FROZEN_FINGERPRINT = "a6dca671e2cd40c9"
RESULTS = Path(__file__).resolve().parents[1] / "results" / "diffusion"


def test_rules_are_frozen():
    assert R.fingerprint() == FROZEN_FINGERPRINT, (
        "a rule in swingby/diffusion/rules.py changed: show the result under the old and the new rule in the "
        "chapter, then record the new fingerprint here")


@pytest.mark.parametrize("path", sorted(RESULTS.glob("sweep_*.npz")), ids=lambda p: p.name)
def test_stored_sweeps_were_judged_by_these_rules(path):
    """A sweep that records the rules' fingerprint was made under today's rules; only the
    earlier sweep that the audit appendix's history names may record none."""
    from swingby.diffusion.runs.storage import load_results
    meta = load_results(path)["meta"]
    if "rules_fingerprint" in meta:
        assert meta["rules_fingerprint"] == R.fingerprint(), (
            f"{path.name} was made under rules {meta['rules_fingerprint']}, today's are {R.fingerprint()}")
    else:
        assert path.name == audit.EARLIER_SWEEP_FILE, f"{path.name} records no rules fingerprint"


def test_fingerprint_reads_values_not_text():
    same = R.Rules(**dataclasses.asdict(R.RULES))
    assert R.fingerprint(same) == R.fingerprint() == verdicts.fingerprint(R.RULES)
    assert R.fingerprint(dataclasses.replace(R.RULES, z=2.5)) != R.fingerprint()
    assert R.fingerprint(dataclasses.replace(R.RULES, crossing_levels=(0.5, 0.6))) != R.fingerprint()
    assert len(R.fingerprint()) == 16
    with pytest.raises(dataclasses.FrozenInstanceError):
        R.RULES.z = 3.0


def test_the_outcome_rule_has_the_levels_of_the_diffusion_rules():
    assert (R.RULES.alpha, R.RULES.power) == (verdicts.ALPHA, verdicts.POWER)
    assert (R.RULES.every_seed_fraction, R.RULES.partly_seed_fraction) == \
        (verdicts.EVERY_SEED_FRACTION, verdicts.PARTLY_SEED_FRACTION)


@pytest.mark.parametrize("outcome, word", [
    (verdicts.Outcome(5, 5, 0.01), "reproduced"),
    (verdicts.Outcome(3, 5, 0.01), "partly"),
    (verdicts.Outcome(5, 5, 0.2), "inconclusive"),       # the null passes too often
    (verdicts.Outcome(5, 5, 0.01, decidable=False), "inconclusive"),
    (verdicts.Outcome(0, 0, 0.0), "inconclusive"),       # nothing measurable
    (verdicts.Outcome(1, 5, 0.04), "inconclusive"),      # some pass, not significantly
    (verdicts.Outcome(5, 5, 0.01, opposite=True), "differs"),
    (verdicts.Outcome(0, 5, 0.01), "not reproduced"),
])
def test_outcome_rule(outcome, word):
    assert verdicts.outcome_verdict(outcome) == word


def test_the_outcome_rules_binomial_test():
    assert verdicts.binomial_p(5, 5, 0.01) < 1e-6 and verdicts.binomial_p(0, 5, 0.01) == 1.0


# ----------------------------------------------------------------------------- status page
def test_the_status_page_names_every_word():
    page = (Path(__file__).resolve().parents[1] / "book" / "status.md").read_text()
    words = page.split("Status words", 1)[1].split("\n\n", 1)[0]
    for w in (*verdicts.WORDS, "illustration", "exploratory"):
        assert f"**{w}**" in words, w


def test_weakest_is_the_rows_rule_over_checks():
    # a row of several checks claims only what each supports; combine_parts would say "partly"
    assert verdicts.weakest(["not reproduced", "partly"]) == "not reproduced"
    assert verdicts.combine_parts(["not reproduced", "reproduced"]) == "partly"
    assert verdicts.weakest(["reproduced", "inconclusive"]) == "inconclusive"
    assert verdicts.weakest(["differs", "inconclusive"]) == "differs"
