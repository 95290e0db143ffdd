"""The claims of the beyond_two_concepts chapter (App. E), registered before the fresh runs that judge
them. Each claim's ``design`` renders the constants its checks read, so the fingerprint covers them;
seed blocks (``start``, count) index :func:`swingby.claims.fresh_seeds`, disjoint across checks.
"""
from __future__ import annotations

from swingby.verdicts import Claim

__all__ = ["MULTI", "FAILURE", "E1", "WIDTH", "CLAIMS"]

#: Figs. 8, 9 (App. E.1): the four settings of the figures, on the data they were made
#: from (the authors' A^2), gradient steps on U to the scripts' t = 100; setting k takes
#: fresh seeds start + k * n_seeds .. start + (k + 1) * n_seeds - 1; a run "descends
#: s times" at the tolerance rel_tol (a share of the initial test loss)
MULTI = dict(settings=("fig8_caption", "fig8_script", "fig9_script", "fig9_caption"), matrix="authors",
             iterate="U", record_every=10, rel_tol=0.01, n_seeds=1000, start=0)

#: Fig. 10 (App. E.3): the figure's setting and data (A^2), gradient steps on U to the
#: figure's horizon t = 100 and, for "never grows", to long_horizon (ten times it), the
#: thresholds of swingby.theory.beyond_checks.failure_parts; fresh seeds start .. start +
#: n_seeds - 1 (a block no check had run)
FAILURE = dict(setting="fig10", matrix="authors", iterate="U", record_every=10, horizon=100.0,
               long_horizon=1000.0, minor_growth=2.0, major_drop=0.5, growth_level=0.5, n_seeds=200,
               start=504000)

#: eq. (E.1): Gaussian U, d = 3, three widths, n_draws initialisations per width (width i:
#: fresh seeds start + i * n_draws ..), a formula passes a width within n_se standard errors
E1 = dict(d=3, d_primes=(3, 30, 300), tau=0.1, n_draws=2000, start=5000, n_se=5.0)

#: App. E.2: the data of Fig. 5 (mu = (1, 1.5), sigma = 0.05, d = 3), Gaussian U at width
#: d' with tau = sqrt(w0 / d'), gradient steps on U (eta, steps); width i: fresh seeds
#: start + i * n_seeds ..; the claim compares the narrowest against the widest width in
#: every column w0 and for both matrices
WIDTH = dict(mu=(1.0, 1.5), sigma=0.05, d=3, d_primes=(3, 12, 48), w0s=(0.01, 0.04, 0.16),
             matrices=("authors", "paper"), eta=0.02, steps=2500, rel_tol=0.01, n_seeds=500, start=11000)


def _constants(values: dict) -> str:
    """The constants of a design, as registered text."""
    return "; constants: " + ", ".join(f"{k}={v!r}" for k, v in sorted(values.items()))


#: the chapter's registered claims, in the order of the chapter
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="claim-beyond-multiple-descent",
        section="App. E.1, Figs. 8 and 9",
        quote=("It is indeed possible to see multiple descent but only with a subtle choice of the "
               "signal strengths (\u03bc) and under specific initialization conditions."),
        form="subtle",
        unit=("one initialisation (fresh seed) of the symmetric model at one of the four settings of "
              "Figs. 8, 9 (caption and script), 1000 per setting, disjoint seeds"),
        check=("the test loss descends s or more times (s = 3 for Fig. 8, 4 for Fig. 9), rises of less "
               "than rel_tol of the initial test loss not counted (swingby.theory.stages.count_descents)"),
        wrong_model=("equal signal: the same U(0) with the informative a_p replaced by their mean "
                     "(swingby.theory.beyond_checks.equal_signal_a); with A = aI, W(t) keeps the "
                     "eigenvectors of W(0), no major entry leads and the test loss is monotone "
                     "(0 of 200 with two descents); paired by seed, exact McNemar test"),
        design=("judged at each of the four settings (subtle: passing runs occur, more than the "
                "wrong model's, and fewer than half); the row takes the weakest word"
                + _constants(MULTI)),
    ),
    Claim(
        key="claim-beyond-alignment",
        section="App. E.1, Figs. 8 and 9",
        quote=("each ascending / descending stage of loss curve aligns well with a stage of growth / "
               "suppression of the minor and major entries"),
        form="typical",
        unit=("a run with s or more descents from the multiple-descent check (the four settings pooled; "
              "each run an independent initialisation)"),
        check=("swingby.theory.stages.stage_alignment holds (the k-th major entry passes growth_level "
               "in the k-th descent, in the order of decreasing a_p) and every ascent is timed by the "
               "suppression of its group of minor entries (swingby.theory.rules.suppression_timing)"),
        wrong_model=("the same run with its minor entries circularly shifted in time, one shift per run "
                     "seeded by the run's seed, at least shift_min of the record "
                     "(swingby.theory.beyond_checks.shifted_minor_record): keeps the loss, the major "
                     "entries and the shape of the minor entries, removes the suppression's timing that "
                     "Sec. 4.2.2 names as the cause of each ascent; paired, exact McNemar test"),
        design="the runs of claim-beyond-multiple-descent" + _constants(MULTI),
    ),
    Claim(
        key="claim-beyond-e1",
        section="App. E.2, eq. (E.1)",
        quote=("If we use Gaussian distribution to initialize U, i.e. u_i ~ N(0, \u03c4^2 I), where \u03c4 "
               "is a small real number, then we have the expectation of w_{i,j} be E w_{i,j} = 0 for "
               "i \u2260 j and d'\u03c4^2 for i = j (E.1)"),
        form="identity",
        unit="a width d' (three), with n_draws Gaussian initialisations each (fresh seeds)",
        check=("the sample means of w_11 and w_12 of W = UU^T are within n_se standard errors of "
               "d' tau^2 and 0 (swingby.theory.beyond_init.e1_units)"),
        wrong_model=("four wrong variants (swingby.theory.beyond_init.E1_FORMULAS): E w_ii = tau^2, "
                     "d' tau, sqrt(d') tau^2, and E w_ij = tau^2; a variant passes if it passes at "
                     "every width"),
        design=_constants(E1).lstrip("; "),
    ),
    Claim(
        key="claim-beyond-phase",
        section="App. E.2 (with Sec. 3.3)",
        quote=("another reason for the Transient Memorization to be less significant is that "
               "Assumption D.4 breaks down when the dimension is high, if we use standard Gaussian "
               "initialization to initialize the model weights"),
        form="comparative",
        unit=("one Gaussian initialisation (fresh seed) at width d', independent seeds per width "
              "(shared, scaled, across the columns w0 of one width)"),
        check=("the test loss descends twice or more (swing-by), with the initial scale "
               "w0 = E w_ii(0) = d' tau^2 held fixed across widths "
               "(swingby.theory.beyond_init.width_counts)"),
        wrong_model=("comparative: the widest model (d' = 48) is the group the claim says swings by "
                     "less often, against the narrowest (d' = 3), one-sided Fisher test"),
        design=("judged in every column w0 and for both matrices (A^2 of the authors' figures, the "
                "paper's A), six comparisons; the row takes the weakest word" + _constants(WIDTH)),
    ),
    Claim(
        key="claim-beyond-fig10",
        section="App. E.3, Fig. 10",
        quote=("it is possible that the minor entry is not suppressed until it grows to a significant "
               "value, which can, in turn, lead to a too strong suppression on the corresponding major "
               "entry. In this case, a major entry might be suppressed to 0 (or at least, leave the "
               "initial phase from below) before it starts to grow"),
        form="possibility",
        unit="one initialisation (fresh seed) at the Fig. 10 setting on its data (A^2), 200",
        check=("swingby.theory.beyond_checks.failure_parts: the largest minor entry of w_11's group "
               "peaks above minor_growth times its start, after that peak w_11 falls below major_drop "
               "of its start, and w_11 is still below growth_level at the figure's horizon t = 100 "
               "(gradient steps on U, W = UU^T positive semi-definite)"),
        wrong_model=("no minor initialisation: the same w_ii(0) with w_ij(0) = 0 (U = diag(sqrt w_ii)); "
                     "by eq. (4.3) the minor entries then stay 0, N_11 = 0 and w_11 is never pushed "
                     "down (0 of 200); paired by seed, exact McNemar test"),
        design=("part (i) of the App. E.3 row, the long suppression, read at the figure's horizon; "
                "part (ii) is claim-beyond-fig10-never; the two parts of one claim are joined by swingby.verdicts.combine_parts"
                + _constants(FAILURE)),
    ),
    Claim(
        key="claim-beyond-fig10-never",
        section="App. E.3, Fig. 10",
        quote=("Notice how the loss value converges to a non-zero value and the major entry $w_{1,1}$ "
               "is suppressed at the very beginning and never grows."),
        form="possibility",
        unit="the initialisations of claim-beyond-fig10 (the same 200 fresh seeds), one unit each",
        check=("the check of claim-beyond-fig10 passes and w_11 is still below growth_level at "
               "long_horizon t = 1000, ten times the figure's, under the same gradient steps on U "
               "(swingby.theory.beyond_checks.FailureUnits.never_passes)"),
        wrong_model=("no minor initialisation, as for claim-beyond-fig10, run to the same long horizon "
                     "(0 of 200 by construction: it fails part (i)); unpaired Fisher test, since with "
                     "no passing unit on either side the McNemar test has no discordant pair and no "
                     "power, while Fisher's test on the same counts has it for the implied effect"),
        design=("part (ii) of the App. E.3 row, 'never grows', read at long_horizon; (D.2) iterated on "
                "W, which leaves the positive semi-definite cone, is shown beside, not judged"
                + _constants(FAILURE)),
    ),
)
