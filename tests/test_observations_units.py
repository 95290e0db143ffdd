"""Independent seeds per configuration, the order rule's tie, and the power of the Fisher
test of the SIM observation checks."""
from __future__ import annotations

import numpy as np
import pytest

from swingby.observations.learning import order_passes
from swingby.observations.runs import run_seed, run_sweep
from swingby.observations.swingby import fisher_seeds_needed

CFG = [dict(mu=(1.0, 2.0), sigma=(0.05, 0.05)), dict(mu=(2.0, 2.0), sigma=(1.0, 0.05))]


def _sweep(seeding):
    return run_sweep([CFG[0], CFG[0]], d=4, depth=1, seeds=[0, 1], n_per_cluster=100, epochs=2, seeding=seeding)


def test_shared_seeding_pairs_configurations_and_independent_does_not():
    shared, indep = _sweep("shared"), _sweep("independent")
    # the same configuration twice: shared seeding repeats the run, independent does not
    np.testing.assert_allclose(shared[0][0].outputs, shared[1][0].outputs)
    assert not np.allclose(indep[0][0].outputs[0], indep[1][0].outputs[0])
    seeds = {r.config["run_seed"] for recs in indep for r in recs}
    assert len(seeds) == 4 and indep[0][0].config["seeding"] == "independent"
    assert "run_seed" not in shared[0][0].config  # the default leaves the records as they were


def test_run_seed_differs_by_config_d_depth_and_stream():
    base = run_seed(0, 0, d=2, depth=4)
    others = {run_seed(0, 1, d=2, depth=4), run_seed(0, 0, d=64, depth=4), run_seed(0, 0, d=2, depth=1),
              run_seed(0, 0, d=2, depth=4, stream=1), run_seed(1, 0, d=2, depth=4)}
    assert base not in others and len(others) == 5 and base == run_seed(0, 0, d=2, depth=4)
    with pytest.raises(ValueError, match="stream"):
        run_sweep(CFG, d=4, seeds=[0], seeding="independent", stream=-1)
    with pytest.raises(ValueError, match="seeding"):
        run_sweep(CFG, d=4, seeds=[0], seeding="paired")


def test_order_passes_on_real_runs():
    recs = [r[0] for r in run_sweep(CFG, d=4, depth=1, seeds=[0], n_per_cluster=200, epochs=3)]
    assert all(isinstance(order_passes(r), bool) for r in recs)
    assert not order_passes(recs[0], time_ratio=1e9)  # no run is that clear
    with pytest.raises(ValueError, match="time_ratio"):
        order_passes(recs[0], time_ratio=0.5)


def test_seeds_needed_decides():
    from scipy.stats import fisher_exact
    n = fisher_seeds_needed(0.2, 0.0)
    k = int(0.2 * n) + 1
    assert n is not None and fisher_exact([[k, n - k], [0, n]], alternative="greater").pvalue < 0.05
    assert fisher_seeds_needed(0.1, 0.2) is None


def test_additive_null_of_the_hypercube():
    from swingby.observations.hypercube import comparable_pairs, hypercube_learning_times
    cfg = [dict(mu=(1.0, 2.0, 3.0), sigma=(0.3, 0.3, 0.3))]
    rec = run_sweep(cfg, d=4, depth=1, seeds=[0], n_per_cluster=100, epochs=3, origin_cluster=False)[0][0]
    T = hypercube_learning_times(rec, 0.5, additive="sum")
    pairs = np.array(comparable_pairs(rec.test_index))
    assert np.all(T[pairs[:, 0]] <= T[pairs[:, 1]])  # a sum of non-negative terms keeps the order
    with pytest.raises(ValueError, match="additive"):
        hypercube_learning_times(rec, 0.5, additive="yes")
