"""One SIM run with plain SGD, recording the output at every test point of eq. (B.1) (Sec. 3, App. F.1), by
default as the authors' code: lr 0.1, batch 128, 40 epochs, data shuffled once, the loss averaged over batch
*and* dimensions (``"paper"``: eq. 2.1, a factor ``2 / d`` apart). A diverging run warns and records NaN.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch import nn

from swingby import _checks
from swingby.sim.data import SimData
from swingby.sim.train_loop import TrainRecord, batches, check_data, make_record, record_loop, schedule, warn_diverged

__all__ = ["train"]


def batch_loss(pred: torch.Tensor, target: torch.Tensor, loss: str) -> torch.Tensor:
    """``"mean"``: mean over batch and dims (``MSELoss``, the authors' code); ``"paper"``: eq. (2.1)."""
    sq = (pred - target) ** 2
    return sq.mean() if loss == "mean" else 0.5 * sq.sum(dim=-1).mean()


def train(model: nn.Module, data: SimData, *, lr: float = 0.1, batch_size: int = 128, epochs: int = 40,
          full_batch: bool = False, loss: str = "mean", shuffle: str = "once", record_every: int | None = None,
          record_steps: Sequence[int] | None = None, record_train_loss: bool = True, seed: int = 0,
          progress: bool = False) -> TrainRecord:
    """Train ``model`` to be the identity on ``data.X`` with plain SGD (App. F.1); its record at chosen steps.

    Parameters
    ----------
    model, data
        Any module mapping ``(B, d) -> (B, d)`` (trained in place); a finite SimData of that ``d``.
    lr, batch_size, epochs, seed, full_batch
        Learning rate, mini-batch size, passes over the data, the shuffling's seed; the whole training set at
        every step, one step per epoch (the rebuttal's setting).
    loss, shuffle
        ``"mean"`` (the authors' code) or ``"paper"`` (eq. 2.1); ``"once"`` (one permutation reused every
        epoch, the authors' code), ``"every_epoch"`` or ``"none"``.
    record_every, record_steps
        Record every ``k`` steps (step 0 is the initial model; default about 200 records), or at these steps.
    record_train_loss, progress
        Evaluate eq. (2.1) on the whole training set at each record; show a progress bar.
    """
    _checks.instance("model", model, nn.Module, "torch.nn.Module")
    check_data("data", data)
    if getattr(model, "d", data.d) != data.d:
        raise ValueError(f"model has d = {model.d} but data has d = {data.d}; they must match")
    with torch.no_grad():
        try:
            y = model(data.test_points[:1])
        except (RuntimeError, ValueError) as err:
            raise ValueError(f"model must map (B, d) to (B, d) with d = data.d = {data.d}: {err}") from None
    if tuple(y.shape) != (1, data.d):
        raise ValueError(f"model must map (B, d) to (B, d) with d = data.d = {data.d}, "
                         f"got output shape {tuple(y.shape)}")
    X = data.X
    sched = schedule(X.shape[0], lr=lr, batch_size=batch_size, epochs=epochs, full_batch=full_batch,
                     loss=loss, shuffle=shuffle, record_every=record_every, record_steps=record_steps,
                     bytes_per_record=16.0 * data.test_points.numel(),
                     params=sum(p.numel() for p in model.parameters()))
    record_train_loss = _checks.flag("record_train_loss", record_train_loss)
    progress, seed = _checks.flag("progress", progress), _checks.seed("seed", seed)
    opt = torch.optim.SGD(model.parameters(), lr=sched.lr)
    outputs, train_losses = [], []

    def record() -> None:
        with torch.no_grad():
            outputs.append(data.to_concept(model(data.test_points)).double().numpy())
            train_losses.append(float(batch_loss(model(X), X, "paper")) if record_train_loss else float("nan"))

    def update(xb: torch.Tensor) -> bool:
        opt.zero_grad(set_to_none=True)
        loss_value = batch_loss(model(xb), xb, loss)
        if not bool(torch.isfinite(loss_value)):
            return False  # the model after the previous updates gives a NaN / inf loss
        loss_value.backward()
        opt.step()
        return True

    diverged = record_loop(batches(X, sched, shuffle, [seed], progress), update, record, sched.record_steps)
    if diverged is not None:
        warn_diverged(f"after step {diverged}", sched.lr)
        missing = len(sched.record_steps) - len(outputs)
        outputs += [np.full(tuple(data.test_points.shape), np.nan)] * missing
        train_losses += [float("nan")] * missing
    return make_record(data, np.stack(outputs), np.asarray(train_losses), sched, seed=seed,
                       diverged_at_step=diverged)
