"""The generated sentences of the diffusion chapter (swingby.diffusion.fig6.prose), the
verdict words of its status rows (fig6.report) and the explorer's answers: every branch,
and bad input refused."""
import numpy as np
import pytest

from swingby.diffusion import rules as R
from swingby.diffusion.fig6 import checks as F
from swingby.diffusion.fig6 import mse_checks as FM
from swingby.diffusion.fig6 import prose as P
from swingby.diffusion.fig6 import report as F6R
from swingby.diffusion.fig6 import slowing as FS
from swingby.diffusion.fig6.explorer import lean, seeds_blue

DCS = [0.137, 0.3, 0.689]
CFG = dict(separations=[0.175, 0.247], seeds=[0, 1, 2], n_checkpoints=48, samples_per_class=32, position=0.1,
           seeding="per_run")


def test_positions_and_design():
    assert P.positions(0) == "at the centre of the image"
    assert "[-0.1, 0.1]" in P.positions(0.1)
    d = P.sweep_design(CFG)
    assert d.startswith("2 colour separations (0.175 and 0.247) x 3 seeds with independent randomness")
    assert "48 checkpoints, 32 samples" in d
    old = {k: v for k, v in CFG.items() if k != "seeding"}
    assert "one seed shared" in P.sweep_design(old)
    with pytest.raises(ValueError, match="seeding"):
        P.sweep_design({**CFG, "seeding": "other"})
    with pytest.raises(ValueError, match="config"):
        P.sweep_design({"seeds": [0]})
    with pytest.raises(ValueError, match="position"):
        P.positions(-1)


def test_search_status_before_and_after_the_switch():
    old = {**CFG, "position": 0.0, "seeding": "shared"}
    before = P.search_status(old, CFG, "spread 0.1", "cmd")
    assert before.startswith("A new sweep runs") and "until it is complete" in before and "centre" in before
    after = P.search_status(CFG, dict(CFG), "spread 0.1", "cmd")
    assert after.startswith("The sections below read the sweep of the chosen candidate")
    with pytest.raises(ValueError, match="name"):
        P.search_status(CFG, CFG, 1, "cmd")


def test_readings():
    t = P.readings(DCS, [0.2, 0.5, 0.9], [0.25, 0.5, 0.95])
    assert "at most 5 percentage points" in t and "fewer than at dc = 0.689" in t
    assert "more than" in P.readings(DCS, [0.9, 0.5, 0.2], [0.9, 0.5, 0.2])
    assert "as many as" in P.readings(DCS, [0.9, 0.5, 0.9], [0.9, 0.5, 0.9])
    with pytest.raises(ValueError, match="pixels"):
        P.readings(DCS, [0.2], [0.2, 0.3, 0.4])


def test_order_sentences():
    assert P.first_concepts(DCS, ["size", "size", "colour"]) == (
        "in the seed means, size comes first at dc = 0.137 and 0.3; colour comes first at dc = 0.689")
    assert "neither at dc = 0.3" in P.first_concepts(DCS, ["size", "tie", "colour"])
    with pytest.raises(ValueError, match="firsts"):
        P.first_concepts(DCS, ["size", "blue", "colour"])
    assert P.colour_times(DCS, [900, 500, 100]) == "colour is learned sooner at every larger separation"
    assert "not from dc = 0.3 to 0.689" in P.colour_times(DCS, [900, 100, np.inf])
    assert "no trend" in P.colour_times([0.3], [5])
    assert P.order_flips(np.array([True] * 5)) == "The flip holds in every one of the 5 seeds"
    assert P.order_flips(np.array([False] * 8)) == "The flip holds in none of the 8 seeds"
    assert P.order_flips(np.array([True, False, True])) == "The flip holds in 2 of the 3 seeds (seeds 0 and 2)"
    with pytest.raises(ValueError, match="flips"):
        P.order_flips([1, 0])


def test_order_outcome_is_the_seed_level_null():
    per_seed = np.array([["size", "size", "tie"], ["colour", "colour", "colour"]], dtype=object)
    oc = F6R.order_outcome(per_seed, np.array([True, True, False]))
    assert oc.n_pass == 2 and oc.n_units == 3 and oc.null_pass_rate == pytest.approx(0.5 / 3)
    assert R.verdict(oc) == "inconclusive"          # one seed's flip is too cheap under the null
    assert F6R.order_outcome(per_seed[:, :2], np.array([True, True])).null_pass_rate == 0.25
    with pytest.raises(ValueError, match="per_seed"):
        F6R.order_outcome(per_seed, np.array([True]))


def test_swing_sentences():
    assert "at most 1.0 %" in P.null_too_high(DCS, [0.01, 0.0, 0.005])
    t = P.null_too_high(DCS, [0.10, 0.0, 0.17])
    assert "at dc = 0.137 (10.0 %) and 0.689 (17.0 %)" in t and "cannot decide" in t
    assert P.undecidable(DCS, ["01", "01", "10"], [True, True, True]).startswith("At every separation")
    t = P.undecidable(DCS, ["01", "01", "10"], [True, True, False])
    assert t.startswith("At dc = 0.689 (it reads P(small), toward blue big)") and "0.15" in t
    with pytest.raises(ValueError, match="towards"):
        P.undecidable(DCS, ["01", "01", "11"], [True, True, True])


def test_mse_sentences():
    assert "lowers the MSE" in P.noise_artefact([0.31, 0.02], 0.71, 0.5)
    assert "can raise the MSE" in P.noise_artefact([0.5, 0.5], 0.25, 0.5)
    with pytest.raises(ValueError, match="noise"):
        P.noise_artefact([0.3], 0.7, 0.5)
    ok = np.array([[True, True, False], [True, True, True], [False, False, False]])
    t = P.mse_outcome(DCS, ["inconclusive", "reproduced", "not reproduced"], ok, [0.08, 0.01, 0.0], [3, 3, 1])
    assert t.startswith("the check passes at dc = 0.3 (3 of 3 seeds, null 1.0 %)")
    assert "at dc = 0.137, inconclusive: a rise-then-fall in 2 of 3 seeds, and the monotone null passes 8.0 %" in t
    assert "only 1 of 3 seeds have a read-out" in t
    t = P.mse_outcome(DCS[:1], ["inconclusive"], ok[:1], [0.0], [3])
    assert t.startswith("the check passes at no separation") and "could not beat the null" in t
    t = P.mse_outcome(DCS[:1], ["not reproduced"], ok[2:], [0.0], [3])
    assert "could have passed and does not" in t
    with pytest.raises(ValueError, match="per_seed_pass"):
        P.mse_outcome(DCS, ["partly"] * 3, ok[:2], [0.0] * 3, [3] * 3)


def test_slowing_sentences_and_words():
    assert "classifier saturating: there 2 of the 5 seeds" in P.saturation(36839, 0.468, 2, 5)
    assert "counts every seed" in P.saturation(12, 0.689, 0, 8)
    with pytest.raises(ValueError, match="n_saturated"):
        P.saturation(12, 0.689, 9, 8)
    assert "(most)" in P.moving(20, 30, 2400) and "2400 steps" in P.moving(20, 30, 2400)
    assert "(a minority)" in P.moving(3, 30, 2400) and "(half)" in P.moving(15, 30, 2400)
    assert P.moving(0, 30, 2400).startswith("none of the 30 runs is still moving")
    assert "holds at every separation" in P.shapes(DCS, ["exponential"] * 3)
    t = P.shapes(DCS, ["exponential", "power law", "undetermined"])
    assert "decided at 1 of the 3" in t and "power law at dc = 0.3" in t
    assert "does not check it" in P.shapes(DCS, ["undetermined"] * 3)
    with pytest.raises(ValueError, match="shape"):
        P.shapes(DCS, ["linear"] * 3)
    assert F6R.shape_word(["exponential"] * 3) == "reproduced"
    assert F6R.shape_word(["exponential", "undetermined"]) == "partly"
    assert F6R.shape_word(["undetermined", "power law"]) == "differs"
    assert F6R.shape_word(["undetermined"]) == "inconclusive"
    with pytest.raises(ValueError, match="shape"):
        F6R.shape_word([])
    assert "at every separation" in P.reached(DCS, [True] * 3, 2400)
    assert "at no separation" in P.reached(DCS, [False] * 3, 2400)
    assert "at dc = 0.689, not at dc = 0.137 and 0.3" in P.reached(DCS, [False, False, True], 2400)


def test_data_word():
    assert F6R.data_word(True, [0.65, 0.25]) == "partly"
    assert F6R.data_word(True, [0.70, 0.30]) == "reproduced"
    assert F6R.data_word(False, [0.70, 0.30]) == "partly"
    assert F6R.data_word(False, [0.65, 0.25]) == "differs"
    with pytest.raises(ValueError, match="gaps_ok"):
        F6R.data_word(1, [0.7, 0.3])


def test_rule_outcome_rebuilds_each_verdict():
    seeds = np.array([True, True, False])
    dip = F.DipCheck(0.3, "01", seeds, seeds * 0.2, seeds * 0.2, True, 0.01, 0.2, "partly", "")
    assert F6R.rule_outcome(dip) == R.Outcome(2, 3, 0.01, True)
    mse = FM.MSECheck(0.3, seeds, seeds * 0.1, seeds * 0.1, np.array([True, False, False]), seeds, 0.02,
                      "x", "")
    assert F6R.rule_outcome(mse) == R.Outcome(2, 3, 0.02, False)
    slow = FS.SlowingResult(0.3, 2, seeds, np.array([True, True, False]), seeds, seeds, seeds, True, False, 0.0,
                            "undetermined", (0, 1), "x", "")
    assert F6R.rule_outcome(slow) == R.Outcome(2, 2, 0.0, True)
    with pytest.raises(ValueError, match="check"):
        F6R.rule_outcome(object())


def test_explorer_answers():
    t = lean([0.1, 0.9], 0.3, "01")
    assert "looks like red small (class 01), a lean of 0.80" in t and "still reddish" in t
    t = lean([0.6, 0.4], 0.8, "10")
    assert "by only 0.20" in t and "it is blue" in t
    with pytest.raises(ValueError, match="toward"):
        lean([0.1, 0.9], 0.3, "11")
    assert seeds_blue([0.9, 0.8]).startswith("Yes: all of the 2")
    assert seeds_blue([0.1, 0.2]).startswith("No: none of the 2")
    t = seeds_blue([0.9, 0.2, 0.7])
    assert t.startswith("No: 2 of the 3") and "blurs" in t
