"""The batched engine: ``R`` MLPs of one architecture trained as one tensor program
(Sec. 3, App. B, App. F; chapters: observations, ood_checks, topological_order).

:func:`swingby.sim.batched.train_batched` stacks the weights of the runs into ``(R, out, in)``
tensors and writes plain SGD out with batched matrix products; every run sees its own
data set and its own shuffling and gets the :class:`~swingby.sim.train_loop.TrainRecord` that
:func:`swingby.sim.train.train` would give it (``tests/test_batched.py`` checks this). The
schedule, the mini-batches and the recording loop are those of :mod:`swingby.sim.train_loop`.
Import it from :mod:`swingby.sim.train`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.sim.data import SimData
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import (
    TrainRecord,
    _batches,
    _check_record_memory,
    _make_record,
    _record_loop,
    _Schedule,
    _schedule,
    _warn_diverged,
)


def _check_batched_models(models) -> tuple[list, dict]:
    """Check that ``models`` are MLPs of one architecture; return them and the spec."""
    if isinstance(models, (str, bytes)) or not (isinstance(models, MLP) or hasattr(models, "__iter__")):
        raise ValueError(f"models must be a non-empty sequence of swingby.sim.models.MLP, got {models!r}")
    models = list(models) if not isinstance(models, MLP) else [models]
    if len(models) == 0:
        raise ValueError("models must be a non-empty sequence of swingby.sim.models.MLP")
    for k, m in enumerate(models):
        if not isinstance(m, MLP):
            raise ValueError(f"models[{k}] must be a swingby.sim.models.MLP, got {type(m).__name__}")
    spec = dict(d=models[0].d, depth=models[0].depth, width=models[0].width,
                activation=models[0].activation, bias=models[0].bias)
    for k, m in enumerate(models[1:], start=1):
        other = dict(d=m.d, depth=m.depth, width=m.width, activation=m.activation, bias=m.bias)
        if other != spec:
            raise ValueError(
                f"all models must share one architecture; models[0] is {spec} but "
                f"models[{k}] is {other}"
            )
    return models, spec


def _check_batched_data(data, n_runs: int, d: int) -> list:
    """One :class:`SimData` per run (a single one is shared by all runs)."""
    if not isinstance(data, SimData) and (isinstance(data, (str, bytes)) or not hasattr(data, "__iter__")):
        raise ValueError(f"data must be one SimData or one per model ({n_runs}), got {type(data).__name__}")
    datas = [data] * n_runs if isinstance(data, SimData) else list(data)
    if len(datas) != n_runs:
        raise ValueError(f"data must be one SimData or one per model ({n_runs}), got {len(datas)}")
    for k, dat in enumerate(datas):
        if not isinstance(dat, SimData):
            raise ValueError(f"data[{k}] must be a swingby.sim.data.SimData, got {type(dat).__name__}")
        if dat.X.shape != datas[0].X.shape or dat.test_points.shape != datas[0].test_points.shape:
            raise ValueError(
                f"every data set must have the same shape; data[0].X is {tuple(datas[0].X.shape)} "
                f"with {datas[0].s} concepts, data[{k}].X is {tuple(dat.X.shape)} with {dat.s}"
            )
        if dat.d != d:
            raise ValueError(f"data[{k}] has d = {dat.d} but the models have d = {d}")
    return datas


def _check_seeds(seed, n_runs: int) -> list[int]:
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return [_checks.seed("seed", seed)] * n_runs
    if not hasattr(seed, "__len__") or isinstance(seed, str) or len(seed) != n_runs:
        raise ValueError(f"seed must be an int or a sequence of {n_runs} ints (one per model), got {seed!r}")
    return seed_list("seed", seed)


def train_batched(
    models,
    data,
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
    seed: int | Sequence[int] = 0,
    progress: bool = False,
) -> list[TrainRecord]:
    """Train ``R`` independent MLPs of one architecture as one batched tensor program.

    Gives the same numbers (to float32 rounding) as calling :func:`~swingby.sim.train.train` on each
    model in turn with the same arguments: the weights of the ``R`` models are
    stacked into ``(R, out, in)`` tensors, forward and backward passes of plain SGD
    on the loss (2.1) (or its ``"mean"`` variant) are written out with batched
    matrix products, and every run sees its own data set and its own shuffling.
    This is how the sweeps of Figs. 2, 3, 7 and 11-16 (Sec. 3, App. B, App. F) are
    run.

    Parameters
    ----------
    models : sequence of MLP
        :class:`~swingby.sim.models.MLP` s with identical ``d``, ``depth``, ``width``,
        ``activation`` and ``bias`` (different seeds / init scales are fine); trained in
        place, like :func:`~swingby.sim.train.train`.
    data : SimData or sequence of SimData
        One data set shared by all runs, or one per model (same number of points and
        concepts; rotations and samples may differ).
    lr, batch_size, epochs, full_batch, loss, shuffle, record_every, record_steps, record_train_loss, progress
        As in :func:`~swingby.sim.train.train`.
    seed : int or sequence of int
        Shuffling seed, one for all runs or one per model.

    Returns
    -------
    list of TrainRecord
        One per model, as :func:`~swingby.sim.train.train` would return it.
    """
    models, spec = _check_batched_models(models)
    n_runs = len(models)
    datas = _check_batched_data(data, n_runs, spec["d"])
    seeds = _check_seeds(seed, n_runs)
    n = datas[0].X.shape[0]
    sched = _schedule(n, lr=lr, batch_size=batch_size, epochs=epochs, full_batch=full_batch,
                      loss=loss, shuffle=shuffle, record_every=record_every, record_steps=record_steps,
                      bytes_per_record=16.0 * n_runs * datas[0].test_points.numel(),
                      params=n_runs * sum(p.numel() for p in models[0].parameters()))
    _check_record_memory(sched, datas[0], n_runs)
    _checks.memory(12.0 * n_runs * n * spec["d"], f"{n_runs} runs of {n} points in d = {spec['d']}")
    record_train_loss = _checks.flag("record_train_loss", record_train_loss)
    progress = _checks.flag("progress", progress)
    rec_steps = sched.record_steps

    X = torch.stack([dat.X for dat in datas])  # (R, N, d)
    P_in = torch.stack([dat.test_points for dat in datas])  # (R, 2**s, d)
    rot = torch.stack([dat.rotation for dat in datas])  # (R, d, d)
    net = _StackedMLPs(models, spec)
    outputs, train_losses = [], []

    def record() -> None:
        outputs.append(torch.bmm(net.forward(P_in)[0], rot).double().numpy())
        if record_train_loss:
            y = net.forward(X)[0]
            train_losses.append((0.5 * ((y - X) ** 2).sum(-1).mean(-1)).double().numpy())
        else:
            train_losses.append(np.full(n_runs, np.nan))

    def update(xb: torch.Tensor) -> bool:
        net.sgd_step(xb, sched.lr, loss)
        return True  # divergence is read from the records afterwards (_batched_divergence)

    with torch.no_grad():
        _record_loop(_batches(X, sched, shuffle, seeds, progress), update, record, rec_steps)
        net.write_back(models)  # leave the trained weights in the models, like train()

    out = np.stack(outputs, axis=1)  # (R, records, 2**s, d)
    tl = np.stack(train_losses, axis=1)  # (R, records)
    diverged = _batched_divergence(out, models, rec_steps, sched)
    return [_make_record(dat, out[i], tl[i], sched, seed=seeds[i], full_batch=full_batch,
                         loss=loss, shuffle=shuffle, diverged_at_step=diverged[i])
            for i, dat in enumerate(datas)]


#: widest layer for which ``_StackedMLPs`` steps with features-first activations
#: (crossover measured interleaved by ``bench_train.py --layouts`` on a 2-core machine under
#: load: about 3x faster at d = 2, 3, 1.8x at 8, 0.9x from 16; rerun it idle before quoting)
FEATURES_FIRST_MAX = 8


class _StackedMLPs:
    """The weights of ``R`` MLPs of one architecture stacked into ``(R, out, in)`` tensors,
    with a batched forward pass and a hand-written SGD step (:func:`train_batched`).

    Each layer is kept both as ``(R, out, in)`` and transposed, so that every batched
    product reads contiguous memory (twice as fast as a transposed view). For narrow
    networks (every layer at most :data:`FEATURES_FIRST_MAX` wide) the SGD step keeps the
    activations features-first, ``(R, features, B)``: a batched product ``W h`` of a
    tiny matrix with a long one is several times faster on CPU than ``h W^T`` with the
    long one first (``benchmarks/bench_train.py --layouts`` prints the ratio; wider layers
    are faster batch-first). Both layouts compute the same sums in another order, so
    the weights agree to float32 rounding.
    """

    def __init__(self, models: list, spec: dict):
        self.d, self.depth, self.relu = spec["d"], spec["depth"], spec["activation"] == "relu"
        self.W = [torch.stack([m.layers[k].weight.detach() for m in models]).clone() for k in range(self.depth)]
        self.B = ([torch.stack([m.layers[k].bias.detach() for m in models]).clone() for k in range(self.depth)]
                  if spec["bias"] else None)
        self.Wt = [w.transpose(1, 2).contiguous() for w in self.W]
        widest = max(self.d, spec["width"]) if self.depth > 1 else self.d
        self.features_first = widest <= FEATURES_FIRST_MAX

    def forward(self, h: torch.Tensor, keep: bool = False) -> tuple[torch.Tensor, list]:
        """Outputs ``(R, B, d)`` for inputs ``(R, B, d)``, and the input of every layer if ``keep``."""
        hs = [h]
        for k in range(self.depth):
            z = torch.bmm(h, self.Wt[k]) if self.B is None else torch.baddbmm(self.B[k][:, None, :], h, self.Wt[k])
            h = torch.relu(z) if self.relu and k < self.depth - 1 else z
            if keep:
                hs.append(h)
        return h, hs

    def sgd_step(self, xb: torch.Tensor, lr: float, loss: str) -> None:
        """One SGD step of every run on its mini-batch ``xb`` ``(R, B, d)`` (``loss`` as in
        :func:`batch_loss`)."""
        if self.features_first:
            self._sgd_step_features_first(xb, lr, loss)
            return
        y, hs = self.forward(xb, keep=True)
        nb = xb.shape[1]
        delta = (y - xb) * (2.0 / (nb * self.d) if loss == "mean" else 1.0 / nb)  # d(loss) / dy
        for k in range(self.depth - 1, -1, -1):
            gWt = torch.bmm(hs[k].transpose(1, 2), delta)  # (R, in, out)
            if self.B is not None:
                self.B[k].sub_(delta.sum(1), alpha=lr)
            if k > 0:
                new_delta = torch.bmm(delta, self.W[k])
                if self.relu:
                    new_delta = new_delta * (hs[k] > 0)
                delta = new_delta
            self.Wt[k].sub_(gWt, alpha=lr)
            self.W[k].sub_(gWt.transpose(1, 2), alpha=lr)

    def _sgd_step_features_first(self, xb: torch.Tensor, lr: float, loss: str) -> None:
        """:meth:`sgd_step` with the activations stored ``(R, features, B)``."""
        h = xb.transpose(1, 2).contiguous()
        hs = [h]
        for k in range(self.depth):
            z = torch.bmm(self.W[k], h) if self.B is None else torch.baddbmm(self.B[k][:, :, None], self.W[k], h)
            h = torch.relu(z) if self.relu and k < self.depth - 1 else z
            hs.append(h)
        nb = xb.shape[1]
        delta = (h - hs[0]) * (2.0 / (nb * self.d) if loss == "mean" else 1.0 / nb)  # (R, out, B)
        for k in range(self.depth - 1, -1, -1):
            gW = torch.bmm(delta, hs[k].transpose(1, 2))  # (R, out, in)
            if self.B is not None:
                self.B[k].sub_(delta.sum(2), alpha=lr)
            if k > 0:
                new_delta = torch.bmm(self.Wt[k], delta)
                if self.relu:
                    new_delta = new_delta * (hs[k] > 0)
                delta = new_delta
            self.W[k].sub_(gW, alpha=lr)
            self.Wt[k].sub_(gW.transpose(1, 2), alpha=lr)

    def write_back(self, models: list) -> None:
        """Copy run ``i``'s weights into ``models[i]``."""
        for i, m in enumerate(models):
            for k in range(self.depth):
                m.layers[k].weight.copy_(self.W[k][i])
                if self.B is not None:
                    m.layers[k].bias.copy_(self.B[k][i])


def _batched_divergence(out: np.ndarray, models, rec_steps: np.ndarray, sched: _Schedule) -> list:
    """Per run, the first recorded step with non-finite outputs (``n_steps`` if only the
    final weights are non-finite), or None; warns once for all diverged runs."""
    bad = ~np.isfinite(out).all(axis=(2, 3))  # (R, records)
    steps = [int(rec_steps[np.argmax(b)]) if b.any() else None for b in bad]
    for i, m in enumerate(models):
        if steps[i] is None and not all(bool(torch.isfinite(p).all()) for p in m.parameters()):
            steps[i] = sched.n_steps
    runs = [i for i, st in enumerate(steps) if st is not None]
    if runs:
        _warn_diverged(f"in run(s) {runs} of {len(models)} (first seen at the record of step(s) "
                       f"{[steps[i] for i in runs]})", sched.lr, stacklevel=4)
    return steps
