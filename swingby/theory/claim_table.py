"""The small result table under a claim box (the SIM, theory and diffusion chapters), one row
per setting judged by :func:`swingby.verdicts.judge`."""
from __future__ import annotations

from typing import Sequence

from swingby import _checks
from swingby.verdicts import Judgement, format_p

__all__ = ["judgement_table"]


def judgement_table(rows: Sequence[tuple[str, Judgement]], *, setting: str = "setting",
                    wrong_model: str = "wrong model") -> str:
    """A Markdown table of judged settings: setting, ``k of n`` passing units, the wrong model's ``k of
    n``, the p-value (and the share test's, where the form has one) and the verdict word.

    Parameters
    ----------
    rows : sequence of (str, Judgement)
        One row per setting: its name and its :func:`~swingby.verdicts.judge` result.
    setting, wrong_model : str
        Headers of the first column and of the wrong model's column.
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
        cells = [name, f"{j.k} of {j.n}", f"{j.null_k} of {j.null_n}", format_p(j.p)]
        cells += [format_p(j.p_share)] if share else []
        lines.append("| " + " | ".join(cells + [f"**{j.word}** ({j.form})"]) + " |")
    return "\n".join(lines)
