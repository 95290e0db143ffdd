"""The claim checks of the two-layer chapters (:mod:`swingby.claims.two_layer_theory`), each returning the
passing units of the claim and of its wrong model (:class:`Counts`). ``rules`` is a ``TheoryRules``;
``record`` and ``null_record`` are :func:`fig5_record` of the same seeds, of the claim's and the wrong model."""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import torch

from swingby import _checks, verdicts
from swingby.sim.run_checks import seed_list
from swingby.sim.symmetric import SymmetricRecord, gsn_terms, simulate_symmetric, symmetric_record, symmetric_step
from swingby.theory.rules import THEORY_RULES, TheoryRules, shifted_timing, suppression_timing
from swingby.theory.settings import THEORY_SETTINGS
from swingby.theory.stages import count_descents, detect_stages, stage_alignment

__all__ = ["GSN_VARIANTS", "ClockErrors", "Counts", "clock_errors", "fig18_counts", "fig18_stage_gap", "fig5_record",
           "gsn_draws", "stage_counts", "swing_counts", "training_loss_counts"]

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

    def judge(self, form: str) -> verdicts.Judgement:
        """:func:`swingby.verdicts.judge` of these counts for a claim of ``form``."""
        return verdicts.judge_units(form, self.passes, self.null_passes, paired=self.paired)


def _rules(rules) -> TheoryRules:
    return _checks.instance("rules", rules, TheoryRules, "swingby.theory.rules.TheoryRules")


class ClockErrors(NamedTuple):
    """How far one gradient step on ``U`` is from one step of (D.2), per learning rate."""

    lrs: tuple            #: the learning rates ``lr`` of the step on ``U``
    paper: np.ndarray     #: largest entry of ``|W_autograd - D.2(eta = 2 lr)|``, the paper's clock
    d1: np.ndarray        #: the same with ``eta = lr``, the clock of (D.1)


def clock_errors(U0, a, lrs) -> ClockErrors:
    """One autograd step on ``U`` (loss 4.1) against one step of (D.2) on ``W = U U^T``, with the
    paper's clock ``eta = 2 lr`` (error of second order in ``lr``) and with ``eta = lr`` (first order).

    Parameters
    ----------
    U0, a, lrs
        ``(d, d')``, the first layer before the step; ``(d,)``; the learning rates.
    """
    a, U0 = _checks.nonneg_vector("a", a), _checks.array("U0", U0, ndim=2)
    if U0.shape[0] != a.size:
        raise ValueError(f"U0 must be (d, d') with d = len(a) = {a.size}, got {U0.shape}")
    lrs = tuple(_checks.positive_float("lr", lr) for lr in lrs)
    if not lrs:
        raise ValueError("lrs must hold at least one learning rate")
    U = torch.tensor(U0, dtype=torch.float64, requires_grad=True)
    eye, root_A = torch.eye(a.size, dtype=torch.float64), torch.diag(torch.tensor(np.sqrt(a)))
    (grad,) = torch.autograd.grad(0.5 * (((U @ U.T - eye) @ root_A) ** 2).sum(), U)
    W0, errors = U0 @ U0.T, []
    for lr in lrs:
        U1 = U0 - lr * grad.numpy()
        errors.append([np.abs(U1 @ U1.T - symmetric_step(W0, a, eta)).max() for eta in (2.0 * lr, lr)])
    paper, d1 = np.array(errors).T
    return ClockErrors(lrs, paper, d1)


def _gsn_draw(seed: int, rules: TheoryRules) -> tuple[bool, list[bool]]:
    """One random draw of the identity check: the right terms pass?, each variant passes?"""
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

    U0 = rng.uniform(0.0, 0.3, size=(d, d))
    _, right, wrong = clock_errors(U0, a, rules.gsn_lrs)  # the errors at eta = 2 lr and at eta = lr
    lo, hi = rules.gsn_ratio_band
    clock = bool(lo < right[0] / right[1] < hi)
    return exact(G, S, N) and clock, [exact(G, S_no_ind, N) and clock, exact(G, S, N_half) and clock,
                                      exact(G, S, N) and bool(lo < wrong[0] / wrong[1] < hi)]


def gsn_draws(seeds, rules: TheoryRules = THEORY_RULES) -> Counts:
    """Claim ``claim-two-gsn`` (form ``identity``) on random draws: a draw passes when ``W + eta (G -
    S - N)`` is the step (D.2) to ``gsn_tol`` and a step on ``U`` at ``lr`` is (D.2) at ``eta = 2 lr``
    to second order (halving ``lr`` divides the error by a factor in ``gsn_ratio_band``); the wrong
    variants (:data:`GSN_VARIANTS`) likewise, one entry per (draw, variant).

    Parameters
    ----------
    seeds, rules
        One draw per seed; the thresholds.
    """
    seeds, rules = seed_list("seeds", seeds, distinct=True), _rules(rules)
    out = [_gsn_draw(s, rules) for s in seeds]
    return Counts(np.array([o[0] for o in out]), np.array([o[1] for o in out]).ravel(), paired=False)


def fig5_record(seeds, *, equal_signal: bool = False, eta: float | None = None,
                rules: TheoryRules = THEORY_RULES) -> SymmetricRecord:
    """Gradient steps on ``U`` at the Fig. 5 setting (``A^2``) from each seed's initialisation,
    every step recorded (a batched record).

    Parameters
    ----------
    seeds, equal_signal, eta, rules
        One initialisation per seed; the equal-signal wrong model (both ``mu_p`` at ``equal_signal_mu``);
        the step of (D.2) over the figure's time (default the setting's); the thresholds.
    """
    fig5, rules = THEORY_SETTINGS["fig5"], _rules(rules)
    eta = fig5.eta if eta is None else _checks.positive_float("eta", eta)
    seeds = seed_list("seeds", seeds, distinct=True)
    setting = dataclasses.replace(fig5, mu=(rules.equal_signal_mu,) * 2) if equal_signal else fig5
    steps = max(1, int(round(fig5.steps * fig5.eta / eta)))
    return simulate_symmetric(setting.U0(seeds), setting.a("authors"), eta, steps, setting.x_hat,
                              record_every=1, iterate="U")


def _paired(check, record, null_record, rules) -> Counts:
    """``check`` on the runs and on the wrong model's runs from the same seeds, paired."""
    record = symmetric_record("record", record, batched=True)
    null_record = symmetric_record("null_record", null_record, batched=True)
    if record.W.shape[0] != null_record.W.shape[0]:
        raise ValueError(f"record and null_record must hold the same initialisations, got {record.W.shape[0]} "
                         f"and {null_record.W.shape[0]} trajectories")
    return Counts(check(record, rules), check(null_record, rules), paired=True)


def swings(record: SymmetricRecord, rules: TheoryRules = THEORY_RULES) -> np.ndarray:
    """``(B,)``: the runs of a batched record whose test loss descends at least twice (``rel_tol``)."""
    return count_descents(symmetric_record("record", record, batched=True).test_loss, rel_tol=rules.rel_tol) >= 2


def swing_counts(record: SymmetricRecord, null_record: SymmetricRecord,
                 rules: TheoryRules = THEORY_RULES) -> Counts:
    """Claim ``claim-two-fig5-frequency`` (form ``typical``): a run passes when its test loss
    descends at least twice; the wrong model is the equal-signal record.

    Parameters
    ----------
    record, null_record, rules
        See the module docstring (``null_record`` with ``equal_signal``).
    """
    return _paired(swings, record, null_record, _rules(rules))


def stage_counts(record: SymmetricRecord, seeds, rules: TheoryRules = THEORY_RULES) -> Counts:
    """Claim ``claim-two-fig5-stages`` (form ``typical``): a swinging run passes when its ascent is
    timed (:func:`~swingby.theory.rules.suppression_timing`) and its stages line up
    (:func:`~swingby.theory.stages.stage_alignment`); the wrong model shifts its minor entries in time.

    Parameters
    ----------
    record, seeds, rules
        See the module docstring; the seeds of its trajectories (they seed the shifts).
    """
    record, rules = symmetric_record("record", record, batched=True), _rules(rules)
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


def _monotone(record: SymmetricRecord, rules=None) -> np.ndarray:
    """``(B,)``: the training loss is finite and never rises from one step to the next."""
    L = record.train_loss
    with np.errstate(invalid="ignore"):
        return np.isfinite(L).all(axis=1) & (np.diff(L, axis=1) <= 0).all(axis=1)


def training_loss_counts(record: SymmetricRecord, null_record: SymmetricRecord) -> Counts:
    """Claim ``claim-two-fig17`` (form ``universal``): a run passes when its training loss (4.1) is
    finite and never rises; the wrong model is :func:`fig5_record` with ``eta=fig17_eta_wrong``.

    Parameters
    ----------
    record, null_record
        See the module docstring (``null_record`` with ``eta=fig17_eta_wrong``).
    """
    return _paired(_monotone, record, null_record, None)


def fig18_stage_gap(record: SymmetricRecord, rules: TheoryRules = THEORY_RULES) -> np.ndarray:
    """Claim ``claim-two-fig18`` (form ``typical``), ``(B,)``: when ``|w_12|`` peaks, one major entry
    has reached ``growth_level`` and the other is at most ``fig18_later_max`` (different stages).

    Parameters
    ----------
    record, rules
        Batched, ``s = 2`` concepts on the first two axes; the thresholds.
    """
    record, rules = symmetric_record("record", record, batched=True), _rules(rules)
    W = record.W
    k = np.argmax(np.abs(W[:, :, 0, 1]), axis=1)
    at_peak = W[np.arange(W.shape[0]), k]
    w11, w22 = at_peak[:, 0, 0], at_peak[:, 1, 1]
    return (np.maximum(w11, w22) >= rules.growth_level) & (np.minimum(w11, w22) <= rules.fig18_later_max)


def fig18_counts(record: SymmetricRecord, null_record: SymmetricRecord,
                 rules: TheoryRules = THEORY_RULES) -> Counts:
    """:func:`fig18_stage_gap` of the Fig. 5 runs and of the equal-signal runs from the same seeds.

    Parameters
    ----------
    record, null_record, rules
        See the module docstring (``null_record`` with ``equal_signal``).
    """
    return _paired(fig18_stage_gap, record, null_record, _rules(rules))
