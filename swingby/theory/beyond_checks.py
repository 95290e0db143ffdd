"""The claim checks of App. E.1 and E.3 (designs: :mod:`swingby.claims.beyond_two_concepts`):
multiple descents and the alignment of their stages (Figs. 8, 9), and the failure mode (Fig. 10),
one unit per initialisation, each beside its wrong model."""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.run_checks import seed_list
from swingby.sim.symmetric import SymmetricRecord, simulate_symmetric
from swingby.theory.rules import THEORY_RULES, shifted_minor, suppression_timing
from swingby.theory.settings import TheorySetting
from swingby.theory.stages import count_descents, detect_stages, escape_time, stage_alignment

__all__ = ["DescentUnits", "FailureParts", "FailureUnits", "descent_units", "failure_units"]

_CHUNK = 250  # initialisations simulated at once (memory)


def equal_signal_a(a: np.ndarray, s: int) -> np.ndarray:
    """The equal-signal wrong model: ``a`` with its first ``s`` entries replaced by their mean."""
    out = np.array(a, dtype=float)
    out[:s] = out[:s].mean()
    return out


def shifted_minor_record(record: SymmetricRecord, seed: int,
                         shift_min: float = THEORY_RULES.shift_min) -> SymmetricRecord:
    """``record`` (single) with every off-diagonal entry circularly shifted in time by one seeded shift."""
    return dataclasses.replace(record, W=shifted_minor(record.W, seed, shift_min), config=dict(record.config))


class DescentUnits(NamedTuple):
    """Output of :func:`descent_units`: one entry per initialisation (seed)."""

    seeds: tuple  #: the seeds, one unit each
    test_loss: np.ndarray  #: ``(n, R)`` test loss of the paper's dynamics
    n_descents: np.ndarray  #: ``(n,)`` descents of the test loss (``rel_tol``)
    null_n_descents: np.ndarray  #: ``(n,)`` the same for the equal-signal wrong model
    multi: np.ndarray  #: indices of the runs with ``s`` or more descents
    aligned: np.ndarray  #: ``(len(multi),)`` stages aligned and every ascent timed
    shifted: np.ndarray  #: ``(len(multi),)`` the same with the minor entries shifted
    s: int  #: concepts

    @property
    def passes(self) -> np.ndarray:
        """``(n,)`` the unit shows a multiple descent: ``s`` or more descents."""
        return self.n_descents >= self.s

    @property
    def null_passes(self) -> np.ndarray:
        """``(n,)`` the equal-signal run of the same seed shows one."""
        return self.null_n_descents >= self.s


def _aligned(record: SymmetricRecord, stages) -> bool:
    """Stages aligned with the descents, in the order of ``a``, every ascent timed."""
    return bool(stage_alignment(stages, record.a).holds and all(suppression_timing(record, stages)))


def descent_units(setting: TheorySetting, seeds, *, matrix: str = "authors", rel_tol: float = 0.01,
                  record_every: int = 10) -> DescentUnits:
    """Multiple descents and their stages at one setting of Figs. 8, 9 (App. E.1), one unit per seed,
    beside the equal-signal wrong model; a run with ``s`` or more descents is checked for aligned stages
    with every ascent timed, and so is the same run with its minor entries shifted.

    Parameters
    ----------
    setting, seeds
        E.g. ``THEORY_SETTINGS["fig8_script"]``; distinct seeds.
    matrix, rel_tol, record_every
        As in :func:`~swingby.theory.statistics.descent_statistics`.
    """
    _checks.instance("setting", setting, TheorySetting, "swingby.theory.settings.TheorySetting")
    seeds = seed_list("seeds", seeds, distinct=True)
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    a = setting.a(matrix)
    a_null = equal_signal_a(a, setting.s)
    loss, nd, nd0, multi, aligned, shifted = [], [], [], [], [], []
    for start in range(0, len(seeds), _CHUNK):
        chunk = seeds[start:start + _CHUNK]
        U0 = setting.U0(chunk)
        run = dict(eta=setting.eta, steps=setting.steps, x_hat=setting.x_hat, record_every=record_every,
                   iterate="U")
        rec = simulate_symmetric(U0, a, **run)
        nd0.append(count_descents(simulate_symmetric(U0, a_null, **run).test_loss, rel_tol))
        n_desc = count_descents(rec.test_loss, rel_tol)
        for b in np.flatnonzero(n_desc >= setting.s):
            one = rec.pick(int(b))
            st = detect_stages(one, setting.s, rel_tol=rel_tol)
            multi.append(start + int(b))
            aligned.append(_aligned(one, st))
            shifted.append(_aligned(shifted_minor_record(one, chunk[b]), st))
        loss.append(rec.test_loss)
        nd.append(n_desc)
    return DescentUnits(tuple(seeds), np.concatenate(loss), np.concatenate(nd), np.concatenate(nd0),
                        np.array(multi, dtype=int), np.array(aligned, dtype=bool),
                        np.array(shifted, dtype=bool), setting.s)


class FailureParts(NamedTuple):
    """The parts of the App. E.3 check, one boolean per run."""

    minor_grows: np.ndarray  #: the largest minor entry of ``w_11``'s group grows by ``minor_growth`` and more
    pushed_down: np.ndarray  #: after that peak ``w_11`` falls below ``major_drop`` of its start
    never_grows: np.ndarray  #: ``w_11`` is below ``growth_level`` at the horizon

    @property
    def passes(self) -> np.ndarray:
        """All three parts."""
        return self.minor_grows & self.pushed_down & self.never_grows


def failure_parts(record: SymmetricRecord, *, minor_growth: float = 2.0, major_drop: float = 0.5,
                  growth_level: float = 0.5) -> FailureParts:
    """The three parts of App. E.3's failure mode (see :func:`failure_units`) in a batch of runs."""
    w11 = record.W[:, :, 0, 0]
    minor = np.max(np.abs(record.W[:, :, 0, 1:]), axis=-1)
    k = np.argmax(minor, axis=1)
    grows = minor.max(axis=1) > minor_growth * minor[:, 0]
    after = np.where(np.arange(w11.shape[1])[None, :] >= k[:, None], w11, np.inf)
    pushed = after.min(axis=1) < major_drop * w11[:, 0]
    return FailureParts(grows, pushed, w11[:, -1] < growth_level)


class FailureUnits(NamedTuple):
    """Output of :func:`failure_units`: one entry per initialisation (seed)."""

    seeds: tuple  #: the seeds, one unit each
    parts: FailureParts  #: the check on the paper's dynamics
    null_parts: FailureParts  #: the check on the wrong model (no minor initialisation)
    escape: np.ndarray  #: ``(n,)`` time ``w_11`` passes 1/2, measured or predicted
    record: SymmetricRecord  #: the batched runs of the paper's dynamics
    late_w11: np.ndarray | None = None  #: ``(n,)`` ``w_11`` at ``long_horizon`` (or None)
    null_late_w11: np.ndarray | None = None  #: the same for the wrong model
    growth_level: float = 0.5  #: the level of "never grows"

    @property
    def passes(self) -> np.ndarray:
        """``(n,)`` the run shows the failure mode."""
        return self.parts.passes

    @property
    def null_passes(self) -> np.ndarray:
        """``(n,)`` the wrong model's run of the same seed shows it."""
        return self.null_parts.passes

    @property
    def never_passes(self) -> np.ndarray:
        """``(n,)`` the failure mode, and ``w_11`` still below ``growth_level`` at ``long_horizon``."""
        return self.passes & (self._late("late_w11") < self.growth_level)

    @property
    def null_never_passes(self) -> np.ndarray:
        """``(n,)`` the same for the wrong model's run of the same seed."""
        return self.null_passes & (self._late("null_late_w11") < self.growth_level)

    def _late(self, name: str) -> np.ndarray:
        value = getattr(self, name)
        if value is None:
            raise ValueError("the long horizon was not run: call failure_units with long_horizon")
        return value


def failure_units(setting: TheorySetting, seeds, *, matrix: str = "authors", horizon: float | None = None,
                  minor_growth: float = 2.0, major_drop: float = 0.5, growth_level: float = 0.5,
                  record_every: int = 10, long_horizon: float | None = None) -> FailureUnits:
    """The failure mode of App. E.3 (Fig. 10), one unit per seed, beside the wrong model without minor
    initialisation (``U = diag(sqrt(w_ii(0)))``). A run passes when the largest ``|w_1j|`` peaks above
    ``minor_growth`` times its start, ``w_11`` then falls below ``major_drop`` times its start, and
    ``w_11`` ends below ``growth_level`` (at ``long_horizon`` too for :attr:`FailureUnits.never_passes`).

    Parameters
    ----------
    setting, seeds
        ``THEORY_SETTINGS["fig10"]`` (or another with ``d >= 2``); distinct seeds.
    matrix, record_every, horizon, long_horizon
        As in :func:`~swingby.theory.statistics.descent_statistics`; times (default ``steps * eta``).
    minor_growth, major_drop, growth_level : float
        ``> 1``, in ``(0, 1)``, ``> 0``.
    """
    _checks.instance("setting", setting, TheorySetting, "swingby.theory.settings.TheorySetting")
    if setting.d < 2:
        raise ValueError(f"setting must have d >= 2, got d = {setting.d}")
    seeds = seed_list("seeds", seeds, distinct=True)
    kw = dict(minor_growth=_checks.number("minor_growth", minor_growth, low=1, low_open=True),
              major_drop=_checks.number("major_drop", major_drop, low=0, high=1, low_open=True, high_open=True),
              growth_level=_checks.positive_float("growth_level", growth_level))
    steps = setting.steps if horizon is None else \
        max(1, int(round(_checks.positive_float("horizon", horizon) / setting.eta)))
    a = setting.a(matrix)
    U0 = setting.U0(seeds)
    diag = np.sqrt(np.einsum("bij,bij->bi", U0, U0))  # sqrt(w_ii(0))
    U_null = np.einsum("bi,ij->bij", diag, np.eye(setting.d))
    run = dict(eta=setting.eta, steps=steps, x_hat=setting.x_hat, record_every=record_every, iterate="U")
    rec = simulate_symmetric(U0, a, **run)
    null = simulate_symmetric(U_null, a, **run)
    late = null_late = None
    if long_horizon is not None:
        long_steps = int(round(_checks.positive_float("long_horizon", long_horizon) / setting.eta))
        if long_steps < steps:
            raise ValueError(f"long_horizon must be at least the horizon ({steps * setting.eta:g}), "
                             f"got {long_horizon!r}")
        run.update(steps=long_steps, record_every=long_steps)
        late, null_late = (simulate_symmetric(U, a, **run).W[:, -1, 0, 0] for U in (U0, U_null))
    return FailureUnits(tuple(seeds), failure_parts(rec, **kw), failure_parts(null, **kw),
                        escape_time(rec), rec, late, null_late, kw["growth_level"])
