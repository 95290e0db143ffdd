"""Capability, behaviour and embedding probes (swingby.capability) on
synthetic results whose answers are known."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.capability import claims as CC
from swingby.capability import measures as CM
from swingby.capability import probe_claims as CPC
from swingby.capability import probes as CP
from swingby.capability import spread as CSP
from swingby.diffusion.fig6.nulls import pass_rate


def _res(D=1, S=2, K=4, n=10, P=3, E=5):
    probs = np.zeros((D, S, K, 4, n, 2), np.float32)
    pixels = np.zeros((D, S, K, 4, n, 4), np.float32)
    cap_probs = np.zeros((D, S, K, P, n, 2), np.float32)
    cap_pixels = np.zeros((D, S, K, P, n, 4), np.float32)
    emb = np.zeros((D, S, K, 4, E), np.float32)
    return dict(probs=probs, pixels=pixels, cap_probs=cap_probs, cap_pixels=cap_pixels, emb=emb,
                done=np.ones((D, S, K), bool))


def test_behaviour_and_capability_count_joint_successes():
    r = _res()
    r["probs"][0, 0, 2, 3, :6] = [0.9, 0.8]      # 6 of 10 blue and small at checkpoint 2
    r["probs"][0, 0, 2, 3, 6:] = [0.9, 0.2]      # blue but big
    r["cap_probs"][0, 0, 1, 2, :8] = [0.7, 0.9]  # prompt 2 elicits 8 of 10 at checkpoint 1
    b, c = CM.behaviour(r), CM.capability(r)
    assert b[0, 0].tolist() == [0, 0, 0.6, 0] and c[0, 0].tolist() == [0, 0.8, 0.6, 0]
    assert np.all(c >= b)  # the plain prompt is one of the prompts
    r["done"][0, 1, 3] = False
    assert np.isnan(CM.behaviour(r)[0, 1, 3]) and np.isnan(CM.capability(r)[0, 1, 3])


def test_pixel_check_needs_a_disc():
    r = _res()
    r["pixels"][0, 0, 0, 3, :5] = [1, 0.2, 0.3, 0.5]  # valid, small, blue
    r["pixels"][0, 0, 0, 3, 5:] = [0, 0.2, 0.3, 0.5]  # no disc: never counted
    assert CM.behaviour(r, by="pixels")[0, 0, 0] == 0.5
    with pytest.raises(ValueError, match="by must be"):
        CM.behaviour(r, by="eyes")


def test_first_crossing_interpolates():
    steps = np.array([0, 100, 200, 300])
    y = np.array([[0, 0.25, 0.75, 1], [0, 0.1, 0.2, 0.3], [0.6, 0.7, 0.8, 0.9]])
    t = CM.first_crossing(steps, y)
    assert t[0] == pytest.approx(150) and t[1] == np.inf and t[2] == 0
    assert np.isnan(CM.first_crossing(steps, np.array([0, np.nan, 1, 1])))
    with pytest.raises(ValueError, match="checkpoints"):
        CM.first_crossing(steps, np.zeros(3))


def test_embedding_probes():
    r = _res(E=3)
    e = r["emb"]
    e[..., 0, :] = [0, 0, 0]
    e[..., 1, :] = [1, 0, 0]  # size direction
    e[..., 2, :] = [0, 1, 0]  # colour direction, orthogonal
    e[..., 3, :] = [1, 1, 0]  # the parallelogram's fourth corner
    assert np.allclose(CP.embedding_disentanglement(r), 1)
    assert np.allclose(CP.embedding_parallelogram(r), 0)  # e11-e10 = size, e11-e01 = colour
    e[..., 2, :] = [2, 0, 0]  # colour parallel to size: entangled
    assert np.allclose(CP.embedding_disentanglement(r), 0)


def test_linear_fit_and_its_interval():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 40)
    y = 2 * x + 1 + rng.normal(0, 0.5, 40)
    f = CC.linear_fit(x, y)
    assert abs(f.slope - 2) < 0.1 and f.r2 > 0.95 and f.slope_ci[0] < 2 < f.slope_ci[1] and f.n == 40
    null = CC.linear_fit(x, rng.normal(0, 1, 40))  # no relation: the interval covers 0
    assert null.slope_ci[0] < 0 < null.slope_ci[1]
    with pytest.raises(ValueError, match="three"):
        CC.linear_fit([1, 2], [1, 2])


# ------------------------------------------------------------------ a synthetic sweep
STEPS = [0, 100, 200, 400, 700, 1000]
LOSS_FIELDS = ["step", "loss", "diff", "prior", "recon", "gamma_min", "gamma_max",
               "grad_colour", "grad_size", "grad_conv"]


def _curve(t_half: float, n: int) -> np.ndarray:
    """Per checkpoint, how many of ``n`` samples succeed: a step from 0 to n at ``t_half``."""
    return np.array([0 if s < t_half else n for s in STEPS])


def _sweep(D=2, S=3, n=16, P=8, cap_at=(150, 300), beh_at=(600, 2000)):
    """A complete synthetic sweep: capability prompt 2 succeeds from ``cap_at[i]`` on;
    class 11 under the plain prompt goes to the 01 corner, turns there at step 200 and
    becomes blue between steps 400 and 700 (``beh_at`` 600) or never (2000); the
    embeddings and norms change at step 200."""
    K = len(STEPS)
    r = _res(D=D, S=S, K=K, n=n, P=P, E=3)
    r["probs"][:] = 0.0
    r["probs"][:, :, :, 1, :, 1] = 1.0               # 01 small from the start
    r["probs"][:, :, :, 2, :, 0] = 1.0               # 10 blue from the start
    for i in range(D):
        okc = _curve(cap_at[i], n)
        for k in range(K):
            r["cap_probs"][i, :, k, 2, :okc[k]] = [0.9, 0.9]
    r["probs"][:, :, :, 3, :, 1] = 0.9  # class 11 is small all along; its blue follows a path to
    paths = {600: [0.5, 0.3, 0.0, 0.2, 0.6, 1.0],   # the 01 corner at step 200 and on to blue
             2000: [0.5, 0.3, 0.0, 0.1, 0.2, 0.3]}  # or stays near 01 (behaviour never crosses)
    for i in range(D):
        r["probs"][i, :, :, 3, :, 0] = np.array(paths[beh_at[i]])[None, :, None]
    r["pixels"][..., 0] = 1.0
    r["pixels"][..., 1] = 0.2
    r["pixels"][..., 2] = np.where(r["probs"][..., 0] > 0.5, 0.3, -0.3)
    r["cap_pixels"][..., 0] = 1.0
    r["cap_pixels"][..., 1] = 0.2
    r["cap_pixels"][..., 2] = np.where(r["cap_probs"][..., 0] > 0.5, 0.3, -0.3)
    r["emb"][..., 0, :] = [0, 0, 0]
    r["emb"][..., 1, :] = [1, 0, 0]
    r["emb"][..., 2, :] = np.where(np.array(STEPS)[:, None] < 200, [1, 0.2, 0], [0, 1, 0])
    r["emb"][..., 3, :] = [1, 1, 0]
    r["thumbs"] = np.zeros((D, S, K, 4, 2, 3, 8, 8), np.uint8)
    r["wnorm"] = np.broadcast_to(np.array([1.0, 1.0, 1.0])[None, None, None] *
                                 (1 + (np.array(STEPS) >= 200))[None, None, :, None], (D, S, K, 3)).copy()
    log_steps = np.arange(10, 1001, 10.0)
    log = np.zeros((D, S, len(log_steps), len(LOSS_FIELDS)))
    log[..., 0] = log_steps
    log[..., 1] = 5 - 3 * (log_steps > 200)
    log[..., 7:] = 1 + (log_steps > 200)[:, None]
    r["loss"] = log
    r["rep_probs"] = np.zeros((D, S, 4, 4, n, 2), np.float32)
    r["rep_pixels"] = np.zeros((D, S, 4, 4, n, 4), np.float32)
    r["meta"] = {"checkpoint_steps": STEPS, "loss_fields": LOSS_FIELDS,
                 "config": {"separations": [0.2, 0.6][:D], "seeds": list(range(S)), "image_size": 16,
                            "ds": 0.4, "position": 0.0, "samples_per_class": n}}
    return r


def test_crossing_times_and_lead_with_censoring():
    r = _sweep()
    t = CM.crossing_times(r)
    # interpolated between the checkpoints around the jump
    assert np.allclose(t.capability[0], 150) and np.allclose(t.capability[1], 300)
    assert np.allclose(t.behaviour[0], 550) and np.isinf(t.behaviour[1]).all()
    lead = CC.capability_lead(t, end=1000)
    assert np.allclose(lead.steps[0], 400) and np.allclose(lead.steps[1], 700)  # censored at the end
    assert not lead.censored[0].any() and lead.censored[1].all()
    r["done"][0, 1] = False
    lead = CC.capability_lead(CM.crossing_times(r), 1000)
    assert np.isnan(lead.steps[0, 1]) and np.isfinite(lead.steps[0, 0])
    with pytest.raises(ValueError, match="end"):
        CC.capability_lead(t, end=0)
    with pytest.raises(ValueError, match="times"):
        CC.capability_lead((1, 2), end=10)
    with pytest.raises(ValueError, match="meta"):
        CM.crossing_times({"done": r["done"]})


def test_precedes_check_passes_on_a_lead_and_fails_on_its_null():
    r = _sweep()
    t = CM.crossing_times(r)
    assert CC.precedes_check(CC.capability_lead(t, 1000), min_lead=300)
    assert not CC.precedes_check(CC.capability_lead(t, 1000), min_lead=800)
    # null: prompts that add only sampling noise to a slowly rising plain prompt
    steps = np.linspace(0, 2400, 16)
    beh = np.clip(steps / 2400, 0, 1)[None, None].repeat(5, axis=1)  # (1, 5, 16)
    t_beh = CM.first_crossing(steps, beh)

    def null(rng):
        t_cap = CM.first_crossing(steps, CC.noise_capability(beh, 64, 8, rng))
        return CC.capability_lead(CM.CrossingTimes(t_cap, t_beh), 2400)
    assert pass_rate(lambda lead: CC.precedes_check(lead, 300), null, n=100) <= 0.05
    with pytest.raises(ValueError, match="min_lead"):
        CC.precedes_check(CC.capability_lead(t, 1000), min_lead=-1)
    with pytest.raises(ValueError, match="min_fraction"):
        CC.precedes_check(CC.capability_lead(t, 1000), min_lead=1, min_fraction=0)
    with pytest.raises(ValueError, match="no measured run"):
        CC.precedes_check(CC.Lead(np.full((1, 2), np.nan), np.zeros((1, 2), bool)), 1)


def test_noise_capability_is_a_max_over_binomial_redraws():
    rng = np.random.default_rng(0)
    beh = np.array([[[0.0, 0.3, 0.5, 1.0, np.nan]]])
    cap = CC.noise_capability(beh, 64, 8, rng)
    assert np.all(cap[..., :4] >= beh[..., :4]) and np.isnan(cap[..., 4])
    assert cap[..., 0] == 0 and cap[..., 3] == 1  # nothing to draw at 0 and 1
    big = CC.noise_capability(np.full((2000,), 0.5), 64, 8, rng)
    assert 0.55 < big.mean() < 0.65  # the best of 9 draws sits about 1.5 std above 0.5
    with pytest.raises(ValueError, match="behaviour_curves"):
        CC.noise_capability(np.array([1.5]), 64, 8, rng)
    with pytest.raises(ValueError, match="n_samples"):
        CC.noise_capability(beh, 0, 8, rng)
    with pytest.raises(ValueError, match="n_prompts"):
        CC.noise_capability(beh, 64, 1.5, rng)
    with pytest.raises(ValueError, match="rng"):
        CC.noise_capability(beh, 64, 8, 0)


def test_repeat_noise_ratio_is_one_for_binomial_repeats():
    r = _sweep(D=2, S=3, n=64)
    rng = np.random.default_rng(1)
    p = rng.uniform(0.2, 0.8, (2, 3, 1, 4, 1))
    ok = rng.random((2, 3, 50, 4, 64)) < p  # 50 repeats for a precise ratio
    r["rep_probs"] = np.repeat(np.where(ok, 0.9, 0.1)[..., None], 2, axis=-1).astype(np.float32)
    r["rep_pixels"] = np.zeros(ok.shape + (4,), np.float32)
    assert abs(CM.repeat_noise_ratio(r) - 1) < 0.15
    r["rep_probs"][:] = 0.9  # no spread at all: every accuracy is 1
    with pytest.raises(ValueError, match="undefined"):
        CM.repeat_noise_ratio(r)
    with pytest.raises(ValueError, match="res must"):
        CM.repeat_noise_ratio({"done": r["done"]})


def test_seed_spread_and_its_swap_null():
    steps = np.array([0.0, 1.0, 2.0])
    cap = np.array([[[0, 1, 1], [0, 1, 1], [0, 1, 1]]], float)  # identical seeds
    beh = np.array([[[0, 0, 1], [0, 1, 1], [0, 0, 0]]], float)  # seeds disagree
    assert np.allclose(CSP.seed_std(cap), 0) and CSP.seed_std(beh)[0, 1] > 0.5
    assert CSP.time_mean(np.array([0.0, 1.0, 1.0]), steps) == pytest.approx(0.75)
    assert CSP.spread_ratio(cap, beh, steps) == 0 and CC.robustness_check(cap, beh, steps)
    # null: both curves come from the same seed-to-seed spread
    rng = np.random.default_rng(0)
    same = rng.random((4, 5, 3))
    other = rng.random((4, 5, 3))
    assert pass_rate(lambda cb: CC.robustness_check(*cb, steps), lambda g: CC.swap_curves(same, other, g),
                     n=200) <= 0.05
    one_seed = np.full((1, 1, 3), 0.5)
    assert np.isnan(CSP.seed_std(one_seed)).all()
    with pytest.raises(ValueError, match="curves"):
        CSP.seed_std(np.zeros(3))
    with pytest.raises(ValueError, match="y must"):
        CSP.time_mean(np.zeros(4), steps)
    with pytest.raises(ValueError, match="same shape"):
        CSP.spread_ratio(cap, beh[:, :2], steps)
    with pytest.raises(ValueError, match="beh must vary"):
        CSP.spread_ratio(cap, cap, steps)
    with pytest.raises(ValueError, match="max_ratio"):
        CC.robustness_check(cap, beh, steps, max_ratio=2)
    with pytest.raises(ValueError, match="same shape"):
        CC.swap_curves(cap, beh[:, :2], rng)


def test_linear_check_and_permutation_null():
    rng = np.random.default_rng(0)
    x = rng.uniform(100, 1000, (6, 5))
    y = 2 * x + rng.normal(0, 30, x.shape)
    fit = CC.linear_fit(x, y)
    assert CC.linear_check(fit)
    null = pass_rate(lambda f: CC.linear_check(f),
                     lambda g: CC.linear_fit(x, CSP.permute_seeds(y, g, within=False)), n=200)
    assert null <= 0.05
    assert not CC.linear_check(fit, min_n=100)
    with pytest.raises(ValueError, match="fit"):
        CC.linear_check((1, 2))
    with pytest.raises(ValueError, match="min_r2"):
        CC.linear_check(fit, min_r2=2)


def test_permute_seeds_keeps_each_separation_and_missing_runs():
    rng = np.random.default_rng(0)
    t = np.array([[1.0, 2.0, np.inf, np.nan], [10.0, 20.0, 30.0, 40.0]])
    p = CSP.permute_seeds(t, rng)
    assert sorted(p[0, :2]) == [1, 2] and np.isinf(p[0, 2]) and np.isnan(p[0, 3])
    assert sorted(p[1]) == [10, 20, 30, 40]
    q = CSP.permute_seeds(t, rng, within=False)
    assert sorted(q[np.isfinite(q)]) == [1, 2, 10, 20, 30, 40]
    with pytest.raises(ValueError, match="t must"):
        CSP.permute_seeds(np.array([-1.0, 2.0])[None], rng)
    with pytest.raises(ValueError, match="within"):
        CSP.permute_seeds(t, rng, within="yes")


def test_concept_turn_finds_the_memorised_corner():
    r = _sweep()
    pts = CP.class_points(r)
    assert pts.shape == (2, 3, len(STEPS), 4, 2)
    assert np.all(CP.first_concept_index(pts) == 0)  # the trained classes are separated from step 0
    turn = CP.concept_turn(r)
    assert (turn.corner == "01").all() and np.allclose(turn.turn, 200)
    # distance to 01 is 0.6 at step 700 (past one half) and 0.2 at step 400: crossing in between
    assert np.all((turn.departure[0] > 400) & (turn.departure[0] < 700))
    assert np.isinf(turn.departure[1]).all()  # stays within 0.3 of the corner
    r["done"][1, 2] = False
    turn = CP.concept_turn(r)
    assert np.isnan(turn.turn[1, 2]) and turn.corner[1, 2] == ""
    with pytest.raises(ValueError, match="points"):
        CP.first_concept_index(np.zeros((2, 3, 4, 3, 2)))
    with pytest.raises(ValueError, match="level"):
        CP.first_concept_index(pts, level=0)


def test_probe_transition_steps():
    steps = np.array([0.0, 100, 200, 300])
    assert CP.transition_step(steps, np.array([1.0, 1.0, 3.0, 3.0])) == pytest.approx(150)
    assert CP.transition_step(steps, np.array([1.0, 0.0, 1.0, 1.0])) == pytest.approx(50)  # a dip counts
    assert CP.transition_step(steps, np.ones(4)) == 0
    assert np.isnan(CP.transition_step(steps, np.array([1.0, np.nan, 1, 1])))
    assert CP.peak_step(steps, np.array([0.0, 2.0, 1.0, 2.0])) == 100
    with pytest.raises(ValueError, match="y must"):
        CP.transition_step(steps, np.ones(3))
    with pytest.raises(ValueError, match="steps"):
        CP.peak_step(steps[::-1], np.ones(4))


def test_loss_log_and_embedding_probes_on_the_sweep():
    r = _sweep()
    s, loss = CP.loss_log(r, "loss")
    assert s.shape == (100,) and loss.shape == (2, 3, 100)
    assert np.allclose(CP.transition_step(s, loss), 205)  # the loss halves its drop between 200 and 210
    ed = CP.embedding_disentanglement(r)
    assert ed[..., 0].max() < 0.1 and np.allclose(ed[..., -1], 1)
    with pytest.raises(ValueError, match="field"):
        CP.loss_log(r, "step")
    with pytest.raises(ValueError, match="res must"):
        CP.loss_log({"done": r["done"]}, "loss")


def test_probe_steps_gives_every_probe_of_the_table_per_run():
    r = _sweep()
    steps = CP.probe_steps(r)
    assert tuple(steps) == CP.PROBE_NAMES and all(v.shape == (2, 3) for v in steps.values())
    turn = CP.concept_turn(r)
    assert np.array_equal(steps["concept space: turn"], turn.turn)
    assert np.array_equal(steps["concept space: leaving step"], turn.departure, equal_nan=True)
    # the embeddings, the weight norms, the gradient norms and the loss all change at step 200
    for name in CP.PROBE_NAMES[2:]:
        if name != "embedding disentanglement, its maximum" and "parallelogram" not in name:
            assert np.all((steps[name] > 100) & (steps[name] <= 210)), (name, steps[name])
    assert np.allclose(steps["embedding disentanglement, its maximum"], 200)
    r["done"][0, 1, -1] = False  # an unfinished run is NaN in every probe
    assert all(np.isnan(v[0, 1]) for v in CP.probe_steps(r).values())
    with pytest.raises(ValueError, match="res must"):
        CP.probe_steps({"done": r["done"]})


def _brute_p(t, t_cap, seeding):
    """The exact p of probe_score by enumerating the within-separation permutations."""
    import itertools
    ok = np.isfinite(t) & np.isfinite(t_cap)
    D, S = t.shape
    r = np.corrcoef(t[ok], t_cap[ok])[0, 1]
    perms = list(itertools.permutations(range(S)))
    combos = [(q,) * D for q in perms] if seeding == "shared" else itertools.product(perms, repeat=D)
    null = []
    for combo in combos:
        x = t.copy()
        for i, q in enumerate(combo):
            used = np.flatnonzero(ok[i])
            order = [j for j in q if j in used]
            x[i, used] = t[i, order]
        null.append(np.corrcoef(x[ok], t_cap[ok])[0, 1])
    return float(np.mean(np.asarray(null) >= r - 1e-12))


def test_probe_score_p_value_is_the_exact_within_separation_permutation_test():
    rng = np.random.default_rng(3)
    t_cap = rng.uniform(200, 1000, (2, 4))
    t = t_cap + rng.normal(0, 300, t_cap.shape)
    t[1, 2] = np.nan  # a run left out stays put
    times = CM.CrossingTimes(t_cap, t_cap + 100)
    for seeding in ("shared", "per_run"):  # 4! = 24 and (4!)^2 = 576 permutations: exact
        s = CPC.probe_score("x", t, times, n_perm=1000, seeding=seeding)
        assert s.n == 7
        assert s.p_value == pytest.approx(_brute_p(t, t_cap, seeding), abs=1e-9), seeding
    # the two units differ: shared seeds permute the seeds jointly, per-run runs on their own
    assert CPC.probe_score("x", t, times, n_perm=1000).p_value != pytest.approx(
        CPC.probe_score("x", t, times, n_perm=1000, seeding="per_run").p_value)
    with pytest.raises(ValueError, match="seeding"):
        CPC.probe_score("x", t, times, seeding="independent")


def test_probe_score_does_not_score_a_probe_that_only_knows_the_separation():
    rng = np.random.default_rng(4)
    level = np.linspace(200, 1200, 4)[:, None]
    t_cap = level + rng.normal(0, 50, (4, 8))      # the separation sets most of the time
    knows_dc = np.repeat(level, 8, axis=1) + rng.normal(0, 50, (4, 8))  # only the separation
    times = CM.CrossingTimes(t_cap, t_cap + 100)
    for seeding in ("shared", "per_run"):
        s = CPC.probe_score("dc", knows_dc, times, n_perm=500, seeding=seeding)
        assert s.r_capability > 0.9 and s.p_value > 0.05, (seeding, s)
        good = CPC.probe_score("good", t_cap + rng.normal(0, 5, t_cap.shape), times, n_perm=500, seeding=seeding)
        assert good.p_value < 0.01, (seeding, good)


def test_probe_score_and_coincidence_check_with_their_null():
    rng = np.random.default_rng(0)
    t_cap = rng.uniform(200, 1000, (6, 5))
    t_beh = t_cap + 500
    times = CM.CrossingTimes(t_cap, t_beh)
    good = t_cap + rng.normal(0, 20, t_cap.shape)
    s = CPC.probe_score("good", good, times, n_perm=200)
    assert s.r_capability > 0.95 and s.p_value < 0.01 and s.median_gap < 30 and s.n == 30
    flat = CPC.probe_score("flat", np.full_like(t_cap, 300.0), times, n_perm=50)
    assert np.isnan(flat.r_capability) and np.isnan(flat.p_value)
    tol = np.full_like(t_cap, 100.0)
    assert CPC.coincidence_check(good, t_cap, tol)
    assert pass_rate(lambda t: CPC.coincidence_check(t, t_cap, tol), lambda g: CSP.permute_seeds(good, g),
                     n=200) <= 0.05
    assert not CPC.coincidence_check(good + 400, t_cap, tol)  # correlated but too late
    with pytest.raises(ValueError, match="t_probe"):
        CPC.probe_score("x", good[:2], times)
    with pytest.raises(ValueError, match="n_perm"):
        CPC.probe_score("x", good, times, n_perm=0)
    with pytest.raises(ValueError, match="three runs"):
        CPC.coincidence_check(good[:1, :2], t_cap[:1, :2], 1.0)
    with pytest.raises(ValueError, match="min_r"):
        CPC.coincidence_check(good, t_cap, tol, min_r=3)


def test_checkpoint_gap():
    steps = np.array([0.0, 10, 40, 100])
    assert CP.checkpoint_gap(steps, np.array([5.0, 10.0, 70.0, 100.0])).tolist() == [10, 30, 60, 60]
    assert np.isnan(CP.checkpoint_gap(steps, np.array([np.inf]))).all()
    with pytest.raises(ValueError, match="within the checkpoints"):
        CP.checkpoint_gap(steps, np.array([200.0]))


def test_prompt_labels_name_every_prompt():
    r = _sweep()
    labels = CM.prompt_labels(r, 0)
    assert labels[0] == "plain" and labels[1] == "(0.0, 0.0, 1.0)" and labels[-1].startswith("3 dc:")
    assert len(labels) == 1 + r["cap_probs"].shape[3]
    with pytest.raises(ValueError, match="dc_index"):
        CM.prompt_labels(r, 5)


def test_capability_functions_refuse_bad_results():
    r = _sweep()
    with pytest.raises(ValueError, match="res must"):
        CM.behaviour({"probs": r["probs"]})
    with pytest.raises(ValueError, match="by must"):
        CM.capability(r, by="eyes")
    bad = dict(r, done=r["done"].astype(int))
    with pytest.raises(ValueError, match="done"):
        CM.behaviour(bad)
    with pytest.raises(ValueError, match="res\\['emb'\\]"):
        CP.embedding_disentanglement(dict(r, emb=r["emb"][:1]))


# ------------------------------------------------------------------ figures and explorer
def test_figures_draw_on_the_synthetic_sweep(monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from swingby.capability import plots as P
    from swingby.capability.explorer import capability_explorer, draw_capability_view

    r = _sweep()
    fig, ax = plt.subplots()
    P.plot_concept_memorization(r, ax)
    fig, axes = plt.subplots(1, 2)
    P.plot_capability_behaviour(r, axes)
    P.plot_seed_std(r, axes)
    P.plot_embedding_disentanglement(r, axes)
    t = CM.crossing_times(r)
    P.plot_crossing_times(r, t, None, ax)
    fig, axes = plt.subplots(1, 3)
    P.plot_run_overview(r, 0, 1, axes)
    fig, axes_s = plt.subplots(1, r["done"].shape[1])
    P.plot_seed_panels(r, 1, axes_s)
    assert len(fig.legends) == 1  # one legend, below the panels
    fig, axes = plt.subplots(1, 2)
    draw_capability_view(r, 1, 0, 3, 2, axes)
    monkeypatch.setenv("SWINGBY_STATIC", "0")  # live: controls (two rows) above the output area
    explorer = capability_explorer(r, prompt=3)
    assert len(explorer.box.children) == 2 and len(explorer.box.children[0].children) == 2
    assert set(explorer.controls) == {"i", "j", "k", "q"} and explorer.draws == 1
    monkeypatch.setenv("SWINGBY_STATIC", "1")  # static: the default view only, no widget
    assert capability_explorer(r, prompt=3) is None
    table = P.probe_table([CPC.probe_score("a", t.capability, CM.CrossingTimes(t.capability, t.behaviour), n_perm=10)])
    assert table.count("\n") == 2 and "| a |" in table
    plt.close("all")
    with pytest.raises(ValueError, match="one Axes per colour separation"):
        P.plot_capability_behaviour(r, [ax])
    with pytest.raises(ValueError, match="dc_index"):
        P.plot_seed_panels(r, 9, axes_s)
    with pytest.raises(ValueError, match="three Axes"):
        P.plot_run_overview(r, 0, 0, [ax])
    with pytest.raises(ValueError, match="times"):
        P.plot_crossing_times(r, (1, 2), None, ax)
    with pytest.raises(ValueError, match="scores"):
        P.probe_table([])
    with pytest.raises(ValueError, match="prompt"):
        draw_capability_view(r, 0, 0, 0, 99, axes)
    with pytest.raises(ValueError, match="checkpoint"):
        capability_explorer(r, checkpoint=99)
    with pytest.raises(ValueError, match="res must"):
        capability_explorer({})
    r["done"][0, 1] = False
    fig, axes = plt.subplots(1, 3)
    with pytest.raises(ValueError, match="not finished"):
        P.plot_run_overview(r, 0, 1, axes)
    plt.close("all")


def test_rank_correlation_and_final_mse():
    assert CSP.rank_correlation([1, 2, 3, np.inf], [10, 20, 30, 40]) == pytest.approx(1)
    assert CSP.rank_correlation([1, 2, 3, np.nan], [3, 2, 1, 0]) == pytest.approx(-1)
    assert CSP.rank_correlation([1, 1, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.9486833)  # ties share ranks
    rng = np.random.default_rng(0)
    x = rng.random(30)
    assert pass_rate(lambda y: CSP.rank_correlation(x, y) >= 0.5, lambda g: g.permutation(x), n=200) <= 0.05
    with pytest.raises(ValueError, match="three"):
        CSP.rank_correlation([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="same size"):
        CSP.rank_correlation([1, 2, 3], [1, 2])
    r = _sweep()
    m = CP.final_mse(r)
    assert np.allclose(m[0], (0 + 0.01) / 2) and np.allclose(m[1], (0.49 + 0.01) / 2)


def test_median_seed_lead_null_and_coincidence_with_null():
    assert CSP.median_seed(np.array([300.0, 100.0, np.inf, 200.0]), np.array([True, True, True, True])) == 3
    assert CSP.median_seed(np.array([300.0, 100.0, 50.0]), np.array([True, True, False])) == 1
    with pytest.raises(ValueError, match="times"):
        CSP.median_seed(np.array([np.inf, np.nan]), np.array([True, True]))
    steps = np.array([0.0, 100.0, 200.0, 300.0, 400.0])
    beh = np.tile(np.array([0.0, 0.1, 0.2, 0.6, 0.9]), (2, 3, 1))          # behaviour crosses at 275
    make = CC.lead_null(beh, CM.first_crossing(steps, beh), steps, 400.0, n_samples=64, n_prompts=8)
    lead = make(np.random.default_rng(0))
    assert isinstance(lead, CC.Lead) and np.all(np.asarray(lead.steps)[np.isfinite(lead.steps)] >= 0)
    t_cap = np.array([[100.0, 200.0, 300.0], [150.0, 250.0, 350.0]])
    ok, rate = CPC.coincidence_with_null(t_cap + 10, t_cap, steps, n=50)
    assert ok and 0 <= rate <= 1
    assert not CPC.coincidence_with_null(t_cap[:, ::-1] * 0 + 400.0, t_cap, steps, n=20)[0]


# ---------------------------------------------- the new checks (swingby.capability.checks)
def _new_rules():
    import dataclasses

    from swingby.diffusion.rules import RULES
    return dataclasses.replace(RULES, n_null=40, n_resamples=199)


def _lead_sweep(lead: bool, D=2, S=5, n=32, K=12, P=8):
    """Capability (prompt 0, pure blue) from step 300 on, behaviour from 1500 on (with
    ``lead``); without, the prompts are no better than the plain prompt. Before
    capability the pure-blue prompt draws big blue discs."""
    steps = [int(s) for s in np.round(np.linspace(0, np.sqrt(2400), K) ** 2)]
    r = _res(D=D, S=S, K=K, n=n, P=P)
    beh_on = np.array(steps) >= 1500
    cap_on = np.array(steps) >= (300 if lead else 1500)
    r["probs"][:, :, :, 3] = np.where(beh_on[None, None, :, None, None], 0.9, 0.1)
    r["cap_probs"][:, :, :, 0] = np.where(cap_on[None, None, :, None, None], 0.9, [1.0, 0.0])
    r["meta"] = {"checkpoint_steps": steps, "config": {"separations": [0.2, 0.3][:D], "seeds": list(range(S))}}
    return r


def test_sustained_crossing_ignores_a_blip():
    from swingby.capability.checks import sustained_crossing
    steps = np.array([0.0, 100, 200, 300, 400, 500])
    y = np.array([[0.0, 0.6, 0.1, 0.2, 0.8, 0.9], [0.0, 0.2, 0.6, 0.7, 0.8, 0.9], [0.0] * 6])
    t = sustained_crossing(steps, y, 0.5, 2)
    assert t[0] == pytest.approx(350) and t[1] == pytest.approx(175) and np.isinf(t[2])
    assert CM.first_crossing(steps, y[0]) == pytest.approx(250 / 3)   # the old rule counts the blip
    assert np.isnan(sustained_crossing(steps, np.full(6, np.nan), 0.5, 2))


def test_lead_over_levels_passes_with_a_lead_and_fails_without():
    from swingby.capability import checks as K
    rules = _new_rules()
    scan = K.lead_over_levels(_lead_sweep(True), rules=rules)
    assert scan.passed.all() and scan.verdict == "reproduced" and (scan.null_pass_rate <= 0.05).all()
    none = K.lead_over_levels(_lead_sweep(False), rules=rules)
    assert not none.passed.any() and none.verdict == "not reproduced"


def test_blue_big_before_capability_and_its_plain_prompt_null():
    from swingby.capability import checks as K
    rules = _new_rules()
    r = _lead_sweep(True)
    steps = r["meta"]["checkpoint_steps"]
    t_cap = K.sustained_crossing(steps, CM.capability(r), 0.5, 3)
    bb = K.blue_big_before_capability(r, t_cap, rules)
    assert bb.per_run.all() and not bb.null_per_run.any() and bb.verdict == "reproduced"
    r["probs"][:, :, :, 3] = np.where(np.array(steps)[None, None, :, None, None] < 300, [1.0, 0.0], 0.9)
    bb = K.blue_big_before_capability(r, t_cap, rules)   # the plain prompt does the same: no evidence
    assert bb.null_pass_rate > 0.05 and bb.verdict == "inconclusive"


def test_window_spread_ratio_looks_before_capability_saturates():
    from swingby.capability import checks as K
    steps = np.linspace(0, 2000, 11)
    rng = np.random.default_rng(0)
    cap = np.broadcast_to((steps >= 400).astype(float), (2, 10, 11)).copy()      # every seed at 400
    beh = np.stack([[(steps >= t).astype(float) for t in rng.uniform(200, 1800, 10)] for _ in range(2)])
    w = K.window_spread_ratio(cap, beh, steps, _new_rules())
    assert w.ratio == pytest.approx(0) and w.passed and w.verdict == "reproduced" and w.null_pass_rate <= 0.05
    assert (w.window_end == 400).all()
    w = K.window_spread_ratio(beh, cap, steps, _new_rules())
    assert not w.passed and w.verdict == "not reproduced"
    sp = K.seed_spread(np.array([[100.0, 300.0, np.inf], [200.0, 200.0, 200.0]]))
    assert sp.low[0] == 100 and sp.high[0] == 300 and sp.n_never.tolist() == [1, 0] and sp.std[1] == 0


def test_time_vs_separation_with_the_seed_as_unit():
    from swingby.capability import time_checks as T
    rules = _new_rules()
    dcs = np.linspace(0.1, 0.7, 6)
    falling = np.stack([1000 - 1000 * dcs + s for s in range(6)], axis=1)      # (D, S): falls with dc in every seed
    dep = T.time_vs_separation(falling, dcs, rules)
    assert (dep.rho_per_seed == -1).all() and dep.p_value <= 0.05 and dep.verdict == "reproduced"
    rng = np.random.default_rng(0)
    flat = rng.uniform(200, 800, (6, 3))
    dep = T.time_vs_separation(flat, dcs, rules)
    assert dep.p_value > 0.05 and dep.verdict in ("inconclusive", "differs")


def _loss_sweep(bump: bool, D=2, S=5):
    steps = np.arange(10, 1001, 10.0)
    log = np.zeros((D, S, steps.size, len(LOSS_FIELDS)))
    log[..., 0] = steps
    rng = np.random.default_rng(1)
    log[..., 1] = 1 + 2 * np.exp(-steps / 150) + rng.normal(0, 0.002, log.shape[:-1])
    t_cap = np.array([[300.0, 400, 500, 600, 700], [350, 450, 550, 650, 750]])[:D, :S]
    if bump:
        for i, j in np.ndindex(D, S):
            k = int(np.argmin(np.abs(steps - t_cap[i, j])))
            log[i, j, k - 1:k + 2, 1] *= 1.05
    r = {"loss": log, "done": np.ones((D, S, 3), bool), "meta": {"loss_fields": LOSS_FIELDS}}
    return r, t_cap


def test_loss_mark_has_a_null_and_a_sensitivity_test():
    from swingby.capability import time_checks as T
    rules = _new_rules()
    quiet = T.loss_mark(*_loss_sweep(False), rules)
    assert quiet.p_value > 0.05 and quiet.injected_p <= 0.05 and quiet.verdict == "reproduced"
    assert quiet.old_null_pass_rate == 1.0          # the old spread check passes on any early-dropping loss
    marked = T.loss_mark(*_loss_sweep(True), rules)
    assert marked.p_value <= 0.05 and marked.verdict == "differs"


def test_disentanglement_says_how_many_seeds_would_decide():
    from swingby.capability import time_checks as T
    rules = _new_rules()
    rng = np.random.default_rng(0)
    t_cap = rng.uniform(200, 1000, (6, 6))
    close = T.disentanglement(np.abs(t_cap + rng.normal(0, 20, t_cap.shape)), t_cap, rules)
    assert close.r > 0.9 and close.p_value <= 0.05 and close.verdict == "reproduced"
    weak = T.disentanglement(np.abs(t_cap + rng.normal(0, 400, t_cap.shape)), t_cap, rules)
    assert weak.verdict in ("inconclusive", "not reproduced")
    unrelated = T.disentanglement(rng.uniform(200, 1000, (6, 6)), t_cap, rules)
    assert unrelated.verdict in ("inconclusive", "not reproduced") and unrelated.needed


def test_best_probe_pays_for_choosing_among_probes():
    from swingby.capability import time_checks as T
    rules = _new_rules()
    rng = np.random.default_rng(0)
    t_cap = rng.uniform(200, 1000, (4, 6))
    probes = {"turn": np.abs(t_cap + rng.normal(0, 30, t_cap.shape)),
              **{f"noise {k}": rng.uniform(200, 1000, t_cap.shape) for k in range(5)}}
    bp = T.best_probe(probes, t_cap, "turn", rules)
    assert bp.best == "turn" and bp.chosen_is_best and bp.familywise_p <= 0.05 and bp.verdict == "reproduced"
    noise = {k: v for k, v in probes.items() if k != "turn"}
    bp = T.best_probe(noise, t_cap, "noise 0", rules)
    assert bp.familywise_p > 0.05 and bp.verdict in ("inconclusive", "differs")
    with pytest.raises(ValueError, match="chosen"):
        T.best_probe(noise, t_cap, "turn", rules)


def test_panel_grid_makes_rows_of_three_and_labels_the_outer_panels():
    import matplotlib.pyplot as plt

    from swingby.diffusion.fig6.plots import label_panels, panel_grid

    fig, axes = panel_grid(5)
    assert len(axes) == 5 and len(fig.axes) == 5 and tuple(fig.get_size_inches()) == (3.2 * 3, 2.7 * 2)
    label_panels(axes, "step", "accuracy")
    assert [bool(ax.get_ylabel()) for ax in axes] == [True, False, False, True, False]
    # the third column has no panel below it: its x label is on the first row
    assert [bool(ax.get_xlabel()) for ax in axes] == [False, False, True, True, True]
    plt.close(fig)
    for bad in (dict(n=0), dict(n=3, ncols=0), dict(n=3, panel=(3, -1)), dict(n=3, panel=[3, 2])):
        with pytest.raises(ValueError, match="n|ncols|panel"):
            panel_grid(**bad)


# ------------------------------------- status-row words of swingby.capability.report
def test_memorization_word_follows_the_verdict_rule_with_a_coin_per_unit():
    from swingby.capability import report
    from swingby.diffusion.rules import Outcome, verdict

    five_weak = np.array([0.137, 0.175, 0.2, 0.247, 0.3, 0.689])
    done = np.ones((6, 5), bool)
    corner = np.array([["01"] * 5] * 5 + [["10"] * 5])
    shared = report.memorization_word(corner, done, five_weak, "shared", 0.7, 0.0)
    # a seed of five weak runs: a coin passes it 0.5 ** 5 = 3.1 % of the time, below alpha
    assert (shared.n_pass, shared.n_units) == (5, 5) and shared.null_rate == 0.5 ** 5
    assert shared.corner_word == "reproduced" and shared.word == "reproduced"
    assert shared.corner_word == verdict(Outcome(5, 5, 0.5 ** 5))
    # one run per unit (a per-run sweep), or two weak runs per seed: a coin passes a unit
    # more than 5 % of the time, so the rule can say no more than "inconclusive"
    per_run = report.memorization_word(corner, done, five_weak, "per_run", 0.7, 0.0)
    assert per_run.n_units == 25 and per_run.null_rate == 0.5 and per_run.corner_word == "inconclusive"
    two_weak = np.array([0.175, 0.247, 0.468, 0.689, 0.5, 0.6])
    assert report.memorization_word(corner, done, two_weak, "shared", 0.7, 0.0).corner_word == "inconclusive"
    # one seed with a run that heads for 10 fails: 4 of 5, partly
    corner[0, 0] = "10"
    assert report.memorization_word(corner, done, five_weak, "shared", 0.7, 0.0).corner_word == "partly"
    # every weak run heads for 10: the opposite corner, "differs"
    flipped = np.array([["10"] * 5] * 6)
    assert report.memorization_word(flipped, done, five_weak, "shared", 0.7, 0.0).corner_word == "differs"
    # the leaving check: a pass whose null passes too often cannot count
    w = report.memorization_word(np.array([["01"] * 5] * 6), done, five_weak, "shared", 0.7, 0.3)
    # a row takes the weaker check's word; the settings rule (combine) would say "partly"
    assert w.leave_word == "inconclusive" and w.word == "inconclusive" and w.combined == "partly"
    assert report.memorization_word(np.array([["01"] * 5] * 6), done, five_weak, "shared", 0.2, 0.0).leave_word == \
        "not reproduced"
    with pytest.raises(ValueError, match="seeding"):
        report.memorization_word(corner, done, five_weak, "both", 0.7, 0.0)
    with pytest.raises(ValueError, match="corner and done"):
        report.memorization_word(corner[:2], done, five_weak, "shared", 0.7, 0.0)


def test_linear_word_and_app_d_word():
    from swingby.capability import report

    assert report.linear_word(True, 0.01, -0.8, 0.0) == "reproduced"
    assert report.linear_word(False, 0.01, -0.8, 0.0) == "differs"       # the lead falls with dc instead
    assert report.linear_word(False, 0.01, -0.2, 0.0) == "not reproduced"
    assert report.linear_word(False, 0.3, -0.2, 0.0) == "inconclusive"   # its null passes too often
    assert report.claim_word_app_d("partly") == "partly"
    assert report.claim_word_app_d("not reproduced") == "inconclusive"
    with pytest.raises(ValueError, match="mark_word"):
        report.claim_word_app_d("fine")


def test_early_bump_lies_before_every_capability_time_and_sees_a_blob_bump():
    from swingby.capability import checks as K
    r = _sweep()
    b = K.early_bump(r, ("classifier",))
    assert b.reading == "classifier" and b.value < 0.5 and b.step < 150
    k = int(np.searchsorted(STEPS, 50))  # a bump of faint blobs at an early checkpoint
    r["cap_probs"][1, 2, k, 2, :12] = [0.9, 0.9]
    b = K.early_bump(r, ("classifier",))
    assert b.value == pytest.approx(12 / 16) and b.step == STEPS[k]
    with pytest.raises(ValueError, match="readings"):
        K.early_bump(r, ())
