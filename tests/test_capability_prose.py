"""The sentence builders of the capability chapter (``swingby.capability.prose``), the
explorer's answers and the status-row words of ``swingby.capability.report``: every
branch, and a ValueError naming the argument on bad input."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.capability import explorer as E
from swingby.capability import prose as PR
from swingby.capability import report as CR
from swingby.diffusion.rules import Outcome, verdict


def test_count_phrase_every_branch():
    assert PR.count_phrase(20, 20) == "all 20 runs"
    assert PR.count_phrase(0, 20) == "none of the 20 runs"
    assert PR.count_phrase(15, 20, "seeds") == "15 of the 20 seeds"
    assert PR.count_phrase(1, 1) == "the one run" and PR.count_phrase(0, 1) == "no run"
    with pytest.raises(ValueError, match="k must be at most n"):
        PR.count_phrase(3, 2)
    with pytest.raises(ValueError, match="n must"):
        PR.count_phrase(1, -2)


def test_sweep_phrase_centred_or_spread_shared_or_per_run():
    old = PR.sweep_phrase(16, 0.0, 6, 5, "shared")
    assert old.startswith("discs at the centre of 16 x 16 images") and "its 5 seeds" in old
    new = PR.sweep_phrase(16, 0.1, 4, 8, "per_run")
    assert "uniform in [-0.1, 0.1]" in new and "all 32 runs are independent" in new
    assert len(new.split("; ")) == 2
    with pytest.raises(ValueError, match="seeding"):
        PR.sweep_phrase(16, 0.1, 4, 8, "independent")
    with pytest.raises(ValueError, match="position"):
        PR.sweep_phrase(16, "x", 4, 8, "shared")


def test_memorization_sentence_all_some_none():
    s = PR.memorization_sentence(["01"] * 4, ["10"] * 2, 0.3, 0.689)
    assert s.startswith("In all 4 finished runs with dc <= 0.3 class 11 heads for 01") and "others" not in s
    assert s.endswith("at dc = 0.689 it heads for 10 (blue big) first in all 2 runs")
    s = PR.memorization_sentence(["01", "10", "01"], ["10", "01"], 0.3, 0.689)
    assert s.startswith("In 2 of the 3") and "(in the others for 10)" in s and s.endswith(
        "1 of the 2 runs (in the others for 01)")
    s = PR.memorization_sentence(["10", "10"], ["01", "01"], 0.3, 0.689)
    assert s.startswith("In none of the 2") and "first in none of the 2 runs" in s
    with pytest.raises(ValueError, match="corners_weak"):
        PR.memorization_sentence(["11"], ["10"], 0.3, 0.689)


def test_correlation_and_lead_separation_sentences():
    assert "0.62, at least the 0.5" in PR.correlation_sentence(0.62, 0.01, 0.5, 0.05, "x and y")
    s = PR.correlation_sentence(0.2, 0.2, 0.5, 0.05, "x and y")
    assert "below the 0.5" in s and "would not count" in s
    assert "falls with the separation" in PR.lead_separation_sentence(-0.7, 0.0, 0.05)
    assert "does not fall clearly" in PR.lead_separation_sentence(-0.7, 0.2, 0.05)
    assert "does not fall clearly" in PR.lead_separation_sentence(0.1, 0.0, 0.05)
    with pytest.raises(ValueError, match="rho"):
        PR.correlation_sentence(float("nan"), 0.0, 0.5, 0.05, "x")


def test_bump_check_trend_phrases():
    assert "in no run does it reach 50 % (at most 48 %)" in PR.bump_sentence(0.48, 0.5, 43)
    assert "the bump" in PR.bump_sentence(0.6, 0.5, 43).split(";")[1]
    with pytest.raises(ValueError, match="bump"):
        PR.bump_sentence(1.5, 0.5, 43)
    with pytest.raises(ValueError, match="step"):
        PR.bump_sentence(0.4, 0.5, -1)
    assert PR.check_phrase(True, 0.01, 0.05) == "passes"
    assert PR.check_phrase(False, 0.01, 0.05) == "fails"
    assert "cannot count" in PR.check_phrase(True, 0.2, 0.05)
    assert "shrinks" in PR.trend_sentence(900, 10, 0.137, 0.689)
    assert "grows as" in PR.trend_sentence(10, 900, 0.137, 0.689)
    assert "stays the same" in PR.trend_sentence(10, 10, 0.137, 0.689)


def test_readings_and_levels():
    assert PR.readings_phrase({"classifier": "reproduced", "pixels": "reproduced"}) == \
        "**reproduced** under both readings"
    assert PR.readings_phrase({"classifier": "partly", "pixels": "inconclusive"}) == \
        "**partly** (classifier) and **inconclusive** (pixels)"
    with pytest.raises(ValueError, match="words"):
        PR.readings_phrase({"classifier": "fine"})
    lv = (0.5, 0.6, 0.7, 0.8)
    assert "every level from 50 % to 80 %" in PR.levels_phrase(lv, ["reproduced", "partly"] * 2)
    assert PR.levels_phrase(lv, ["reproduced", "inconclusive", "partly", "differs"]) == \
        "the lead holds at 50 %, 70 % only"
    assert "none of the levels" in PR.levels_phrase(lv, ["inconclusive"] * 4)
    with pytest.raises(ValueError, match="one length"):
        PR.levels_phrase(lv, ["reproduced"])


def test_separation_and_linear_sentences():
    m = [400, 350, 300]
    assert "falls significantly" in PR.separation_sentence(m, 0.01, "reproduced", 0.05)
    assert "does not fall significantly" in PR.separation_sentence(m, 0.3, "inconclusive", 0.05)
    assert "rises" in PR.separation_sentence(m, 0.9, "differs", 0.05)
    assert "never" in PR.separation_sentence([400, np.inf], 0.3, "inconclusive", 0.05)
    with pytest.raises(ValueError, match="medians"):
        PR.separation_sentence([400], 0.3, "inconclusive", 0.05)
    s = PR.linear_sentence("differs", 0.2, 0.1, False, 0.5)
    assert s.startswith("**differs**") and "explains only" in s and s.endswith("fails")
    s = PR.linear_sentence("reproduced", 0.8, float("nan"), True, 0.5)
    assert "explains $R^2" in s and "undefined" in s and s.endswith("passes")
    with pytest.raises(ValueError, match="word"):
        PR.linear_sentence("maybe", 0.2, 0.1, False, 0.5)


def test_probe_phrases():
    assert set(PR.PERM_UNIT) == {"shared", "per_run"}
    assert PR.coincide_phrase({"classifier": True, "pixels": True}) == "passes under both readings"
    assert PR.coincide_phrase({"classifier": False, "pixels": False}) == "fails under both readings"
    assert PR.coincide_phrase({"classifier": True, "pixels": False}) == "passes under the classifier only"
    with pytest.raises(ValueError, match="results"):
        PR.coincide_phrase({})
    assert PR.clock_phrase(0.8, 0.3) == "a capability clock"
    assert PR.clock_phrase(0.3, 0.9) == "a behaviour clock"
    assert PR.clock_phrase(0.1, 0.2).startswith("neither")
    assert PR.ci_phrase(-0.1, 0.6, 0.5).startswith("both no relation and")
    assert PR.ci_phrase(-0.1, 0.4, 0.5).startswith("no relation but not")
    assert PR.ci_phrase(0.1, 0.6, 0.5).endswith("but not no relation")
    assert PR.ci_phrase(0.1, 0.3, 0.5).startswith("neither")
    with pytest.raises(ValueError, match="lo must be at most hi"):
        PR.ci_phrase(0.5, 0.1, 0.5)
    assert PR.best_probe_sentence("turn", "turn", 12, 0.01, "reproduced").startswith("the turn is the best of")
    assert "is the loss, not the turn" in PR.best_probe_sentence("loss", "turn", 12, 0.01, "differs")
    s = PR.loss_mark_sentence(0.3, 0.01, 0.02, 0.05, "reproduced")
    assert "shows no feature" in s and "would have been found" in s
    s = PR.loss_mark_sentence(0.01, 0.2, 0.02, 0.05, "differs")
    assert "shows a feature" in s and "would not have been found" in s
    assert PR.beats_phrase({"a": 0.2, "b": 0.1}, "turn", 0.8).startswith("none of the 2")
    assert PR.beats_phrase({"a": 0.9, "b": 0.1}, "turn", 0.8).startswith("1 of the 2 probes")
    with pytest.raises(ValueError, match="names_r"):
        PR.beats_phrase({}, "turn", 0.8)


def test_explorer_answers():
    assert E.point_phrase(0.1, 0.9) == "red and small" and E.point_phrase(0.9, 0.1) == "blue and big"
    with pytest.raises(ValueError, match="p_blue"):
        E.point_phrase(1.5, 0.2)
    assert "every run's plain prompt reaches 50 %" in E.never_phrase([], [])
    s = E.never_phrase([0.1, 0.2, 0.9], [0.9, 0.8, 0.1])
    assert s == "At the end class 11 reads as red and small (2 of the 3 runs), blue and big (1 of the 3 runs)."
    with pytest.raises(ValueError, match="one shape"):
        E.never_phrase([0.1], [])
    assert "more than the 1" in E.level_solution((1, True), (4, True), 0.5, 0.8)
    assert "as many as the 4" in E.level_solution((4, True), (4, True), 0.5, 0.8)
    assert "still passes" in E.level_solution((1, True), (4, True), 0.5, 0.8)
    assert "no longer passes" in E.level_solution((1, True), (1, False), 0.5, 0.8)
    assert "fails at both" in E.level_solution((1, False), (0, False), 0.5, 0.8)


def test_memorization_word_follows_the_verdict_rule_with_a_coin_per_unit():
    five_weak = np.array([0.137, 0.175, 0.2, 0.247, 0.3, 0.689])
    done = np.ones((6, 5), bool)
    corner = np.array([["01"] * 5] * 5 + [["10"] * 5])
    shared = CR.memorization_word(corner, done, five_weak, "shared", 0.7, 0.0)
    # a seed of five weak runs: a coin passes it 0.5 ** 5 = 3.1 % of the time, below alpha
    assert (shared.n_pass, shared.n_units) == (5, 5) and shared.null_rate == 0.5 ** 5
    assert shared.corner_word == "reproduced" and shared.word == "reproduced"
    assert shared.corner_word == verdict(Outcome(5, 5, 0.5 ** 5))
    # one run per unit (a per-run sweep), or two weak runs per seed: a coin passes a unit
    # more than 5 % of the time, so the rule can say no more than "inconclusive"
    per_run = CR.memorization_word(corner, done, five_weak, "per_run", 0.7, 0.0)
    assert per_run.n_units == 25 and per_run.null_rate == 0.5 and per_run.corner_word == "inconclusive"
    two_weak = np.array([0.175, 0.247, 0.468, 0.689, 0.5, 0.6])
    assert CR.memorization_word(corner, done, two_weak, "shared", 0.7, 0.0).corner_word == "inconclusive"
    # one seed with a run that heads for 10 fails: 4 of 5, partly
    corner[0, 0] = "10"
    assert CR.memorization_word(corner, done, five_weak, "shared", 0.7, 0.0).corner_word == "partly"
    # every weak run heads for 10: the opposite corner, "differs"
    flipped = np.array([["10"] * 5] * 6)
    assert CR.memorization_word(flipped, done, five_weak, "shared", 0.7, 0.0).corner_word == "differs"
    # the leaving check: a pass whose null passes too often cannot count
    w = CR.memorization_word(np.array([["01"] * 5] * 6), done, five_weak, "shared", 0.7, 0.3)
    # a row takes the weaker check's word; the settings rule (combine) would say "partly"
    assert w.leave_word == "inconclusive" and w.word == "inconclusive" and w.combined == "partly"
    assert CR.memorization_word(np.array([["01"] * 5] * 6), done, five_weak, "shared", 0.2, 0.0).leave_word == \
        "not reproduced"
    with pytest.raises(ValueError, match="seeding"):
        CR.memorization_word(corner, done, five_weak, "both", 0.7, 0.0)
    with pytest.raises(ValueError, match="corner and done"):
        CR.memorization_word(corner[:2], done, five_weak, "shared", 0.7, 0.0)


def test_linear_word_and_app_d_word():
    assert CR.linear_word(True, 0.01, -0.8, 0.0) == "reproduced"
    assert CR.linear_word(False, 0.01, -0.8, 0.0) == "differs"       # the lead falls with dc instead
    assert CR.linear_word(False, 0.01, -0.2, 0.0) == "not reproduced"
    assert CR.linear_word(False, 0.3, -0.2, 0.0) == "inconclusive"   # its null passes too often
    assert CR.claim_word_app_d("partly") == "partly"
    assert CR.claim_word_app_d("not reproduced") == "inconclusive"
    with pytest.raises(ValueError, match="mark_word"):
        CR.claim_word_app_d("fine")


def test_early_bump_lies_before_every_capability_time_and_sees_a_blob_bump():
    from test_capability import STEPS, _sweep  # the synthetic sweep of the capability tests

    from swingby.capability import checks as K
    r = _sweep()
    b = K.early_bump(r, ("classifier",))
    assert b.reading == "classifier" and b.value < 0.5 and b.step < 150
    k = int(np.searchsorted(STEPS, 50))  # a bump of faint blobs at an early checkpoint
    r["cap_probs"][1, 2, k, 2, :12] = [0.9, 0.9]
    b = K.early_bump(r, ("classifier",))
    assert b.value == pytest.approx(12 / 16) and b.step == STEPS[k]
    assert "so there a first crossing is the bump" in PR.bump_sentence(b.value, 0.5, int(b.step))
    with pytest.raises(ValueError, match="readings"):
        K.early_bump(r, ())
