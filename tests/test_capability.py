"""Capability, behaviour and embedding probes (swingby.capability) on
synthetic results whose answers are known."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.capability import measures as CM
from swingby.capability import plots as P
from swingby.capability import probes as CP
from swingby.capability import spread as CSP


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
    with pytest.raises(ValueError, match="sustain"):
        CM.first_crossing(steps, y, sustain=0)


def test_a_held_crossing_ignores_a_blip():
    steps = np.array([0.0, 100, 200, 300, 400, 500])
    y = np.array([[0.0, 0.6, 0.1, 0.2, 0.8, 0.9], [0.0, 0.2, 0.6, 0.7, 0.8, 0.9], [0.0] * 6])
    t = CM.first_crossing(steps, y, 0.5, sustain=2)
    assert t[0] == pytest.approx(350) and t[1] == pytest.approx(175) and np.isinf(t[2])
    assert CM.first_crossing(steps, y[0]) == pytest.approx(250 / 3)   # the first crossing counts the blip
    assert np.isnan(CM.first_crossing(steps, np.full(6, np.nan), 0.5, sustain=2))


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
    f = CSP.linear_fit(x, y)
    assert abs(f.slope - 2) < 0.1 and f.r2 > 0.95 and f.slope_ci[0] < 2 < f.slope_ci[1] and f.n == 40
    null = CSP.linear_fit(x, rng.normal(0, 1, 40))  # no relation: the interval covers 0
    assert null.slope_ci[0] < 0 < null.slope_ci[1]
    with pytest.raises(ValueError, match="three"):
        CSP.linear_fit([1, 2], [1, 2])


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
    lead, censored = CM.lead(t, end=1000)
    assert np.allclose(lead[0], 400) and np.allclose(lead[1], 700)  # censored at the end
    assert not censored[0].any() and censored[1].all()
    r["done"][0, 1] = False
    lead, _ = CM.lead(CM.crossing_times(r), 1000)
    assert np.isnan(lead[0, 1]) and np.isfinite(lead[0, 0])


@pytest.mark.filterwarnings("ignore:All-NaN slice")  # no redraw of the noise capability crosses at dc 0.6
def test_leads_by_both_timings_and_their_table():
    r = _sweep()
    r["disc"] = np.ones(r["probs"].shape[:5], bool)  # every sample is a disc
    lds = CM.leads(r, sustain=2, n_redraws=3)
    assert np.array_equal(lds.first.capability, CM.crossing_times(r).capability)
    assert np.allclose(lds.lead_first[0], 400) and lds.censored[1].all()
    assert np.allclose(lds.held.capability, lds.first.capability)  # the step stays up: held = first
    assert lds.noise_held.shape == (2, 3) and np.all(lds.onset == 0)
    table = P.leads_table(r, lds)
    assert table.count("\n") == 3 and "| 0.2 | 150 (150 to 150) |" in table
    with pytest.raises(ValueError, match="sustain"):
        CM.leads(r, sustain=0)


def test_noise_capability_is_a_max_over_binomial_redraws():
    rng = np.random.default_rng(0)
    beh = np.array([[[0.0, 0.3, 0.5, 1.0, np.nan]]])
    cap = CM.noise_capability(beh, 64, 8, rng)
    assert np.all(cap[..., :4] >= beh[..., :4]) and np.isnan(cap[..., 4])
    assert cap[..., 0] == 0 and cap[..., 3] == 1  # nothing to draw at 0 and 1
    big = CM.noise_capability(np.full((2000,), 0.5), 64, 8, rng)
    assert 0.55 < big.mean() < 0.65  # the best of 9 draws sits about 1.5 std above 0.5


def test_seed_std_and_the_spread_yardstick():
    cap = np.array([[[0, 1, 1], [0, 1, 1], [0, 1, 1]]], float)  # identical seeds
    beh = np.array([[[0, 0, 1], [0, 1, 1], [0, 0, 0]]], float)  # seeds disagree
    assert np.allclose(CSP.seed_std(cap), 0) and CSP.seed_std(beh)[0, 1] > 0.5
    assert np.isnan(CSP.seed_std(np.full((1, 1, 3), 0.5))).all()
    rng = np.random.default_rng(0)
    yard = CSP.spread_yardstick(np.full((2, 6, 4), 0.5), 64, 8, rng, n_redraws=5)
    assert yard.n_redraws == 5 and yard.capability_closer + yard.behaviour_closer <= 12
    assert yard.capability_closer == 0  # a behaviour equal in every run lies on its median
    with pytest.raises(ValueError, match="behaviour_curves"):
        CSP.spread_yardstick(np.zeros(3), 64, 8, rng)
    with pytest.raises(ValueError, match="rng"):
        CSP.spread_yardstick(np.zeros((1, 2, 3)), 64, 8, 0)


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
        CP.transition_step(steps[::-1], np.ones(4))


def test_loss_log_and_embedding_probes_on_the_sweep():
    r = _sweep()
    s, loss = CP.loss_log(r, "loss")
    assert s.shape == (100,) and loss.shape == (2, 3, 100)
    assert np.allclose(CP.transition_step(s, loss), 205)  # the loss halves its drop between 200 and 210
    ed = CP.embedding_disentanglement(r)
    assert ed[..., 0].max() < 0.1 and np.allclose(ed[..., -1], 1)


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
        s = CP.probe_score("x", t, times, n_perm=1000, seeding=seeding)
        assert s.n == 7
        assert s.p_value == pytest.approx(_brute_p(t, t_cap, seeding), abs=1e-9), seeding
    # the two units differ: shared seeds permute the seeds jointly, per-run runs on their own
    assert CP.probe_score("x", t, times, n_perm=1000).p_value != pytest.approx(
        CP.probe_score("x", t, times, n_perm=1000, seeding="per_run").p_value)
    with pytest.raises(ValueError, match="seeding"):
        CP.probe_score("x", t, times, seeding="independent")


def test_probe_score_does_not_score_a_probe_that_only_knows_the_separation():
    rng = np.random.default_rng(4)
    level = np.linspace(200, 1200, 4)[:, None]
    t_cap = level + rng.normal(0, 50, (4, 8))      # the separation sets most of the time
    knows_dc = np.repeat(level, 8, axis=1) + rng.normal(0, 50, (4, 8))  # only the separation
    times = CM.CrossingTimes(t_cap, t_cap + 100)
    for seeding in ("shared", "per_run"):
        s = CP.probe_score("dc", knows_dc, times, n_perm=500, seeding=seeding)
        assert s.r_capability > 0.9 and s.p_value > 0.05, (seeding, s)
        good = CP.probe_score("good", t_cap + rng.normal(0, 5, t_cap.shape), times, n_perm=500, seeding=seeding)
        assert good.p_value < 0.01, (seeding, good)


def test_probe_score_and_its_table():
    rng = np.random.default_rng(0)
    t_cap = rng.uniform(200, 1000, (6, 5))
    times = CM.CrossingTimes(t_cap, t_cap + 500)
    good = t_cap + rng.normal(0, 20, t_cap.shape)
    s = CP.probe_score("good", good, times, n_perm=200)
    assert s.r_capability > 0.95 and s.p_value < 0.01 and s.median_gap < 30 and s.n == 30
    flat = CP.probe_score("flat", np.full_like(t_cap, 300.0), times, n_perm=50)
    assert np.isnan(flat.r_capability) and np.isnan(flat.p_value)
    table = P.probe_table_pair([s, flat], [s, flat])
    assert table.count("\n") == 3 and "| flat | — |" in table
    with pytest.raises(ValueError, match="t_probe"):
        CP.probe_score("x", good[:2], times)
    with pytest.raises(ValueError, match="n_perm"):
        CP.probe_score("x", good, times, n_perm=0)
    with pytest.raises(ValueError, match="first and held"):
        P.probe_table_pair([s], [])


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

    from swingby.capability.explorer import capability_explorer, draw_capability_view

    r = _sweep()
    fig, ax = plt.subplots()
    P.plot_concept_memorization(r, ax)
    fig, axes = plt.subplots(1, 2)
    P.plot_capability_behaviour(r, axes)
    P.plot_seed_std(r, axes)
    P.plot_embedding_disentanglement(r, axes)
    fig, axes = plt.subplots(1, 2)
    r["disc"] = np.ones(r["probs"].shape[:5], bool)
    lds = CM.leads(r, sustain=2, n_redraws=2)
    P.plot_crossing_times_pair(r, lds, (None, CSP.linear_fit([1, 2, 3], [2, 4, 7])), axes)
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
    plt.close("all")
    with pytest.raises(ValueError, match="one Axes per colour separation"):
        P.plot_capability_behaviour(r, [ax])
    with pytest.raises(ValueError, match="dc_index"):
        P.plot_seed_panels(r, 9, axes_s)
    with pytest.raises(ValueError, match="three Axes"):
        P.plot_run_overview(r, 0, 0, [ax])
    with pytest.raises(ValueError, match="ax must"):
        P.plot_crossing_times_pair(r, lds, (None, None), [ax, None])
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


def test_final_mse_median_seed_and_count_phrase():
    m = CP.final_mse(_sweep())
    assert np.allclose(m[0], (0 + 0.01) / 2) and np.allclose(m[1], (0.49 + 0.01) / 2)
    assert CSP.median_seed(np.array([300.0, 100.0, np.inf, 200.0]), np.array([True, True, True, True])) == 3
    assert CSP.median_seed(np.array([300.0, 100.0, 50.0]), np.array([True, True, False])) == 1
    with pytest.raises(ValueError, match="times"):
        CSP.median_seed(np.array([np.inf, np.nan]), np.array([True, True]))
    assert [P.count_phrase(k) for k in (0, 1, 3)] == ["no run", "1 run", "3 runs"]
    assert P.count_phrase(2, "child", "children") == "2 children"
    with pytest.raises(ValueError, match="k must"):
        P.count_phrase(-1)


def _lead_sweep(D=2, S=5, n=32, K=12, P=8):
    """Capability (prompt 0, pure blue) from step 300 on, behaviour from 1500 on; before
    capability the pure-blue prompt draws big blue discs."""
    steps = [int(s) for s in np.round(np.linspace(0, np.sqrt(2400), K) ** 2)]
    r = _res(D=D, S=S, K=K, n=n, P=P)
    beh_on, cap_on = np.array(steps) >= 1500, np.array(steps) >= 300
    r["probs"][:, :, :, 3] = np.where(beh_on[None, None, :, None, None], 0.9, 0.1)
    r["cap_probs"][:, :, :, 0] = np.where(cap_on[None, None, :, None, None], 0.9, [1.0, 0.0])
    r["meta"] = {"checkpoint_steps": steps, "config": {"separations": [0.2, 0.3][:D], "seeds": list(range(S))}}
    return r


def test_blue_big_before_capability_and_the_plain_prompt():
    from swingby.capability import confirm as K
    r = _lead_sweep()
    steps = r["meta"]["checkpoint_steps"]
    t_cap = CM.first_crossing(steps, CM.capability(r), 0.5, sustain=3)
    bb = K.blue_big_before_capability(r, t_cap)
    assert bb.per_run.all() and not bb.null_per_run.any()
    r["probs"][:, :, :, 3] = np.where(np.array(steps)[None, None, :, None, None] < 300, [1.0, 0.0], 0.9)
    assert K.blue_big_before_capability(r, t_cap).null_per_run.all()  # the plain prompt does the same
    with pytest.raises(ValueError, match="t_cap"):
        K.blue_big_before_capability(r, t_cap[0])


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
