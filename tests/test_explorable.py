"""The static explorable (swingby.explorable): frames at every grid point, the default frame the
plain image's pixels, controls and data the page script reads, and clear errors for bad grids."""
from __future__ import annotations

import base64
import io
import json
import re
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from IPython.core.pylabtools import print_figure  # noqa: E402
from PIL import Image  # noqa: E402

from swingby import explorable as X  # noqa: E402


def _draw(a, b, c=0):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [a, b])
    ax.set_title(f"a = {a}")
    return fig


def _pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))


def _parts(page: str):
    data = json.loads(re.search(r'<script type="application/json" class="sb-frames">(.*?)</script>', page, re.S)
                      .group(1).replace("<\\/", "</"))
    first = re.search(r'<img class="sb-frame"[^>]* src="data:image/webp;base64,([^"]+)"', page).group(1)
    return data, first


GRID = [X.along("a", "a", [0.0, 1.0, 2.0]), X.along("b", "b", [0, 1], ["low", "high"], slider=False)]


def test_every_grid_point_has_a_frame_and_the_default_is_shown_first():
    page = X.render(_draw, dict(a=1.0, b=0, c=5), GRID, alt="a line")
    data, first = _parts(page)
    assert data["sizes"] == [3, 2] and len(data["index"]) == 6 and len(data["frames"]) == 6
    assert data["labels"] == [["0", "1", "2"], ["low", "high"]] and data["names"] == ["a", "b"]
    assert first == data["frames"][data["index"][1 * 2 + 0]]  # row-major: a = 1.0, b = 0
    assert re.search(r'<input type="range" id="[^"]+" data-axis="0" min="0" max="2" step="1" value="1"', page)
    assert re.search(r'<option value="0" selected>low</option>', page)
    assert re.search(r'<label for="([^"]+)">a</label>', page) and 'aria-valuetext="1"' in page


def test_the_default_frame_has_the_plain_images_pixels():
    data, first = _parts(X.render(_draw, dict(a=1.0, b=0), GRID, alt="a line"))
    fig = _draw(1.0, 0)
    plain = print_figure(fig, "png", bbox_inches="tight")  # what the inline backend shows
    plt.close(fig)
    assert np.array_equal(_pixels(base64.b64decode(first)), _pixels(plain))


def test_the_theory_explorers_batched_grid_draws_the_plain_default_view(monkeypatch):
    """Its grid is simulated in batches (prepare); the default frame is still the plain view."""
    from swingby.theory import explorer as TX
    seen = {}
    monkeypatch.setattr(TX, "explorer", lambda draw, values, *a, **k: seen.update(draw=draw, values=values, **k))
    TX.symmetric_dynamics_explorer(steps=200)
    fig = seen["draw"](**seen["values"])
    plain = print_figure(fig, "png", bbox_inches="tight")
    plt.close(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        page = X.render(seen["draw"], seen["values"], seen["grid"], alt="x", prepare=seen["prepare"])
    assert np.array_equal(_pixels(base64.b64decode(_parts(page)[1])), _pixels(plain))


def test_equal_frames_are_stored_once():
    data, _ = _parts(X.render(_draw, dict(a=0.0, b=0, c=0), [GRID[0], X.along("c", "c", [0, 1])], alt="x"))
    assert len(data["index"]) == 6 and len(data["frames"]) == 3  # c changes nothing
    assert data["index"] == [0, 0, 1, 1, 2, 2]


def test_an_axis_may_set_several_arguments():
    both = X.Axis("a and b", (("0, 0", dict(a=0.0, b=0)), ("2, 1", dict(a=2.0, b=1))), False)
    data, _ = _parts(X.render(_draw, dict(a=0.0, b=0), [both], alt="x"))
    assert data["sizes"] == [2] and len(data["frames"]) == 2


def test_nothing_in_the_frames_can_close_the_script():
    page = X.render(_draw, dict(a=0.0, b=0), [X.along("a", "</script>", [0.0, 1.0])], alt="x")
    assert page.count("</script>") == 2  # the data's and the script's own


@pytest.mark.parametrize("values, grid, words", [
    (dict(a=5.0, b=0), GRID, "exactly one option at the default values"),
    (dict(a=1.0, b=0), [], "grid must be a non-empty sequence"),
    (dict(a=1.0, b=0), [("a", [1, 2])], "grid must be a non-empty sequence"),
])
def test_bad_grids_are_refused(values, grid, words):
    with pytest.raises(ValueError, match=words):
        X.render(_draw, values, grid, alt="x")


@pytest.mark.parametrize("kwargs, words", [
    (dict(draw=None), "draw must be callable"),
    (dict(values=[1.0]), "values a dict"),
    (dict(alt=3), "alt a str"),
    (dict(prepare=5), "prepare must be callable or None"),
    (dict(grid=GRID[0]), "grid must be a non-empty sequence"),
])
def test_bad_arguments_are_named(kwargs, words):
    with pytest.raises(ValueError, match=words):
        X.render(**{"draw": _draw, "values": dict(a=1.0, b=0), "grid": GRID, "alt": "x", **kwargs})


def test_a_point_that_draws_nothing_is_refused():
    with pytest.raises(ValueError, match="draws no figure"):
        X.render(lambda a, b: None if a else _draw(a, b), dict(a=0.0, b=0), GRID, alt="x")


def test_a_grid_too_heavy_for_the_page_is_refused(monkeypatch):
    monkeypatch.setattr(X, "MAX_BYTES", 1000)
    with pytest.raises(ValueError, match="use a smaller grid"):
        X.render(_draw, dict(a=0.0, b=0), GRID, alt="x")


@pytest.mark.parametrize("values, texts", [([1.0], None), ([1.0, 2.0], ["one"])])
def test_along_needs_two_values_and_a_text_each(values, texts):
    with pytest.raises(ValueError, match="values must hold at least 2 values"):
        X.along("a", "a", values, texts)


def test_switch_is_an_off_on_menu():
    assert X.switch("c", "c on") == X.Axis("c on", (("off", {"c": False}), ("on", {"c": True})), False)
