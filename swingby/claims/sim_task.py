"""The claims of the sim_task chapter (Sec. 4, App. C.1, F.3), registered before the fresh runs that judge
them; the constants below (data, units, tolerances) are written into the claims' ``design`` texts."""
from __future__ import annotations

import math

from swingby.verdicts import Claim

__all__ = ["A_MU", "A_SIGMA", "A_D", "A_N_PER_CLUSTER", "A_UNITS", "A_Z_MAX", "A_START", "FROB_MU", "FROB_SIGMA",
           "FROB_D", "FROB_UNITS", "FROB_TOL", "FROB_W_SCALE", "FROB_START", "OOD_MU", "OOD_SIGMA", "OOD_UNITS",
           "OOD_START", "OOD_NULL_MU", "OOD_NULL_SIGMA", "OOD_NULL_UNITS", "OOD_NULL_START", "CLAIMS"]

# ------------------------------------------------------------------ eq. (C.13)
#: data of the eq. (C.13) check: cluster distances, standard deviations, dimension
A_MU, A_SIGMA, A_D = (1.0, 2.0, 0.5), (0.5, 0.3, 0.8), 6
#: points per cluster and independent draws per setting (without, then with the origin cluster)
A_N_PER_CLUSTER, A_UNITS = 5000, 20
#: an entry of A passes when within this many standard errors of eq. (C.13)
A_Z_MAX = 5.0
#: fresh-seed blocks (start index) of the two settings
A_START = (0, 20)
# ------------------------------------------------------------------- eq. (4.1)
#: data of the eq. (4.1) check (the authors' "0.05" as a standard deviation), units, tolerance
FROB_MU, FROB_SIGMA, FROB_D = (1.0, 2.0), (math.sqrt(0.05),) * 2, 64
FROB_UNITS, FROB_TOL, FROB_W_SCALE, FROB_START = 20, 1e-8, 0.2, 40
# ------------------------------------------------------------ App. F.3, Fig. 15
#: the Fig. 2(c) data as the authors ran them (mu, standard deviations, origin cluster)
OOD_MU, OOD_SIGMA = (2.0, 4.0), (math.sqrt(0.05),) * 2
#: independent draws (the share test and the comparison with the wide clusters need far
#: fewer; the many draws measure the share of draws with a stray point, 1-2 % on old seeds)
OOD_UNITS, OOD_START = 300, 60
#: the comparator: the widest clusters of Fig. 2(b) (authors' sigma_1 = 2, a variance)
OOD_NULL_MU, OOD_NULL_SIGMA = (1.0, 2.0), (math.sqrt(2.0), math.sqrt(0.05))
OOD_NULL_UNITS, OOD_NULL_START = 100, 360

#: the chapter's registered claims, in the order of the chapter
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="claim-sim-ood",
        section="App. F.3, Fig. 15 (and the authors' reply on Fig. 2b)",
        quote="It is clear that there is no training point that is close to the test point.",
        form="typical",
        unit=f"one independent draw of the Fig. 2(c) training set (mu = {OOD_MU}, standard "
             f"deviations {OOD_SIGMA}, origin cluster, 5000 points per cluster); "
             f"{OOD_UNITS} draws",
        check="no training point lies within the truncation radius min(mu)/2 of x_hat "
              "(the paper's own yardstick of 'close', App. F.3). Typical, not universal: the "
              "paper's next sentence says truncation at that radius discards 'only a few "
              "training samples' in this very setting, so the claim is that the typical draw "
              "has none",
        wrong_model="the wide clusters of Fig. 2(b) (authors' sigma_1 = 2): a setting the paper "
                    "calls in-distribution (Sec. 3 remark: sigma_p comparable to mu_p), with "
                    f"its own radius min(mu)/2; {OOD_NULL_UNITS} draws",
        design=f"seeds fresh_seeds({OOD_UNITS}, {OOD_START}) and fresh_seeds({OOD_NULL_UNITS}, "
               f"{OOD_NULL_START}); wide clusters mu = {OOD_NULL_MU}, standard deviations "
               f"{OOD_NULL_SIGMA}; distances at d = s un-rotated (rotation and d do not change "
               "them); swingby.observations.ood.nearest_training_points",
    ),
    Claim(
        key="claim-sim-a",
        section="Sec. 4 and App. C.1, eq. (C.13)",
        quote="we assume n is large, in which case A converges to the true covariance of the "
              "dataset A = E[x x^T], which is a diagonal matrix A = diag(a), defined by "
              "a_p = sigma_p^2 + mu_p^2 / s for p <= s and 0 for p > s",
        form="identity",
        unit=f"one independent draw of a training set (mu = {A_MU}, sigma = {A_SIGMA}, "
             f"d = {A_D}, {A_N_PER_CLUSTER} points per cluster, un-rotated); {A_UNITS} draws "
             f"without and {A_UNITS} with the origin cluster (s + 1 in place of s)",
        check=f"every entry of the sampled A in the concept directions within {A_Z_MAX} "
              "standard errors of diag(a) (off-diagonal against 0), and the entries beyond s "
              "exactly 0",
        wrong_model="the variants of the formula a reader could write: sigma read as a variance, "
                    "mu^2 not divided by the number of clusters, the sign of mu^2 flipped, and "
                    "(origin cluster) s clusters counted where there are s + 1; each judged on "
                    "every draw by its diagonal, with the same tolerance",
        design=f"seeds fresh_seeds({A_UNITS}, {A_START[0]}) (no origin cluster) and "
               f"fresh_seeds({A_UNITS}, {A_START[1]}) (origin cluster); "
               "swingby.sim.identity_checks.second_moment_units",
    ),
    Claim(
        key="claim-sim-frobenius",
        section="Sec. 4, eq. (4.1), App. C.1",
        quote="Using the trace trick (with detailed calculations provided in App. C.1), it is "
              "easy to show that the overall loss function is equal L(theta) = 1/2 "
              "||(W_theta - I) A^{1/2}||_F^2",
        form="identity",
        unit=f"one independent draw of a training set (mu = {FROB_MU}, standard deviations "
             f"{FROB_SIGMA}, d = {FROB_D}, rotated, origin cluster) and of W (i.i.d. "
             f"N(0, {FROB_W_SCALE}^2) entries); {FROB_UNITS} draws",
        check=f"the training loss (2.1) of f(x) = W x and 0.5 ||(W - I) A^(1/2)||_F^2 of the "
              f"sampled A agree to {FROB_TOL} relative (float64)",
        wrong_model="slips of the right-hand side: A in place of A^(1/2), A^(1/2) multiplied on "
                    "the left of W - I, and the population diag(a) (rotated) in place of the "
                    "sampled A; each judged on every draw with the same tolerance",
        design=f"seeds fresh_seeds({FROB_UNITS}, {FROB_START}); "
               "swingby.sim.identity_checks.frobenius_units",
    ),
)
