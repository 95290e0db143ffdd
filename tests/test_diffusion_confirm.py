"""The registered diffusion and capability checks on synthetic data where the answer is
known, their wrong models, their registers and their bad input."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from swingby import verdicts
from swingby.capability import confirm as CC
from swingby.claims import capability as RC
from swingby.claims import diffusion as RD
from swingby.diffusion import data as D
from swingby.diffusion import readouts as RO
from swingby.diffusion.fig6 import confirm as C
from swingby.diffusion.fig6 import confirm_nulls as N

DESIGN = RD.DESIGN
STORED = Path(__file__).resolve().parents[1] / "results" / "diffusion" / "sweep_cpu.npz"
T = np.round(np.linspace(5, 50, 40) ** 2)  # steps evenly spaced in sqrt(step), as the sweep's
NOISE = np.array([0.02, 0.02])


def _path(blue, small):
    return np.stack([blue, small], axis=1)


def _noisy(p, seed=0, sd=0.02):
    return np.clip(p + np.random.default_rng(seed).normal(0, sd, p.shape), 0, 1)


# ----------------------------------------------------------------------------- pixel test
@pytest.mark.parametrize("size, position", [(16, 0.1), (16, 0.5), (32, 0.5)])
def test_the_data_discs_are_discs(size, position):
    rng = np.random.default_rng(0)
    for dc in (0.175, 0.689):
        cfg = D.CirclesConfig(image_size=size, dc=dc, position=position)
        for cls in D.CLASSES:
            x = D.render(cfg, D.sample_attributes(cfg, cls, 60, rng), rng)
            assert RO.disc_test(np.asarray(x)).is_disc.all(), (size, position, dc, cls)


def test_noise_images_are_not_discs():
    rng = np.random.default_rng(1)
    for x in (rng.uniform(0, 1, (300, 3, 16, 16)), np.clip(rng.normal(0.5, 0.3, (300, 3, 16, 16)), 0, 1),
              np.clip(0.9 + rng.normal(0, 0.3, (300, 3, 32, 32)), 0, 1)):
        assert not RO.disc_test(x).is_disc.any()


def test_disc_onset_needs_a_sustained_share():
    ok = np.zeros(10, bool)
    ok[3] = True                      # one checkpoint of discs is not an onset
    ok[5:] = True
    assert RO.sustained(ok, DESIGN.sustain) == 5
    assert RO.sustained(np.zeros(10, bool), DESIGN.sustain) == 10


def test_noise_level_and_window_means():
    rng = np.random.default_rng(2)
    x = np.linspace(0, 1, 400) + rng.normal(0, 0.05, 400)
    assert 0.04 < RO.noise_level(x, np.full(400, 0.01)) < 0.06
    m, se = RO.window_means(np.arange(6.0), 0.3, 3)
    np.testing.assert_allclose(m, [1, 2, 3, 4])
    assert se == pytest.approx(0.3 / np.sqrt(3))


# ----------------------------------------------------------------------------- Fig. 6(a), (b)
def _swinging():
    x = np.linspace(0, 1, T.size)
    blue = 0.4 - 0.35 * np.exp(-((x - 0.35) / 0.12) ** 2) + 0.5 * (x > 0.6) * (x - 0.6) / 0.4
    return _path(np.clip(blue, 0, 1), np.clip(0.3 + 2 * x, 0, 1))


def test_a_swinging_path_passes_and_a_monotone_one_fails():
    assert C.swing(_noisy(_swinging()), NOISE).passed
    mono = _path(np.linspace(0.4, 0.9, T.size), np.linspace(0.3, 1, T.size))
    assert not C.swing(_noisy(mono), NOISE).passed
    assert not C.swing(_noisy(_swinging()), np.array([0.3, 0.02])).passed   # the dip within the noise
    high = dataclasses.replace(DESIGN, swing_min=0.9)                       # the design is read
    assert not C.swing(_swinging(), NOISE, high).passed


def test_mse_bump_rises_then_falls():
    x = np.linspace(0, 1, T.size)
    away_then_back = _path(np.clip(0.5 - 0.4 * np.sin(np.pi * x), 0, 1), np.full(T.size, 0.9))
    assert C.mse_bump(_noisy(away_then_back), NOISE).passed
    assert not C.mse_bump(_noisy(_path(0.5 + 0.5 * x, 0.5 + 0.5 * x)), NOISE).passed


def test_first_concept_from_class_11s_own_coordinates():
    x = np.linspace(0, 1, T.size)
    assert C.first_concept(_path(x, np.clip(3 * x, 0, 1))) == "size"
    assert C.first_concept(_path(np.clip(3 * x, 0, 1), x)) == "colour"
    assert C.first_concept(_path(0.1 * x, 0.2 * x)) == "neither"
    blip = _path(np.where(np.arange(T.size) == 3, 0.9, 0.1), np.clip(2 * x, 0, 1))
    assert C.first_concept(blip) == "size"          # one checkpoint above the level is not a crossing


# ----------------------------------------------------------------------------- Fig. 6(c)
def _exponential(rate=1 / 400):
    f = 1 - np.exp(-rate * (T - T[0]))
    return _path(0.2 + 0.6 * f, 0.3 + 0.5 * f)


def test_an_exponential_slowing_passes_and_a_stop_fails():
    assert C.slowing(T, _exponential(), np.array([0.002, 0.002])).passed
    stop = N.stop_paths(T, _exponential(), np.zeros(2), 1, np.random.default_rng(0))[0]
    s = C.slowing(T, stop, np.array([0.002, 0.002]))
    assert s.drop and not s.graded and not s.passed


def test_a_linear_logit_that_does_not_saturate_is_not_slowing():
    y = -1 + 2 * (T - T[0]) / (T[-1] - T[0])          # logit -1 .. 1: p in (0.27, 0.73)
    p = 1 / (1 + np.exp(-y))
    assert not C.slowing(T, _path(p, p), np.array([0.002, 0.002])).logit_drop


def test_wrong_models_have_their_shapes():
    rng = np.random.default_rng(3)
    mono = N.monotone_paths(T, _swinging(), np.zeros(2), 20, rng)
    assert np.all(np.diff(mono[..., 1], axis=1) >= -1e-12)        # both coordinates monotone
    d = np.diff(mono[..., 0], axis=1)
    assert np.all((d >= -1e-12).all(1) | (d <= 1e-12).all(1))
    lp = N.logit_paths(T, _exponential(), np.zeros(2), 1, rng)[0]
    y = np.log(lp / (1 - lp))                                      # the logit drifts at a constant rate
    slope = np.diff(y, axis=0) / np.diff(T)[:, None]
    np.testing.assert_allclose(slope, slope[:1].repeat(len(slope), 0), rtol=1e-6, atol=1e-9)


# ----------------------------------------------------------------------------- capability
def test_capability_checks_on_known_curves():
    K = 20
    cap = np.ones((4, K))
    beh = np.array([np.full(K, 0.1), np.linspace(0, 1, K), np.full(K, 0.45), np.ones(K)])
    got, beh_got = CC.acquired(cap, beh)
    assert got.all() and beh_got.tolist() == [False, True, False, True]
    assert CC.never_elicited(cap, beh).tolist() == [True, False, True, False]
    closer_cap, closer_beh = CC.late_spread(cap, beh)
    assert closer_cap.sum() == 4 and not closer_beh.any()


# ----------------------------------------------------------------------------- registers
@pytest.mark.parametrize("register", [RD, RC])
def test_the_registers(register):
    keys = [(c.key, c.form) for c in register.CLAIMS]
    assert len(keys) == len(set(keys)) and all(k.startswith("claim-") for k, _ in keys)
    assert all(isinstance(c, verdicts.Claim) and c.quote and c.wrong_model for c in register.CLAIMS)
    fp = register.fingerprint()
    assert len(fp) == 16 and fp == register.fingerprint()
    with pytest.raises(dataclasses.FrozenInstanceError):
        register.DESIGN.sustain = 5


def test_a_changed_design_changes_the_fingerprint():
    changed = dataclasses.replace(DESIGN, swing_min=0.2)
    assert verdicts.fingerprint(changed) != verdicts.fingerprint(DESIGN)


@pytest.mark.skipif(not STORED.exists(), reason="no stored cpu sweep")
def test_the_checks_give_what_judge_needs_on_the_stored_sweep():
    from swingby.diffusion.runs.storage import load_results
    res = load_results(STORED)
    onsets = RO.sweep_onsets(res)
    steps = np.asarray(res["meta"]["checkpoint_steps"])
    assert steps[onsets].min() > 27                     # noise images (steps 0-27) are not discs
    counts = {**C.confirm(res), **CC.confirm(res)}
    assert set(counts) == {(c.key, c.form) for c in RD.CLAIMS + RC.CLAIMS}
    for key, c in counts.items():
        assert c.judgement().word in verdicts.WORDS, key
    # the per-run read-outs the chapter prints are the units the counts were made of
    slow, order = counts[("claim-diff-slow", "typical")], counts[("claim-diff-order", "comparative")]
    assert np.array_equal(C.slowing_parts(res)[..., 0].ravel(), slow.passed)
    wrong = C.slowing_wrong_models(res)
    assert max(wrong.stop, wrong.logit) == slow.null_k and wrong.n == slow.null_n
    weak = np.asarray(res["meta"]["config"]["separations"]) <= DESIGN.weak_max_dc + 1e-9
    assert np.array_equal(C.first_concepts(res)[weak].ravel() == "size", order.passed)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, name", [
    (lambda: RO.disc_test(np.zeros((2, 3, 16))), "images"),
    (lambda: RO.disc_test(np.full((1, 3, 8, 8), 2.0)), "images"),
    (lambda: C.swing(np.full((12, 2), 1.5), NOISE), "points"),
    (lambda: C.swing(np.zeros((12, 2)), np.array([-0.1, 0.1])), "noise"),
    (lambda: C.slowing(T[::-1], _exponential(), NOISE), "steps"),
    (lambda: C.confirm({}, design="x"), "design"),
    (lambda: C.confirm({}), "res"),
    (lambda: C.swing(np.zeros((12, 2)), NOISE, design=RC.DESIGN), "design"),
    (lambda: RO.disc_test(np.zeros((1, 3, 8, 8)), design={}), "design"),
    (lambda: CC.acquired(np.ones((2, 3)), np.ones((2, 3)), design=DESIGN), "design"),
    (lambda: N.monotone_paths(T, _exponential(), NOISE, 1, rng=0), "rng"),
    (lambda: N.stop_paths(T, _exponential(), NOISE, 0, np.random.default_rng()), "n"),
    (lambda: CC.acquired(np.ones((2, 3)), np.ones((2, 4))), "cap"),
    (lambda: CC.never_elicited(np.ones((2, 2)), np.ones((2, 2))), "sustain"),
    (lambda: CC.confirm({}, design=None), "design"),
    (lambda: RO.sweep_onsets({"probs": np.zeros(3)}), "res"),
])
def test_bad_arguments_are_value_errors(call, name):
    with pytest.raises(ValueError, match=name):
        call()
