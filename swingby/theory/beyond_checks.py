"""The claim checks of App. E.1 and E.3 on many initialisations at once
(``book/beyond_two_concepts.md``): multiple descents and the alignment of their stages
(Figs. 8, 9), and the failure mode (Fig. 10), each beside its wrong model.

The units are initialisations of the symmetric model ``U U^T`` (one seed each, gradient
steps on ``U``, :func:`~swingby.theory.simulation.simulate_symmetric`); the designs (seeds,
settings, thresholds) are registered in :mod:`swingby.claims.beyond_two_concepts`.

The wrong models, and why each lacks the paper's mechanism (null audits):

* **Equal signal** (:func:`equal_signal_a`), for multiple descents: the same
  initialisations with every informative ``a_p`` replaced by their mean. With
  ``A = a I`` on the concept axes the update of (D.2) is ``M = 2a (W - I)``, a function
  of ``W`` alone, so ``W(t)`` keeps the eigenvectors of ``W(0)`` and every eigenvalue
  moves monotonically to 1 (a gradient step on ``U`` is the congruence ``B W B`` with
  ``B = I - eta a (W - I)``, which commutes with ``W``). No major entry leads, no minor
  entry is suppressed by one (Sec. 4.2.1: suppression needs ``a_1 - a_2`` large enough),
  and ``0.5 ||(W - I) x_hat||^2`` falls monotonically: one descent in every run (0 of 200
  with two or more at the Fig. 8 script setting, checked in ``tests/test_beyond_claims.py``).
* **Shifted minor entries** (:func:`shifted_minor_record`), for the alignment of the
  stages: the run's own record with every off-diagonal entry circularly shifted in
  time (one shift per run). It keeps the loss, the major entries and the shape and size
  of the minor entries, and removes what Sec. 4.2.2 names as the cause of each ascent,
  the timing of the suppression of the minor entries; neither a replicate nor the
  paper's account.
* **No minor initialisation** (:func:`failure_units`, ``diagonal=True``), for App. E.3:
  the same major entries ``w_ii(0)`` with the minor entries ``w_ij(0) = 0``. By eq. (4.3)
  a minor entry acts on ``w_11`` only through ``N_11 = sum_k w_k1^2 (a_1 + a_k)``, and
  with ``W(0)`` diagonal every ``G_ij``, ``S_ij``, ``N_ij`` of a minor entry is 0, so
  they stay 0, ``N_11 = 0``, and ``w_11`` follows the logistic law and is never pushed
  down (the decoupled, diagonally initialised model of the paper's remark on existing
  work; 0 of 200 pass at the Fig. 10 setting, checked in the tests).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim.run_checks import seed_list
from swingby.theory.rules import THEORY_RULES, suppression_timing
from swingby.theory.settings import TheorySetting
from swingby.theory.simulation import SymmetricRecord, _single_record, simulate_symmetric
from swingby.theory.stages import count_descents, detect_stages, escape_time, stage_alignment

_CHUNK = 250  # initialisations simulated at once (memory)


def equal_signal_a(a, s: int) -> np.ndarray:
    """The equal-signal wrong model: ``a`` with its first ``s`` entries replaced by their
    mean (the null audit is in the module docstring). Used by
    ``book/beyond_two_concepts.md``.

    Parameters
    ----------
    a : array_like(float, ndim=1)
        The diagonal the dynamics run with, entries ``>= 0``.
    s : int
        Informative directions, ``1 <= s <= len(a)``.

    Returns
    -------
    numpy.ndarray
        ``(len(a),)``.
    """
    a = _checks.nonneg_vector("a", a)
    s = _checks.integer("s", s, low=1, high=a.size)
    out = a.copy()
    out[:s] = a[:s].mean()
    return out


def shifted_minor_record(record: SymmetricRecord, seed: int,
                         shift_min: float = THEORY_RULES.shift_min) -> SymmetricRecord:
    """The shifted-minor-entries wrong model of the stage alignment: ``record`` with every
    off-diagonal entry of ``W`` circularly shifted in time by one random number of
    records, at least ``shift_min`` of the record from either end (module docstring).
    Used by ``book/beyond_two_concepts.md``.

    Parameters
    ----------
    record : SymmetricRecord
        A single trajectory.
    seed : int
        Seed of the shift.
    shift_min : float
        In ``(0, 0.5]``: the smallest shift, a share of the records.

    Returns
    -------
    SymmetricRecord
        The same loss, output and major entries; shifted minor entries.
    """
    record = _single_record("record", record)
    rng = np.random.default_rng(_checks.seed("seed", seed))
    shift_min = _checks.number("shift_min", shift_min, low=0, high=0.5, low_open=True)
    R, d = record.W.shape[0], record.W.shape[-1]
    lo = max(1, int(shift_min * R))
    k = int(rng.integers(lo, R - lo + 1)) if R - lo >= lo else 1
    off = ~np.eye(d, dtype=bool)
    W = record.W.copy()
    W[:, off] = np.roll(record.W, k, axis=0)[:, off]
    return SymmetricRecord(record.steps, record.time, W, record.output, record.test_loss,
                           record.train_loss, record.a, record.x_hat, record.eta, dict(record.config))


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


def descent_units(setting: TheorySetting, seeds, *, matrix: str = "authors", rel_tol: float = 0.01,
                  record_every: int = 10) -> DescentUnits:
    """Multiple descents and their stages at one setting of Figs. 8, 9 (App. E.1), one
    unit per seed, beside the equal-signal wrong model run from the same ``U(0)``.

    Each seed's ``U(0)`` (:meth:`~swingby.theory.settings.TheorySetting.U0`) is run with
    gradient steps on ``U`` for the setting's steps, under ``a`` and under
    :func:`equal_signal_a`. A run with ``s`` or more descents is checked for the
    alignment of App. E.1 (:func:`~swingby.theory.stages.stage_alignment`: the ``k``-th
    major entry grows in the ``k``-th descent, in the order of ``a_p``) with every ascent
    timed by a suppression (:func:`~swingby.theory.rules.suppression_timing`), and so is
    its :func:`shifted_minor_record` (shift seeded by the run's seed). Used by
    ``book/beyond_two_concepts.md``.

    Parameters
    ----------
    setting : TheorySetting
        E.g. ``THEORY_SETTINGS["fig8_script"]``.
    seeds : sequence of int
        Distinct seeds, one initialisation each.
    matrix : {"authors", "paper"}
        As in :meth:`~swingby.theory.settings.TheorySetting.a`.
    rel_tol : float
        Tolerance of the descents, a share of the initial test loss.
    record_every : int
        Record every ``k``-th step.

    Returns
    -------
    DescentUnits
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


def _aligned(record: SymmetricRecord, stages) -> bool:
    """Stages aligned with the descents, in the order of ``a``, every ascent timed."""
    return bool(stage_alignment(stages, record.a).holds and all(suppression_timing(record, stages)))


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
    """App. E.3's failure mode, read from a batch of runs of the first major entry
    ``w_11`` and its group of minor entries ``w_1j`` (``j > 1``): the minor entry "is not
    suppressed until it grows to a significant value" (the largest ``|w_1j|`` peaks above
    ``minor_growth`` times its initial value), "which can, in turn, lead to a too strong
    suppression on the corresponding major entry" (after that peak ``w_11`` falls below
    ``major_drop`` times its initial value: it "leaves the initial phase from below"; by
    eq. (4.3) only ``N_11``, the minor entries, can pull a ``w_11 < 1`` down), and it
    "never grows" (``w_11 < growth_level`` at the end of the record). Used by
    ``book/beyond_two_concepts.md``.

    Parameters
    ----------
    record : SymmetricRecord
        A batched record, ``d >= 2``.
    minor_growth : float
        ``> 1``.
    major_drop : float
        In ``(0, 1)``.
    growth_level : float
        ``> 0``.

    Returns
    -------
    FailureParts
    """
    _checks.instance("record", record, SymmetricRecord, "swingby.theory.simulation.SymmetricRecord")
    if record.W.ndim != 4 or record.W.shape[-1] < 2:
        raise ValueError(f"record must be batched with d >= 2 (W of shape (B, R, d, d)), got {record.W.shape}")
    minor_growth = _checks.number("minor_growth", minor_growth, low=1, low_open=True)
    major_drop = _checks.number("major_drop", major_drop, low=0, high=1, low_open=True, high_open=True)
    growth_level = _checks.positive_float("growth_level", growth_level)
    w11 = record.W[:, :, 0, 0]
    minor = np.max(np.abs(record.W[:, :, 0, 1:]), axis=-1)
    k = np.argmax(minor, axis=1)
    rows = np.arange(w11.shape[0])
    grows = minor[rows, k] > minor_growth * minor[:, 0]
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
        """The late ``w_11`` field ``name``, or a ValueError if no long horizon was run."""
        value = getattr(self, name)
        if value is None:
            raise ValueError("the long horizon was not run: call failure_units with long_horizon")
        return value


def failure_units(setting: TheorySetting, seeds, *, matrix: str = "authors", horizon: float | None = None,
                  minor_growth: float = 2.0, major_drop: float = 0.5, growth_level: float = 0.5,
                  record_every: int = 10, long_horizon: float | None = None) -> FailureUnits:
    """The failure mode of App. E.3 (Fig. 10), one unit per seed, beside the wrong model
    without minor initialisation (module docstring) run from the same major entries.

    Each seed's ``U(0)`` is run with gradient steps on ``U`` (which keep ``W = U U^T``
    positive semi-definite) to ``horizon``; the wrong model starts from
    ``U = diag(sqrt(w_ii(0)))``. Both are read by :func:`failure_parts`. With
    ``long_horizon``, both are also run (recording only their ends) to that later time,
    for "never grows": :attr:`FailureUnits.never_passes` is the failure mode with
    ``w_11`` still below ``growth_level`` there. Used by ``book/failure_mode.md``.

    Parameters
    ----------
    setting : TheorySetting
        ``THEORY_SETTINGS["fig10"]``, or another with ``d >= 2``.
    seeds : sequence of int
        Distinct seeds.
    matrix : {"authors", "paper"}
        As in :meth:`~swingby.theory.settings.TheorySetting.a`.
    horizon : float, optional
        ``> 0``, the time to run to (default: the setting's, ``steps * eta``).
    minor_growth, major_drop, growth_level : float
        As in :func:`failure_parts`.
    record_every : int
        Record every ``k``-th step.
    long_horizon : float, optional
        A time ``>= horizon`` to run both models to as well (default: none).

    Returns
    -------
    FailureUnits
    """
    _checks.instance("setting", setting, TheorySetting, "swingby.theory.settings.TheorySetting")
    seeds = seed_list("seeds", seeds, distinct=True)
    steps = setting.steps if horizon is None else \
        max(1, int(round(_checks.positive_float("horizon", horizon) / setting.eta)))
    a = setting.a(matrix)
    U0 = setting.U0(seeds)
    diag = np.sqrt(np.einsum("bij,bij->bi", U0, U0))  # sqrt(w_ii(0))
    U_null = np.einsum("bi,ij->bij", diag, np.eye(setting.d))
    run = dict(eta=setting.eta, steps=steps, x_hat=setting.x_hat, record_every=record_every, iterate="U")
    rec = simulate_symmetric(U0, a, **run)
    null = simulate_symmetric(U_null, a, **run)
    kw = dict(minor_growth=minor_growth, major_drop=major_drop, growth_level=growth_level)
    late = null_late = None
    if long_horizon is not None:
        long_steps = int(round(_checks.positive_float("long_horizon", long_horizon) / setting.eta))
        if long_steps < steps:
            raise ValueError(f"long_horizon must be at least the horizon ({steps * setting.eta:g}), "
                             f"got {long_horizon!r}")
        run.update(steps=long_steps, record_every=long_steps)
        late, null_late = (simulate_symmetric(U, a, **run).W[:, -1, 0, 0] for U in (U0, U_null))
    return FailureUnits(tuple(seeds), failure_parts(rec, **kw), failure_parts(null, **kw),
                        escape_time(rec), rec, late, null_late, growth_level)
