"""The paper's central link tested on trained networks (Sec. 4.2.2, issue 23 item 4):
do the stages of the output's swing-by at ``x_hat`` coincide with the stages of the
input-output Jacobian of a *trained* MLP? Chapter: ``book/jacobian_link.md``.

Sec. 4.2 explains the detour of the output at ``x_hat = sum_p mu_p e_p`` by the
stages of the Jacobian ``W``: the major entry of the stronger concept grows first,
the minor entry ``w_ws`` (row of the weaker concept ``w``, column of the stronger
``s``) grows with it, which moves the output toward ``x_hat``, then is suppressed,
which turns the output back toward the stronger training cluster (the test loss
rises), and the weaker concept's major entry grows last (the second descent). The
book checks this in the symmetric model ``U U^T`` (``book/two_layer_theory.md``);
here it is checked on the MLPs of Sec. 3 and App. F, whose Jacobian at ``x_hat`` is
measured over training:

* :func:`train_with_jacobian` trains ``R`` MLPs (one per seed) with the batched
  engine's SGD step and records, at log-spaced steps, the output at ``x_hat``, the
  OOD test loss and the Jacobian at ``x_hat`` in concept coordinates (for a linear
  MLP the product of the weights; for a ReLU MLP the product with the activation
  pattern at ``x_hat``, which :func:`jacobian_at` computes with ``torch.func.jacrev``).
* :func:`jacobian_stages` and :func:`output_stages` read the stage times of one run
  with the thresholds of :data:`JACOBIAN_RULES`, fixed in code before the seeds that
  judge them were run.
* :func:`stage_check` is the per-seed claim check, :func:`pass_matrix` applies it to
  every (output run, Jacobian run) pair, whose off-diagonal is the shuffled-pairing
  null, and :func:`link_test` turns it into counts, an exact permutation test over
  seeds and the verdict word of :mod:`swingby.diffusion.rules`.
"""
from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple, Sequence

import numpy as np
import torch
from scipy import stats

from swingby import _checks
from swingby.diffusion.rules import RULES, Outcome, binomial_p, seeds_needed, verdict
from swingby.sim.batched import _StackedMLPs
from swingby.sim.data import make_sim, std_from_authors_sigma
from swingby.sim.models import ACTIVATIONS, MLP
from swingby.sim.train import log_steps, steps_per_epoch
from swingby.sim.train_loop import _batches, _record_loop, _schedule

#: the architectures the chapter measures: (number of layers, activation)
ARCHITECTURES = ((2, "linear"), (3, "linear"), (2, "relu"), (3, "relu"))

#: the data and training of the paper's Figs. 13, 14 as the authors' code ran them
#: (``book/observations.md``): ``d = 3``, width 3, no rotation, learning rate 0.01,
#: ``mu = (1, 2)``, the authors' ``sigma = 0.05`` (standard deviation 0.224), the
#: origin cluster, 5000 points per cluster, batch 128, 40 epochs.
FIG13_SETTING = dict(mu=(1.0, 2.0), sigma=(float(std_from_authors_sigma(0.05)),) * 2, d=3,
                     width=3, lr=0.01, rotate=False, origin_cluster=True, n_per_cluster=5000,
                     batch_size=128, epochs=40)


@dataclasses.dataclass(frozen=True)
class JacobianRules:
    """The definitions and thresholds of the stage check, fixed before the seeds that
    judge them were run (issue 23, item 1). One frozen instance, :data:`JACOBIAN_RULES`.

    Times are SGD steps; "log time" is ``log(1 + step)``.
    """

    #: a major entry ``w_pp`` has grown at the first record where it reaches this
    #: (the level of ``detect_stages`` in the symmetric model)
    growth_level: float = 0.5
    #: a run swings by when its OOD test loss rises above its running minimum by more
    #: than this share of ``0.5 ||x_hat||^2`` (the threshold of ``book/observations.md``)
    rise_min: float = 0.05
    #: the minor entry ``w_ws`` counts as grown and suppressed when its largest value
    #: (signed: a positive ``w_ws`` moves the output toward ``x_hat``) comes after the
    #: first record, is above its initial value and positive, and is followed by a fall
    #: below this share of it (the level of ``detect_stages``)
    suppression_drop: float = 0.5
    #: the minor entry's peak and the output's turn coincide when their log times
    #: differ by at most this (a factor 1.5 in time)
    peak_tol: float = math.log(1.5)
    #: during the ascent of the test loss ``w_ws`` must decrease over at least this
    #: share of the recorded steps
    shrink_min: float = 0.8
    #: records per run, log-spaced (``swingby.sim.train.log_steps``)
    n_records: int = 200
    #: ``"signed"``: the minor entry's peak is its largest value; ``"abs"``: the largest
    #: ``|w_ws|`` (the first definition, as in ``detect_stages``; :data:`FIRST_RULES`)
    minor_peak: str = "signed"
    #: ``"y_weak"``: the output turns where its weak coordinate does; ``"loss"``: at the
    #: minimum of the test loss before its largest rise (the first definition)
    turn_from: str = "y_weak"

    def __post_init__(self):
        _checks.choice("minor_peak", self.minor_peak, ("signed", "abs"))
        _checks.choice("turn_from", self.turn_from, ("y_weak", "loss"))


#: the rules the chapter's check reads
JACOBIAN_RULES = JacobianRules()
#: the first definitions, revised on development seeds (1000-1059, 2000-2199) before the
#: judged seeds were run: the peak of ``|w_ws|`` and the turn at the test-loss minimum
FIRST_RULES = JacobianRules(minor_peak="abs", turn_from="loss")


# ------------------------------------------------------------------ measuring
@dataclasses.dataclass
class JacobianRecord:
    """What :func:`train_with_jacobian` recorded for ``R`` runs (one per seed) at ``T``
    steps; arrays are NumPy ``float64`` in concept coordinates."""

    steps: np.ndarray  #: ``(T,)`` recorded SGD steps
    jacobian: np.ndarray  #: ``(R, T, d, d)``: ``[r, t, i, j] = d f_i / d x_j`` at ``x_hat``
    output: np.ndarray  #: ``(R, T, d)`` the output ``f(x_hat)``
    test_loss: np.ndarray  #: ``(R, T)`` ``0.5 ||f(x_hat) - x_hat||^2``
    x_hat: np.ndarray  #: ``(d,)`` the test point
    mu: np.ndarray  #: ``(s,)`` cluster distances
    seeds: tuple  #: the seed of every run
    config: dict = dataclasses.field(default_factory=dict)  #: the settings

    @property
    def strong(self) -> int:
        """Index of the concept with the larger ``mu`` (learned first)."""
        return int(np.argmax(self.mu))

    @property
    def weak(self) -> int:
        """Index of the concept with the smaller ``mu`` (learned second)."""
        return int(np.argmin(self.mu))

    def minor(self) -> np.ndarray:
        """``(R, T)`` the minor entry ``w_ws`` (weaker concept's row, stronger's column)."""
        return self.jacobian[:, :, self.weak, self.strong]


def jacobian_at(model: MLP, x: torch.Tensor) -> torch.Tensor:
    """The input-output Jacobian ``d f / d x`` of one MLP at one input, by
    ``torch.func.jacrev`` (row ``i`` is output ``i``). Used by ``tests`` to check the
    batched Jacobian of :func:`train_with_jacobian`; ``book/jacobian_link.md``.

    Parameters
    ----------
    model : MLP
        A :class:`~swingby.sim.models.MLP`, linear or ReLU.
    x : torch.Tensor
        One input of shape ``(d,)`` in the model's dtype.

    Returns
    -------
    torch.Tensor
        ``(d, d)``.
    """
    _checks.instance("model", model, MLP, "swingby.sim.models.MLP")
    if not isinstance(x, torch.Tensor) or tuple(x.shape) != (model.d,):
        raise ValueError(f"x must be a torch.Tensor of shape (d,) = ({model.d},), got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    return torch.func.jacrev(model)(x.to(model.layers[0].weight.dtype)).detach()


def _stacked_jacobian(net: _StackedMLPs, x: torch.Tensor) -> torch.Tensor:
    """``(R, d, d)`` Jacobians of the stacked MLPs at their inputs ``x`` ``(R, d)``:
    ``W_L D_{L-1} W_{L-1} ... D_1 W_1`` with ``D_k`` the ReLU pattern at ``x``."""
    _, hs = net.forward(x[:, None, :], keep=True)
    J = net.W[0]
    for k in range(1, net.depth):
        if net.relu:
            J = J * (hs[k][:, 0, :, None] > 0)
        J = torch.bmm(net.W[k], J)
    return J


def train_with_jacobian(depth: int, activation: str, seeds: Sequence[int], *,
                        mu=FIG13_SETTING["mu"], sigma=FIG13_SETTING["sigma"],
                        d: int = FIG13_SETTING["d"], width: int = FIG13_SETTING["width"],
                        lr: float = FIG13_SETTING["lr"], rotate: bool = FIG13_SETTING["rotate"],
                        origin_cluster: bool = True,
                        n_per_cluster: int = FIG13_SETTING["n_per_cluster"],
                        batch_size: int = 128, epochs: int = 40,
                        n_records: int = JACOBIAN_RULES.n_records) -> JacobianRecord:
    """Train one MLP per seed (batched) and record its Jacobian and output at ``x_hat``.

    Run ``k`` is the run :func:`swingby.observations.runs.run_sweep` makes for
    ``seeds[k]``: data ``make_sim(mu, sigma, d, n_per_cluster, origin_cluster=...,
    rotate=..., seed=seeds[k])``, model ``MLP(d, depth, width, activation=...,
    seed=seeds[k])`` (with bias), SGD with the loss averaged over batch and dimensions,
    data shuffled once with ``seeds[k]``. Defaults: the paper's Figs. 13, 14
    (:data:`FIG13_SETTING`). Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    depth : int
        Number of Linear layers, ``>= 2``.
    activation : {"linear", "relu"}
        Between the layers.
    seeds : sequence of int
        Distinct seeds, one run each.
    mu, sigma : sequence of float
        Cluster distances and standard deviations (two concepts or more).
    d, width : int
        Input and hidden dimension.
    lr : float
        Learning rate, ``> 0``.
    rotate, origin_cluster : bool
        As in :func:`~swingby.sim.data.make_sim`.
    n_per_cluster, batch_size, epochs : int
        Data and schedule.
    n_records : int
        About how many log-spaced steps to record (:func:`~swingby.sim.train.log_steps`).

    Returns
    -------
    JacobianRecord
    """
    depth = _checks.integer("depth", depth, low=2)
    activation = _checks.choice("activation", activation, ACTIVATIONS)
    seeds = _checks.seed_list("seeds", seeds, distinct=True)
    n_records = _checks.positive_int("n_records", n_records)
    datas = [make_sim(mu, sigma, d, n_per_cluster, origin_cluster=origin_cluster, rotate=rotate, seed=s)
             for s in seeds]
    if datas[0].s < 2:
        raise ValueError(f"mu must have at least 2 concepts (a swing-by needs two), got {len(datas[0].mu)}")
    models = [MLP(d, depth, width, activation=activation, seed=s) for s in seeds]
    n = datas[0].X.shape[0]
    n_steps = epochs * steps_per_epoch(n, batch_size)
    sched = _schedule(n, lr=lr, batch_size=batch_size, epochs=epochs, full_batch=False, loss="mean",
                      shuffle="once", record_every=None, record_steps=log_steps(n_steps, n_records),
                      params=len(seeds) * sum(p.numel() for p in models[0].parameters()))
    _checks.memory(8.0 * len(seeds) * len(sched.record_steps) * (d * d + d + 1),
                   f"{len(sched.record_steps)} records of {len(seeds)} runs in d = {d}")
    spec = dict(d=d, depth=depth, width=width, activation=activation, bias=True)
    net = _StackedMLPs(models, spec)
    X = torch.stack([dat.X for dat in datas])
    x_in = torch.stack([dat.x_hat for dat in datas])  # (R, d) input coordinates
    rot = torch.stack([dat.rotation for dat in datas])  # concept -> input
    jac, out = [], []

    def record() -> None:
        J = _stacked_jacobian(net, x_in)
        jac.append(torch.bmm(rot.transpose(1, 2), torch.bmm(J, rot)).double().numpy())
        y = net.forward(x_in[:, None, :])[0][:, 0]
        out.append(torch.bmm(y[:, None, :], rot)[:, 0].double().numpy())

    def update(xb: torch.Tensor) -> bool:
        net.sgd_step(xb, sched.lr, "mean")
        return True

    with torch.no_grad():
        _record_loop(_batches(X, sched, "once", seeds, False), update, record, sched.record_steps)
    jacobian = np.stack(jac, axis=1)
    output = np.stack(out, axis=1)
    x_hat = datas[0].to_concept(datas[0].x_hat).double().numpy()
    if not (np.all(np.isfinite(jacobian)) and np.all(np.isfinite(output))):
        raise ValueError(f"training diverged (non-finite outputs) with lr = {lr}; use a smaller lr")
    return JacobianRecord(
        steps=sched.record_steps.astype(int), jacobian=jacobian, output=output,
        test_loss=0.5 * ((output - x_hat) ** 2).sum(-1), x_hat=x_hat, mu=np.asarray(datas[0].mu, float),
        seeds=tuple(seeds),
        config=dict(depth=depth, activation=activation, d=d, width=width, lr=lr, rotate=rotate,
                    origin_cluster=origin_cluster, n_per_cluster=n_per_cluster, batch_size=batch_size,
                    epochs=epochs, n_steps=n_steps, sigma=tuple(float(v) for v in datas[0].sigma)))


# --------------------------------------------------------------------- stages
class JacobianStages(NamedTuple):
    """The Jacobian's stages in one run (steps; ``inf`` where a stage never comes)."""

    t_strong: float  #: the stronger concept's major entry first reaches ``growth_level``
    t_weak: float  #: the weaker concept's major entry first reaches ``growth_level``
    t_minor: float  #: the minor entry ``w_ws`` peaks (its largest signed value)
    suppressed: bool  #: ``w_ws`` grew to a positive peak and fell below ``suppression_drop`` times it


class OutputStages(NamedTuple):
    """The output path's stages in one run: whether it swings by (from the OOD test
    loss) and when its coordinate along the weaker concept turns back and forth."""

    rise: float  #: largest rise above the running minimum, in units of ``0.5 ||x_hat||^2``
    swings: bool  #: the loss rises by more than ``rise_min`` and falls back by as much
    t_turn: float  #: step at which ``y_w`` turns away from ``mu_w`` (top before its largest fall)
    t_back: float  #: step at which ``y_w`` turns back toward ``mu_w`` (bottom of that fall)


def _curve(name: str, value, n: int | None = None) -> np.ndarray:
    arr = _checks.array(name, value, ndim=1, min_size=2)
    if n is not None and arr.size != n:
        raise ValueError(f"{name} must have one value per recorded step ({n}), got {arr.size}")
    return arr


def _steps(steps) -> np.ndarray:
    st = _curve("steps", steps)
    if np.any(np.diff(st) <= 0) or st[0] < 0:
        raise ValueError("steps must be increasing and >= 0")
    return st


def _rules(rules) -> JacobianRules:
    return _checks.instance("rules", rules, JacobianRules, "swingby.theory.trained_jacobian.JacobianRules")


def jacobian_stages(steps, w_strong, w_weak, w_minor, rules: JacobianRules = JACOBIAN_RULES) -> JacobianStages:
    """Growth times of the two major entries and the peak of the minor entry (Sec.
    4.2.1, with the levels of :data:`JACOBIAN_RULES`). Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        Increasing recorded steps, ``T >= 2``.
    w_strong, w_weak : array_like(float, ndim=1)
        The major entries ``w_ss`` and ``w_ww`` at those steps.
    w_minor : array_like(float, ndim=1)
        The minor entry ``w_ws`` at those steps.
    rules : JacobianRules
        Supplies ``growth_level`` and ``suppression_drop``.

    Returns
    -------
    JacobianStages
    """
    st = _steps(steps)
    ws, ww, wm = (_curve(k, v, st.size) for k, v in
                  (("w_strong", w_strong), ("w_weak", w_weak), ("w_minor", w_minor)))
    rules = _rules(rules)

    def grown(w):
        hit = np.flatnonzero(w >= rules.growth_level)
        return float(st[hit[0]]) if hit.size else math.inf

    if rules.minor_peak == "abs":
        wm = np.abs(wm)
    k = int(np.argmax(wm))
    suppressed = bool(0 < k < wm.size - 1 and wm[k] > max(wm[0], 0.0)
                      and wm[k:].min() < rules.suppression_drop * wm[k])
    return JacobianStages(grown(ws), grown(ww), float(st[k]), suppressed)


def output_stages(steps, test_loss, y_weak, scale: float,
                  rules: JacobianRules = JACOBIAN_RULES) -> OutputStages:
    """Whether the output path at ``x_hat`` swings by, read from the OOD test loss (its
    largest rise above the running minimum, eq. obs-rise of ``book/observations.md``,
    and a fall back by as much), and where the path turns: its coordinate ``y_w``
    along the weaker concept first moves toward ``mu_w``, then falls back (toward the
    stronger concept's training cluster) and finally returns; ``t_turn`` and
    ``t_back`` are the top and the bottom of the largest fall of ``y_w`` below its
    running maximum. Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        Increasing recorded steps, ``T >= 2``.
    test_loss : array_like(float, ndim=1)
        The OOD test loss at those steps.
    y_weak : array_like(float, ndim=1)
        The output's coordinate along the weaker concept at those steps.
    scale : float
        The unit of the rise, ``> 0`` (``0.5 ||x_hat||^2``).
    rules : JacobianRules
        Supplies ``rise_min``.

    Returns
    -------
    OutputStages
    """
    st = _steps(steps)
    L = _curve("test_loss", test_loss, st.size)
    y = _curve("y_weak", y_weak, st.size)
    scale = _checks.positive_float("scale", scale)
    rules = _rules(rules)
    climb = L - np.minimum.accumulate(L)
    k_top = int(np.argmax(climb))
    rise = float(climb[k_top] / scale)
    fall = float((L[k_top] - L[k_top:].min()) / scale)
    if rules.turn_from == "loss":
        k_back, k_turn = k_top, int(np.argmin(L[:k_top + 1]))
    else:
        k_back = int(np.argmax(np.maximum.accumulate(y) - y))
        k_turn = int(np.argmax(y[:k_back + 1]))
    return OutputStages(rise, rise > rules.rise_min and fall > rules.rise_min, float(st[k_turn]),
                        float(st[k_back]))


def _log_lag(t_a: float, t_b: float) -> float:
    return float(math.log1p(t_a) - math.log1p(t_b)) if math.isfinite(t_a) and math.isfinite(t_b) else math.inf


def stage_check(steps, out: OutputStages, jac: JacobianStages, w_minor,
                rules: JacobianRules = JACOBIAN_RULES) -> bool:
    """The per-seed claim check of Sec. 4.2.2 on a trained network: the output's
    swing-by stages coincide with the Jacobian's growth and suppression stages.

    It holds when the output swings by (``out.swings``: the test loss rises and falls
    back) and (1) the stronger concept's major entry has grown by the time the output's
    weak coordinate ``y_w`` ends its fall (the first growth comes before the detour
    ends); (2) the minor entry ``w_ws`` peaks within ``peak_tol`` (log time) of the
    turn of ``y_w`` away from ``mu_w`` and is later suppressed; (3) ``w_ws`` decreases
    over at least ``shrink_min`` of the recorded steps of the fall of ``y_w``; (4) the
    weaker concept's major entry grows only after ``y_w`` turns back (the second
    growth ends the detour). Passing the stages and minor entry of *another* run gives
    the shuffled-pairing null (:func:`pass_matrix`).

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        The recorded steps of both runs.
    out : OutputStages
        From :func:`output_stages`.
    jac : JacobianStages
        From :func:`jacobian_stages`.
    w_minor : array_like(float, ndim=1)
        The minor entry ``w_ws`` of the run ``jac`` comes from.
    rules : JacobianRules
        The thresholds.

    Returns
    -------
    bool
    """
    return stage_conditions(steps, out, jac, w_minor, rules).holds


class StageConditions(NamedTuple):
    """The parts of :func:`stage_check` for one (output run, Jacobian run) pair."""

    swings: bool  #: the output swings by
    strong_first: bool  #: (1) the stronger major entry has grown before the detour ends
    minor_at_turn: bool  #: (2) the minor entry peaks at the turn and is suppressed
    minor_falls: bool  #: (3) the minor entry decreases while ``y_w`` falls
    weak_after: bool  #: (4) the weaker major entry grows after ``y_w`` turns back

    @property
    def holds(self) -> bool:
        """All five hold."""
        return all(self)


def stage_conditions(steps, out: OutputStages, jac: JacobianStages, w_minor,
                     rules: JacobianRules = JACOBIAN_RULES) -> StageConditions:
    """The conditions of :func:`stage_check` one by one, to show which of them fail.

    Parameters
    ----------
    steps : array_like(float, ndim=1)
        The recorded steps of both runs.
    out : OutputStages
        From :func:`output_stages`.
    jac : JacobianStages
        From :func:`jacobian_stages`.
    w_minor : array_like(float, ndim=1)
        The minor entry ``w_ws`` of the run ``jac`` comes from.
    rules : JacobianRules
        The thresholds.

    Returns
    -------
    StageConditions
    """
    st = _steps(steps)
    _checks.instance("out", out, OutputStages, "OutputStages (from output_stages)")
    _checks.instance("jac", jac, JacobianStages, "JacobianStages (from jacobian_stages)")
    rules = _rules(rules)
    m = _curve("w_minor", w_minor, st.size)
    m = np.abs(m) if rules.minor_peak == "abs" else m
    window = m[(st >= out.t_turn) & (st <= out.t_back)]
    shrink = float(np.mean(np.diff(window) < 0)) if window.size >= 2 else 0.0
    t_first = out.t_turn if rules.turn_from == "loss" else out.t_back
    return StageConditions(
        bool(out.swings), bool(jac.t_strong <= t_first),
        bool(jac.suppressed and abs(_log_lag(jac.t_minor, out.t_turn)) <= rules.peak_tol),
        shrink >= rules.shrink_min, bool(jac.t_weak >= out.t_back))


class RunStages(NamedTuple):
    """The stages of every run of a :class:`JacobianRecord`."""

    output: list  #: one :class:`OutputStages` per run
    jacobian: list  #: one :class:`JacobianStages` per run
    lag: np.ndarray  #: ``(R,)`` log-time lag of the minor peak behind the output's turn


def run_stages(record: JacobianRecord, rules: JacobianRules = JACOBIAN_RULES) -> RunStages:
    """:func:`output_stages` and :func:`jacobian_stages` of every run of ``record``.

    Parameters
    ----------
    record : JacobianRecord
        From :func:`train_with_jacobian`.
    rules : JacobianRules
        The thresholds.

    Returns
    -------
    RunStages
    """
    record = _checks.instance("record", record, JacobianRecord, "JacobianRecord (from train_with_jacobian)")
    rules = _rules(rules)
    scale = 0.5 * float(np.sum(record.x_hat ** 2))
    s, w = record.strong, record.weak
    outs = [output_stages(record.steps, L, y[:, w], scale, rules)
            for L, y in zip(record.test_loss, record.output)]
    jacs = [jacobian_stages(record.steps, J[:, s, s], J[:, w, w], J[:, w, s], rules) for J in record.jacobian]
    lag = np.array([_log_lag(j.t_minor, o.t_turn) for o, j in zip(outs, jacs)])
    return RunStages(outs, jacs, lag)


def pass_matrix(record: JacobianRecord, rules: JacobianRules = JACOBIAN_RULES,
                runs: Sequence[int] | None = None) -> np.ndarray:
    """:func:`stage_check` of the output stages of run ``i`` against the Jacobian of run
    ``j``, for every pair of runs. The diagonal is the check itself; an off-diagonal
    entry is the shuffled-pairing null (another seed's Jacobian stages, which share
    the setting's timing but not the run's).

    Parameters
    ----------
    record : JacobianRecord
        From :func:`train_with_jacobian`.
    rules : JacobianRules
        The thresholds.
    runs : sequence of int, optional
        Only these runs (e.g. the swinging ones); default all.

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` booleans for the ``n`` runs, rows the output runs, columns the
        Jacobian runs.
    """
    rs = run_stages(record, rules)
    minor = record.minor()
    R = len(rs.output)
    runs = range(R) if runs is None else [_checks.index("runs[k]", r, R) for r in runs]
    return np.array([[stage_check(record.steps, rs.output[i], rs.jacobian[j], minor[j], rules)
                      for j in runs] for i in runs], dtype=bool).reshape(len(runs), len(runs))


class LinkResult(NamedTuple):
    """What :func:`link_test` found for one architecture."""

    n_runs: int  #: runs (seeds) trained
    swinging: np.ndarray  #: indices of the runs whose output swings by
    n_pass: int  #: swinging runs that pass :func:`stage_check` with their own Jacobian
    null_rate: float  #: share of (run, other swinging run's Jacobian) pairs that pass
    p_permutation: float  #: exact permutation test over re-pairings of the seeds
    p_binomial: float  #: ``binomial_p(n_pass, n_swing, null_rate)``
    lag: np.ndarray  #: log-time lag of each swinging run's minor peak behind its own turn
    lag_null: np.ndarray  #: the same lag against every other swinging run's turn (flat)
    p_lag: float  #: permutation test that the own-run ``|lag|`` is smaller than re-paired
    outcome: Outcome  #: for :func:`swingby.diffusion.rules.verdict`
    verdict: str  #: the verdict word
    seeds_needed: int | None  #: swinging seeds that would decide it (rules' power)


def link_test(record: JacobianRecord, rules: JacobianRules = JACOBIAN_RULES, *,
              n_resamples: int = RULES.n_resamples, seed: int = 0) -> LinkResult:
    """The chapter's test of the link over seeds: the seeds (swinging runs) are the
    independent units. The null re-pairs each run's output stages with another
    swinging run's Jacobian; its pass rate is the mean off-diagonal of
    :func:`pass_matrix`, the p-value of the pass count comes from
    ``scipy.stats.permutation_test`` over random re-pairings (``permutation_type=
    "pairings"``) and from the binomial test of :func:`~swingby.diffusion.rules.binomial_p`,
    and the verdict from :func:`~swingby.diffusion.rules.verdict`. Used in
    ``book/jacobian_link.md``.

    Parameters
    ----------
    record : JacobianRecord
        From :func:`train_with_jacobian`.
    rules : JacobianRules
        The thresholds.
    n_resamples : int
        Random re-pairings of the permutation test, ``> 0``.
    seed : int
        Seed of the re-pairings.

    Returns
    -------
    LinkResult
    """
    n_resamples = _checks.positive_int("n_resamples", n_resamples)
    seed = _checks.seed("seed", seed)
    rs = run_stages(record, rules)
    swinging = np.flatnonzero([o.swings for o in rs.output])
    M = pass_matrix(record, rules, swinging)
    n = len(swinging)
    lags = np.array([[_log_lag(rs.jacobian[j].t_minor, rs.output[i].t_turn) for j in swinging]
                     for i in swinging]).reshape(n, n)
    off = ~np.eye(n, dtype=bool)
    n_pass = int(np.trace(M)) if n else 0
    null_rate = float(M[off].mean()) if n >= 2 else 1.0
    if n >= 2:
        res = stats.permutation_test((np.arange(n),), lambda i: M[i, np.arange(n)].sum(),
                                     permutation_type="pairings", n_resamples=n_resamples, vectorized=False,
                                     alternative="greater", random_state=seed)
        p_perm = float(res.pvalue)
        absl = np.minimum(np.abs(lags), 50.0)  # inf (no stage) counts as a very large lag
        res = stats.permutation_test((np.arange(n),), lambda i: -absl[i, np.arange(n)].mean(),
                                     permutation_type="pairings", n_resamples=n_resamples,
                                     vectorized=False, alternative="greater", random_state=seed)
        p_lag = float(res.pvalue)
    else:
        p_perm = p_lag = 1.0
    outcome = Outcome(n_pass, n, null_rate, decidable=n >= 2)
    return LinkResult(len(record.seeds), swinging, n_pass, null_rate, p_perm,
                      binomial_p(n_pass, n, null_rate), np.diag(lags).copy(), lags[off],
                      p_lag, outcome, verdict(outcome),
                      seeds_needed(n_pass / n, null_rate) if n else None)


class FallShares(NamedTuple):
    """What moves the output's weak coordinate ``y_w`` during its fall (one row per run)."""

    minor: np.ndarray  #: ``mu_s * (change of w_ws)`` over the fall, as a share of the fall of ``y_w``
    major: np.ndarray  #: ``mu_w * (change of w_ww)``, as a share
    rest: np.ndarray  #: everything else (the bias, and for ReLU the offset of the active pattern)


def fall_shares(record: JacobianRecord, runs: Sequence[int],
                rules: JacobianRules = JACOBIAN_RULES, *, phase: str = "fall") -> FallShares:
    """Split the fall of the output's weak coordinate, ``y_w(t_back) - y_w(t_turn)``, into
    the part the minor entry moves (``mu_s * delta w_ws``), the part the major entry moves
    (``mu_w * delta w_ww``) and the rest (``f(x_hat) = J x_hat + b`` with ``b`` the bias,
    or for a ReLU net the offset of its activation pattern). Sec. 4.2.2 says the minor
    entry's suppression causes it: a share near 1. With ``phase="approach"`` the same
    split of the move of ``y_w`` from step 0 to the turn (Sec. 4.2.2: the growing minor
    entry makes the "illusion of generalizing"). Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    record : JacobianRecord
        From :func:`train_with_jacobian`.
    runs : sequence of int
        Indices of the runs (e.g. ``LinkResult.swinging``).
    rules : JacobianRules
        The thresholds of :func:`output_stages`.
    phase : {"fall", "approach"}
        Split the fall (turn to return) or the approach (step 0 to the turn).

    Returns
    -------
    FallShares
        Each field ``(len(runs),)``; shares sum to 1.
    """
    phase = _checks.choice("phase", phase, ("fall", "approach"))
    rs = run_stages(record, rules)
    R = len(record.seeds)
    runs = [_checks.index("runs[k]", r, R) for r in runs]
    s, w = record.strong, record.weak
    out = np.zeros((3, len(runs)))
    for n, r in enumerate(runs):
        k0 = int(np.searchsorted(record.steps, rs.output[r].t_turn))
        k1 = int(np.searchsorted(record.steps, rs.output[r].t_back))
        if phase == "approach":
            k0, k1 = 0, k0
        J, y = record.jacobian[r], record.output[r, :, w]
        fall = y[k1] - y[k0]
        if fall == 0:
            out[:, n] = np.nan
            continue
        minor = record.x_hat[s] * (J[k1, w, s] - J[k0, w, s])
        major = record.x_hat[w] * (J[k1, w, w] - J[k0, w, w])
        out[:, n] = minor / fall, major / fall, (fall - minor - major) / fall
    return FallShares(*out)


def plot_link_run(axes, record: JacobianRecord, run: int, rules: JacobianRules = JACOBIAN_RULES) -> None:
    """Draw one run of the chapter's figure: (left) the major entries, the minor entry
    ``w_ws`` and the output's weak coordinate ``y_w / mu_w`` over log time, with the
    stage times; (middle) the output path at ``x_hat`` in the plane of the two concepts,
    with its turns; (right) the OOD test loss. Used in ``book/jacobian_link.md``.

    Parameters
    ----------
    axes : sequence of three matplotlib Axes
        Where to draw.
    record : JacobianRecord
        From :func:`train_with_jacobian`.
    run : int
        Index of the run.
    rules : JacobianRules
        The thresholds of the stages.

    Returns
    -------
    None
    """
    if not hasattr(axes, "__len__") or len(axes) != 3:
        raise ValueError("axes must be three matplotlib Axes")
    _checks.instance("record", record, JacobianRecord, "JacobianRecord (from train_with_jacobian)")
    run = _checks.index("run", run, len(record.seeds))
    rs = run_stages(record, rules)
    o, j = rs.output[run], rs.jacobian[run]
    s, w = record.strong, record.weak
    t = record.steps + 1
    J, y = record.jacobian[run], record.output[run]
    ax = axes[0]
    ax.semilogx(t, J[:, s, s], color="C0", label=f"major $w_{{{s + 1}{s + 1}}}$ (stronger)")
    ax.semilogx(t, J[:, w, w], color="C1", label=f"major $w_{{{w + 1}{w + 1}}}$ (weaker)")
    ax.semilogx(t, J[:, w, s], color="C2", label=f"minor $w_{{{w + 1}{s + 1}}}$")
    ax.semilogx(t, y[:, w] / record.mu[w], "k--", lw=1, label=f"output $y_{w + 1}/\\mu_{w + 1}$")
    for tt, c in ((j.t_strong, "C0"), (j.t_weak, "C1"), (j.t_minor, "C2")):
        if math.isfinite(tt):
            ax.axvline(tt + 1, color=c, ls=":", lw=1)
    ax.axvspan(o.t_turn + 1, o.t_back + 1, color="0.85", zorder=0, label="fall of $y_w$")
    ax.set_xlabel("SGD step + 1")
    ax.set_ylabel("entry of the Jacobian at $\\hat{x}$")
    ax.legend(fontsize=7)
    ax = axes[1]
    ax.plot(y[:, 0], y[:, 1], color="C3")
    for tt, mk in ((o.t_turn, "v"), (o.t_back, "^")):
        k = int(np.searchsorted(record.steps, tt))
        ax.plot(y[k, 0], y[k, 1], mk, color="k", ms=8)
    ax.plot(*record.x_hat[:2], "*", color="C3", ms=14)
    ax.plot([record.mu[0], 0], [0, record.mu[1]], "o", color="0.4")
    ax.set_xlabel("$y_1$")
    ax.set_ylabel("$y_2$")
    ax.set_title("output path at $\\hat{x}$ (turns: v, ^)", fontsize=9)
    ax = axes[2]
    ax.semilogx(t, record.test_loss[run], color="C3")
    ax.axvspan(o.t_turn + 1, o.t_back + 1, color="0.85", zorder=0)
    ax.set_xlabel("SGD step + 1")
    ax.set_ylabel("OOD test loss")
