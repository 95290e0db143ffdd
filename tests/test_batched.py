"""The batched engine gives the numbers of swingby.sim.train.train run one by one."""
import copy

import numpy as np
import pytest
import torch

from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim
from swingby.sim.models import MLP
from swingby.sim.train import train


def _datas(n_runs=3, d=6, s=2, n=150):
    mu = [1.0, 2.0, 1.5][:s]
    return [make_sim(mu, 0.3, d=d, n_per_cluster=n, rotate=True, seed=k) for k in range(n_runs)]


@pytest.mark.parametrize(
    "depth, activation, bias, full_batch, loss, shuffle",
    [
        (1, "linear", True, False, "mean", "once"),
        (4, "linear", True, False, "mean", "once"),
        (2, "relu", True, False, "paper", "every_epoch"),
        (3, "relu", False, True, "mean", "none"),
        (2, "linear", False, False, "paper", "once"),
    ],
)
# width 5 steps features-first, width 12 batch-first (swingby.sim.batched.FEATURES_FIRST_MAX)
@pytest.mark.parametrize("width", [5, 12])
def test_batched_equals_single_runs(depth, activation, bias, full_batch, loss, shuffle, width):
    from swingby.sim.batched import FEATURES_FIRST_MAX

    assert (width <= FEATURES_FIRST_MAX) == (width == 5)
    datas = _datas()
    models = [MLP(6, depth, width=width, activation=activation, bias=bias, seed=k) for k in range(3)]
    twins = copy.deepcopy(models)
    kw = dict(lr=0.05, batch_size=32, epochs=3, full_batch=full_batch, loss=loss, shuffle=shuffle,
              record_every=2)
    singles = [train(m, dat, seed=10 + k, **kw) for k, (m, dat) in enumerate(zip(models, datas))]
    batched = train_batched(twins, datas, seed=[10, 11, 12], **kw)
    assert len(batched) == 3
    for a, b in zip(singles, batched):
        np.testing.assert_array_equal(a.steps, b.steps)
        np.testing.assert_allclose(a.epochs, b.epochs)
        np.testing.assert_allclose(a.outputs, b.outputs, atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(a.test_loss, b.test_loss, atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(a.train_loss, b.train_loss, atol=1e-5, rtol=1e-5)
        np.testing.assert_allclose(a.test_points, b.test_points)
        assert a.config == b.config
        assert a.test_loss[-1] < a.test_loss[0]  # something was learned
    for m, t in zip(models, twins):  # trained in place, like train()
        for p, q in zip(m.parameters(), t.parameters()):
            torch.testing.assert_close(p, q, atol=1e-5, rtol=1e-5)


def test_shared_data_and_single_seed_and_record_steps():
    data = _datas(1)[0]
    models = [MLP(6, 2, seed=k) for k in range(2)]
    twins = copy.deepcopy(models)
    singles = [train(m, data, epochs=2, batch_size=50, record_steps=[0, 3, 12], seed=4) for m in models]
    batched = train_batched(twins, data, epochs=2, batch_size=50, record_steps=[0, 3, 12], seed=4)
    for a, b in zip(singles, batched):
        np.testing.assert_array_equal(b.steps, [0, 3, 12])
        np.testing.assert_allclose(a.outputs, b.outputs, atol=1e-5, rtol=1e-5)
    # the two runs really are different models
    assert not np.allclose(batched[0].outputs[-1], batched[1].outputs[-1])


def test_train_loss_can_be_skipped():
    recs = train_batched([MLP(6, 1, seed=0)], _datas(1)[0], epochs=1, record_train_loss=False)
    assert np.all(np.isnan(recs[0].train_loss))


def test_argument_errors():
    datas = _datas(2)
    ok = [MLP(6, 2, seed=0), MLP(6, 2, seed=1)]
    with pytest.raises(ValueError, match="non-empty"):
        train_batched([], datas)
    with pytest.raises(ValueError, match="must be a swingby.sim.models.MLP"):
        train_batched([torch.nn.Linear(6, 6)], datas[0])
    with pytest.raises(ValueError, match="one architecture"):
        train_batched([MLP(6, 2), MLP(6, 3)], datas)
    with pytest.raises(ValueError, match="one architecture"):
        train_batched([MLP(6, 2), MLP(6, 2, activation="relu")], datas)
    with pytest.raises(ValueError, match="one architecture"):
        train_batched([MLP(6, 2), MLP(6, 2, bias=False)], datas)
    with pytest.raises(ValueError, match="one SimData or one per model"):
        train_batched(ok, datas[:1])
    with pytest.raises(ValueError, match="same shape"):
        train_batched(ok, [datas[0], make_sim([1.0, 2.0], 0.3, d=6, n_per_cluster=100, seed=0)])
    with pytest.raises(ValueError, match="d = 5 but the models have d = 6"):
        train_batched(ok, [make_sim([1.0, 2.0], 0.3, d=5, n_per_cluster=150, seed=k) for k in range(2)])
    with pytest.raises(ValueError, match="seed must be an int or a sequence of 2"):
        train_batched(ok, datas, seed=[1, 2, 3])
    with pytest.raises(ValueError, match="lr must be a positive number"):
        train_batched(ok, datas, lr=0)
    with pytest.raises(ValueError, match="loss must be one of"):
        train_batched(ok, datas, loss="l1")
    with pytest.raises(ValueError, match="shuffle must be one of"):
        train_batched(ok, datas, shuffle="sometimes")
    with pytest.raises(ValueError, match="record_every or record_steps"):
        train_batched(ok, datas, record_every=2, record_steps=[0, 1])


def test_training_data_with_nan_is_refused():
    datas = _datas(2)
    X = datas[1].X.clone()
    X[0, 0] = float("inf")
    with pytest.raises(ValueError, match=r"data\[1\].X must be finite"):
        train_batched([MLP(6, 1, seed=0), MLP(6, 1, seed=1)], [datas[0], datas[1]._replace(X=X)])
