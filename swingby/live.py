"""Live or static: whether a person is at the notebook.

A chapter runs in one of two ways:

* **live** (the default): a reader runs it in Jupyter or Colab. Each explorer draws its
  default view, then its controls (ipywidgets), and redraws when a control moves;
  long loops show a progress bar.
* **static**: the chapter is executed with nobody at it, to make a record: the book
  build (``make book``), the test run (``make test``: nbval, then the strict build),
  the installed-copy test and the stress command. The environment variable
  ``SWINGBY_STATIC=1`` says so; the Makefile exports it for those targets, and
  ``.ci/run`` and the tests that execute notebooks set it too. Then each explorer draws
  only its default view, as a plain image, and creates **no widget** (no ipywidgets
  messages between kernel and client: a notebook client can wait its whole timeout
  after a widget cell, and a static page's sliders would move without redrawing
  anything); progress bars are off.

Static mode changes no computation: every chapter runs the same experiments at the
same settings either way.
"""
from __future__ import annotations

import io
import os
from typing import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks

#: The environment variable that switches the chapters to static mode.
ENV_VAR = "SWINGBY_STATIC"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


def static() -> bool:
    """Whether the chapters run in static mode (see the module docstring).

    Returns
    -------
    bool
        True when ``SWINGBY_STATIC`` is ``1`` (or true/yes/on), False when it is unset,
        empty or ``0`` (false/no/off).

    Raises
    ------
    ValueError
        For any other value, so that a typo never silently gives live widgets in a build.
    """
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"the environment variable {ENV_VAR} must be 1 (static: no widgets, no progress bars) "
                     f"or 0/unset (live), got {os.environ[ENV_VAR]!r}")


def progress(iterable=None, *, desc: str | None = None, total: int | None = None, enabled: bool = True,
             **kwargs):
    """A tqdm progress bar over ``iterable``, shown only where a person may watch it.

    In live mode this is ``tqdm.auto.tqdm`` (a widget bar in Jupyter, text in a
    terminal); in static mode, or with ``enabled=False``, the bar is disabled (it still
    iterates) and no widget is made.

    Parameters
    ----------
    iterable : iterable or None
        What to iterate over (``None`` for a bar updated by hand).
    desc : str or None
        The bar's label.
    total : int or None
        Number of items, when ``iterable`` has no length.
    enabled : bool
        False hides the bar in live mode too (the package's ``progress=`` arguments).
    **kwargs
        Passed on to tqdm.

    Returns
    -------
    tqdm.tqdm
        The bar, iterable like ``iterable``.
    """
    if static() or not enabled:
        from tqdm.std import tqdm
        return tqdm(iterable, desc=desc, total=total, disable=True, **kwargs)
    from tqdm.auto import tqdm
    return tqdm(iterable, desc=desc, total=total, **kwargs)


def figure_png(fig) -> bytes:
    """The PNG bytes of a matplotlib figure (what an explorer shows).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.

    Returns
    -------
    bytes
        The figure rendered as PNG at its own dpi.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


class Explorer:
    """A live explorer: its controls, its output area and what it drew last.

    Made by :func:`explorer`; the explorers of :mod:`swingby.sim.explorer`,
    :mod:`swingby.observations.explorer`, :mod:`swingby.theory.explorer`,
    :mod:`swingby.diffusion.fig6.explorer` and :mod:`swingby.capability.explorer`
    return one in live mode (``None`` in static mode).

    Its attributes: ``box``, the controls and the output area as displayed (an
    ipywidgets box); ``controls``, the controls by the name of the value each one sets
    (a dict of ipywidgets); ``out``, the output area that each redraw fills (empty until
    a control moves); ``draws``, how many times the view was drawn (1 for the default
    view, plus one per redraw); ``last_png``, the PNG bytes of the last figure drawn
    (``None`` when the last draw printed a message instead of drawing a figure).
    """

    def __init__(self, box, controls: dict, out):
        self.box, self.controls, self.out = box, dict(controls), out
        self.draws, self.last_png = 0, None

    def values(self) -> dict:
        """The controls' current values, by name.

        Returns
        -------
        dict
            ``{name: value}``.
        """
        return {k: w.value for k, w in self.controls.items()}

    def _ipython_display_(self):
        from IPython.display import display
        display(self.box)

    def __repr__(self) -> str:
        return f"Explorer({len(self.controls)} controls, {self.draws} views drawn)"


def explorer(draw: Callable[..., object], values: dict, make_controls: Callable[[], dict],
             layout: Sequence[int] | None = None, side: bool = True, note: str | None = None) -> Explorer | None:
    """Show an explorer's default view, then (live mode only) its controls.

    The default view, ``draw(**values)``, is drawn at once as a plain figure
    (``plt.show``: an image in the notebook and in the built page). In static mode
    nothing else happens and ``None`` is returned: ``make_controls`` is never called, so
    no widget is created. In live mode the controls are displayed beside (``side``) or
    above an output area that is filled again, with ``draw`` at the controls' values,
    whenever a control changes.

    Parameters
    ----------
    draw : callable
        ``draw(**values)`` draws the view and returns its matplotlib figure (shown, then
        closed, here), or ``None`` when it printed a message instead of a figure.
    values : dict
        The default values, by the name of ``draw``'s keyword arguments.
    make_controls : callable
        ``make_controls()`` returns ``{name: widget}`` for the same names, each widget
        set to its default value.
    layout : sequence of int or None
        How many controls per row, in order (e.g. ``(2, 2)``); ``None``: one column.
    side : bool
        Output area beside the controls (True) or below them (False).
    note : str or None
        A line printed in the output area until the first redraw.

    Returns
    -------
    Explorer or None
        The live explorer; ``None`` in static mode.
    """
    for name, fn in (("draw", draw), ("make_controls", make_controls)):
        if not callable(fn):
            raise TypeError(f"{name} must be callable, got {type(fn).__name__}")
    side = _checks.flag("side", side)
    if note is not None and not isinstance(note, str):
        raise TypeError(f"note must be a string or None, got {type(note).__name__}")
    if not isinstance(values, dict) or not values:
        raise ValueError(f"values must be a non-empty dict of the explorer's default values, got {values!r}")
    if layout is not None and (any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in layout)
                               or sum(layout) != len(values)):
        raise ValueError(f"layout must be positive integers that add up to the {len(values)} controls, "
                         f"got {list(layout)}")
    live = not static()
    state = {"draws": 0, "png": None}

    def show(current: dict) -> None:
        fig = draw(**current)
        state["draws"] += 1
        state["png"] = figure_png(fig) if live and fig is not None else None
        if fig is not None:
            plt.show()
            plt.close(fig)

    show(values)  # the default view: a plain output, outside any widget
    if not live:
        return None

    import ipywidgets as widgets
    from IPython.display import display

    controls = make_controls()
    if set(controls) != set(values) or any(controls[k].value != v for k, v in values.items()):
        raise ValueError("make_controls must return one widget per default value, set to that value; got "
                         f"{ {k: getattr(w, 'value', None) for k, w in controls.items()} } for {values}")
    out = widgets.Output()
    if note:
        with out:
            print(note)
    ordered = [controls[k] for k in values]
    if layout is None:
        panel = widgets.VBox(ordered)
    else:
        rows, start = [], 0
        for n in layout:
            rows.append(widgets.HBox(ordered[start:start + n]))
            start += n
        panel = widgets.VBox(rows)
    box = widgets.HBox([panel, out]) if side else widgets.VBox([panel, out])
    result = Explorer(box, controls, out)

    def sync() -> None:
        result.draws, result.last_png = state["draws"], state["png"]

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            show(result.values())
        sync()

    sync()
    for w in ordered:
        w.observe(redraw, names="value")
    display(box)
    return result


#: Largest ``n_per_cluster`` / ``epochs`` / ``steps`` of an explorer: every slider move
#: reruns the work, which must stay interactive.
MAX_POINTS, MAX_EPOCHS, MAX_STEPS = 20_000, 200, 200_000


def _slider_values(name: str, values, length: int, low: float, high: float) -> list[float]:
    """``length`` numbers in ``[low, high]``, the range of the explorer's sliders (a slider
    would silently clamp anything outside)."""
    arr = _checks.array(name, values, shape=(length,))
    if np.any(arr < low) or np.any(arr > high):
        raise ValueError(f"{name} must hold numbers in [{low}, {high}] (the sliders' range), got {list(values)}")
    return arr.tolist()


def _widgets():
    """ipywidgets, imported only when a live explorer makes its controls."""
    import ipywidgets
    return ipywidgets
