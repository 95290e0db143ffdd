"""Unit tests of swingby.diffusion (paper Sec. 5, App. G). Fast: seconds in total."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from swingby.diffusion import sweep as SP
from swingby.diffusion.concept_space import RADIUS_SPLIT, concept_mse, joint_accuracy, pixel_measure
from swingby.diffusion.data import (
    CLASSES,
    CirclesConfig,
    capability_prompts,
    class_prompt,
    colour_mean,
    make_dataset,
    radius_mean,
    render,
    sample_attributes,
)
from swingby.diffusion.presets import AUTHORS_DETAILS, PRESETS, get_preset
from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import evaluation as EV
from swingby.diffusion.runs import storage as ST
from swingby.diffusion.runs.identity import EARLIER
from swingby.diffusion.unet import CondUNet
from swingby.diffusion.vdm import VDM, LinearSchedule, alpha_sigma, discretized_gaussian_nll

ROOT = Path(__file__).resolve().parents[1]
torch.set_num_threads(1)


# ------------------------------------------------------------------ data
@pytest.mark.parametrize("dc", [0.137, 0.689])
def test_class_statistics_match_separations(dc):
    cfg = CirclesConfig(image_size=16, dc=dc, ds=0.4)
    rng = np.random.default_rng(0)
    for cls in CLASSES:
        a = sample_attributes(cfg, cls, 4000, rng)
        blue, small = int(cls[0]), int(cls[1])
        # colour means 0.5 +- dc/2 and jitter half-width dc/8 (std dc/8/sqrt(3))
        assert np.allclose(a["colour"].mean(0), colour_mean(cfg, blue), atol=0.003)
        assert np.allclose(a["colour"].std(0), dc / 8 / np.sqrt(3), rtol=0.05)
        assert abs(a["radius"].mean() - radius_mean(cfg, small)) < 0.01
        assert a["radius"].min() >= 0.1 and np.all(np.abs(a["centre"]) <= 0.5)
    # the red-blue difference of the class means is exactly dc in R and in B
    r, b = colour_mean(cfg, 0), colour_mean(cfg, 1)
    assert np.isclose(r[0] - b[0], dc) and np.isclose(b[2] - r[2], dc) and r[1] == b[1]
    assert np.isclose(radius_mean(cfg, 0) - radius_mean(cfg, 1), 0.4)


def test_rendered_images_show_the_requested_circle():
    cfg = CirclesConfig(image_size=16, dc=0.5)
    rng = np.random.default_rng(1)
    for cls in CLASSES:
        a = sample_attributes(cfg, cls, 100, rng, test=True)
        x = render(cfg, a, rng)
        assert x.shape == (100, 3, 16, 16) and x.dtype == np.float32 and 0 <= x.min() and x.max() <= 1
        m = pixel_measure(x)
        assert m[:, 0].all()  # every disc is visible
        assert np.all((m[:, 2] > 0) == (cls[0] == "1")) and np.all((m[:, 1] < RADIUS_SPLIT) == (cls[1] == "1"))
        # measured radius within a pixel of the requested one
        assert abs(np.median(m[:, 1]) - radius_mean(cfg, int(cls[1]))) < 2 / 15


def test_dataset_holds_out_class_11_and_conditions_on_attributes():
    d = make_dataset(CirclesConfig(image_size=8, dc=0.3), 10, seed=0)
    assert d["images"].shape == (30, 3, 8, 8) and d["cond"].shape == (30, 4)
    assert not ((d["labels"][:, 0] == 1) & (d["labels"][:, 1] == 1)).any()
    assert np.allclose(d["cond"][:, 3].numpy(), d["attrs"]["radius"])
    assert np.allclose(class_prompt(CirclesConfig(dc=0.2), "11"), [0.4, 0.4, 0.6, 0.25])
    a = make_dataset(CirclesConfig(image_size=8), 5, seed=3)["images"]
    assert torch.equal(a, make_dataset(CirclesConfig(image_size=8), 5, seed=3)["images"])


@pytest.mark.parametrize("kw", [dict(image_size=10), dict(image_size=4), dict(dc=-0.1),
                                dict(ds=1.5), dict(blur=-1.0)])
def test_bad_data_config_raises(kw):
    with pytest.raises(ValueError):
        CirclesConfig(**kw)


def test_unknown_class_raises():
    with pytest.raises(ValueError, match="class must be one of"):
        class_prompt(CirclesConfig(), "12")


# ------------------------------------------------------------------ model and loss
def test_schedule_ends_and_variance_preserving():
    sch = LinearSchedule()
    t = torch.linspace(0, 1, 11)
    g = sch(t).detach()
    assert float(g[0]) == -5 and float(g[-1]) == 10 and torch.all(torch.diff(g) > 0)
    a, s = alpha_sigma(g)
    assert torch.allclose(a ** 2 + s ** 2, torch.ones(11))
    assert torch.allclose(torch.log(a ** 2 / s ** 2), -g, atol=1e-5)  # log-SNR = -gamma
    with pytest.raises(ValueError):
        LinearSchedule(3.0, 1.0)


def test_discretized_decoder_is_a_distribution():
    bins = torch.linspace(-1, 1, 256)
    for mean, scale in [(0.0, 0.05), (0.93, 0.2), (-1.2, 0.01)]:
        p = torch.exp(-discretized_gaussian_nll(bins, torch.tensor(mean), torch.tensor(scale)))
        assert abs(float(p.sum()) - 1) < 1e-4


def test_loss_of_the_untrained_network_matches_closed_form():
    """A zero-initialised network predicts v = 0, so eps_hat = sigma_t z_t and
    E||eps - eps_hat||^2 = alpha^4 D + alpha^2 sigma^2 ||x||^2, integrated over t."""
    torch.manual_seed(0)
    model = VDM(CondUNet((8, 8, 8), n_res=1, attention=False))
    x01 = torch.rand(512, 3, 8, 8)
    x = x01 * 2 - 1
    D = x[0].numel()
    _, parts = model.loss(x01, torch.zeros(512, 4), generator=torch.Generator().manual_seed(0))
    t = torch.linspace(0, 1, 20001, dtype=torch.float64)
    a, s = alpha_sigma(-5 + 15 * t)
    integrand = a ** 4 * D + a ** 2 * s ** 2 * float((x.double() ** 2).sum(dim=(1, 2, 3)).mean())
    expected = 0.5 * 15 * float(torch.trapezoid(integrand, t)) / D
    assert abs(parts["diff"] - expected) / expected < 0.03, (parts["diff"], expected)
    # prior: KL at gamma = 10 is tiny; reconstruction: about -log(bin / (scale sqrt(2 pi))) - 1/2
    assert 0 < parts["prior"] < 1e-3
    scale = math.exp(-2.5)
    assert abs(parts["recon"] - (math.log(scale * math.sqrt(2 * math.pi) * 255 / 2) + 0.5)) < 0.1


def test_sampler_shapes_range_and_determinism():
    model = VDM(CondUNet((8, 8, 8), n_res=1, attention=True))
    cond = torch.rand(5, 4)
    x1 = model.sample(cond, n_steps=3, image_size=8, generator=torch.Generator().manual_seed(1))
    x2 = model.sample(cond, n_steps=3, image_size=8, generator=torch.Generator().manual_seed(1))
    assert x1.shape == (5, 3, 8, 8) and torch.equal(x1, x2)
    assert 0 <= float(x1.min()) and float(x1.max()) <= 1
    with pytest.raises(ValueError, match="n_steps"):
        model.sample(cond, n_steps=0, image_size=8)


def test_unet_output_is_zero_at_init_and_has_right_shape():
    net = CondUNet((8, 16, 16), n_res=2)
    with torch.no_grad():
        out = net(torch.randn(2, 3, 16, 16), torch.tensor([0.0, 3.0]), torch.rand(2, 4))
    assert out.shape == (2, 3, 16, 16) and float(out.abs().max()) == 0
    with pytest.raises(ValueError, match="widths"):
        CondUNet((8, 16))


def test_authors_style_starts_as_the_identity_and_predicts_eps():
    """Every block's second conv and the output conv are zero, so the residual network
    returns its input: eps_hat = z_t, the authors' starting point."""
    net = CondUNet((8, 16, 16), n_res=2, style="authors", dropout=0.1, residual=True).eval()
    z = torch.randn(3, 3, 16, 16)
    with torch.no_grad():
        assert torch.equal(net(z, torch.tensor([0.0, 2.0, 5.0]), torch.rand(3, 4)), z)
    m = VDM(net, style="authors")
    assert m.details == {"parameterization": "eps", "decoder": "gaussian", "data_range": "01", "sampler": "z0"}
    x = torch.rand(4, 3, 16, 16)
    g = torch.full((4,), 1.0)
    a, s = alpha_sigma(g)
    zt = a[:, None, None, None] * x + s[:, None, None, None] * torch.randn_like(x)
    x_hat, eps_hat = m._x_and_eps(zt, torch.zeros_like(zt), a[:, None, None, None], s[:, None, None, None])
    assert torch.allclose(x_hat, zt / a[:, None, None, None]) and float(eps_hat.abs().max()) == 0


def test_continuous_decoder_matches_its_closed_form():
    """E[-log N(x; z_0/alpha_0, dn^2)] = (sigma_0/alpha_0)^2 / (2 dn^2) + log(dn sqrt(2 pi))."""
    m = VDM(CondUNet((8, 8, 8), n_res=1, attention=False), decoder="gaussian", data_range="01")
    x = torch.rand(2000, 3, 8, 8)
    _, parts = m.loss(x, torch.zeros(2000, 4), generator=torch.Generator().manual_seed(0))
    a0, s0 = alpha_sigma(torch.tensor(-5.0))
    expected = float((s0 / a0) ** 2) / (2 * 1e-6) + math.log(1e-3 * math.sqrt(2 * math.pi))
    assert abs(parts["recon"] - expected) / expected < 0.01


@pytest.mark.parametrize("call,match", [
    (lambda m: m.loss(torch.rand(3, 8, 8), torch.rand(3, 4)), "images must be a batch"),
    (lambda m: m.loss(torch.rand(2, 3, 8, 8), torch.rand(3, 4)), "cond must be a batch"),
    (lambda m: m.sample(torch.rand(4), 2, 8), "cond must be a batch"),
    (lambda m: m.sample(torch.rand(2, 4), 2, 10), "image_size"),
    (lambda m: m.net(torch.rand(2, 3, 8, 8), torch.zeros(2), torch.rand(2, 5)), "cond must be"),
    (lambda m: m.sample(torch.rand(2, 4), 10 ** 6, 8), "n_steps"),
    (lambda m: m.sample(torch.rand(2, 4), 2.0, 8), "n_steps"),
    (lambda m: m.sample(torch.rand(10 ** 6, 4), 2, 16), "do not fit"),
    (lambda m: make_dataset(CirclesConfig(image_size=8), 2.0), "n_per_class"),
    (lambda m: make_dataset(CirclesConfig(image_size=64), 10 ** 8), "GB"),
    (lambda m: sample_attributes(CirclesConfig(), "00", -1, np.random.default_rng(0)), "n must be"),
    (lambda m: CirclesConfig(image_size=512), "image_size"),
])
def test_model_rejects_bad_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call(VDM(CondUNet((8, 8, 8), n_res=1, attention=False)))


@pytest.mark.parametrize("kw,match", [(dict(style="x"), "style"), (dict(decoder="softmax"), "decoder"),
                                      (dict(data_noise=0.0), "data_noise"), (dict(sampler="ddim"), "sampler")])
def test_bad_model_details(kw, match):
    with pytest.raises(ValueError, match=match):
        VDM(CondUNet((8, 8, 8), n_res=1), **kw)


def test_capability_prompts_ask_for_blue_small_harder():
    cfg = CirclesConfig(image_size=16, dc=0.2)
    prompts, labels = capability_prompts(cfg)
    assert prompts.shape == (8, 4) and len(labels) == 8
    assert np.allclose(prompts[0], [0, 0, 1, radius_mean(cfg, 1)]) and np.allclose(prompts[:, 3], 0.25)
    plain = class_prompt(cfg, "11")
    assert np.allclose(prompts[4], plain)  # seed 003's mildest prompt is the plain prompt at dc = 0.2
    assert np.all(prompts[5:, 2] - prompts[5:, 0] > plain[2] - plain[0])


# ------------------------------------------------------------------ classifier, concept space
def test_stored_classifier_on_held_out_data():
    """The committed cpu-preset classifier: >= 99% joint accuracy on every class, on
    fresh images (a seed it never saw) at the sweep's separations."""
    p = get_preset("cpu")
    path = EV.classifier_path(S.DEFAULT_OUT, p)
    # the classifier is committed under results/: its absence is a failure, not a skip
    assert path.exists(), "no stored classifier; make it with `python -m swingby.diffusion classifier --preset cpu`"
    clf, report = EV.get_classifier(p, S.DEFAULT_OUT)
    from swingby.diffusion.classifier import accuracy_by_class
    acc = accuracy_by_class(clf, EV.circles_config(p, 0.3), p.separations, n_per_class=100, seed=999)
    assert min(acc.values()) >= 0.99, acc
    assert report["min_accuracy"] >= 0.99


def test_concept_space_measures():
    assert np.isclose(concept_mse(np.array([1.0, 0.0])), 0.5)
    probs = np.array([[0.9, 0.8], [0.9, 0.2], [0.1, 0.9], [0.7, 0.6]])
    pixels = np.array([[1, 0.2, 0.3, 0.5], [1, 0.6, 0.3, 0.5], [0, 0.2, 0.3, 0.5], [1, 0.2, -0.1, 0.5]])
    assert joint_accuracy(probs, pixels, "classifier") == 0.5 and joint_accuracy(probs, pixels, "pixels") == 0.25
    with pytest.raises(ValueError, match="by"):
        joint_accuracy(probs, pixels, "eyes")


def test_pixel_check_rejects_an_empty_image():
    blank = np.full((2, 3, 16, 16), 0.9, dtype=np.float32)
    blank[1, :, 7, 7] = 0.85  # a faint speck is not a disc
    assert not pixel_measure(blank)[:, 0].any()


# ------------------------------------------------------------------ presets, sweep, results
def test_checkpoints_evenly_spaced_in_sqrt_step():
    c = SP.checkpoint_steps(1600, 5)
    assert c.tolist() == [0, 100, 400, 900, 1600]


@pytest.mark.parametrize("kw,match", [({"separations": (-0.1, 0.3)}, "separations"),
                                      ({"image_size": 18}, "image_size"),
                                      ({"seeds": (-1,)}, "seeds"), ({"seeds": (None,)}, "seeds"),
                                      ({"seeds": (2 ** 64,)}, "seeds"), ({"grad_clip": -1.0}, "grad_clip"),
                                      ({"n_thumbs": 99}, "n_thumbs"), ({"lr": -1.0}, "lr"),
                                      ({"steps": 1.5}, "steps"), ({"threads": -1}, "threads"),
                                      ({"n_loss_records": 0}, "n_loss_records"), ({"ema": 1.0}, "ema"),
                                      ({"block": "x"}, "block"), ({"decoder": "x"}, "decoder"),
                                      ({"bf16": 1}, "bf16"), ({"widths": (8, 8)}, "widths"),
                                      ({"n_per_class": 10 ** 7}, "n_per_class"), ({"colour": 1}, "unknown")])
def test_bad_preset_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        get_preset("cpu", **kw)


def test_unknown_preset_and_cli_errors(capsys):
    with pytest.raises(ValueError, match="preset must be one of"):
        get_preset("gpu")
    from swingby.diffusion.__main__ import main
    for argv in (["sweep", "--preset", "gpu"], ["sweep", "--preset", "tiny", "--separations", "-0.2"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
    assert "separations" in capsys.readouterr().err


def test_paper_preset_is_the_papers_setting():
    p = PRESETS["paper"]
    assert p.image_size == 32 and p.widths == (64, 128, 256) and p.steps == 20_000
    assert p.batch == 64 and len(p.seeds) == 5 and len(p.separations) == 6  # batch of the authors' YAMLs
    assert all(getattr(p, k) == v for k, v in AUTHORS_DETAILS.items())
    assert math.isclose(min(p.separations), 0.137) and math.isclose(max(p.separations), 0.689)


def test_cpu_preset_is_big_enough():
    p = PRESETS["cpu"]
    assert len(p.separations) >= 4 and len(p.seeds) >= 3


def test_stored_cpu_results_match_current_preset_and_code():
    """The stored sweep carries the identity of today's code (issue 20): stamped by the
    sweep, or attached to a sweep made before the identity existed once the replay test
    reproduced its stored checkpoints with that code (``code_identity_attached``), or the
    identity of earlier code listed with its commit in ``identity.EARLIER``. A change to
    the code that makes the numbers changes the identity and fails here."""
    path = SP.results_path(S.DEFAULT_OUT, get_preset("cpu"))
    assert path.exists(), "no stored cpu sweep: run `python -m swingby.diffusion sweep --preset cpu`"
    res = ST.load_results(path)
    assert res["meta"]["config"] == get_preset("cpu").to_dict(), (
        "the stored sweep was made with other settings than the current `cpu` preset: rerun it")
    made_by = res["meta"]["code_version"].get("code_identity")
    if made_by in EARLIER:  # made by earlier code, named with the commit that reproduces it
        assert made_by != S.code_hash() and EARLIER[made_by][0]
        return
    assert made_by == S.code_hash(), (
        f"the stored cpu sweep was made (or replay-checked) by code of identity {made_by}, but today's code "
        f"has {S.code_hash()}: the code that makes its numbers changed behaviour (see "
        "swingby.diffusion.runs.identity.covered_names). Rerun the sweep, or, if tests/test_replay.py shows the "
        "stored numbers are still reproduced, attach the new identity as code_identity_attached records.")
    attached = res["meta"]["code_version"].get("code_identity_attached")
    if attached is not None:  # attached after the fact: what made it stays beside it
        assert attached["at_commit"] and (res["meta"]["code_version"].get("diffusion_sources_sha256")
                                          or attached.get("earlier"))
        replayed = attached["replay_max_abs_difference"]
        assert replayed and all(d["probs"] < 1e-3 for d in replayed.values()), replayed
    if res["meta"]["finished"]:
        assert res["done"].all()
    else:
        assert res["done"].all(axis=2).any(), "the partial sweep holds no finished run"


def test_sweep_round_trip(tmp_path):
    """Tiny sweep end to end: every array the evaluation makes is stored and read back."""
    p = get_preset("tiny", separations=(0.5,), steps=12, classifier_steps=5, ema=0.9)
    path = S.sweep(p, out_dir=tmp_path / "out", scratch=tmp_path / "scratch", progress=False, log=lambda m: None)
    res = ST.load_results(path)
    assert res["meta"]["config"] == p.to_dict() and res["done"].all() and res["meta"]["finished"]
    assert res["probs"].shape == (1, 1, 3, 4, p.samples_per_class, 2)
    assert res["cap_probs"].shape[3] == 8 and res["emb"].shape[:4] == (1, 1, 3, 4)
    assert res["rep_probs"].shape[2] == SP.N_REPEATS and np.isfinite(res["rep_probs"]).all()
    assert res["thumbs"].dtype == np.uint8 and res["meta"]["code_version"]["code_identity"] == S.code_hash()
    runs = ST.runs_from_results(res)
    ST.save_results(tmp_path / "copy.npz", p, runs, {"finished": True})
    res2 = ST.load_results(tmp_path / "copy.npz")
    for k in res:
        if k != "meta":
            assert np.array_equal(res[k], res2[k], equal_nan=res[k].dtype.kind == "f"), k


def test_overrides_never_overwrite_a_presets_results(tmp_path):
    p = get_preset("cpu")
    assert SP.results_path(tmp_path, p).name == "sweep_cpu.npz"
    q = get_preset("cpu", seeds=(0,))
    assert SP.results_path(tmp_path, q).name.startswith("sweep_cpu-custom-")
    assert SP.default_scratch(q) != SP.default_scratch(p)
