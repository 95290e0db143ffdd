"""The small result table under a claim box (``book/beyond_two_concepts.md``,
``book/jacobian_link.md``): one row per judged setting, with its units, the wrong
model's units, the p-value and the verdict of :func:`swingby.verdicts.judge`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from swingby import _checks
from swingby.verdicts import Judgement, judge


def _p(p: float | None) -> str:
    """A p-value for the table."""
    if p is None:
        return "-"
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def judgement_table(rows: Sequence[tuple[str, Judgement]], *, setting: str = "setting",
                    wrong_model: str = "wrong model") -> str:
    """A Markdown table of judged settings: setting, ``k of n`` passing units, the wrong
    model's ``k of n``, the p-value of the comparison (and of the share test, where the
    form has one) and the verdict word. Used by ``book/beyond_two_concepts.md`` and
    ``book/jacobian_link.md``.

    Parameters
    ----------
    rows : sequence of (str, Judgement)
        One row per setting: its name and its :func:`~swingby.verdicts.judge` result.
    setting : str
        Header of the first column.
    wrong_model : str
        Header of the wrong model's column.

    Returns
    -------
    str
        Markdown, for ``IPython.display.Markdown``.
    """
    rows = list(rows) if hasattr(rows, "__iter__") and not isinstance(rows, str) else None
    if not rows or any(not (isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], Judgement)) for r in rows):
        raise ValueError("rows must be a non-empty sequence of (name, Judgement) pairs")
    _checks.instance("setting", setting, str)
    _checks.instance("wrong_model", wrong_model, str)
    share = any(j.p_share is not None for _, j in rows)
    head = [setting, "passing units", wrong_model, "p"] + (["p (share)"] if share else []) + ["verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, j in rows:
        cells = [name, f"{j.k} of {j.n}", f"{j.null_k} of {j.null_n}", _p(j.p)]
        cells += [_p(j.p_share)] if share else []
        lines.append("| " + " | ".join(cells + [f"**{j.word}** ({j.form})"]) + " |")
    return "\n".join(lines)


def judge_paired(form: str, own, null) -> Judgement:
    """:func:`~swingby.verdicts.judge` of paired units: ``own[i]`` and ``null[i]`` say
    whether unit ``i`` passes under the paper's model and under its wrong model (the same
    seed, or the same run), judged with the exact McNemar test of the discordant pairs.
    Used by ``book/beyond_two_concepts.md`` and ``book/jacobian_link.md``.

    Parameters
    ----------
    form : str
        One of :data:`swingby.verdicts.FORMS`.
    own, null : array_like(bool, ndim=1)
        One outcome per unit, same length, at least one unit.

    Returns
    -------
    Judgement
    """
    a, b = np.asarray(own), np.asarray(null)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0 or a.dtype != bool or b.dtype != bool:
        raise ValueError(f"own and null must be boolean 1-D arrays of one length (one outcome per unit), "
                         f"got {a.dtype} {a.shape} and {b.dtype} {b.shape}")
    pairs = (int(np.sum(a & ~b)), int(np.sum(~a & b)))
    return judge(form, int(a.sum()), a.size, int(b.sum()), b.size, pairs=pairs)
