"""The figures of the diffusion chapter that read the registered checks
(swingby.diffusion.fig6.plots) on a synthetic sweep whose runs swing (or not) by
construction, the explorer's answers and the counts in words of its glued sentences."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from swingby.diffusion.fig6 import plots as DP  # noqa: E402
from swingby.diffusion.fig6.analysis import counted  # noqa: E402
from swingby.diffusion.fig6.confirm import swing  # noqa: E402
from swingby.diffusion.fig6.explorer import lean  # noqa: E402
from swingby.diffusion.readouts import run_paths  # noqa: E402

STEPS = np.round(np.linspace(1, 50, 30) ** 2).astype(int)


def _sweep(rng, S=3, n=16):
    """Two separations (one weak, one strong), ``S`` runs each: at the weak one class 11's
    P(blue) dips to 0.05 and recovers in runs 0 and 1 and rises straight in run 2."""
    K = STEPS.size
    t = np.linspace(0, 1, K)
    probs = np.zeros((2, S, K, 4, n, 2))
    for i in range(2):
        for s in range(S):
            dip = i == 0 and s < 2
            blue = np.where(t < 0.5, 0.5 - 0.9 * t, 0.05 + 1.8 * (t - 0.5)) if dip else 0.3 + 0.65 * t
            small = np.clip(2 * t, 0, 0.95)
            for c in range(4):
                p = np.stack([blue, small], -1)[:, None, :] + rng.normal(0, 0.02, (K, n, 2))
                probs[i, s, :, c] = np.clip(p, 0, 1)
    return {"probs": probs, "thumbs": np.zeros((2, S, K, 4, 2, 3, 8, 8), np.uint8),
            "disc": np.ones((2, S, K, 4 * n), bool),
            "meta": {"config": {"separations": [0.175, 0.689], "seeds": list(range(S))},
                     "checkpoint_steps": STEPS.tolist()}}


def test_plot_weak_runs_draws_each_weak_run_with_its_check():
    res = _sweep(np.random.default_rng(0))
    rp = run_paths(res)
    passed = [swing(*rp.run(0, s)[1:]).passed for s in range(3)]
    assert passed == [True, True, False]
    fig, axes = plt.subplots(2, 1, squeeze=False)
    DP.plot_weak_runs(res, axes)
    solid = [ln for ln in axes[0, 0].lines if ln.get_linestyle() == "-" and len(ln.get_xdata()) > 1]
    dotted = [ln for ln in axes[0, 0].lines if ln.get_linestyle() == ":" and len(ln.get_xdata()) > 1]
    assert len(solid) == 2 and len(dotted) == 1
    assert axes[0, 0].get_title() == "dc = 0.175"
    plt.close("all")


def test_plot_weak_runs_refuses_axes_of_the_wrong_shape():
    res = _sweep(np.random.default_rng(1))
    fig, axes = plt.subplots(1, 2, squeeze=False)
    with pytest.raises(ValueError, match="axes must be a \\(2, 1\\)"):
        DP.plot_weak_runs(res, axes)
    with pytest.raises(ValueError, match="design"):
        DP.plot_weak_runs(res, np.empty((2, 1), object), design=None)
    strong_only = dict(res, meta={**res["meta"], "config": {"separations": [0.6, 0.689], "seeds": [0, 1, 2]}})
    with pytest.raises(ValueError, match="weak_max_dc"):
        DP.plot_weak_runs(strong_only, axes)
    plt.close("all")


def test_plot_run_speeds_draws_a_line_and_a_floor_per_run():
    from swingby.claims.diffusion import DESIGN
    from swingby.diffusion.fig6.confirm import slowing

    res = _sweep(np.random.default_rng(3))
    rp = run_paths(res)
    mid, speed, level = DP.run_speeds(*rp.run(0, 0))
    assert mid.size == speed.size == level.size == STEPS.size // DESIGN.sustain - 1
    assert np.isfinite(slowing(*rp.run(0, 0)).ratio)
    ax = DP.plot_run_speeds(res, ax=plt.figure().gca())
    assert len(ax.lines) == 2 * 2 * 3  # a speed and a moving level per run
    labels = ax.get_legend_handles_labels()[1]
    assert labels[0].endswith("(moving above it)") and len(labels) == 3
    plt.close("all")


def test_explorer_answers():
    t = lean([0.1, 0.9], 0.3, "01")
    assert "looks like red small (class 01): its P(small) exceeds its P(blue) by 0.80" in t
    assert "still reddish" in t
    t = lean([0.6, 0.4], 0.8, "10")
    assert "P(blue) exceeds its P(small) by 0.20, less than" in t and "it is blue" in t
    with pytest.raises(ValueError, match="toward"):
        lean([0.1, 0.9], 0.3, "11")


def test_counted_reads_well_for_any_count():
    assert counted(0, "run") == "no run"
    assert counted(1, "run") == "one run"
    assert counted(3, "run") == "3 runs"
    assert counted(1, "percentage point") == "one percentage point"
    assert counted(0, "run", verb=("has", "have")) == "no run has"
    assert counted(2, "run", verb=("has", "have")) == "2 runs have"
    with pytest.raises(ValueError, match="k"):
        counted(-1, "run")
    with pytest.raises(ValueError, match="verb"):
        counted(2, "run", verb="has")
