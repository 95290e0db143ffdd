"""The position search at 4800 steps: its criterion on confidence intervals, its cost
rules and its choice, fixed in code before its runs; and a tiny run end to end."""
from __future__ import annotations

import json

import pytest

from swingby.diffusion.runs import long_search as LS
from swingby.diffusion.runs import storage as ST

N = 160  #: samples per class and run (the last checkpoint and four final draws of 32)


def _run(dc, seed, disc=0.99, clf=0.9, pix=0.9):
    return {"dc": dc, "seed": seed, "n": N, "disc": [round(disc * N)] * 3 + [N], "blue_small_11_clf": round(clf * N),
            "blue_small_11_pix": round(pix * N), "last3_11": [0.9] * 3, "minutes": 4.0}


def _all(**bad):
    runs = [_run(dc, s) for dc in (LS.DECISIVE_DC, LS.WEAK_DC) for s in LS.SEEDS]
    if bad:
        runs[0] = _run(LS.DECISIVE_DC, LS.SEEDS[0], **bad)
    return runs


def test_the_criterion_reads_lower_confidence_bounds_of_pooled_shares():
    j = LS.judge_candidate(_all(), N)
    assert j["passes"] and j["decided"] and j["complete"]
    assert all(0.95 < b < 0.99 for bs in j["disc_bounds"].values() for b in bs)
    assert not LS.judge_candidate(_all(disc=0.8), N)["passes"]  # pooled 0.895: its bound is below 0.9
    assert not LS.judge_candidate(_all(clf=0.45), N)["passes"]  # one run's class 11 below one half


def test_a_candidate_is_decided_early_only_when_no_runs_to_come_can_save_it():
    one = [_run(LS.DECISIVE_DC, LS.SEEDS[0])]
    assert not LS.judge_candidate(one, N)["decided"]
    assert LS.judge_candidate([_run(LS.DECISIVE_DC, LS.SEEDS[0], disc=0.5)], N)["decided"]
    assert LS.judge_candidate([_run(LS.DECISIVE_DC, LS.SEEDS[0], clf=0.3)], N)["decided"]


def _row(name, passes=True, decided=True, clf=0.8, minutes=4.0):
    over = dict(LS.candidate_overrides(name, []) if name != LS.CANDIDATES[2][0] else {"sample_steps": 100})
    return {"name": name, "runs": [{"minutes": minutes}], "complete": decided, "decided": decided, "passes": passes,
            "overrides": over, "position": over.get("position", LS.BASE["position"]), "blue_small_11_clf": clf}


def test_the_choice_waits_for_pending_candidates_then_takes_the_widest_that_passes():
    names = [c[0] for c in LS.CANDIDATES]
    rows = [_row(names[0], clf=0.8), _row(names[1], clf=0.85)]
    state = LS.choose(rows)
    assert state["chosen"] is None and state["pending"] == [names[2]]
    assert set(state["skipped"]) == {"spread 0.25", "spread 0.1"}  # narrower than a candidate that passed
    state = LS.choose(rows + [_row(names[2], passes=False)])
    assert state["chosen"] == names[1] and state["eligible"] == [names[1], names[0]]
    none = [_row(n, passes=False) for n in names]
    assert LS.choose(none)["chosen"] == LS.FALLBACK
    narrow = [_row(n, passes=n == "spread 0.25") for n in names[:4]]
    assert LS.choose(narrow)["chosen"] == "spread 0.25" and LS.choose(narrow)["skipped"] == ["spread 0.1"]


def test_the_100_step_candidate_takes_the_better_models_settings():
    rows = [_row("two blocks per level", clf=0.7), _row("slower lr and EMA", clf=0.9)]
    assert LS.best_of(rows) == "slower lr and EMA"
    assert LS.candidate_overrides("best + 100 sampling steps", rows) == {"lr": 1e-3, "ema": 0.999, "sample_steps": 100}
    assert LS.best_of(rows[:1]) is None
    with pytest.raises(ValueError, match="decided first"):
        LS.candidate_overrides("best + 100 sampling steps", rows[:1])
    with pytest.raises(ValueError, match="name"):
        LS.candidate_preset("wider")


def test_the_sweep_design_is_the_issue_s():
    assert LS.SWEEP["steps"] == 4800 and LS.SWEEP["n_checkpoints"] >= 64 and len(LS.SWEEP["seeds"]) >= 8
    assert LS.SWEEP["seeding"] == "per_run" and len(LS.SWEEP["separations"]) == 4
    used = {0, 1, 2, 3, 4, 5, 6, 7, *LS.SEEDS}  # the earlier sweeps' and the searches' labels
    assert not used & set(LS.SWEEP["seeds"])


TINY = dict(image_size=8, widths=(8, 8, 8), n_res=1, attention=False, steps=8, batch=8, n_per_class=16,
            classifier_steps=5, classifier_width=8, sample_steps=2, samples_per_class=4, n_thumbs=1,
            n_loss_records=4, n_checkpoints=3, workers=1)


def test_a_tiny_search_runs_stops_and_stores_its_table(tmp_path, monkeypatch):
    monkeypatch.setenv("SWINGBY_RESULTS", str(tmp_path))  # the results folder: the search goes to its diffusion/
    out = tmp_path / "diffusion"
    monkeypatch.setattr(LS, "BASE", {**LS.BASE, **TINY})
    rows = LS.run_search(only=["two blocks per level"], progress=False)
    assert [r["name"] for r in rows] == ["two blocks per level"] and rows[0]["decided"]
    assert not rows[0]["passes"]  # eight steps draw no discs
    assert len(rows[0]["runs"]) < 4  # decided by its first run: the others were not trained
    assert not (LS.search_dir() / "partial").exists()
    assert LS.search_dir() == out / "search-4800"
    doc = json.loads((out / "search-4800.json").read_text())
    assert doc["criterion"] == LS.CRITERION and doc["state"]["pending"][0] == "slower lr and EMA"
    res = ST.load_results(out / "search-4800" / rows[0]["file"])
    assert res["disc"].dtype == bool and res["rep_disc"].shape[2] == 4
    assert set(res["meta"]["claims_fingerprints"]) == {"diffusion", "capability"}


def test_the_precision_check_summary_reads_both_designs():
    from swingby.diffusion.runs import precision_check as PC

    stored = json.loads((ST.results_dir() / "precision_check.json").read_text())
    s = PC.summary(stored)
    assert s["first"]["ratio_sd"] > 1 > s["first"]["ratio_pairs"]  # the first design's story, both ways
    assert s["second"]["ratio_pairs"] == pytest.approx(stored["second"]["max_ratio"])
    assert s["blue_small_shift"]["low"] < s["blue_small_shift"]["mean"] < s["blue_small_shift"]["high"]
    with pytest.raises(ValueError, match="stored"):
        PC.summary({"first": stored["first"]})
    with pytest.raises(ValueError, match="design"):
        PC.run_check("third")
