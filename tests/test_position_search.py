"""Issue 21: independent randomness per run, run states kept beside the results until a
run finishes, and the position search's criterion fixed in code before its runs."""
from __future__ import annotations

import pytest

from swingby.diffusion import rules
from swingby.diffusion import sweep as SP
from swingby.diffusion.presets import get_preset, run_seed
from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import position_search as PS
from swingby.diffusion.runs import storage as ST

QUIET = dict(progress=False, log=lambda m: None)


def test_shared_seeding_is_the_seed_and_per_run_seeding_is_independent_per_pair():
    shared, per_run = get_preset("tiny"), get_preset("tiny", seeding="per_run")
    assert run_seed(shared, 0.2, 3) == run_seed(shared, 0.6, 3) == 3
    seeds = {run_seed(per_run, dc, s) for dc in (0.137, 0.247, 0.689) for s in range(8)}
    assert len(seeds) == 24 and all(0 <= x < 2 ** 31 for x in seeds)
    assert run_seed(per_run, 0.247, 1) == run_seed(per_run, 0.247, 1)  # reproducible


@pytest.mark.parametrize("dc, seed", [(-0.1, 0), (1.5, 0), (float("nan"), 0), (0.2, -1), (0.2, 1.0), (0.2, True)])
def test_run_seed_refuses_bad_arguments(dc, seed):
    with pytest.raises(ValueError, match="dc|seed"):
        run_seed(get_preset("tiny"), dc, seed)


def test_seeding_is_checked_and_stored_only_when_not_the_old_default():
    with pytest.raises(ValueError, match="seeding must be one of"):
        get_preset("tiny", seeding="independent")
    assert "seeding" not in get_preset("tiny").to_dict()  # older stored configs stay unchanged
    assert get_preset("tiny", seeding="per_run").to_dict()["seeding"] == "per_run"


def test_a_finished_sweep_leaves_no_run_state_and_records_its_rules_and_unit(tmp_path):
    p = get_preset("tiny", separations=(0.5,), steps=8, classifier_steps=5, seeding="per_run")
    res = ST.load_results(S.sweep(p, out_dir=tmp_path, **QUIET))
    assert res["meta"]["finished"] and not (tmp_path / "partial").exists()
    assert res["meta"]["rules_fingerprint"] == rules.fingerprint() and res["meta"]["independent_unit"] == "run"
    assert SP.partial_dir(tmp_path, p).parent == tmp_path / "partial"


def _run(dc, seed, c11=0.9, clf11=0.9, disc=0.99, last3=(0.9, 0.9, 0.9)):
    return {"dc": dc, "seed": seed, "disc": [disc] * 3 + [1.0], "blue_small_11": c11, "clf_blue_small_11": clf11,
            "last3_11": list(last3), "minutes": 1.0}


def _all(**bad):
    runs = [_run(dc, s) for dc in (PS.DECISIVE_DC, PS.WEAK_DC) for s in PS.SEEDS]
    if bad:
        runs[0] = _run(PS.DECISIVE_DC, PS.SEEDS[0], **bad)
    return runs


def test_the_criterion_holds_only_in_every_seed():
    assert PS.passes(_all())["passes"]
    assert not PS.passes(_all(c11=0.79))["passes"]  # one seed's class 11 below 80 % by the pixels
    assert not PS.passes(_all(clf11=0.79))["passes"]  # ... or by the classifier
    assert not PS.passes(_all(disc=0.94))["passes"]  # one trained class below 95 % discs
    assert not PS.passes(_all()[1:])["passes"]  # a missing run: unfinished, not a pass
    r = PS.passes(_all(last3=(0.5, 0.9, 0.9)))
    assert r["passes"] and not r["settled"]  # settling is reported, not judged


def test_every_candidate_is_one_code_version_and_differs_from_the_base_only_where_named():
    base = PS.candidate_preset("authors' positions")
    assert base.seeding == "per_run" and base.separations == (PS.DECISIVE_DC, PS.WEAK_DC) and base.seeds == PS.SEEDS
    assert 0.2 <= PS.WEAK_DC <= 0.3 and len(PS.SEEDS) >= 2
    for name, _, over in PS.CANDIDATES:
        p = PS.candidate_preset(name)
        changed = {k for k in p.to_dict() if p.to_dict()[k] != base.to_dict()[k]}
        assert changed == {k for k, v in over.items() if base.to_dict()[k] != (list(v) if isinstance(v, tuple) else v)}
    with pytest.raises(ValueError, match="candidate must be one of"):
        PS.candidate_preset("huge")


def test_the_new_sweep_is_fixed_before_the_data_and_meets_the_issue():
    p = PS.sweep_preset("centred")
    assert len(p.seeds) >= 8 and p.seeding == "per_run" and p.n_checkpoints >= 48
    assert sum(0.2 <= dc <= 0.7 for dc in p.separations) >= 3 and len(p.separations) >= 4
    assert p.steps == 2400 and p.position == 0.0
    row = {"name": "centred", "runs": [{"minutes": 6.9}], "complete": True, "passes": False, "decided": True}
    assert PS.choose([row])["hours"] == {"centred": pytest.approx(32 * 2 * 6.9 / 60)}


def test_a_candidate_is_decided_early_only_by_a_finished_run_that_fails():
    """The cost rule: unfinished runs are skipped only when a finished one already fails
    the criterion (no other run can then change the verdict)."""
    seed0 = [r for r in _all() if r["seed"] == PS.SEEDS[0]]
    assert not PS.passes(seed0)["decided"]  # seed 0 passes: seed 1 must still run
    failing = [_run(PS.DECISIVE_DC, PS.SEEDS[0], c11=0.16), _run(PS.WEAK_DC, PS.SEEDS[0])]
    r = PS.passes(failing)
    assert r["decided"] and not r["passes"] and not r["complete"]
    assert PS.passes([_run(PS.WEAK_DC, PS.SEEDS[0], disc=0.7)])["decided"]  # a trained class fails anywhere
    assert PS.passes(_all())["decided"] and PS.passes(_all(c11=0.5))["decided"]  # complete: decided
    row = {"name": "x", "what": "y", "runs": failing, **r}
    assert "no (decided early)" in PS.table([row])


def test_the_figure_shows_the_dose_response_first_and_refuses_foreign_rows():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from swingby.diffusion.position_plots import display_order, dose_names, plot_position_search

    dose = dose_names()
    assert dose[0] == "centred" and dose[-1] == "authors' positions"  # from the centre outwards
    positions = [PS.candidate_preset(n).position for n in dose]
    assert positions == sorted(positions) and len(set(positions)) == len(dose)
    assert sorted(display_order()) == sorted(n for n, _, _ in PS.CANDIDATES)
    assert display_order()[: len(dose)] == dose
    rows = [{"name": "centred", "runs": _all()}]
    fig, axes = plt.subplots(1, 2)
    plot_position_search(rows, axes)
    # one marker per run on the right, per run plus the classifier at dc 0.689 on the left
    assert len([ln for ln in axes[1].lines if ln.get_xydata().size == 2]) == len(_all())
    assert "(not run)" in axes[0].get_xticklabels()[-1].get_text()
    with pytest.raises(ValueError, match="unknown candidate"):
        plot_position_search([{"name": "huge", "runs": []}], axes)
    with pytest.raises(ValueError, match="rows must be"):
        plot_position_search("centred", axes)
    with pytest.raises(ValueError, match="axes must be two"):
        plot_position_search(rows, axes[0])
    plt.close(fig)


def _row(name, runs, minutes=1.0):
    runs = [{**r, "minutes": minutes} for r in runs]
    return {"name": name, "runs": runs, **PS.passes(runs)}


def test_the_choice_takes_the_widest_passing_candidate_that_fits_the_budget():
    rows = [_row("centred", _all()), _row("spread 0.1", _all()), _row("spread 0.25", _all(c11=0.5))]
    c = PS.choose(rows)
    assert c["chosen"] == "spread 0.1" and c["eligible"] == ["spread 0.1", "centred"]
    assert "spread 0.25" not in c["eligible"] and "wider" in c["pending"] and "spread 0.1" not in c["pending"]
    # a wider passing candidate whose sweep is over the budget is not eligible
    over = 60 * PS.SWEEP_BUDGET_HOURS / (len(PS.SWEEP["separations"]) * len(PS.SWEEP["seeds"])
                                        * PS.SWEEP_RUN_PER_SEARCH_RUN) * 1.01
    c = PS.choose(rows + [_row("authors' positions", _all(), minutes=over)])
    assert c["chosen"] == "spread 0.1" and "authors' positions" not in c["eligible"]
    c = PS.choose(rows + [_row("authors' positions", _all(), minutes=0.99 * over)])
    assert c["chosen"] == "authors' positions"
    assert PS.choose([_row("centred", _all(c11=0.1))])["chosen"] is None
    with pytest.raises(ValueError, match="rows must be"):
        PS.choose("centred")


def test_the_stored_candidates_choose_the_chosen_one_and_the_new_sweep_is_its_preset():
    c = PS.choose(PS.collect())
    assert c["chosen"] == PS.CHOSEN
    p = PS.sweep_preset(PS.CHOSEN)
    assert p.position == PS.candidate_preset(PS.CHOSEN).position and p.seeds == PS.SWEEP["seeds"]


def test_the_cpu_preset_is_the_confirmatory_sweep_of_the_long_search_s_choice():
    """The ``cpu`` preset is the confirmatory sweep of the 4800-step search's choice, so
    the chapters read it (and the stored file's config is checked against it); the first
    search's sweep is kept, under its own name, as the open questions' default runs."""
    from swingby.diffusion.runs import long_search as LS
    from swingby.open_questions import diffusion_init as DI

    assert get_preset("cpu") == LS.sweep_preset(LS.choose(LS.collect())["chosen"])
    assert SP.results_path(ST.results_dir(), get_preset("cpu")).name == "sweep_cpu.npz"
    assert PS.sweep_preset(PS.CHOSEN) == DI.BASE_PRESET


def test_new_sweep_refuses_only(capsys):
    from swingby.diffusion.runs import cli

    with pytest.raises(SystemExit):
        cli.main(["position-search", "--new-sweep", "--only", "centred"])
    assert "leave out --only" in capsys.readouterr().err


def test_init_scale_scales_the_weights_only_and_is_stored_only_when_not_one():
    """Issue 27 Q1's diffusion contrast: a larger initialisation multiplies every weight
    matrix and kernel (not biases or norms), draws no randomness, and leaves the config
    of every earlier file unchanged (stored only when it is not 1)."""
    import torch

    from swingby.diffusion.training import Run

    p, q = get_preset("tiny"), get_preset("tiny", init_scale=3.0)
    a, b = Run(p, 0, torch.device("cpu")), Run(q, 0, torch.device("cpu"))
    n_scaled = 0
    for wa, wb in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(wb, wa * 3 if wa.dim() >= 2 else wa)
        n_scaled += wa.dim() >= 2
    assert n_scaled > 0 and torch.equal(a.gen.get_state(), b.gen.get_state())
    assert "init_scale" not in p.to_dict() and q.to_dict()["init_scale"] == 3.0
    for bad in (0, -1.0, float("nan"), 1000.0, "2"):
        with pytest.raises(ValueError, match="init_scale"):
            get_preset("tiny", init_scale=bad)


def test_the_conclusion_is_read_from_the_candidates_and_says_what_is_not_run():
    from swingby.diffusion.position_plots import search_conclusion

    rows = [_row("centred", _all()), _row("spread 0.1", _all()), _row("authors' positions", _all(c11=0.2)),
            _row("wider", _all(c11=0.3, disc=0.8))]
    text = search_conclusion(rows, PS.choose(rows))
    assert "by centred, spread 0.1; not by authors' positions" in text
    assert "1 has run and none passed" in text and "Not run yet:" in text and "two blocks per level" in text
    assert "not a finding" in text and "**spread 0.1**" in text
    done = rows + [_row(n, _all(c11=0.1)) for n in ("32 x 32", "spread 0.25", "two blocks per level",
                                                   "paper's batch")]
    text = search_conclusion(done, PS.choose(done))
    assert "Not run yet" not in text and "no model tried within the CPU budget" in text
    close = [r if r["name"] != "paper's batch" else _row("paper's batch", _all(disc=0.8)) for r in done]
    assert "Closest: paper's batch" in search_conclusion(close, PS.choose(close))
    # a larger model that passes but whose sweep is over the budget is named, not chosen
    slow = [r if r["name"] != "wider" else _row("wider", _all(), minutes=60.0) for r in done]
    text = search_conclusion(slow, PS.choose(slow))
    assert "wider passed" in text and "over the budget" in text and "**spread 0.1**" in text
    with pytest.raises(ValueError, match="choice must be"):
        search_conclusion(rows, {})
