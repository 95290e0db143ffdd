"""The verdict words of swingby.diffusion.fig6.report (the Fig. 19 row of the diffusion
chapter, and the earlier rule's words that the rules report prints) and the explorer's
answers: every branch, and bad input refused."""
import numpy as np
import pytest

from swingby.diffusion import rules as R
from swingby.diffusion.fig6 import checks as F
from swingby.diffusion.fig6 import mse_checks as FM
from swingby.diffusion.fig6 import report as F6R
from swingby.diffusion.fig6 import slowing as FS
from swingby.diffusion.fig6.explorer import lean, seeds_blue


def test_order_outcome_is_the_seed_level_null():
    per_seed = np.array([["size", "size", "tie"], ["colour", "colour", "colour"]], dtype=object)
    oc = F6R.order_outcome(per_seed, np.array([True, True, False]))
    assert oc.n_pass == 2 and oc.n_units == 3 and oc.null_pass_rate == pytest.approx(0.5 / 3)
    assert R.verdict(oc) == "inconclusive"          # one seed's flip is too cheap under the null
    assert F6R.order_outcome(per_seed[:, :2], np.array([True, True])).null_pass_rate == 0.25
    with pytest.raises(ValueError, match="per_seed"):
        F6R.order_outcome(per_seed, np.array([True]))


def test_shape_word():
    assert F6R.shape_word(["exponential"] * 3) == "reproduced"
    assert F6R.shape_word(["exponential", "undetermined"]) == "partly"
    assert F6R.shape_word(["undetermined", "power law"]) == "differs"
    assert F6R.shape_word(["undetermined"]) == "inconclusive"
    with pytest.raises(ValueError, match="shape"):
        F6R.shape_word([])


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
    assert "looks like red small (class 01): its P(small) exceeds its P(blue) by 0.80" in t
    assert "still reddish" in t
    t = lean([0.6, 0.4], 0.8, "10")
    assert "P(blue) exceeds its P(small) by 0.20, less than" in t and "it is blue" in t
    with pytest.raises(ValueError, match="toward"):
        lean([0.1, 0.9], 0.3, "11")
    assert seeds_blue([0.9, 0.8]).startswith("Yes: all of the 2")
    assert seeds_blue([0.1, 0.2]).startswith("No: none of the 2")
    t = seeds_blue([0.9, 0.2, 0.7])
    assert t.startswith("No: 2 of the 3") and "blurs" in t


def test_counted_reads_well_for_any_count():
    assert F6R.counted(0, "run") == "no run"
    assert F6R.counted(1, "run") == "one run"
    assert F6R.counted(3, "run") == "3 runs"
    assert F6R.counted(1, "percentage point") == "one percentage point"
    assert F6R.counted(0, "run", verb=("has", "have")) == "no run has"
    assert F6R.counted(2, "run", verb=("has", "have")) == "2 runs have"
    with pytest.raises(ValueError, match="k"):
        F6R.counted(-1, "run")
    with pytest.raises(ValueError, match="verb"):
        F6R.counted(2, "run", verb="has")
