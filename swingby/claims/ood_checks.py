"""The Fig. 16 claim of the ood_checks chapter (App. F.3), registered before the fresh runs that judge it;
the constants below are written into its ``design`` text (Fig. 15's claim is in ``.sim_task``)."""
from __future__ import annotations

import math

from swingby.verdicts import Claim

__all__ = ["FIG16_CONFIGS", "FIG16_DEPTH", "FIG16_ACTIVATION", "FIG16_SEEDS", "FIG16_START", "FIG16_MAX_DELTA",
           "FIG16_NULL_BANDWIDTH", "FIG16_NULL_CENTERS", "CLAIMS"]

#: the wide clusters of Fig. 2(b) where truncation redraws points: mu = (1, 2), the
#: authors' sigma_1 = 1 and 2 and sigma_2 = 0.05 (variances) as standard deviations
FIG16_CONFIGS = tuple(dict(mu=(1.0, 2.0), sigma=(math.sqrt(s1), math.sqrt(0.05))) for s1 in (1.0, 2.0))
#: the model that could copy near points (a linear one sees only the data's moments)
FIG16_DEPTH, FIG16_ACTIVATION = 2, "relu"
#: seeds per configuration (each gives one unit), and the fresh-seed start: 24 units give
#: the share test 80 % power at the typical share 0.75 (verdicts.binomial_power)
FIG16_SEEDS, FIG16_START = 12, 616_000
#: a pair of runs "stays close" when delta (largest distance of the outputs at x_hat over
#: training, relative to ||x_hat||) is below this
FIG16_MAX_DELTA = 0.1
#: the wrong model (swingby.observations.ood_null): an RBF regression with this kernel
#: width (a fifth of the truncation radius 0.5) and this many centres, drawn from the
#: untruncated training distribution, trained by full-batch gradient descent
FIG16_NULL_BANDWIDTH, FIG16_NULL_CENTERS = 0.1, 500

#: the chapter's registered claims, in the order of the chapter
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="claim-ood-fig16",
        section="App. F.3, Fig. 16",
        quote="It is evident that only a few training samples are discarded and this "
              "truncation has little impact on the dynamics.",
        form="typical",
        unit=f"one seed of one wide configuration (two-layer ReLU, d = 64, origin cluster, SGD "
             f"lr 0.1, batch 128, 40 epochs): {FIG16_SEEDS} seeds x {len(FIG16_CONFIGS)} "
             "configurations, each unit its own run seed",
        check=f"the truncated run and its full twin (same data draw, rotation, initial weights and "
              f"shuffling) stay within delta < {FIG16_MAX_DELTA} of each other",
        wrong_model=f"a narrow Gaussian-kernel (RBF) regression f(x) = W^T phi(x), bandwidth "
                    f"{FIG16_NULL_BANDWIDTH}, {FIG16_NULL_CENTERS} centres from an independent "
                    "untruncated draw of the training distribution, trained from W = 0 by "
                    "full-batch gradient descent (step 1/lambda_max) for as many steps as the "
                    "ReLU runs, on the same full and truncated twins: its output at x_hat is set "
                    "by the training points near x_hat, not by the data's moments (eq. 4.1, "
                    "C.13), so truncation should move it; the same delta check, paired with the "
                    "ReLU twins by unit (same data draw and truncation), exact McNemar test",
        design=f"seeds fresh_seeds({FIG16_SEEDS}, {FIG16_START}); configurations {FIG16_CONFIGS}; "
               "run seeds run_seed(seed, config, d=64, depth=2, stream) with stream 0 (twins) and "
               f"1 (RBF centres); bandwidth {FIG16_NULL_BANDWIDTH}, {FIG16_NULL_CENTERS} centres; "
               "swingby.observations.ood.fig16_units",
    ),
)
