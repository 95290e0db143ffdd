"""The runs of Q2 of ``book/open_questions.md`` (early alignment, App. E.4), measured and checked with
:mod:`swingby.open_questions.alignment`: two-layer MLPs trained with the batched engine's SGD step,
weights and input-output Jacobians recorded at log-spaced steps (seconds; the chapter makes them).
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.runs import run_seed
from swingby.open_questions import alignment as A
from swingby.open_questions.checks import CellCheck
from swingby.sim.batched import StackedMLPs
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.symmetric import dynamics_a, initial_U, simulate_symmetric
from swingby.sim.train_loop import batches, log_steps, record_loop, schedule, steps_per_epoch
from swingby.theory.trained_jacobian import stacked_jacobian

__all__ = ["AlignmentResult", "ModelRuns", "StageParts", "run_alignment", "stage_parts"]

#: the points at which the Jacobian is recorded, in this order
POINTS = ("cluster 1", "cluster 2", "origin", "x_hat")


class AlignmentRecord(NamedTuple):
    """What ``train_alignment`` recorded for ``R`` runs at ``T`` steps."""

    steps: np.ndarray      #: ``(T,)`` recorded SGD steps
    W1: np.ndarray         #: ``(R, T, width, d)`` first-layer weights
    W2: np.ndarray         #: ``(R, T, d, width)`` second-layer weights
    jacobian: np.ndarray   #: ``(R, T, 4, d, d)`` at the points ``POINTS``
    centres: np.ndarray    #: ``(R, 2, d)`` the two clusters' centres, input coordinates
    run_seeds: tuple       #: the seed of every run (data, initialisation, shuffling)


def train_alignment(activation: str, seeds: Sequence[int],
                    rules: A.AlignmentRules = A.ALIGNMENT_RULES) -> AlignmentRecord:
    """Train one two-layer MLP per seed (paired across activations) and record its weights and Jacobians."""
    r = rules
    rs = [run_seed(s, 0, d=r.d, depth=2, stream=r.stream) for s in seeds]
    datas = [make_sim(r.mu, (r.sigma,) * 2, r.d, r.n_per_cluster, origin_cluster=True, rotate=True, seed=x)
             for x in rs]
    models = [MLP(r.d, 2, r.width, activation=activation, init_scale=r.init_scale, seed=x) for x in rs]
    n = datas[0].X.shape[0]
    n_steps = r.epochs * steps_per_epoch(n, r.batch_size)
    sched = schedule(n, lr=r.lr, batch_size=r.batch_size, epochs=r.epochs, full_batch=False, loss="mean",
                      shuffle="once", record_every=None, record_steps=log_steps(n_steps, r.n_records),
                      params=len(rs) * sum(p.numel() for p in models[0].parameters()))
    net = StackedMLPs(models, dict(d=r.d, depth=2, width=r.width, activation=activation, bias=True))
    X = torch.stack([dat.X for dat in datas])
    centres = torch.stack([dat.cluster_centres() for dat in datas])             # (R, 2, d)
    pts = torch.cat([centres, torch.zeros(len(rs), 1, r.d), torch.stack([dat.x_hat for dat in datas])[:, None]], 1)
    rot = torch.stack([dat.rotation for dat in datas])                          # concept -> input
    w1, w2, jac = [], [], []

    def record() -> None:
        w1.append(net.W[0].double().numpy().copy())
        w2.append(net.W[1].double().numpy().copy())
        js = [stacked_jacobian(net, pts[:, p]) for p in range(len(POINTS))]
        jac.append(np.stack([torch.bmm(rot.transpose(1, 2), torch.bmm(J, rot)).double().numpy() for J in js], 1))

    def update(xb: torch.Tensor) -> bool:
        net.sgd_step(xb, r.lr, "mean")
        return True

    with torch.no_grad():
        record_loop(batches(X, sched, "once", rs, False), update, record, sched.record_steps)
    out = AlignmentRecord(sched.record_steps.astype(int), np.stack(w1, 1), np.stack(w2, 1), np.stack(jac, 1),
                          centres.double().numpy(), tuple(rs))
    if not all(np.all(np.isfinite(a)) for a in (out.W1, out.W2, out.jacobian)):
        raise ValueError(f"training diverged (non-finite weights) with lr = {r.lr}")
    return out


def theory_ratio(omega: float, rules: A.AlignmentRules = A.ALIGNMENT_RULES) -> float:
    """The symmetric model's (eq. D.2) median weak / strong growth-time ratio, its Jacobian starting near ``omega``."""
    r = rules
    a = dynamics_a(r.mu, r.sigma, r.d, matrix="paper", origin_cluster=True)
    U0 = initial_U(r.d, list(range(r.theory_seeds)), d_prime=r.width, init="gaussian",
                   init_scale=math.sqrt(omega / r.width))
    rec = simulate_symmetric(U0, a, r.theory_eta, r.theory_steps, np.asarray(r.mu, float), record_every=10,
                             iterate="U")
    ratios = []
    for b in range(r.theory_seeds):
        t = A.stage_times(rec.steps, rec.W[b], r.mu, r.growth_level)
        if 0 < t.strong < t.weak < math.inf:
            ratios.append(t.weak / t.strong)
    if not ratios:
        raise ValueError("the symmetric model grew neither concept in theory_steps: raise theory_steps")
    return float(np.median(ratios))


class ModelRuns(NamedTuple):
    """Every measure of one model's runs (:func:`run_alignment`)."""

    share: np.ndarray           #: ``(n,)`` ``turn_share``
    step_growth: np.ndarray     #: ``(n,)`` the step ``t_g``
    cluster_cos: np.ndarray     #: ``(n,)`` ``cluster_alignment``
    jac_share: np.ndarray       #: ``(n, 4)`` Jacobian direction share before ``t_g`` per point
    jac_spread: np.ndarray      #: ``(n,)`` largest distance of the normalised Jacobians of the points at ``t_g``
    stages: np.ndarray          #: ``(n, 3)`` strong, weak growth and minor peak steps
    stage_ok: np.ndarray        #: ``(n,)`` ``stage_match``
    norm: np.ndarray            #: ``(n, T)`` weight norm over its start
    turned: np.ndarray          #: ``(n, T)`` share of the turning done by each record
    jac_xhat: np.ndarray        #: ``(n, T, d, d)`` the Jacobian at ``x_hat``
    directions: np.ndarray      #: ``(T, width, 2)`` first run's neuron directions on the two concept axes


def _measure(rec: AlignmentRecord, rules: A.AlignmentRules, ratio: float) -> ModelRuns:
    share, kg, cos, js, spread, stg, ok, norm, turned = [], [], [], [], [], [], [], [], []
    for i in range(rec.W1.shape[0]):
        W1, W2 = rec.W1[i], rec.W2[i]
        k = A.growth_step(W1, W2, rules.growth)
        share.append(A.turn_share(W1, W2, rules.growth))
        kg.append(k)
        cos.append(A.cluster_alignment(W1, W2, rec.centres[i], rules.growth))
        js.append([A.jacobian_share(rec.jacobian[i, :, p], k) for p in range(len(POINTS))])
        Jn = rec.jacobian[i, k].reshape(len(POINTS), -1)
        Jn = Jn / np.linalg.norm(Jn, axis=1, keepdims=True)
        spread.append(float(np.max(np.linalg.norm(Jn[:, None] - Jn[None], axis=-1))))
        t = A.stage_times(rec.steps, rec.jacobian[i, :, -1], rules.mu, rules.growth_level)
        stg.append(list(t))
        ok.append(A.stage_match(t, ratio, rules.stage_tol))
        nr = A.weight_norm(W1, W2)
        norm.append(nr / nr[0])
        path = np.concatenate([[0.0], np.cumsum(A.turning(W1, W2))])
        turned.append(path / path[-1] if path[-1] > 0 else path)
    c = rec.centres[0] / np.linalg.norm(rec.centres[0], axis=-1, keepdims=True)
    d1 = (rec.W1[0] / np.linalg.norm(rec.W1[0], axis=-1, keepdims=True)) @ c.T
    return ModelRuns(np.array(share), rec.steps[np.array(kg)], np.array(cos), np.array(js),
                     np.array(spread), np.array(stg), np.array(ok), np.array(norm), np.array(turned),
                     rec.jacobian[:, :, -1], d1)


class AlignmentResult(NamedTuple):
    """What :func:`run_alignment` returns."""

    steps: np.ndarray           #: ``(T,)`` recorded steps
    relu: ModelRuns             #: the ReLU runs
    linear: ModelRuns           #: the linear runs (the null)
    check: CellCheck            #: ``alignment_check``
    sign: A.SignTest            #: :func:`~swingby.open_questions.alignment.paired_sign_test`
    ratio: float                #: the symmetric model's weak / strong growth-time ratio
    omega: float                #: the runs' median initial ``|J_pp|`` at ``x_hat`` the theory starts from
    meta: dict                  #: seeds, the rules and their fingerprint, seconds


def run_alignment(rules: A.AlignmentRules = A.ALIGNMENT_RULES, seeds: Sequence[int] | None = None) -> AlignmentResult:
    """The runs of Q2: both models on the judged seeds, every measure, the check.

    Parameters
    ----------
    rules : AlignmentRules
    seeds : sequence of int, optional
        Default: the judged seeds ``range(rules.seeds)``.
    """
    if not isinstance(rules, A.AlignmentRules):
        raise ValueError(f"rules must be an AlignmentRules, got {type(rules).__name__}")
    seeds = list(range(rules.seeds)) if seeds is None else seed_list("seeds", seeds, distinct=True)
    start = time.process_time()
    recs = {act: train_alignment(act, seeds, rules) for act in ("relu", "linear")}
    j0 = np.concatenate([np.abs(np.diagonal(rec.jacobian[:, 0, -1], axis1=-2, axis2=-1)).ravel()
                         for rec in recs.values()])
    omega = float(np.median(j0))
    ratio = theory_ratio(omega, rules)
    relu, linear = (_measure(recs[a], rules, ratio) for a in ("relu", "linear"))
    meta = dict(seeds=seeds, run_seeds=list(recs["relu"].run_seeds), rules=dataclasses.asdict(rules),
                rules_fingerprint=A.fingerprint(rules), pilot_seeds=list(A.PILOT_SEEDS),
                cpu_seconds=round(time.process_time() - start, 1))
    return AlignmentResult(recs["relu"].steps, relu, linear, A.alignment_check(relu.share, linear.share, rules),
                           A.paired_sign_test(relu.share, linear.share, rules), ratio, omega, meta)


class StageParts(NamedTuple):
    """What :func:`stage_parts` returns: runs meeting each part of the stage rule."""

    strong_first: int      #: the stronger concept's entry grows first
    ratio_ok: int          #: ``weak / strong`` within the factor ``stage_tol`` of the theory's ratio
    peak_between: int      #: the minor entry (signed) peaks between the two growths
    abs_peak_between: int  #: ``|minor entry|`` peaks between them (read after the runs)
    all_parts: int         #: every part of the fixed rule (``ModelRuns.stage_ok``)
    n: int                 #: runs


def stage_parts(runs: ModelRuns, steps, ratio: float, rules: A.AlignmentRules = A.ALIGNMENT_RULES) -> StageParts:
    """Count the runs of one model (``runs``) that meet each part of the stage rule.

    Parameters
    ----------
    runs : ModelRuns
    steps : array_like(int, ndim=1)
        The recorded steps (:attr:`AlignmentResult.steps`).
    ratio : float
        The symmetric model's ``weak / strong`` growth-time ratio (:attr:`AlignmentResult.ratio`).
    rules : AlignmentRules
    """
    _checks.instance("runs", runs, ModelRuns, "ModelRuns")
    st = _checks.array("steps", steps, shape=(runs.jac_xhat.shape[1],))
    ratio = _checks.positive_float("ratio", ratio)
    w, strong = int(np.argmin(rules.mu[:2])), int(np.argmax(rules.mu[:2]))
    peak = st[np.argmax(np.abs(runs.jac_xhat[:, :, w, strong]), axis=1)]  # |J[weak, strong]| largest
    s = runs.stages
    first = (s[:, 0] < s[:, 1]) & np.isfinite(s[:, 1])
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(first, s[:, 1] / s[:, 0], np.nan)
    ok = first & (np.abs(np.log(r / ratio)) <= math.log(rules.stage_tol))
    between = (s[:, 0] <= s[:, 2]) & (s[:, 2] <= s[:, 1])
    abs_between = (s[:, 0] <= peak) & (peak <= s[:, 1])
    return StageParts(int(first.sum()), int(ok.sum()), int(between.sum()), int(abs_between.sum()),
                      int(runs.stage_ok.sum()), int(s.shape[0]))
