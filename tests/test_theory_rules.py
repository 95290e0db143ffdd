"""The theory rules: fixed thresholds, the equivalent mu, the timing check."""
import numpy as np
import pytest

from swingby.sim.symmetric import dynamics_a, equivalent_mu, simulate_symmetric
from swingby.theory import rules as tr
from swingby.theory.settings import THEORY_SETTINGS
from swingby.theory.stages import detect_stages


def test_the_rules_are_frozen_and_their_fingerprint_stays():
    from swingby.verdicts import fingerprint

    assert fingerprint({"class": "TheoryRules", **tr.values()}) == "95df44041b80922e"
    assert tr.values()["one_layer"]["gd_steps"] == (2e-3, 1e-3)
    with pytest.raises(dataclasses_error()):
        tr.THEORY_RULES.alpha = 0.1


def dataclasses_error():
    import dataclasses
    return dataclasses.FrozenInstanceError


def test_equivalent_mu_gives_the_authors_ratios():
    for f in THEORY_SETTINGS.values():
        eq = equivalent_mu(f.mu, f.sigma, f.d, origin_cluster=f.origin_cluster)
        a_eq = dynamics_a(eq.mu, f.sigma, f.d, matrix="paper", origin_cluster=f.origin_cluster)[:f.s]
        a_auth = f.a("authors")[:f.s]
        np.testing.assert_allclose(a_eq / a_eq[0], a_auth / a_auth[0], rtol=1e-10)
        np.testing.assert_allclose(a_auth[0] / a_eq[0], eq.time_factor, rtol=1e-12)
        assert eq.mu[0] == pytest.approx(f.mu[0])
    fig5 = THEORY_SETTINGS["fig5"]
    assert equivalent_mu(fig5.mu, fig5.sigma, 3, origin_cluster=True).mu[1] == pytest.approx(2.25, abs=0.01)


def test_equivalent_mu_same_dynamics():
    # the paper's A at the equivalent mu, run for t / time_factor, is the authors' W(t)
    f = THEORY_SETTINGS["fig5"]
    eq = equivalent_mu(f.mu, f.sigma, 2)
    a_auth = dynamics_a(f.mu, f.sigma, 2)
    a_eq = dynamics_a(eq.mu, f.sigma, 2, matrix="paper")
    U0 = f.U0()[:2, :2]
    r1 = simulate_symmetric(U0, a_auth, 0.01, 400, np.array(f.mu), iterate="U")
    r2 = simulate_symmetric(U0, a_eq, 0.01 * eq.time_factor, 400, np.array(eq.mu), iterate="U")
    np.testing.assert_allclose(r1.W[-1], r2.W[-1], atol=1e-10)


def test_equivalent_mu_bad_input():
    with pytest.raises(ValueError, match="ref"):
        equivalent_mu((1.0, 2.0), 0.05, 2, ref=5)
    with pytest.raises(ValueError, match="mu"):
        equivalent_mu((-1.0, 2.0), 0.05, 2)


def test_frequency():
    f = tr.frequency(152, 200)
    assert f.percent == 76.0 and f.low < 76 < f.high and f.p_typical <= 0.05
    assert tr.frequency(52, 200).p_typical > 0.05
    with pytest.raises(ValueError, match="k"):
        tr.frequency(5, 3)


def test_suppression_timing_passes_authors_run_and_fails_its_shifts():
    f = THEORY_SETTINGS["fig5"]
    rec = f.run("authors")
    st = detect_stages(rec, 2)
    assert tr.ascent_groups(st) == [[(0, 1)]]
    assert tr.suppression_timing(rec, st) == [True]
    assert tr.shifted_timing(rec, st, seed=0) < 0.5


def test_phase_diagrams_share_seeds_across_widths(monkeypatch):
    """Every width draws seeds 0..n-1 (shared random streams, a paired design)."""
    import swingby.theory.statistics as st
    used = []
    real = st.initial_U

    def spy(d, seeds, **kw):
        used.append(list(seeds))
        return real(d, seeds, **kw)

    monkeypatch.setattr(st, "initial_U", spy)
    st.phase_diagram([1.0, 1.5], 0.05, (2, 3), (0.1,), n_seeds=3, steps=20)
    assert used == [[0, 1, 2], [0, 1, 2]]
    # the shared default: seed k of every width starts from the same generator state, so
    # the draws overlap (here the first 16 of 36 entries at d' = 12 are those at d' = 48)
    narrow = real(3, [0], d_prime=12, init="gaussian", init_scale=1.0)[0]
    wide = real(3, [0], d_prime=48, init="gaussian", init_scale=1.0)[0]
    assert np.allclose(narrow.ravel()[:16], wide.ravel()[:16])


def test_paired_p():
    a = np.array([True] * 30 + [False] * 10)
    assert tr.paired_p(a, a) == 1.0
    assert tr.paired_p(a, ~a) < 0.01  # 30 against 10 discordant pairs
    with pytest.raises(ValueError, match="boolean"):
        tr.paired_p([1, 0], [0, 1])
    with pytest.raises(ValueError, match="one length"):
        tr.paired_p(a, a[:3])
