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
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import torch
from torch import nn
from tqdm.auto import tqdm

from swingby import _checks
from swingby.sim import SimData

LOSSES = ("mean", "paper")
SHUFFLES = ("once", "every_epoch", "none")


@dataclass
class TrainRecord:
    """What :func:`train` recorded; arrays are NumPy ``float64``.

    ``outputs[r, k]`` is the model output at test point ``k`` (eq. B.1, index
    ``test_index[k]``) at record ``r``, in concept coordinates. The last test point
    is ``x_hat``, so ``trajectory = outputs[:, -1]`` is the paper's output trajectory.
    """

    steps: np.ndarray  #: optimisation steps at which records were taken, ``(R,)``
    epochs: np.ndarray  #: the same in epochs (``steps / steps_per_epoch``)
    outputs: np.ndarray  #: ``(R, 2**s, d)`` outputs at the test points, concept coords
    test_points: np.ndarray  #: ``(2**s, d)`` the test points, concept coords
    test_index: np.ndarray  #: ``(2**s, s)`` the ``v`` of each test point
    test_loss: np.ndarray  #: ``(R,)`` ``0.5 * ||f(x_hat) - x_hat||^2``
    train_loss: np.ndarray  #: ``(R,)`` eq. (2.1) on the whole training set (NaN if skipped)
    config: dict = field(default_factory=dict)  #: the training settings

    @property
    def trajectory(self) -> np.ndarray:
        """``(R, d)`` output at ``x_hat`` over training, concept coordinates."""
        return self.outputs[:, -1]

    def test_point_losses(self) -> np.ndarray:
        """``(R, 2**s)`` loss ``0.5 * ||f(x) - x||^2`` at every test point of eq. (B.1)."""
        return 0.5 * ((self.outputs - self.test_points) ** 2).sum(axis=-1)


def steps_per_epoch(n_samples: int, batch_size: int) -> int:
    """Number of SGD steps in one pass over ``n_samples`` (last batch may be short)."""
    return math.ceil(n_samples / batch_size)


def log_steps(n_steps: int, n: int = 100) -> np.ndarray:
    """About ``n`` distinct integer steps in ``[0, n_steps]``, evenly spaced in log time
    (0 and ``n_steps`` included): the record grid for log-time plots."""
    n_steps = _checks.positive_int("n_steps", n_steps)
    grid = np.unique(np.round(np.geomspace(1, n_steps, max(2, n))).astype(int))
    return np.concatenate([[0], grid])


def _resolve_record_steps(n_steps, record_every, record_steps) -> np.ndarray:
    if record_steps is not None and record_every is not None:
        raise ValueError("give record_every or record_steps, not both")
    if record_steps is not None:
        steps = np.unique(np.asarray(record_steps, dtype=int))
        if steps.size == 0 or steps[0] < 0 or steps[-1] > n_steps:
            raise ValueError(f"record_steps must lie in [0, n_steps = {n_steps}], got {record_steps!r}")
        return steps
    every = max(1, n_steps // 200) if record_every is None else _checks.positive_int("record_every", record_every)
    steps = np.arange(0, n_steps + 1, every)
    return steps if steps[-1] == n_steps else np.append(steps, n_steps)


def batch_loss(pred: torch.Tensor, target: torch.Tensor, loss: str) -> torch.Tensor:
    """Loss of a batch: ``"mean"`` = mean over batch and dims, ``"paper"`` = eq. (2.1)."""
    sq = (pred - target) ** 2
    return sq.mean() if loss == "mean" else 0.5 * sq.sum(dim=-1).mean()


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
    model : any ``nn.Module`` mapping ``(B, d) -> (B, d)``; trained in place.
    data : a :class:`~swingby.sim.SimData` from :func:`~swingby.sim.make_sim`.
    lr : learning rate, ``> 0``.
    batch_size : mini-batch size, ``> 0`` (ignored when ``full_batch``).
    epochs : passes over the data (full batch: one step per epoch).
    full_batch : use the whole training set at every step (the rebuttal's setting).
    loss : ``"mean"`` (authors' code) or ``"paper"`` (eq. 2.1), see module docstring.
    shuffle : ``"once"`` (one permutation reused every epoch, the authors' code),
        ``"every_epoch"`` or ``"none"``.
    record_every, record_steps : record every ``k`` steps, or at the listed steps
        (step 0 is the initial model). Default: about 200 evenly spaced records.
    record_train_loss : evaluate eq. (2.1) on the whole training set at each record.
    seed : seed of the shuffling.
    progress : show a tqdm progress bar.

    Returns
    -------
    TrainRecord
    """
    lr = _checks.positive_float("lr", lr)
    epochs = _checks.positive_int("epochs", epochs)
    _checks.choice("loss", loss, LOSSES)
    _checks.choice("shuffle", shuffle, SHUFFLES)
    X = data.X
    n = X.shape[0]
    bs = n if full_batch else _checks.positive_int("batch_size", batch_size)
    spe = steps_per_epoch(n, bs)
    n_steps = epochs * spe
    rec_steps = _resolve_record_steps(n_steps, record_every, record_steps)

    gen = torch.Generator().manual_seed(int(seed))
    order = torch.randperm(n, generator=gen) if shuffle == "once" else torch.arange(n)
    Xo = X[order]
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    points_in = data.test_points
    outputs, train_losses = [], []

    def record() -> None:
        with torch.no_grad():
            outputs.append(data.to_concept(model(points_in)).double().numpy())
            if record_train_loss:
                train_losses.append(float(batch_loss(model(X), X, "paper")))
            else:
                train_losses.append(float("nan"))

    r = 0
    if rec_steps[0] == 0:
        record()
        r = 1
    step = 0
    for _ in tqdm(range(epochs), disable=not progress, desc="epochs"):
        if shuffle == "every_epoch":
            Xo = X[torch.randperm(n, generator=gen)]
        for start in range(0, n, bs):
            xb = Xo[start : start + bs]
            opt.zero_grad(set_to_none=True)
            batch_loss(model(xb), xb, loss).backward()
            opt.step()
            step += 1
            if r < len(rec_steps) and rec_steps[r] == step:
                record()
                r += 1
    out = np.stack(outputs)
    pts = data.to_concept(points_in).double().numpy()
    x_hat = pts[-1]
    return TrainRecord(
        steps=rec_steps.astype(int),
        epochs=rec_steps / spe,
        outputs=out,
        test_points=pts,
        test_index=data.test_index.numpy().astype(int),
        test_loss=0.5 * ((out[:, -1] - x_hat) ** 2).sum(axis=-1),
        train_loss=np.asarray(train_losses),
        config=dict(
            lr=lr, batch_size=bs, epochs=epochs, full_batch=full_batch, loss=loss,
            shuffle=shuffle, seed=int(seed), steps_per_epoch=spe, n_steps=n_steps,
        ),
    )
