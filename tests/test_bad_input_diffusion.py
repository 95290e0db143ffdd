"""The public API of the diffusion model (``data``, ``vdm``, ``unet``, ``presets``, ``training``,
``evaluation``, storage's loaders) and two SIM cases refuse bad input with a ``ValueError``
(``TypeError`` for a wrong type) that names the argument; no NaN or inf leaves a public
function without an error saying where it arose; images outside [0, 1] or of another
dtype are refused, never rescaled or cast.

Each case is ``(callable, kwargs, expected exception, a substring of the message)``, in
the style of ``tests/test_bad_input.py``.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from test_bad_input import case, public  # the shared case builder and the public-API filter

from swingby.diffusion import data as D
from swingby.diffusion import presets as PR
from swingby.diffusion import sweep as SP
from swingby.diffusion import training as TR
from swingby.diffusion import unet as U
from swingby.diffusion import vdm as V
from swingby.diffusion.classifier import ConceptClassifier
from swingby.diffusion.runs import driver as SW
from swingby.diffusion.runs import evaluation as E
from swingby.diffusion.runs import storage as ST
from swingby.sim import data as S

torch.set_num_threads(1)
VE, TE, FE = ValueError, TypeError, FloatingPointError

CFG = D.CirclesConfig(image_size=8)
RNG = np.random.default_rng(0)
ATTRS = D.sample_attributes(CFG, "00", 2, np.random.default_rng(0))
TINY = PR.get_preset("tiny")
torch.manual_seed(0)
NET = U.CondUNet((8, 8, 8), n_res=1, attention=False)
MODEL = V.VDM(NET)
IMG = torch.rand(2, 3, 8, 8)
COND = torch.rand(2, 4)
G = torch.zeros(2)
CLF = ConceptClassifier(2)
NAN_IMG = IMG.clone()
NAN_IMG[0, 0, 0, 0] = float("nan")
NAN_COND = COND.clone()
NAN_COND[1, 2] = float("nan")
sim_good = dict(mu=[1.0, 2.0], sigma=0.3, d=4, n_per_cluster=3)


def _attrs(**change):
    return {**ATTRS, **change}


def _nan_model():
    m = V.VDM(U.CondUNet((8, 8, 8), n_res=1, attention=False))
    with torch.no_grad():
        m.net.out.bias.fill_(float("nan"))
    return m


CASES = [
    # ------------------------------------------------------------------ data: colour / radius means
    case(D.radius_mean, dict(cfg=CFG, small=5), "small"),
    case(D.radius_mean, dict(cfg=CFG, small=True), "small"),
    # ------------------------------------------------------------------ data: CirclesConfig fields
    case(D.CirclesConfig, dict(colour_jitter=100), "colour_jitter"),
    case(D.CirclesConfig, dict(size_jitter=-0.1), "size_jitter"),
    case(D.CirclesConfig, dict(bg_low=5.0), "bg_low"),
    case(D.CirclesConfig, dict(bg_high=float("nan")), "bg_high"),
    case(D.CirclesConfig, dict(bg_test=float("nan")), "bg_test"),
    case(D.CirclesConfig, dict(bg_test=5), "bg_test"),
    case(D.CirclesConfig, dict(dc=None), "dc"),
    case(D.CirclesConfig, dict(dc="a"), "dc"),
    case(D.CirclesConfig, dict(dc=True), "dc"),
    case(D.CirclesConfig, dict(dc=1.0), "colour_jitter"),  # jittered colours would leave [0, 1]
    case(D.CirclesConfig, dict(ds=float("inf")), "ds"),
    case(D.CirclesConfig, dict(blur=1e10), "blur"),
    case(D.CirclesConfig, dict(position=2.0), "position"),
    case(D.CirclesConfig, dict(pixel_noise=-1e-3), "pixel_noise"),
    case(D.CirclesConfig, dict(min_radius=None), "min_radius"),
    case(D.CirclesConfig, dict(image_size=16.0), "image_size"),
    case(D.CirclesConfig, dict(image_size="16"), "image_size"),
    # ------------------------------------------------------------------ data: attributes, rendering, data set
    case(D.sample_attributes, dict(cfg=CFG, cls="00", n=2, rng=42), "rng", TE),
    case(D.sample_attributes, dict(cfg=CFG, cls="00", n=2, rng=RNG, test="yes"), "test"),
    case(D.sample_attributes, dict(cfg=CFG, cls="00", n=2.0, rng=RNG), "n must"),
    case(D.render, dict(cfg=CFG, attrs=_attrs(radius=np.array([-0.2, 0.3])), rng=RNG), "radius"),
    case(D.render, dict(cfg=CFG, attrs={k: v for k, v in ATTRS.items() if k != "centre"}, rng=RNG), "centre"),
    case(D.render, dict(cfg=CFG, attrs=_attrs(radius=np.array([0.3])), rng=RNG), "rows"),
    case(D.render, dict(cfg=CFG, attrs=_attrs(colour=ATTRS["colour"] * 255), rng=RNG), "colour"),
    case(D.render, dict(cfg=CFG, attrs=_attrs(background=np.full((2, 3), np.nan)), rng=RNG), "background"),
    case(D.render, dict(cfg=CFG, attrs=_attrs(centre=np.zeros((2, 3))), rng=RNG), "centre"),
    case(D.render, dict(cfg=CFG, attrs=[1, 2], rng=RNG), "attrs", TE),
    case(D.render, dict(cfg=CFG, attrs=ATTRS, rng=0), "rng", TE),
    case(D.make_dataset, dict(cfg=CFG, n_per_class=2, seed=-1), "seed"),
    case(D.make_dataset, dict(cfg=CFG, n_per_class=2, seed=1.5), "seed"),
    case(D.make_dataset, dict(cfg=CFG, n_per_class=2, seed="a"), "seed"),
    case(D.make_dataset, dict(cfg=CFG, n_per_class=2, classes="00"), "classes"),
    case(D.make_dataset, dict(cfg=CFG, n_per_class=2, classes=("00", "00")), "classes"),
    case(D.make_dataset, dict(cfg=CFG, n_per_class=2, classes=[["0"]]), "classes"),
    case(D.make_dataset, dict(cfg=None, n_per_class=2), "cfg", TE),
    # ------------------------------------------------------------------ vdm: the model
    case(V.VDM, dict(net=None), "net", TE),
    case(V.VDM, dict(net="unet"), "net", TE),
    case(V.VDM, dict(net=NET, data_noise=True), "data_noise"),
    case(V.VDM, dict(net=NET, data_noise=0.0), "data_noise"),
    case(V.VDM, dict(net=NET, style=None), "style"),
    case(V.VDM, dict(net=NET, sampler=1), "sampler"),
    case(MODEL.loss, dict(images=(IMG * 255).to(torch.uint8), cond=COND), "images", TE),
    case(MODEL.loss, dict(images=IMG * 255, cond=COND), "images must lie"),
    case(MODEL.loss, dict(images=IMG.double(), cond=COND), "images", TE),
    case(MODEL.loss, dict(images=IMG[:0], cond=COND[:0]), "images must be a batch"),
    case(MODEL.loss, dict(images=torch.rand(2, 3, 10, 10), cond=COND), "divisible by 4"),
    case(MODEL.loss, dict(images=torch.rand(2, 3, 8, 12), cond=COND), "images must be a batch"),
    case(MODEL.loss, dict(images=NAN_IMG, cond=COND), "images"),
    case(MODEL.loss, dict(images=IMG, cond=NAN_COND), "cond"),
    case(MODEL.loss, dict(images=IMG, cond=COND.double()), "cond", TE),
    case(MODEL.loss, dict(images=IMG, cond=torch.rand(2, 5)), "cond"),
    case(MODEL.loss, dict(images=IMG, cond=COND, generator=0), "generator", TE),
    case(_nan_model().loss, dict(images=IMG, cond=COND), "CondUNet.forward: the network output is not finite", FE),
    case(V.VDM(NET, decoder="gaussian", data_noise=1e-300).loss, dict(images=IMG, cond=COND),
         "VDM.loss: the reconstruction term is not finite", FE),
    case(MODEL.sample, dict(cond=NAN_COND, n_steps=2, image_size=8), "cond"),
    case(MODEL.sample, dict(cond=COND, n_steps=2, image_size=8.0), "image_size"),
    case(MODEL.sample, dict(cond=COND, n_steps=2, image_size="8"), "image_size"),
    case(MODEL.sample, dict(cond=COND, n_steps=None, image_size=8), "n_steps"),
    case(MODEL.sample, dict(cond=COND, n_steps=2, image_size=8, generator=np.random.default_rng()), "generator", TE),
    case(_nan_model().sample, dict(cond=COND, n_steps=2, image_size=8), "not finite", FE),
    # ------------------------------------------------------------------ presets
    case(PR.Preset, dict(name="x", image_size=7), "image_size"),
    case(PR.Preset, dict(name="x", image_size=16, widths=(8.5, 8, 8)), "widths"),
    case(PR.Preset, dict(name="x", image_size=16, steps=10**12), "steps"),
    case(PR.Preset, dict(name="x", image_size=16, n_thumbs=None), "n_thumbs"),
    case(PR.Preset, dict(name="../x", image_size=16), "name"),
    case(PR.Preset, dict(name="x", image_size=16, separations=np.array([0.2])), "separations"),
    case(PR.Preset, dict(name="x", image_size=16, block=["shared"]), "block"),
    # ------------------------------------------------------------------ training, evaluation
    case(TR.build_model, dict(p=None), "Preset", TE),
    case(TR.Run, dict(p=TINY, seed=-1, device=torch.device("cpu")), "seed"),
    case(TR.Run, dict(p=TINY, seed=0, device="cpu"), "device", TE),
    case(TR.Run(TINY, 0, torch.device("cpu")).train_to,
         dict(target=2, images=NAN_IMG, cond=COND), "images"),
    case(TR.Run(TINY, 0, torch.device("cpu")).train_to, dict(target=10**9, images=IMG, cond=COND), "target"),
    case(TR.Run(TINY, 0, torch.device("cpu")).train_to, dict(target=2, images=IMG, cond=COND, check=1), "check", TE),
    case(E.circles_config, dict(p=TINY, dc=float("nan")), "dc"),
    case(E.circles_config, dict(p=None, dc=0.3), "Preset", TE),
    case(PR.get_preset, dict(name="gpu"), "name"),
    # ------------------------------------------------------------------ sweep helpers
    case(SP.results_path, dict(out_dir="o", p="cpu"), "Preset", TE),
    case(SW.sweep, dict(preset="tiny", seeds=0), "seeds", TE),
    case(SW.sweep, dict(preset="tiny", out_dir=1), "out_dir", TE),
    case(SW.sweep, dict(preset="tiny", progress="no"), "progress"),
    case(SW.sweep, dict(preset="tiny", log="print"), "log", TE),
    # ------------------------------------------------------------------ storage, search, classifier input
    case(ST.atomic_save, dict(obj_writer=None, path="x"), "obj_writer", TE),
    case(ST.atomic_save, dict(obj_writer=print, path=None), "path", TE),
    case(ST.load_torch, dict(path=None, what="x", remedy="y"), "path", TE),
    case(ST.load_results, dict(path=None), "path", TE),
    case(CLF.probabilities, dict(images=IMG * 255), "images must hold finite pixel values in [0, 1]"),
    case(CLF.probabilities, dict(images=NAN_IMG), "images must hold finite"),
    # ------------------------------------------------------------------ SIM: float32 overflow
    case(S.make_sim, dict(sim_good, mu=[1e200, 1.0]), "mu must hold numbers <="),
    case(S.make_sim, dict(sim_good, sigma=1e39), "sigma must hold numbers <="),
    case(S.second_moment, dict(mu=[1e20, 1.0], sigma=0.1, d=2), "mu"),
]


def _id(c) -> str:
    func, kwargs = c[0], c[1]
    name = getattr(func, "__qualname__", getattr(func, "__name__", type(func).__name__))
    return f"{name}-{','.join(kwargs)}"


def test_the_cases_are_the_public_api():
    """Only the public API (and the loaders) is checked here: internal helpers trust their callers."""
    assert not [_id(c) for c in CASES if not public(c[0])]


@pytest.mark.parametrize("func, kwargs, exc, words", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_names_the_argument(func, kwargs, exc, words):
    with pytest.raises(exc) as info:
        func(**kwargs)
    assert type(info.value) is exc, f"{type(info.value).__name__}: {info.value}"
    assert words in str(info.value), str(info.value)


def test_training_on_data_holding_a_nan_is_refused_before_any_step():
    run = TR.Run(TINY, 0, torch.device("cpu"))
    data = D.make_dataset(D.CirclesConfig(image_size=8), 4, seed=0)
    images = data["images"].clone()
    images[-1, 2, 3, 4] = float("nan")  # in an image the first batches may never draw
    with pytest.raises(VE, match="images must contain only finite"):
        run.train_to(3, images, data["cond"])
    assert run.step == 0


BORDERLINE = [
    (D.CirclesConfig, dict(dc=0.8, colour_jitter=0.125)),  # jittered colours reach exactly 1
    (D.CirclesConfig, dict(bg_low=0.0, bg_high=0.0, bg_test=1.0, blur=0.0, pixel_noise=0.0, position=0.0)),
    (D.render, dict(cfg=CFG, attrs={k: v[:0] for k, v in ATTRS.items()}, rng=RNG)),
    (MODEL.sample, dict(cond=COND, n_steps=np.int64(1), image_size=np.int64(8))),
    (PR.Preset, dict(name="x", image_size=16, separations=[0.2, 0.3], seeds=[0])),
    (S.make_sim, dict(sim_good, mu=[1e19, 1.0])),
]


@pytest.mark.parametrize("func, kwargs", BORDERLINE, ids=[_id(c) for c in BORDERLINE])
def test_valid_borderline_input_still_works(func, kwargs):
    func(**kwargs)
