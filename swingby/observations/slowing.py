"""Terminal slowing down (Sec. 3.2; ``book/observations.md``): by Theorem 4.1 the output converges like a sum
of decaying exponentials, so its speed falls below its peak *gradually* (``terminal_slowing``). The wrong
model, normalised SGD ``theta <- theta - lr g / ||g||``, walks to ``x_hat`` at full speed and stops.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby.observations.learning import displacement_per_interval, slowdown
from swingby.observations.runs import check_configs_seeds, run_seed
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.train_loop import TrainRecord, batches, make_record, record_loop, schedule, steps_per_epoch

__all__ = []


class SlowingCheck(NamedTuple):
    """What ``terminal_slowing`` returns."""

    ratio: float     #: mean displacement over the last quarter / the largest one
    gradual: int     #: intervals after the peak whose displacement is in [band_low, 1/2) of it
    passes: bool     #: ``ratio < max_ratio`` and ``gradual >= min_gradual``


def terminal_slowing(rec: TrainRecord, *, max_ratio: float = 0.02, band_low: float = 0.05,
                     min_gradual: int = 2, n_intervals: int = 20) -> SlowingCheck:
    """Sec. 3.2 on one run: ``slowdown`` below ``max_ratio``, ``min_gradual`` intervals after the peak in the band."""
    _, dist = displacement_per_interval(rec, n_intervals)
    ratio = slowdown(rec, n_intervals)
    p = int(np.argmax(dist))
    after = dist[p + 1:] / dist[p]
    gradual = int(np.sum((after >= band_low) & (after < 0.5)))
    return SlowingCheck(ratio, gradual, bool(ratio < max_ratio and gradual >= min_gradual))


def _forward(x: torch.Tensor, weights: list, biases: list, relu: bool) -> torch.Tensor:
    """Batched MLP: ``x`` is ``(R, B, d)``, each weight ``(R, out, in)``, each bias ``(R, out)``."""
    for k, (W, b) in enumerate(zip(weights, biases)):
        x = torch.baddbmm(b[:, None, :], x, W.transpose(1, 2))
        if relu and k < len(weights) - 1:
            x = torch.relu(x)
    return x


def normalised_sgd_sweep(configs: Sequence[dict], *, d: int = 64, depth: int = 1, width: int | None = None,
                         activation: str = "linear", seeds: Sequence[int] = (0,), lr: float = 1e-2,
                         epochs: int = 40, batch_size: int = 128, n_per_cluster: int = 5000,
                         stream: int = 0) -> list[list[TrainRecord]]:
    """``records[c][k]``: the un-rotated runs of ``run_sweep`` by normalised SGD, recorded at 40 equal intervals."""
    configs, seeds, _ = check_configs_seeds(configs, seeds, d)
    runs = [(c, s) for c in range(len(configs)) for s in seeds]
    rs = [run_seed(s, c, d=d, depth=depth, stream=stream, activation=activation) for c, s in runs]
    datas = [make_sim(configs[c]["mu"], configs[c]["sigma"], d, n_per_cluster, origin_cluster=True,
                      seed=r) for (c, _), r in zip(runs, rs)]
    models = [MLP(d, depth, width, activation=activation, seed=r) for r in rs]
    n = datas[0].X.shape[0]
    n_steps = epochs * steps_per_epoch(n, batch_size)
    sched = schedule(n, lr=lr, batch_size=batch_size, epochs=epochs, record_steps=np.linspace(0, n_steps, 41).round(),
                     params=sum(p.numel() for m in models for p in m.parameters()))
    weights = [torch.stack([m.layers[k].weight.detach() for m in models]).clone().requires_grad_()
               for k in range(depth)]
    biases = [torch.stack([m.layers[k].bias.detach() for m in models]).clone().requires_grad_()
              for k in range(depth)]
    points = torch.stack([dat.test_points for dat in datas])
    rotation = torch.stack([dat.rotation for dat in datas])
    relu, outputs = activation == "relu", []

    def record() -> None:
        with torch.no_grad():
            outputs.append(_forward(points, weights, biases, relu) @ rotation)

    def update(xb: torch.Tensor) -> bool:
        loss = ((_forward(xb, weights, biases, relu) - xb) ** 2).mean(dim=(1, 2)).sum()
        grads = torch.autograd.grad(loss, weights + biases)
        with torch.no_grad():
            norm = torch.sqrt(sum((g.flatten(1) ** 2).sum(1) for g in grads)).clamp_min(1e-30)
            for p, g in zip(weights + biases, grads):
                p -= lr * g / norm.view(-1, *[1] * (g.ndim - 1))
        return True

    X = torch.stack([dat.X for dat in datas])
    record_loop(batches(X, sched, "once", rs, False), update, record, sched.record_steps)
    out = torch.stack(outputs, dim=1).double().numpy()
    recs = []
    for r, dat in enumerate(datas):
        recs.append(make_record(dat, out[r], np.full(len(sched.record_steps), np.nan), sched, seed=rs[r],
                                diverged_at_step=None))
        recs[-1].config.update(mu=tuple(float(m) for m in dat.mu), sigma=tuple(float(s) for s in dat.sigma), d=d,
                               depth=depth, width=models[0].width, activation=activation, origin_cluster=True,
                               optimiser="normalised SGD", run_seed=rs[r], stream=stream)
    k = len(seeds)
    return [recs[i * k:(i + 1) * k] for i in range(len(configs))]
