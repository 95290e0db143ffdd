"""Q1's diffusion contrast: swingby.open_questions.diffusion_init and
diffusion_init_runs. The design is fixed before its runs (fingerprint), the stored default run of a (separation, seed) is
the contrast run's counterpart, and runner, reader, answer rule and figure work end to
end on tiny sweeps (seconds) and on constructed outcomes."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from swingby.diffusion.presets import get_preset, run_seed  # noqa: E402
from swingby.diffusion.runs import driver as S  # noqa: E402
from swingby.diffusion.runs import position_search as PS  # noqa: E402
from swingby.diffusion.runs import storage as ST  # noqa: E402
from swingby.diffusion.runs.evaluation import classifier_path  # noqa: E402
from swingby.diffusion.sweep import results_path  # noqa: E402
from swingby.open_questions import diffusion_init as DI  # noqa: E402
from swingby.open_questions import diffusion_init_runs as DR  # noqa: E402
from swingby.open_questions.figures import plot_init_contrast  # noqa: E402
from swingby.open_questions.rules import OQ_RULES  # noqa: E402

#: the fingerprint of the design as committed before any of its runs
FROZEN_FINGERPRINT = "29a4d0ce789146e8"
QUIET = dict(progress=False, log=lambda m: None)
TINY = dict(steps=8, classifier_steps=5, seeding="per_run")


def test_the_design_is_fixed_before_the_runs_and_meets_the_issue():
    assert DI.fingerprint() == FROZEN_FINGERPRINT, (
        "the design of Q1's diffusion contrast changed: say so in book/open_questions_diffusion.md, then record "
        "the new fingerprint here")
    assert DI.INIT_SCALE == OQ_RULES.init_scales[-1] > 1  # the SIM part's largest multiplier
    assert DI.SEPARATIONS == (0.689, 0.247) and 0.2 <= DI.SEPARATIONS[1] <= 0.3
    assert 2 <= len(DI.SEEDS) <= 3 and len(DI.SEEDS) * len(DI.SEPARATIONS) <= 6
    p, cpu = DI.contrast_preset(), DI.BASE_PRESET
    assert p.init_scale == DI.INIT_SCALE and p.seeding == "per_run"
    assert set(p.separations) <= set(cpu.separations) and set(p.seeds) <= set(cpu.seeds)
    differ = {k for k in p.to_dict() if p.to_dict()[k] != cpu.to_dict().get(k)}
    assert differ == set(DI.VARIED)
    # per-run seeding: every contrast run draws the randomness of the stored run it is paired with
    assert all(run_seed(p, dc, s) == run_seed(cpu, dc, s) for dc in p.separations for s in p.seeds)
    assert DI.design()["criterion"] == PS.CRITERION


def test_the_scale_acts_inside_the_initial_network_whose_output_starts_at_zero():
    one = DI.initial_measures(get_preset("tiny", attention=True))
    three = DI.initial_measures(get_preset("tiny", attention=True, init_scale=3.0))
    assert one.output_max == three.output_max == 0.0
    assert three.attention_logit_std > 4 * one.attention_logit_std
    assert three.conditioning_share > 4 * one.conditioning_share
    assert np.isnan(DI.initial_measures(get_preset("tiny")).attention_logit_std)
    with pytest.raises(ValueError, match="p must be"):
        DI.initial_measures("cpu")
    with pytest.raises(ValueError, match="n"):
        DI.initial_measures(get_preset("tiny"), n=1)


@pytest.fixture(scope="module")
def default_sweep(tmp_path_factory):
    """A tiny 'stored default sweep' at the contrast's separations, seeds 0 and 1."""
    out = tmp_path_factory.mktemp("default")
    p = get_preset("tiny", separations=DI.SEPARATIONS, seeds=(0, 1), **TINY)
    return out, S.sweep(p, out_dir=out, **QUIET)


def test_a_stored_default_run_is_the_same_run_as_its_counterpart_made_alone(default_sweep, tmp_path):
    out, path = default_sweep
    alone = ST.load_results(S.sweep(get_preset("tiny", separations=(0.247,), seeds=(1,), **TINY),
                                    out_dir=out, **QUIET))
    full = ST.load_results(path)
    i, j = list(full["meta"]["config"]["separations"]).index(0.247), 1
    for key in ("pixels", "probs", "emb", "wnorm"):
        assert np.array_equal(alone[key][0, 0], full[key][i, j]), key


def test_run_and_read_a_tiny_contrast(default_sweep, tmp_path):
    out, dpath = default_sweep
    p = DI.contrast_preset("tiny", seeds=(0,), **TINY)
    path = DR.run_contrast(preset=p, out_dir=tmp_path, default_dir=out, **QUIET)
    assert path == results_path(tmp_path, p) and path.name.startswith("sweep_tiny-custom-")
    assert classifier_path(tmp_path, p).read_bytes() == classifier_path(out, p).read_bytes()
    assert DR.run_contrast(preset=p, out_dir=tmp_path, default_dir=out, **QUIET) == path  # finished: untouched
    c = DR.read_contrast(preset=p, out_dir=tmp_path, default_path=dpath)
    assert [(r["dc"], r["seed"]) for r in c.runs] == [(0.689, 0), (0.247, 0)]
    stored = {(r["dc"], r["seed"]): r for r in PS.run_outcomes(ST.load_results(dpath))}
    assert all(r["default"] == stored[r["dc"], r["seed"]] and r["larger"] is not None for r in c.runs)
    assert c.answer == DI.contrast_answer([r["default"] for r in c.runs], [r["larger"] for r in c.runs], (0,))
    assert c.answer.word in DI.ANSWERS and c.answer.word != "pending"
    assert c.codes[0] == c.codes[1] and c.classifiers[0] == c.classifiers[1]
    for default, larger in c.curves.values():
        assert default.shape == larger.shape == c.steps.shape
    assert c.curves[0.689, 0][0][-1] == stored[0.689, 0]["blue_small_11"]
    fig, axes = plt.subplots(1, 2)
    plot_init_contrast(axes, c)
    with pytest.raises(ValueError, match="axes"):
        plot_init_contrast(axes[:1], c)
    with pytest.raises(ValueError, match="contrast"):
        plot_init_contrast(axes, c._asdict())
    plt.close(fig)
    with pytest.raises(ValueError, match="out_dir: no larger"):
        DR.read_contrast(preset=p, out_dir=tmp_path / "none", default_path=dpath)
    with pytest.raises(ValueError, match="default_path: no stored"):
        DR.read_contrast(preset=p, out_dir=tmp_path, default_path=tmp_path / "none.npz")
    with pytest.raises(ValueError, match="default_path: .* not the default"):
        DR.read_contrast(preset=p, out_dir=tmp_path, default_path=path)  # the larger-init file itself


def test_an_unfinished_contrast_is_pending_and_a_foreign_default_is_refused(default_sweep, tmp_path):
    out, dpath = default_sweep
    p = DI.contrast_preset("tiny", seeds=(0,), **TINY)
    DR.run_contrast(preset=p, out_dir=tmp_path, default_dir=out, **QUIET)
    res = ST.load_results(results_path(tmp_path, p))
    res["done"][1, 0] = False  # as if the run at dc 0.247 were still training
    larger = PS.run_outcomes(res)
    assert [(r["dc"], r["seed"]) for r in larger] == [(0.689, 0)]
    default = [r for r in PS.run_outcomes(ST.load_results(dpath)) if r["seed"] == 0]
    assert DI.contrast_answer(default, larger, (0,)).word == "pending"
    other = get_preset("tiny", separations=DI.SEPARATIONS, seeds=(0,), **{**TINY, "steps": 9})
    with pytest.raises(ValueError, match="default_path: .* not the default"):
        DR.read_contrast(preset=p, out_dir=tmp_path, default_path=S.sweep(other, out_dir=tmp_path / "o", **QUIET))


def _run(dc, seed, ok=True):
    return {"dc": dc, "seed": seed, "disc": [0.99] * 3 + [1.0], "blue_small_11": 0.9 if ok else 0.1,
            "clf_blue_small_11": 0.9 if ok else 0.1, "last3_11": [0.9] * 3, "minutes": 1.0}


def _runs(ok):
    """Runs at both separations for the seeds in ``ok`` (seed -> passes)."""
    return [_run(dc, s, v) for s, v in ok.items() for dc in DI.SEPARATIONS]


@pytest.mark.parametrize("default, larger, word, passing", [
    ({0: 1, 1: 1, 2: 1}, {0: 1, 1: 1, 2: 1}, "holds", (0, 1, 2)),
    ({0: 1, 1: 1, 2: 1}, {0: 0, 1: 0, 2: 0}, "does not hold", ()),
    ({0: 1, 1: 1, 2: 1}, {0: 1, 1: 0, 2: 1}, "depends on the seed", (0, 2)),
    ({0: 1, 1: 0, 2: 1}, {0: 1, 1: 0, 2: 1}, "holds", (0, 2)),  # seed 1 is no reference
    ({0: 0, 1: 0, 2: 0}, {0: 1, 1: 1, 2: 1}, "undecided", ()),
    ({0: 1, 1: 1, 2: 1}, {0: 1, 1: 1}, "pending", (0, 1)),
])
def test_every_branch_of_the_answer(default, larger, word, passing):
    ans = DI.contrast_answer(_runs(default), _runs(larger))
    assert ans.word == word and ans.passing == passing and ans.n_seeds == 3
    assert ans.reference == tuple(s for s, v in default.items() if v)


def test_the_criterion_is_the_position_search_s_per_seed():
    runs = _runs({0: 1})
    assert DI.seed_passes(runs, (0,)) == {0: True}
    runs[0] = {**runs[0], "clf_blue_small_11": 0.79}  # dc 0.689: the classifier below 80 %
    assert DI.seed_passes(runs, (0,)) == {0: False}
    weak = _runs({0: 1})
    weak[1] = {**weak[1], "blue_small_11": 0.0}  # class 11 at the weak separation is not judged
    assert DI.seed_passes(weak, (0,)) == {0: True}
    weak[1] = {**weak[1], "disc": [0.9, 1, 1, 1]}  # ... its trained classes are
    assert DI.seed_passes(weak, (0,)) == {0: False}
    assert DI.seed_passes(_runs({0: 1})[:1], (0,)) == {0: None}
    ans = DI.contrast_answer(_runs({0: 0, 1: 1}), _runs({0: 1, 1: 1}), (0, 1))
    assert ans.word == "holds" and ans.other == (0,)  # passes where the default fails: shown, not judged


def test_bad_arguments_name_the_argument(tmp_path):
    with pytest.raises(ValueError, match="default_runs"):
        DI.contrast_answer("runs", _runs({0: 1}), (0,))
    with pytest.raises(ValueError, match="larger_runs"):
        DI.contrast_answer(_runs({0: 1}), [{"dc": 0.689}], (0,))
    with pytest.raises(ValueError, match="default_runs: the stored default sweep lacks"):
        DI.contrast_answer(_runs({0: 1}), _runs({0: 1, 1: 1}), (0, 1))
    with pytest.raises(ValueError, match="seeds"):
        DI.contrast_answer(_runs({0: 1}), _runs({0: 1}), ())
    with pytest.raises(ValueError, match="seeds"):
        DI.contrast_answer(_runs({0: 1}), _runs({0: 1}), (-1,))
    with pytest.raises(ValueError, match="overrides"):
        DI.contrast_preset(init_scale=2.0)
    with pytest.raises(ValueError, match="preset must be"):
        DR.read_contrast(preset="cpu", out_dir=tmp_path)


def test_the_results_live_under_the_open_questions_results(tmp_path, monkeypatch):
    monkeypatch.setenv("SWINGBY_RESULTS", str(tmp_path))
    assert DR.contrast_dir() == tmp_path / "open_questions" / "diffusion_init"
    with pytest.raises(ValueError, match="python -m swingby.open_questions diffusion-init"):
        DR.read_contrast()


def test_the_command_runs_the_contrast_and_takes_no_only(monkeypatch, capsys):
    from swingby.open_questions import __main__ as M

    calls = []
    monkeypatch.setattr(DR, "run_contrast", lambda: calls.append("run") or "the-file")

    def unreadable():
        raise ValueError("default_path: not yet")
    monkeypatch.setattr(DR, "read_contrast", unreadable)
    assert M.main(["diffusion-init"]) == 0 and calls == ["run"]
    assert "cannot be read yet" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        M.main(["diffusion-init", "--only", "init"])
