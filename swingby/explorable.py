"""The static explorable: an explorer's figure at every point of a small grid of its controls,
embedded in the page as lossless WebP frames with plain HTML controls and a few lines of our own
JavaScript (``explorable.js``) that swap the frame. Nothing is fetched, so the built book's
explorers move offline, from the file system. ``swingby.live.explorer`` shows one in static
mode; in a live kernel the ipywidgets explorer is unchanged.

Each frame is the PNG the notebook's inline backend makes of the figure (IPython's
``print_figure``, tight bounding box), re-encoded losslessly, so the frame of the default values
has exactly the pixels of the plain image a static page showed before.
"""
from __future__ import annotations

import base64
import hashlib
import html
import io
import itertools
import json
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

__all__ = ["Axis", "along", "render", "switch"]

SCRIPT = Path(__file__).with_name("explorable.js")
#: the most an explorable may weigh in a page (its frames, base64, and its HTML)
MAX_BYTES = 2_000_000


class Axis(NamedTuple):
    """One control of a static explorable: its ``name`` as shown (a symbol), its ``options`` as
    ``(text, settings)`` pairs (``settings``: the draw arguments it sets), and whether it is a
    ``slider`` (ordered values) or a menu."""

    name: str
    options: tuple
    slider: bool = True


def along(arg: str, name: str, values: Sequence, texts: Sequence[str] | None = None, slider: bool = True) -> Axis:
    """An :class:`Axis` moving one draw argument through ``values``.

    Parameters
    ----------
    arg, name : str
        The draw argument, and the control's name as the page shows it (e.g. ``"μ₁"``).
    values : sequence
        The grid's values of ``arg``, the default among them.
    texts : sequence of str or None
        How each value is shown (default: ``f"{value:g}"`` for numbers, ``str`` otherwise).
    slider : bool
        A slider (ordered values) or a menu.
    """
    values = list(values)
    if texts is None:
        texts = [f"{v:g}" if isinstance(v, float) else str(v) for v in values]
    if len(texts) != len(values) or len(values) < 2:
        raise ValueError(f"values must hold at least 2 values and texts one text per value, got {values!r} "
                         f"and {texts!r}")
    return Axis(name, tuple((t, {arg: v}) for t, v in zip(texts, values)), slider)


def switch(arg: str, name: str) -> Axis:
    """A menu turning the flag ``arg`` off and on.

    Parameters
    ----------
    arg, name : str
        The draw argument, and the menu's name as the page shows it.
    """
    return along(arg, name, [False, True], ["off", "on"], slider=False)


def _default_option(axis: Axis, values: dict) -> int:
    """The index of the option of ``axis`` that the default ``values`` select."""
    hits = [i for i, (_, s) in enumerate(axis.options) if all(k in values and values[k] == v for k, v in s.items())]
    if len(hits) != 1:
        raise ValueError(f"grid axis {axis.name!r} must have exactly one option at the default values, has {len(hits)}")
    return hits[0]


def _titles(fig) -> str:
    """The figure's title and its panels' titles, for the image's alternative text."""
    texts = [fig.get_suptitle()] + [ax.get_title() for ax in fig.axes]
    return "; ".join(" ".join(t.split()) for t in texts if t.strip())


def _frame(fig) -> bytes:
    """The figure as the inline backend's PNG, re-encoded as lossless WebP."""
    import matplotlib.pyplot as plt
    from IPython.core.pylabtools import print_figure
    from PIL import Image

    png = print_figure(fig, "png", bbox_inches="tight")
    plt.close(fig)
    out = io.BytesIO()
    Image.open(io.BytesIO(png)).save(out, "WEBP", lossless=True, quality=50, method=2)
    return out.getvalue()


def _control(axis: Axis, i: int, value: int, uid: str) -> str:
    """The HTML of one control, labelled with its name and current value."""
    cid = f"{uid}-{i}"
    label = f'<label for="{cid}">{html.escape(axis.name)}</label>'
    text = html.escape(axis.options[value][0])
    if axis.slider:
        return (f'<span class="sb-control">{label} <input type="range" id="{cid}" data-axis="{i}" min="0" '
                f'max="{len(axis.options) - 1}" step="1" value="{value}" aria-valuetext="{text}"> '
                f'<output for="{cid}">{text}</output></span>')
    options = "".join(f'<option value="{k}"{" selected" if k == value else ""}>{html.escape(t)}</option>'
                      for k, (t, _) in enumerate(axis.options))
    return f'<span class="sb-control">{label} <select id="{cid}" data-axis="{i}">{options}</select></span>'


def render(draw: Callable[..., object], values: dict, grid: Sequence[Axis], *, alt: str,
           prepare: Callable[[list], None] | None = None) -> str:
    """The HTML of a static explorable: ``draw(**values)`` at every point of ``grid``.

    Parameters
    ----------
    draw : callable
        Returns a matplotlib figure for keyword arguments (the explorer's own draw function).
    values : dict
        The default values of every draw argument; each axis has one option at them.
    grid : sequence of Axis
        The controls; the frames are their Cartesian product (equal frames are stored once).
    alt : str
        What the figure shows, for the image's alternative text.
    prepare : callable or None
        Called once with the list of every grid point's arguments before the first draw (to
        compute them in one batch).
    """
    if not callable(draw) or not isinstance(values, dict) or not isinstance(alt, str):
        raise ValueError(f"draw must be callable, values a dict and alt a str, got {type(draw).__name__}, "
                         f"{type(values).__name__} and {type(alt).__name__}")
    if prepare is not None and not callable(prepare):
        raise ValueError(f"prepare must be callable or None, got {type(prepare).__name__}")
    grid = list(grid) if isinstance(grid, (list, tuple)) else []
    if not grid or not all(isinstance(a, Axis) for a in grid):
        raise ValueError(f"grid must be a non-empty sequence of swingby.explorable.Axis, got {grid!r}")
    start = [_default_option(a, values) for a in grid]
    points = list(itertools.product(*(range(len(a.options)) for a in grid)))
    settings = [{**values, **{k: v for a, j in zip(grid, p) for k, v in a.options[j][1].items()}} for p in points]
    if prepare is not None:
        prepare(settings)
    frames, titles, index, seen = [], [], [], {}
    for kwargs in settings:
        fig = draw(**kwargs)
        if fig is None:
            raise ValueError(f"the explorer draws no figure at {kwargs}: the grid must hold drawable points only")
        title = _titles(fig)
        webp = _frame(fig)
        index.append(seen.setdefault(webp, len(frames)))
        if index[-1] == len(frames):
            frames.append(base64.b64encode(webp).decode("ascii"))
            titles.append(title)
    uid = "sb-" + hashlib.sha256("".join(frames).encode()).hexdigest()[:10]
    data = {"sizes": [len(a.options) for a in grid], "index": index, "frames": frames, "alt": alt, "titles": titles,
            "names": [a.name for a in grid], "labels": [[t for t, _ in a.options] for a in grid]}
    first = frames[index[points.index(tuple(start))]]
    payload = json.dumps(data).replace("</", "<\\/")  # nothing in it may close the script element
    controls = "\n".join(_control(a, i, s, uid) for i, (a, s) in enumerate(zip(grid, start)))
    page = (f'<div class="sb-explorable" id="{uid}">\n'
            f'<div class="sb-controls" style="display:flex;flex-wrap:wrap;gap:0.3em 1.5em;'
            f'font-family:sans-serif;font-size:0.9em">\n{controls}\n</div>\n'
            f'<img class="sb-frame" style="max-width:100%" alt="{html.escape(alt)}" '
            f'src="data:image/webp;base64,{first}">\n'
            f'<p style="font-size:0.8em;color:#555">Precomputed: {len(points)} settings ({len(frames)} distinct '
            f'figures). <span class="sb-status" aria-live="polite"></span></p>\n'
            f'<script type="application/json" class="sb-frames">{payload}</script>\n'
            f'<script>\n{SCRIPT.read_text()}</script>\n</div>')
    if len(page) > MAX_BYTES:
        raise ValueError(f"the explorable weighs {len(page) / 1e6:.2f} MB, more than {MAX_BYTES / 1e6:g} MB: "
                         f"use a smaller grid")
    return page
