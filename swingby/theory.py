"""The theory of Sec. 4 and App. C-E: one-layer closed form, symmetric two-layer dynamics.

* :func:`one_layer_output`: Theorem 4.1 (eq. 4.2), gradient flow of a one-layer
  linear model on the loss (4.1) with ``A = diag(a)``, in closed form.
* :func:`symmetric_step`, :func:`gsn_terms`, :func:`simulate_symmetric`: the discrete
  dynamics (D.2) of the Jacobian ``W = U U^T`` of the symmetric two-layer model and its
  entrywise split (4.3) into growth ``G``, suppression ``S`` and noise ``N``.
* :func:`detect_stages`: growth / suppression stages and the descents and ascents of
  the test loss of a simulated trajectory (Sec. 4.2.1-4.2.2, App. E.1).
* :func:`check_assumptions`: which of Assumptions D.1-D.5 hold, and by how much.
* :func:`u_step_to_w_eta`: the time-scale factor between gradient descent on ``U`` and
  eq. (D.2).
* :func:`one_layer_output_with_bias`: Theorem 4.1 for the authors' ``nn.Linear`` with a
  bias (augmented input ``(x, 1)``).
* :func:`initial_U`, :func:`descent_statistics`: many initialisations at once, for the
  seed statistics of App. E (how often multiple descents and failures occur).
* :func:`authors_a`, :func:`dynamics_a`: the diagonal ``a`` that the dynamics run with.
  ``matrix="paper"`` is eq. (C.13) (the paper's (D.2)); ``matrix="authors"`` is what the
  authors' theory scripts iterate (the figures of Sec. 4.2 and App. E): (D.2) with ``A``
  replaced by ``A^2``, ``A = diag(x_hat^2 / s + sigma^2)``.

Everything is in *concept coordinates* (``A`` diagonal); ``a`` is the vector of
:func:`swingby.sim.second_moment`. Chapters: ``book/one_layer_theory.md``,
``book/two_layer_theory.md``, ``book/beyond_two_concepts.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.sim import second_moment


# ----------------------------------------------------------------------------- checks
def _vector_a(a) -> np.ndarray:
    return _checks.nonneg_vector("a", a)


def _square(name: str, M, d: int) -> np.ndarray:
    M = _checks.array(name, M, min_size=0)
    if M.ndim < 2 or M.shape[-2:] != (d, d):
        raise ValueError(f"{name} must have shape (..., {d}, {d}) to match len(a) = {d}, got {M.shape}")
    return M


def _eta(eta) -> float:
    return _checks.positive_float("eta", eta)


def _vector(name: str, v, d: int) -> np.ndarray:
    """A finite ``(d,)`` vector, named ``name`` in the error."""
    v = _checks.array(name, v, min_size=0)
    if v.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) to match len(a), got {v.shape}")
    return v


def _times(t) -> np.ndarray:
    t_arr = _checks.array("t", t, ndim=(0, 1), finite=False)
    if np.any(t_arr < 0) or not np.all(np.isfinite(t_arr)):
        raise ValueError(f"t must be a number or 1-D array of finite times >= 0, got {t!r}")
    return t_arr


def _single_record(name: str, record) -> "SymmetricRecord":
    _checks.instance(name, record, SymmetricRecord, "swingby.theory.SymmetricRecord")
    if record.W.ndim != 3:
        raise ValueError(f"{name} must be a single trajectory; index a batched record first with .pick(b)")
    return record


# ------------------------------------------------------------------ one-layer theory
class OneLayerOutput(NamedTuple):
    """Output of :func:`one_layer_output`: ``output = growth + noise``, each ``(T, d)``
    (or ``(d,)`` for a scalar ``t``)."""

    output: np.ndarray
    growth: np.ndarray  #: the growth term ``G~_k(t)`` of eq. (4.2)
    noise: np.ndarray  #: the noise term ``N~_k(t)`` of eq. (4.2)


def one_layer_output(W0, a, z, t) -> OneLayerOutput:
    """Model output ``W(t) z`` under gradient flow on the loss (4.1), in closed form.

    Implements Theorem 4.1 (eq. 4.2, proof in App. C.2): with ``A = diag(a)`` and
    ``dW/dt = -(W - I) A``,

    ``f(W(t); z)_k = 1{a_k > 0} [1 - exp(-a_k t)] z_k + sum_i exp(-a_i t) w_ki(0) z_i``.

    The noise sum runs over all ``d`` directions (eq. C.21): for ``a_i = 0`` the term
    ``w_ki(0) z_i`` never decays, but it vanishes at ``z = x_hat``.

    Parameters
    ----------
    W0 : initial weight ``(d, d)``, row convention of ``nn.Linear`` (``f = W z``).
    a : diagonal of ``A``, ``(d,)``, entries ``>= 0``.
    z : input ``(d,)`` (the test point ``x_hat`` in the paper).
    t : time ``>= 0``, a number or a 1-D array of ``T`` times.

    Returns
    -------
    OneLayerOutput
        ``(output, growth, noise)``.
    """
    a = _vector_a(a)
    d = a.size
    W0 = _square("W0", W0, d)
    if W0.ndim != 2:
        raise ValueError(f"W0 must be a single (d, d) matrix, got shape {W0.shape}")
    z = _vector("z", z, d)
    t_arr = _times(t)
    tt = np.atleast_1d(t_arr)[:, None]  # (T, 1)
    decay = np.exp(-a[None, :] * tt)  # (T, d)
    growth = (a > 0)[None, :] * (1.0 - decay) * z[None, :]
    noise = (decay * z[None, :]) @ W0.T  # sum_i exp(-a_i t) w_ki(0) z_i
    if t_arr.ndim == 0:
        growth, noise = growth[0], noise[0]
    return OneLayerOutput(growth + noise, growth, noise)


# ------------------------------------------------------------------ two-layer theory
#: The two choices of the matrix the symmetric dynamics run with (see :func:`dynamics_a`).
MATRICES = ("paper", "authors")


def authors_a(mu, sigma, d: int) -> np.ndarray:
    """The diagonal the authors' theory scripts iterate eq. (D.2) with: ``A^2``.

    Their scripts (behind Figs. 5, 8, 9, 10, 17, 18) build ``A = diag(x_hat^2 / s + sigma^2)``
    on **all** ``d`` axes (``x_hat = sum_p mu_p e_p``) and update
    ``W <- W + eta [W A^2 + A^2 W - W A^2 W - (A^2 W^2 + W^2 A^2) / 2]``: the paper's (D.2)
    with ``A`` replaced by ``A^2``. So ``symmetric_step(W, authors_a(mu, sigma, d), eta)``
    is one step of their iteration. Differences from eq. (C.13): the entries are squared,
    ``sigma^2`` is added on the ``d - s`` non-informative axes too (Fig. 5's script, ``d = 3``,
    ``s = 2``), and the divisor is ``s`` even where the data had an origin cluster.

    Parameters
    ----------
    mu : array_like(float, ndim=1)
        Cluster distances ``mu_p >= 0``, one per concept (``s = len(mu) <= d``).
    sigma : float or array_like(float, ndim=1)
        A standard deviation, one number for every axis (as in the scripts), or one per
        concept (then 0 on the other axes).
    d : int
        Dimension, ``>= s``.

    Returns
    -------
    numpy.ndarray
        ``(d,)``, the squared diagonal ``(x_hat_k^2 / s + sigma_k^2)^2``.
    """
    mu = _checks.nonneg_vector("mu", mu)
    d = _checks.positive_int("d", d)
    _checks.memory(32.0 * d, f"d = {d}")
    s = mu.size
    if s > d:
        raise ValueError(f"s = len(mu) = {s} concepts need d >= s, got d = {d}")
    sig = _checks.array("sigma", sigma, min_size=0, finite=False)
    if sig.ndim == 0:
        sig_d = np.full(d, float(_checks.nonneg_vector("sigma", [float(sig)])[0]))
    else:
        sig_s = _checks.nonneg_vector("sigma", sig, length=s)
        sig_d = np.zeros(d)
        sig_d[:s] = sig_s
    x_hat = np.zeros(d)
    x_hat[:s] = mu
    return (x_hat**2 / s + sig_d**2) ** 2


def dynamics_a(mu, sigma, d: int, *, matrix: str = "authors", origin_cluster: bool = False) -> np.ndarray:
    """The diagonal ``a`` that the symmetric dynamics (D.2) run with, for a SIM setting.

    Parameters
    ----------
    mu, sigma, d
        As in :func:`swingby.sim.second_moment` (``sigma`` a standard deviation).
    matrix : {"authors", "paper"}
        ``"authors"`` (default): :func:`authors_a`, what the paper's theory figures were
        made with. ``"paper"``: eq. (C.13), :func:`swingby.sim.second_moment`, the matrix
        of the paper's text.
    origin_cluster : bool
        Only for ``matrix="paper"``: count a cluster at the origin in eq. (C.13)
        (divisor ``s + 1``). The authors' scripts divide by ``s`` whatever the data.

    Returns
    -------
    numpy.ndarray
        ``(d,)``.
    """
    _checks.choice("matrix", matrix, MATRICES)
    if matrix == "paper":
        return second_moment(mu, sigma, d, origin_cluster=origin_cluster)
    if _checks.flag("origin_cluster", origin_cluster):
        raise ValueError("origin_cluster applies only to matrix='paper': the authors' scripts divide by s")
    return authors_a(mu, sigma, d)


def u_step_to_w_eta(lr: float) -> float:
    """The step ``eta`` of eq. (D.2) that one gradient-descent step on ``U`` with
    learning rate ``lr`` (loss 4.1, ``f = U U^T x``) corresponds to: ``eta = 2 lr``.

    With ``M = (W - I) A + A (W - I)`` the gradient is ``dL/dU = M U``, so
    ``U' U'^T = W - lr (M W + W M) + O(lr^2)`` and
    ``-(M W + W M) = 2 [W A + A W - (A W^2 + W^2 A + 2 W A W) / 2]``: twice the bracket of
    (D.2). The paper's (D.1) drops this factor 2; (D.2) and (4.3) are the paper's clock.
    """
    return 2.0 * _checks.positive_float("lr", lr)


def _update(W: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Bracket of eq. (D.2), batched over leading axes of ``W``."""
    W2 = W @ W
    WAW = (W * a) @ W
    ac = a[:, None]
    return W * a + ac * W - 0.5 * (ac * W2 + W2 * a + 2.0 * WAW)


def symmetric_step(W, a, eta: float) -> np.ndarray:
    """One step of the discrete symmetric two-layer dynamics, eq. (D.2):

    ``W(t+1) = W + eta [W A + A W - (A W^2 + W^2 A + 2 W A W) / 2]``, ``A = diag(a)``.

    Parameters
    ----------
    W : Jacobian ``U U^T``, shape ``(d, d)`` or a batch ``(..., d, d)``.
    a : diagonal of ``A``, ``(d,)``, entries ``>= 0``.
    eta : step size ``> 0``.

    Returns
    -------
    numpy.ndarray of the shape of ``W``.
    """
    a = _vector_a(a)
    W = _square("W", W, a.size)
    return W + _eta(eta) * _update(W, a)


class GSN(NamedTuple):
    """Growth, suppression and noise matrices of eq. (4.3), each shaped like ``W``."""

    G: np.ndarray
    S: np.ndarray
    N: np.ndarray


def gsn_terms(W, a) -> GSN:
    """The growth, suppression and noise terms of eq. (4.3) / (D.4)-(D.6).

    ``G_ij = w_ij (a_i + a_j)``,
    ``S_ij = w_ij [w_ii (3 a_i + a_j) + 1{i != j} w_jj (3 a_j + a_i)] / 2``,
    ``N_ij = sum_{k != i, j} w_ki w_kj (a_i + a_j + 2 a_k) / 2``,

    so that for a symmetric ``W`` the update (D.2) is ``eta * (G - S - N)`` entrywise.

    Parameters
    ----------
    W : symmetric ``(d, d)`` (or batch ``(..., d, d)``).
    a : diagonal of ``A``, ``(d,)``.
    """
    a = _vector_a(a)
    d = a.size
    W = _square("W", W, d)
    ai, aj = a[:, None], a[None, :]
    diag = np.diagonal(W, axis1=-2, axis2=-1)  # (..., d)
    wii, wjj = diag[..., :, None], diag[..., None, :]
    G = W * (ai + aj)
    off = 1.0 - np.eye(d)
    S = 0.5 * W * (wii * (3 * ai + aj) + off * wjj * (3 * aj + ai))
    # full sum over k of w_ki w_kj (a_i + a_j + 2 a_k), then remove k = i and k = j
    full = np.swapaxes(W, -1, -2) @ W * (ai + aj) + 2.0 * (np.swapaxes(W, -1, -2) * a) @ W
    k_is_i = wii * W * (3 * ai + aj)  # k = i: w_ii w_ij (3 a_i + a_j)
    k_is_j = off * W * wjj * (ai + 3 * aj)  # k = j (i != j): w_ji w_jj (a_i + 3 a_j)
    N = 0.5 * (full - k_is_i - k_is_j)
    return GSN(G, S, N)


@dataclass
class SymmetricRecord:
    """A trajectory of :func:`simulate_symmetric`. With a batch of ``B`` initialisations
    every array has a leading batch axis ``B``; records are along the next axis."""

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

    def __post_init__(self):
        R, d = np.shape(self.steps)[0], np.shape(self.a)[0]
        batch = np.shape(self.W)[:-3]
        want = dict(time=(R,), W=batch + (R, d, d), output=batch + (R, d), test_loss=batch + (R,),
                    train_loss=batch + (R,), x_hat=(d,))
        if len(batch) > 1:
            raise ValueError(f"W must have shape ([B,] R, d, d), got {np.shape(self.W)}")
        for name, shape in want.items():
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(f"{name} must have shape {shape} to match steps {(R,)} and a {(d,)}, "
                                 f"got {np.shape(getattr(self, name))}")

    def pick(self, b: int) -> "SymmetricRecord":
        """The ``b``-th trajectory of a batched record, as a single record."""
        if self.W.ndim != 4:
            raise ValueError("pick() needs a batched record (W of shape (B, R, d, d))")
        b = _checks.index("b", b, self.W.shape[0])
        return SymmetricRecord(self.steps, self.time, self.W[b], self.output[b], self.test_loss[b],
                               self.train_loss[b], self.a, self.x_hat, self.eta,
                               dict(self.config, batched=False))


def simulate_symmetric(U0, a, eta: float, steps: int, x_hat, record_every: int = 1,
                       *, iterate: str = "W", progress: bool = False) -> SymmetricRecord:
    """Iterate eq. (D.2) from ``W(0) = U0 U0^T`` and record the trajectory.

    Implements the deterministic dynamics of Sec. 4.2 / App. D (the authors' theory
    figures iterate (D.2) directly, no data sampling). A batch of initialisations
    ``(B, d, d')`` is simulated at once (vectorised), which is how the many-seed
    statistics of App. E are computed.

    Parameters
    ----------
    U0 : initial ``U``, ``(d, d')`` with ``d' >= 1``, or a batch ``(B, d, d')``.
    a : diagonal of ``A``, ``(d,)``, entries ``>= 0``.
    eta : step size ``> 0`` (0.01 in the authors' scripts).
    steps : number of iterations ``> 0``.
    x_hat : OOD test point ``(d,)``, in concept coordinates.
    record_every : record every ``k``-th iterate (step 0 and the last one always).
    iterate : ``"W"`` iterates (D.2) on ``W`` (the paper's App. D and the authors'
        scripts); ``"U"`` takes gradient-descent steps on ``U`` with learning rate
        ``eta / 2`` (:func:`u_step_to_w_eta`), the same dynamics up to ``O(eta^2)`` per
        step, which keeps ``W = U U^T`` positive semi-definite exactly. (D.2) does not:
        once a small eigenvalue of ``W`` is pushed below 0 it grows without bound.
    progress : show a tqdm progress bar.

    Returns
    -------
    SymmetricRecord
        Entries after a divergence are ``inf``/``nan`` (no exception is raised).
    """
    from tqdm.auto import tqdm

    a = _vector_a(a)
    d = a.size
    U0 = _checks.array("U0", U0, min_size=0)
    if U0.ndim not in (2, 3) or U0.shape[-2] != d or U0.shape[-1] == 0:
        raise ValueError(f"U0 must have shape ({d}, d') or (B, {d}, d') to match len(a) = {d}, got {U0.shape}")
    eta = _eta(eta)
    steps = _checks.positive_int("steps", steps)
    every = _checks.positive_int("record_every", record_every)
    _checks.choice("iterate", iterate, ("W", "U"))
    x_hat = _vector("x_hat", x_hat, d)
    progress = _checks.flag("progress", progress)
    n_batch = U0.shape[0] if U0.ndim == 3 else 1
    _checks.work(4.0 * steps * n_batch * d * d * max(d, U0.shape[-1]),
                 f"steps = {steps} for {n_batch} trajectories with d = {d}")
    _checks.memory(8.0 * n_batch * (steps // every + 2) * d * (d + 3),
                   f"{steps // every + 2} records (steps = {steps}, record_every = {every}) of "
                   f"{n_batch} trajectories with d = {d}")
    batched = U0.ndim == 3
    W = U0 @ np.swapaxes(U0, -1, -2)
    rec = np.arange(0, steps + 1, every)
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    Ws = np.empty(W.shape[:-2] + (rec.size, d, d))
    Ws[..., 0, :, :] = W
    r = 1
    apa = a[:, None] + a[None, :]  # a_i + a_j
    two_a = 2.0 * np.diag(a)
    eye = np.eye(d)
    with np.errstate(over="ignore", invalid="ignore"):
        for n in tqdm(range(1, steps + 1), disable=not progress, desc="steps", mininterval=0.5):
            if iterate == "W":
                # (D.2) = -(M W + W M) / 2 with M = (W - I) A + A (W - I) symmetric
                M = W * apa
                M -= two_a
                MW = M @ W
                MW += np.swapaxes(MW, -1, -2)
                MW *= -0.5 * eta
                W += MW
            else:
                # U <- (I - eta/2 M) U, so W <- B W B with B = I - eta/2 M symmetric:
                # a congruence, which keeps W positive semi-definite
                B = W * apa  # M = (W - I) A + A (W - I) = W * (a_i + a_j) - 2 A
                B -= two_a
                B *= -0.5 * eta
                B += eye
                W = B @ W @ B
            if n == rec[r]:
                Ws[..., r, :, :] = W
                r += 1
        out = Ws @ x_hat
        test_loss = 0.5 * ((out - x_hat) ** 2).sum(-1)
        E = Ws - np.eye(d)
        train_loss = 0.5 * (E**2 * a).sum((-1, -2))
    return SymmetricRecord(rec, rec * eta, Ws, out, test_loss, train_loss, a, x_hat, eta,
                           dict(steps=steps, record_every=every, d_prime=U0.shape[-1],
                                iterate=iterate, batched=batched))


# ------------------------------------------------------------------------ stages
@dataclass
class Stages:
    """What :func:`detect_stages` found in one trajectory (times on the eq. 4.3 clock)."""

    growth: dict  #: major entry ``p`` -> time ``w_pp`` first reaches ``growth_level``
    growth_order: list  #: major entries sorted by that time (never-grown ones left out)
    suppression: dict  #: minor entry ``(i, j)``, ``i < j`` -> time of its peak ``|w_ij|``
    loss_segments: list  #: ``(kind, t_start, t_end, loss_start, loss_end)``, kind ``"descent"``/``"ascent"``
    n_descents: int  #: number of descents of the test loss
    failed: list  #: major entries that never reached ``growth_level``

    @property
    def initial_growth(self) -> tuple:
        """``(p, t)``: the major entry that grows first (the end of the initial-growth
        stage, Lemmas D.1-D.3) and the time it reaches ``growth_level``."""
        if not self.growth_order:
            raise ValueError("no major entry reached growth_level in this trajectory")
        p = self.growth_order[0]
        return p, self.growth[p]

    @property
    def ascents(self) -> list:
        """The ascent segments of the test loss."""
        return [s for s in self.loss_segments if s[0] == "ascent"]

    @property
    def descents(self) -> list:
        """The descent segments of the test loss."""
        return [s for s in self.loss_segments if s[0] == "descent"]


def loss_turning_points(loss, tol: float) -> list[int]:
    """Indices where the series changes direction by more than ``tol`` (hysteresis),
    first and last index included: the ends of its monotone segments."""
    loss = _checks.array("loss", loss, min_size=0, finite=False)
    if loss.ndim != 1 or loss.size < 2:
        raise ValueError(f"loss must be a 1-D series of at least 2 values, got shape {loss.shape}")
    if not np.all(np.isfinite(loss)):
        raise ValueError("loss must be finite (no NaN or inf); a non-finite loss means the run diverged")
    tol = _checks.number("tol", tol, low=0)
    pts = [0]
    direction = 0  # +1 rising, -1 falling, 0 unknown
    ext = 0  # index of the running extremum of the current segment
    for k in range(1, loss.size):
        if direction == 0:
            if loss[k] - loss[0] > tol:
                direction, ext = 1, k
            elif loss[0] - loss[k] > tol:
                direction, ext = -1, k
            continue
        if direction * (loss[k] - loss[ext]) > 0:
            ext = k
        elif direction * (loss[ext] - loss[k]) > tol:
            pts.append(ext)
            direction, ext = -direction, k
    if direction != 0:
        pts.append(ext)
    if pts[-1] != loss.size - 1 and abs(loss[-1] - loss[pts[-1]]) > tol:
        pts.append(loss.size - 1)
    return pts


def _finite_record(record: "SymmetricRecord") -> "SymmetricRecord":
    if not (np.all(np.isfinite(record.W)) and np.all(np.isfinite(record.test_loss))):
        raise ValueError("record holds NaN or infinite entries: the iteration diverged (see "
                         "simulate_symmetric, iterate='U' cannot); its stages are undefined")
    return record


def detect_stages(record: SymmetricRecord, s: int, *, growth_level: float = 0.5,
                  rel_tol: float = 0.01, suppression_drop: float = 0.5) -> Stages:
    """Stages of one simulated trajectory (Sec. 4.2.1, Fig. 5, App. E.1).

    * growth of major entry ``p < s``: first time ``w_pp >= growth_level``;
    * suppression of minor entry ``(i, j)`` (``i < j``, ``i < s``): the time of its peak
      ``|w_ij|``, counted only if it later falls below ``suppression_drop`` times the peak;
    * descents / ascents of the test loss: monotone segments whose change exceeds
      ``rel_tol`` times the initial test loss.

    Parameters
    ----------
    record : a single (not batched) :class:`SymmetricRecord`.
    s : number of informative directions (major entries), ``1 <= s <= d``.
    """
    record = _finite_record(_single_record("record", record))
    d = record.W.shape[-1]
    s = _checks.positive_int("s", s)
    if s > d:
        raise ValueError(f"s must be <= d = {d}, got {s}")
    growth_level = _checks.number("growth_level", growth_level)
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    suppression_drop = _checks.number("suppression_drop", suppression_drop, low=0, high=1, low_open=True)
    t = record.time
    growth, failed = {}, []
    for p in range(s):
        hit = np.flatnonzero(record.W[:, p, p] >= growth_level)
        if hit.size:
            growth[p] = float(t[hit[0]])
        else:
            failed.append(p)
    suppression = {}
    for i in range(s):
        for j in range(i + 1, d):
            w = np.abs(record.W[:, i, j])
            k = int(np.argmax(w))
            if 0 < k < w.size - 1 and w[k:].min() < suppression_drop * w[k]:
                suppression[(i, j)] = float(t[k])
    loss = record.test_loss
    tol = rel_tol * max(float(loss[0]), 1e-300)
    pts = loss_turning_points(loss, tol)
    segs = []
    for u, v in zip(pts[:-1], pts[1:]):
        kind = "descent" if loss[v] < loss[u] else "ascent"
        segs.append((kind, float(t[u]), float(t[v]), float(loss[u]), float(loss[v])))
    return Stages(growth, sorted(growth, key=growth.get), suppression, segs,
                  sum(s_[0] == "descent" for s_ in segs), failed)


def count_descents(test_loss, rel_tol: float = 0.01) -> np.ndarray:
    """Number of descents of each test-loss curve in a batch ``(B, R)`` (or one ``(R,)``),
    with the hysteresis of :func:`detect_stages`."""
    L = _checks.array("test_loss", test_loss, ndim=(1, 2), finite=False)
    if not np.all(np.isfinite(L)):
        raise ValueError("test_loss must be finite (no NaN or inf); drop the diverged runs first "
                         "(descent_statistics flags them)")
    L = np.atleast_2d(L)
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    out = np.empty(L.shape[0], dtype=int)
    for b, loss in enumerate(L):
        pts = loss_turning_points(loss, rel_tol * max(float(loss[0]), 1e-300))
        out[b] = sum(loss[v] < loss[u] for u, v in zip(pts[:-1], pts[1:]))
    return out


# ------------------------------------------------------------------- assumptions
def check_assumptions(a, omega: float, eta: float, *, beta: float = 1.0, d: int | None = None,
                      K: float = 20.0, P: float = 2.0, kappa: float = 1.2,
                      C: float | None = None) -> dict:
    """Which of Assumptions D.1-D.5 (App. D.1) hold for a setting, and by how much.

    ``alpha = min a_k`` and ``gamma = max a_k / alpha`` over the informative directions
    (``a_k > 0``; D.1 fails outright if some ``a_k = 0`` direction is counted, which the
    report says). ``omega <= |w_ij(0)| <= beta * omega`` describes the initialisation.
    For D.5 the directions are sorted by decreasing ``a``; every pair (larger ``a_i``,
    smaller ``a_j``) must satisfy ``(a_i + a_j) / (2 a_i) <= log P / (10 kappa^2
    log(1 / (P beta omega)) + log(P beta))`` and ``a_i - 3 a_j >= alpha / C``. ``C``
    defaults to the largest value D.4 allows, ``K / (2 (kappa - 1))``.

    Returns
    -------
    dict
        ``name -> {"holds", "lhs", "rhs", "ratio", "margin"}`` for each inequality
        ``lhs <= rhs`` (``ratio = lhs / rhs > 1`` means it fails by that factor; ``inf``
        when ``rhs <= 0``; ``margin = rhs - lhs``), plus
        ``"all"`` (bool) and ``"constants"``.
    """
    a = _vector_a(a)
    omega = _checks.positive_float("omega", omega)
    beta = _checks.positive_float("beta", beta)
    eta = _eta(eta)
    d = a.size if d is None else _checks.positive_int("d", d)
    if beta < 1:
        raise ValueError(f"beta must be >= 1 (max |w_ij(0)| / min |w_ij(0)|), got {beta}")
    K = _checks.number("K", K, low=20)
    P = _checks.number("P", P, low=1, low_open=True)
    kappa = _checks.number("kappa", kappa, low=1.1, low_open=True)
    ai = np.sort(a[a > 0])[::-1]
    if ai.size == 0:
        raise ValueError("a must have at least one entry > 0")
    alpha, gamma = float(ai[-1]), float(ai[0] / ai[-1])
    C = K / (2 * (kappa - 1)) if C is None else _checks.positive_float("C", C)
    rep = {}

    def add(name, lhs, rhs):
        lhs, rhs = float(lhs), float(rhs)
        ratio = lhs / rhs if rhs > 0 else (0.0 if lhs <= rhs else np.inf)
        rep[name] = {"holds": bool(lhs <= rhs), "lhs": lhs, "rhs": rhs, "ratio": ratio,
                     "margin": rhs - lhs}

    add("D.1 (a_k > 0 for every k)", float(np.sum(a == 0)), 0.0)
    add("D.2 eta <= 1/(9 K gamma alpha)", eta, 1 / (9 * K * gamma * alpha))
    add("D.3 P omega beta <= 0.4", P * omega * beta, 0.4)
    bound = min(min(kappa - 1, 1 - kappa**-0.5) / (P * K * gamma * d * beta**2), 1 / np.sqrt(2 * beta))
    add("D.4 omega <= bound", omega, bound)
    add("D.4 kappa <= 1 + K/(2C), P >= 2", max(kappa - 1 - K / (2 * C), 2 - P) + 1, 1.0)
    if ai.size > 1:
        big, small = np.meshgrid(ai, ai, indexing="ij")
        mask = big > small
        log_arg = 1 / (P * beta * omega)
        rhs = np.log(P) / (10 * kappa**2 * np.log(log_arg) + np.log(P * beta)) if log_arg > 1 else -np.inf
        add("D.5 (a_i + a_j)/(2 a_i) <= rhs", ((big + small) / (2 * big))[mask].max(), rhs)
        add("D.5 a_i - 3 a_j >= alpha / C", alpha / C, (big - 3 * small)[mask].min())
    rep["all"] = all(v["holds"] for k, v in rep.items() if k.startswith("D."))
    rep["constants"] = dict(alpha=alpha, gamma=gamma, beta=beta, omega=omega, K=K, P=P, kappa=kappa, C=C, d=d)
    return rep


def initial_U(d: int, seeds, *, d_prime: int | None = None, init: str = "uniform",
              init_scale: float = 0.2) -> np.ndarray:
    """Initial ``U`` of :class:`swingby.models.SymmetricModel` for each seed, stacked.

    ``init="uniform"``: entries ``U[0, 1) * init_scale`` (the authors' Fig. 5, 8-10
    initialisation, ``init_scale = 1/5`` or ``1/10``); ``"gaussian"``: ``N(0, init_scale^2)``,
    the ``tau`` of App. E.2. Returns ``(len(seeds), d, d')`` (``float64``).
    """
    from swingby.models import SymmetricModel

    d = _checks.positive_int("d", d)
    dp = d if d_prime is None else _checks.positive_int("d_prime", d_prime)
    n = 1 if _checks.is_integer(seeds) else len(seeds) if hasattr(seeds, "__len__") else 0
    _checks.memory(16.0 * n * d * dp, f"{n} seeds of U with shape (d, d_prime) = ({d}, {dp})")
    seeds = [_checks.seed("seeds", seeds)] if _checks.is_integer(seeds) else _checks.seed_list("seeds", seeds)
    return np.stack([
        SymmetricModel(d, d_prime, init=init, init_scale=init_scale, seed=int(s)).U.detach().double().numpy()
        for s in seeds
    ])


def one_layer_output_with_bias(W0, b0, a, mean, z, t) -> np.ndarray:
    """Model output ``W(t) z + b(t)`` of a one-layer model *with bias* under gradient
    flow on the loss (2.1) in the large-data limit (the authors' ``nn.Linear``).

    The bias is a weight on a constant input 1, so Theorem 4.1 applies to the augmented
    input ``(x, 1)`` whose second-moment matrix ``[[diag(a), m], [m^T, 1]]`` (``m = E x``,
    ``m_p = mu_p / s`` in concept coordinates) is no longer diagonal:
    ``[W b](t) = [I 0] + ([W0 b0] - [I 0]) exp(-A_aug t)``. Unlike eq. (4.2), the
    directions are coupled through the mean.

    Parameters
    ----------
    W0 : ``(d, d)``; b0 : ``(d,)``; a : ``(d,)``; mean : ``(d,)`` the data mean; z : ``(d,)``;
    t : a number or 1-D array of times ``>= 0``.

    Returns
    -------
    numpy.ndarray ``(T, d)`` (or ``(d,)`` for a scalar ``t``).
    """
    a = _vector_a(a)
    d = a.size
    W0 = _square("W0", W0, d)
    if W0.ndim != 2:
        raise ValueError(f"W0 must be a single (d, d) matrix, got shape {W0.shape}")
    vecs = {name: _vector(name, v, d) for name, v in (("b0", b0), ("mean", mean), ("z", z))}
    t_arr = _times(t)
    A_aug = np.zeros((d + 1, d + 1))
    A_aug[:d, :d] = np.diag(a)
    A_aug[:d, d] = A_aug[d, :d] = vecs["mean"]
    A_aug[d, d] = 1.0
    lam, V = np.linalg.eigh(A_aug)
    E0 = np.concatenate([W0 - np.eye(d), vecs["b0"][:, None]], axis=1)  # [W0 b0] - [I 0]
    z_aug = np.append(vecs["z"], 1.0)
    proj = V.T @ z_aug  # exp(-A t) z_aug = V diag(exp(-lam t)) V^T z_aug
    tt = np.atleast_1d(t_arr)[:, None]
    decayed = (np.exp(-lam[None, :] * tt) * proj[None, :]) @ V.T  # (T, d + 1)
    out = vecs["z"][None, :] + decayed @ E0.T
    return out[0] if t_arr.ndim == 0 else out


class DescentStats(NamedTuple):
    """Output of :func:`descent_statistics`, one entry per initialisation."""

    n_descents: np.ndarray  #: ``(B,)`` descents of the test loss (``-1`` where (D.2) diverged)
    unfinished: np.ndarray  #: ``(B,)`` bool, some major entry still below 1/2 at the end
    diverged: np.ndarray  #: ``(B,)`` bool, the iteration overflowed (only ``iterate="W"``)
    record: SymmetricRecord  #: the batched trajectories


def descent_statistics(mu, sigma, d: int, *, n_seeds: int = 200, init: str = "uniform",
                       init_scale: float = 0.1, d_prime: int | None = None, eta: float = 0.01,
                       steps: int = 10_000, rel_tol: float = 0.01, record_every: int = 10,
                       iterate: str = "U", origin_cluster: bool = False,
                       matrix: str = "authors") -> DescentStats:
    """Simulate ``n_seeds`` initialisations (seeds ``0..n_seeds-1`` of
    :func:`initial_U`) of the symmetric model at one SIM setting and count, for each,
    the descents of the test loss and whether it is unfinished (App. E.1-E.3: how often
    multiple descents and failures occur, rather than one tuned seed).

    ``a`` comes from :func:`dynamics_a` with ``matrix`` (default ``"authors"``, the ``A^2``
    of the authors' scripts; ``"paper"``: eq. C.13, ``sigma`` a standard deviation),
    ``x_hat = sum_p mu_p e_p``. ``iterate="U"`` (default) keeps ``W`` PSD; with ``"W"`` the
    runs that diverge are flagged and get ``n_descents = -1``.
    """
    a = dynamics_a(mu, sigma, d, matrix=matrix, origin_cluster=origin_cluster)
    s = len(np.atleast_1d(mu))
    rel_tol = _checks.number("rel_tol", rel_tol, low=0)
    x_hat = np.zeros(d)
    x_hat[:s] = mu
    U0 = initial_U(d, range(_checks.positive_int("n_seeds", n_seeds)), d_prime=d_prime, init=init,
                   init_scale=init_scale)
    rec = simulate_symmetric(U0, a, eta, steps, x_hat, record_every=record_every, iterate=iterate)
    diverged = ~np.isfinite(rec.test_loss).all(axis=1)
    n_desc = np.full(U0.shape[0], -1)
    if (~diverged).any():
        n_desc[~diverged] = count_descents(rec.test_loss[~diverged], rel_tol=rel_tol)
    final_diag = np.diagonal(rec.W[:, -1], axis1=-2, axis2=-1)[:, :s]
    unfinished = ~diverged & (final_diag < 0.5).any(axis=1)
    return DescentStats(n_desc, unfinished, diverged, rec)


# ------------------------------------------------------ the settings of the figures
@dataclass(frozen=True)
class TheorySetting:
    """One setting of the paper's theory figures (Sec. 4.2, App. E), as the authors'
    scripts ran it.

    The scripts seed PyTorch with ``seed`` and draw ``U = torch.rand(d, d) * init_scale``;
    :meth:`U0` draws the same numbers (``SymmetricModel`` uses a generator seeded the same
    way), so ``run()`` starts from the authors' own initialisation. Used by
    ``book/two_layer_theory.md`` and ``book/beyond_two_concepts.md``.
    """

    name: str  #: e.g. ``"Fig. 5"``
    mu: tuple  #: cluster distances ``mu_p``, ``s = len(mu)``
    sigma: object  #: standard deviation: one number (all ``d`` axes) or one per concept
    d: int  #: dimension
    init_scale: float  #: ``U(0)`` entries are ``U[0, 1) * init_scale``
    steps: int  #: iterations of (D.2)
    seed: int  #: the authors' seed
    eta: float = 0.01  #: step of (D.2)
    origin_cluster: bool = False  #: count a cluster at 0 in eq. (C.13) (``matrix="paper"`` only)

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise ValueError(f"name must be a str, got {self.name!r}")
        authors_a(self.mu, self.sigma, self.d)  # checks mu, sigma, d
        _checks.positive_float("init_scale", self.init_scale)
        _checks.positive_int("steps", self.steps)
        _checks.seed("seed", self.seed)
        _eta(self.eta)
        _checks.flag("origin_cluster", self.origin_cluster)

    @property
    def s(self) -> int:
        """Number of concepts."""
        return len(self.mu)

    @property
    def x_hat(self) -> np.ndarray:
        """The OOD test point ``sum_p mu_p e_p``, ``(d,)``."""
        x = np.zeros(self.d)
        x[: self.s] = self.mu
        return x

    def a(self, matrix: str = "authors") -> np.ndarray:
        """The diagonal the dynamics run with, :func:`dynamics_a` (``"authors"``: ``A^2``
        of their scripts; ``"paper"``: eq. C.13)."""
        return dynamics_a(self.mu, self.sigma, self.d, matrix=matrix,
                          origin_cluster=self.origin_cluster and matrix == "paper")

    def U0(self, seeds=None) -> np.ndarray:
        """Initial ``U``: the authors' (``seeds=None``, shape ``(d, d)``) or one per seed
        in ``seeds`` (``(B, d, d)``)."""
        if seeds is None:
            return initial_U(self.d, [self.seed], init_scale=self.init_scale)[0]
        return initial_U(self.d, seeds, init_scale=self.init_scale)

    def run(self, matrix: str = "authors", *, iterate: str = "W", seeds=None,
            record_every: int = 1, steps: int | None = None) -> SymmetricRecord:
        """Simulate from :meth:`U0` with :func:`simulate_symmetric`. The defaults
        (``matrix="authors"``, ``iterate="W"``, the authors' seed) repeat the authors'
        run exactly, up to their float32 arithmetic."""
        return simulate_symmetric(self.U0(seeds), self.a(matrix), self.eta, self.steps if steps is None else steps,
                                  self.x_hat, record_every=record_every, iterate=iterate)

    def statistics(self, matrix: str = "authors", *, n_seeds: int = 200, iterate: str = "U",
                   rel_tol: float = 0.01, record_every: int = 10) -> DescentStats:
        """:func:`descent_statistics` over seeds ``0..n_seeds-1`` at this setting."""
        return descent_statistics(self.mu, self.sigma, self.d, n_seeds=n_seeds, init_scale=self.init_scale,
                                  eta=self.eta, steps=self.steps, rel_tol=rel_tol, record_every=record_every,
                                  iterate=iterate, matrix=matrix,
                                  origin_cluster=self.origin_cluster and matrix == "paper")


#: The settings of the theory figures: the scripts' values (the captions of Figs. 8 and 9
#: differ; their values are the ``"caption"`` entries). Fig. 5's script builds ``A`` from
#: ``x_hat = (1, 1.5, 0)`` with divisor 2, which is ``authors_a((1, 1.5), 0.05, 3)``; for
#: the paper's matrix its third cluster, at 0, is read as an origin cluster.
THEORY_SETTINGS = {
    "fig5": TheorySetting("Fig. 5", (1.0, 1.5), 0.05, 3, 0.2, 2000, 2333, origin_cluster=True),
    "fig8_script": TheorySetting("Fig. 8 script", (1.0, 1.7, 2.25), (0.5, 0.25, 0.25), 3, 0.1, 10_000, 233333),
    "fig8_caption": TheorySetting("Fig. 8 caption", (1.0, 1.5, 2.2), 0.05, 3, 0.1, 10_000, 233333),
    "fig9_script": TheorySetting("Fig. 9 script", (1.0, 1.5, 2.2, 2.7), 0.05, 4, 0.1, 10_000, 233333),
    "fig9_caption": TheorySetting("Fig. 9 caption", (1.0, 1.5, 2.2, 2.7), (0.05, 0.05, 0.05, 0.5), 4, 0.1,
                                  10_000, 233333),
    "fig10": TheorySetting("Fig. 10", (0.7, 1.7, 3.0), 0.05, 3, 0.1, 10_000, 233333),
}


# ------------------------------------------------------------ stage checks, escape
def growth_in_descents(stages: Stages, loss_stages: Stages | None = None) -> bool:
    """Whether the ``k``-th major entry to grow passes ``growth_level`` during the
    ``k``-th descent of the test loss, for every ``k`` (Sec. 4.2.2, App. E.1).

    Parameters
    ----------
    stages : Stages
        Growth times, from :func:`detect_stages`.
    loss_stages : Stages, optional
        Take the descents from this (another) trajectory instead: the null model of
        the book's claim checks (stage times paired with another run's loss curve).

    Returns
    -------
    bool
        ``False`` also when the numbers of grown entries and descents differ.
    """
    _checks.instance("stages", stages, Stages, "swingby.theory.Stages (from detect_stages)")
    loss_stages = stages if loss_stages is None else \
        _checks.instance("loss_stages", loss_stages, Stages, "swingby.theory.Stages (from detect_stages)")
    desc = loss_stages.descents
    if len(desc) != len(stages.growth_order) or stages.failed:
        return False
    return all(desc[k][1] <= stages.growth[p] <= desc[k][2] for k, p in enumerate(stages.growth_order))


def shrink_fraction(record: SymmetricRecord, t0: float, t1: float, i: int, j: int) -> float:
    """Fraction of the recorded steps in ``[t0, t1]`` over which ``|w_ij|`` decreases
    (1 means it shrinks throughout: a suppression, Sec. 4.2.2)."""
    record = _single_record("record", record)
    t0, t1 = _checks.number("t0", t0), _checks.number("t1", t1)
    if not t0 <= t1:
        raise ValueError(f"t0 must be <= t1, got t0 = {t0}, t1 = {t1}")
    d = record.W.shape[-1]
    i, j = _checks.index("i", i, d), _checks.index("j", j, d)
    w = np.abs(record.W[(record.time >= t0) & (record.time <= t1), i, j])
    if w.size < 2:
        raise ValueError(f"fewer than 2 records in [t0, t1] = [{t0}, {t1}]")
    return float(np.mean(np.diff(w) < 0))


def escape_time(record: SymmetricRecord, p: int = 0, level: float = 0.5) -> np.ndarray:
    """Time at which the major entry ``w_pp`` passes ``level``: measured where it does
    within the record, predicted where it does not (App. E.3's failure mode).

    The prediction treats ``w_pp`` as decoupled from the converged directions, so that
    it follows the logistic law ``dw/dt = 2 a_p w (1 - w)`` (exercise of
    ``book/two_layer_theory.md``) from its last recorded value ``w_T``:
    ``t = T + [log(1/w_T - 1) - log(1/level - 1)] / (2 a_p)``. ``inf`` where ``w_T <= 0``
    (outside the PSD cone, possible only when (D.2) is iterated on ``W``) or the run
    overflowed.

    Parameters
    ----------
    record : SymmetricRecord
        Single or batched.
    p : int
        Index of the major entry.
    level : float
        In ``(0, 1)``.

    Returns
    -------
    numpy.ndarray
        ``(B,)`` (or a 0-d array for a single record).
    """
    _checks.instance("record", record, SymmetricRecord, "swingby.theory.SymmetricRecord")
    p = _checks.index("p", p, record.W.shape[-1])
    level = _checks.number("level", level, low=0, high=1, low_open=True, high_open=True)
    w = np.atleast_2d(record.W[..., p, p])  # (B, R)
    t = record.time
    out = np.full(w.shape[0], np.inf)
    for b, row in enumerate(w):
        hit = np.flatnonzero(row >= level)
        if hit.size:
            out[b] = t[hit[0]]
        elif np.isfinite(row[-1]) and 0 < row[-1] < level:
            out[b] = t[-1] + (np.log(1 / row[-1] - 1) - np.log(1 / level - 1)) / (2 * record.a[p])
    return out if record.W.ndim == 4 else out[0]


def _sequence(name: str, value) -> list:
    items = [] if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") else list(value)
    if not items:
        raise ValueError(f"{name} must be a non-empty sequence, got {value!r}")
    return items


class PhaseDiagram(NamedTuple):
    """Output of :func:`phase_diagram`."""

    percent: np.ndarray  #: ``(len(d_values), len(taus))`` % of runs with two or more descents
    d_values: tuple
    taus: tuple


def phase_diagram(mu, sigma, d_values, taus, *, matrix: str = "authors", n_seeds: int = 100,
                  eta: float = 0.02, steps: int = 2500, rel_tol: float = 0.01) -> PhaseDiagram:
    """How often swing-by occurs over the dimension and the initialisation scale (App. E.2).

    For each ``d`` in ``d_values`` (``d' = d``) and each ``tau`` in ``taus``, ``n_seeds``
    Gaussian initialisations ``U ~ N(0, tau^2)`` (seeds ``0..n_seeds-1`` of
    :func:`initial_U`) are run with gradient descent on ``U`` (``iterate="U"``) and ``a``
    from :func:`dynamics_a` with ``matrix``; all ``tau`` of one ``d`` in one batch.

    Parameters
    ----------
    mu, sigma : the SIM setting (``sigma`` a standard deviation).
    d_values, taus : sequences of dimensions ``>= len(mu)`` and scales ``> 0``.
    matrix : {"authors", "paper"}
    n_seeds, eta, steps, rel_tol : as in :func:`descent_statistics`.

    Returns
    -------
    PhaseDiagram
        The percentage of runs whose test loss descends two or more times.
    """
    d_values = tuple(_checks.positive_int(f"d_values[{k}]", d) for k, d in enumerate(_sequence("d_values", d_values)))
    taus = tuple(_checks.positive_float(f"taus[{k}]", t) for k, t in enumerate(_sequence("taus", taus)))
    n = _checks.positive_int("n_seeds", n_seeds)
    _checks.memory(8.0 * n * len(taus) * (_checks.positive_int("steps", steps) // 10 + 2) * max(d_values) ** 2,
                   f"n_seeds = {n} x {len(taus)} taus x steps = {steps} at d = {max(d_values)}")
    s = len(np.atleast_1d(mu))
    percent = np.zeros((len(d_values), len(taus)))
    for i, d in enumerate(d_values):
        a = dynamics_a(mu, sigma, d, matrix=matrix)
        x_hat = np.zeros(d)
        x_hat[:s] = mu
        base = initial_U(d, range(n), init="gaussian", init_scale=1.0)
        U0 = np.concatenate([base * tau for tau in taus])
        rec = simulate_symmetric(U0, a, eta, steps, x_hat, record_every=10, iterate="U")
        if not np.all(np.isfinite(rec.test_loss)):
            raise ValueError(f"the dynamics overflowed at d = {d}: eta = {eta} is too large for the largest "
                             f"a = {a.max():.3g} (mu, sigma) or tau = {max(taus)}; use a smaller eta")
        n_desc = count_descents(rec.test_loss, rel_tol=rel_tol).reshape(len(taus), n)
        percent[i] = np.mean(n_desc >= 2, axis=1) * 100
    return PhaseDiagram(percent, d_values, taus)
