"""The claim checks of ``book/two_layer_theory.md`` and ``book/two_layer_checks.md``, each returning what
:func:`swingby.verdicts.judge` needs: passing units of the claim and of its wrong model
(a model that lacks the paper's mechanism by the paper's own theory), with the discordant
pairs where both are run from the same initialisations. The thresholds and numbers of
units are in :data:`swingby.theory.rules.THEORY_RULES`; the claims in
:mod:`swingby.claims.two_layer_theory`.

Null audit of the wrong models used here:

* **Equal signal** (Fig. 5's frequency, Fig. 18): the Fig. 5 setting with both concepts
  at ``mu_2`` (``equal_signal_mu``), so that ``a_1 = a_2``. By eq. (4.3) both major
  entries then grow at the same rate and no major entry has grown while the other is
  still small: Sec. 4.2.1's first suppression needs "the difference between ``a_1`` and
  ``a_2``" to be "large enough" (Assumption D.5, ``a_i >= 3 a_j``). It is neither the
  paper's account of the figure nor a replicate (other data). Shown: from the first 200
  initialisations of :func:`fig5_record` its test loss descends once in every run
  (``tests/test_theory_claims.py``).
* **Too large a step** (Fig. 17): the same gradient steps on ``U`` from the same
  ``U(0)`` with ``eta = fig17_eta_wrong``, over the same time. The paper's reason for
  the monotone training loss is the small learning rate (App. F.4); near the minimum the
  map multiplies the error of a major entry ``w_pp`` by ``1 - 2 eta a_p``, which for
  ``eta > 1 / a_max`` exceeds 1 in size, so the guarantee is gone. Shown: the training
  loss rises in every one of the first 20 initialisations.
* **Circularly shifted minor entries** (Sec. 4.2.2 stages): each swinging run's own minor
  entries shifted in time by at least ``shift_min`` of the record; same shape and size,
  no timing relative to the loss (:func:`swingby.theory.rules.shifted_timing`).

Wrong variants of the identity (4.3): the suppression term without the indicator
``1{i != j}``, the noise term with ``a_k`` in place of ``2 a_k``, and the clock of
(D.1), ``eta = lr``, for a gradient step on ``U``.
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from swingby import _checks, verdicts
from swingby.sim.run_checks import seed_list
from swingby.theory.rules import THEORY_RULES, TheoryRules, shifted_timing, suppression_timing
from swingby.theory.settings import THEORY_SETTINGS
from swingby.theory.simulation import SymmetricRecord, simulate_symmetric
from swingby.theory.stages import count_descents, detect_stages, stage_alignment
from swingby.theory.symmetric import gsn_terms, symmetric_step, u_step_to_w_eta

#: the wrong variants of the identity check, in the order of :attr:`Counts.null_passes` columns
GSN_VARIANTS = ("suppression without 1{i != j}", "noise with a_k for 2 a_k", "clock eta = lr (D.1)")


class Counts(NamedTuple):
    """Passing units of a claim's check and of its wrong model, for :func:`swingby.verdicts.judge`."""

    passes: np.ndarray       #: ``(n,)`` bool, one per unit of the claim
    null_passes: np.ndarray  #: bool, one per unit of the wrong model (or wrong variant and draw)
    paired: bool             #: units and wrong-model units come from the same initialisations

    @property
    def k(self) -> int:
        """Passing units."""
        return int(np.sum(self.passes))

    @property
    def n(self) -> int:
        """Units."""
        return int(np.size(self.passes))

    @property
    def null_k(self) -> int:
        """Passing units of the wrong model."""
        return int(np.sum(self.null_passes))

    @property
    def null_n(self) -> int:
        """Units of the wrong model."""
        return int(np.size(self.null_passes))

    @property
    def pairs(self) -> tuple[int, int] | None:
        """``(b, c)``: pairs where only the claim's unit passes, only the wrong model's."""
        return verdicts.discordant_pairs(self.passes, self.null_passes) if self.paired else None

    def judge(self, form: str) -> verdicts.Judgement:
        """:func:`swingby.verdicts.judge` of these counts for a claim of ``form``."""
        return verdicts.judge_units(form, self.passes, self.null_passes, paired=self.paired)


def _rules(rules) -> TheoryRules:
    """``rules`` if it is a TheoryRules, else a ValueError."""
    return _checks.instance("rules", rules, TheoryRules, "swingby.theory.rules.TheoryRules")


def _gsn_draw(seed: int, rules: TheoryRules) -> tuple[bool, list[bool]]:
    """One random draw of the identity check: the right terms pass?, each variant passes?"""
    import torch

    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 9))
    a = rng.uniform(0.0, 2.0, size=d)
    Ur = rng.normal(size=(d, d)) * 0.4
    W = Ur @ Ur.T
    eta = rules.gsn_eta
    G, S, N = gsn_terms(W, a)
    ai, aj = a[:, None], a[None, :]
    wii, wjj = np.diag(W)[:, None], np.diag(W)[None, :]
    off = 1.0 - np.eye(d)
    S_no_ind = 0.5 * W * (wii * (3 * ai + aj) + wjj * (3 * aj + ai))
    N_half = N - 0.5 * ((W.T * a) @ W - wii * ai * W - off * W * wjj * aj)
    step = symmetric_step(W, a, eta)

    def exact(g, s, n):
        return bool(np.abs(W + eta * (g - s - n) - step).max() <= rules.gsn_tol)

    U0 = torch.tensor(rng.uniform(0.0, 0.3, size=(d, d)), dtype=torch.float64)
    root_A = torch.diag(torch.tensor(np.sqrt(a)))
    eye = torch.eye(d, dtype=torch.float64)
    errors = {True: [], False: []}  # eta = 2 lr (the paper's clock), eta = lr
    for lr in rules.gsn_lrs:
        U = U0.clone().requires_grad_(True)
        loss = 0.5 * (((U @ U.T - eye) @ root_A) ** 2).sum()
        (grad,) = torch.autograd.grad(loss, U)
        U1 = (U0 - lr * grad).numpy()
        for right in (True, False):
            target = symmetric_step(U0.numpy() @ U0.numpy().T, a, u_step_to_w_eta(lr) if right else lr)
            errors[right].append(np.abs(U1 @ U1.T - target).max())

    def second_order(errs):
        lo, hi = rules.gsn_ratio_band
        return bool(lo < errs[0] / errs[1] < hi)

    clock = second_order(errors[True])
    return exact(G, S, N) and clock, [exact(G, S_no_ind, N) and clock, exact(G, S, N_half) and clock,
                                      exact(G, S, N) and second_order(errors[False])]


def gsn_draws(seeds, rules: TheoryRules = THEORY_RULES) -> Counts:
    """The identity of eq. (4.3) and the clock of (D.2) on random draws (claim
    ``claim-two-gsn``, form ``identity``).

    Each seed draws ``d`` in 2..8, ``a`` uniform in [0, 2) and a symmetric ``W = U U^T``
    (``U`` normal, scale 0.4). A draw passes when ``W + eta (G - S - N)`` equals the step
    (D.2) to ``gsn_tol`` and a gradient step on ``U`` (autograd, loss 4.1) with learning
    rate ``lr`` is (D.2) with ``eta = 2 lr`` to second order: the error shrinks by a
    factor in ``gsn_ratio_band`` when ``lr`` is halved (``gsn_lrs``). The wrong variants
    (:data:`GSN_VARIANTS`) are judged by the same check on every draw. Used by
    ``book/two_layer_theory.md``.

    Parameters
    ----------
    seeds : sequence of int
        One draw per seed.
    rules : TheoryRules
        Supplies ``gsn_eta``, ``gsn_tol``, ``gsn_lrs``, ``gsn_ratio_band``.

    Returns
    -------
    Counts
        ``null_passes`` has one entry per (draw, variant), draws first.
    """
    seeds, rules = seed_list("seeds", seeds, distinct=True), _rules(rules)
    out = [_gsn_draw(s, rules) for s in seeds]
    return Counts(np.array([o[0] for o in out]), np.array([o[1] for o in out]).ravel(), paired=False)


def fig5_record(seeds, *, equal_signal: bool = False, eta: float | None = None,
                rules: TheoryRules = THEORY_RULES) -> SymmetricRecord:
    """Gradient steps on ``U`` at the Fig. 5 setting (the authors' data, ``A^2``) from
    the uniform initialisation of each seed, recorded at every step.

    Parameters
    ----------
    seeds : sequence of int
        One initialisation per seed (:meth:`~swingby.theory.settings.TheorySetting.U0`).
    equal_signal : bool
        The wrong model of the frequency and Fig. 18 checks: both ``mu_p`` at
        ``equal_signal_mu`` (so ``a_1 = a_2``).
    eta : float, optional
        Step of (D.2) (default the setting's 0.01); the number of steps keeps the time
        ``steps * 0.01`` of the figure.
    rules : TheoryRules
        Supplies ``equal_signal_mu``.

    Returns
    -------
    SymmetricRecord
        Batched, one trajectory per seed.
    """
    fig5, rules = THEORY_SETTINGS["fig5"], _rules(rules)
    eta = fig5.eta if eta is None else _checks.positive_float("eta", eta)
    seeds = seed_list("seeds", seeds, distinct=True)
    setting = dataclasses.replace(fig5, mu=(rules.equal_signal_mu,) * 2) if equal_signal else fig5
    steps = max(1, int(round(fig5.steps * fig5.eta / eta)))
    return simulate_symmetric(setting.U0(seeds), setting.a("authors"), eta, steps, setting.x_hat,
                              record_every=1, iterate="U")


def _batched(name: str, record) -> SymmetricRecord:
    """``record`` if it is a batched SymmetricRecord, else a ValueError."""
    _checks.instance(name, record, SymmetricRecord, "swingby.theory.simulation.SymmetricRecord")
    if record.W.ndim != 4:
        raise ValueError(f"{name} must be a batched record (one trajectory per seed), got W of shape "
                         f"{record.W.shape}")
    return record


def _same_batch(record, null_record) -> None:
    """ValueError unless the two batched records have as many trajectories."""
    if record.W.shape[0] != null_record.W.shape[0]:
        raise ValueError(f"record and null_record must hold the same initialisations, got {record.W.shape[0]} "
                         f"and {null_record.W.shape[0]} trajectories")


def swings(record: SymmetricRecord, rules: TheoryRules = THEORY_RULES) -> np.ndarray:
    """Which runs of a batched record swing by: the test loss descends at least twice
    (:func:`~swingby.theory.stages.count_descents` with ``rel_tol``).

    Parameters
    ----------
    record : SymmetricRecord
        Batched, finite.
    rules : TheoryRules
        Supplies ``rel_tol``.

    Returns
    -------
    numpy.ndarray
        ``(B,)`` bool.
    """
    record, rules = _batched("record", record), _rules(rules)
    return count_descents(record.test_loss, rel_tol=rules.rel_tol) >= 2


def _paired(check, record, null_record, rules) -> Counts:
    """``check`` on the runs and on the wrong model's runs from the same seeds, paired."""
    record, null_record = _batched("record", record), _batched("null_record", null_record)
    _same_batch(record, null_record)
    return Counts(check(record, rules), check(null_record, rules), paired=True)


def swing_counts(record: SymmetricRecord, null_record: SymmetricRecord,
                 rules: TheoryRules = THEORY_RULES) -> Counts:
    """Claim ``claim-two-fig5-frequency`` (form ``typical``): a run passes when it swings
    by (:func:`swings`); the wrong model is the equal-signal record from the same seeds.

    Parameters
    ----------
    record, null_record : SymmetricRecord
        :func:`fig5_record` of the same seeds, without and with ``equal_signal``.
    rules : TheoryRules

    Returns
    -------
    Counts
        Paired.
    """
    return _paired(swings, record, null_record, rules)


def stage_counts(record: SymmetricRecord, seeds, rules: TheoryRules = THEORY_RULES) -> Counts:
    """Claim ``claim-two-fig5-stages`` (form ``typical``): among the runs that swing by,
    a run passes when (i) the ascent is timed by the suppression of the minor entries
    (:func:`~swingby.theory.rules.suppression_timing`), (ii) the k-th major entry to
    grow passes ``growth_level`` during the k-th descent and (iii) they grow in the order
    of decreasing ``a_p`` (:func:`~swingby.theory.stages.stage_alignment`). The wrong
    model: the same run with its minor entries circularly shifted (one shift per run,
    seeded by the run's seed), judged by (i)-(iii).

    Parameters
    ----------
    record : SymmetricRecord
        :func:`fig5_record` of ``seeds``.
    seeds : sequence of int
        The seeds of the record's trajectories (they seed the shifts).
    rules : TheoryRules

    Returns
    -------
    Counts
        Paired, one unit per swinging run.
    """
    record, rules = _batched("record", record), _rules(rules)
    seeds = seed_list("seeds", seeds, distinct=True)
    if len(seeds) != record.W.shape[0]:
        raise ValueError(f"seeds must give one seed per trajectory ({record.W.shape[0]}), got {len(seeds)}")
    one_shift = dataclasses.replace(rules, n_shifts=1)
    s = THEORY_SETTINGS["fig5"].s
    passes, nulls = [], []
    for b in np.flatnonzero(swings(record, rules)):
        run = record.pick(int(b))
        st = detect_stages(run, s, rel_tol=rules.rel_tol, growth_level=rules.growth_level)
        aligned = stage_alignment(st, run.a).holds
        passes.append(aligned and all(suppression_timing(run, st, rules)))
        nulls.append(aligned and shifted_timing(run, st, seeds[b], one_shift) == 1.0)
    return Counts(np.array(passes, bool), np.array(nulls, bool), paired=True)


def training_loss_counts(record: SymmetricRecord, null_record: SymmetricRecord) -> Counts:
    """Claim ``claim-two-fig17`` (form ``universal``): a run passes when its training
    loss (eq. 4.1 with the ``a`` the dynamics descend) is finite and never rises from
    one step to the next. The wrong model: the same ``U(0)`` with too large a step.

    Parameters
    ----------
    record, null_record : SymmetricRecord
        :func:`fig5_record` of the same seeds, with the figure's step and with
        ``eta=fig17_eta_wrong``.

    Returns
    -------
    Counts
        Paired.
    """
    record, null_record = _batched("record", record), _batched("null_record", null_record)
    _same_batch(record, null_record)

    def monotone(rec):
        L = rec.train_loss
        with np.errstate(invalid="ignore"):
            return np.isfinite(L).all(axis=1) & (np.diff(L, axis=1) <= 0).all(axis=1)

    return Counts(monotone(record), monotone(null_record), paired=True)


def fig18_stage_gap(record: SymmetricRecord, rules: TheoryRules = THEORY_RULES) -> np.ndarray:
    """Claim ``claim-two-fig18`` (form ``typical``), per run: when the sideways component
    ``|w_12|`` of both training outputs peaks, one output has reached its concept (its
    major entry at least ``growth_level``) while the other has not started (its major
    entry at most ``fig18_later_max``): the two detours fall in different stages.

    Parameters
    ----------
    record : SymmetricRecord
        Batched, ``s = 2`` concepts on the first two axes.
    rules : TheoryRules
        Supplies ``growth_level`` and ``fig18_later_max``.

    Returns
    -------
    numpy.ndarray
        ``(B,)`` bool.
    """
    record, rules = _batched("record", record), _rules(rules)
    W = record.W
    k = np.argmax(np.abs(W[:, :, 0, 1]), axis=1)
    at_peak = W[np.arange(W.shape[0]), k]
    w11, w22 = at_peak[:, 0, 0], at_peak[:, 1, 1]
    return (np.maximum(w11, w22) >= rules.growth_level) & (np.minimum(w11, w22) <= rules.fig18_later_max)


def fig18_counts(record: SymmetricRecord, null_record: SymmetricRecord,
                 rules: TheoryRules = THEORY_RULES) -> Counts:
    """:func:`fig18_stage_gap` of the Fig. 5 runs and of the equal-signal runs from the
    same seeds.

    Parameters
    ----------
    record, null_record : SymmetricRecord
        :func:`fig5_record` of the same seeds, without and with ``equal_signal``.
    rules : TheoryRules

    Returns
    -------
    Counts
        Paired.
    """
    return _paired(fig18_stage_gap, record, null_record, rules)



class ClockErrors(NamedTuple):
    """How far one gradient step on ``U`` is from one step of (D.2), per learning rate."""

    lrs: tuple            #: the learning rates ``lr`` of the step on ``U``
    paper: np.ndarray     #: largest entry of ``|W_autograd - D.2(eta = 2 lr)|``, the paper's clock
    d1: np.ndarray        #: the same with ``eta = lr``, the clock of (D.1)


def clock_errors(U0, a, lrs) -> ClockErrors:
    """One autograd step on ``U`` (loss 4.1, ``f = U U^T x``) against one step of eq.
    (D.2) on ``W = U U^T``, with the paper's clock ``eta = 2 lr`` and with ``eta = lr``.

    With ``eta = 2 lr`` the error is of second order in ``lr`` (halving ``lr`` divides it
    by about 4); with ``eta = lr`` it is of first order. Section "From U to W" of
    ``book/two_layer_theory.md``.

    Parameters
    ----------
    U0 : array_like(float, ndim=2)
        ``(d, d')``, the first layer before the step.
    a : array_like(float, ndim=1)
        ``(d,)``, the diagonal of ``A``, entries ``>= 0``.
    lrs : sequence of float
        Learning rates ``> 0``.

    Returns
    -------
    ClockErrors
    """
    import torch

    U0 = np.asarray(U0, dtype=float)
    a = np.asarray(a, dtype=float)
    if U0.ndim != 2 or a.ndim != 1 or U0.shape[0] != a.size:
        raise ValueError(f"U0 must be (d, d') and a (d,), got U0 {U0.shape} and a {a.shape}")
    if np.any(a < 0) or not np.all(np.isfinite(a)) or not np.all(np.isfinite(U0)):
        raise ValueError("a must be finite and >= 0 and U0 finite")
    lrs = tuple(_checks.positive_float("lr", lr) for lr in lrs)
    if not lrs:
        raise ValueError("lrs must hold at least one learning rate")
    W0 = U0 @ U0.T
    root_A = torch.diag(torch.tensor(np.sqrt(a)))
    eye = torch.eye(a.size, dtype=torch.float64)
    paper, d1 = [], []
    for lr in lrs:
        U = torch.tensor(U0, dtype=torch.float64, requires_grad=True)
        loss = 0.5 * (((U @ U.T - eye) @ root_A) ** 2).sum()
        (grad,) = torch.autograd.grad(loss, U)
        U1 = U0 - lr * grad.numpy()
        W1 = U1 @ U1.T
        paper.append(np.abs(W1 - symmetric_step(W0, a, u_step_to_w_eta(lr))).max())
        d1.append(np.abs(W1 - symmetric_step(W0, a, lr)).max())
    return ClockErrors(lrs, np.array(paper), np.array(d1))
