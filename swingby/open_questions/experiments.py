"""The runs of the open questions (chapter: ``book/open_questions.md``): one *cell* is a
model and a training setting, trained on the authors' Fig. 2(c) data at ``d = 2`` and on
the equal-signal null, for independent seeds; every run is reduced to the measures of the
observations chapter (:class:`RunMeasures`).

:func:`cell_records` trains one cell; :func:`run_measures` measures a run;
:data:`EXPERIMENTS` lists the cells of each question, and
:mod:`swingby.open_questions.store` keeps their measures under ``results/open_questions/``.
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
from swingby.sim import run_checks
from swingby.sim.batched import train_batched
from swingby.sim.data import SimData, make_sim
from swingby.sim.models import MLP
from swingby.sim.train_loop import TrainRecord, steps_per_epoch

MODES = ("mini", "full_steps", "full_epochs")
VARIANTS = ("raw", "standardised", "norm_layer")
LAYOUTS = ("aligned", "rotated")


class Cell(NamedTuple):
    """One model and training setting of an open-question sweep."""

    depth: int = 4                 #: number of Linear layers
    activation: str = "linear"     #: "linear" or "relu"
    width: int = 4                 #: hidden width
    init_scale: float = 1.0        #: multiplier of PyTorch's default initialisation
    mode: str = "mini"             #: one of ``MODES``
    variant: str = "raw"           #: one of ``VARIANTS``
    layout: str = "rotated"        #: one of ``LAYOUTS``


def check_cell(cell) -> Cell:
    """``cell`` if it is a valid :class:`Cell`, else a ValueError naming the field."""
    if not isinstance(cell, Cell):
        raise ValueError(f"cell must be a swingby.open_questions.experiments.Cell, got {type(cell).__name__}")
    _checks.positive_int("cell.depth", cell.depth)
    _checks.positive_int("cell.width", cell.width)
    _checks.positive_float("cell.init_scale", cell.init_scale)
    _checks.choice("cell.activation", cell.activation, ("linear", "relu"))
    _checks.choice("cell.mode", cell.mode, MODES)
    _checks.choice("cell.variant", cell.variant, VARIANTS)
    _checks.choice("cell.layout", cell.layout, LAYOUTS)
    if cell.mode != "mini" and (cell.activation != "linear" or cell.variant != "raw"):
        raise ValueError("cell.mode other than 'mini' needs activation='linear' and variant='raw' "
                         "(the full-batch shortcut is exact for linear networks only)")
    return cell


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
    """The :class:`Standardiser` of a training set ``X`` ``(N, d)`` (float64 statistics).

    Parameters
    ----------
    X : torch.Tensor
        Training inputs; every input dimension must vary.

    Returns
    -------
    Standardiser
    """
    if not isinstance(X, torch.Tensor) or X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"X must be a torch.Tensor of shape (N, d) with N >= 2, got {getattr(X, 'shape', X)}")
    std = X.double().std(0, unbiased=False)
    if not bool((std > 0).all()):
        raise ValueError("X must vary in every input dimension to be standardised (a constant "
                         f"dimension has std 0: {torch.nonzero(std == 0).flatten().tolist()})")
    return Standardiser(X.double().mean(0).float(), std.float())


def _datasets(rules: OpenRules, cell: Cell, seeds: Sequence[int], null: bool, config_index: int):
    mu = (rules.null_mu,) * 2 if null else rules.mu
    run_seeds = [run_seed(s, config_index, d=rules.d, depth=cell.depth, stream=int(null)) for s in seeds]
    datas = [make_sim(mu, (rules.sigma,) * 2, rules.d, rules.n_per_cluster, origin_cluster=True,
                      rotate=cell.layout == "rotated", seed=rs) for rs in run_seeds]
    models = [MLP(rules.d, cell.depth, cell.width, activation=cell.activation, init_scale=cell.init_scale,
                  seed=rs) for rs in run_seeds]
    return run_seeds, datas, models


def _record(dat: SimData, outputs: np.ndarray, steps: np.ndarray, spe: int, config: dict) -> TrainRecord:
    pts = dat.to_concept(dat.test_points).double().numpy()
    outputs = outputs @ dat.rotation.double().numpy()  # input -> concept coordinates
    with np.errstate(all="ignore"):
        test_loss = 0.5 * ((outputs[:, -1] - pts[-1]) ** 2).sum(-1)
    return TrainRecord(steps=steps.astype(int), epochs=steps / spe, outputs=outputs, test_points=pts,
                       test_index=dat.test_index.numpy().astype(int), test_loss=test_loss,
                       train_loss=np.full(len(steps), np.nan), config=config)


class CellRuns(NamedTuple):
    """What :func:`cell_records` returns."""

    records: list        #: one :class:`~swingby.sim.train_loop.TrainRecord` per seed
    datas: list          #: the :class:`~swingby.sim.data.SimData` of each run
    standardisers: list  #: the :class:`Standardiser` of each run (None for raw inputs)


def cell_records(cell: Cell, seeds: Sequence[int], *, null: bool = False, config_index: int = 0,
                 rules: OpenRules = OQ_RULES) -> CellRuns:
    """Train one cell for ``seeds`` on the rules' data (or the equal-signal null).

    Run ``k`` draws its data, initial weights and shuffling from
    :func:`swingby.observations.runs.run_seed` of ``(seeds[k], config_index, d, depth,
    stream = null)``, so runs of different cells, and real and null runs, are
    independent. ``mode="full_steps"`` / ``"full_epochs"`` train full batch (as many steps
    as the mini-batch run, or as many epochs) on :func:`~swingby.open_questions.engine.moment_points` of the data;
    ``variant="standardised"`` trains on standardised inputs and targets,
    ``"norm_layer"`` on standardised inputs and raw targets. Outputs are recorded at the
    test points (standardised where the model sees standardised inputs) and returned in
    the raw data's concept coordinates.

    Parameters
    ----------
    cell : Cell
        The model and training setting.
    seeds : sequence of int
        Distinct seeds, one run each.
    null : bool
        Train on the equal-signal data ``mu = (null_mu, null_mu)``.
    config_index : int
        The cell's index in its sweep (mixed into the run seeds), ``>= 0``.
    rules : OpenRules
        Settings (data, lr, width, epochs, batch).

    Returns
    -------
    CellRuns
        One record per seed, its data and its standardisation.
    """
    cell = check_cell(cell)
    seeds = run_checks.seed_list("seeds", seeds, distinct=True)
    null = _checks.flag("null", null)
    config_index = _checks.integer("config_index", config_index, low=0)
    if not isinstance(rules, OpenRules):
        raise ValueError(f"rules must be an OpenRules, got {type(rules).__name__}")
    run_seeds, datas, models = _datasets(rules, cell, seeds, null, config_index)
    n = datas[0].X.shape[0]
    spe = steps_per_epoch(n, rules.batch_size)
    n_steps = rules.epochs * spe
    mu = (rules.null_mu,) * 2 if null else rules.mu
    config = dict(cell._asdict(), null=null, lr=rules.lr, mu=tuple(float(m) for m in mu),
                  sigma=(float(rules.sigma),) * 2, origin_cluster=True, d=rules.d)
    if cell.variant == "raw" and cell.mode == "mini":
        recs = train_batched(models, datas, lr=rules.lr, batch_size=rules.batch_size, epochs=rules.epochs,
                             seed=run_seeds, record_steps=record_grid(n_steps), record_train_loss=False)
        for r in recs:
            r.config.update(config)
        return CellRuns(recs, datas, [None] * len(recs))
    if cell.mode != "mini":
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
    order: bool        #: :func:`~swingby.observations.learning.order_passes` with ``first``
    t_first: float     #: learning time (epochs) of the concept predicted first
    t_second: float    #: learning time of the other concept
    diverged: bool     #: non-finite outputs


def run_measures(rec: TrainRecord, *, first: int = 1, rules: OpenRules = OQ_RULES) -> RunMeasures:
    """Measure one run as the observations chapter does.

    Parameters
    ----------
    rec : TrainRecord
        A run of two concepts.
    first : int
        The concept predicted to be learned first (0 or 1; 1 for ``mu = (2, 4)``).
    rules : OpenRules
        Supplies ``time_ratio``.

    Returns
    -------
    RunMeasures
    """
    _checks.instance("rec", rec, TrainRecord, "swingby.train.TrainRecord")
    first = _checks.integer("first", first, low=0, high=1)
    if rec.test_index.shape[1] != 2:
        raise ValueError(f"rec must have two concepts, got {rec.test_index.shape[1]}")
    if not (np.all(np.isfinite(rec.outputs)) and np.all(np.isfinite(rec.test_loss))):
        return RunMeasures(np.nan, np.inf, False, np.inf, np.inf, True)
    t = learning_times(rec)
    return RunMeasures(record_rise(rec), relative_distance(rec),
                       order_passes(rec, time_ratio=rules.time_ratio, first=first),
                       float(t[first]), float(t[1 - first]), False)


def _cells_batch(r: OpenRules) -> list[Cell]:
    return [Cell(depth=r.batch_depth, width=r.width, mode=m) for m in r.batch_modes]


def _cells_norm(r: OpenRules) -> list[Cell]:
    return [Cell(depth=dep, width=r.width, variant=v, layout=lay)
            for dep in r.norm_depths for lay in r.norm_layouts for v in r.norm_variants]


def _cells_init(r: OpenRules) -> list[Cell]:
    return [Cell(depth=dep, activation=act, width=r.width, init_scale=sc)
            for act, dep in r.init_models for sc in r.init_scales]


def _cells_depth(r: OpenRules) -> list[Cell]:
    return [Cell(depth=dep, width=w) for w in r.depth_widths for dep in r.depth_depths]


#: the experiments: name -> (cells of the rules, seeds per cell and data)
EXPERIMENTS = {
    "batch": (_cells_batch, "batch_seeds"),
    "norm": (_cells_norm, "norm_seeds"),
    "init": (_cells_init, "init_seeds"),
    "depth": (_cells_depth, "depth_seeds"),
}


def experiment_cells(name: str, rules: OpenRules = OQ_RULES) -> tuple[list[Cell], int]:
    """The cells of experiment ``name`` and its seeds per cell and data.

    Parameters
    ----------
    name : str
        One of :data:`EXPERIMENTS`.
    rules : OpenRules
        The rules that fix the cells.

    Returns
    -------
    (list of Cell, int)
    """
    _checks.choice("name", name, tuple(EXPERIMENTS))
    make, seeds = EXPERIMENTS[name]
    return make(rules), int(getattr(rules, seeds))
