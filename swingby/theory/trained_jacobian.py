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
* :func:`~swingby.theory.jacobian_stages.jacobian_stages` and
  :func:`~swingby.theory.jacobian_stages.output_stages` (:mod:`swingby.theory.jacobian_stages`)
  read the stage times of one run with the thresholds of :data:`JACOBIAN_RULES`, fixed
  in code before the seeds that judge them were run.
* :func:`~swingby.theory.jacobian_stages.stage_check` is the per-seed claim check,
  :func:`~swingby.theory.jacobian_link.pass_matrix` (:mod:`swingby.theory.jacobian_link`)
  applies it to every (output run, Jacobian run) pair, whose off-diagonal is the
  shuffled-pairing null, and :func:`~swingby.theory.jacobian_link.link_test` turns it
  into counts, an exact permutation test over seeds and the verdict word of
  :mod:`swingby.diffusion.rules`.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.sim.batched import _StackedMLPs
from swingby.sim.data import make_sim, std_from_authors_sigma
from swingby.sim.models import ACTIVATIONS, MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import _batches, _record_loop, _schedule, log_steps, steps_per_epoch

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
    #: records per run, log-spaced (``swingby.sim.train_loop.log_steps``)
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
        Number of Linear layers, ``>= 1`` (``1``: the one-layer wrong model of
        :func:`~swingby.theory.jacobian_link.one_layer_null`).
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
        About how many log-spaced steps to record (:func:`~swingby.sim.train_loop.log_steps`).

    Returns
    -------
    JacobianRecord
    """
    depth = _checks.integer("depth", depth, low=1)
    activation = _checks.choice("activation", activation, ACTIVATIONS)
    seeds = seed_list("seeds", seeds, distinct=True)
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
