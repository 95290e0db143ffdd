"""The input-output Jacobian of *trained* MLPs at ``x_hat`` over training (Sec. 4.2.2): the stronger
concept's major entry grows first, the minor entry ``w_ws`` (row of the weaker concept, column of the
stronger) grows with it and is then suppressed, and the weaker concept's major entry grows last."""
from __future__ import annotations

import dataclasses
import math
from typing import Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.sim.batched import StackedMLPs
from swingby.sim.data import make_sim, std_from_authors_sigma
from swingby.sim.models import ACTIVATIONS, MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import batches, log_steps, record_loop, schedule, steps_per_epoch

__all__ = ["FIG13_SETTING", "JACOBIAN_RULES", "JacobianRecord", "JacobianRules", "train_with_jacobian"]

#: the data and training of the paper's Figs. 13, 14 as the authors' code ran them (their ``sigma = 0.05``
#: is the standard deviation 0.224)
FIG13_SETTING = dict(mu=(1.0, 2.0), sigma=(float(std_from_authors_sigma(0.05)),) * 2, d=3,
                     width=3, lr=0.01, rotate=False, origin_cluster=True, n_per_cluster=5000,
                     batch_size=128, epochs=40)


@dataclasses.dataclass(frozen=True)
class JacobianRules:
    """The thresholds of the stage check, fixed before the seeds that judge them were run (one frozen
    instance, :data:`JACOBIAN_RULES`). Times are SGD steps, "log time" ``log(1 + step)``."""

    growth_level: float = 0.5  #: a major entry ``w_pp`` has grown once it reaches this (as in ``detect_stages``)
    #: a run swings by when its OOD test loss rises above its running minimum by more than this share of
    #: ``0.5 ||x_hat||^2`` (as in ``book/observations.md``)
    rise_min: float = 0.05
    #: the minor entry ``w_ws`` is grown and suppressed when its largest value comes after the first
    #: record, is above its initial value and positive, and is followed by a fall below this share of it
    suppression_drop: float = 0.5
    peak_tol: float = math.log(1.5)  #: the minor entry's peak and the output's turn coincide within this in log time
    shrink_min: float = 0.8  #: while ``y_w`` falls the minor entry decreases over at least this share of the records
    n_records: int = 200  #: records per run, log-spaced (``swingby.sim.train_loop.log_steps``)
    minor_peak: str = "signed"  #: the minor peak is its largest signed value (``w_ws > 0`` moves toward ``x_hat``)
    turn_from: str = "y_weak"  #: the output turns where its weak coordinate ``y_w`` does

    def __post_init__(self):
        _checks.choice("minor_peak", self.minor_peak, ("signed",))
        _checks.choice("turn_from", self.turn_from, ("y_weak",))


#: the rules the chapter's check reads
JACOBIAN_RULES = JacobianRules()


@dataclasses.dataclass
class JacobianRecord:
    """What :func:`train_with_jacobian` recorded for ``R`` runs at ``T`` steps, in concept coordinates."""

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


def stacked_jacobian(net: StackedMLPs, x: torch.Tensor) -> torch.Tensor:
    """``(R, d, d)`` Jacobians ``W_L D_{L-1} ... D_1 W_1`` of stacked MLPs at their inputs ``x`` ``(R, d)``."""
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
    """Train one MLP per seed (batched; run ``k`` is :func:`swingby.observations.runs.run_sweep`'s for
    ``seeds[k]``) and record, at about ``n_records`` log-spaced steps, the output, the OOD test loss and
    the Jacobian at ``x_hat`` in concept coordinates. Defaults: :data:`FIG13_SETTING`.

    Parameters
    ----------
    depth, activation, seeds
        Number of Linear layers; ``"linear"`` or ``"relu"`` between them; distinct seeds, one run each.
    mu, sigma, d, rotate, origin_cluster, n_per_cluster
        The data, as in :func:`~swingby.sim.data.make_sim` (two concepts or more).
    width, lr, batch_size, epochs, n_records
        The model's hidden width and the SGD schedule.
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
    sched = schedule(n, lr=lr, batch_size=batch_size, epochs=epochs, full_batch=False, loss="mean",
                     shuffle="once", record_every=None, record_steps=log_steps(n_steps, n_records),
                     params=len(seeds) * sum(p.numel() for p in models[0].parameters()))
    _checks.memory(8.0 * len(seeds) * len(sched.record_steps) * (d * d + d + 1),
                   f"{len(sched.record_steps)} records of {len(seeds)} runs in d = {d}")
    net = StackedMLPs(models, dict(d=d, depth=depth, width=width, activation=activation, bias=True))
    X = torch.stack([dat.X for dat in datas])
    x_in = torch.stack([dat.x_hat for dat in datas])  # (R, d) input coordinates
    rot = torch.stack([dat.rotation for dat in datas])  # concept -> input
    jac, out = [], []

    def record() -> None:
        J = stacked_jacobian(net, x_in)
        jac.append(torch.bmm(rot.transpose(1, 2), torch.bmm(J, rot)).double().numpy())
        y = net.forward(x_in[:, None, :])[0][:, 0]
        out.append(torch.bmm(y[:, None, :], rot)[:, 0].double().numpy())

    def update(xb: torch.Tensor) -> bool:
        net.sgd_step(xb, sched.lr, "mean")
        return True

    with torch.no_grad():
        record_loop(batches(X, sched, "once", seeds, False), update, record, sched.record_steps)
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
