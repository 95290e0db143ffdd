"""Capability, behaviour and embedding probes (swingby.diffusion.capability) on
synthetic results whose answers are known."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.diffusion import capability as C


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
    b, c = C.behaviour(r), C.capability(r)
    assert b[0, 0].tolist() == [0, 0, 0.6, 0] and c[0, 0].tolist() == [0, 0.8, 0.6, 0]
    assert np.all(c >= b)  # the plain prompt is one of the prompts
    r["done"][0, 1, 3] = False
    assert np.isnan(C.behaviour(r)[0, 1, 3]) and np.isnan(C.capability(r)[0, 1, 3])


def test_pixel_check_needs_a_disc():
    r = _res()
    r["pixels"][0, 0, 0, 3, :5] = [1, 0.2, 0.3, 0.5]  # valid, small, blue
    r["pixels"][0, 0, 0, 3, 5:] = [0, 0.2, 0.3, 0.5]  # no disc: never counted
    assert C.behaviour(r, by="pixels")[0, 0, 0] == 0.5
    with pytest.raises(ValueError, match="by must be"):
        C.behaviour(r, by="eyes")


def test_first_crossing_interpolates():
    steps = np.array([0, 100, 200, 300])
    y = np.array([[0, 0.25, 0.75, 1], [0, 0.1, 0.2, 0.3], [0.6, 0.7, 0.8, 0.9]])
    t = C.first_crossing(steps, y)
    assert t[0] == pytest.approx(150) and t[1] == np.inf and t[2] == 0
    assert np.isnan(C.first_crossing(steps, np.array([0, np.nan, 1, 1])))
    with pytest.raises(ValueError, match="checkpoints"):
        C.first_crossing(steps, np.zeros(3))


def test_embedding_probes():
    r = _res(E=3)
    e = r["emb"]
    e[..., 0, :] = [0, 0, 0]
    e[..., 1, :] = [1, 0, 0]  # size direction
    e[..., 2, :] = [0, 1, 0]  # colour direction, orthogonal
    e[..., 3, :] = [1, 1, 0]  # the parallelogram's fourth corner
    assert np.allclose(C.embedding_disentanglement(r), 1)
    assert np.allclose(C.embedding_parallelogram(r), 0)  # e11-e10 = size, e11-e01 = colour
    e[..., 2, :] = [2, 0, 0]  # colour parallel to size: entangled
    assert np.allclose(C.embedding_disentanglement(r), 0)


def test_linear_fit_and_its_interval():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 40)
    y = 2 * x + 1 + rng.normal(0, 0.5, 40)
    f = C.linear_fit(x, y)
    assert abs(f.slope - 2) < 0.1 and f.r2 > 0.95 and f.slope_ci[0] < 2 < f.slope_ci[1] and f.n == 40
    null = C.linear_fit(x, rng.normal(0, 1, 40))  # no relation: the interval covers 0
    assert null.slope_ci[0] < 0 < null.slope_ci[1]
    with pytest.raises(ValueError, match="three"):
        C.linear_fit([1, 2], [1, 2])
