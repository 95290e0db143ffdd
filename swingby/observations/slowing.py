"""Terminal slowing down (Sec. 3.2) and its wrong model, normalised SGD.

The paper's arrows, placed at equal training-time intervals, "get denser" late in
training (Sec. 3.2), and Theorem 4.1 explains why: the growth term of eq. (4.2)
converges at the exponential rate ``a_k``, so the speed of the output at ``x_hat`` decays
like a sum of exponentials. A sum of decaying exponentials is log-convex: the factor by
which the speed falls from one interval to the next never shrinks; the slowing itself
slows. ``terminal_slowing`` checks a run for this: the speed falls far below its peak
(``late / largest`` below a threshold, :func:`~swingby.observations.learning.slowdown`)
*and* it falls gradually, passing interval by interval through a band below half its
peak, rather than stopping.

**The wrong model (null audit).** ``normalised_sgd_sweep`` trains the same MLPs on
the same kind of data with normalised SGD: every step moves the run's parameters by the
fixed length ``lr`` along its mini-batch gradient, ``theta <- theta - lr g / ||g||``. It
lacks the mechanism of Theorem 4.1: there the exponential rate ``a_k`` comes from a step
proportional to the residual, ``dW/dt = -(W - I) A`` (eq. 4.1), which shrinks as the
output nears ``x_hat``; a normalised step has the same length whatever the residual, so
the parameters walk at constant speed until they reach the minimum and then jitter
around it: no terminal phase. It is neither the paper's account nor a replicate. It
converges to ``x_hat`` like the real runs and passes a bare "late / largest" check (that
check cannot tell the paper's mechanism from any optimiser that stops), and it is judged
by the same ``terminal_slowing``. ``tests/test_obs_claims.py`` checks that its runs
end within 2 % of ``x_hat``, pass the bare ratio check and have at most one interval in
the band. (Sign-SGD is no such model: its weights arrive at their optima one after another,
and the output slows gradually.) Used by :mod:`swingby.observations.claim_checks`.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby.observations.learning import displacement_per_interval, slowdown
from swingby.observations.runs import check_configs_seeds, run_seed
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.run_checks import work
from swingby.sim.train_loop import TrainRecord, steps_per_epoch

__all__ = []


class SlowingCheck(NamedTuple):
    """What ``terminal_slowing`` returns."""

    ratio: float     #: mean displacement over the last quarter / the largest one
    gradual: int     #: intervals after the peak whose displacement is in [band_low, 1/2) of it
    passes: bool     #: ``ratio < max_ratio`` and ``gradual >= min_gradual``


def terminal_slowing(rec: TrainRecord, *, max_ratio: float = 0.02, band_low: float = 0.05,
                     min_gradual: int = 2, n_intervals: int = 20) -> SlowingCheck:
    """Sec. 3.2 on one run: :func:`~swingby.observations.learning.slowdown` below ``max_ratio`` and
    at least ``min_gradual`` intervals after the fastest with ``band_low <= D_j / D_max < 1/2``."""
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
    """The MLPs of :func:`~swingby.observations.runs.run_sweep` (independent seeds, origin cluster,
    un-rotated) trained with steps ``theta <- theta - lr g / ||g||`` over all of a run's parameters,
    recorded at the ends of 40 equal intervals: ``records[c][k]``."""
    configs, seeds, _ = check_configs_seeds(configs, seeds, d)
    width = d if width is None else width
    runs = [(c, s) for c in range(len(configs)) for s in seeds]
    rs = [run_seed(s, c, d=d, depth=depth, stream=stream, activation=activation) for c, s in runs]
    datas = [make_sim(configs[c]["mu"], configs[c]["sigma"], d, n_per_cluster, origin_cluster=True,
                      seed=r) for (c, _), r in zip(runs, rs)]
    models = [MLP(d, depth, width, activation=activation, seed=r) for r in rs]
    n = datas[0].X.shape[0]
    spe = steps_per_epoch(n, batch_size)
    n_steps = epochs * spe
    work(6.0 * n_steps * min(batch_size, n) * width * d * depth * len(runs),
         f"{n_steps} normalised-SGD steps of {len(runs)} runs")
    weights = [torch.stack([m.layers[k].weight.detach() for m in models]).clone().requires_grad_()
               for k in range(depth)]
    biases = [torch.stack([m.layers[k].bias.detach() for m in models]).clone().requires_grad_()
              for k in range(depth)]
    X = torch.stack([dat.X[torch.randperm(n, generator=torch.Generator().manual_seed(r))]
                     for dat, r in zip(datas, rs)])
    points = torch.stack([dat.test_points for dat in datas])
    rotation = torch.stack([dat.rotation for dat in datas])
    rec_steps = np.unique(np.linspace(0, n_steps, 41).round().astype(int))
    outputs, step = [], 0
    with torch.no_grad():
        outputs.append(_forward(points, weights, biases, activation == "relu") @ rotation)
    for _ in range(epochs):
        for start in range(0, n, batch_size):
            xb = X[:, start:start + batch_size]
            loss = ((_forward(xb, weights, biases, activation == "relu") - xb) ** 2).mean(dim=(1, 2)).sum()
            grads = torch.autograd.grad(loss, weights + biases)
            with torch.no_grad():
                norm = torch.sqrt(sum((g.flatten(1) ** 2).sum(1) for g in grads)).clamp_min(1e-30)
                for p, g in zip(weights + biases, grads):
                    p -= lr * g / norm.view(-1, *[1] * (g.ndim - 1))
            step += 1
            if step in rec_steps:
                with torch.no_grad():
                    outputs.append(_forward(points, weights, biases, activation == "relu") @ rotation)
    out = torch.stack(outputs, dim=1).double().numpy()
    recs = []
    for r, (dat, (c, _)) in enumerate(zip(datas, runs)):
        pts = dat.to_concept(dat.test_points).double().numpy()
        recs.append(TrainRecord(
            steps=rec_steps, epochs=rec_steps / spe, outputs=out[r], test_points=pts,
            test_index=dat.test_index.numpy().astype(int),
            test_loss=0.5 * ((out[r][:, -1] - pts[-1]) ** 2).sum(axis=-1),
            train_loss=np.full(rec_steps.size, np.nan),
            config=dict(mu=tuple(float(m) for m in dat.mu), sigma=tuple(float(s) for s in dat.sigma), d=d,
                        depth=depth, width=width, activation=activation, origin_cluster=True,
                        optimiser="normalised SGD", lr=lr, run_seed=rs[r], stream=stream)))
    k = len(seeds)
    return [recs[i * k:(i + 1) * k] for i in range(len(configs))]
