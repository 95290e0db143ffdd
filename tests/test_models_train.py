"""Unit tests of swingby.sim.models and swingby.sim.train."""
import numpy as np
import pytest
import torch

from swingby.sim.data import make_sim
from swingby.sim.models import MLP, SymmetricModel
from swingby.sim.train import train
from swingby.sim.train_loop import log_steps


@pytest.fixture(scope="module")
def data():
    return make_sim([1.0, 2.0], 0.05, d=6, n_per_cluster=300, rotate=True, seed=0)


def test_mlp_shapes_depths_and_activations():
    x = torch.randn(7, 5)
    for depth in (1, 2, 4):
        for act in ("linear", "relu"):
            for bias in (True, False):
                m = MLP(5, depth, width=9, activation=act, bias=bias)
                assert m(x).shape == (7, 5)
                assert len(m.layers) == depth
                assert all((l.bias is not None) == bias for l in m.layers)
    assert MLP(5, 3, width=9).layers[1].weight.shape == (9, 9)


def test_linear_mlp_jacobian_and_init_scale():
    m = MLP(4, 3, width=6, bias=False, seed=1)
    x = torch.randn(3, 4)
    assert torch.allclose(m(x), x @ m.jacobian().T, atol=1e-6)
    small = MLP(4, 3, width=6, bias=False, seed=1, init_scale=0.1)
    assert torch.allclose(small.layers[0].weight, 0.1 * m.layers[0].weight)
    with pytest.raises(ValueError, match="activation='linear'"):
        MLP(4, 2, activation="relu").jacobian()


def test_symmetric_model():
    m = SymmetricModel(3, init="uniform", init_scale=0.2, seed=0)
    assert float(m.U.detach().min()) >= 0 and float(m.U.detach().max()) < 0.2
    x = torch.randn(5, 3)
    assert torch.allclose(m(x), x @ m.jacobian(), atol=1e-6)
    W = m.jacobian()
    assert torch.allclose(W, W.T) and float(torch.linalg.eigvalsh(W).min()) > -1e-6
    assert SymmetricModel(3, 5, init="gaussian", init_scale=0.1).U.shape == (3, 5)


def test_model_argument_errors():
    with pytest.raises(ValueError, match="activation must be one of"):
        MLP(4, 2, activation="tanh")
    with pytest.raises(ValueError, match="depth"):
        MLP(4, 0)
    with pytest.raises(ValueError, match="d must be a positive integer"):
        MLP(0, 1)
    with pytest.raises(ValueError, match="d_prime must be an integer >= 4"):
        SymmetricModel(4, 2)
    with pytest.raises(ValueError, match="init must be one of"):
        SymmetricModel(4, init="zeros")


def test_train_records(data):
    rec = train(MLP(6, 2, seed=0), data, epochs=3, batch_size=64, record_every=5)
    spe = int(np.ceil(600 / 64))
    assert rec.steps[0] == 0 and rec.steps[-1] == 3 * spe
    assert rec.outputs.shape == (len(rec.steps), 4, 6)
    assert rec.trajectory.shape == (len(rec.steps), 6)
    np.testing.assert_allclose(rec.test_points[-1], [1, 2, 0, 0, 0, 0], atol=1e-6)
    # the test loss is 0.5 ||f(x_hat) - x_hat||^2 of the recorded outputs
    np.testing.assert_allclose(rec.test_loss, rec.test_point_losses()[:, -1])
    assert rec.train_loss[-1] < rec.train_loss[0]
    assert rec.test_loss[-1] < rec.test_loss[0]


def test_outputs_are_in_concept_coordinates(data):
    """A model that is exactly the identity outputs the un-rotated test points."""
    m = MLP(6, 1, bias=False)
    with torch.no_grad():
        m.layers[0].weight.copy_(torch.eye(6))
    rec = train(m, data, epochs=1, lr=1e-12, record_every=1000)
    np.testing.assert_allclose(rec.outputs[0], rec.test_points, atol=1e-5)
    np.testing.assert_allclose(rec.outputs[0, -1, :2], [1, 2], atol=1e-5)
    assert rec.test_loss[0] < 1e-9


def test_one_layer_learns_identity_full_batch(data):
    rec = train(MLP(6, 1, bias=False, init_scale=0.01), data, full_batch=True, epochs=400,
                lr=0.5, loss="paper")
    np.testing.assert_allclose(rec.trajectory[-1, :2], [1, 2], atol=0.02)
    assert rec.config["steps_per_epoch"] == 1


def test_training_is_deterministic(data):
    runs = [train(MLP(6, 3, seed=4), data, epochs=2, seed=9, record_every=3) for _ in range(2)]
    assert np.array_equal(runs[0].outputs, runs[1].outputs)
    assert np.array_equal(runs[0].train_loss, runs[1].train_loss)
    other = train(MLP(6, 3, seed=4), data, epochs=2, seed=10, record_every=3)
    assert not np.array_equal(runs[0].outputs, other.outputs)


def test_record_steps_and_log_steps(data):
    steps = log_steps(100, 20)
    assert steps[0] == 0 and steps[-1] == 100 and np.all(np.diff(steps) > 0)
    rec = train(MLP(6, 1), data, epochs=1, batch_size=6, record_steps=steps)
    np.testing.assert_array_equal(rec.steps, steps)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(lr=0), "lr"), (dict(lr=-1), "lr"), (dict(batch_size=0), "batch_size"),
        (dict(epochs=0), "epochs"), (dict(loss="l1"), "loss must be one of"),
        (dict(shuffle="always"), "shuffle must be one of"),
        (dict(record_every=5, record_steps=[0, 1]), "not both"),
        (dict(record_steps=[0, 10**9]), "record_steps"),
    ],
)
def test_train_argument_errors(data, kwargs, words):
    with pytest.raises(ValueError, match=words):
        train(MLP(6, 1), data, **{"epochs": 1, **kwargs})


def test_training_data_with_nan_is_refused(data):
    X = data.X.clone()
    X[3, 1] = float("nan")
    with pytest.raises(ValueError, match="data.X must be finite"):
        train(MLP(6, 1), data._replace(X=X), epochs=1)
