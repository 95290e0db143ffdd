"""The claims of the two_layer_theory chapters (Sec. 4.2, App. F.4), registered before the fresh runs that
judge them; the checks are :mod:`swingby.theory.two_layer_checks` with the thresholds of
:data:`swingby.theory.rules.THEORY_RULES`, and :data:`SEEDS` gives each its fresh-seed block."""
from __future__ import annotations

from swingby.theory.rules import THEORY_RULES as R
from swingby.verdicts import Claim

__all__ = ["SEEDS", "CLAIMS"]

#: fresh-seed blocks ``(start, n)``: the identity's draws, and the Fig. 5 initialisations
#: that the frequency, stage, Fig. 17 and Fig. 18 checks share
SEEDS = {"gsn": (0, R.n_gsn_draws), "fig5": (1000, R.n_fig5_units)}

_FIG5 = (f"fresh_seeds({SEEDS['fig5'][1]}, start={SEEDS['fig5'][0]}); the Fig. 5 setting of the authors' "
         "script (mu = (1, 1.5), sigma = 0.05, d = 3, their A^2, U(0) uniform in [0, 0.2)), gradient steps "
         "on U with learning rate eta / 2, eta = 0.01, 2000 steps, every step recorded "
         "(swingby.theory.two_layer_checks.fig5_record)")
_EQUAL = (f"equal signal: the same U(0) with both mu_p at equal_signal_mu = {R.equal_signal_mu} (a_1 = a_2); by "
          "eq. (4.3) both major entries grow at one rate, and Sec. 4.2.1's first suppression needs the "
          "difference of a_1 and a_2 to be large enough (Assumption D.5): its test loss descends once in "
          "every one of 200 old initialisations; paired by seed, exact McNemar test")

#: the chapter's registered claims, in the order of the chapter
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="claim-two-gsn",
        section="Sec. 4.2, eq. (4.3); App. D, eqs. (D.2)-(D.6)",
        quote="As noted in eq. (4.3), we decompose the update of $w_{i,j}$ into three terms.",
        form="identity",
        unit=(f"a random draw, fresh_seeds({SEEDS['gsn'][1]}, start={SEEDS['gsn'][0]}): d in 2..8, a uniform "
              "in [0, 2), W = U U^T with U normal of scale 0.4, and U(0) uniform in [0, 0.3)"),
        check=(f"W + eta (G - S - N) equals the step (D.2) to {R.gsn_tol} (eta = {R.gsn_eta}), and a gradient "
               f"step on U (autograd, loss 4.1) with learning rate lr is (D.2) with eta = 2 lr to second "
               f"order: its error shrinks by a factor in {R.gsn_ratio_band} from lr = {R.gsn_lrs[0]} to "
               f"{R.gsn_lrs[1]} (swingby.theory.two_layer_checks.gsn_draws)"),
        wrong_model=("three wrong variants judged by the same check on every draw: the suppression term "
                     "without 1{i != j}, the noise term with a_k in place of 2 a_k, the clock of (D.1) "
                     "(eta = lr); each (draw, variant) a wrong unit, none may pass"),
        design="the form's rule: every draw passes, no wrong unit passes",
    ),
    Claim(
        key="claim-two-fig5-stages",
        section="Sec. 4.2.2, Fig. 5",
        quote=("Notice how, as claimed above, the first and second descending of loss accurately corresponds "
               "to the initial and second growth of the major entries, and the ascending of the loss "
               "corresponds to the suppression of the minor entries."),
        form="typical",
        unit="a run of the Fig. 5 initialisations whose test loss swings by (descends twice): " + _FIG5,
        check=("(i) the minor entry w_12 peaks at most suppression_lag ascent-durations before the ascent "
               "and shrinks at every step of it (swingby.theory.rules.suppression_timing), (ii) the k-th "
               "major entry to grow passes growth_level during the k-th descent and (iii) in the order of "
               "decreasing a_p (swingby.theory.stages.stage_alignment); stages by detect_stages at rel_tol"),
        wrong_model=("the same run with its minor entry circularly shifted in time, one shift per run by at "
                     "least shift_min of the record, seeded by the run's seed, judged by (i)-(iii): same "
                     "shape and size, no timing relative to the loss, the timing Sec. 4.2.2 names as the "
                     "ascent's cause; paired, exact McNemar test"),
        design="the form's rule (typical); units are the swinging runs of the Fig. 5 block; " + _FIG5,
    ),
    Claim(
        key="claim-two-fig5-frequency",
        section="Sec. 4.2.2, Fig. 5",
        quote=("when s is small, it is easy to have many minor entries initialized positive, whose growth "
               "contributes to the decaying of loss. [...] After the minor entries of the first group are "
               "suppressed, their contribution to the decaying of the loss is canceled, which leads to the "
               "output trajectory turning back to the direction of memorizing a training cluster and a "
               "transient loss increase."),
        form="typical",
        unit="an initialisation at the Fig. 5 setting: " + _FIG5,
        check=("the test loss swings by: it descends at least twice, rises of less than rel_tol of the "
               "initial test loss not counted (swingby.theory.two_layer_checks.swings)"),
        wrong_model=_EQUAL,
        design="the form's rule (typical); the Fig. 5 row takes the weaker word of this and the stages",
    ),
    Claim(
        key="claim-two-fig17",
        section="App. F.4, Fig. 17",
        quote=("As shown in Fig. 17, the training loss monotonically decreases, exhibiting a different "
               "behavior compared to the non-monotonic test loss curve. This is expected because we used a "
               "small learning rate, and it is well-known that, under such conditions, the training loss "
               "must decay monotonically."),
        form="universal",
        unit="an initialisation at the Fig. 5 setting: " + _FIG5,
        check=("the training loss, eq. (4.1) with the a the dynamics descend, is finite and never rises "
               "from one step to the next (swingby.theory.two_layer_checks.training_loss_counts)"),
        wrong_model=(f"too large a step: the same U(0), gradient steps on U with eta = {R.fig17_eta_wrong} "
                     "over the same time (20 steps); the paper's reason is the small learning rate, and "
                     "near the minimum the error of w_pp is multiplied by 1 - 2 eta a_p, larger than 1 in "
                     "size for eta > 1 / a_max (0.79): the training loss rises in every one of 20 old "
                     "initialisations; paired by seed, exact McNemar test"),
        design="the form's rule (universal: every unit passes, at least 59 units); " + _FIG5,
    ),
    Claim(
        key="claim-two-fig18",
        section="App. F.4, Fig. 18",
        quote=("In Fig. 18, the two curves of training trajectories both exhibit non-regular behaviors, but "
               "at different stages of the training."),
        form="typical",
        unit="an initialisation at the Fig. 5 setting: " + _FIG5,
        check=("when |w_12|, the sideways component of both training outputs, peaks, one major entry is at "
               f"least growth_level = {R.growth_level} (that output has reached its concept) and the other at "
               f"most fig18_later_max = {R.fig18_later_max} (that output has not started towards its "
               "concept) (swingby.theory.two_layer_checks.fig18_stage_gap)"),
        wrong_model=_EQUAL,
        design="the form's rule (typical); " + _FIG5,
    ),
)
