"""The claim checks of ``book/one_layer_theory.md`` with their thresholds in one place
(issue 23): Theorem 4.1 against small-step gradient descent, the trained networks
against the closed forms, and the learning order of Sec. 4.1, each counted over
independent units (random draws or independent seeds) with a null that a plausible
wrong model passes, so that :func:`swingby.diffusion.rules.verdict` can give the word.

Every threshold value in :data:`ONE_LAYER_RULES` is the one the chapter used before
(typed in its cells); moving them here changed none. Added with the move, before the
runs they count: the numbers of independent draws and seeds (``n_draws``,
``n_trained_seeds``, ``n_order_seeds``), since each check had judged one draw or one
seed.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json

import numpy as np

from swingby import _checks
from swingby.theory.one_layer import one_layer_output


@dataclasses.dataclass(frozen=True)
class OneLayerRules:
    """Thresholds of the one-layer checks. One frozen instance, :data:`ONE_LAYER_RULES`."""

    gd_steps: tuple = (2e-3, 1e-3)     #: Euler step sizes; the error must halve with the step
    gd_horizon: float = 10.0           #: gradient-flow time of the comparison
    gd_error_max: float = 1e-3         #: largest output error at the finer step
    gd_ratio_band: tuple = (1.8, 2.2)  #: error ratio of the two steps (first order: 2)
    n_draws: int = 20                  #: independent random (W(0), mu, sigma) draws, d = 8
    trained_err_max: float = 0.03      #: trained path vs. its closed form, largest coordinate gap
    mismatch_err_min: float = 0.1      #: the other closed form must miss by at least this
    n_trained_seeds: int = 4           #: independent seeds (data and initial weights)
    order_margin: float = 1.2          #: a setting is clear when max a_k > order_margin * min a_k
    time_rel_tol: float = 0.1          #: predicted learning times within this share (+ one record step)
    n_order_seeds: int = 5             #: independent seeds per setting of Figs. 2(a)-(b)


#: the rules the chapter's checks read
ONE_LAYER_RULES = OneLayerRules()


def fingerprint(rules: OneLayerRules = ONE_LAYER_RULES) -> str:
    """A short sha256 (16 hex digits) of the rules' values, printed by the chapter.

    Parameters
    ----------
    rules : OneLayerRules

    Returns
    -------
    str
    """
    if not isinstance(rules, OneLayerRules):
        raise ValueError(f"rules must be a OneLayerRules, got {type(rules).__name__}")
    text = json.dumps({"class": "OneLayerRules", **dataclasses.asdict(rules)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def gd_draws(rules: OneLayerRules = ONE_LAYER_RULES, *, d: int = 8, seed: int = 0) -> dict:
    """Theorem 4.1 against explicit Euler steps of ``dW/dt = -(W - I) A`` on
    ``rules.n_draws`` independent draws of ``W(0)`` (PyTorch's uniform law), three
    concepts with ``mu`` uniform in [0.5, 2.5] and ``sigma`` uniform in [0.05, 0.5], at
    ``z`` = the concepts' sum (``x_hat``).

    A draw passes when the finer step's error is below ``gd_error_max`` and the error
    ratio of the two steps lies in ``gd_ratio_band`` (first-order convergence). The null
    is the closed form with the wrong rate ``2 a`` (the paper's (4.1) without its 1/2):
    the same two conditions, against the same gradient-descent runs.

    Parameters
    ----------
    rules : OneLayerRules
    d : int
        Dimension (>= 3).
    seed : int
        Seeds the draws.

    Returns
    -------
    dict
        ``passes`` and ``null_passes`` (bool arrays, one per draw), ``errors`` (draws x
        steps), ``null_errors`` (draws x steps).
    """
    from swingby.sim.data import second_moment

    if not isinstance(rules, OneLayerRules):
        raise ValueError(f"rules must be a OneLayerRules, got {type(rules).__name__}")
    d = _checks.integer("d", d, low=3)
    rng = np.random.default_rng(_checks.seed("seed", seed))
    n = rules.n_draws
    mu = rng.uniform(0.5, 2.5, size=(n, 3))
    sigma = rng.uniform(0.05, 0.5, size=(n, 3))
    a = np.stack([second_moment(m, s, d) for m, s in zip(mu, sigma)])
    W0 = rng.uniform(-1 / np.sqrt(d), 1 / np.sqrt(d), size=(n, d, d))
    z = np.zeros((n, d))
    z[:, :3] = mu
    eye = np.eye(d)
    errors, null_errors = np.zeros((n, 2)), np.zeros((n, 2))
    for j, h in enumerate(rules.gd_steps):
        W = W0.copy()
        for _ in range(int(round(rules.gd_horizon / h))):
            W -= h * (W - eye) * a[:, None, :]  # (W - I) A, A diagonal
        out = np.einsum("nij,nj->ni", W, z)
        for k in range(n):
            errors[k, j] = np.abs(out[k] - one_layer_output(W0[k], a[k], z[k], rules.gd_horizon).output).max()
            wrong = one_layer_output(W0[k], 2 * a[k], z[k], rules.gd_horizon).output
            null_errors[k, j] = np.abs(out[k] - wrong).max()

    def passes(err):
        ratio = err[:, 0] / err[:, 1]
        lo, hi = rules.gd_ratio_band
        return (err[:, 1] < rules.gd_error_max) & (lo < ratio) & (ratio < hi)

    return {"passes": passes(errors), "null_passes": passes(null_errors), "errors": errors,
            "null_errors": null_errors}


def trained_pass(errs: dict, rules: OneLayerRules = ONE_LAYER_RULES) -> tuple[bool, bool]:
    """One seed's verdict on the trained one-layer runs against the closed forms.

    Parameters
    ----------
    errs : dict
        ``{bias: {"plain": e, "aug": e, "null": e}}`` for ``bias`` in (False, True): the
        largest gap between the trained path and eq. (4.2) (``plain``), the augmented
        flow (``aug``) and the augmented flow for the data without the origin cluster
        (``null``).
    rules : OneLayerRules

    Returns
    -------
    (bool, bool)
        The check passes (each run follows its own closed form within
        ``trained_err_max`` and misses the other by at least ``mismatch_err_min``); the
        null passes (the prediction that forgets the origin cluster follows both runs
        within ``trained_err_max``).
    """
    if not isinstance(errs, dict) or set(errs) != {False, True} or not all(
            isinstance(errs[b], dict) and {"plain", "aug", "null"} <= set(errs[b]) for b in errs):
        raise ValueError("errs must be {False: {...}, True: {...}} with the keys plain, aug and null")
    own = {False: "plain", True: "aug"}
    other = {False: "aug", True: "plain"}
    ok = all(errs[b][own[b]] < rules.trained_err_max and errs[b][other[b]] >= rules.mismatch_err_min
             for b in (False, True))
    null = all(errs[b]["null"] < rules.trained_err_max for b in (False, True))
    return bool(ok), bool(null)


def order_pass(rows: list, spacing: float, rules: OneLayerRules = ONE_LAYER_RULES) -> tuple[bool, bool]:
    """One seed's verdict on the learning order of Sec. 4.1 over the settings of
    Figs. 2(a)-(b).

    Parameters
    ----------
    rows : list of (config, a, measured, predicted)
        Per setting: its config (``mu``), its two ``a_k``, the measured and the
        predicted learning times (epochs, two each).
    spacing : float
        The record grid's resolution in epochs.
    rules : OneLayerRules

    Returns
    -------
    (bool, bool)
        The check passes (in every clear setting the concept with the larger ``a_k`` is
        learned strictly first, and every learning time is predicted within
        ``time_rel_tol`` plus ``spacing``); the null passes ("larger ``mu`` first", the
        signal-only rule, holds in every clear setting whose ``mu`` differ).
    """
    if not isinstance(rows, list) or not rows:
        raise ValueError("rows must be a non-empty list of (config, a, measured, predicted)")
    spacing = _checks.number("spacing", spacing, low=0.0)
    ok = null = True
    for cfg, a_c, measured, predicted in rows:
        measured, predicted = np.asarray(measured, float), np.asarray(predicted, float)
        if not (np.all(np.isfinite(measured)) and
                np.all(np.abs(measured - predicted) <= rules.time_rel_tol * measured + spacing)):
            ok = False
        if max(a_c) > rules.order_margin * min(a_c):
            first = int(np.argmin(measured)) if measured[0] != measured[1] else -1
            ok &= first == int(np.argmax(a_c))
            # the signal-only rule cannot be contradicted where the mu are equal
            null &= cfg["mu"][0] == cfg["mu"][1] or first == int(np.argmax(cfg["mu"]))
    return bool(ok), bool(null)


def _initial(d: int, seed: int, bias: bool, data) -> tuple:
    """A run's initial weights (and bias) in concept coordinates."""
    from swingby.sim.models import MLP

    model = MLP(d, 1, bias=bias, seed=seed)
    R = data.rotation.double().numpy()
    W0 = R.T @ model.jacobian().double().numpy() @ R
    b0 = R.T @ model.layers[0].bias.detach().double().numpy() if bias else np.zeros(d)
    return model, W0, b0


def trained_seed_errors(seeds, *, mu=(1.0, 2.0), sigma=None, d: int = 64) -> list[dict]:
    """Train the one-layer model without and with bias on the authors' data (origin
    cluster, SGD lr 0.1, batch 128, 40 epochs, rotated) for every seed, all in one
    batched program, and measure each path's largest coordinate gap to eq. (4.2), the
    augmented flow and the augmented flow for the data without the origin cluster.

    Parameters
    ----------
    seeds : sequence of int
        Independent seeds: each draws its own data and initial weights.
    mu : pair of float
    sigma : pair of float, optional
        Standard deviations (default: the authors' 0.05 as a variance).
    d : int

    Returns
    -------
    list of dict
        Per seed, ``{bias: {"plain": e, "aug": e, "null": e}}`` (:func:`trained_pass`).
    """
    from swingby.sim.batched import train_batched
    from swingby.sim.data import make_sim, second_moment, std_from_authors_sigma

    seeds = [_checks.seed("seeds[k]", s) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct and at least one, got {seeds!r}")
    sigma = (std_from_authors_sigma(0.05),) * 2 if sigma is None else sigma
    a = second_moment(mu, sigma, d, origin_cluster=True)
    a_null = second_moment(mu, sigma, d, origin_cluster=False)
    x_hat = np.zeros(d)
    x_hat[:2] = mu
    datas = [make_sim(mu, sigma, d, origin_cluster=True, rotate=True, seed=s) for s in seeds]
    out = [{} for _ in seeds]
    for bias in (False, True):  # one batched program per model kind
        runs = [(k, *_initial(d, s, bias, datas[k])) for k, s in enumerate(seeds)]
        recs = train_batched([r[1] for r in runs], datas, epochs=40, record_every=20,
                             record_train_loss=False, seed=seeds)
        _gaps(out, bias, runs, recs, a, a_null, mu, x_hat, d)
    return out


def _gaps(out, bias, runs, recs, a, a_null, mu, x_hat, d) -> None:
    """Fill ``out[k][bias]`` with each trained path's gaps to the three closed forms."""
    from swingby.theory.one_layer import mean_vector, one_layer_output_with_bias

    for (k, _, W0, b0), rec in zip(runs, recs):
        t = 0.1 * rec.steps * 2 / d  # loss="mean": the gradient is 2/d times that of eq. (2.1)
        forms = {"plain": one_layer_output(W0, a, x_hat, t).output,
                 "aug": one_layer_output_with_bias(W0, b0, a, mean_vector(mu, 3, d), x_hat, t),
                 "null": one_layer_output_with_bias(W0, b0, a_null, mean_vector(mu, 2, d), x_hat, t)}
        out[k][bias] = {name: float(np.abs(rec.trajectory - f).max()) for name, f in forms.items()}


def order_seed_rows(seeds, *, d: int = 64) -> tuple[list[list], float]:
    """The one-layer runs of every setting of Figs. 2(a)-(b) (the authors' sigma and
    origin cluster, bias, rotated data, 40 epochs) with independent randomness per
    (setting, seed), and for each the learning times measured and predicted by the
    augmented closed form from the run's own initial weights.

    Parameters
    ----------
    seeds : sequence of int
        Independent seeds.
    d : int

    Returns
    -------
    (list, float)
        Per seed, the rows :func:`order_pass` reads; the record grid's resolution in
        epochs.
    """
    import copy

    from swingby.observations.learning import learning_times
    from swingby.observations.runs import FIG2A, FIG2B, run_seed, run_sweep
    from swingby.sim.data import make_sim, second_moment
    from swingby.theory.one_layer import mean_vector, one_layer_output_with_bias

    seeds = list(seeds)
    configs = FIG2A + FIG2B[1:]  # FIG2B[0] is FIG2A[0]
    records = run_sweep(configs, d=d, depth=1, seeds=seeds, epochs=40, seeding="independent")
    out = []
    for k, s in enumerate(seeds):
        rows = []
        for c, cfg in enumerate(configs):
            rec, rs = records[c][k], run_seed(s, c, d=d, depth=1)
            data = make_sim(cfg["mu"], cfg["sigma"], d, origin_cluster=True, rotate=True, seed=rs)
            _, W0, b0 = _initial(d, rs, True, data)
            a = second_moment(cfg["mu"], cfg["sigma"], d, origin_cluster=True)
            x_hat = np.zeros(d)
            x_hat[:2] = cfg["mu"]
            pred = copy.deepcopy(rec)
            pred.outputs[:, -1] = one_layer_output_with_bias(W0, b0, a, mean_vector(cfg["mu"], 3, d), x_hat,
                                                             0.1 * rec.steps * 2 / d)
            rows.append((cfg, a[:2], learning_times(rec), learning_times(pred)))
        out.append(rows)
    spacing = float(np.diff(records[0][0].epochs).max())
    return out, spacing
