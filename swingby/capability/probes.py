"""Probes of the held-out class beside its accuracy (the hidden-capabilities study, Figs. 1, 4, 5 and
App. D; chapter ``book/capability.md``): its turn in concept space, the class-prompt embeddings, the
training log, and how well a probe's transition step tracks the capability time. ``res`` and the
``(separation, seed, ...)`` arrays are as in :mod:`swingby.capability.measures`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from swingby import _checks
from swingby.capability import measures as CM
from swingby.diffusion.concept_space import TARGET_11
from swingby.diffusion.presets import SEEDINGS

__all__ = ["class_points", "ConceptTurn", "concept_turn", "final_mse", "embedding_disentanglement",
           "transition_step", "PROBE_NAMES", "probe_steps", "ProbeScore", "probe_score"]

#: concept-space corners of the trained classes a held-out point can be drawn to
#: (01 red small: size learned first; 10 blue big: colour learned first)
CORNERS = {"01": (0.0, 1.0), "10": (1.0, 0.0)}


# -------------------------------------------------------- concept-space turn
def class_points(res: dict) -> np.ndarray:
    """Concept-space points ``(D, S, K, 4, 2)`` of every class: the sample mean of ``(P(blue), P(small))``."""
    CM.check_res(res, "probs")
    return CM.masked(res, np.asarray(res["probs"], float).mean(axis=4))


def first_concept_index(points: np.ndarray, level: float = 0.5) -> np.ndarray:
    """First checkpoint ``(D, S)`` at which the trained classes' colour or size contrast reaches ``level``."""
    p = np.asarray(points, float)
    contrast = np.maximum(p[..., 2, 0] - p[..., 0, 0], p[..., 1, 1] - p[..., 0, 1])  # (D, S, K)
    reached = contrast >= level
    k = np.where(reached.any(axis=2), reached.argmax(axis=2), p.shape[2] - 1).astype(float)
    k[np.isnan(contrast).any(axis=2)] = np.nan
    return k


class ConceptTurn(NamedTuple):
    """Where the held-out class ends its concept memorization, per run ``(D, S)`` (NaN / "": missing run)."""

    corner: np.ndarray     #: the trained class it was drawn to, "01" or "10"
    turn: np.ndarray       #: the step of its closest approach to that corner
    departure: np.ndarray  #: the first step after it half-way from the corner to the target (``inf``: never)


def concept_turn(res: dict) -> ConceptTurn:
    """End of concept memorization in concept space (study Figs. 1, 4; eq. ``eq-cap-turn``): from the first
    checkpoint at which a concept is learned, the trained corner class 11 comes closest to, the step of
    that closest approach, and the step at which its distance from the corner again exceeds one half."""
    pts = class_points(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    k0 = first_concept_index(pts)
    D, S = pts.shape[:2]
    corner = np.full((D, S), "", dtype=object)
    turn, depart = np.full((D, S), np.nan), np.full((D, S), np.nan)
    for i, j in np.ndindex(D, S):
        if np.isnan(k0[i, j]):
            continue
        k = int(k0[i, j])
        p = pts[i, j, k:, CM.CLASS_11]
        dist = {c: np.hypot(p[:, 0] - x, p[:, 1] - y) for c, (x, y) in CORNERS.items()}
        c = min(dist, key=lambda name: dist[name].min())
        kt = int(np.argmin(dist[c]))
        corner[i, j], turn[i, j] = c, steps[k + kt]
        depart[i, j] = CM.first_crossing(steps[k + kt:], dist[c][kt:], 0.5) if kt < len(p) - 1 else np.inf
    return ConceptTurn(corner, turn, depart)


def final_mse(res: dict) -> np.ndarray:
    """Concept-space MSE ``(D, S)`` of class 11 to its target (1, 1) at the last checkpoint (study Fig. 1)."""
    p = class_points(res)[:, :, -1, CM.CLASS_11]
    return ((p - TARGET_11) ** 2).mean(axis=-1)


# ---------------------------------------------------------------- embeddings
def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((na > 0) & (nb > 0), (a * b).sum(-1) / (na * nb), np.nan)


def embedding_disentanglement(res: dict) -> np.ndarray:
    """``1 - |cos(e01 - e00, e10 - e00)|`` ``(D, S, K)`` of the class-prompt embeddings (study Fig. 5;
    eq. ``eq-cap-ed``): 1 when the size and colour directions are orthogonal."""
    CM.check_res(res, "emb")
    e = np.asarray(res["emb"], float)
    return CM.masked(res, 1 - np.abs(_cos(e[..., 1, :] - e[..., 0, :], e[..., 2, :] - e[..., 0, :])))


def embedding_parallelogram(res: dict) -> np.ndarray:
    """``cos(e11 - e10, e11 - e01)`` of the class-prompt embeddings (study Fig. 16)."""
    e = np.asarray(res["emb"], float)
    return CM.masked(res, _cos(e[..., 3, :] - e[..., 2, :], e[..., 3, :] - e[..., 1, :]))


# ---------------------------------------------- training log and transitions
def loss_log(res: dict, field: str) -> tuple[np.ndarray, np.ndarray]:
    """Steps ``(R,)`` and values ``(D, S, R)`` of one field of the training log (NaN for unfinished runs)."""
    fields = list(res["meta"]["loss_fields"])
    log = np.asarray(res["loss"], float)
    done = np.asarray(res["done"]).all(axis=2)
    steps = log[done][0, :, fields.index("step")] if done.any() else log[0, 0, :, 0]
    vals = log[..., fields.index(field)].copy()
    vals[~done] = np.nan
    return steps, vals


def transition_step(steps: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Transition step of a probe (eq. ``eq-cap-transition``): the first (interpolated) step at which the
    curve has moved half of its largest excursion from its start; ``steps[0]`` for a flat curve.

    Parameters
    ----------
    steps : array (K,)
        Strictly increasing.
    y : array (..., K)
        Probe curves (NaN: missing run).
    """
    y, s = CM.check_curves(y, steps)
    dev = np.abs(y - y[..., :1])
    peak = dev.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(peak > 0, dev / peak, 1.0)
    frac[np.isnan(y).any(axis=-1)] = np.nan
    return CM.first_crossing(s, frac, 0.5)


def peak_step(steps: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Step of each curve's (first) maximum, NaN for a missing run."""
    y, s = np.asarray(y, float), np.asarray(steps, float)
    out = np.atleast_1d(s[np.argmax(np.nan_to_num(y, nan=-np.inf), axis=-1)].astype(float))
    out[np.atleast_1d(np.isnan(y).any(axis=-1))] = np.nan
    return out.reshape(y.shape[:-1])


#: the probes of the chapter's table (:func:`probe_steps`), each with the study's figure
PROBE_NAMES = (
    "concept space: turn",
    "concept space: leaving step",
    "embedding disentanglement [study Fig. 5]",
    "embedding disentanglement, its maximum",
    "parallelogram cosine [study Fig. 16]",
    "weight norm, colour inputs [study Fig. 10]",
    "weight norm, size input [study Fig. 11]",
    "weight norm, convolutions [study Fig. 14]",
    "gradient norm, colour inputs [study Fig. 12]",
    "gradient norm, size input [study Fig. 13]",
    "gradient norm, convolutions [study Fig. 15]",
    "training loss [study Fig. 4, left]",
)


def probe_steps(res: dict) -> dict[str, np.ndarray]:
    """:data:`PROBE_NAMES` to the ``(D, S)`` steps of every probe (study Figs. 4, 5, 10-16): the concept-space
    turn and leaving step, the embedding disentanglement's maximum, and the :func:`transition_step` of the rest."""
    CM.check_res(res, "probs", "emb", "wnorm", "loss")
    steps = np.asarray(res["meta"]["checkpoint_steps"], float)
    turn = concept_turn(res)
    ed = embedding_disentanglement(res)
    wnorm = np.where(np.asarray(res["done"])[..., None], np.asarray(res["wnorm"], float), np.nan)
    curves = (embedding_parallelogram(res), wnorm[..., 0], wnorm[..., 1], wnorm[..., 2])
    logged = [loss_log(res, f) for f in ("grad_colour", "grad_size", "grad_conv", "loss")]
    values = [turn.turn, turn.departure, transition_step(steps, ed), peak_step(steps, ed)]
    values += [transition_step(steps, y) for y in curves]
    values += [transition_step(s, y) for s, y in logged]
    return dict(zip(PROBE_NAMES, values))


# -------------------------------------------------------------- probe scores
class ProbeScore(NamedTuple):
    """How well a probe's transition step predicts the capability time over the runs."""

    name: str
    r_capability: float  #: Pearson correlation with the capability time
    p_value: float       #: its one-sided permutation p (:func:`probe_score`)
    median_gap: float    #: median of ``|t_probe - t_capability|``
    r_behaviour: float   #: correlation with the behaviour time (runs where behaviour crosses)
    n: int               #: runs used


def _corr(x: np.ndarray, y: np.ndarray) -> float:
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def probe_score(name: str, t_probe: np.ndarray, times: CM.CrossingTimes, *, n_perm: int = 2000,
                seed: int = 0, seeding: str = "shared") -> ProbeScore:
    """Score one probe against the capability time (the chapter's probe table).

    The p-value is a one-sided ``scipy.stats.permutation_test`` (``"pairings"``, exact where all
    permutations number at most ``n_perm``) of the correlation over the runs where both steps are
    finite, the probe's steps permuted *within each separation*, so a probe that only knows the
    separation does not score. The permuted unit is the independent one: the seed (one permutation
    at every separation) with ``seeding="shared"``, the run with ``"per_run"``.

    Parameters
    ----------
    name : str
    t_probe : array (D, S)
        The probe's transition step per run.
    times : CrossingTimes
    n_perm, seed : int
        Permutations for the p-value and their seed.
    seeding : {"shared", "per_run"}
        The sweep's ``res["meta"]["config"]["seeding"]``.
    """
    _checks.instance("times", times, CM.CrossingTimes)
    t_cap = CM.check_times("times.capability", times.capability)
    t_beh = CM.check_times("times.behaviour", times.behaviour, t_cap.shape)
    t = CM.check_times("t_probe", t_probe, t_cap.shape)
    n_perm = _checks.positive_int("n_perm", n_perm)
    seed = _checks.seed("seed", seed)
    seeding = _checks.choice("seeding", seeding, SEEDINGS)
    ok = np.isfinite(t) & np.isfinite(t_cap)
    r = _corr(t[ok], t_cap[ok])
    p = _permutation_p(t, t_cap, ok, n_perm, seed, seeding) if np.isfinite(r) else float("nan")
    okb = ok & np.isfinite(t_beh)
    gap = float(np.median(np.abs(t[ok] - t_cap[ok]))) if ok.any() else float("nan")
    return ProbeScore(str(name), r, p, gap, _corr(t[okb], t_beh[okb]), int(ok.sum()))


def _permutation_p(t: np.ndarray, t_cap: np.ndarray, ok: np.ndarray, n_perm: int, seed: int, seeding: str) -> float:
    """P-value of :func:`probe_score` (a permutation of the seeds takes a separation's used ones in its order)."""
    D, S = t.shape
    used = [np.flatnonzero(ok[i]) for i in range(D)]

    def corr(*idx) -> float:
        x = t.copy()
        for i in range(D):
            q = np.asarray(idx[0] if seeding == "shared" else idx[i], int)
            x[i, used[i]] = t[i, q[np.isin(q, used[i])]]
        return _corr(x[ok], t_cap[ok])
    # one sample of seed indices (the seed is the unit) or one per separation (the run is)
    data = (np.arange(S),) if seeding == "shared" else tuple(np.arange(S) for _ in range(D))
    res = stats.permutation_test(data, corr, permutation_type="pairings", vectorized=False,
                                 n_resamples=n_perm, alternative="greater", rng=np.random.default_rng(seed))
    return float(res.pvalue)
