"""Training on the SIM task, recording the output trajectory (Sec. 3, App. F.1).

:func:`train` runs (mini-batch or full-batch) gradient descent on one model and
records, at chosen steps, the model output at every test point of eq. (B.1)
(rotated back to concept coordinates), the OOD test loss
``0.5 * ||f(x_hat) - x_hat||^2`` and the training loss (2.1).

Settings the paper leaves open are arguments, with the authors' code as default:
SGD, ``lr = 0.1``, batch 128, 40 epochs, data shuffled once, and the loss
averaged over batch *and* dimensions (``loss="mean"``, PyTorch's ``MSELoss``).
``loss="paper"`` uses eq. (2.1) instead, ``0.5 * ||f(x) - x||^2`` averaged over the
batch; the two differ by a factor ``2 / d`` in the gradient.

A run whose loss or outputs become NaN or infinite (too large an ``lr``) is reported with
a :class:`~swingby.sim.run_checks.TrainingDiverged` warning naming the step and ``lr``; its record
holds NaN from there on, ``config["diverged_at_step"]`` says where, and the metrics of
:mod:`swingby.observations` refuse it.

The record, the schedule and the loss are in :mod:`swingby.sim.train_loop`
(:class:`~swingby.sim.train_loop.TrainRecord`, :func:`~swingby.sim.train_loop.steps_per_epoch`,
:func:`~swingby.sim.train_loop.log_steps`, :func:`~swingby.sim.train_loop.batch_loss`); many
MLPs of one architecture are trained at once by :func:`swingby.sim.batched.train_batched`.

:func:`train` runs one model of any architecture.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch import nn

from swingby import _checks
from swingby.sim.data import SimData
from swingby.sim.train_loop import (
    TrainRecord,
    _batches,
    _check_record_memory,
    _make_record,
    _record_loop,
    _schedule,
    _warn_diverged,
    batch_loss,
)


def train(
    model: nn.Module,
    data: SimData,
    *,
    lr: float = 0.1,
    batch_size: int = 128,
    epochs: int = 40,
    full_batch: bool = False,
    loss: str = "mean",
    shuffle: str = "once",
    record_every: int | None = None,
    record_steps: Sequence[int] | None = None,
    record_train_loss: bool = True,
    seed: int = 0,
    progress: bool = False,
) -> TrainRecord:
    """Train ``model`` to be the identity on ``data.X`` with plain SGD (App. F.1).

    Parameters
    ----------
    model : torch.nn.Module
        Any module mapping ``(B, d) -> (B, d)``; trained in place.
    data : SimData
        From :func:`~swingby.sim.data.make_sim`.
    lr : float
        Learning rate, ``> 0``.
    batch_size : int
        Mini-batch size, ``> 0`` (ignored when ``full_batch``).
    epochs : int
        Passes over the data (full batch: one step per epoch).
    full_batch : bool
        Use the whole training set at every step (the rebuttal's setting).
    loss : {"mean", "paper"}
        ``"mean"`` (authors' code) or ``"paper"`` (eq. 2.1), see :func:`~swingby.sim.train_loop.batch_loss`.
    shuffle : {"once", "every_epoch", "none"}
        ``"once"``: one permutation reused every epoch (the authors' code).
    record_every : int, optional
        Record every ``k`` steps (step 0 is the initial model). Default, when
        ``record_steps`` is not given either: about 200 evenly spaced records.
    record_steps : sequence of int, optional
        Record at these steps instead (e.g. :func:`~swingby.sim.train_loop.log_steps`).
    record_train_loss : bool
        Evaluate eq. (2.1) on the whole training set at each record.
    seed : int
        Seed of the shuffling.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    TrainRecord
    """
    _check_model_data(model, data)
    X = data.X
    n = X.shape[0]
    sched = _schedule(n, lr=lr, batch_size=batch_size, epochs=epochs, full_batch=full_batch,
                      loss=loss, shuffle=shuffle, record_every=record_every,
                      record_steps=record_steps, bytes_per_record=16.0 * data.test_points.numel(),
                      params=sum(p.numel() for p in model.parameters()))
    _check_record_memory(sched, data, 1)
    record_train_loss = _checks.flag("record_train_loss", record_train_loss)
    progress, seed = _checks.flag("progress", progress), _checks.seed("seed", seed)
    rec_steps = sched.record_steps
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

    diverged = _record_loop(_batches(X, sched, shuffle, [seed], progress), update, record, rec_steps)
    if diverged is not None:
        _warn_diverged(f"after step {diverged}", sched.lr)
        missing = len(rec_steps) - len(outputs)
        outputs += [np.full(tuple(data.test_points.shape), np.nan)] * missing
        train_losses += [float("nan")] * missing
    return _make_record(data, np.stack(outputs), np.asarray(train_losses), sched, seed=seed,
                        full_batch=full_batch, loss=loss, shuffle=shuffle, diverged_at_step=diverged)


def _check_model_data(model, data) -> None:
    """``model`` an ``nn.Module`` and ``data`` a :class:`SimData` of the model's dimension."""
    _checks.instance("model", model, nn.Module, "torch.nn.Module")
    _checks.instance("data", data, SimData, "swingby.sim.data.SimData (from make_sim)")
    if hasattr(model, "d"):
        if model.d != data.d:
            raise ValueError(f"model has d = {model.d} but data has d = {data.d}; they must match")
        return
    with torch.no_grad():
        try:
            y = model(data.test_points[:1])
        except (RuntimeError, ValueError) as err:
            raise ValueError(f"model must map (B, d) to (B, d) with d = data.d = {data.d}: {err}") from None
    if tuple(y.shape) != (1, data.d):
        raise ValueError(f"model must map (B, d) to (B, d) with d = data.d = {data.d}, "
                         f"got output shape {tuple(y.shape)}")
