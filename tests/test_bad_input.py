"""Every bad input to the public API (each module's ``__all__``) of sim, models, train, observations,
theory, plotting, widgets and the diffusion analysis / concept space / classifier / plots / explorer
is a clear ``ValueError`` that names the argument, found before any work.

Each case is ``(callable, kwargs, expected exception, a substring naming the argument)``;
the fixtures are tiny so that the whole file runs in seconds. A few valid borderline
inputs at the end must still work, and a diverged run must be reported.
"""
from __future__ import annotations

import inspect
import sys
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from swingby.diffusion import classifier as C  # noqa: E402
from swingby.diffusion import concept_space as CS  # noqa: E402
from swingby.diffusion.data import CirclesConfig  # noqa: E402
from swingby.diffusion.fig6 import analysis as A  # noqa: E402
from swingby.diffusion.fig6 import plots as DP  # noqa: E402
from swingby.diffusion.fig6.explorer import sweep_explorer  # noqa: E402
from swingby.observations import explorer as OX
from swingby.observations import hypercube as OH
from swingby.observations import learning as OL
from swingby.observations import ood as OO
from swingby.observations import plots as OP
from swingby.observations import runs as OR
from swingby.observations import swingby as OS
from swingby.sim import batched as SBA
from swingby.sim import data as S  # noqa: E402
from swingby.sim import explorer as SX
from swingby.sim import plots as SPL
from swingby.sim import symmetric as SIMU
from swingby.sim import symmetric as TSY
from swingby.sim import train as TR
from swingby.sim import train_loop as TLP
from swingby.sim.models import MLP, SymmetricModel  # noqa: E402
from swingby.sim.run_checks import TrainingDiverged  # noqa: E402
from swingby.theory import explorer as TX
from swingby.theory import one_layer as TOL
from swingby.theory import plots as TP
from swingby.theory import settings as TSET
from swingby.theory import stages as TST
from swingby.theory import statistics as TSTAT

torch.set_num_threads(1)
VE = ValueError

# ----------------------------------------------------------------------- tiny fixtures
DATA = S.make_sim([1.0, 2.0], 0.3, 4, 20, seed=0)
REC = TR.train(MLP(4, 1), DATA, epochs=2, batch_size=10, record_every=1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", TrainingDiverged)
    # lr = 1.0 on the Fig. 2(c) d = 2 network diverges within a few steps
    DIVERGED = TR.train(MLP(2, 4, width=4), S.make_sim([2.0, 4.0], 0.224, 2, 200, origin_cluster=True),
                        lr=1.0, epochs=3)
A2 = np.array([1.0, 0.5])
SYM = SIMU.simulate_symmetric(np.full((2, 2), 0.1), A2, 0.05, 40, np.array([1.0, 1.0]))
SYM_BATCH = SIMU.simulate_symmetric(np.full((3, 2, 2), 0.1), A2, 0.05, 20, np.array([1.0, 1.0]))
STAGES = TST.detect_stages(SYM, 2)
SETTING = TSET.THEORY_SETTINGS["fig5"]
IDX2 = [[0, 0], [0, 1], [1, 0], [1, 1]]
IDX13 = (np.arange(2**13)[:, None] >> np.arange(12, -1, -1)) & 1  # 13 concepts: 8192 rows
IDX9 = (np.arange(2**9)[:, None] >> np.arange(8, -1, -1)) & 1
AX = plt.figure().add_subplot()
CFG = CirclesConfig(image_size=8)
CLF = C.ConceptClassifier(2)


def _results(nan: bool = False) -> dict:
    """A tiny complete sweep result: 2 separations, 2 seeds, 5 checkpoints, 8 samples."""
    rng = np.random.default_rng(0)
    probs = rng.random((2, 2, 5, 4, 8, 2)).astype(np.float32)
    if nan:
        probs[0, 1, 3] = np.nan  # an unfinished run
    pixels = np.ones((2, 2, 5, 4, 8, 4), np.float32)
    thumbs = np.zeros((2, 2, 5, 4, 2, 3, 8, 8), np.uint8)
    meta = {"config": {"separations": [0.2, 0.7], "seeds": [0, 1], "steps": 400},
            "checkpoint_steps": [0, 100, 200, 300, 400]}
    return {"probs": probs, "pixels": pixels, "thumbs": thumbs, "meta": meta}


RES, RES_NAN = _results(), _results(nan=True)
RES_NO_PIX = {k: v for k, v in RES.items() if k != "pixels"}
RES_BAD = dict(RES, probs=RES["probs"][:, :, :3])  # 3 checkpoints in probs, 5 in meta

good = dict(mu=[1.0, 2.0], sigma=0.3, d=4)
one_layer = dict(W0=np.eye(2), a=[1.0, 1.0], z=[1.0, 1.0], t=1.0)
with_bias = dict(W0=np.eye(2), b0=[0.0, 0.0], a=[1.0, 1.0], mean=[0.5, 0.5], z=[1.0, 1.0], t=1.0)
sim_kw = dict(U0=np.full((2, 2), 0.1), a=A2, eta=0.05, steps=10, x_hat=[1.0, 1.0])
stats_kw = dict(mu=(1.0, 2.0), sigma=0.1, d=2, n_seeds=2, steps=10)
phase_kw = dict(mu=(1.0, 2.0), sigma=0.1, d_values=[2], taus=[0.1], n_seeds=2, steps=10)
train_kw = dict(model=MLP(4, 1), data=DATA, epochs=1)
sweep_kw = dict(configs=[dict(mu=(1.0, 2.0), sigma=0.1)], d=4, seeds=[0], n_per_cluster=10, epochs=1)
twin_kw = dict(configs=[dict(mu=(1.0, 2.0), sigma=0.1)], d=4, seeds=[0], n_per_cluster=10)
acc_kw = dict(clf=CLF, cfg=CFG, dcs=[0.3], n_per_class=2)
setting_kw = dict(name="s", mu=(1.0, 1.5), sigma=0.05, d=3, init_scale=0.2, steps=10, seed=0)


def public(func) -> bool:
    """Whether ``func`` (a function, a class, a bound method or a callable instance) is in its module's
    ``__all__`` (a module without one: every name), or is a loader of stored files."""
    owner = getattr(func, "__self__", None)
    obj = type(owner) if owner is not None else func
    obj = obj if inspect.isclass(obj) or inspect.isfunction(obj) else type(obj)
    names = getattr(sys.modules[obj.__module__], "__all__", None)
    return names is None or obj.__qualname__.split(".")[0] in names or obj.__name__.startswith("load")


def case(func, kwargs, words, exc=VE):
    return (func, kwargs, exc, words)


CASES = [
    # ------------------------------------------------------------------ sim
    case(S.std_from_authors_sigma, dict(sigma_authors=-1.0), "sigma_authors"),
    case(S.std_from_authors_sigma, dict(sigma_authors="0.05"), "sigma_authors"),
    case(S.second_moment, dict(good, mu=[]), "mu"),
    case(S.second_moment, dict(good, mu=[1.0, np.nan]), "mu"),
    case(S.second_moment, dict(good, sigma=[-1.0, 1.0]), "sigma"),
    case(S.second_moment, dict(good, sigma=[1.0, 1.0, 1.0]), "len(sigma)"),
    case(S.second_moment, dict(good, d=1.5), "d must"),
    case(S.second_moment, dict(good, d=True), "d must"),
    case(S.second_moment, dict(good, d=1), "s = len(mu)"),
    case(S.second_moment, dict(good, d=10**12), "d = 1000000000000"),
    case(S.second_moment, dict(good, origin_cluster="yes"), "origin_cluster"),
    case(S.make_sim, dict(good, n_per_cluster=1.5), "n_per_cluster"),
    case(S.make_sim, dict(good, mu=[1.0, -2.0]), "mu"),
    case(S.make_sim, dict(good, mu="12"), "mu"),
    case(S.make_sim, dict(good, sigma=[0.1, np.inf]), "sigma"),
    case(S.make_sim, dict(good, n_per_cluster=0), "n_per_cluster"),
    case(S.make_sim, dict(good, n_per_cluster=np.True_), "n_per_cluster"),
    case(S.make_sim, dict(good, n_per_cluster=10**12), "n_per_cluster = 1000000000000"),
    case(S.make_sim, dict(good, seed=None), "seed"),
    case(S.make_sim, dict(good, seed=2**64), "seed"),
    case(S.make_sim, dict(good, seed=-1), "seed"),
    case(S.make_sim, dict(good, seed=1.5), "seed"),
    case(S.make_sim, dict(good, origin_cluster=1), "origin_cluster"),
    case(S.make_sim, dict(good, rotate="no"), "rotate"),
    case(S.make_sim, dict(good, truncate=None), "truncate"),
    case(S.make_sim, dict(good, d=10**4, n_per_cluster=1, rotate=True), "rotate=True needs d"),
    case(DATA.to_concept, dict(y=np.zeros(4)), "y must"),
    case(DATA.to_concept, dict(y=torch.zeros(3)), "y must"),
    case(S.empirical_second_moment, dict(X=torch.zeros(0, 3)), "X must"),
    case(S.empirical_second_moment, dict(X=[[np.nan, 1.0]]), "X must"),
    case(S.empirical_second_moment, dict(X=torch.zeros(3)), "X must"),
    # ------------------------------------------------------------------ models
    case(MLP, dict(d=0), "d must"),
    case(MLP, dict(d=2.5), "d must"),
    case(MLP, dict(d=4, depth=0), "depth"),
    case(MLP, dict(d=4, width=-1), "width"),
    case(MLP, dict(d=4, activation="tanh"), "activation"),
    case(MLP, dict(d=4, bias="yes"), "bias"),
    case(MLP, dict(d=4, init_scale=-1.0), "init_scale"),
    case(MLP, dict(d=4, init_scale=float("inf")), "init_scale"),
    case(MLP, dict(d=4, seed=None), "seed"),
    case(MLP, dict(d=4, seed=2**64), "seed"),
    case(MLP, dict(d=10**6), "d = 1000000"),
    case(MLP, dict(d=4, depth=2**64), "depth"),
    case(MLP, dict(d=4, depth=2**40), "depth = 1099511627776"),
    case(MLP(4).forward, dict(x=torch.zeros(2, 3)), "x must"),
    case(MLP(4).forward, dict(x=np.zeros((2, 4))), "x must"),
    case(MLP(4).forward, dict(x=torch.zeros(2, 4, dtype=torch.float64)), "x must"),
    case(SymmetricModel, dict(d=3, d_prime=2), "d_prime"),
    case(SymmetricModel, dict(d=3, init="normal"), "init"),
    case(SymmetricModel, dict(d=3, init_scale=0.0), "init_scale"),
    case(SymmetricModel, dict(d=3, seed=-1), "seed"),
    case(SymmetricModel, dict(d=10**6), "d, d_prime"),
    case(SymmetricModel(3).forward, dict(x=torch.zeros(2, 2)), "x must"),
    # ------------------------------------------------------------------ train
    case(TR.train, dict(train_kw, lr=-1), "lr must"),
    case(TR.train, dict(train_kw, lr=float("nan")), "lr must"),
    case(TR.train, dict(train_kw, lr=True), "lr must"),
    case(TR.train, dict(train_kw, batch_size=0), "batch_size"),
    case(TR.train, dict(train_kw, batch_size=1.5), "batch_size"),
    case(TR.train, dict(train_kw, epochs=1.5), "epochs"),
    case(TR.train, dict(train_kw, epochs=0), "epochs"),
    case(TR.train, dict(train_kw, full_batch="yes"), "full_batch"),
    case(TR.train, dict(train_kw, loss="l1"), "loss must"),
    case(TR.train, dict(train_kw, shuffle="random"), "shuffle"),
    case(TR.train, dict(train_kw, record_every=0), "record_every"),
    case(TR.train, dict(train_kw, record_steps=[0, 1.5]), "record_steps"),
    case(TR.train, dict(train_kw, record_steps=[-1]), "record_steps"),
    case(TR.train, dict(train_kw, record_steps=[]), "record_steps"),
    case(TR.train, dict(train_kw, record_every=1, record_steps=[0]), "record_every or record_steps"),
    case(TR.train, dict(train_kw, record_train_loss=None), "record_train_loss"),
    case(TR.train, dict(train_kw, seed=None), "seed"),
    case(TR.train, dict(train_kw, seed=2**64), "seed"),
    case(TR.train, dict(train_kw, progress="yes"), "progress"),
    case(TR.train, dict(train_kw, model=None), "model"),
    case(TR.train, dict(train_kw, data=None), "data"),
    case(TR.train, dict(train_kw, model=MLP(3)), "model has d = 3"),
    case(TR.train, dict(train_kw, epochs=10**9, record_every=1), "record_every = 1"),
    case(TR.train, dict(train_kw, epochs=10**13), "epochs = 10000000000000"),
    case(SBA.train_batched, dict(models=[], data=DATA), "models"),
    case(SBA.train_batched, dict(models=None, data=DATA), "models"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=None), "data must"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=[DATA, DATA]), "data must"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, seed=[0, 1]), "seed must"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, seed=[-1]), "seed"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, lr=0), "lr must"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, batch_size=-2), "batch_size"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, epochs=2.0), "epochs"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, full_batch=0), "full_batch"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, loss="sum"), "loss must"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, shuffle=None), "shuffle"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, record_every=-1), "record_every"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, record_steps=[10**9]), "record_steps"),
    case(SBA.train_batched, dict(models=[MLP(4), SymmetricModel(4)], data=DATA), "models[1]"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, record_train_loss="no"), "record_train_loss"),
    case(SBA.train_batched, dict(models=[MLP(4)], data=DATA, progress=1), "progress"),
    # ------------------------------------------------------------------ observations
    case(OR.authors_sigma_label, dict(sigma=-1.0), "sigma"),
    case(OR.authors_sigma_label, dict(sigma="abc"), "sigma"),
    case(OR.authors_sigma_label, dict(sigma=[[0.1]]), "sigma"),
    case(OR.authors_sigma_label, dict(sigma=np.True_), "sigma"),
    case(OR.run_sweep, dict(sweep_kw, configs=[]), "configs"),
    case(OR.run_sweep, dict(sweep_kw, configs=[dict(mu=(1.0, 2.0))]), "keys 'mu' and 'sigma'"),
    case(OR.run_sweep, dict(sweep_kw, configs=[dict(mu=(1.0, -2.0), sigma=0.1)]), "configs[0]"),
    case(OR.run_sweep, dict(sweep_kw, configs=[dict(mu=(1.0, 2.0), sigma=0.1), dict(mu=(1.0,), sigma=0.1)]),
         "same number of concepts"),
    case(OR.run_sweep, dict(sweep_kw, seeds=[0, 0]), "seeds must not repeat"),
    case(OR.run_sweep, dict(sweep_kw, seeds=[None]), "seeds[0]"),
    case(OR.run_sweep, dict(sweep_kw, seeds=[]), "seeds"),
    case(OR.run_sweep, dict(sweep_kw, d=1.5), "d must"),
    case(OR.run_sweep, dict(sweep_kw, depth=0), "depth"),
    case(OR.run_sweep, dict(sweep_kw, width=0), "width"),
    case(OR.run_sweep, dict(sweep_kw, activation="tanh"), "activation"),
    case(OR.run_sweep, dict(sweep_kw, bias=1), "bias"),
    case(OR.run_sweep, dict(sweep_kw, origin_cluster="yes"), "origin_cluster"),
    case(OR.run_sweep, dict(sweep_kw, rotate=None), "rotate"),
    case(OR.run_sweep, dict(sweep_kw, truncate=1), "truncate"),
    case(OR.run_sweep, dict(sweep_kw, n_per_cluster=1.5), "n_per_cluster"),
    case(OR.run_sweep, dict(sweep_kw, n_per_cluster=10**9), "needs about"),
    case(OR.run_sweep, dict(sweep_kw, lr=0), "lr must"),
    case(OR.run_sweep, dict(sweep_kw, batch_size=0), "batch_size"),
    case(OR.run_sweep, dict(sweep_kw, epochs=0), "epochs"),
    case(OR.run_sweep, dict(sweep_kw, epochs=10**13), "epochs = 10000000000000"),
    case(OR.run_sweep, dict(sweep_kw, full_batch=None), "full_batch"),
    case(OR.run_sweep, dict(sweep_kw, loss="x"), "loss must"),
    case(OR.run_sweep, dict(sweep_kw, record_every=0), "record_every"),
    case(OR.run_sweep, dict(sweep_kw, progress="x"), "progress"),
    case(OL.learning_times, dict(rec=REC, frac=0), "frac"),
    case(OL.learning_times, dict(rec=REC, frac=float("nan")), "frac"),
    case(OL.learning_times, dict(rec=REC, frac="half"), "frac"),
    case(OL.learning_times, dict(rec=DIVERGED), "diverged"),
    case(OL.displacement_per_interval, dict(rec=REC, n_intervals=0), "n_intervals"),
    case(OL.displacement_per_interval, dict(rec=DIVERGED), "diverged"),
    case(OL.displacement_per_interval, dict(rec=REC, n_intervals=10**11), "n_intervals = 100000000000"),
    case(OS.record_rise, dict(rec=DIVERGED), "diverged"),
    case(OS.seed_statistics, dict(records=[], threshold=0.1), "records"),
    case(OS.seed_statistics, dict(records=REC, threshold=0.1), "records"),
    case(OS.seed_statistics, dict(records=[REC], threshold=-1.0), "threshold"),
    case(OS.seed_statistics, dict(records=[REC, DIVERGED], threshold=0.1), "records[1]"),
    case(OO.relative_distance, dict(rec=DIVERGED), "diverged"),
    case(OO.relative_distance, dict(rec=REC, reference=DIVERGED), "reference"),
    case(OO.relative_distance, dict(rec=REC, reference="x"), "reference must"),
    case(OO.relative_distance, dict(rec=REC, at="min"), "at must"),
    case(OL.slowdown, dict(rec=REC, n_intervals=0), "n_intervals"),
    case(OL.slowdown, dict(rec=DIVERGED), "diverged"),
    case(OH.hypercube_learning_times, dict(rec=REC, level=0.0), "level"),
    case(OH.hypercube_learning_times, dict(rec=DIVERGED), "diverged"),
    case(OH.comparable_pairs, dict(test_index=IDX13), "4096 rows"),
    case(OH.comparable_pairs, dict(test_index=[[0, 2]]), "test_index"),
    case(OH.comparable_pairs, dict(test_index=[0, 1]), "test_index"),
    case(OR.fig2c_runs, dict(d=2.0, seeds=[0]), "d must be one of"),
    case(OR.fig2c_runs, dict(d=5, seeds=[0]), "d must be one of"),
    case(OR.fig2c_runs, dict(d=2, seeds=[0], depth=0), "depth"),
    case(OR.fig2c_runs, dict(d=2, seeds=[0.5]), "seeds[0]"),
    case(OR.fig2c_runs, dict(d=2, seeds=[0], mu=(1.0, -1.0)), "mu"),
    case(OR.fig2c_runs, dict(d=2, seeds=[0], sigma=(0.1, np.nan)), "sigma"),
    case(OR.fig2c_runs, dict(d=2, seeds=[0], origin_cluster=None), "origin_cluster"),
    case(OR.fig2c_runs, dict(d=2, seeds=[0], bias="yes"), "bias"),
    case(OR.fig2c_runs, dict(d=2, seeds=[0], progress=2), "progress"),
    case(OL.a_diagonal, dict(rec=REC), "rec.config"),
    case(OL.a_diagonal, dict(rec=None), "rec must"),
    case(OO.truncation_twins, dict(twin_kw, seeds=[0, 0]), "seeds must not repeat"),
    case(OO.truncation_twins, dict(twin_kw, lr=-1), "lr must"),
    case(OO.truncation_twins, dict(twin_kw, d=0), "d must"),
    case(OO.truncation_twins, dict(twin_kw, n_per_cluster=0), "n_per_cluster"),
    case(OO.truncation_twins, dict(twin_kw, depth=1.5), "depth"),
    case(OO.truncation_twins, dict(twin_kw, width=0), "width"),
    case(OO.truncation_twins, dict(twin_kw, configs=[dict(mu=(1.0, 2.0), sigma=-0.1)]), "configs[0]"),
    case(OO.truncation_twins, dict(twin_kw, origin_cluster=None), "origin_cluster"),
    # ------------------------------------------------------------------ theory
    case(TOL.one_layer_output, dict(one_layer, t=-1.0), "t must"),
    case(TOL.one_layer_output, dict(one_layer, t=np.nan), "t must"),
    case(TOL.one_layer_output, dict(one_layer, W0=np.eye(3)), "W0"),
    case(TOL.one_layer_output, dict(one_layer, W0=np.full((2, 2), np.inf)), "W0"),
    case(TOL.one_layer_output, dict(one_layer, z=[1.0, np.nan]), "z must"),
    case(TOL.one_layer_output, dict(one_layer, a=[-1.0, 1.0]), "a must"),
    case(TSY.authors_a, dict(mu=[1.0, 2.0], sigma=0.1, d=1), "d >= s"),
    case(TSY.authors_a, dict(mu=[1.0, 2.0], sigma=[0.1], d=2), "sigma"),
    case(TSY.authors_a, dict(mu=[1.0, 2.0], sigma="x", d=2), "sigma"),
    case(TSY.authors_a, dict(mu=[np.nan], sigma=0.1, d=2), "mu"),
    case(TSY.authors_a, dict(mu=[1.0], sigma=0.1, d=10**12), "d = 1000000000000"),
    case(TSY.dynamics_a, dict(mu=[1.0], sigma=0.1, d=2, matrix="other"), "matrix"),
    case(TSY.dynamics_a, dict(mu=[1.0], sigma=0.1, d=2, origin_cluster=True), "origin_cluster"),
    case(TSY.dynamics_a, dict(mu=[1.0], sigma=0.1, d=2, origin_cluster="yes"), "origin_cluster"),
    case(TSY.dynamics_a, dict(mu=[1.0, np.nan], sigma=0.1, d=2), "mu"),
    case(TSY.dynamics_a, dict(mu=[1.0], sigma=-0.1, d=2), "sigma"),
    case(TSY.dynamics_a, dict(mu=[1.0], sigma=0.1, d=2.0), "d must"),
    case(TSY.u_step_to_w_eta, dict(lr=0.0), "lr"),
    case(TSY.symmetric_step, dict(W=np.eye(3), a=A2, eta=0.1), "W must"),
    case(TSY.symmetric_step, dict(W=np.eye(2), a=A2, eta=-1.0), "eta"),
    case(TSY.symmetric_step, dict(W=np.full((2, 2), np.nan), a=A2, eta=0.1), "W must"),
    case(TSY.symmetric_step, dict(W=np.eye(2), a=[1.0, np.inf], eta=0.1), "a must"),
    case(TSY.gsn_terms, dict(W=np.eye(2), a=[]), "a must"),
    case(TSY.gsn_terms, dict(W=np.eye(2, 3), a=A2), "W must"),
    case(SYM_BATCH.pick, dict(b=5), "b must"),
    case(SYM.pick, dict(b=0), "batched record"),
    case(SIMU.simulate_symmetric, dict(sim_kw, U0=np.eye(3)), "U0"),
    case(SIMU.simulate_symmetric, dict(sim_kw, steps=0), "steps"),
    case(SIMU.simulate_symmetric, dict(sim_kw, steps=1.5), "steps"),
    case(SIMU.simulate_symmetric, dict(sim_kw, record_every=0), "record_every"),
    case(SIMU.simulate_symmetric, dict(sim_kw, iterate="V"), "iterate"),
    case(SIMU.simulate_symmetric, dict(sim_kw, x_hat=[1.0]), "x_hat"),
    case(SIMU.simulate_symmetric, dict(sim_kw, a=[[1.0, 0.5]]), "a must"),
    case(SIMU.simulate_symmetric, dict(sim_kw, eta=np.inf), "eta"),
    case(SIMU.simulate_symmetric, dict(sim_kw, progress="no"), "progress"),
    case(SIMU.simulate_symmetric, dict(sim_kw, steps=10**10), "steps = 10000000000"),
    case(SIMU.simulate_symmetric, dict(sim_kw, U0=np.zeros((1000, 20, 20)), a=np.ones(20), x_hat=np.ones(20),
                                    steps=10**8, record_every=10**8), "steps = 100000000"),
    case(TST.detect_stages, dict(record=SYM_BATCH, s=2), "single trajectory"),
    case(TST.detect_stages, dict(record=None, s=2), "record must"),
    case(TST.detect_stages, dict(record=SYM, s=0), "s must"),
    case(TST.detect_stages, dict(record=SYM, s=5), "s must"),
    case(TST.detect_stages, dict(record=SYM, s=2, growth_level=np.nan), "growth_level"),
    case(TST.detect_stages, dict(record=SYM, s=2, rel_tol=-1.0), "rel_tol"),
    case(TST.count_descents, dict(test_loss=[[1.0, np.nan]]), "test_loss"),
    case(TST.count_descents, dict(test_loss=np.zeros((2, 2, 2))), "test_loss"),
    case(TST.count_descents, dict(test_loss=[1.0, 2.0], rel_tol=-1.0), "rel_tol"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.0, eta=0.01), "omega"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.01, eta=0.0), "eta"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.01, eta=0.01, beta=0.5), "beta"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.01, eta=0.01, d=0), "d must"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.01, eta=0.01, K=10.0), "K must"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.01, eta=0.01, P=1.0), "P must"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.01, eta=0.01, kappa=1.0), "kappa"),
    case(TSET.check_assumptions, dict(a=A2, omega=0.01, eta=0.01, C=-1.0), "C must"),
    case(TSET.check_assumptions, dict(a=[0.0, 0.0], omega=0.01, eta=0.01), "a must"),
    case(SIMU.initial_U, dict(d=3, seeds=[]), "seeds"),
    case(SIMU.initial_U, dict(d=3, seeds=[1.5]), "seeds[0]"),
    case(SIMU.initial_U, dict(d=3, seeds=None), "seeds"),
    case(SIMU.initial_U, dict(d=3, seeds=2**64), "seeds"),
    case(SIMU.initial_U, dict(d=0, seeds=[0]), "d must"),
    case(SIMU.initial_U, dict(d=3, seeds=[0], d_prime=2), "d_prime"),
    case(SIMU.initial_U, dict(d=3, seeds=[0], init="x"), "init"),
    case(SIMU.initial_U, dict(d=3, seeds=[0], init_scale=0.0), "init_scale"),
    case(SIMU.initial_U, dict(d=3, seeds=range(10**9)), "1000000000 seeds"),
    case(TOL.one_layer_output_with_bias, dict(with_bias, b0=[1.0]), "b0"),
    case(TOL.one_layer_output_with_bias, dict(with_bias, a=[1.0, -1.0]), "a must"),
    case(TOL.one_layer_output_with_bias, dict(with_bias, z=[1.0, 1.0, 1.0]), "z must"),
    case(TOL.one_layer_output_with_bias, dict(with_bias, mean=[np.nan, 0.0]), "mean"),
    case(TOL.one_layer_output_with_bias, dict(with_bias, t=-1.0), "t must"),
    case(TOL.one_layer_output_with_bias, dict(with_bias, W0=np.zeros((2, 2, 2))), "W0"),
    case(TSTAT.descent_statistics, dict(stats_kw, n_seeds=0), "n_seeds"),
    case(TSTAT.descent_statistics, dict(stats_kw, n_seeds=2**40), "1099511627776 seeds"),
    case(TSTAT.descent_statistics, dict(stats_kw, rel_tol=-1.0), "rel_tol"),
    case(TSTAT.descent_statistics, dict(stats_kw, eta=0.0), "eta"),
    case(TSTAT.descent_statistics, dict(stats_kw, steps=0), "steps"),
    case(TSTAT.descent_statistics, dict(stats_kw, iterate="x"), "iterate"),
    case(TSTAT.descent_statistics, dict(stats_kw, matrix="x"), "matrix"),
    case(TSTAT.descent_statistics, dict(stats_kw, init="x"), "init"),
    case(TSTAT.descent_statistics, dict(stats_kw, record_every=0), "record_every"),
    case(TSTAT.descent_statistics, dict(stats_kw, mu=(1.0, -2.0)), "mu"),
    case(TSTAT.descent_statistics, dict(stats_kw, sigma=(0.1,)), "sigma"),
    case(TSTAT.descent_statistics, dict(stats_kw, d=1), "d >= s"),
    case(TSTAT.descent_statistics, dict(stats_kw, init_scale=-1.0), "init_scale"),
    case(TSTAT.descent_statistics, dict(stats_kw, d_prime=1), "d_prime"),
    case(TSTAT.descent_statistics, dict(stats_kw, origin_cluster=True), "origin_cluster"),
    case(TSET.TheorySetting, dict(setting_kw, name=1), "name"),
    case(TSET.TheorySetting, dict(setting_kw, mu=(-1.0,)), "mu"),
    case(TSET.TheorySetting, dict(setting_kw, d=1), "d >= s"),
    case(TSET.TheorySetting, dict(setting_kw, init_scale=0.0), "init_scale"),
    case(TSET.TheorySetting, dict(setting_kw, steps=0), "steps"),
    case(TSET.TheorySetting, dict(setting_kw, seed=-1), "seed"),
    case(TSET.TheorySetting, dict(setting_kw, eta=0.0), "eta"),
    case(TSET.TheorySetting, dict(setting_kw, origin_cluster="no"), "origin_cluster"),
    case(TSET.TheorySetting, dict(setting_kw, sigma=(0.1, 0.1, 0.1)), "sigma"),
    case(SETTING.run, dict(seeds=[1.5], steps=5), "seeds[0]"),
    case(SETTING.statistics, dict(matrix="x"), "matrix"),
    case(SETTING.statistics, dict(iterate="x", n_seeds=1), "iterate"),
    case(SETTING.statistics, dict(rel_tol=-1.0, n_seeds=1), "rel_tol"),
    case(SETTING.statistics, dict(record_every=0, n_seeds=1), "record_every"),
    case(SETTING.run, dict(matrix="x"), "matrix"),
    case(SETTING.run, dict(steps=0), "steps"),
    case(SETTING.run, dict(iterate="x", steps=5), "iterate"),
    case(SETTING.run, dict(record_every=0, steps=5), "record_every"),
    case(SETTING.U0, dict(seeds=[-1]), "seeds[0]"),
    case(SETTING.a, dict(matrix="x"), "matrix"),
    case(SETTING.statistics, dict(n_seeds=0), "n_seeds"),
    case(TST.escape_time, dict(record=SYM, p=5), "p must"),
    case(TST.escape_time, dict(record=SYM, p=1.5), "p must"),
    case(TST.escape_time, dict(record=SYM, level=1.0), "level"),
    case(TST.escape_time, dict(record=SYM, level=np.nan), "level"),
    case(TST.escape_time, dict(record=None), "record must"),
    case(TSTAT.phase_diagram, dict(phase_kw, d_values=[]), "d_values"),
    case(TSTAT.phase_diagram, dict(phase_kw, d_values=[2.5]), "d_values[0]"),
    case(TSTAT.phase_diagram, dict(phase_kw, taus=[-1.0]), "taus[0]"),
    case(TSTAT.phase_diagram, dict(phase_kw, taus=[]), "taus"),
    case(TSTAT.phase_diagram, dict(phase_kw, n_seeds=0), "n_seeds"),
    case(TSTAT.phase_diagram, dict(phase_kw, steps=0), "steps"),
    case(TSTAT.phase_diagram, dict(phase_kw, matrix="x"), "matrix"),
    case(TSTAT.phase_diagram, dict(phase_kw, eta=0.0), "eta"),
    case(TSTAT.phase_diagram, dict(phase_kw, eta=5.0), "eta = 5.0 is too large"),
    case(TSTAT.phase_diagram, dict(phase_kw, rel_tol=-1.0), "rel_tol"),
    case(TSTAT.phase_diagram, dict(phase_kw, mu=(1.0, 2.0, 3.0)), "d >= s"),
    case(TSTAT.phase_diagram, dict(phase_kw, mu=(1.0, np.nan)), "mu"),
    case(TOL.mean_vector, dict(mu=[1.0, -2.0], n_clusters=3, d=4), "mu"),
    case(TOL.mean_vector, dict(mu=[1.0, 2.0], n_clusters=1, d=4), "n_clusters"),
    case(TOL.mean_vector, dict(mu=[1.0, 2.0], n_clusters=0, d=4), "n_clusters"),
    case(TOL.mean_vector, dict(mu=[1.0, 2.0], n_clusters=3, d=1), "d must"),
    case(TOL.augmented_moment, dict(a=A2, mean=[1.0]), "mean"),
    case(TOL.augmented_moment, dict(a=[1.0, -1.0], mean=[0.0, 0.0]), "a must"),
    case(TOL.augmented_moment, dict(a=A2, mean=[0.0, 0.0], s=3), "s must"),
    case(TOL.augmented_moment, dict(a=A2, mean=[0.0, 0.0], s=0), "s must"),
    case(TSY.population_loss, dict(W=np.eye(3), a=A2), "W must"),
    case(TSY.population_loss, dict(W=np.eye(2), a=[1.0, np.nan]), "a must"),
    case(TST.stage_alignment, dict(stages=None, a=A2), "stages"),
    case(TST.stage_alignment, dict(stages=STAGES, a=[1.0]), "a must"),
    case(TST.stage_alignment, dict(stages=STAGES, a=[1.0, -1.0]), "a must"),
    case(SETTING.run_with_stages, dict(matrix="x"), "matrix"),
    case(SETTING.run_with_stages, dict(rel_tol=-1.0), "rel_tol"),
    case(SETTING.run_with_stages, dict(record_every=0), "record_every"),
    case(TSTAT.phase_diagram, dict(phase_kw, sigma=-1.0), "sigma"),
    # ------------------------------------------------------------------ plotting
    case(SPL.plot_sim_3d, dict(data=None), "data"),
    case(SPL.plot_sim_3d, dict(data=DATA, ax=AX), "ax must"),
    case(SPL.plot_sim_3d, dict(data=DATA, max_points=0), "max_points"),
    case(SPL.plot_sim_3d, dict(data=DATA, seed=-1), "seed"),
    case(TP.plot_entry_types, dict(d=100, s=2), "d must"),
    case(TP.plot_entry_types, dict(d=3, s=0), "s must"),
    case(TP.plot_entry_types, dict(d=3, s=5), "s must"),
    case(TP.plot_entry_types, dict(d=3, s=2, group=1.5), "group"),
    case(TP.plot_entry_types, dict(d=3, s=2, ax="x"), "ax must"),
    case(TP.plot_output_trajectory, dict(ax=AX, record=SYM, mu=[1.0] * 4), "mu has 4"),
    case(TP.plot_output_trajectory, dict(ax=AX, record=SYM, mu=[1.0, 1.0], dims=(0, 2)), "dims[1]"),
    case(TP.plot_output_trajectory, dict(ax=AX, record=SYM, mu=[1.0, 1.0], centres="yes"), "centres"),
    case(TP.plot_output_trajectory, dict(ax=AX, record=None, mu=[1.0, 1.0]), "record must"),
    case(TP.plot_output_trajectory, dict(ax=None, record=SYM, mu=[1.0, 1.0]), "ax must"),
    case(OP.plot_sweep_trajectories, dict(ax=AX, records=[REC], labels=[]), "labels"),
    case(OP.plot_sweep_trajectories, dict(ax=AX, records=[DIVERGED], labels=["x"]), "diverged"),
    case(OP.plot_sweep_trajectories, dict(ax=AX, records=[REC], labels=["x"], n_markers=0), "n_markers"),
    case(OP.plot_sweep_trajectories, dict(ax=AX, records=[REC], labels=["x"], legend="x"), "legend"),
    case(OP.plot_sweep_trajectories, dict(ax=AX, records=[None], labels=["x"]), "records[0]"),
    case(OP.plot_sweep_trajectories, dict(ax=AX, records=[REC], labels=["x"], title=3), "title"),
    case(OP.plot_sweep_trajectories, dict(ax=None, records=[REC], labels=["x"]), "ax must"),
    case(OP.plot_test_losses, dict(ax=AX, records=[REC, REC], labels=["a"]), "labels"),
    case(OP.plot_test_losses, dict(ax=AX, records=[REC], labels=["a"], logx=None), "logx"),
    case(OP.plot_test_losses, dict(ax=AX, records=None, labels=["a"]), "records"),
    case(OP.plot_test_losses, dict(ax=AX, records=[REC], labels=["a"], title=["t"]), "title"),
    case(OP.plot_test_losses, dict(ax="ax", records=[REC], labels=["a"]), "ax must"),
    case(OP.plot_hypercube, dict(ax=AX, test_index=IDX2, losses=[1.0]), "losses"),
    case(OP.plot_hypercube, dict(ax=AX, test_index=IDX2, losses=[1.0, 1.0, np.nan, 1.0]), "losses"),
    case(OP.plot_hypercube, dict(ax=AX, test_index=IDX2, losses=[1.0] * 4, vmax=0.0), "vmax"),
    case(OP.plot_hypercube, dict(ax=AX, test_index=IDX9, losses=np.zeros(512)), "test_index"),
    case(OP.plot_hypercube, dict(ax=AX, test_index=IDX2, losses=[1.0] * 4, cmap="nocmap"), "cmap"),
    case(OP.plot_hypercube, dict(ax=AX, test_index=IDX2, losses=[1.0] * 4, cmap=3), "cmap"),
    case(OP.plot_hypercube, dict(ax=AX, test_index=IDX2, losses=[1.0] * 4, title=1), "title"),
    case(OP.plot_hypercube, dict(ax=None, test_index=IDX2, losses=[1.0] * 4), "ax must"),
    # ------------------------------------------------------------------ widgets
    case(SX.sim_data_explorer, dict(mu=(1.0, 2.0)), "mu must"),
    case(SX.sim_data_explorer, dict(mu=(1.0, 2.0, 5.0)), "mu must"),
    case(SX.sim_data_explorer, dict(sigma=(0.1, 0.1, 2.0)), "sigma must"),
    case(SX.sim_data_explorer, dict(n_per_cluster=0), "n_per_cluster"),
    case(SX.sim_data_explorer, dict(n_per_cluster=10**6), "n_per_cluster"),
    case(TX.symmetric_dynamics_explorer, dict(mu=(1.0, 1.5, 2.0)), "mu must"),
    case(TX.symmetric_dynamics_explorer, dict(mu=(0.1, 1.0)), "mu must"),
    case(TX.symmetric_dynamics_explorer, dict(sigma=2.0), "sigma"),
    case(TX.symmetric_dynamics_explorer, dict(init_scale=2.0), "init_scale"),
    case(TX.symmetric_dynamics_explorer, dict(seed=-1), "seed"),
    case(TX.symmetric_dynamics_explorer, dict(seed=2**31), "seed"),
    case(TX.symmetric_dynamics_explorer, dict(seed=1.5), "seed"),
    case(TX.symmetric_dynamics_explorer, dict(steps=0), "steps"),
    case(TX.symmetric_dynamics_explorer, dict(steps=10**7), "steps"),
    case(TX.symmetric_dynamics_explorer, dict(eta=0.0), "eta"),
    case(OX.trajectory_explorer, dict(n_per_cluster=0), "n_per_cluster"),
    case(OX.trajectory_explorer, dict(epochs=1.5), "epochs"),
    case(OX.trajectory_explorer, dict(seed=None), "seed"),
    # ------------------------------------------------------------------ diffusion: concept space
    case(CS.pixel_measure, dict(images=np.zeros((2, 3, 8))), "images"),
    case(CS.pixel_measure, dict(images=np.full((1, 3, 8, 8), 2.0)), "images"),
    case(CS.pixel_measure, dict(images=np.zeros((0, 3, 8, 8))), "images"),
    # ------------------------------------------------------------------ diffusion: classifier
    case(C.ConceptClassifier, dict(width=0), "width"),
    case(C.ConceptClassifier, dict(width=1.5), "width"),
    case(C.ConceptClassifier, dict(width="16"), "width"),
    case(C.ConceptClassifier, dict(width=10**6), "width"),
    case(CLF.forward, dict(images=torch.zeros(2, 1, 8, 8)), "images"),
    case(CLF.probabilities, dict(images=torch.zeros(0, 3, 8, 8)), "images"),
    case(CLF.probabilities, dict(images=torch.zeros(1, 3, 8, 8), batch=0), "batch"),
    case(C.accuracy_by_class, dict(acc_kw, clf=None), "clf"),
    case(C.accuracy_by_class, dict(acc_kw, n_per_class=0), "n_per_class"),
    case(C.accuracy_by_class, dict(acc_kw, n_per_class=10**9), "n_per_class = 1000000000"),
    case(C.accuracy_by_class, dict(acc_kw, seed=None), "seed"),
    case(C.accuracy_by_class, dict(acc_kw, dcs="x"), "dcs"),
    case(C.accuracy_by_class, dict(acc_kw, cfg=dict(image_size=8)), "cfg"),
    # ------------------------------------------------------------------ diffusion: analysis
    case(A.trajectories, dict(res={}), "res must"),
    case(A.trajectories, dict(res=RES_NAN), "unfinished"),
    case(A.trajectories, dict(res=RES_BAD), "res['probs']"),
    case(A.mean_trajectories, dict(res=None), "res must"),
    case(A.valid_fraction, dict(res={}), "res must"),
    case(A.joint_accuracy, dict(res=RES, cls=7), "cls"),
    # ------------------------------------------------------------------ diffusion: plots, explorer
    case(DP.plot_image_grid, dict(images=np.zeros((2, 3, 8, 8))), "images"),
    case(DP.plot_image_grid, dict(images=np.zeros((2, 1, 3, 8, 8)), row_labels=["a"]), "row_labels"),
    case(DP.plot_image_grid, dict(images=np.zeros((2, 1, 3, 8, 8)), row_labels=3), "row_labels"),
    case(DP.plot_image_grid, dict(images=np.zeros((2, 1, 3, 8, 8)), ax="x"), "ax must"),
    case(DP.plot_image_grid, dict(images=np.zeros((2, 1, 3, 8, 8)), title=0), "title"),
    case(DP.plot_image_grid, dict(images=np.full((2, 1, 3, 8, 8), np.nan)), "images"),
    case(DP.plot_trajectories, dict(res=RES, axes=[AX]), "axes"),
    case(DP.plot_trajectories, dict(res=RES_NAN, axes=[AX, AX]), "unfinished"),
    case(DP.plot_mse, dict(res=RES, ax="x"), "ax must"),
    case(DP.plot_mse, dict(res={}), "res must"),
    case(sweep_explorer, dict(res=RES, dc_index=5), "dc_index"),
    case(sweep_explorer, dict(res=RES, seed_index=-1), "seed_index"),
    case(sweep_explorer, dict(res=RES, checkpoint=99), "checkpoint"),
    case(sweep_explorer, dict(res=RES, checkpoint=1.5), "checkpoint"),
    case(sweep_explorer, dict(res=RES_NO_PIX | {"thumbs": np.zeros(3)}), "thumbs"),
    case(sweep_explorer, dict(res={}), "res must"),
    # ------------------------------------------------------------------ record containers
    case(TLP.TrainRecord, dict(steps=REC.steps, epochs=REC.epochs, outputs=REC.outputs[:, :2],
                              test_points=REC.test_points, test_index=REC.test_index,
                              test_loss=REC.test_loss, train_loss=REC.train_loss), "outputs"),
    case(TLP.TrainRecord, dict(steps=REC.steps, epochs=REC.epochs, outputs=REC.outputs,
                              test_points=REC.test_points, test_index=REC.test_index,
                              test_loss=REC.test_loss[:-1], train_loss=REC.train_loss), "test_loss"),
]


def _id(c) -> str:
    func, kwargs = c[0], c[1]
    name = getattr(func, "__qualname__", getattr(func, "__name__", "call"))
    return f"{name}-{','.join(kwargs)}"


def test_the_cases_are_the_public_api():
    """Only the public API (and the loaders) is checked here: internal helpers trust their callers."""
    assert not [_id(c) for c in CASES if not public(c[0])]


@pytest.mark.parametrize("func, kwargs, exc, words", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_names_the_argument(func, kwargs, exc, words):
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDiverged)
        with pytest.raises(exc) as info:
            func(**kwargs)
    assert words in str(info.value), str(info.value)


# --------------------------------------------------------------- a diverged run is reported
def test_diverged_run_is_reported_not_summarised():
    data = S.make_sim([2.0, 4.0], 0.224, 2, 200, origin_cluster=True)
    with pytest.warns(TrainingDiverged, match=r"diverged.*after step \d+ with lr = 1.0"):
        rec = TR.train(MLP(2, 4, width=4), data, lr=1.0, epochs=3)
    assert isinstance(rec.config["diverged_at_step"], int)
    assert np.isnan(rec.test_loss[-1])  # the record shows it; the metrics refuse it
    with pytest.raises(ValueError, match="diverged after step"):
        OL.learning_times(rec)
    with pytest.raises(ValueError, match="diverged after step"):
        OS.record_rise(rec)
    with pytest.warns(TrainingDiverged, match=r"in runs? \[0"):
        recs = SBA.train_batched([MLP(2, 4, width=4), MLP(2, 4, width=4, seed=1)], data, lr=1.0, epochs=3)
    assert recs[0].config["diverged_at_step"] is not None


def test_no_warning_for_a_healthy_run():
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrainingDiverged)
        rec = TR.train(MLP(4, 1), DATA, epochs=2, batch_size=10)
    assert rec.config["diverged_at_step"] is None


# --------------------------------------------------------------- valid borderline inputs
BORDERLINE = [
    (S.make_sim, dict(mu=[0.0, 1.0], sigma=0.0, d=2, n_per_cluster=1, seed=2**32 - 1)),
    (S.make_sim, dict(mu=np.array([1.0]), sigma=np.float32(0.1), d=np.int64(1), n_per_cluster=np.int32(2),
                      origin_cluster=np.True_, seed=np.uint8(3))),
    (MLP, dict(d=np.int64(3), init_scale=0.0)),
    (TR.train, dict(model=MLP(4), data=DATA, epochs=1, batch_size=10**6, record_steps=np.array([0, 1]))),
    (OL.learning_times, dict(rec=REC, frac=1.0)),
    (OH.comparable_pairs, dict(test_index=[[0], [1]])),
    (SIMU.simulate_symmetric, dict(U0=np.full((2, 1), 0.1), a=A2, eta=0.01, steps=1, x_hat=[1.0, 0.0])),
    (SIMU.initial_U, dict(d=2, seeds=np.int64(5))),
    (TSY.dynamics_a, dict(mu=[1.0], sigma=0.1, d=2, matrix="paper", origin_cluster=np.True_)),
    (TOL.one_layer_output, dict(one_layer, t=0)),
    (TX.symmetric_dynamics_explorer, dict(seed=500, steps=10)),
    (sweep_explorer, dict(res=RES, dc_index=1, seed_index=1, checkpoint=0)),
]


@pytest.mark.parametrize("func, kwargs", BORDERLINE, ids=[_id(c) for c in BORDERLINE])
def test_valid_borderline_input_still_works(func, kwargs):
    func(**kwargs)
    plt.close("all")


def test_comparable_pairs_matches_the_definition():
    V = (np.arange(2**4)[:, None] >> np.arange(3, -1, -1)) & 1
    want = [(i, j) for i in range(16) for j in range(16) if i != j and np.all(V[i] <= V[j])]
    assert OH.comparable_pairs(V) == want
