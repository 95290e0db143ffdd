"""Unit tests of swingby.theory (Sec. 4, App. C-E)."""
import warnings

import numpy as np
import pytest
import torch

from swingby.sim.data import second_moment
from swingby.sim.symmetric import (
    gsn_terms,
    initial_U,
    population_loss,
    simulate_symmetric,
    symmetric_step,
    u_step_to_w_eta,
)
from swingby.theory.one_layer import (
    augmented_moment,
    mean_vector,
    one_layer_output,
    one_layer_output_with_bias,
)
from swingby.theory.settings import THEORY_SETTINGS, check_assumptions
from swingby.theory.stages import (
    LossSegment,
    count_descents,
    detect_stages,
    loss_turning_points,
    stage_alignment,
)
from swingby.theory.statistics import descent_statistics

RNG = np.random.default_rng(0)


def _sym(d, scale=0.3, rng=RNG):
    U = rng.normal(size=(d, d)) * scale
    return U @ U.T


# ---------------------------------------------------------------- one layer (Thm 4.1)
def test_one_layer_shapes_and_split():
    d = 5
    W0, a, z = RNG.normal(size=(d, d)) * 0.1, np.array([2.0, 1.0, 0.5, 0.0, 0.0]), np.arange(1.0, 6.0)
    out = one_layer_output(W0, a, z, np.linspace(0, 3, 7))
    assert out.output.shape == out.growth.shape == out.noise.shape == (7, d)
    np.testing.assert_allclose(out.output, out.growth + out.noise)
    np.testing.assert_allclose(out.output[0], W0 @ z)  # t = 0: the initial model
    single = one_layer_output(W0, a, z, 1.5)
    assert single.output.shape == (d,)
    # t -> infinity: identity on the informative directions, W0 z on the others
    late = one_layer_output(W0, a, z, 1e4).output
    np.testing.assert_allclose(late[:3], z[:3] + (W0[:3, 3:] @ z[3:]), atol=1e-9)


def test_one_layer_matches_numerical_integration():
    """Theorem 4.1 against a fine Euler integration of dW/dt = -(W - I) A."""
    d = 4
    a = np.array([1.3, 0.7, 0.2, 0.0])
    W0 = RNG.normal(size=(d, d)) * 0.2
    z = np.array([1.0, -2.0, 0.5, 0.3])
    h, T = 1e-4, 3.0
    W = W0.copy()
    for _ in range(int(round(T / h))):
        W = W - h * (W - np.eye(d)) * a  # (W - I) A with A diagonal
    closed = one_layer_output(W0, a, z, T).output
    np.testing.assert_allclose(W @ z, closed, atol=2e-4)
    # a wrong rate (exp(-2 a t)) is far off
    wrong = one_layer_output(W0, 2 * a, z, T).output
    assert np.abs(wrong - W @ z).max() > 0.05


def test_one_layer_bad_input():
    with pytest.raises(ValueError, match="W0"):
        one_layer_output(np.zeros((3, 4)), [1, 1, 1], [1, 1, 1], 1.0)
    with pytest.raises(ValueError, match="z"):
        one_layer_output(np.zeros((3, 3)), [1, 1, 1], [1, 1], 1.0)
    with pytest.raises(ValueError, match="t"):
        one_layer_output(np.zeros((3, 3)), [1, 1, 1], [1, 1, 1], -1.0)
    with pytest.raises(ValueError, match="a"):
        one_layer_output(np.zeros((3, 3)), [1, -1, 1], [1, 1, 1], 1.0)


# --------------------------------------------------------------- two layer (D.2, 4.3)
@pytest.mark.parametrize("d", [1, 2, 3, 6])
def test_gsn_identity(d):
    a = RNG.uniform(0.0, 2.0, size=d)
    W = _sym(d)
    G, S, N = gsn_terms(W, a)
    eta = 0.01
    np.testing.assert_allclose(W + eta * (G - S - N), symmetric_step(W, a, eta), atol=1e-14)
    # and the matrix form of (D.2) written out independently
    A = np.diag(a)
    rhs = W @ A + A @ W - 0.5 * (A @ W @ W + W @ W @ A + 2 * W @ A @ W)
    np.testing.assert_allclose(G - S - N, rhs, atol=1e-13)


def test_gsn_entries_by_hand():
    a = np.array([3.0, 1.0, 0.5])
    W = np.array([[0.5, 0.1, 0.2], [0.1, 0.4, -0.3], [0.2, -0.3, 0.6]])
    G, S, N = gsn_terms(W, a)
    assert G[0, 1] == pytest.approx(0.1 * 4.0)
    assert S[0, 1] == pytest.approx(0.5 * 0.1 * (0.5 * 10.0 + 0.4 * 6.0))
    assert S[0, 0] == pytest.approx(0.5 * 0.5 * 0.5 * 12.0)  # no second term on the diagonal
    assert N[0, 1] == pytest.approx(0.5 * 0.2 * (-0.3) * (3 + 1 + 1))  # k = 2 only
    assert G.shape == S.shape == N.shape == (3, 3)
    batch = gsn_terms(np.stack([W, 2 * W]), a)
    np.testing.assert_allclose(batch.G[1], 2 * G)


def test_time_scale_factor_against_autograd():
    """A gradient step on U (loss 4.1) equals (D.2) with eta = 2 lr up to O(lr^2)."""
    d = 3
    a = np.array([1.2, 0.6, 0.1])
    U0 = torch.tensor(RNG.uniform(size=(d, d)) * 0.3, dtype=torch.float64)
    root = torch.diag(torch.tensor(np.sqrt(a)))
    errs = []
    for lr in (1e-3, 5e-4):
        U = U0.clone().requires_grad_(True)
        loss = 0.5 * (((U @ U.T - torch.eye(d, dtype=torch.float64)) @ root) ** 2).sum()
        (g,) = torch.autograd.grad(loss, U)
        U1 = (U0 - lr * g).numpy()
        W0 = (U0 @ U0.T).numpy()
        W_torch = U1 @ U1.T
        errs.append(np.abs(W_torch - symmetric_step(W0, a, u_step_to_w_eta(lr))).max())
        assert np.abs(W_torch - symmetric_step(W0, a, lr)).max() > 50 * errs[-1]
    assert errs[0] / errs[1] == pytest.approx(4.0, rel=0.05)  # second order in lr


def test_simulate_shapes_and_batch_consistency():
    a = second_moment([1.0, 1.5], 0.05, 3, origin_cluster=True)
    x_hat = np.array([1.0, 1.5, 0.0])
    U = initial_U(3, [0, 1, 2])
    assert U.shape == (3, 3, 3)
    batch = simulate_symmetric(U, a, 0.01, 300, x_hat, record_every=7)
    assert batch.steps[0] == 0 and batch.steps[-1] == 300
    R = batch.steps.size
    assert batch.W.shape == (3, R, 3, 3) and batch.output.shape == (3, R, 3)
    assert batch.test_loss.shape == batch.train_loss.shape == (3, R)
    one = simulate_symmetric(U[1], a, 0.01, 300, x_hat, record_every=7)
    assert one.W.shape == (R, 3, 3)
    np.testing.assert_allclose(one.W, batch.W[1], atol=1e-14)
    # the recorded W is the iterated symmetric_step
    W = U[1] @ U[1].T
    for _ in range(7):
        W = symmetric_step(W, a, 0.01)
    np.testing.assert_allclose(one.W[1], W, atol=1e-14)
    np.testing.assert_allclose(one.test_loss, 0.5 * ((one.W @ x_hat - x_hat) ** 2).sum(-1))
    # U-iteration: same dynamics up to O(eta)
    viaU = simulate_symmetric(U[1], a, 0.01, 300, x_hat, record_every=7, iterate="U")
    assert np.abs(viaU.W - one.W).max() < 5e-3


def test_converges_to_identity_and_train_loss_monotone():
    a = second_moment([1.0, 1.5], 0.05, 2)
    rec = simulate_symmetric(initial_U(2, [3])[0], a, 0.01, 3000, np.array([1.0, 1.5]))
    np.testing.assert_allclose(rec.W[-1], np.eye(2), atol=1e-3)
    assert np.all(np.diff(rec.train_loss) <= 1e-15)


def test_a_step_that_overflows_is_refused():
    with pytest.raises(ValueError, match="W is too large"):
        symmetric_step(np.full((2, 2), 1e200), [1.0, 0.5], 0.01)


def test_a_diverging_simulation_warns_with_the_stable_step():
    a = np.array([1.0, 0.5])
    with pytest.warns(RuntimeWarning, match=r"eta < 1 / max\(a\) = 1"):
        rec = simulate_symmetric(np.eye(2) * 0.5, a, 3.0, 200, [1.0, 1.0], iterate="U")
    assert not np.all(np.isfinite(rec.test_loss))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simulate_symmetric(np.eye(2) * 0.5, a, 0.5, 200, [1.0, 1.0], iterate="U")  # stable: no warning


def test_simulate_bad_input():
    a = [1.0, 0.5]
    with pytest.raises(ValueError, match="eta"):
        simulate_symmetric(np.eye(2), a, -0.1, 10, [1, 1])
    with pytest.raises(ValueError, match="eta"):
        symmetric_step(np.eye(2), a, 0.0)
    with pytest.raises(ValueError, match="U0"):
        simulate_symmetric(np.eye(3), a, 0.1, 10, [1, 1])
    with pytest.raises(ValueError, match="x_hat"):
        simulate_symmetric(np.eye(2), a, 0.1, 10, [1, 1, 1])
    with pytest.raises(ValueError, match="W"):
        symmetric_step(np.eye(3), a, 0.1)
    with pytest.raises(ValueError, match="W"):
        gsn_terms(np.ones((2, 3)), a)
    with pytest.raises(ValueError, match="steps"):
        simulate_symmetric(np.eye(2), a, 0.1, 0, [1, 1])
    with pytest.raises(ValueError, match="iterate"):
        simulate_symmetric(np.eye(2), a, 0.1, 5, [1, 1], iterate="V")


# ------------------------------------------------------------------------- stages
def test_turning_points_and_descents():
    t = np.linspace(0, 1, 400)
    bump = np.exp(-5 * t) + 0.3 * np.exp(-((t - 0.6) / 0.05) ** 2)
    assert count_descents(bump)[0] == 2
    assert count_descents(np.exp(-3 * t))[0] == 1
    assert count_descents(bump, rel_tol=0.5)[0] == 1  # the bump is below a 50 % tolerance
    pts = loss_turning_points(bump, 0.01)
    assert pts[0] == 0 and pts[-1] == len(t) - 1 and len(pts) == 4
    np.testing.assert_array_equal(count_descents(np.stack([bump, np.exp(-t)])), [2, 1])


def test_detect_stages_on_a_swing_by_trajectory():
    a = second_moment([1.0, 1.5], 0.05, 3, origin_cluster=True)
    x_hat = np.array([1.0, 1.5, 0.0])
    rec = simulate_symmetric(initial_U(3, [8])[0], a, 0.01, 2000, x_hat)
    st = detect_stages(rec, 2)
    assert st.n_descents == 2 and len(st.ascents) == 1
    assert st.growth_order == [1, 0]  # the larger a_p grows first
    seg = st.ascents[0]
    assert isinstance(seg, LossSegment) and seg.kind == "ascent"
    assert seg.t_start < st.growth[0] and st.growth[1] < seg.t_start
    kind, t0, t1, loss0, loss1 = seg  # still unpacks like a tuple (swingby.theory.plots reads it so)
    assert (t0, loss1) == (seg.t_start, seg.loss_end) and loss1 > loss0
    assert st.loss_segments[0].kind == "descent" and st.s == 2
    assert st.failed == []
    with pytest.raises(ValueError, match="s must be"):
        detect_stages(rec, 4)


# -------------------------------------------------------------------- assumptions
def test_check_assumptions_reports_each_inequality():
    a = np.array([4.0, 1.0])
    ok = check_assumptions(a, omega=1e-30, eta=1e-5, d=2, P=1e6, kappa=1.11)
    assert set(ok) >= {"D.2 eta <= 1/(9 K gamma alpha)", "D.3 P omega beta <= 0.4"}
    d2 = ok["D.2 eta <= 1/(9 K gamma alpha)"]
    assert d2.holds and d2.margin == pytest.approx(d2.rhs - d2.lhs) and d2.ratio < 1
    assert ok.constants.alpha == 1.0 and ok.constants.gamma == 4.0 and ok.constants.d == 2
    fig5 = check_assumptions(second_moment([1.0, 1.5], 0.05, 3, origin_cluster=True), omega=0.01, eta=0.01)
    assert not fig5.all_hold
    assert not fig5["D.1 (a_k > 0 for every k)"].holds
    big_eta = check_assumptions(a, omega=1e-3, eta=1.0)
    assert big_eta["D.2 eta <= 1/(9 K gamma alpha)"].ratio > 1
    with pytest.raises(ValueError, match="eta"):
        check_assumptions(a, omega=1e-3, eta=-1.0)
    with pytest.raises(ValueError, match="omega"):
        check_assumptions(a, omega=0.0, eta=0.1)


def test_u_step_factor_and_initial_U():
    assert u_step_to_w_eta(0.05) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="lr"):
        u_step_to_w_eta(-1)
    U = initial_U(4, [0, 1], d_prime=6, init="gaussian", init_scale=0.1)
    assert U.shape == (2, 4, 6)
    np.testing.assert_array_equal(initial_U(4, 0, d_prime=6, init="gaussian", init_scale=0.1)[0], U[0])
    with pytest.raises(ValueError, match="seeds"):
        initial_U(3, [0.5])


def test_one_layer_with_bias():
    d = 4
    a = np.array([1.0, 0.5, 0.0, 0.0])
    W0 = RNG.normal(size=(d, d)) * 0.1
    z = np.array([1.0, 2.0, 0.0, 0.0])
    t = np.linspace(0, 5, 11)
    # centred data and no initial bias: the bias stays 0 and Theorem 4.1 holds
    np.testing.assert_allclose(one_layer_output_with_bias(W0, np.zeros(d), a, np.zeros(d), z, t),
                               one_layer_output(W0, a, z, t).output, atol=1e-12)
    # centred data: the bias decays as exp(-t)
    b0 = np.array([0.3, -0.2, 0.1, 0.0])
    diff = one_layer_output_with_bias(W0, b0, a, np.zeros(d), z, t) - one_layer_output(W0, a, z, t).output
    np.testing.assert_allclose(diff, np.exp(-t)[:, None] * b0, atol=1e-12)
    # against Euler integration of the augmented flow with a non-zero mean
    mean = np.array([0.5, 0.5, 0.0, 0.0])  # a covariance diag(a) - mean mean^T >= 0
    A = np.diag(a)
    W, b, h = W0.copy(), b0.copy(), 1e-4
    for _ in range(20000):  # t = 2
        err_W = (W - np.eye(d)) @ A + np.outer(b, mean)  # E[(W x + b - x) x^T]
        err_b = (W - np.eye(d)) @ mean + b  # E[W x + b - x]
        W, b = W - h * err_W, b - h * err_b
    np.testing.assert_allclose(W @ z + b, one_layer_output_with_bias(W0, b0, a, mean, z, 2.0), atol=5e-4)
    with pytest.raises(ValueError, match="mean"):
        one_layer_output_with_bias(W0, b0, a, np.zeros(3), z, 1.0)
    with pytest.raises(ValueError, match="mean is impossible"):  # E x_2 = 1 with E x_2^2 = 0.5
        one_layer_output_with_bias(W0, b0, a, np.array([0.5, 1.0, 0.0, 0.0]), z, 1.0)


def test_descent_statistics_and_the_first_growth():
    st = descent_statistics([1.0, 1.5], 0.05, 3, n_seeds=6, init_scale=0.2, steps=500, origin_cluster=True,
                            matrix="paper")
    assert st.n_descents.shape == st.unfinished.shape == st.diverged.shape == (6,)
    assert st.record.W.shape[0] == 6 and not st.diverged.any()
    assert np.all(st.n_descents >= 1)
    stages = detect_stages(st.record.pick(0), 2)
    assert stages.growth_order[0] == 1  # the concept with the larger a grows first
    with pytest.raises(ValueError, match="n_seeds"):
        descent_statistics([1.0, 1.5], 0.05, 3, n_seeds=0)
    # the default is the authors' A^2: the same seeds then run with a squared diagonal
    auth = descent_statistics([1.0, 1.5], 0.05, 3, n_seeds=2, init_scale=0.2, steps=50)
    np.testing.assert_allclose(auth.record.a, (np.array([0.5, 1.125, 0.0]) + 0.0025) ** 2)


# ------------------------------------------------- the authors' A^2 (their theory scripts)
def _authors_script_step(W, x_hat, sigma, eta):
    """A direct transcription of the update in the authors' theory scripts (Figs. 5, 8-10):
    A = diag(x_hat^2 / s + sigma^2), s = the number of non-zero entries of x_hat, and
    the update written with A^2 term by term as they do, in torch."""
    W = torch.as_tensor(W, dtype=torch.float64)
    x = torch.as_tensor(x_hat, dtype=torch.float64)
    s = int((x != 0).sum())
    A = torch.diag(x**2 / s + torch.as_tensor(sigma, dtype=torch.float64) ** 2)
    A2 = A**2  # elementwise square of a diagonal matrix = matrix square
    upd = W @ A2 + A2 @ W - W @ A2 @ W - (A2 @ (W @ W) + (W @ W) @ A2) / 2
    return (W + eta * upd).numpy()


@pytest.mark.parametrize("mu, sigma, d", [
    ((1.0, 1.5), 0.05, 3),  # Fig. 5: x_hat = (1, 1.5, 0), sigma^2 on the third axis too
    ((1.0, 1.7, 2.25), (0.5, 0.25, 0.25), 3),  # Fig. 8 script
    ((1.0, 1.5, 2.2, 2.7), 0.05, 4),  # Fig. 9
    ((0.7, 1.7, 3.0), 0.05, 3),  # Fig. 10
])
def test_authors_a_step_matches_their_update(mu, sigma, d):
    from swingby.sim.symmetric import authors_a
    U = np.random.default_rng(1).uniform(size=(d, d)) / 10
    W = U @ U.T
    x_hat = np.zeros(d)
    x_hat[: len(mu)] = mu
    ours = symmetric_step(W, authors_a(mu, sigma, d), 0.01)
    theirs = _authors_script_step(W, x_hat, np.broadcast_to(np.asarray(sigma, float), (d,)), 0.01)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-14)
    # and 300 steps stay together (the start of their figures' trajectories; with some
    # initialisations the W iteration of Fig. 10's setting leaves the PSD cone later on)
    Wo, Wt = W.copy(), W.copy()
    for _ in range(300):
        Wo = symmetric_step(Wo, authors_a(mu, sigma, d), 0.01)
        Wt = _authors_script_step(Wt, x_hat, np.broadcast_to(np.asarray(sigma, float), (d,)), 0.01)
    assert np.isfinite(Wo).all()
    np.testing.assert_allclose(Wo, Wt, rtol=0, atol=1e-12)


def test_authors_a_is_paper_a_squared_when_d_equals_s():
    from swingby.sim.symmetric import authors_a, dynamics_a
    mu, sigma = (0.7, 1.7, 3.0), 0.05
    np.testing.assert_allclose(authors_a(mu, sigma, 3), second_moment(mu, sigma, 3) ** 2)
    np.testing.assert_allclose(dynamics_a(mu, sigma, 3, matrix="paper"), second_moment(mu, sigma, 3))
    np.testing.assert_allclose(dynamics_a(mu, sigma, 3), authors_a(mu, sigma, 3))  # default: authors
    # Fig. 5: divisor s = 2, and sigma^2 on the non-informative third axis
    np.testing.assert_allclose(authors_a((1.0, 1.5), 0.05, 3),
                               (np.array([0.5, 1.125, 0.0]) + 0.0025) ** 2)


def test_dynamics_a_rejects_bad_arguments():
    from swingby.sim.symmetric import authors_a, dynamics_a
    with pytest.raises(ValueError, match="matrix"):
        dynamics_a((1.0, 2.0), 0.05, 2, matrix="squared")
    with pytest.raises(ValueError, match="origin_cluster"):
        dynamics_a((1.0, 2.0), 0.05, 2, matrix="authors", origin_cluster=True)
    with pytest.raises(ValueError, match="d >= s"):
        authors_a((1.0, 2.0, 3.0), 0.05, 2)
    with pytest.raises(ValueError, match="sigma"):
        authors_a((1.0, 2.0), (0.05, -1.0), 2)


def test_theory_settings_start_from_the_authors_initialisation():
    import torch

    from swingby.sim.symmetric import authors_a
    from swingby.theory.settings import THEORY_SETTINGS
    from swingby.theory.stages import detect_stages

    fig5 = THEORY_SETTINGS["fig5"]
    torch.manual_seed(fig5.seed)  # their script: set the seed, then torch.rand(3, 3) / 5
    np.testing.assert_allclose(fig5.U0(), (torch.rand(3, 3) / 5).double().numpy(), atol=1e-7)
    np.testing.assert_allclose(fig5.a("authors"), authors_a((1.0, 1.5), 0.05, 3))
    np.testing.assert_allclose(fig5.a("paper"), second_moment((1.0, 1.5), 0.05, 3, origin_cluster=True))
    assert fig5.U0(range(4)).shape == (4, 3, 3)
    # the authors' Fig. 5 run swings by with A^2 and not with the paper's A from the same start
    assert detect_stages(fig5.run("authors", record_every=10), 2).n_descents == 2
    assert detect_stages(fig5.run("paper", record_every=10), 2).n_descents == 1


def test_stage_alignment_needs_one_descent_per_growth():
    rec = THEORY_SETTINGS["fig5"].run("authors", record_every=5)
    st = detect_stages(rec, 2)
    assert stage_alignment(st, rec.a).in_descents
    # one descent cannot carry two growths
    flat = detect_stages(THEORY_SETTINGS["fig5"].run("paper", record_every=5), 2)
    assert flat.n_descents == 1 and not stage_alignment(flat, rec.a).in_descents


def test_escape_time_logistic_prediction():
    from swingby.sim.symmetric import simulate_symmetric
    from swingby.theory.stages import escape_time

    a = np.array([0.2, 1.0])
    U0 = np.diag([0.1, 0.1])  # diagonal W: each w_pp is exactly logistic
    rec = simulate_symmetric(U0, a, 0.001, 20_000, np.ones(2), record_every=100, iterate="U")
    short = simulate_symmetric(U0, a, 0.001, 2_000, np.ones(2), record_every=100, iterate="U")
    measured, predicted = escape_time(rec, 0), escape_time(short, 0)  # short run: w_11 < 1/2 at its end
    assert short.W[-1, 0, 0] < 0.5 and np.isfinite(predicted)
    assert abs(predicted - measured) < 0.15  # record spacing 0.1 plus O(eta)
    assert abs(measured - np.log(1 / 0.01 - 1) / (2 * 0.2)) < 0.15  # w(0) = 0.01
    with pytest.raises(ValueError, match="level"):
        escape_time(rec, 0, level=1.5)


def test_phase_diagram_shape_and_bad_input():
    from swingby.theory.statistics import phase_diagram

    pd_ = phase_diagram([1.0, 1.5], 0.05, (2, 3), (0.1, 0.3), n_seeds=10, steps=300)
    assert pd_.percent.shape == (2, 2) and np.all((pd_.percent >= 0) & (pd_.percent <= 100))
    with pytest.raises(ValueError, match="taus"):
        phase_diagram([1.0, 1.5], 0.05, (2,), (-0.1,), n_seeds=2, steps=10)
    with pytest.raises(ValueError, match="matrix"):
        phase_diagram([1.0, 1.5], 0.05, (2,), (0.1,), matrix="squared", n_seeds=2, steps=10)


# ------------------------------------------- helpers moved out of the theory chapters
def test_mean_vector_and_augmented_moment():
    m = mean_vector([1.0, 2.0], 3, 4)
    np.testing.assert_array_equal(m, [1 / 3, 2 / 3, 0.0, 0.0])
    a = np.array([0.5, 1.5, 0.1, 0.0])
    full = augmented_moment(a, m)
    assert full.shape == (5, 5)
    np.testing.assert_array_equal(full[:4, :4], np.diag(a))
    np.testing.assert_array_equal(full[4], np.append(m, 1.0))
    np.testing.assert_array_equal(full, full.T)
    block = augmented_moment(a, m, s=2)  # concepts 1, 2 and the constant input
    np.testing.assert_array_equal(block, [[0.5, 0, 1 / 3], [0, 1.5, 2 / 3], [1 / 3, 2 / 3, 1]])
    # centred data: the bias decouples, the block is diagonal
    np.testing.assert_array_equal(augmented_moment(a, np.zeros(4), s=2), np.diag([0.5, 1.5, 1.0]))
    # the mean couples the directions: the smallest eigenvalue drops below min a_p
    assert np.linalg.eigvalsh(block)[0] < 0.5


def test_population_loss_matches_the_record():
    rec = THEORY_SETTINGS["fig5"].run("authors", record_every=50)
    np.testing.assert_allclose(population_loss(rec.W, rec.a), rec.train_loss, rtol=1e-12)
    assert population_loss(np.eye(3), [1.0, 2.0, 3.0]) == 0.0
    np.testing.assert_allclose(population_loss(np.zeros((2, 2)), [1.0, 3.0]), 2.0)  # 0.5 (1 + 3)


def test_stage_alignment_on_the_authors_fig5_run():
    fig5 = THEORY_SETTINGS["fig5"]
    run = fig5.run_with_stages("authors", record_every=5)
    assert run.stages.n_descents == 2
    ok = stage_alignment(run.stages, run.record.a)
    assert ok == (True, True) and ok.holds
    # the reversed order of a: the growth order no longer matches
    assert not stage_alignment(run.stages, run.record.a[[1, 0, 2]]).by_a
    # the paper's A from the same start: one descent, so the growths cannot align
    flat = fig5.run_with_stages("paper", record_every=5)
    assert not stage_alignment(flat.stages, flat.record.a).holds


def test_plot_stage_rows_draws_one_row_per_run():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from swingby.theory.figures import plot_stage_rows

    fig5 = THEORY_SETTINGS["fig5"]
    runs = [fig5.run_with_stages(m, record_every=50) for m in ("authors", "paper")]
    fig = plot_stage_rows([(run.record, run.stages, f"run {k}") for k, run in enumerate(runs)], fig5.mu,
                          title_size=9)
    # two rows of (entries above the test loss, trajectory): no twin axis, legends outside the axes
    assert len(fig.axes) == 6 and [ax.get_ylabel() for ax in fig.axes].count("test loss") == 2
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles[0].startswith("run 0: ") and titles[3].startswith("run 1: ") and "descent" in titles[0]
    assert fig.axes[1].get_xscale() == "log" and not any(ax.get_legend() for ax in fig.axes)
    assert fig.axes[2].get_title() == r"output $W(t)\hat{x}$"
    plt.close(fig)
    for bad, words in [([], "non-empty"), ("x", "panels must"), ([(runs[0].record, runs[0].stages)], "panels\\[0\\]"),
                       ([(runs[0].record, runs[0].stages, 3)], "panels\\[0\\]")]:
        with pytest.raises(ValueError, match=words):
            plot_stage_rows(bad, fig5.mu)
    with pytest.raises(ValueError, match="title_size"):
        plot_stage_rows([(runs[0].record, runs[0].stages, "t")], fig5.mu, title_size=0)
    with pytest.raises(ValueError, match="mu"):
        plot_stage_rows([(runs[0].record, runs[0].stages, "t")], [1.0, -1.0])
    plt.close("all")


def test_plot_swing_by_stages_splits_entries_and_loss_and_keeps_legends_off_the_data():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from swingby.theory.figures import descents_text, plot_swing_by_stages

    fig5 = THEORY_SETTINGS["fig5"]
    runs = [fig5.run_with_stages(m, record_every=50) for m in ("authors", "paper")]
    fig = plot_swing_by_stages([(run.record, run.stages, f"run {k}") for k, run in enumerate(runs)], fig5.mu)
    # per run: entries, test loss, trajectory; no twin axis
    assert len(fig.axes) == 6 and [ax.get_ylabel() for ax in fig.axes].count("test loss") == 2
    assert [ax.get_ylabel() for ax in fig.axes].count("entry of $W$") == 2
    assert fig.axes[0].get_title(loc="left") == f"run 0: {descents_text(runs[0].stages.n_descents)} of the test loss"
    assert all(ax.get_legend() is None for ax in fig.axes) and len(fig.legends) == 2  # legends outside the axes
    texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    assert not any("(s)" in t for t in texts)
    assert all(t.get_rotation() == 0 for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels())
    plt.close(fig)
    assert (descents_text(1), descents_text(2), descents_text(0)) == ("1 descent", "2 descents", "0 descents")
    with pytest.raises(ValueError, match="n must"):
        descents_text(-1)
    with pytest.raises(ValueError, match="at least two"):
        plot_swing_by_stages([(runs[0].record, runs[0].stages, "t")], [1.0])
    with pytest.raises(ValueError, match="panels\\[0\\]"):
        plot_swing_by_stages([(runs[0].record, runs[0].stages)], fig5.mu)
    plt.close("all")
