"""Simulating the symmetric two-layer model ``U U^T`` (Sec. 4.2, App. D; ``book/two_layer_theory.md``):
eq. (D.2), or gradient descent on ``U``, from many initialisations at once."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from swingby import _checks, live
from swingby.sim.models import SymmetricModel
from swingby.sim.run_checks import seed_list, work
from swingby.theory import _args
from swingby.theory.symmetric import loss_41

__all__ = ["SymmetricRecord", "initial_U", "simulate_symmetric"]


@dataclass
class SymmetricRecord:
    """A trajectory of :func:`simulate_symmetric`; a batch of ``B`` runs adds a leading axis ``B``."""

    steps: np.ndarray  #: ``(R,)`` iteration numbers of the records
    time: np.ndarray  #: ``(R,)`` ``steps * eta``, the clock of eq. (4.3)
    W: np.ndarray  #: ``([B,] R, d, d)`` the Jacobian ``U U^T``
    output: np.ndarray  #: ``([B,] R, d)`` ``W x_hat``
    test_loss: np.ndarray  #: ``([B,] R)`` ``0.5 ||W x_hat - x_hat||^2``
    train_loss: np.ndarray  #: ``([B,] R)`` eq. (4.1) with ``A = diag(a)``
    a: np.ndarray  #: ``(d,)``
    x_hat: np.ndarray  #: ``(d,)``
    eta: float = 0.0
    config: dict = field(default_factory=dict)

    def pick(self, b: int) -> "SymmetricRecord":
        """The ``b``-th trajectory of a batched record, as a single record."""
        if self.W.ndim != 4:
            raise ValueError("pick() needs a batched record (W of shape (B, R, d, d))")
        b = _checks.index("b", b, self.W.shape[0])
        return SymmetricRecord(self.steps, self.time, self.W[b], self.output[b], self.test_loss[b],
                               self.train_loss[b], self.a, self.x_hat, self.eta, dict(self.config, batched=False))


def single_record(name: str, record) -> SymmetricRecord:
    """``record`` if it is a single (not batched) SymmetricRecord, else a ValueError."""
    _checks.instance(name, record, SymmetricRecord, "swingby.theory.simulation.SymmetricRecord")
    if record.W.ndim != 3:
        raise ValueError(f"{name} must be a single trajectory; index a batched record first with .pick(b)")
    return record


def simulate_symmetric(U0, a, eta: float, steps: int, x_hat, record_every: int = 1,
                       *, iterate: str = "W", progress: bool = False) -> SymmetricRecord:
    """The trajectory of eq. (D.2) from ``W(0) = U0 U0^T`` for one or a batch of
    initialisations; a divergence leaves ``inf``/``nan`` entries and a ``RuntimeWarning``.

    Parameters
    ----------
    U0, a, x_hat : array_like
        Initial ``U``, ``(d, d')`` or ``(B, d, d')``; the diagonal of ``A``; the OOD test point.
    eta : float
        Step size (the authors' 0.01); stable near the minimum below ``1 / max(a)``.
    steps, record_every : int
        Iterations; record every ``k``-th (step 0 and the last one always).
    iterate : {"W", "U"}
        (D.2) itself (the authors' scripts), or gradient steps on ``U`` at learning rate ``eta / 2``.
    progress : bool
        Show a progress bar.
    """
    a = _checks.nonneg_vector("a", a)
    d = a.size
    U0 = _checks.array("U0", U0, min_size=0)
    if U0.ndim not in (2, 3) or U0.shape[-2] != d or U0.shape[-1] == 0:
        raise ValueError(f"U0 must have shape ({d}, d') or (B, {d}, d') to match len(a) = {d}, got {U0.shape}")
    eta = _checks.positive_float("eta", eta)
    steps = _checks.positive_int("steps", steps)
    every = _checks.positive_int("record_every", record_every)
    _checks.choice("iterate", iterate, ("W", "U"))
    x_hat = _args.vector("x_hat", x_hat, d)
    progress = _checks.flag("progress", progress)
    n_batch = U0.shape[0] if U0.ndim == 3 else 1
    work(4.0 * steps * n_batch * d * d * max(d, U0.shape[-1]),
         f"steps = {steps} for {n_batch} trajectories with d = {d}")
    _checks.memory(8.0 * n_batch * (steps // every + 2) * d * (d + 3),
                   f"{steps // every + 2} records (steps = {steps}, record_every = {every}) of "
                   f"{n_batch} trajectories with d = {d}")
    rec = np.arange(0, steps + 1, every)
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    with np.errstate(over="ignore", invalid="ignore"):
        Ws = _iterate(U0 @ np.swapaxes(U0, -1, -2), a, eta, rec, iterate, progress)
        out = Ws @ x_hat
        test_loss = 0.5 * ((out - x_hat) ** 2).sum(-1)
        train_loss = loss_41(Ws, a)
    if not np.all(np.isfinite(test_loss)):
        stable = 1.0 / a.max() if a.max() > 0 else np.inf
        if eta >= stable:
            why = f"use eta < 1 / max(a) = {stable:.3g}, the steps that are stable near the minimum"
        elif iterate == "W":
            why = "iterating (D.2) on W left the positive semi-definite cone; iterate='U' cannot"
        else:
            why = "the initial U is too large for this step; use a smaller eta"
        warnings.warn(f"simulate_symmetric diverged (inf or nan entries) at eta = {eta:g}: {why}",
                      RuntimeWarning, stacklevel=2)
    return SymmetricRecord(rec, rec * eta, Ws, out, test_loss, train_loss, a, x_hat, eta,
                           dict(steps=steps, record_every=every, d_prime=U0.shape[-1],
                                iterate=iterate, batched=U0.ndim == 3))


def _iterate(W: np.ndarray, a: np.ndarray, eta: float, rec: np.ndarray, iterate: str,
             progress: bool) -> np.ndarray:
    """The iterates at the steps ``rec`` (``rec[0] = 0``), stacked on the axis before the last two."""
    d = a.size
    Ws = np.empty(W.shape[:-2] + (rec.size, d, d))
    Ws[..., 0, :, :] = W
    r = 1
    apa = a[:, None] + a[None, :]  # a_i + a_j
    two_a = 2.0 * np.diag(a)
    eye = np.eye(d)
    for n in live.progress(range(1, int(rec[-1]) + 1), desc="steps", enabled=progress, mininterval=0.5):
        if iterate == "W":
            # (D.2) = -(M W + W M) / 2 with M = (W - I) A + A (W - I) symmetric
            M = W * apa
            M -= two_a
            MW = M @ W
            MW += np.swapaxes(MW, -1, -2)
            MW *= -0.5 * eta
            W += MW
        else:
            # U <- (I - eta/2 M) U, so W <- B W B: a congruence, which keeps W positive semi-definite
            B = W * apa  # M = (W - I) A + A (W - I) = W * (a_i + a_j) - 2 A
            B -= two_a
            B *= -0.5 * eta
            B += eye
            W = B @ W @ B
        if n == rec[r]:
            Ws[..., r, :, :] = W
            r += 1
    return Ws


def initial_U(d: int, seeds, *, d_prime: int | None = None, init: str = "uniform",
              init_scale: float = 0.2) -> np.ndarray:
    """Initial ``U`` of :class:`swingby.sim.models.SymmetricModel` for each seed, ``(len(seeds), d, d')``.

    Parameters
    ----------
    d, d_prime : int
        Dimension; width ``d' >= d`` (default ``d``).
    seeds : int or sequence of int
        One seed per initialisation (``SymmetricModel``'s ``seed``).
    init, init_scale
        ``"uniform"``, entries ``U[0, 1) * init_scale`` (Figs. 5, 8-10), or ``"gaussian"``,
        ``N(0, init_scale^2)`` (the ``tau`` of App. E.2).
    """
    d = _checks.positive_int("d", d)
    dp = d if d_prime is None else _checks.positive_int("d_prime", d_prime)
    n = 1 if _checks.is_integer(seeds) else len(seeds) if hasattr(seeds, "__len__") else 0
    _checks.memory(16.0 * n * d * dp, f"{n} seeds of U with shape (d, d_prime) = ({d}, {dp})")
    seeds = [_checks.seed("seeds", seeds)] if _checks.is_integer(seeds) else seed_list("seeds", seeds)
    return np.stack([
        SymmetricModel(d, d_prime, init=init, init_scale=init_scale, seed=int(seed)).U.detach().double().numpy()
        for seed in seeds
    ])
