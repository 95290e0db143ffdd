"""What both training engines share (Sec. 3, App. F.1): a run's record, schedule, mini-batches, loss and
recording loop, so that :func:`swingby.sim.batched.train_batched` records what :func:`swingby.sim.train.train` would.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import torch

from swingby import _checks, live
from swingby.sim.data import SimData
from swingby.sim.run_checks import TrainingDiverged, work

__all__ = ["TrainRecord"]


@dataclass
class TrainRecord:
    """What :func:`~swingby.sim.train.train` recorded, as ``float64`` arrays: ``outputs[r, k]`` is the output at
    test point ``k`` (eq. B.1) at record ``r`` in concept coordinates; the last is ``x_hat``'s (the trajectory).
    """

    steps: np.ndarray  #: optimisation steps at which records were taken, ``(R,)``
    epochs: np.ndarray  #: the same in epochs (``steps / steps_per_epoch``)
    outputs: np.ndarray  #: ``(R, 2**s, d)`` outputs at the test points, concept coords
    test_points: np.ndarray  #: ``(2**s, d)`` the test points, concept coords
    test_index: np.ndarray  #: ``(2**s, s)`` the ``v`` of each test point
    test_loss: np.ndarray  #: ``(R,)`` ``0.5 * ||f(x_hat) - x_hat||^2``
    train_loss: np.ndarray  #: ``(R,)`` eq. (2.1) on the whole training set (NaN if skipped)
    config: dict = field(default_factory=dict)  #: the training settings

    def __post_init__(self):
        R, (P, d) = np.shape(self.steps)[0], np.shape(self.test_points)
        want = dict(steps=(R,), epochs=(R,), outputs=(R, P, d), test_loss=(R,), train_loss=(R,))
        for name, shape in want.items():
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(f"{name} must have shape {shape} to match steps {(R,)} and test_points "
                                 f"{(P, d)}, got {np.shape(getattr(self, name))}")
        if np.ndim(self.test_index) != 2 or np.shape(self.test_index)[0] != P:
            raise ValueError(f"test_index must have shape ({P}, s), got {np.shape(self.test_index)}")
        _checks.instance("config", self.config, dict, "dict")

    @property
    def trajectory(self) -> np.ndarray:
        """``(R, d)`` output at ``x_hat`` over training, concept coordinates."""
        return self.outputs[:, -1]

    def test_point_losses(self) -> np.ndarray:
        """``(R, 2**s)`` loss ``0.5 * ||f(x) - x||^2`` at every test point of eq. (B.1)."""
        return 0.5 * ((self.outputs - self.test_points) ** 2).sum(axis=-1)


def steps_per_epoch(n_samples: int, batch_size: int) -> int:
    """Number of SGD steps in one pass over ``n_samples`` points (the last batch may be short)."""
    n_samples = _checks.positive_int("n_samples", n_samples)
    return -(-n_samples // _checks.positive_int("batch_size", batch_size))


def log_steps(n_steps: int, n: int = 100) -> np.ndarray:
    """About ``n`` distinct integer steps in ``[0, n_steps]``, evenly spaced in log time (ends included)."""
    n_steps = _checks.positive_int("n_steps", n_steps)
    n = _checks.positive_int("n", n)
    _checks.memory(32.0 * n, f"log_steps with n = {n} steps")
    grid = np.unique(np.round(np.geomspace(1, n_steps, max(2, n))).astype(int))
    return np.concatenate([[0], grid])


def check_data(name: str, data) -> SimData:
    """``data`` if it is a ``SimData`` with finite training points, else raise."""
    _checks.instance(name, data, SimData, "swingby.sim.data.SimData (from make_sim)")
    if not bool(torch.isfinite(data.X).all()):
        raise ValueError(f"{name}.X must be finite: the training data hold "
                         f"{int((~torch.isfinite(data.X)).sum())} NaN or infinite values")
    return data


class Schedule(NamedTuple):
    """Checked training settings of one run or of runs trained together."""

    lr: float
    epochs: int
    batch_size: int
    steps_per_epoch: int
    n_steps: int
    record_steps: np.ndarray
    full_batch: bool
    loss: str
    shuffle: str


def schedule(n, *, lr=0.1, batch_size=128, epochs=40, full_batch=False, loss="mean", shuffle="once",
             record_every=None, record_steps=None, bytes_per_record: float = 0.0, params: int = 0) -> Schedule:
    """Checked settings of runs on ``n`` points, their work bounded by ``params`` and memory by ``bytes_per_record``."""
    lr = _checks.positive_float("lr", lr)
    epochs = _checks.positive_int("epochs", epochs)
    _checks.choice("loss", loss, ("mean", "paper"))
    _checks.choice("shuffle", shuffle, ("once", "every_epoch", "none"))
    full_batch = _checks.flag("full_batch", full_batch)
    bs = n if full_batch else _checks.positive_int("batch_size", batch_size)
    spe = steps_per_epoch(n, bs)
    n_steps = epochs * spe
    work(6.0 * n_steps * min(bs, n) * params,
         f"epochs = {epochs} ({n_steps} steps of batch {min(bs, n)}) with {params} parameters")
    if record_steps is not None and record_every is not None:
        raise ValueError("give record_every or record_steps, not both")
    if record_steps is not None:
        steps = _checks.array("record_steps", record_steps, ndim=1)
        if np.any(steps != np.round(steps)) or steps.min() < 0 or steps.max() > n_steps:
            raise ValueError(f"record_steps must be integers in [0, n_steps = {n_steps}], "
                             f"got {_checks.short_repr(record_steps)}")
        steps = np.unique(steps.astype(int))
    else:
        every = max(1, n_steps // 200) if record_every is None else _checks.positive_int("record_every", record_every)
        _checks.memory((8.0 + bytes_per_record) * (n_steps // every + 2),
                       f"record_every = {every} with {n_steps} steps (one record of the test-point outputs each)")
        steps = np.union1d(np.arange(0, n_steps + 1, every), [n_steps])
    _checks.memory(bytes_per_record * len(steps), f"{len(steps)} records of the test-point outputs")
    return Schedule(lr, epochs, bs, spe, n_steps, steps, full_batch, loss, shuffle)


def make_record(data: SimData, outputs: np.ndarray, train_loss: np.ndarray, sched: Schedule, *, seed: int,
                diverged_at_step: int | None) -> TrainRecord:
    """The :class:`TrainRecord` of one run from its recorded outputs."""
    pts = data.to_concept(data.test_points).double().numpy()
    config = dict(lr=sched.lr, batch_size=sched.batch_size, epochs=sched.epochs, full_batch=sched.full_batch,
                  loss=sched.loss, shuffle=sched.shuffle, seed=int(seed), steps_per_epoch=sched.steps_per_epoch,
                  n_steps=sched.n_steps, diverged_at_step=diverged_at_step)
    return TrainRecord(steps=sched.record_steps.astype(int), epochs=sched.record_steps / sched.steps_per_epoch,
                       outputs=outputs, test_points=pts, test_index=data.test_index.numpy().astype(int),
                       test_loss=0.5 * ((outputs[:, -1] - pts[-1]) ** 2).sum(axis=-1),
                       train_loss=np.asarray(train_loss), config=config)


def batches(X: torch.Tensor, sched: Schedule, shuffle: str, seeds: list[int], progress: bool):
    """Mini-batches of every step of one run ``(N, d)`` or of runs ``(R, N, d)``, each shuffled by its seed."""
    n, bs = X.shape[-2], sched.batch_size
    gens = [torch.Generator().manual_seed(seed) for seed in seeds]

    def permuted() -> torch.Tensor:
        if X.ndim == 2:
            return X[torch.randperm(n, generator=gens[0])]
        return torch.stack([X[r, torch.randperm(n, generator=gen)] for r, gen in enumerate(gens)])

    Xo = permuted() if shuffle == "once" else X
    for _ in live.progress(range(sched.epochs), desc="epochs", enabled=progress):
        if shuffle == "every_epoch":
            Xo = permuted()
        for start in range(0, n, bs):
            yield Xo[..., start : start + bs, :]


def record_loop(batches, update, record, rec_steps: np.ndarray) -> int | None:
    """``update`` on every batch, ``record`` at ``rec_steps``; the number of updates made if one returns False."""
    n_recorded = 0
    if rec_steps[0] == 0:
        record()
        n_recorded = 1
    for step, xb in enumerate(batches, start=1):
        if not update(xb):
            return step - 1
        if n_recorded < len(rec_steps) and rec_steps[n_recorded] == step:
            record()
            n_recorded += 1
    return None


def warn_diverged(where: str, lr: float) -> None:
    """Warn ``TrainingDiverged`` for runs that diverged ``where``."""
    warnings.warn(f"training diverged: the loss or the outputs became NaN or infinite {where} with "
                  f"lr = {lr}; the record holds NaN from there on and its metrics are refused "
                  "(use a smaller lr)", TrainingDiverged, stacklevel=3)
