"""Unit tests of swingby.open_questions: the frozen rules, the engine against the book's
batched engine, the exact full-batch shortcut, the checks, the theory of normalised
inputs, bad arguments, and a replay of one stored entry."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from swingby.open_questions import checks as C
from swingby.open_questions import rules as R
from swingby.open_questions.engine import moment_points, train_pairs
from swingby.open_questions.experiments import experiment_cells, standardiser
from swingby.open_questions.store import load, results_dir, run_experiment, source_identity
from swingby.open_questions.theory import flow_learning_times, normalised_moment
from swingby.sim.batched import train_batched
from swingby.sim.data import make_sim
from swingby.sim.models import MLP

#: the fingerprint of OQ_RULES as committed before any run it judges
FROZEN_FINGERPRINT = "fce44e691f0a4cca"


def test_rules_are_frozen():
    assert R.fingerprint() == FROZEN_FINGERPRINT, (
        "a rule in swingby/open_questions/rules.py changed: show the result under both rules in "
        "book/open_questions.md, then record the new fingerprint here")
    with pytest.raises(dataclasses.FrozenInstanceError):
        R.OQ_RULES.rise = 0.1
    assert R.fingerprint(R.OpenRules(rise=0.1)) != R.fingerprint()


def test_rules_bad_arguments():
    with pytest.raises(ValueError, match="verdict_word"):
        R.answer("maybe")
    assert R.answer("partly") == "holds in part"


def _data(seed=3, n=300, rotate=True):
    return make_sim((2.0, 4.0), (0.224, 0.224), 2, n, origin_cluster=True, rotate=rotate, seed=seed)


def test_moment_points_give_the_full_batch_run():
    d = _data()
    a, b = [MLP(2, 3, 4, seed=1)], [MLP(2, 3, 4, seed=1)]
    ra = train_batched(a, d, lr=0.01, full_batch=True, epochs=25, record_every=5, record_train_loss=False)
    rb = train_batched(b, d._replace(X=moment_points(d.X), labels=torch.zeros(4, dtype=torch.long)), lr=0.01,
                       full_batch=True, epochs=25, record_every=5, record_train_loss=False)
    assert np.abs(ra[0].outputs - rb[0].outputs).max() < 1e-5
    P = moment_points(d.X).double()
    assert torch.allclose(P.mean(0), d.X.double().mean(0), atol=1e-5)


def test_train_pairs_with_equal_inputs_and_targets_is_train_batched():
    d = _data()
    a = [MLP(2, 2, 4, activation="relu", seed=s) for s in (1, 2)]
    b = [MLP(2, 2, 4, activation="relu", seed=s) for s in (1, 2)]
    ra = train_batched(a, [d, d], lr=0.01, epochs=2, record_steps=[0, 3, 8], record_train_loss=False, seed=[5, 6])
    X = torch.stack([d.X, d.X])
    out = train_pairs(b, X, X, torch.stack([d.test_points] * 2), lr=0.01, batch_size=128, epochs=2,
                      record_steps=[0, 3, 8], seed=[5, 6])
    rot = d.rotation.double().numpy()
    for k in range(2):
        assert np.abs(ra[k].outputs - out[k] @ rot).max() < 1e-5


def test_cells_and_measures():
    cells, n = experiment_cells("batch")
    assert n == R.OQ_RULES.batch_seeds and [c.mode for c in cells] == list(R.OQ_RULES.batch_modes)
    with pytest.raises(ValueError, match="name"):
        experiment_cells("colour")


def test_normalised_moment():
    M = normalised_moment(np.eye(2))
    assert M.M.shape == (3, 3)
    with pytest.raises(ValueError, match="Z"):
        normalised_moment(np.zeros(3))


def test_theory_predicts_the_faster_direction_first():
    """Raw inputs with a stronger second concept: the flow learns concept 2 first."""
    d = _data(n=2000, rotate=False)
    X = d.X.double().numpy()
    t = flow_learning_times(X, X, d.x_hat.double().numpy(), np.zeros((2, 2)), np.zeros(2), lambda y: y, d.mu)
    assert t[0] > 1.2 * t[1]
    st = standardiser(d.X)
    Z = st(d.X).double().numpy()
    tz = flow_learning_times(Z, Z, st(d.x_hat).double().numpy(), np.zeros((2, 2)), np.zeros(2),
                             st.invert, d.mu)
    assert tz[0] < 1.2 * tz[1]  # standardised along the concept axes: no clear order left


def test_checks():
    c = C.cell_check(np.array([True] * 10), np.array([False] * 40))
    assert c.verdict == "reproduced" and c.answer == "holds" and c.null_rate == 0
    c = C.cell_check(np.array([True] * 3 + [False] * 7), np.array([True] * 20 + [False] * 20))
    assert c.answer == "undecided"
    assert C.fisher_two_sided(10, 10, 0, 10) < 0.01
    with pytest.raises(ValueError, match="k1"):
        C.fisher_two_sided(11, 10, 0, 10)
    assert C.seeds_to_decide(0.5, 0.1) is not None and C.seeds_to_decide(0.2, 0.2) is None
    with pytest.raises(ValueError, match="p1"):
        C.seeds_to_decide(1.5, 0.1)
    t = C.trend_test(np.repeat([1, 2, 3], 20), np.repeat([False, False, True], 20), n_resamples=200)
    assert t.rho > 0.5 and t.p < 0.05
    with pytest.raises(ValueError, match="levels"):
        C.trend_test([1, 2], [True, False, True])
    p = C.prediction_test([True, True, False], [False, False, False], [True, True, False])
    assert p.agree_norm == 1 and p.n_differ == 2 and p.k_norm == 2
    with pytest.raises(ValueError, match="pred_norm"):
        C.prediction_test([True], [True, False], [True, False])


@pytest.mark.skipif(not (results_dir() / "batch.npz").is_file(), reason="no stored results")
def test_replay_one_stored_entry():
    """Recompute the full-batch equal-epochs cell (cheap) for two seeds and compare with
    the stored measures."""
    arrays, meta = load("batch")
    i = [c["mode"] for c in meta["cells"]].index("full_epochs")
    fresh = run_experiment("batch", seeds=meta["seeds"][:2], cells=[i], progress=False)
    for m in ("rise", "distance", "t_first"):
        np.testing.assert_allclose(fresh[m][i, :, :2], arrays[m][i, :, :2], rtol=1e-5, atol=1e-7)
    assert meta["rules_fingerprint"] == R.fingerprint()
    assert len(source_identity()) == 12


def test_load_bad_name():
    with pytest.raises(ValueError, match="name"):
        load("colour")


def test_pass_flags_and_figures_bad_arguments():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from swingby.open_questions.figures import plot_rates
    arrays = {"rise": np.array([[[0.1, 0.0], [0.0, 0.0]]]), "distance": np.zeros((1, 2, 2)),
              "order": np.ones((1, 2, 2))}
    assert C.pass_flags(arrays, 0, False, "nonmonotone").tolist() == [True, False]
    assert C.pass_flags(arrays, 0, True, "reach").all()
    with pytest.raises(ValueError, match="what"):
        C.pass_flags(arrays, 0, False, "speed")
    with pytest.raises(ValueError, match="cell"):
        C.pass_flags(arrays, 3, False, "order")
    with pytest.raises(ValueError, match="arrays"):
        C.pass_flags({}, 0, False, "order")
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="labels"):
        plot_rates(ax, ["a"], [], [])
    plt.close(fig)


def test_late_over_early():
    ep = np.arange(1.0, 11.0)
    tr = np.stack([np.r_[np.arange(5.0), 4 + 0.1 * np.arange(1, 6)], np.zeros(10)], axis=1)
    assert C.late_over_early(tr, ep) == pytest.approx(0.5 / 4.0)
    with pytest.raises(ValueError, match="epochs"):
        C.late_over_early(tr, ep[:5])
    with pytest.raises(ValueError, match="move"):
        C.late_over_early(np.zeros((10, 2)), ep)


def test_the_identity_follows_the_code_not_its_descriptions():
    from swingby._source_identity import code_only as _code_only

    code = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    assert _code_only(code) == _code_only('def f(x):\n    """Other doc."""\n\n    return x + 1\n')
    assert _code_only(code) != _code_only('def f(x):\n    """Doc."""\n    return x + 2\n')


def test_the_stored_runs_are_made_by_todays_code():
    for name in ("batch", "norm", "init", "depth"):
        _, meta = load(name)
        assert meta["source_identity"] == source_identity(), (
            f"results/open_questions/{name}.npz was made by other code: "
            f"python -m swingby.open_questions run --only {name}")


def test_the_results_directory_can_be_named_for_an_installed_copy(tmp_path, monkeypatch):
    from swingby import results

    monkeypatch.delenv("SWINGBY_RESULTS", raising=False)
    assert results_dir() == results.REPO_RESULTS / "open_questions"
    monkeypatch.setenv("SWINGBY_RESULTS", str(tmp_path))
    assert results_dir() == tmp_path / "open_questions"
    with pytest.raises(ValueError, match="SWINGBY_RESULTS"):
        load("batch")  # nothing stored there: the message says how to point at the results


def test_the_identity_helpers_keep_an_emptied_body():
    import ast

    from swingby._source_identity import strip_docstrings

    assert isinstance(strip_docstrings(ast.parse('"""only a docstring"""')).body[0], ast.Pass)
