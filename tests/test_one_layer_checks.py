"""The one-layer chapter's checks (swingby.theory.one_layer_checks): each can fail, each
null is judged by the same conditions, bad arguments are refused."""
from dataclasses import replace

import numpy as np
import pytest

from swingby.theory import one_layer_checks as OL

R = OL.ONE_LAYER_RULES


def test_the_rules_keep_the_chapters_earlier_values_and_have_a_fingerprint():
    assert (R.gd_error_max, R.gd_ratio_band, R.trained_err_max, R.mismatch_err_min) == (1e-3, (1.8, 2.2), 0.03, 0.1)
    assert (R.order_margin, R.time_rel_tol) == (1.2, 0.1)
    assert len(OL.fingerprint()) == 16 and OL.fingerprint() != OL.fingerprint(replace(R, n_draws=21))
    with pytest.raises(ValueError, match="rules"):
        OL.fingerprint({})


def test_gradient_descent_draws_pass_and_the_wrong_rate_does_not_and_the_check_can_fail():
    g = OL.gd_draws(replace(R, n_draws=3))
    assert g["passes"].all() and not g["null_passes"].any()
    assert not OL.gd_draws(replace(R, n_draws=3, gd_error_max=1e-9))["passes"].any()
    with pytest.raises(ValueError, match="d must"):
        OL.gd_draws(d=2)


def _errs(plain0=0.01, aug0=0.2, null0=0.3, plain1=0.2, aug1=0.01, null1=0.3):
    return {False: {"plain": plain0, "aug": aug0, "null": null0},
            True: {"plain": plain1, "aug": aug1, "null": null1}}


def test_trained_pass_needs_each_run_on_its_own_form_and_off_the_other():
    assert OL.trained_pass(_errs()) == (True, False)
    assert OL.trained_pass(_errs(aug0=0.05)) == (False, False)  # the other form is too close
    assert OL.trained_pass(_errs(aug1=0.04)) == (False, False)  # the run is off its own form
    assert OL.trained_pass(_errs(null0=0.01, null1=0.02)) == (True, True)  # the null follows both runs
    with pytest.raises(ValueError, match="errs"):
        OL.trained_pass({False: {}})


def _row(mu, a, measured, predicted=None):
    return ({"mu": mu}, np.array(a), np.array(measured, float),
            np.array(measured if predicted is None else predicted, float))


def test_order_pass_follows_a_and_the_signal_only_null_fails_the_reversal():
    rows = [_row((1.0, 2.0), (0.5, 1.5), (3.0, 1.0)), _row((1.0, 2.0), (2.0, 1.5), (1.0, 3.0))]
    assert OL.order_pass(rows, 0.1) == (True, False)  # the reversal: a says concept 1, mu says 2
    assert OL.order_pass(rows[:1], 0.1) == (True, True)
    wrong = [_row((1.0, 2.0), (0.5, 1.5), (1.0, 3.0))]  # the smaller a first
    assert OL.order_pass(wrong, 0.1)[0] is False
    off = [_row((1.0, 2.0), (0.5, 1.5), (3.0, 1.0), (4.0, 1.0))]  # a learning time predicted 33 % off
    assert OL.order_pass(off, 0.1)[0] is False
    equal_mu = [_row((1.0, 1.0), (0.5, 1.5), (3.0, 1.0))]  # the null cannot be contradicted there
    assert OL.order_pass(equal_mu, 0.1) == (True, True)
    with pytest.raises(ValueError, match="rows"):
        OL.order_pass([], 0.1)
    with pytest.raises(ValueError, match="spacing"):
        OL.order_pass(rows, -1.0)


def test_trained_seed_errors_refuses_repeated_seeds():
    with pytest.raises(ValueError, match="seeds"):
        OL.trained_seed_errors([1, 1])
