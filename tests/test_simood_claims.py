"""The checks and wrong models of the sim_task, topological_order and ood_checks claims
(``swingby.claims.sim_task``, ``.topological_order``, ``.ood_checks``), on old seeds only."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from swingby.claims import ood_checks as CO
from swingby.claims import sim_task as CS
from swingby.claims import topological_order as CT
from swingby.observations import hypercube as OH
from swingby.observations import ood as OO
from swingby.sim import identity_checks as IC
from swingby.sim import train as TR
from swingby.sim.data import make_sim
from swingby.sim.models import MLP

torch.set_num_threads(1)


# ------------------------------------------------------------------------ the register
def test_register_forms_and_keys():
    forms = {c.key: c.form for c in CS.CLAIMS + CT.CLAIMS + CO.CLAIMS}
    assert forms == {"claim-sim-ood": "typical", "claim-sim-a": "identity",
                     "claim-sim-frobenius": "identity", "claim-topo-order": "universal",
                     "claim-ood-fig16": "typical"}


def test_design_constants_are_in_the_design_texts():
    """A design constant that changes must change the fingerprint: it is in the claim's text."""
    ood, a, frob = CS.CLAIMS
    assert f"fresh_seeds({CS.OOD_UNITS}, {CS.OOD_START})" in ood.design and str(CS.OOD_NULL_SIGMA) in ood.design
    assert str(CS.A_Z_MAX) in a.check and str(CS.A_SIGMA) in a.unit
    assert str(CS.FROB_TOL) in frob.check
    topo, = CT.CLAIMS
    assert str(CT.TOPO_LEVEL) in topo.check and str(CT.TOPO_COSINE) in topo.wrong_model
    assert CT.TOPO_GRID in topo.check and "whole_epochs=True" in topo.design
    assert all(f"{e} epochs, {u} runs" in topo.unit for _, _, _, e, u, _ in CT.TOPO_MODELS)
    fig16, = CO.CLAIMS
    assert str(CO.FIG16_MAX_DELTA) in fig16.check and str(CO.FIG16_CONFIGS) in fig16.design
    assert f"fresh_seeds({CO.FIG16_SEEDS}, {CO.FIG16_START})" in fig16.design
    assert f"bandwidth {CO.FIG16_NULL_BANDWIDTH}, {CO.FIG16_NULL_CENTERS} centres" in fig16.design


# ------------------------------------------------------------------- identities (C.13, 4.1)
@pytest.mark.parametrize("origin", [False, True])
def test_second_moment_units_pass_and_variants_fail(origin):
    r = IC.second_moment_units(range(3), mu=CS.A_MU, sigma=CS.A_SIGMA, d=CS.A_D, origin_cluster=origin)
    assert r.passed.all() and r.error.max() < CS.A_Z_MAX
    assert r.variant_passed.shape == (3, 4 if origin else 3) and not r.variant_passed.any()


def test_second_moment_units_fail_a_wrong_formula():
    """The check can fail: with far too few points the tolerance is loose, but a tiny z_max rejects."""
    r = IC.second_moment_units([0], mu=CS.A_MU, sigma=CS.A_SIGMA, d=CS.A_D, origin_cluster=False,
                               z_max=1e-6)
    assert not r.passed.any()


def test_frobenius_units_pass_and_variants_fail():
    r = IC.frobenius_units(range(2), mu=CS.FROB_MU, sigma=CS.FROB_SIGMA, d=8)
    assert r.passed.all() and r.error.max() < CS.FROB_TOL
    assert r.variant_passed.shape == (2, 3) and not r.variant_passed.any()


@pytest.mark.parametrize("func, kwargs, match", [
    (IC.second_moment_units, dict(seeds=[0], mu=[1.0], sigma=[0.1], d=2, origin_cluster=False, z_max=0),
     "z_max"),
    (IC.second_moment_units, dict(seeds=[0, 0], mu=[1.0], sigma=[0.1], d=2, origin_cluster=False), "seeds"),
    (IC.second_moment_units, dict(seeds=[0], mu=[1.0], sigma=[0.1], d=2, origin_cluster=1), "origin_cluster"),
    (IC.frobenius_units, dict(seeds=[0], mu=[1.0], sigma=[0.1], d=2, tol=-1.0), "tol"),
    (IC.frobenius_units, dict(seeds=[0], mu=[1.0], sigma=[0.1], d=2, w_scale=0.0), "w_scale"),
    (IC.frobenius_units, dict(seeds=[], mu=[1.0], sigma=[0.1], d=2), "seeds"),
])
def test_identity_checks_bad_input(func, kwargs, match):
    with pytest.raises(ValueError, match=match):
        func(**kwargs)


# ----------------------------------------------------------------------- Fig. 15 (F.3)
def test_nearest_training_points_fig2c_and_wide_clusters():
    tight = OO.nearest_training_points(CS.OOD_MU, CS.OOD_SIGMA, range(3))
    wide = OO.nearest_training_points(CS.OOD_NULL_MU, CS.OOD_NULL_SIGMA, range(3))
    assert tight.nearest.shape == tight.inside.shape == (3,)
    assert (tight.nearest > 1).all() and (tight.inside == 0).all()  # these three draws: none close
    assert (wide.inside > 100).all() and (wide.nearest < 1).all()   # the wide clusters reach x_hat


def test_nearest_training_points_match_a_direct_count():
    r = OO.nearest_training_points([1.0, 2.0], [0.6, 0.6], [5], n_per_cluster=200)
    data = make_sim([1.0, 2.0], [0.6, 0.6], 2, 200, origin_cluster=True, seed=5)
    dist = torch.linalg.vector_norm(data.X - data.x_hat, dim=1) / 0.5
    assert r.inside[0] == int((dist < 1).sum()) and r.nearest[0] == pytest.approx(float(dist.min()), rel=1e-6)


def test_nearest_training_points_bad_input():
    with pytest.raises(ValueError, match="seeds"):
        OO.nearest_training_points([1.0, 2.0], 0.2, [1, 1])
    with pytest.raises(ValueError, match="sigma"):
        OO.nearest_training_points([1.0, 2.0], -0.2, [1])


@pytest.mark.parametrize("kwargs, match", [
    (dict(configs=[dict(mu=(1.0, 2.0))], seeds=[0]), "keys"),
    (dict(configs=CO.FIG16_CONFIGS, seeds=[0, 0]), "seeds"),
    (dict(configs=CO.FIG16_CONFIGS, seeds=[0], activation="tanh"), "activation"),
    (dict(configs=CO.FIG16_CONFIGS, seeds=[0], lr=0.0), "lr"),
    (dict(configs=CO.FIG16_CONFIGS, seeds=[0], bandwidth=0.0), "bandwidth"),
    (dict(configs=CO.FIG16_CONFIGS, seeds=[0], n_centers=0), "n_centers"),
])
def test_fig16_units_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        OO.fig16_units(**kwargs)


# --------------------------------------------------------------- Fig. 7 / eq. (B.2)
def test_null_audit_entangled_concepts_break_the_order_in_theory():
    """The docstring of hypercube.entangle and the claim's wrong-model text: orthogonal
    concepts keep every pair in order, cosine 0.5 puts 60 % of the pairs out of order."""
    assert OH.entangled_order_theory(0.0, CT.TOPO_MU, CT.TOPO_SIGMA, level=CT.TOPO_LEVEL) == 1.0
    share = OH.entangled_order_theory(CT.TOPO_COSINE, CT.TOPO_MU, CT.TOPO_SIGMA, level=CT.TOPO_LEVEL)
    assert share == pytest.approx(0.4, abs=0.01)


def test_entangle_sets_the_cosines_and_keeps_zero():
    data = make_sim([1.0, 2.0, 3.0], 0.3, 5, 10, rotate=True, seed=1)
    same = OH.entangle(data, 0.0)
    assert torch.allclose(same.X, data.X, atol=1e-6) and torch.allclose(same.x_hat, data.x_hat, atol=1e-6)
    ent = OH.entangle(data, 0.5)
    singles = ent.test_points[[4, 2, 1]].double()  # v = 100, 010, 001 in lexicographic order
    units = singles / torch.linalg.vector_norm(singles, dim=1, keepdim=True)
    gram = (units @ units.T).numpy()
    assert np.allclose(gram[~np.eye(3, dtype=bool)], 0.5, atol=1e-5)
    assert np.allclose(torch.linalg.vector_norm(singles, dim=1).numpy(), [1.0, 2.0, 3.0], atol=1e-5)


@pytest.mark.parametrize("cosine", [1.0, -0.5, "x"])
def test_bad_cosine(cosine):
    with pytest.raises(ValueError, match="cosine"):
        OH.entangled_order_theory(cosine, (1.0, 2.0, 3.0), (0.3,) * 3)
    with pytest.raises(ValueError, match="cosine"):
        OH.topo_runs([3], mu=(1.0, 2.0, 3.0), sigma=(0.3,) * 3, epochs=1, d=4, cosine=cosine)


def test_learning_order_holds_and_the_additive_loss_always_holds():
    data = make_sim([1.0, 2.0], 0.3, 4, 50, seed=0)
    rec = TR.train(MLP(4, 1, seed=0), data, epochs=20, batch_size=10, record_every=5)
    assert isinstance(OH.learning_order_holds(rec, 0.1), bool)
    assert OH.learning_order_holds(rec, 0.1, additive="sum")
    with pytest.raises(ValueError, match="level"):
        OH.learning_order_holds(rec, 0.0)


def test_whole_epoch_learning_times_are_whole_and_later():
    data = make_sim([1.0, 2.0], 0.3, 4, 50, seed=0)
    rec = TR.train(MLP(4, 1, seed=0), data, epochs=20, batch_size=10, record_every=1)
    fine = OH.hypercube_learning_times(rec, 0.1)
    whole = OH.hypercube_learning_times(rec, 0.1, whole_epochs=True)
    finite = np.isfinite(whole)
    assert np.all(whole[finite] == np.round(whole[finite])) and np.all(whole >= fine)
    rough = TR.train(MLP(4, 1, seed=0), data, epochs=1, batch_size=10, record_steps=[0, 3, 7])
    with pytest.raises(ValueError, match="whole epochs"):
        OH.hypercube_learning_times(rough, 0.1, whole_epochs=True)


def test_topo_runs_record_every_whole_epoch():
    rec, = OH.topo_runs([3], mu=(1.0, 2.0), sigma=(0.3, 0.3), epochs=2, d=4)
    assert {0.0, 1.0, 2.0} <= set(np.round(rec.epochs[np.isclose(rec.epochs, np.round(rec.epochs))], 9))


def test_topo_runs_seed_streams_and_bad_input():
    mu, sig = (1.0, 2.0), (0.3, 0.3)
    a, = OH.topo_runs([3], mu=mu, sigma=sig, epochs=1, d=4)
    b, = OH.topo_runs([3], mu=mu, sigma=sig, epochs=1, d=4, stream=1)
    assert not np.allclose(a.outputs, b.outputs)
    with pytest.raises(ValueError, match="epochs"):
        OH.topo_runs([3], mu=mu, sigma=sig, epochs=0, d=4)
    with pytest.raises(ValueError, match="seeds"):
        OH.topo_runs([3, 3], mu=mu, sigma=sig, epochs=1, d=4)
