"""The status page's rows (``book/status.md``): a chapter passes the :class:`Row` it computed to :func:`record`,
which fails when the row stored in ``swingby/status_records/<key>.json`` says otherwise (``make records`` stores
the computed rows); the status page and the findings (:mod:`swingby.findings`) render the stored rows.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from itertools import groupby
from pathlib import Path
from typing import NamedTuple

from swingby import verdicts

__all__ = ["Part", "Row", "load", "record", "table"]

#: where the stored rows live (package data: an installed copy has them too)
RECORDS = Path(__file__).resolve().parent / "status_records"

#: set to ``write`` to store the rows the chapters compute instead of checking them
MODE_VAR = "SWINGBY_RECORDS"

#: the status page's sections, each with its rows' keys in the page's order
SECTIONS: dict[str, tuple[str, ...]] = {
    "figures": ("fig1ab", "fig1c", "fig2", "fig3", "fig4", "fig5", "fig6a", "fig6b", "fig6c", "fig7",
                "fig8-9", "fig10", "fig11-12", "fig13-14", "fig15", "fig16", "fig17-18", "fig19"),
    "claims": ("loss-2-1", "a-diag", "no-near-point", "order", "slowing", "reach", "swingby",
               "order-homomorphism", "thm41", "one-layer-monotone", "gsn", "multistage", "jacobian-link",
               "multiple-descents", "failure-mode", "diffusion-sec5"),
    "study": ("cap-memorization", "cap-precedes", "cap-robust", "cap-linear", "cap-turn", "cap-embedding",
              "cap-probes", "cap-colour", "cap-big-blue"),
    "questions": ("q1", "q1-diffusion", "q2", "q3", "q4", "q5"),
}

#: the words a row of a section other than the questions may carry
WORDS = verdicts.WORDS + ("illustration", "exploratory")

#: each section's first two column headings
HEADINGS = {"figures": ("figure", "what it shows"), "claims": ("claim", "where in the paper"),
            "study": ("figure or claim", "what it shows"), "questions": ("question", "asked where")}


class Part(NamedTuple):
    """One judged part of a row: its counts, its test and its word."""

    label: str               #: what the part judges ("" for a row with one part)
    form: str                #: the claim's form, one of :data:`swingby.verdicts.FORMS`
    k: int                   #: passing units
    n: int                   #: units
    null_k: int | None       #: passing units of the wrong model (or of the other group)
    null_n: int | None       #: units of the wrong model
    p: float | None          #: the two-sample (or paired) test's p-value
    p_share: float | None    #: the share test's p-value (typical, subtle claims)
    word: str                #: the part's word

    @classmethod
    def of(cls, label: str, judgement: verdicts.Judgement) -> "Part":
        """The part that ``judgement`` (:func:`swingby.verdicts.judge`) decides.

        Parameters
        ----------
        label, judgement
            What the part judges, as the status page names it ("" for a single part); its verdict.
        """
        if not isinstance(label, str):
            raise ValueError(f"label must be a str, got {label!r}")
        if not isinstance(judgement, verdicts.Judgement):
            raise ValueError(f"judgement must be a swingby.verdicts.Judgement, got {type(judgement).__name__}")
        j = judgement
        return cls(label, j.form, j.k, j.n, j.null_k, j.null_n, j.p, j.p_share, j.word)

    def effect(self) -> str:
        """The part in words: ``"label: form, k of n vs k0 of n0, p = ..."``."""
        text = f"{self.form}, {self.k} of {self.n}"
        if self.null_n is not None:
            text += f" vs {self.null_k} of {self.null_n}"
        if self.p is not None:
            text += f", p = {verdicts.format_p(self.p)}"
        return f"{self.label}: {text}" if self.label and self.label != self.form else text


@dataclass(frozen=True)
class Row:
    """One row of the status page."""

    key: str                    #: the row's key, a key of ``SECTIONS``
    name: str                   #: the first cell: the figure or claim, as the paper names it (MyST)
    shows: str                  #: the second cell: what it shows, or where in the paper the claim is made
    chapter: str                #: the third cell: MyST references to the chapter (and its figure)
    word: str                   #: the verdict word (one of ``WORDS``), or a question's short answer
    evidence: str               #: one or two sentences written by a person, its numbers filled in by code
    parts: tuple = field(default=())   #: the :class:`Part` s behind the word (none for an illustration)
    checks: tuple = field(default=())  #: labels of the claim checks (admonitions) that back the word

    def __post_init__(self):
        section = section_of(self.key)
        for name in ("name", "shows", "chapter", "word", "evidence"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty str, got {value!r}")
        if section != "questions" and self.word not in WORDS:
            raise ValueError(f"word must be one of {WORDS}, got {self.word!r}")
        parts = tuple(Part(*p) for p in self.parts)
        if any(p.form not in verdicts.FORMS or p.word not in verdicts.WORDS for p in parts):
            raise ValueError(f"parts must be Part.of(label, judgement) values, got {self.parts!r}")
        if not all(isinstance(c, str) and c for c in self.checks):
            raise ValueError(f"checks must be labels of claim checks, got {self.checks!r}")
        object.__setattr__(self, "parts", parts)
        object.__setattr__(self, "checks", tuple(self.checks))

    def cell(self) -> str:
        """The status cell: the word, the evidence, the parts' counts and the check links."""
        counts = "; ".join(_effects(self.parts))
        kind = "claim" if self.word == "exploratory" else "check"  # an exploratory row has no check
        if not self.checks:
            links = ""
        elif len(self.checks) == 1:
            links = f"{{ref}}`{kind} <{self.checks[0]}>`"
        else:  # named by their labels, less "claim-" and the chapter's prefix
            names = [" ".join(c.split("-")[2:]) or c for c in self.checks]
            links = f"{kind}s: " + ", ".join(f"{{ref}}`{n} <{c}>`" for n, c in zip(names, self.checks))
        tail = "; ".join(t for t in (counts, links) if t)
        text = f"**{self.word}**: {self.evidence.strip()}"
        return f"{text} ({tail})" if tail else text


def _effects(parts) -> list[str]:
    """The parts in words; three or more in a row with one form, units and wrong model read as one."""
    out = []
    # a part without a p stands alone (a fresh object() equals nothing)
    for _, group in groupby(parts, lambda p: (p.form, p.n, p.null_k, p.null_n) if p.p is not None else object()):
        run = list(group)
        if len(run) < 3:
            out += [p.effect() for p in run]
            continue
        first, ks = run[0], [str(p.k) for p in run]
        named = ", ".join(p.label for p in run)
        labels = f" ({named})" if all(p.label for p in run) and len(named) <= 60 else f" ({len(run)} settings)"
        text = f"{first.form}{labels}: {', '.join(ks[:-1])} and {ks[-1]} of {first.n}"
        if first.null_n is not None:
            text += f" vs {first.null_k} of {first.null_n}"
        ps = sorted(p.p for p in run)
        out.append(text + f", p = {verdicts.format_p(ps[0])} to {verdicts.format_p(ps[-1])}")
    return out


def section_of(key: str) -> str:
    """The section whose rows include ``key``, else a ValueError."""
    for section, keys in SECTIONS.items():
        if key in keys:
            return section
    raise ValueError(f"key must be a row of the status page ({', '.join(k for ks in SECTIONS.values() for k in ks)}), "
                     f"got {key!r}")


def _as_json(row: Row) -> dict:
    """The row as the JSON file stores it."""
    data = asdict(row)
    data["parts"] = [p._asdict() for p in row.parts]
    data["checks"] = list(row.checks)
    return data


def load(key: str) -> Row:
    """The stored row ``key`` (a key of ``SECTIONS``)."""
    section_of(key)
    path = RECORDS / f"{key}.json"
    if not path.is_file():
        raise ValueError(f"key {key!r} has no stored row ({path}): execute its chapter with "
                         f"{MODE_VAR}=write (make records)")
    data = json.loads(path.read_text())
    data["parts"] = tuple(Part(**p) for p in data["parts"])
    return Row(**data)


def record(row: Row) -> Row:
    """Check the row a chapter computed against the stored one, naming the fields that differ (or store
    it, with ``SWINGBY_RECORDS=write``); returns ``row``."""
    if not isinstance(row, Row):
        raise ValueError(f"row must be a swingby.status.Row, got {type(row).__name__}")
    mode = os.environ.get(MODE_VAR, "check")
    if mode not in ("check", "write"):
        raise ValueError(f"${MODE_VAR} must be 'check' or 'write', got {mode!r}")
    if mode == "write":
        RECORDS.mkdir(exist_ok=True)
        (RECORDS / f"{row.key}.json").write_text(json.dumps(_as_json(row), indent=1, ensure_ascii=False) + "\n")
        return row
    stored = _as_json(load(row.key))
    now = _as_json(row)
    changed = [name for name in now if now[name] != stored[name]]
    if changed:
        detail = "; ".join(f"{name}: stored {stored[name]!r}, computed {now[name]!r}" for name in changed)
        raise ValueError(f"the status page's row {row.key!r} is stale ({detail}); store the computed rows "
                         f"with make records")
    return row


def word_of(name: str) -> str:
    """The stored word of the one row whose first cell is ``name`` or starts with it (an exact match wins)."""
    every = [load(key) for keys in SECTIONS.values() for key in keys]
    hits = [r for r in every if r.name == name] or [r for r in every if r.name.startswith(name)]
    if len(hits) != 1:
        raise ValueError(f"name must start exactly one row of the status page, {name!r} starts {len(hits)}")
    return hits[0].word


def table(section: str):
    """The stored rows of a section ("figures", "claims", "study" or "questions") as a MyST table."""
    from IPython.display import Markdown

    if section not in SECTIONS:
        raise ValueError(f"section must be one of {tuple(SECTIONS)}, got {section!r}")
    first, second = HEADINGS[section]
    lines = [f"| {first} | {second} | chapter | status |", "|---|---|---|---|"]
    for row in (load(key) for key in SECTIONS[section]):
        # chapter references named by their labels ("observations"), not their long titles
        chapter = re.sub(r"\{ref\}`ch-([a-z-]+)`",
                         lambda m: f"{{ref}}`{m.group(1).replace('-', ' ')} <ch-{m.group(1)}>`", row.chapter)
        cells = (row.name, row.shows, chapter, row.cell())
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return Markdown("\n".join(lines))
