"""What a reader should leave the book with: the findings that open the introduction and
the status page, each a sentence written by a person with its numbers and its word read
from the status page's records (:mod:`swingby.status`), so that a finding cannot say
other than the row it rests on.
"""
from __future__ import annotations

from swingby.status import Part, Row, load
from swingby.verdicts import format_p


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
    """A link to the row's first claim check (its claim, for an exploratory row), or to its chapter."""
    kind = "claim" if row.word == "exploratory" else "check"
    return f"{{ref}}`{kind} <{row.checks[0]}>`" if row.checks else row.chapter.split(",")[0]


def sentences() -> list[str]:
    """The findings, in the order a reader meets them.

    Returns
    -------
    list of str
        MyST sentences.
    """
    order, two, slow, fig3 = load("order"), load("fig11-12"), load("slowing"), load("fig3")
    mono, fig5, stages, fail = load("one-layer-monotone"), load("fig5"), load("multistage"), load("failure-mode")
    topo, link, multi = load("fig7"), load("jacobian-link"), load("fig8-9")
    d6a, d6b, d6c, robust, lead = load("fig6a"), load("fig6b"), load("fig6c"), load("cap-robust"), load("cap-precedes")
    o, t, s, m, st, f5 = (order.parts[0], _part(two, "order"), slow.parts[0], mono.parts[0], stages.parts[0],
                          fig5.parts[0])
    swing, lowd = _part(fig3, "`d = 2` vs equal signal"), _part(fig3, "`d = 2` vs `d = 64`")
    trap, never = fail.parts
    descents = [p.k for p in multi.parts if p.form == "subtle"]
    aligned = _part(multi, "stages aligned")
    script, caption = topo.parts
    d_order, d_swing, bend = _part(d6a, "order"), _part(d6a, "swing"), d6b.parts[0]
    return [
        f"**Which concept is learned first is typically set by $a_p$, signal and diversity "
        f"together** ({order.word}): $a_p = \\sigma_p^2 + \\mu_p^2/(s+1)$ with the cluster at the "
        f"origin; where the signal $\\mu$ alone does not predict the order, the concept with the "
        f"larger $a_p$ came first in {_of(o)} fresh one-layer runs and {_of(t)} two-layer runs, "
        f"against {_of(o, True)} and {_of(t, True)} with the diversity removed "
        f"({_check(order)}, {_check(two)}).",
        f"**Learning slows down gradually at the end** ({slow.word}): in {_of(s)} fresh runs, "
        f"against {_of(s, True)} for normalised gradient descent, which reaches its end point "
        f"and stops without a gradual tail; the check tests a gradual slowing, not its "
        f"exponential form ({_check(slow)}).",
        f"**The swing-by is something deep networks at low dimension can do, not what they "
        f"usually do** ({fig3.word}): four linear layers at $d = 2$ had a non-monotone test loss "
        f"in {_of(swing)} fresh runs, against {_of(swing, True)} on data with two equally strong "
        f"concepts and {_of(lowd, True)} at $d = 64$; a non-monotone loss alone is not a swing-by "
        f"(the equal-signal runs have one too), so the evidence is the comparison "
        f"({_check(fig3)}).",
        f"**From a small initialisation a single layer cannot swing by** ({mono.word}): its "
        f"test loss was monotone in {_of(m)} runs, from the same initial Jacobians from which a "
        f"two-layer model swings by in {m.null_n - m.null_k} of {m.null_n}; from a large "
        f"initialisation its loss can rise, by an overshoot the initial weights set, not by a "
        f"turn toward a training cluster ({_check(mono)}).",
        f"**In the two-layer model of Sec. 4, on the data the authors' script ran and from its "
        f"positive initialisation, the swing-by is the typical run, with its stages timed as "
        f"the paper says** ({weakest_of(fig5, stages)}): the test loss swung by in {_of(f5)} "
        f"fresh initialisations ({_count(f5.null_k)} with equal signal), and in {_of(st)} of "
        f"those each rise came with the suppression of the minor Jacobian entry; at the "
        f"caption's own $\\mu$, or from initial weights of both signs, it is a minority "
        f"({_check(stages)}).",
        "**The proofs' assumptions are far from the experiments**: at the setting of Fig. 5, "
        "Assumptions D.2 (the step), D.4 (the initialisation, by orders of magnitude) and the "
        "first inequality of D.5 fail, D.1 cannot hold for any $d > s$, and the stages come "
        "as Sec. 4.2 says all the same: the lemmas are sufficient conditions "
        "({ref}`ch-two-layer-checks`).",
        f"**On trained three-layer networks the same sequence is often found, but "
        f"{link.parts[0].n} swinging runs cannot show that it is the typical run's** "
        f"({link.word}): {_of(link.parts[0])}, against {_of(link.parts[0], True)} with the "
        f"minor entry's timing shifted; about four times as many swinging runs would decide "
        f"({_check(link)}).",
        f"**Multiple descents are possible with a subtle choice of initialisation** "
        f"({multi.word}): at the signal strengths of Figs. 8 and 9, {min(descents)} to "
        f"{max(descents)} of 1000 initialisations descend as often as the paper draws, none with "
        f"equal signal, and in {_of(aligned)} every ascent is a suppression ({_check(multi)}).",
        f"**A minor entry can hold a major one down, for good only where the authors' iteration "
        f"leaves the model's own dynamics** ({fail.word}): with gradient steps on $U$ it holds "
        f"$w_{{11}}$ down to the figure's horizon in {_of(trap)} fresh runs and in "
        f"{_count(never.k)} at ten times it; iterating (D.2) on $W$, as the authors did, leaves "
        f"the positive semi-definite cone and can trap it for good ({_check(fail)}).",
        f"**Combinations are learned after their parts in most runs, but not strictly, as the "
        f"paper states it** ({topo.word}): every combination came no earlier than its parts in "
        f"{_of(script)} runs of the script's model (the others late by one epoch) and "
        f"{_of(caption)} of the caption's ReLU model ({_check(topo)}).",
        "**The authors' figures ran other settings than their captions state**: the $\\sigma$ "
        "of the captions is a variance in their code, the theory scripts iterate with $A^2$ "
        "(Fig. 5's $\\mu = (1, 1.5)$ runs the dynamics of $\\mu' \\approx (1, 2.25)$), and the "
        "two-concept data have a cluster at the origin; the book runs theirs by default and "
        "shows the captions' beside them ({ref}`ch-authors-code`).",
        f"**A small diffusion model on a CPU shows the paper's order and its transient bend, "
        f"with the discs near the image centre** ({weakest_of(d6a, d6b)}; at the authors' random "
        f"positions no model tried on a CPU drew the held-out class): at weak colour signal the "
        f"held-out class learned size first in {_of(d_order)} runs (strong signal: "
        f"{_of(d_order, True)}), its colour fell toward the red-small cluster and recovered in "
        f"{_of(d_swing)} (share test p = {format_p(d_swing.p_share)}), and its concept-space "
        f"error rose and fell in {_of(bend)} ({_check(d6a)}, {_check(d6b)}).",
        f"**Capability comes well before behaviour at weak colour signal, measured, not judged** "
        f"({lead.word}): asked harder, the model draws the held-out class many hundreds of steps "
        f"before it does so when asked plainly, far longer than prompts that change nothing "
        f"lead; the timing was chosen after the data were read ({_check(lead)}).",
        f"**What the CPU scale cannot decide**: whether the diffusion model's slowing is "
        f"exponential ({d6c.word}: the check could not tell Theorem 4.1's own path from a "
        f"wrong one), and whether every seed acquires the capability while some never show the "
        f"behaviour ({robust.word}: at this scale the plain prompt draws the held-out class in "
        f"every weak-signal run; larger images, random disc positions and longer training "
        f"would decide) ({_check(d6c)}, {_check(robust)}).",
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
