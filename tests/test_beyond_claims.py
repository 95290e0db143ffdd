"""Tests of the claim checks of ``book/beyond_two_concepts.md`` and the wrong models of
``book/jacobian_link.md`` (``swingby.theory.beyond_checks``, ``swingby.theory.beyond_init``,
the register ``swingby.claims``): the null audits' statements, checked on old seeds
(never on ``fresh_seeds``), known answers, and bad input."""
from __future__ import annotations

import numpy as np
import pytest

from swingby import claims
from swingby.claims import beyond_two_concepts as reg
from swingby.claims import jacobian_link as jreg
from swingby.theory.beyond_checks import (
    descent_units,
    equal_signal_a,
    failure_units,
    shifted_minor_record,
)
from swingby.theory.beyond_init import E1_FORMULAS, e1_units, width_counts
from swingby.theory.jacobian_stages import jacobian_stages
from swingby.theory.one_layer import one_layer_output
from swingby.theory.settings import THEORY_SETTINGS
from swingby.verdicts import FORMS

OLD = range(200)  # the audits' seeds: old ones, far below the fresh-seed offset


# ------------------------------------------------------------------- register
def test_register_keys_forms_and_constants():
    mine = reg.CLAIMS + jreg.CLAIMS
    keys = [c.key for c in mine]
    assert len(set(keys)) == len(keys) and all(c.form in FORMS for c in mine)
    assert {c.key: c.form for c in mine} == {
        "claim-beyond-multiple-descent": "subtle", "claim-beyond-alignment": "typical",
        "claim-beyond-e1": "identity", "claim-beyond-phase": "comparative",
        "claim-beyond-fig10": "possibility", "claim-beyond-fig10-never": "possibility",
        "claim-jac-link": "typical"}
    assert "long_horizon=1000.0" in claims.claim("claim-beyond-fig10-never").design
    assert "shift_min" in claims.claim("claim-jac-link").design
    design = claims.claim("claim-beyond-multiple-descent").design
    assert "n_seeds=1000" in design and "rel_tol=0.01" in design
    assert "peak_tol" in claims.claim("claim-jac-link").design


def test_seed_blocks_are_disjoint():
    blocks = [range(reg.MULTI["start"], reg.MULTI["start"] + 4 * reg.MULTI["n_seeds"]),
              range(reg.FAILURE["start"], reg.FAILURE["start"] + reg.FAILURE["n_seeds"]),
              range(reg.E1["start"], reg.E1["start"] + 3 * reg.E1["n_draws"]),
              range(reg.WIDTH["start"], reg.WIDTH["start"] + 3 * reg.WIDTH["n_seeds"])]
    seen = set()
    for b in blocks:
        assert not seen & set(b)
        seen |= set(b)
    link = range(jreg.LINK["start"], jreg.LINK["start"] + jreg.LINK["n_seeds"])
    assert jreg.LINK["explore_start"] >= link.stop


# ------------------------------------------------------------ null audits
def test_equal_signal_gives_a_monotone_loss_in_every_run():
    """Audit of the equal-signal wrong model: 0 of 200 with two or more descents."""
    units = descent_units(THEORY_SETTINGS["fig8_script"], OLD)
    assert np.all(units.null_n_descents == 1) and not units.null_passes.any()
    assert units.passes.any() and units.passes.mean() < 0.5  # the paper's dynamics do show it
    assert units.aligned.size == units.multi.size == units.passes.sum()
    assert units.aligned.mean() > 0.5 and not units.shifted.any()


def test_no_minor_initialisation_never_fails():
    """Audit of the wrong model of App. E.3: 0 of 200 pass; its minor entries stay 0."""
    units = failure_units(THEORY_SETTINGS["fig10"], OLD)
    assert not units.null_passes.any() and units.passes.mean() > 0.5
    assert np.all(np.isfinite(units.escape))  # with steps on U every run escapes in the end
    w = failure_units(THEORY_SETTINGS["fig10"], [0, 1], horizon=1.0)
    assert w.record.W.shape[1] == 11
    with pytest.raises(ValueError, match="long horizon"):
        w.never_passes


def test_never_grows_at_the_long_horizon():
    """Under steps on U every old run has escaped by t = 1000; the wrong model never passes."""
    units = failure_units(THEORY_SETTINGS["fig10"], range(40), long_horizon=1000.0)
    assert units.passes.any() and not units.never_passes.any()
    assert not units.null_never_passes.any() and np.all(units.late_w11 > 0.5)
    assert units.record.W.shape[1] == 1001  # the horizon's record is the same as without it
    with pytest.raises(ValueError, match="long_horizon"):
        failure_units(THEORY_SETTINGS["fig10"], [0], long_horizon=10.0)


def test_one_layer_minor_entry_is_never_suppressed():
    """Audit of the link's wrong model: by Theorem 4.1 the minor entry only decays."""
    rng = np.random.default_rng(0)
    a, t = np.array([1.25, 4.25, 0.0]) / 3, np.geomspace(1e-3, 50, 200)
    for _ in range(200):
        W0 = rng.normal(0, 0.5, (3, 3))
        W = np.stack([one_layer_output(W0, a, e, t).output for e in np.eye(3)], axis=-1)
        st = jacobian_stages(t, W[:, 1, 1], W[:, 0, 0], W[:, 0, 1])
        assert not st.suppressed


# --------------------------------------------------------------- functions
def test_equal_signal_a():
    np.testing.assert_allclose(equal_signal_a([4.0, 2.0, 0.5], 2), [3.0, 3.0, 0.5])


def test_shifted_minor_record_keeps_loss_and_major_entries():
    rec = THEORY_SETTINGS["fig8_script"].run("authors", iterate="U", seeds=[0], record_every=100).pick(0)
    sh = shifted_minor_record(rec, seed=3)
    np.testing.assert_array_equal(sh.test_loss, rec.test_loss)
    np.testing.assert_array_equal(np.diagonal(sh.W, axis1=1, axis2=2), np.diagonal(rec.W, axis1=1, axis2=2))
    assert not np.array_equal(sh.W[:, 0, 1], rec.W[:, 0, 1])
    assert sorted(sh.W[:, 0, 1]) == sorted(rec.W[:, 0, 1])  # a circular shift


def test_failure_units_bad_input():
    fig10 = THEORY_SETTINGS["fig10"]
    with pytest.raises(ValueError, match="minor_growth"):
        failure_units(fig10, [0], minor_growth=1.0)
    with pytest.raises(ValueError, match="major_drop"):
        failure_units(fig10, [0], major_drop=1.0)
    with pytest.raises(ValueError, match="horizon"):
        failure_units(THEORY_SETTINGS["fig10"], [0], horizon=-1.0)
    with pytest.raises(ValueError, match="setting"):
        descent_units("fig8", [0])


def test_e1_passes_and_every_variant_fails_somewhere():
    blocks = [range(0, 500), range(500, 1000), range(1000, 1500)]
    units = e1_units(3, (3, 30, 300), 0.1, blocks)
    assert units.k == 3 and units.variants_passing == 0 and units.n_variants == len(E1_FORMULAS) - 1
    with pytest.raises(ValueError, match="seeds_per_width"):
        e1_units(3, (3, 30), 0.1, blocks)
    with pytest.raises(ValueError, match="d_primes"):
        e1_units(3, (2, 30, 300), 0.1, blocks)
    with pytest.raises(ValueError, match="tau"):
        e1_units(3, (3, 30, 300), 0.0, blocks)


def test_width_counts_narrow_swings_more_than_wide():
    res = width_counts((1.0, 1.5), 0.05, 3, (3, 48), (0.04,), [range(0, 100), range(100, 200)])
    assert res.n_swing.shape == (2, 1) and res.n_swing[0, 0] > res.n_swing[1, 0]
    np.testing.assert_allclose(res.percent, res.n_swing)
    with pytest.raises(ValueError, match="seeds_per_width"):
        width_counts((1.0, 1.5), 0.05, 3, (3, 48), (0.04,), [range(10), range(10, 15)])
    with pytest.raises(ValueError, match="w0s"):
        width_counts((1.0, 1.5), 0.05, 3, (3, 48), (0.0,), [range(10), range(10, 20)])


def test_judgement_table():
    from swingby.verdicts import judge, judgement_table

    text = judgement_table([("Fig. 8", judge("subtle", 12, 100, 0, 100, pairs=(12, 0)))], wrong_model="equal")
    assert "| Fig. 8 | 12 of 100 | 0 of 100 |" in text and "**reproduced** (subtle)" in text
    assert "p (share)" in text and "equal" in text.splitlines()[0]
    plain = judgement_table([("a", judge("comparative", 20, 100, 0, 100))])
    assert "p (share)" not in plain
    with pytest.raises(ValueError, match="rows"):
        judgement_table([])
    with pytest.raises(ValueError, match="rows"):
        judgement_table([("a", 3)])
    with pytest.raises(ValueError, match="setting"):
        judgement_table([("a", judge("comparative", 20, 100, 0, 100))], setting=3)


def test_judge_units_paired():
    from swingby.verdicts import judge_units

    j = judge_units("possibility", np.array([True] * 8 + [False] * 2), np.zeros(10, bool), paired=True)
    assert (j.k, j.n, j.null_k, j.null_n, j.word) == (8, 10, 0, 10, "reproduced")
    with pytest.raises(ValueError, match="passes and null_passes"):
        judge_units("typical", np.ones(3, bool), np.ones(4, bool), paired=True)
    with pytest.raises(ValueError, match="passes must be"):
        judge_units("typical", np.ones(3), np.ones(3), paired=True)


