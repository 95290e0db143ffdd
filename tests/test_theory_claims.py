"""The claim checks of ``book/two_layer_theory.md`` (``swingby.theory.two_layer_checks``)
and the registers of both theory chapters: the null audits' statements on old seeds
(never on ``fresh_seeds``), known answers, and bad input."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from swingby import claims
from swingby.claims import one_layer_theory as reg1
from swingby.claims import two_layer_theory as reg2
from swingby.theory import two_layer_checks as TL
from swingby.theory.rules import THEORY_RULES as R
from swingby.theory.settings import THEORY_SETTINGS

OLD = range(200)


@pytest.fixture(scope="module")
def records():
    """Fig. 5 runs of the old seeds: the claim's, equal signal, and too large a step."""
    return TL.fig5_record(OLD), TL.fig5_record(OLD, equal_signal=True), TL.fig5_record(OLD[:20], eta=R.fig17_eta_wrong)


def test_registers_name_their_seed_blocks_and_forms():
    for reg in (reg1, reg2):
        for c in reg.CLAIMS:
            assert c.form in ("identity", "universal", "typical")
        text = " ".join(c.unit + c.design for c in reg.CLAIMS)
        for start, n in reg.SEEDS.values():
            assert f"fresh_seeds({n}, start={start})" in text
    keys = [c.key for c in reg2.CLAIMS]
    assert "claim-two-fig17" in keys and not any("fig4" in k for k in keys)  # Fig. 4 is a drawing
    assert {c.key for c in reg1.CLAIMS + reg2.CLAIMS} <= {c.key for c in claims.CLAIMS}
    starts = sorted(reg2.SEEDS.values())
    assert all(a[0] + a[1] <= b[0] for a, b in zip(starts, starts[1:]))  # disjoint blocks


def test_counts_give_judge_its_numbers():
    c = TL.Counts(np.array([True, True, False]), np.array([False, True, True]), paired=True)
    assert (c.k, c.n, c.null_k, c.null_n) == (2, 3, 2, 3)
    assert c.judge("typical").form == "typical"


def test_gsn_identity_holds_and_every_wrong_variant_fails():
    c = TL.gsn_draws(range(12))
    assert c.k == 12 and c.null_n == 12 * len(TL.GSN_VARIANTS) and c.null_k == 0
    assert c.judge("identity").word == "reproduced"
    assert TL.gsn_draws(range(3), replace(R, gsn_ratio_band=(1.8, 2.2))).k == 0  # the clock check can fail
    with pytest.raises(ValueError, match="seeds"):
        TL.gsn_draws([3, 3])
    with pytest.raises(ValueError, match="rules"):
        TL.gsn_draws(range(2), rules={})


def test_equal_signal_never_swings_by_and_fig5_typically_does(records):
    rec, equal, _ = records
    assert not TL.swings(equal).any()  # the null audit: 0 of 200
    c = TL.swing_counts(rec, equal)
    assert c.k > c.n / 2 and c.null_k == 0 and c.paired


def test_stage_timing_holds_in_most_swinging_runs_and_the_shift_rarely(records):
    rec = records[0]
    sub = TL.fig5_record(range(40))
    c = TL.stage_counts(sub, range(40))
    assert c.n == int(TL.swings(sub).sum()) and c.k >= 0.9 * c.n and c.null_k <= 0.1 * c.n
    with pytest.raises(ValueError, match="seeds"):
        TL.stage_counts(rec, range(3))


def test_too_large_a_step_makes_the_training_loss_rise(records):
    rec, _, big = records
    assert big.steps.size == 21 and np.isclose(big.time[-1], rec.time[-1])
    c = TL.training_loss_counts(TL.fig5_record(OLD[:20]), big)
    assert c.k == 20 and c.null_k == 0  # the null audit: it rises in every one of 20
    with pytest.raises(ValueError, match="same initialisations"):
        TL.training_loss_counts(rec, big)


def test_fig18_detours_fall_in_different_stages_unless_the_signal_is_equal(records):
    rec, equal, _ = records
    c = TL.fig18_counts(rec, equal)
    assert c.k == c.n and c.null_k < 0.2 * c.null_n


def test_bad_records_are_refused(records):
    single = records[0].pick(0)
    with pytest.raises(ValueError, match="batched"):
        TL.swings(single)
    with pytest.raises(ValueError, match="record"):
        TL.fig18_stage_gap("no")
    with pytest.raises(ValueError, match="eta"):
        TL.fig5_record(range(2), eta=-1.0)


def test_the_wrong_step_is_beyond_the_stability_limit():
    a = THEORY_SETTINGS["fig5"].a("authors")
    assert R.fig17_eta_wrong > 1 / a.max() > THEORY_SETTINGS["fig5"].eta
