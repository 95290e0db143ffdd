"""Live or static: whether a person is at the notebook. **Live** (the default, Jupyter or Colab): each
explorer draws its default view, then its controls (ipywidgets), and redraws when a control moves; long
loops show a progress bar. **Static** (``SWINGBY_STATIC=1``: the Makefile, ``.ci/run``, the notebook
tests): each explorer draws its static explorable (:mod:`swingby.explorable`: its figure at every
point of a small grid of its controls, which plain HTML controls swap without a kernel), and progress
bars are off. Static mode changes no computation.
"""
from __future__ import annotations

import io
import os
from typing import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np

from swingby import _checks

__all__ = ["Explorer", "progress", "static"]

#: The environment variable that switches the chapters to static mode.
ENV_VAR = "SWINGBY_STATIC"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


def static() -> bool:
    """Whether the chapters run in static mode: ``SWINGBY_STATIC`` is 1 (or true/yes/on), not unset,
    empty or 0 (false/no/off); any other value is a ValueError, so that a typo never gives widgets."""
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"the environment variable {ENV_VAR} must be 1 (static: no widgets, no progress bars) "
                     f"or 0/unset (live), got {os.environ[ENV_VAR]!r}")


def progress(iterable=None, *, enabled: bool = True, **kwargs):
    """A tqdm progress bar over ``iterable``, shown only where a person may watch it (it always iterates).

    Parameters
    ----------
    iterable : iterable or None
        What to iterate over (``None`` for a bar updated by hand).
    enabled : bool
        False hides the bar in live mode too; static mode always hides it.
    **kwargs
        Passed on to tqdm (``desc``, ``total``, ...).
    """
    if static() or not enabled:
        from tqdm.std import tqdm
        return tqdm(iterable, disable=True, **kwargs)
    from tqdm.auto import tqdm
    return tqdm(iterable, **kwargs)


class Explorer:
    """A live explorer, as the chapters' explorers return it (``None`` in static mode): ``box``, the controls
    and output area as displayed; ``controls``, by the name of the value each sets; ``out``, the output area
    each redraw fills; ``draws``, the views drawn; ``last_png``, the last figure's PNG bytes (or ``None``).
    """

    def __init__(self, box, controls: dict, out):
        self.box, self.controls, self.out = box, dict(controls), out
        self.draws, self.last_png = 0, None

    def values(self) -> dict:
        """The controls' current values, by name."""
        return {k: w.value for k, w in self.controls.items()}

    def _ipython_display_(self):
        from IPython.display import display
        display(self.box)

    def __repr__(self) -> str:
        return f"Explorer({len(self.controls)} controls, {self.draws} views drawn)"


def explorer(draw: Callable[..., object], values: dict, make_controls: Callable[[], dict],
             layout: Sequence[int] | None = None, side: bool = True, note: str | None = None,
             grid: Sequence | None = None, alt: str = "the explorer's figure",
             prepare: Callable[[list], None] | None = None) -> Explorer | None:
    """Live: ``draw(**values)`` and ``make_controls()``'s widgets; static: ``grid``'s explorable, else the view."""
    live = not static()
    result = Explorer(None, {}, None)
    if not live and grid is not None:
        from IPython.display import HTML, display

        from swingby.explorable import render
        display(HTML(render(draw, values, grid, alt=alt, prepare=prepare)))
        return None

    def show(current: dict) -> None:
        fig = draw(**current)
        result.draws += 1
        result.last_png = None
        if live and fig is not None:
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            result.last_png = buf.getvalue()
        if fig is not None:
            plt.show()
            plt.close(fig)

    show(values)  # the default view: a plain output, outside any widget
    if not live:
        return None

    import ipywidgets as widgets
    from IPython.display import display

    result.controls, result.out = make_controls(), widgets.Output()
    if note:
        with result.out:
            print(note)
    ordered = [result.controls[k] for k in values]
    if layout is None:
        panel = widgets.VBox(ordered)
    else:
        ends = np.cumsum(layout)
        panel = widgets.VBox([widgets.HBox(ordered[e - n:e]) for n, e in zip(layout, ends)])
    result.box = widgets.HBox([panel, result.out]) if side else widgets.VBox([panel, result.out])

    def redraw(*_):
        with result.out:
            result.out.clear_output(wait=True)
            show(result.values())

    for w in ordered:
        w.observe(redraw, names="value")
    display(result.box)
    return result


#: Largest ``n_per_cluster`` / ``epochs`` / ``steps`` of an explorer: every slider move
#: reruns the work, which must stay interactive.
MAX_POINTS, MAX_EPOCHS, MAX_STEPS = 20_000, 200, 200_000


def slider_values(name: str, values, length: int, low: float, high: float) -> list[float]:
    """``length`` numbers in ``[low, high]``, the sliders' range (a slider would clamp anything outside)."""
    arr = _checks.array(name, values, shape=(length,))
    if np.any(arr < low) or np.any(arr > high):
        raise ValueError(f"{name} must hold numbers in [{low}, {high}] (the sliders' range), got {list(values)}")
    return arr.tolist()


def ipywidgets():
    """The ipywidgets module, imported when a live explorer makes its controls."""
    import ipywidgets
    return ipywidgets
