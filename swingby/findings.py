"""The findings that open the introduction and the status page: sentences written by a person, their
numbers and words read from the status page's records (:mod:`swingby.status`), so that a finding cannot
say other than the row it rests on."""
from __future__ import annotations

from swingby.status import Part, Row, load
from swingby.verdicts import format_p, weakest

__all__ = ["findings"]


def _part(row: Row, label: str) -> Part:
    """The part of ``row`` labelled ``label``."""
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
    """The findings as MyST sentences, in the order a reader meets them."""
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
        f"**Which concept is learned first is typically set by $a_p = \\sigma_p^2 + "
        f"\\mu_p^2/(s+1)$, signal and diversity together** ({order.word}): where $\\mu$ alone "
        f"does not predict the order, the larger $a_p$ came first in {_of(o)} one-layer and "
        f"{_of(t)} two-layer runs, against {_of(o, True)} and {_of(t, True)} without the "
        f"diversity ({_check(order)}, {_check(two)}).",
        f"**Learning slows down gradually at the end** ({slow.word}): in {_of(s)} runs, "
        f"against {_of(s, True)} for normalised gradient descent, which stops without a "
        f"gradual tail; the check does not test the exponential form ({_check(slow)}).",
        f"**The swing-by is something deep networks at low dimension can do, not what they "
        f"usually do** ({fig3.word}): four linear layers at $d = 2$ had a non-monotone test loss "
        f"in {_of(swing)} runs, against {_of(swing, True)} with two equally strong concepts and "
        f"{_of(lowd, True)} at $d = 64$; since equal-signal runs rise too, the evidence is the "
        f"comparison ({_check(fig3)}).",
        f"**From a small initialisation a single layer cannot swing by** ({mono.word}): its "
        f"test loss was monotone in {_of(m)} runs where two layers, from the same start, swing "
        f"by in {m.null_n - m.null_k}; from a large one it can overshoot, which is no swing-by "
        f"({_check(mono)}).",
        f"**In the two-layer model of Sec. 4 the swing-by is typical on the data and "
        f"initialisation the authors' script ran, its stages timed as the paper says** "
        f"({weakest([fig5.word, stages.word])}): {_of(f5)} runs swung by ({_count(f5.null_k)} with equal "
        f"signal), each rise with the minor entry's suppression in {_of(st)}; at the caption's "
        f"$\\mu$, or from weights of both signs, a minority ({_check(stages)}).",
        "**The proofs' assumptions are far from the experiments**: at Fig. 5's setting D.2, "
        "D.4 (by orders of magnitude) and D.5's first inequality fail, and D.1 cannot hold "
        "for $d > s$; the stages come all the same ({ref}`ch-two-layer-checks`).",
        f"**Trained three-layer networks often show the same sequence, but "
        f"{link.parts[0].n} swinging runs cannot show that it is typical** ({link.word}): "
        f"{_of(link.parts[0])}, against {_of(link.parts[0], True)} with the minor entry's timing "
        f"shifted; about four times as many would decide ({_check(link)}).",
        f"**Multiple descents are possible with a subtle choice of initialisation** "
        f"({multi.word}): {min(descents)} to {max(descents)} of 1000 initialisations at the "
        f"settings of Figs. 8 and 9, none with equal signal; every ascent a suppression in "
        f"{_of(aligned)} ({_check(multi)}).",
        f"**A minor entry can hold a major one down, but for good only in the authors' "
        f"iteration on $W$** ({fail.word}): with steps on $U$, $w_{{11}}$ is held down at the "
        f"figure's horizon in {_of(trap)} runs and in {_count(never.k)} at ten times it "
        f"({_check(fail)}).",
        f"**Combinations are learned after their parts in most runs, not strictly** "
        f"({topo.word}): in {_of(script)} runs of the script's model (the others one epoch "
        f"late) and {_of(caption)} of the caption's ReLU model ({_check(topo)}).",
        "**The authors' figures ran other settings than their captions state**: $\\sigma$ as "
        "a variance, $A^2$ in the theory scripts (Fig. 5's $\\mu = (1, 1.5)$ runs as "
        "$\\mu' \\approx (1, 2.25)$) and a cluster at the origin; the book runs theirs by "
        "default, the captions' beside them ({ref}`ch-authors-code`).",
        f"**A small diffusion model on a CPU shows the order and the transient bend, with the "
        f"discs near the image centre** ({weakest([d6a.word, d6b.word])}): at weak colour signal the "
        f"held-out class learned size first in {_of(d_order)} runs (strong: "
        f"{_of(d_order, True)}), swung toward red small and back in {_of(d_swing)} (share test "
        f"p = {format_p(d_swing.p_share)}), and its concept-space error rose and fell in "
        f"{_of(bend)} ({_check(d6a)}, {_check(d6b)}).",
        f"**Capability comes well before behaviour at weak colour signal** ({lead.word}): "
        f"asked harder, the model draws the held-out class hundreds of steps before it does "
        f"when asked plainly, far longer than prompts that change nothing lead; the timing "
        f"was fixed after the data were read ({_check(lead)}).",
        f"**What the CPU scale cannot decide**: whether the diffusion model's slowing is "
        f"exponential ({d6c.word}: the check cannot tell Theorem 4.1's path from a wrong one), "
        f"and whether some seeds never show the behaviour they are capable of ({robust.word}: "
        f"here the plain prompt succeeds in every weak-signal run) ({_check(d6c)}, "
        f"{_check(robust)}).",
    ]


def findings():
    """The findings as a MyST list (``IPython.display.Markdown``), for the introduction and the status page."""
    from IPython.display import Markdown

    return Markdown("\n".join(f"- {s}" for s in sentences()))
