"""The claim checks of ``book/one_layer_theory.md`` (:mod:`swingby.claims.one_layer_theory`): Theorem 4.1
against gradient descent and trained networks, the learning order of Sec. 4.1 and the monotone one-layer
test loss, each returning :class:`~swingby.theory.two_layer_checks.Counts`. ``rules`` is a ``OneLayerRules``."""
from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np

from swingby import _checks
from swingby.live import progress
from swingby.observations.learning import learning_times
from swingby.observations.runs import FIG2A, FIG2B, run_seed
from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim, second_moment
from swingby.sim.models import MLP
from swingby.sim.run_checks import seed_list
from swingby.sim.symmetric import x_hat_of
from swingby.theory.one_layer import mean_vector, one_layer_output, one_layer_output_with_bias
from swingby.theory.rules import ONE_LAYER_RULES, OneLayerRules
from swingby.theory.stages import count_descents
from swingby.theory.two_layer_checks import Counts, fig5_record

__all__ = ["ONE_LAYER_RULES", "THM41_VARIANTS", "OrderRun", "clear_configs", "default_init_descents", "gd_draws",
           "monotone_counts", "order_counts", "order_runs", "trained_counts"]

#: the wrong variants of Theorem 4.1, in the order of the columns of ``null_passes``
THM41_VARIANTS = ("rate 2 a_k", "noise at the output's rate a_k")


def _rules(rules) -> OneLayerRules:
    return _checks.instance("rules", rules, OneLayerRules, "swingby.theory.rules.OneLayerRules")


def gd_draws(seeds, rules: OneLayerRules = ONE_LAYER_RULES, *, d: int = 8) -> Counts:
    """Claim ``claim-one-thm41`` (form ``identity``): Theorem 4.1 against Euler steps of ``dW/dt =
    -(W - I) A``, one random draw per seed; a draw passes when the finer step's error is below
    ``gd_error_max`` and the two steps' error ratio is in ``gd_ratio_band``; the wrong variants
    (:data:`THM41_VARIANTS`) likewise, one entry per (draw, variant).

    Parameters
    ----------
    seeds, rules, d
        One draw per seed; the thresholds; the dimension (>= 3).
    """
    seeds, rules = seed_list("seeds", seeds, distinct=True), _rules(rules)
    d = _checks.integer("d", d, low=3)
    errors = np.zeros((len(seeds), 1 + len(THM41_VARIANTS), 2))
    for n, seed in enumerate(seeds):
        rng = np.random.default_rng(seed)
        mu, sigma = rng.uniform(0.5, 2.5, size=3), rng.uniform(0.05, 0.5, size=3)
        a = second_moment(mu, sigma, d)
        W0 = rng.uniform(-1 / np.sqrt(d), 1 / np.sqrt(d), size=(d, d))
        z = x_hat_of(mu, d)
        T = rules.gd_horizon
        decay = np.exp(-a * T)  # the last variant: the noise term decays at the output's rate
        forms = [one_layer_output(W0, a, z, T).output, one_layer_output(W0, 2 * a, z, T).output,
                 (a > 0) * (1.0 - decay) * z + decay * (W0 @ z)]
        for j, h in enumerate(rules.gd_steps):
            W = W0.copy()
            for _ in range(int(round(T / h))):
                W -= h * (W - np.eye(d)) * a  # (W - I) A, A diagonal
            errors[n, :, j] = [np.abs(W @ z - f).max() for f in forms]
    ratio = errors[..., 0] / errors[..., 1]
    lo, hi = rules.gd_ratio_band
    ok = (errors[..., 1] < rules.gd_error_max) & (lo < ratio) & (ratio < hi)
    return Counts(ok[:, 0], ok[:, 1:].ravel(), paired=False)


def _signal_only(mu, d: int) -> np.ndarray:
    """The wrong model's rates: eq. (C.13) with the origin cluster and no diversity."""
    return second_moment(mu, (0.0,) * len(mu), d, origin_cluster=True)


def clear_configs(rules: OneLayerRules = ONE_LAYER_RULES, *, d: int = 64) -> list[dict]:
    """The settings of Figs. 2(a)-(b) whose two ``a_k`` (eq. C.13) differ clearly: ``max a > order_margin * min a``.

    Parameters
    ----------
    rules, d
        The thresholds; the dimension.
    """
    rules = _rules(rules)
    configs = FIG2A + FIG2B[1:]  # FIG2B[0] is FIG2A[0]
    a = [second_moment(cfg["mu"], cfg["sigma"], d, origin_cluster=True)[:2] for cfg in configs]
    return [cfg for cfg, ak in zip(configs, a) if ak.max() > rules.order_margin * ak.min()]


class OrderRun(NamedTuple):
    """One run of :func:`order_runs`: its ``a``, learning times and gaps to the closed forms."""

    a: np.ndarray             #: ``(2,)`` the two ``a_k`` of its setting (eq. C.13, origin cluster)
    times: np.ndarray         #: ``(2,)`` measured learning times, epochs
    wrong_times: np.ndarray   #: ``(2,)`` learning times of the signal-only closed form
    gap: float                #: largest coordinate gap of the path to the augmented closed form
    wrong_gap: float          #: the same for the signal-only closed form


def order_runs(seeds, rules: OneLayerRules = ONE_LAYER_RULES, *, d: int = 64) -> list[OrderRun]:
    """Every :func:`clear_configs` setting trained once per seed (one layer with bias, ``order_epochs``
    epochs), with the augmented and the signal-only closed forms from the run's own initial weights.

    Parameters
    ----------
    seeds, rules, d
        Independent seeds; the thresholds; the dimension.
    """
    seeds, rules = seed_list("seeds", seeds, distinct=True), _rules(rules)
    units = [(s, c, cfg, run_seed(s, c, d=d, depth=1)) for s in seeds for c, cfg in enumerate(clear_configs(rules, d=d))]
    datas = [make_sim(cfg["mu"], cfg["sigma"], d, origin_cluster=True, rotate=True, seed=rs) for *_, cfg, rs in units]
    models = [MLP(d, 1, bias=True, seed=rs) for *_, rs in units]
    starts = []
    for model, data in zip(models, datas):  # initial weights and bias in concept coordinates
        R = data.rotation.double().numpy()
        starts.append((R.T @ model.jacobian().double().numpy() @ R,
                       R.T @ model.layers[0].bias.detach().double().numpy()))
    records = train_batched(models, datas, epochs=rules.order_epochs, record_every=20, record_train_loss=False,
                            seed=[u[-1] for u in units])
    out = []
    for (_, _, cfg, _), (W0, b0), rec in zip(units, starts, records):
        a = second_moment(cfg["mu"], cfg["sigma"], d, origin_cluster=True)
        x_hat = x_hat_of(cfg["mu"], d)
        t = 0.1 * rec.steps * 2 / d  # loss="mean": the gradient is 2/d times that of eq. (2.1)
        mean = mean_vector(cfg["mu"], 3, d)
        right = one_layer_output_with_bias(W0, b0, a, mean, x_hat, t)
        wrong = copy.deepcopy(rec)
        wrong.outputs[:, -1] = one_layer_output_with_bias(W0, b0, _signal_only(cfg["mu"], d), mean, x_hat, t)
        out.append(OrderRun(a[:2], learning_times(rec), learning_times(wrong),
                            float(np.abs(rec.trajectory - right).max()),
                            float(np.abs(rec.trajectory - wrong.trajectory).max())))
    return out


def _order_runs(runs) -> list[OrderRun]:
    if not isinstance(runs, list) or not runs or not all(isinstance(r, OrderRun) for r in runs):
        raise ValueError("runs must be a non-empty list of OrderRun (from order_runs)")
    return runs


def _first_is_larger_a(times: np.ndarray, a: np.ndarray) -> bool:
    """The concept with the larger a is strictly first to cover half its way."""
    return bool(times[0] != times[1] and int(np.argmin(times)) == int(np.argmax(a)))


def order_counts(runs: list[OrderRun]) -> Counts:
    """Claim ``claim-one-order`` (form ``universal``): a run of :func:`order_runs` passes when the
    concept with the larger ``a_k`` is strictly first to cover half its way; the wrong model likewise."""
    runs = _order_runs(runs)
    return Counts(np.array([_first_is_larger_a(r.times, r.a) for r in runs]),
                  np.array([_first_is_larger_a(r.wrong_times, r.a) for r in runs]), paired=True)


def trained_counts(runs: list[OrderRun], rules: OneLayerRules = ONE_LAYER_RULES) -> Counts:
    """Claim ``claim-one-trained`` (form ``typical``): a run of :func:`order_runs` passes when its path
    stays within ``trained_err_max`` of the augmented closed form; the wrong model (signal-only) likewise.

    Parameters
    ----------
    runs, rules
        From :func:`order_runs`; the thresholds.
    """
    runs, rules = _order_runs(runs), _rules(rules)
    return Counts(np.array([r.gap < rules.trained_err_max for r in runs]),
                  np.array([r.wrong_gap < rules.trained_err_max for r in runs]), paired=True)


def monotone_counts(seeds, rules: OneLayerRules = ONE_LAYER_RULES) -> Counts:
    """Claim ``claim-one-monotone`` (form ``universal``): the one-layer closed form from each seed's
    Fig. 5 ``W(0) = U(0) U(0)^T`` passes when its test loss descends once (``monotone_rel_tol``); the
    wrong model is the two-layer model (:func:`~swingby.theory.two_layer_checks.fig5_record`).

    Parameters
    ----------
    seeds, rules
        One initialisation per seed; the thresholds.
    """
    seeds, rules = seed_list("seeds", seeds, distinct=True), _rules(rules)
    two = fig5_record(seeds)
    one = np.stack([one_layer_output(w, two.a, two.x_hat, two.time).output for w in two.W[:, 0]])
    one_loss = 0.5 * ((one - two.x_hat) ** 2).sum(axis=-1)
    return Counts(count_descents(one_loss, rules.monotone_rel_tol) == 1,
                  count_descents(two.test_loss, rules.monotone_rel_tol) == 1, paired=True)


def default_init_descents(a, x_hat, mean, *, n_init: int = 200, seed: int = 0,
                          rel_tol: float = 1e-3) -> dict:
    """Descents of the one-layer test loss at ``x_hat`` under Theorem 4.1, ``{False: descents, True:
    descents}`` (without and with bias), from ``n_init`` draws of PyTorch's default ``nn.Linear(d, d)``.

    Parameters
    ----------
    a, x_hat, mean, n_init, seed, rel_tol
        The diagonal of ``A``, the test point and the data mean, ``(d,)``; number of draws; their seed;
        as in :func:`~swingby.theory.stages.count_descents`.
    """
    a = _checks.nonneg_vector("a", a)
    d = a.size
    x_hat, mean = _checks.vector("x_hat", x_hat, d), _checks.vector("mean", mean, d)
    n_init = _checks.positive_int("n_init", n_init)
    rng = np.random.default_rng(_checks.integer("seed", seed, low=0))
    t_grid = np.concatenate([[0.0], np.geomspace(1e-3, 200, 300)])
    bound = 1 / np.sqrt(d)
    descents = {False: [], True: []}
    for _ in progress(range(n_init), desc="initialisations"):
        W0 = rng.uniform(-bound, bound, size=(d, d))
        b0 = rng.uniform(-bound, bound, size=d)
        for bias, f in ((False, one_layer_output(W0, a, x_hat, t_grid).output),
                        (True, one_layer_output_with_bias(W0, b0, a, mean, x_hat, t_grid))):
            descents[bias].append(count_descents(0.5 * ((f - x_hat) ** 2).sum(axis=1), rel_tol=rel_tol)[0])
    return {bias: np.array(v) for bias, v in descents.items()}
