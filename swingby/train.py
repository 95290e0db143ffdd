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
a :class:`~swingby._checks.TrainingDiverged` warning naming the step and ``lr``; its record
holds NaN from there on, ``config["diverged_at_step"]`` says where, and the metrics of
:mod:`swingby.observations` refuse it.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np
import torch
from torch import nn
from tqdm.auto import tqdm

from swingby import _checks
from swingby.models import MLP
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
    """Number of SGD steps in one pass over ``n_samples`` (last batch may be short).

    Parameters
    ----------
    n_samples : int
        Size of the training set, ``> 0``.
    batch_size : int
        Mini-batch size, ``> 0``.

    Returns
    -------
    int
    """
    n_samples = _checks.positive_int("n_samples", n_samples)
    return -(-n_samples // _checks.positive_int("batch_size", batch_size))


def log_steps(n_steps: int, n: int = 100) -> np.ndarray:
    """About ``n`` distinct integer steps in ``[0, n_steps]``, evenly spaced in log time
    (0 and ``n_steps`` included): the record grid for log-time plots.

    Parameters
    ----------
    n_steps : int
        The last step, ``> 0``.
    n : int
        About how many steps to return, ``> 0``.

    Returns
    -------
    numpy.ndarray
        Increasing integers, for ``record_steps`` of :func:`train`.
    """
    n_steps = _checks.positive_int("n_steps", n_steps)
    n = _checks.positive_int("n", n)
    _checks.memory(32.0 * n, f"log_steps with n = {n} steps")
    grid = np.unique(np.round(np.geomspace(1, n_steps, max(2, n))).astype(int))
    return np.concatenate([[0], grid])


def _resolve_record_steps(n_steps, record_every, record_steps, bytes_per_record: float = 0.0) -> np.ndarray:
    if record_steps is not None and record_every is not None:
        raise ValueError("give record_every or record_steps, not both")
    if record_steps is not None:
        steps = _checks.array("record_steps", record_steps, ndim=1)
        if np.any(steps != np.round(steps)) or steps.min() < 0 or steps.max() > n_steps:
            raise ValueError(f"record_steps must be integers in [0, n_steps = {n_steps}], "
                             f"got {_checks.short_repr(record_steps)}")
        return np.unique(steps.astype(int))
    every = max(1, n_steps // 200) if record_every is None else _checks.positive_int("record_every", record_every)
    _checks.memory((8.0 + bytes_per_record) * (n_steps // every + 2),
                   f"record_every = {every} with {n_steps} steps (one record of the test-point outputs each)")
    steps = np.arange(0, n_steps + 1, every)
    return steps if steps[-1] == n_steps else np.append(steps, n_steps)


class _Schedule(NamedTuple):
    """Validated training settings shared by :func:`train` and :func:`train_batched`."""

    lr: float
    epochs: int
    batch_size: int
    steps_per_epoch: int
    n_steps: int
    record_steps: np.ndarray


def _schedule(n, *, lr, batch_size, epochs, full_batch, loss, shuffle, record_every,
              record_steps, bytes_per_record: float = 0.0, params: int = 0) -> _Schedule:
    """Checked settings; ``params`` (summed over runs) bounds the work of the run."""
    lr = _checks.positive_float("lr", lr)
    epochs = _checks.positive_int("epochs", epochs)
    _checks.choice("loss", loss, LOSSES)
    _checks.choice("shuffle", shuffle, SHUFFLES)
    bs = n if _checks.flag("full_batch", full_batch) else _checks.positive_int("batch_size", batch_size)
    spe = steps_per_epoch(n, bs)
    n_steps = epochs * spe
    _checks.work(6.0 * n_steps * min(bs, n) * params,
                 f"epochs = {epochs} ({n_steps} steps of batch {min(bs, n)}) with {params} parameters")
    return _Schedule(lr, epochs, bs, spe, n_steps,
                     _resolve_record_steps(n_steps, record_every, record_steps, bytes_per_record))


def _make_record(data: SimData, outputs: np.ndarray, train_loss: np.ndarray, sched: _Schedule,
                 *, seed: int, full_batch: bool, loss: str, shuffle: str,
                 diverged_at_step: int | None = None) -> TrainRecord:
    """Assemble the :class:`TrainRecord` of one run from its recorded outputs."""
    pts = data.to_concept(data.test_points).double().numpy()
    return TrainRecord(
        steps=sched.record_steps.astype(int),
        epochs=sched.record_steps / sched.steps_per_epoch,
        outputs=outputs,
        test_points=pts,
        test_index=data.test_index.numpy().astype(int),
        test_loss=0.5 * ((outputs[:, -1] - pts[-1]) ** 2).sum(axis=-1),
        train_loss=np.asarray(train_loss),
        config=dict(
            lr=sched.lr, batch_size=sched.batch_size, epochs=sched.epochs, full_batch=full_batch,
            loss=loss, shuffle=shuffle, seed=int(seed), steps_per_epoch=sched.steps_per_epoch,
            n_steps=sched.n_steps, diverged_at_step=diverged_at_step,
        ),
    )


def batch_loss(pred: torch.Tensor, target: torch.Tensor, loss: str) -> torch.Tensor:
    """Loss of a batch: ``"mean"`` = mean over batch and dims, ``"paper"`` = eq. (2.1).

    Parameters
    ----------
    pred : torch.Tensor
        Model outputs ``(B, d)`` (or ``(d,)``).
    target : torch.Tensor
        Targets of the same shape.
    loss : {"mean", "paper"}
        ``"mean"``: PyTorch's ``MSELoss`` (the authors' code); ``"paper"``:
        ``0.5 * ||pred - target||^2`` averaged over the batch.

    Returns
    -------
    torch.Tensor
        A scalar.
    """
    _checks.choice("loss", loss, LOSSES)
    _checks.instance("pred", pred, torch.Tensor, "torch.Tensor")
    _checks.instance("target", target, torch.Tensor, "torch.Tensor")
    if pred.shape != target.shape or pred.ndim == 0 or pred.numel() == 0:
        raise ValueError(f"target must have the shape of pred, a non-empty (B, d), got target "
                         f"{tuple(target.shape)} and pred {tuple(pred.shape)}")
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
    model : torch.nn.Module
        Any module mapping ``(B, d) -> (B, d)``; trained in place.
    data : SimData
        From :func:`~swingby.sim.make_sim`.
    lr : float
        Learning rate, ``> 0``.
    batch_size : int
        Mini-batch size, ``> 0`` (ignored when ``full_batch``).
    epochs : int
        Passes over the data (full batch: one step per epoch).
    full_batch : bool
        Use the whole training set at every step (the rebuttal's setting).
    loss : {"mean", "paper"}
        ``"mean"`` (authors' code) or ``"paper"`` (eq. 2.1), see :func:`batch_loss`.
    shuffle : {"once", "every_epoch", "none"}
        ``"once"``: one permutation reused every epoch (the authors' code).
    record_every : int, optional
        Record every ``k`` steps (step 0 is the initial model). Default, when
        ``record_steps`` is not given either: about 200 evenly spaced records.
    record_steps : sequence of int, optional
        Record at these steps instead (e.g. :func:`log_steps`).
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


def _batches(X: torch.Tensor, sched: _Schedule, shuffle: str, seeds: list[int], progress: bool):
    """The mini-batches of every SGD step, in order (``shuffle`` as in :func:`train`).

    ``X`` is one training set ``(N, d)`` with ``seeds = [seed]``, or one per run
    ``(R, N, d)`` with one seed per run (:func:`train_batched`); each run is shuffled
    with its own generator, so run ``r`` sees the batches :func:`train` would give it.
    """
    n, bs = X.shape[-2], sched.batch_size
    gens = [torch.Generator().manual_seed(seed) for seed in seeds]

    def permuted() -> torch.Tensor:
        if X.ndim == 2:
            return X[torch.randperm(n, generator=gens[0])]
        return torch.stack([X[r, torch.randperm(n, generator=gen)] for r, gen in enumerate(gens)])

    Xo = permuted() if shuffle == "once" else X
    for _ in tqdm(range(sched.epochs), disable=not progress, desc="epochs"):
        if shuffle == "every_epoch":
            Xo = permuted()
        for start in range(0, n, bs):
            yield Xo[..., start : start + bs, :]


def _record_loop(batches, update, record, rec_steps: np.ndarray) -> int | None:
    """The training loop shared by :func:`train` and :func:`train_batched`.

    Calls ``record()`` at step 0 if ``rec_steps`` starts there, then ``update(xb)`` for
    every mini-batch and ``record()`` after each step listed in ``rec_steps``. ``update``
    returns ``False`` when the loss is no longer finite: the loop then stops and returns
    the number of updates made so far (the step whose model diverged); else ``None``.
    """
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


def _warn_diverged(where: str, lr: float, stacklevel: int = 3) -> None:
    warnings.warn(f"training diverged: the loss or the outputs became NaN or infinite {where} with "
                  f"lr = {lr}; the record holds NaN from there on and its metrics are refused "
                  "(use a smaller lr)", _checks.TrainingDiverged, stacklevel=stacklevel)


def _check_model_data(model, data) -> None:
    """``model`` an ``nn.Module`` and ``data`` a :class:`SimData` of the model's dimension."""
    _checks.instance("model", model, nn.Module, "torch.nn.Module")
    _checks.instance("data", data, SimData, "swingby.sim.SimData (from make_sim)")
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


def _check_record_memory(sched: _Schedule, data: SimData, n_runs: int) -> None:
    n_pts, d = data.test_points.shape
    _checks.memory(16.0 * n_runs * len(sched.record_steps) * n_pts * d,
                   f"{len(sched.record_steps)} records of {n_pts} test points (d = {d}) for {n_runs} run(s)")


# ---------------------------------------------------------------------------
# Batched engine (chapters: observations, ood_checks, topological_order)
# ---------------------------------------------------------------------------


def _check_batched_models(models) -> tuple[list, dict]:
    """Check that ``models`` are MLPs of one architecture; return them and the spec."""
    if isinstance(models, (str, bytes)) or not (isinstance(models, MLP) or hasattr(models, "__iter__")):
        raise ValueError(f"models must be a non-empty sequence of swingby.models.MLP, got {models!r}")
    models = list(models) if not isinstance(models, MLP) else [models]
    if len(models) == 0:
        raise ValueError("models must be a non-empty sequence of swingby.models.MLP")
    for k, m in enumerate(models):
        if not isinstance(m, MLP):
            raise ValueError(f"models[{k}] must be a swingby.models.MLP, got {type(m).__name__}")
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
            raise ValueError(f"data[{k}] must be a swingby.sim.SimData, got {type(dat).__name__}")
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
    return _checks.seed_list("seed", seed)


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

    Gives the same numbers (to float32 rounding) as calling :func:`train` on each
    model in turn with the same arguments: the weights of the ``R`` models are
    stacked into ``(R, out, in)`` tensors, forward and backward passes of plain SGD
    on the loss (2.1) (or its ``"mean"`` variant) are written out with batched
    matrix products, and every run sees its own data set and its own shuffling.
    This is how the sweeps of Figs. 2, 3, 7 and 11-16 (Sec. 3, App. B, App. F) are
    run.

    Parameters
    ----------
    models : sequence of MLP
        :class:`~swingby.models.MLP` s with identical ``d``, ``depth``, ``width``,
        ``activation`` and ``bias`` (different seeds / init scales are fine); trained in
        place, like :func:`train`.
    data : SimData or sequence of SimData
        One data set shared by all runs, or one per model (same number of points and
        concepts; rotations and samples may differ).
    lr, batch_size, epochs, full_batch, loss, shuffle, record_every, record_steps, record_train_loss, progress
        As in :func:`train`.
    seed : int or sequence of int
        Shuffling seed, one for all runs or one per model.

    Returns
    -------
    list of TrainRecord
        One per model, as :func:`train` would return it.
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


class _StackedMLPs:
    """The weights of ``R`` MLPs of one architecture stacked into ``(R, out, in)`` tensors,
    with a batched forward pass and a hand-written SGD step (:func:`train_batched`).

    Each layer is kept both as ``(R, out, in)`` and transposed, so that every batched
    product reads contiguous memory (twice as fast as a transposed view).
    """

    def __init__(self, models: list, spec: dict):
        self.d, self.depth, self.relu = spec["d"], spec["depth"], spec["activation"] == "relu"
        self.W = [torch.stack([m.layers[k].weight.detach() for m in models]).clone() for k in range(self.depth)]
        self.B = ([torch.stack([m.layers[k].bias.detach() for m in models]).clone() for k in range(self.depth)]
                  if spec["bias"] else None)
        self.Wt = [w.transpose(1, 2).contiguous() for w in self.W]

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
