"""What every chapter does first (like d2l's ``use_svg_display``): one call instead of
the same three lines in each chapter.

    from swingby.chapter import setup
    setup()

Whether the chapter runs live (a reader in Jupyter) or static (the book build, the
tests) is :func:`swingby.live.static`; the explorers and progress bars ask it
themselves.
"""
from __future__ import annotations

from swingby import _checks


def setup(grid: bool = True, threads: int = 1) -> None:
    """Set the book's figure style (:func:`swingby.style.apply_style`: the Okabe-Ito
    palette as the colour cycle, 150 dpi, framed legends, legible font sizes) and
    torch's thread count.

    Parameters
    ----------
    grid : bool
        Draw a light grid on every axes (the topological-order chapter turns it off
        for its heat maps).
    threads : int
        Threads for torch. The chapters train many tiny models on a shared 2-core
        machine, where one thread per process avoids spin-waiting (a tiny matrix is
        about 12x faster on one thread than on two when the machine is busy).
    """
    import torch

    from swingby.style import apply_style

    grid = _checks.flag("grid", grid)
    threads = _checks.integer("threads", threads, low=1)
    apply_style(grid)
    torch.set_num_threads(threads)


#: names the status page for an installed copy of the package (Colab), which has no
#: ``book/`` beside it: ``<a clone>/book/status.md``
STATUS_PAGE_VAR = "SWINGBY_STATUS_PAGE"


def status_page():
    """The status page ``book/status.md`` that the chapters' claims are checked against:
    beside the package in a checkout, else where ``$SWINGBY_STATUS_PAGE`` says (an
    installed copy, as in Colab).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        In an installed copy without the variable, or when the variable names no file.
    """
    import os
    from pathlib import Path

    beside = Path(__file__).resolve().parents[1] / "book" / "status.md"
    if beside.is_file():
        return beside
    named = os.environ.get(STATUS_PAGE_VAR)
    if not named:
        raise ValueError(f"no status page beside the package ({beside}): an installed copy reads it from "
                         f"${STATUS_PAGE_VAR}, set it to <a clone of the repository>/book/status.md")
    if not Path(named).is_file():
        raise ValueError(f"${STATUS_PAGE_VAR} must name the status page book/status.md, got {named!r} "
                         "(no such file)")
    return Path(named)


def status_cell(row: str, path=None) -> tuple[str, str]:
    """The verdict cell (third column) of the status page's row whose first cell is
    ``row`` or starts with it (an exact match wins over rows that only start with it),
    and the page's file name; read by the chapters' assertions that the page says what
    their checks computed (:func:`swingby.theory.rules.status_word`,
    :func:`swingby.open_questions.checks.status_answer`).

    Parameters
    ----------
    row : str
        The row's first cell, or how it starts.
    path : str or pathlib.Path, optional
        The status page (default: :func:`status_page`).

    Returns
    -------
    tuple of str
        ``(cell, file name)``.
    """
    from pathlib import Path

    if not isinstance(row, str) or not row:
        raise ValueError(f"row must be a non-empty str, got {row!r}")
    path = status_page() if path is None else Path(path)
    if not path.is_file():
        raise ValueError(f"path must be the status page, got {str(path)!r} (no such file)")
    rows = [line for line in path.read_text().splitlines() if line.startswith("| ")]
    hits = [line for line in rows if line.split("|")[1].strip() == row] or \
        [line for line in rows if line.split("|")[1].strip().startswith(row)]
    if len(hits) != 1:
        raise ValueError(f"row must start exactly one row of {path.name}, {row!r} starts {len(hits)}")
    return hits[0].split(" | ")[3].strip(), path.name
