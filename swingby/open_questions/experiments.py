"""The runs of the open questions (``book/open_questions.md``, ``book/open_questions_training.md``): a
*cell* is a model and training setting trained on the authors' Fig. 2(c) data at ``d = 2`` and on the
equal-signal null, each run reduced to the observations chapter's measures; ``EXPERIMENTS`` lists them.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import torch

from swingby import _checks
from swingby.observations.learning import learning_times, order_passes
from swingby.observations.ood import relative_distance
from swingby.observations.runs import record_grid, run_seed
from swingby.observations.swingby import record_rise
from swingby.open_questions.engine import moment_points, train_pairs
from swingby.open_questions.rules import OQ_RULES, OpenRules
from swingby.sim.batched import train_batched
from swingby.sim.data import SimData, make_sim
from swingby.sim.models import MLP
from swingby.sim.train_loop import TrainRecord, steps_per_epoch

__all__ = []


class Cell(NamedTuple):
    """One model and training setting of an open-question sweep."""

    depth: int = 4                 #: number of Linear layers
    activation: str = "linear"     #: "linear" or "relu"
    width: int = 4                 #: hidden width
    init_scale: float = 1.0        #: multiplier of PyTorch's default initialisation
    mode: str = "mini"             #: "mini", "full_steps" or "full_epochs" (linear and raw only)
    variant: str = "raw"           #: "raw", "standardised" or "norm_layer"
    layout: str = "rotated"        #: "aligned" or "rotated"


class Standardiser(NamedTuple):
    """Per-input-dimension standardisation ``z = (x - mean) / std`` of one training set."""

    mean: torch.Tensor  #: ``(d,)``
    std: torch.Tensor   #: ``(d,)``, ``> 0``

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / self.std

    def invert(self, z: np.ndarray) -> np.ndarray:
        """Raw coordinates of standardised vectors (last axis ``d``)."""
        return z * self.std.double().numpy() + self.mean.double().numpy()


def standardiser(X: torch.Tensor) -> Standardiser:
    """The ``Standardiser`` of a training set ``X`` ``(N, d)`` (float64 statistics)."""
    std = X.double().std(0, unbiased=False)
    return Standardiser(X.double().mean(0).float(), std.float())


def _record(dat: SimData, outputs: np.ndarray, steps: np.ndarray, spe: int, config: dict) -> TrainRecord:
    pts = dat.to_concept(dat.test_points).double().numpy()
    outputs = outputs @ dat.rotation.double().numpy()  # input -> concept coordinates
    with np.errstate(all="ignore"):
        test_loss = 0.5 * ((outputs[:, -1] - pts[-1]) ** 2).sum(-1)
    return TrainRecord(steps=steps.astype(int), epochs=steps / spe, outputs=outputs, test_points=pts,
                       test_index=dat.test_index.numpy().astype(int), test_loss=test_loss,
                       train_loss=np.full(len(steps), np.nan), config=config)


class CellRuns(NamedTuple):
    """What ``cell_records`` returns."""

    records: list        #: one :class:`~swingby.sim.train_loop.TrainRecord` per seed
    datas: list          #: the :class:`~swingby.sim.data.SimData` of each run
    standardisers: list  #: the ``Standardiser`` of each run (None for raw inputs)


def cell_records(cell: Cell, seeds: Sequence[int], *, null: bool = False, config_index: int = 0,
                 rules: OpenRules = OQ_RULES) -> CellRuns:
    """Train one cell for ``seeds`` on the rules' data (``null``: the equal-signal data), each run its own seeds."""
    mu = (rules.null_mu,) * 2 if null else rules.mu
    run_seeds = [run_seed(s, config_index, d=rules.d, depth=cell.depth, stream=int(null)) for s in seeds]
    datas = [make_sim(mu, (rules.sigma,) * 2, rules.d, rules.n_per_cluster, origin_cluster=True,
                      rotate=cell.layout == "rotated", seed=rs) for rs in run_seeds]
    models = [MLP(rules.d, cell.depth, cell.width, activation=cell.activation, init_scale=cell.init_scale,
                  seed=rs) for rs in run_seeds]
    n = datas[0].X.shape[0]
    spe = steps_per_epoch(n, rules.batch_size)
    n_steps = rules.epochs * spe
    config = dict(cell._asdict(), null=null, lr=rules.lr, mu=tuple(float(m) for m in mu),
                  sigma=(float(rules.sigma),) * 2, origin_cluster=True, d=rules.d)
    if cell.variant == "raw":
        if cell.mode == "mini":
            recs = train_batched(models, datas, lr=rules.lr, batch_size=rules.batch_size, epochs=rules.epochs,
                                 seed=run_seeds, record_steps=record_grid(n_steps), record_train_loss=False)
        else:
            full = [d._replace(X=moment_points(d.X), labels=torch.zeros(2 * rules.d, dtype=torch.long))
                    for d in datas]
            epochs = n_steps if cell.mode == "full_steps" else rules.epochs
            recs = train_batched(models, full, lr=rules.lr, full_batch=True, epochs=epochs, seed=run_seeds,
                                 record_steps=record_grid(epochs), record_train_loss=False)
        for r in recs:
            r.config.update(config)
        return CellRuns(recs, datas, [None] * len(recs))
    stds = [standardiser(d.X) for d in datas]
    Z = torch.stack([s(d.X) for s, d in zip(stds, datas)])
    T = Z if cell.variant == "standardised" else torch.stack([d.X for d in datas])
    P = torch.stack([s(d.test_points) for s, d in zip(stds, datas)])
    steps = record_grid(n_steps)
    out = train_pairs(models, Z, T, P, lr=rules.lr, batch_size=rules.batch_size, epochs=rules.epochs,
                      record_steps=steps, seed=run_seeds)
    recs = []
    for k, (dat, st) in enumerate(zip(datas, stds)):
        raw = st.invert(out[k]) if cell.variant == "standardised" else out[k]
        recs.append(_record(dat, raw, steps, spe, dict(config, seed=run_seeds[k])))
    return CellRuns(recs, datas, stds)


class RunMeasures(NamedTuple):
    """The observations chapter's measures of one run (NaN / inf where it diverged)."""

    rise: float        #: :func:`~swingby.observations.swingby.record_rise` (NaN if diverged)
    distance: float    #: final distance from ``x_hat`` / ``||x_hat||`` (inf if diverged)
    order: bool        #: :func:`~swingby.observations.learning.order_passes`, concept 2 first
    t_first: float     #: learning time (epochs) of concept 2, predicted first
    t_second: float    #: learning time of concept 1
    diverged: bool     #: non-finite outputs


def run_measures(rec: TrainRecord, *, rules: OpenRules = OQ_RULES) -> RunMeasures:
    """Measure one run as the observations chapter does."""
    first = 1  # concept 2 has the larger a_p for mu = (2, 4)
    if not (np.all(np.isfinite(rec.outputs)) and np.all(np.isfinite(rec.test_loss))):
        return RunMeasures(np.nan, np.inf, False, np.inf, np.inf, True)
    t = learning_times(rec)
    return RunMeasures(record_rise(rec), relative_distance(rec),
                       order_passes(rec, time_ratio=rules.time_ratio, first=first),
                       float(t[first]), float(t[1 - first]), False)


#: the experiments: name -> (cells of the rules, the rules' field of seeds per cell and data)
EXPERIMENTS = {
    "batch": (lambda r: [Cell(depth=r.batch_depth, width=r.width, mode=m) for m in r.batch_modes],
              "batch_seeds"),
    "norm": (lambda r: [Cell(depth=dep, width=r.width, variant=v, layout=lay)
                        for dep in r.norm_depths for lay in r.norm_layouts for v in r.norm_variants],
             "norm_seeds"),
    "init": (lambda r: [Cell(depth=dep, activation=act, width=r.width, init_scale=sc)
                        for act, dep in r.init_models for sc in r.init_scales], "init_seeds"),
    "depth": (lambda r: [Cell(depth=dep, width=w) for w in r.depth_widths for dep in r.depth_depths],
              "depth_seeds"),
}


def experiment_cells(name: str, rules: OpenRules = OQ_RULES) -> tuple[list[Cell], int]:
    """The cells of experiment ``name`` (one of ``EXPERIMENTS``) and its seeds per cell and data."""
    _checks.choice("name", name, tuple(EXPERIMENTS))
    make, seeds = EXPERIMENTS[name]
    return make(rules), int(getattr(rules, seeds))

