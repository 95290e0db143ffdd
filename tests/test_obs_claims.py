"""The observation chapter's claim checks (``swingby.observations.claim_checks``,
``swingby.observations.slowing``), on old seeds only, and the null audits their
docstrings state."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.claims import observations as reg
from swingby.observations import claim_checks as C
from swingby.observations.ood import relative_distance
from swingby.observations.rules import OBS_RULES as R
from swingby.observations.runs import EQUAL_MU, FIG2A, FIG2B, run_seed, run_sweep
from swingby.observations.slowing import normalised_sgd_sweep, terminal_slowing
from swingby.verdicts import FORMS


def test_equal_signal_audit_as_the_docstring_says():
    audit = C.equal_signal_audit()
    assert audit.n == 200 and audit.equal == 0 and audit.max_rise_equal < 1e-12
    assert audit.unequal > 50


def test_discriminating_configurations():
    idx = C.discriminating()
    assert [C.ORDER_CONFIGS[i] for i in idx] == [FIG2B[4]] + EQUAL_MU


def test_normalised_sgd_is_a_model_without_terminal_phase():
    recs = normalised_sgd_sweep([FIG2A[0]], depth=1, seeds=[0, 1], lr=R.slow_null_lr, stream=2)[0]
    for rec in recs:
        assert relative_distance(rec) < 0.02  # it converges to x_hat ...
        check = terminal_slowing(rec, max_ratio=R.slowdown_one, band_low=R.slow_band_low,
                                 min_gradual=R.slow_min_gradual)
        assert check.ratio < R.slowdown_one  # ... passes the bare late / largest check ...
        assert check.gradual <= 1 and not check.passes  # ... but does not slow gradually


def test_activation_is_part_of_the_run_seed():
    linear = run_seed(3, 0, d=64, depth=2)
    assert linear == run_seed(3, 0, d=64, depth=2, activation="linear")
    assert run_seed(3, 0, d=64, depth=2, activation="relu") != linear
    with pytest.raises(ValueError, match="activation"):
        run_sweep(FIG2A, d=4, seeds=[0], seeding="independent", activation="tanh")


def test_units_and_reach_units():
    u = C.Units(9, 10, 1, 10)
    assert u.judge("typical").word == "reproduced"
    recs = normalised_sgd_sweep([FIG2A[0]], depth=1, seeds=[0, 1], lr=R.slow_null_lr)[0]
    units = C.reach_units(recs, recs, level=0.05)
    assert units.k == units.null_k == 2 and units.pairs == (0, 0)
    with pytest.raises(ValueError, match="equally long"):
        C.reach_units(recs, recs[:1])
    with pytest.raises(ValueError, match="level"):
        C.reach_units(recs, recs, level=0)


def test_count_nonmonotone_and_bad_arguments():
    recs = normalised_sgd_sweep([FIG2A[0]], depth=1, seeds=[0], lr=R.slow_null_lr)[0]
    assert C.count_nonmonotone(recs) in (0, 1)
    with pytest.raises(ValueError, match="threshold"):
        C.count_nonmonotone(recs, threshold=-1)
    with pytest.raises(ValueError, match="records"):
        C.count_nonmonotone(recs[0])
    with pytest.raises(ValueError, match="activations"):
        C.order_and_slowing([0], activations="linear")
    with pytest.raises(ValueError, match="rules"):
        C.order_and_slowing([0], rules=object())


def test_terminal_slowing_on_an_exponential_and_a_stop():
    recs = normalised_sgd_sweep([FIG2A[0]], depth=1, seeds=[0], lr=R.slow_null_lr)[0]
    rec = recs[0]
    t = rec.steps / rec.steps[-1]
    exp_out = rec.outputs.copy()
    exp_out[:, -1] = rec.test_points[-1] * (1 - np.exp(-8 * t))[:, None]
    stop_out = rec.outputs.copy()
    stop_out[:, -1] = rec.test_points[-1] * np.minimum(t / 0.3, 1)[:, None]
    exp_rec = type(rec)(rec.steps, rec.epochs, exp_out, rec.test_points, rec.test_index, rec.test_loss,
                        rec.train_loss, rec.config)
    stop_rec = type(rec)(rec.steps, rec.epochs, stop_out, rec.test_points, rec.test_index, rec.test_loss,
                         rec.train_loss, rec.config)
    assert terminal_slowing(exp_rec).passes
    stop = terminal_slowing(stop_rec)
    assert stop.ratio < 0.02 and not stop.passes


def test_register_is_well_formed():
    keys = [(c.key, c.form) for c in reg.CLAIMS]
    assert len(set(keys)) == len(keys) and all(k.startswith("claim-obs-") for k, _ in keys)
    assert all(c.form in FORMS for c in reg.CLAIMS)


def test_designs_have_power_on_the_old_rates():
    from swingby.verdicts import binomial_power, fisher_power
    assert fisher_power(0.19, R.swing_units_low, 0.08, R.swing_units_null) > 0.8  # old 19 / 100 vs 8 / 100
    assert fisher_power(0.19, R.swing_units_low, 0.0, R.swing_units_high) > 0.8  # old 19 / 100 vs 0 / 20
    assert fisher_power(0.13, 2 * R.fig13_units_per_mu, 0.0, 2 * R.fig13_comparator_units_per_mu) > 0.8
    assert binomial_power(0.75, 3 * R.order_units_per_config) > 0.8
    assert binomial_power(0.75, 6 * R.two_units_per_config) > 0.8


def test_null_designs_have_power_on_the_old_rates():
    from swingby.verdicts import fisher_power
    assert fisher_power(0.95, 3 * R.order_units_per_config, 0.1, 3 * R.null_units_per_config) > 0.8
    assert fisher_power(0.95, 6 * R.two_units_per_config, 0.1, 6 * R.two_slow_null_units_per_config) > 0.8
    assert fisher_power(0.95, 6 * R.two_units_per_config, 0.25, 6 * R.two_units_per_config) > 0.8


def test_plot_slowing_panels():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from swingby.observations.chapter_figures import plot_slowing_panels
    recs = normalised_sgd_sweep([FIG2A[0]], depth=1, seeds=[0], lr=R.slow_null_lr)[0]
    plt.close(plot_slowing_panels(recs, recs))
    for bad in ((0.5, 0.1), (0, 0.5), "ab", 3):
        with pytest.raises(ValueError, match="band"):
            plot_slowing_panels(recs, recs, band=bad)
