"""Tests of the Jacobian link on trained MLPs (``book/jacobian_link.md``): the batched
Jacobian against autograd, the stage detectors on synthetic curves with known stages, the
check and its wrong model on synthetic runs where it must fail (and where it can pass),
and bad input."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from swingby.sim.batched import StackedMLPs
from swingby.sim.models import MLP
from swingby.sim.train_loop import log_steps
from swingby.theory.jacobian_link import fall_shares, link_units, shifted_minor_null
from swingby.theory.jacobian_stages import (
    JacobianStages,
    OutputStages,
    jacobian_stages,
    output_stages,
    run_stages,
    stage_check,
    stage_conditions,
)
from swingby.theory.trained_jacobian import (
    JACOBIAN_RULES,
    JacobianRecord,
    JacobianRules,
    stacked_jacobian,
    train_with_jacobian,
)


def jacobian_at(model: MLP, x: torch.Tensor) -> torch.Tensor:
    """The Jacobian of one MLP at one input by autograd."""
    return torch.func.jacrev(model)(x.to(model.layers[0].weight.dtype)).detach()


MU = np.array([1.0, 2.0])  # concept 0 weak, concept 1 strong
STEPS = log_steps(4720, 200).astype(float)


def _logistic(t, t_half, width=0.25):
    return 1.0 / (1.0 + np.exp(-(np.log1p(t) - np.log1p(t_half)) / width))


def _run(tau: float, bump: float = 0.35):
    """A synthetic run on the theory's script: w_ss grows at ``tau``, the minor entry
    w_ws peaks at ``tau`` and is suppressed, w_ww grows at ``8 tau``."""
    J = np.zeros((STEPS.size, 2, 2))
    J[:, 1, 1] = _logistic(STEPS, tau)
    J[:, 0, 0] = _logistic(STEPS, 8 * tau)
    J[:, 0, 1] = bump * np.exp(-0.5 * ((np.log1p(STEPS) - np.log1p(tau)) / 0.4) ** 2)
    y = J @ MU
    return J, y


def _record(taus) -> JacobianRecord:
    runs = [_run(t) for t in taus]
    J = np.stack([r[0] for r in runs])
    y = np.stack([r[1] for r in runs])
    return JacobianRecord(steps=STEPS.astype(int), jacobian=J, output=y,
                          test_loss=0.5 * ((y - MU) ** 2).sum(-1), x_hat=MU.copy(), mu=MU.copy(),
                          seeds=tuple(range(len(taus))))


# --------------------------------------------------------------- the Jacobian
@pytest.mark.parametrize("activation", ["linear", "relu"])
@pytest.mark.parametrize("depth", [2, 3])
def test_stacked_jacobian_matches_autograd(depth, activation):
    models = [MLP(3, depth, 4, activation=activation, seed=s) for s in range(3)]
    spec = dict(d=3, depth=depth, width=4, activation=activation, bias=True)
    x = torch.randn(3, 3, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        J = stacked_jacobian(StackedMLPs(models, spec), x)
    for r, m in enumerate(models):
        torch.testing.assert_close(J[r], jacobian_at(m, x[r]), atol=1e-6, rtol=1e-5)
    if activation == "linear":
        torch.testing.assert_close(J[0], models[0].jacobian(), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("rotate", [False, True])
def test_recorded_jacobian_at_step_zero_is_the_initial_models(rotate):
    rec = train_with_jacobian(2, "relu", [3, 4], n_per_cluster=50, epochs=1, rotate=rotate,
                              n_records=5)
    from swingby.sim.data import make_sim

    for k, s in enumerate([3, 4]):
        data = make_sim(rec.mu, rec.config["sigma"], 3, 50, origin_cluster=True, rotate=rotate, seed=s)
        m = MLP(3, 2, 3, activation="relu", seed=s)
        R = data.rotation.double()
        want = R.T @ jacobian_at(m, data.x_hat).double() @ R
        np.testing.assert_allclose(rec.jacobian[k, 0], want.numpy(), atol=1e-6)
        np.testing.assert_allclose(rec.output[k, 0], data.to_concept(m(data.x_hat)).detach().numpy(),
                                   atol=1e-6)
    assert rec.steps[0] == 0 and rec.jacobian.shape == (2, len(rec.steps), 3, 3)
    np.testing.assert_allclose(rec.test_loss, 0.5 * ((rec.output - rec.x_hat) ** 2).sum(-1))


def test_linear_output_is_jacobian_times_x_hat_plus_bias():
    rec = train_with_jacobian(3, "linear", [0], n_per_cluster=100, epochs=2, n_records=10)
    m = MLP(3, 3, 3, seed=0)
    b = m(torch.zeros(3)).detach().double().numpy()  # the affine offset at step 0
    np.testing.assert_allclose(rec.output[0, 0], rec.jacobian[0, 0] @ rec.x_hat + b, atol=1e-6)


# ------------------------------------------------------------------ stages
def test_jacobian_stages_on_known_curves():
    J, _ = _run(100.0)
    st = jacobian_stages(STEPS, J[:, 1, 1], J[:, 0, 0], J[:, 0, 1])
    grid = STEPS[np.searchsorted(STEPS, [100.0, 800.0])]
    assert st.t_strong == pytest.approx(grid[0], rel=0.05)
    assert st.t_weak == pytest.approx(grid[1], rel=0.05)
    assert st.t_minor == pytest.approx(100.0, rel=0.05) and st.suppressed
    never = jacobian_stages(STEPS, 0.1 * J[:, 1, 1], J[:, 0, 0], np.linspace(0, 1, STEPS.size))
    assert never.t_strong == np.inf and not never.suppressed  # minor still growing at the end


def test_minor_entry_that_only_shrinks_is_not_a_suppression():
    J, _ = _run(100.0)
    shrinking = np.linspace(0.3, 0.0, STEPS.size)  # starts at its peak: it never grew
    assert not jacobian_stages(STEPS, J[:, 1, 1], J[:, 0, 0], shrinking).suppressed
    assert not jacobian_stages(STEPS, J[:, 1, 1], J[:, 0, 0], -J[:, 0, 1]).suppressed


def test_output_stages_on_known_curves():
    J, y = _run(100.0)
    L = 0.5 * ((y - MU) ** 2).sum(-1)
    out = output_stages(STEPS, L, y[:, 0], 0.5 * MU @ MU)
    assert out.swings and out.rise > JACOBIAN_RULES.rise_min
    assert out.t_turn == pytest.approx(100.0, rel=0.3) and 100.0 < out.t_back < 800.0
    mono = output_stages(STEPS, np.linspace(2.5, 0.0, STEPS.size), np.linspace(0, 1, STEPS.size), 2.5)
    assert not mono.swings and mono.rise == 0.0
    # a loss that rises and never comes back is not a swing-by
    up = np.r_[np.linspace(2.5, 1.0, 100), np.linspace(1.0, 2.0, STEPS.size - 100)]
    assert not output_stages(STEPS, up, np.linspace(0, 1, STEPS.size), 2.5).swings


# ----------------------------------------------------------- check and null
def test_stage_check_passes_aligned_and_fails_shifted():
    J, y = _run(100.0)
    L = 0.5 * ((y - MU) ** 2).sum(-1)
    out = output_stages(STEPS, L, y[:, 0], 0.5 * MU @ MU)
    jac = jacobian_stages(STEPS, J[:, 1, 1], J[:, 0, 0], J[:, 0, 1])
    assert stage_check(STEPS, out, jac, J[:, 0, 1])
    # a Jacobian whose stages come 3x later (a time-shifted Jacobian) must fail
    J3, _ = _run(300.0)
    jac3 = jacobian_stages(STEPS, J3[:, 1, 1], J3[:, 0, 0], J3[:, 0, 1])
    assert not stage_check(STEPS, out, jac3, J3[:, 0, 1])
    parts = stage_conditions(STEPS, out, jac3, J3[:, 0, 1])
    assert parts.swings and parts.strong_first and not parts.minor_at_turn and not parts.holds
    assert stage_conditions(STEPS, out, jac, J[:, 0, 1]).holds
    # no swing-by, or a minor entry that is never suppressed: fails
    assert not stage_check(STEPS, out._replace(swings=False), jac, J[:, 0, 1])
    assert not stage_check(STEPS, out, jac._replace(suppressed=False), J[:, 0, 1])


def _monotone_null(rec: JacobianRecord) -> JacobianRecord:
    """The one-layer wrong model's shape: the same major entries, a minor entry that only decays."""
    J = rec.jacobian.copy()
    J[:, :, 0, 1] = 0.3 * np.exp(-STEPS / 50.0)[None, :]
    return dataclasses.replace(rec, jacobian=J)


def test_link_units_pairs_own_and_wrong_model():
    rec = _record([30.0, 100.0, 300.0])
    units = link_units(rec, _monotone_null(rec))
    np.testing.assert_array_equal(units.swinging, [0, 1, 2])
    assert units.own.all() and not units.null.any()
    same = link_units(rec, rec)  # the run's own Jacobian as "wrong model": every pair concordant
    np.testing.assert_array_equal(same.own, same.null)
    with pytest.raises(ValueError, match="null_record"):
        link_units(rec, _record([30.0, 100.0]))
    with pytest.raises(ValueError, match="null_record"):
        link_units(rec, "not a record")


def _shift(seed: int, T: int, shift_min: float = 0.1) -> int:
    """The shift shifted_minor_null draws for a run of this seed."""
    lo = max(1, int(shift_min * T))
    return int(np.random.default_rng(seed).integers(lo, T - lo + 1))


def test_shifted_minor_null_shifts_only_the_minor_entries():
    rec = _record([30.0, 100.0, 300.0])
    null = shifted_minor_null(rec)
    T = STEPS.size
    for r, seed in enumerate(rec.seeds):
        k = _shift(seed, T)
        assert int(0.1 * T) <= k <= T - int(0.1 * T)
        np.testing.assert_array_equal(null.jacobian[r, :, 0, 1], np.roll(rec.jacobian[r, :, 0, 1], k))
    np.testing.assert_array_equal(null.jacobian[..., 0, 0], rec.jacobian[..., 0, 0])
    np.testing.assert_array_equal(null.jacobian[..., 1, 1], rec.jacobian[..., 1, 1])
    assert null.output is rec.output and null.seeds == rec.seeds
    np.testing.assert_array_equal(shifted_minor_null(rec).jacobian, null.jacobian)  # seeded by the run
    units = link_units(rec, null)  # aligned runs: the shift moves the peak away from the turn
    assert units.own.all() and not units.null.any()
    with pytest.raises(ValueError, match="shift_min"):
        shifted_minor_null(rec, shift_min=0.0)
    with pytest.raises(ValueError, match="record"):
        shifted_minor_null("not a record")


def test_shifted_minor_null_can_pass():
    """Unlike the one-layer model, the wrong model passes when its shift lands the peak at the turn."""
    rec = _record([30.0, 100.0])
    J = rec.jacobian.copy()
    for r, seed in enumerate(rec.seeds):  # pre-rotate the minor entry by minus the run's shift
        J[r, :, 0, 1] = np.roll(rec.jacobian[r, :, 0, 1], -_shift(seed, STEPS.size))
    moved = dataclasses.replace(rec, jacobian=J)
    units = link_units(moved, shifted_minor_null(moved))
    assert units.null.all() and not units.own.any() and units.null.size == 2


def test_fall_shares_of_a_minor_driven_fall():
    rec = _record([100.0, 200.0])
    sh = fall_shares(rec, [0, 1])
    np.testing.assert_allclose(sh.minor + sh.major + sh.rest, 1.0)
    assert np.all(sh.minor > 1.0) and np.all(sh.major < 0) and np.allclose(sh.rest, 0.0, atol=1e-9)
    up = fall_shares(rec, [0, 1], phase="approach")  # y_w = w_ws mu_s + w_ww mu_w only
    np.testing.assert_allclose(up.minor + up.major, 1.0)
    np.testing.assert_allclose(up.rest, 0.0, atol=1e-9)
    with pytest.raises(ValueError, match="phase"):
        fall_shares(rec, [0], phase="rise")
    rs = run_stages(rec)
    assert all(o.swings for o in rs.output) and np.all(np.abs(rs.lag) < JACOBIAN_RULES.peak_tol)


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        JACOBIAN_RULES.peak_tol = 1.0  # type: ignore[misc]
    assert JacobianRules() == JACOBIAN_RULES


# --------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(depth=0, activation="linear", seeds=[0]), "depth"),
    (dict(depth=2, activation="tanh", seeds=[0]), "activation"),
    (dict(depth=2, activation="linear", seeds=[0, 0]), "seeds"),
    (dict(depth=2, activation="linear", seeds=[0], mu=(1.0,), sigma=(0.1,)), "mu"),
    (dict(depth=2, activation="linear", seeds=[0], n_records=0), "n_records"),
])
def test_train_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        train_with_jacobian(**kwargs, n_per_cluster=10, epochs=1)


def test_stage_functions_bad_input():
    J, y = _run(100.0)
    out = OutputStages(0.1, True, 1.0, 2.0)
    with pytest.raises(ValueError, match="steps"):
        stage_conditions(STEPS[::-1], out, JacobianStages(1, 2, 3, True), J[:, 0, 1])
    with pytest.raises(ValueError, match="w_minor"):
        stage_conditions(STEPS, out, JacobianStages(1, 2, 3, True), J[:-1, 0, 1])
    with pytest.raises(ValueError, match="rules"):
        stage_conditions(STEPS, out, JacobianStages(1, 2, 3, True), J[:, 0, 1], rules=dict(rise_min=0.1))
    with pytest.raises(ValueError, match="out"):
        stage_conditions(STEPS, (0.1, True, 1.0, 2.0), JacobianStages(1, 2, 3, True), J[:, 0, 1])
    with pytest.raises(ValueError, match="jac"):
        stage_conditions(STEPS, out, (1, 2, 3, True), J[:, 0, 1])
    with pytest.raises(ValueError, match="record"):
        run_stages("not a record")
    with pytest.raises(ValueError, match="runs"):
        fall_shares(_record([100.0]), [3])
    with pytest.raises(ValueError, match="minor_peak"):
        JacobianRules(minor_peak="abs")
