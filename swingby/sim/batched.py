"""``R`` MLPs of one architecture trained as one tensor program, each on its own data and shuffling, recording
what :func:`swingby.sim.train.train` would (to float32 rounding): the engine of the sweeps of Sec. 3, App. B, F.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.sim.data import SimData
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.train_loop import TrainRecord, batches, check_data, make_record, record_loop, schedule, warn_diverged

__all__ = ["train_batched"]


def _check_runs(models, data, seed) -> tuple[list, dict, list, list]:
    """``models`` (MLPs of one architecture), that architecture, and one finite SimData and one seed per model."""
    models = [models] if isinstance(models, MLP) else _checks.sequence("models", models)
    specs = []
    for k, m in enumerate(models):
        _checks.instance(f"models[{k}]", m, MLP, "swingby.sim.models.MLP")
        specs.append(dict(d=m.d, depth=m.depth, width=m.width, activation=m.activation, bias=m.bias))
        if specs[k] != specs[0]:
            raise ValueError(f"all models must share one architecture; models[0] is {specs[0]} but "
                             f"models[{k}] is {specs[k]}")
    n_runs = len(models)
    datas = [data] * n_runs if isinstance(data, SimData) else data
    if isinstance(datas, (str, bytes)) or not hasattr(datas, "__iter__") or len(datas := list(datas)) != n_runs:
        raise ValueError(f"data must be one SimData or one per model ({n_runs}), got {_checks.short_repr(data)}")
    for k, dat in enumerate(datas):
        check_data(f"data[{k}]", dat)
        if dat.X.shape != datas[0].X.shape or dat.test_points.shape != datas[0].test_points.shape:
            raise ValueError(f"every data set must have the same shape; data[0].X is {tuple(datas[0].X.shape)} "
                             f"with {datas[0].s} concepts, data[{k}].X is {tuple(dat.X.shape)} with {dat.s}")
        if dat.d != specs[0]["d"]:
            raise ValueError(f"data[{k}] has d = {dat.d} but the models have d = {specs[0]['d']}")
    seeds = [_checks.seed("seed", seed)] * n_runs if _checks.is_integer(seed) else seed_list("seed", seed)
    if len(seeds) != n_runs:
        raise ValueError(f"seed must be an int or a sequence of {n_runs} ints (one per model), got {seed!r}")
    return models, specs[0], datas, seeds


def train_batched(models, data, *, seed: int | Sequence[int] = 0, record_train_loss: bool = True,
                  progress: bool = False, **settings) -> list[TrainRecord]:
    """One ``TrainRecord`` per model: :func:`~swingby.sim.train.train` on each model in turn (to
    float32 rounding), as plain SGD on weights stacked into ``(R, out, in)`` tensors.

    Parameters
    ----------
    models, data
        MLPs of one architecture (trained in place); one SimData for all or one per model, all of one shape.
    seed, record_train_loss, progress, **settings
        As in :func:`~swingby.sim.train.train`, ``seed`` one for all runs or one per model.
    """
    models, spec, datas, seeds = _check_runs(models, data, seed)
    n_runs, n = len(models), datas[0].X.shape[0]
    sched = schedule(n, **settings, bytes_per_record=16.0 * n_runs * datas[0].test_points.numel(),
                     params=n_runs * sum(p.numel() for p in models[0].parameters()))
    _checks.memory(12.0 * n_runs * n * spec["d"], f"{n_runs} runs of {n} points in d = {spec['d']}")
    record_train_loss = _checks.flag("record_train_loss", record_train_loss)
    progress = _checks.flag("progress", progress)

    X = torch.stack([dat.X for dat in datas])  # (R, N, d)
    P_in = torch.stack([dat.test_points for dat in datas])  # (R, 2**s, d)
    rot = torch.stack([dat.rotation for dat in datas])  # (R, d, d)
    net = StackedMLPs(models, spec)
    outputs, train_losses = [], []

    def record() -> None:
        outputs.append(torch.bmm(net.forward(P_in)[0], rot).double().numpy())
        if record_train_loss:
            y = net.forward(X)[0]
            train_losses.append((0.5 * ((y - X) ** 2).sum(-1).mean(-1)).double().numpy())
        else:
            train_losses.append(np.full(n_runs, np.nan))

    def update(xb: torch.Tensor) -> bool:
        net.sgd_step(xb, sched.lr, sched.loss)
        return True  # divergence is read from the records afterwards

    with torch.no_grad():
        record_loop(batches(X, sched, sched.shuffle, seeds, progress), update, record, sched.record_steps)
        net.write_back(models)  # leave the trained weights in the models, like train()

    out = np.stack(outputs, axis=1)  # (R, records, 2**s, d)
    tl = np.stack(train_losses, axis=1)  # (R, records)
    # per run, the first recorded step with non-finite outputs (or weights: n_steps) or None
    diverged = [int(sched.record_steps[np.argmax(b)]) if b.any() else None for b in ~np.isfinite(out).all(axis=(2, 3))]
    for i, m in enumerate(models):
        if diverged[i] is None and not all(bool(torch.isfinite(p).all()) for p in m.parameters()):
            diverged[i] = sched.n_steps
    if runs := [i for i, st in enumerate(diverged) if st is not None]:
        warn_diverged(f"in {'run' if len(runs) == 1 else 'runs'} {runs} of {n_runs} (first seen at the record of "
                      f"{'step' if len(runs) == 1 else 'steps'} {[diverged[i] for i in runs]})", sched.lr)
    return [make_record(dat, out[i], tl[i], sched, seed=seeds[i], diverged_at_step=diverged[i])
            for i, dat in enumerate(datas)]


#: widest layer for which ``StackedMLPs`` steps features-first (``benchmarks/bench_train.py --layouts``:
#: about 3x faster at d = 2, 3, 1.8x at 8, 0.9x from 16, on a 2-core machine under load)
FEATURES_FIRST_MAX = 8


class StackedMLPs:
    """``R`` MLPs' weights as ``(R, out, in)`` tensors (and transposed, so every product reads contiguous
    memory), a batched forward pass and SGD step; networks at most ``FEATURES_FIRST_MAX`` wide step
    with features-first activations ``(R, features, B)``, the same sums in another order."""

    def __init__(self, models: list, spec: dict):
        self.d, self.depth, self.relu = spec["d"], spec["depth"], spec["activation"] == "relu"
        self.W = [torch.stack([m.layers[k].weight.detach() for m in models]).clone() for k in range(self.depth)]
        self.B = ([torch.stack([m.layers[k].bias.detach() for m in models]).clone() for k in range(self.depth)]
                  if spec["bias"] else None)
        self.Wt = [w.transpose(1, 2).contiguous() for w in self.W]
        widest = max(self.d, spec["width"]) if self.depth > 1 else self.d
        self.features_first = widest <= FEATURES_FIRST_MAX

    def forward(self, h: torch.Tensor, keep: bool = False, first: bool = False) -> tuple[torch.Tensor, list]:
        """Outputs of inputs ``(R, B, d)`` (``first``: ``(R, d, B)``), and every layer's input if ``keep``."""
        hs = [h]
        for k in range(self.depth):
            if first:
                z = torch.bmm(self.W[k], h) if self.B is None else torch.baddbmm(self.B[k][:, :, None], self.W[k], h)
            else:
                z = torch.bmm(h, self.Wt[k]) if self.B is None else torch.baddbmm(self.B[k][:, None, :], h, self.Wt[k])
            h = torch.relu(z) if self.relu and k < self.depth - 1 else z
            if keep:
                hs.append(h)
        return h, hs

    def sgd_step(self, xb: torch.Tensor, lr: float, loss: str) -> None:
        """One SGD step of every run on its mini-batch ``xb`` ``(R, B, d)``."""
        first = self.features_first  # activations (R, features, B)
        y, hs = self.forward(xb.transpose(1, 2).contiguous() if first else xb, keep=True, first=first)
        nb = xb.shape[1]
        delta = (y - hs[0]) * (2.0 / (nb * self.d) if loss == "mean" else 1.0 / nb)  # d(loss) / dy
        for k in range(self.depth - 1, -1, -1):
            g = torch.bmm(delta, hs[k].transpose(1, 2)) if first else torch.bmm(hs[k].transpose(1, 2), delta)
            if self.B is not None:
                self.B[k].sub_(delta.sum(2 if first else 1), alpha=lr)
            if k > 0:
                delta = torch.bmm(self.Wt[k], delta) if first else torch.bmm(delta, self.W[k])
                if self.relu:
                    delta = delta * (hs[k] > 0)
            # g is the gradient as (R, out, in) features-first and as (R, in, out) batch-first
            (self.W if first else self.Wt)[k].sub_(g, alpha=lr)
            (self.Wt if first else self.W)[k].sub_(g.transpose(1, 2), alpha=lr)

    def write_back(self, models: list) -> None:
        """Copy run ``i``'s weights into ``models[i]``."""
        for i, m in enumerate(models):
            for k in range(self.depth):
                m.layers[k].weight.copy_(self.W[k][i])
                if self.B is not None:
                    m.layers[k].bias.copy_(self.B[k][i])
