"""The one-layer chapter's checks (swingby.theory.one_layer_checks): each can fail, each
wrong model is judged by the same conditions and lacks the mechanism its null audit
names (checked on old seeds, never on fresh ones), bad arguments are refused."""
from dataclasses import replace

import numpy as np
import pytest

from swingby.sim.data import second_moment
from swingby.theory import one_layer_checks as OL
from swingby.theory import rules as tr
from swingby.theory.one_layer import one_layer_output

R = OL.ONE_LAYER_RULES


def test_the_rules_keep_the_chapters_thresholds_and_enter_the_theory_rules():
    assert (R.gd_error_max, R.gd_ratio_band, R.trained_err_max) == (1e-3, (1.8, 2.2), 0.03)
    assert R.order_margin == 1.2 and R.n_order_seeds * len(OL.clear_configs()) >= 59 and R.n_monotone >= 59
    assert tr.values()["one_layer"]["gd_steps"] == R.gd_steps == (2e-3, 1e-3)


def test_gradient_descent_draws_pass_and_the_wrong_variants_do_not_and_the_check_can_fail():
    g = OL.gd_draws(range(3))
    assert g.k == g.n == 3 and g.null_n == 3 * len(OL.THM41_VARIANTS) and g.null_k == 0 and not g.paired
    assert g.judge("identity").word == "reproduced"
    assert OL.gd_draws(range(2), replace(R, gd_error_max=1e-9)).k == 0
    with pytest.raises(ValueError, match="d must"):
        OL.gd_draws(range(2), d=2)
    with pytest.raises(ValueError, match="seeds"):
        OL.gd_draws([1, 1])


def _run(times=(3.0, 1.0), wrong=(1.0, 3.0), gap=0.01, wrong_gap=0.05, a=(0.5, 1.5)):
    return OL.OrderRun(np.array(a), np.array(times), np.array(wrong), gap, wrong_gap)


def test_trained_counts_need_the_path_within_trained_err_max_of_its_closed_form():
    c = OL.trained_counts([_run(), _run(gap=0.04), _run(wrong_gap=0.02)])
    assert c.passes.tolist() == [True, False, True] and c.null_passes.tolist() == [False, False, True]
    assert c.paired
    with pytest.raises(ValueError, match="runs"):
        OL.trained_counts([])
    with pytest.raises(ValueError, match="runs"):
        OL.trained_counts([{"gap": 0.0}])


def test_order_counts_need_the_larger_a_strictly_first():
    runs = [_run(), _run(times=(1.0, 3.0)), _run(times=(2.0, 2.0)), _run(wrong=(3.0, 1.0))]
    c = OL.order_counts(runs)
    assert c.passes.tolist() == [True, False, False, True] and c.null_passes.tolist() == [False, False, False, True]
    with pytest.raises(ValueError, match="runs"):
        OL.order_counts("no")


def test_signal_only_rates_depart_from_eq_42_at_the_authors_setting():
    # the null audit: without the diversity the closed form misses eq. (4.2) by more than
    # trained_err_max at mu = (1, 2) with the authors' sigma (from zero weights)
    from swingby.sim.data import std_from_authors_sigma

    mu, s, d = (1.0, 2.0), std_from_authors_sigma(0.05), 64
    x_hat = np.zeros(d)
    x_hat[:2] = mu
    t = np.linspace(0, 0.1 * 118 * R.order_epochs * 2 / d, 200)  # the order runs' time
    a, a_sig = second_moment(mu, (s, s), d, origin_cluster=True), OL._signal_only(mu, d)
    gap = np.abs(one_layer_output(np.zeros((d, d)), a, x_hat, t).output
                 - one_layer_output(np.zeros((d, d)), a_sig, x_hat, t).output).max()
    assert gap > R.trained_err_max


def test_signal_only_rates_reverse_the_order_where_sigma_does():
    configs = OL.clear_configs()
    assert len(configs) == 5
    reversed_ = [c for c in configs if (second_moment(c["mu"], c["sigma"], 2, origin_cluster=True)[0]
                                        > second_moment(c["mu"], c["sigma"], 2, origin_cluster=True)[1])
                 and c["mu"][0] < c["mu"][1]]
    assert len(reversed_) == 1
    a_sig = OL._signal_only(reversed_[0]["mu"], 2)
    assert a_sig[1] > a_sig[0]  # the wrong model learns concept 2 first


def test_order_runs_on_one_old_seed_follow_a_and_the_closed_form():
    runs = OL.order_runs([0])
    order, trained = OL.order_counts(runs), OL.trained_counts(runs)
    assert order.n == 5 and order.k == 5 and order.null_k == 4  # the wrong model fails the reversal
    assert trained.k == 5 and trained.null_k == 0
    with pytest.raises(ValueError, match="seeds"):
        OL.order_runs([])


def test_one_layer_is_monotone_where_two_layers_swing_by():
    c = OL.monotone_counts(range(40))
    assert c.k == 40 and c.null_k < 20 and c.paired  # the null audit: two layers swing by in most runs
    with pytest.raises(ValueError, match="rules"):
        OL.monotone_counts(range(2), rules=None)
