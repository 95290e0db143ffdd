"""What a reader should leave the book with: the findings that open the introduction and
the status page, each a sentence written by a person with its numbers and its word read
from the status page's records (:mod:`swingby.status`), so that a finding cannot say
other than the row it rests on.
"""
from __future__ import annotations

from swingby.status import Part, Row, load


def _part(row: Row, label: str) -> Part:
    """The part of ``row`` labelled ``label`` (the first part for ``""``)."""
    if not label:
        return row.parts[0]
    hits = [p for p in row.parts if p.label == label]
    if len(hits) != 1:
        raise ValueError(f"row {row.key!r} has no single part labelled {label!r}: "
                         f"{[p.label for p in row.parts]}")
    return hits[0]


def _of(part: Part, null: bool = False) -> str:
    """``"k of n"`` (or the wrong model's)."""
    return f"{part.null_k} of {part.null_n}" if null else f"{part.k} of {part.n}"


def _count(k: int) -> str:
    """A count in words where it reads better ("none", "one")."""
    return {0: "none", 1: "one"}.get(k, str(k))


def _check(row: Row) -> str:
    """A link to the row's first claim check, or to its chapter."""
    return f"{{ref}}`check <{row.checks[0]}>`" if row.checks else row.chapter.split(",")[0]


def sentences() -> list[str]:
    """The findings, in the order a reader meets them.

    Returns
    -------
    list of str
        MyST sentences.
    """
    order, slow, fig3, mono = load("order"), load("slowing"), load("fig3"), load("one-layer-monotone")
    fig5, stages, fail = load("fig5"), load("multistage"), load("failure-mode")
    topo, link, multi = load("fig7"), load("jacobian-link"), load("fig8-9")
    d6a, d6b, d6c, robust = load("fig6a"), load("fig6b"), load("fig6c"), load("cap-robust")
    o, s, m, st, f5 = order.parts[0], slow.parts[0], mono.parts[0], stages.parts[0], fig5.parts[0]
    swing, lowd = _part(fig3, "`d = 2` vs equal signal"), _part(fig3, "`d = 2` vs `d = 64`")
    trap, never = fail.parts
    descents = [p.k for p in multi.parts if p.form == "subtle"]
    aligned = _part(multi, "stages aligned")
    script, caption = topo.parts
    d_order, d_swing, bend = _part(d6a, "order"), _part(d6a, "swing"), d6b.parts[0]
    return [
        f"**Which concept is learned first is set by $a_p$, signal and diversity together** "
        f"({order.word}): $a_p = \\sigma_p^2 + \\mu_p^2/(s+1)$ with the cluster at the origin; in "
        f"fresh one-layer runs where the signal $\\mu$ alone does not predict the order, the "
        f"concept with the larger $a_p$ came first in {_of(o)}, and with the diversity removed "
        f"the same prediction held in {_of(o, True)} ({_check(order)}).",
        f"**Learning slows down gradually at the end, as Theorem 4.1's exponentials say** "
        f"({slow.word}): in {_of(s)} fresh runs, against {_of(s, True)} for an optimiser that "
        f"walks at constant speed and stops ({_check(slow)}).",
        f"**The swing-by is something deep networks at low dimension can do, not what they "
        f"usually do** ({fig3.word}): four linear layers at $d = 2$ had a non-monotone test loss "
        f"in {_of(swing)} fresh runs, against {_of(swing, True)} on data with two equally strong "
        f"concepts and {_of(lowd, True)} at $d = 64$ ({_check(fig3)}).",
        f"**A single layer never swings by** ({mono.word}): its test loss was monotone in "
        f"{_of(m)} runs, from the same initial Jacobians from which a two-layer model swings "
        f"by in {m.null_n - m.null_k} of {m.null_n} ({_check(mono)}).",
        f"**In the two-layer model of Sec. 4 the swing-by is the typical run, and its stages are "
        f"timed as the paper says** ({weakest_of(fig5, stages)}): on the data of Fig. 5 the test "
        f"loss swung by in {_of(f5)} fresh initialisations ({_count(f5.null_k)} with equal "
        f"signal), "
        f"and in {_of(st)} of those each rise came with the suppression of the minor Jacobian "
        f"entry ({_check(stages)}).",
        "**The proofs assume more than the dynamics need**: Assumption D.1 cannot hold for any "
        "$d > s$, and D.5 as printed can never hold (with its indices swapped it holds at the "
        "data the authors' figure ran, not at its caption's), yet the stages come as Sec. 4.2 "
        "says ({ref}`ch-two-layer-checks`).",
        f"**On trained three-layer networks the same sequence is often found, but "
        f"{link.parts[0].n} swinging runs cannot show that it is the typical run's** "
        f"({link.word}): {_of(link.parts[0])}, against {_of(link.parts[0], True)} with the "
        f"minor entry's timing shifted ({_check(link)}).",
        f"**Multiple descents are possible only with a subtle choice** ({multi.word}): at the "
        f"settings of Figs. 8 and 9, {min(descents)} to {max(descents)} of 1000 initialisations "
        f"descend as often as the paper draws, none with equal signal, and in {_of(aligned)} "
        f"every ascent is a suppression ({_check(multi)}).",
        f"**A minor entry can hold a major one down, but not for good** ({fail.word}): in "
        f"{_of(trap)} fresh runs at the figure's horizon, in {_count(never.k)} at ten times it, "
        f"so the "
        f"failure mode of App. E.3 is a delay, not a loss that converges above zero "
        f"({_check(fail)}).",
        f"**The hypercube order of the test points holds in most runs, not in all** "
        f"({topo.word}): every combination is learned no earlier than its parts in "
        f"{_of(script)} runs of the script's model and {_of(caption)} of the caption's; the "
        f"paper states it for every run ({_check(topo)}).",
        "**The authors' figures ran other settings than their captions state**: the $\\sigma$ "
        "of the captions is a variance in their code, the theory scripts iterate with $A^2$ "
        "(Fig. 5's $\\mu = (1, 1.5)$ runs the dynamics of $\\mu' \\approx (1, 2.25)$), and the "
        "two-concept data have a cluster at the origin; the book runs theirs by default and "
        "shows the captions' beside them ({ref}`ch-authors-code`).",
        f"**A small diffusion model on a CPU shows the paper's order and its transient bend** "
        f"({weakest_of(d6a, d6b)}): at weak colour signal the held-out class learned size first "
        f"in {_of(d_order)} runs (strong signal: {_of(d_order, True)}), its colour fell toward "
        f"the red-small cluster and recovered in {_of(d_swing)}, and its concept-space error "
        f"rose and fell in {_of(bend)} ({_check(d6a)}, {_check(d6b)}).",
        f"**What the CPU scale cannot decide**: whether the diffusion model's slowing is "
        f"exponential ({d6c.word}: the check could not tell Theorem 4.1's own path from a "
        f"wrong one), and whether its capability comes before its behaviour in every seed "
        f"({robust.word}: at this scale the plain prompt draws the held-out class in every "
        f"weak-signal run) ({_check(d6c)}, {_check(robust)}).",
    ]


def weakest_of(*rows: Row) -> str:
    """The weakest word of ``rows`` (:func:`swingby.verdicts.weakest`)."""
    from swingby.verdicts import weakest

    return weakest([r.word for r in rows])


def findings():
    """The findings as a MyST list, for the introduction and the status page to display.

    Returns
    -------
    IPython.display.Markdown
    """
    from IPython.display import Markdown

    return Markdown("\n".join(f"- {s}" for s in sentences()))
