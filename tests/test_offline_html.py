"""The built book reads offline (issue 14): no page loads a script, stylesheet, font,
image or frame from outside the book, and every local file a page loads is there.

Plain hyperlinks (``<a href="https://...">`` to papers and repositories) are allowed:
a click is the reader's choice, not something the page loads.

Which build is checked:

- ``SWINGBY_HTML=DIR``: that directory, as it is. ``make test`` runs this file after its
  strict build with ``SWINGBY_HTML=_build/html``, so the full book, every chapter
  executed and every explorer's widget state in it, is checked there.
- otherwise ``_build/html`` when every page there is newer than every source of the book
  (chapters, configuration, vendored files, the package the chapters import), as after
  ``make book``;
- otherwise a quick build (some seconds) of a copy of the book *without executing* the
  chapters, in a temporary directory. Its pages hold no outputs, so the widget manager
  is checked through the configuration instead (``nb_ipywidgets_js``: local files that
  the build contains).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_HTML = ROOT / "_build" / "html"

#: Files whose change can change what a built page loads.
SOURCE_GLOBS = ["_config.yml", "_toc.yml", "references.bib", "requirements.txt", "book/*.md",
                "vendor/**/*", "swingby/**/*.py"]

EXTERNAL = re.compile(r"^\s*(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//")  # http://, https://, //host, ...
URL_IN_TEXT = re.compile(r"""https?://[^\s"'`<>()]+""")  # in inline scripts
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)|@import\s+['"]([^'"]+)""")
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)

#: ``<link rel=...>`` values that only name a related page (navigation), load nothing.
NAV_RELS = {"canonical", "alternate", "next", "prev", "previous", "index", "search", "author",
            "license", "help", "top", "up", "first", "last", "contents", "copyright", "glossary"}
#: Attributes that make the browser fetch something, by tag.
LOADING_ATTRS = {
    "script": ("src",), "img": ("src", "srcset"), "source": ("src", "srcset"),
    "iframe": ("src",), "frame": ("src",), "embed": ("src",), "object": ("data",),
    "video": ("src", "poster"), "audio": ("src",), "track": ("src",), "input": ("src",),
    "image": ("href", "xlink:href"), "use": ("href", "xlink:href"), "feimage": ("href", "xlink:href"),
}
#: Inline-script content that names a CDN but loads nothing while thebe is off: sphinx-thebe
#: writes this constant on every page, and only its launch button (off in _config.yml,
#: checked below) would load it.
THEBE_CONSTANT = re.compile(r'const THEBE_JS_URL = "https://unpkg\.com/thebe@[^"]+";')
INLINE_JS_TYPES = {"", "text/javascript", "application/javascript", "module"}
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_MANAGER = "_static/html-manager/embed.js"


def _newest_source() -> float:
    times = [p.stat().st_mtime for g in SOURCE_GLOBS for p in ROOT.glob(g) if p.is_file()]
    return max(times)


def _pages(html: Path) -> list[Path]:
    skip = {"_static", "_sources", "_images"}
    return sorted(p for p in html.rglob("*.html") if not skip & set(p.relative_to(html).parts[:-1]))


def _fresh(html: Path) -> bool:
    pages = _pages(html) if (html / "index.html").is_file() else []
    return bool(pages) and min(p.stat().st_mtime for p in pages) > _newest_source()


def _jupyter_book() -> list[str]:
    script = Path(sys.executable).with_name("jupyter-book")
    if script.is_file():
        return [str(script)]
    found = shutil.which("jupyter-book")
    assert found, "jupyter-book is not installed: run `make test` (or `make book`) once"
    return [found]


def _config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def _quick_build(tmp: Path) -> Path:
    """Build a copy of the book's sources without executing any chapter."""
    for pattern in ["_config.yml", "_toc.yml", "references.bib", "book/*.md", "vendor/**/*", "_ext/*.py"]:
        for src in ROOT.glob(pattern):
            if src.is_file():
                (tmp / src.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, tmp / src.relative_to(ROOT))
    config = _config()
    config["execute"]["execute_notebooks"] = "off"
    (tmp / "_config.yml").write_text(yaml.safe_dump(config))
    run = subprocess.run(_jupyter_book() + ["build", str(tmp), "--all", "--builder", "html"],
                         cwd=tmp, capture_output=True, text=True)
    assert run.returncode == 0, f"the quick build failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return tmp / "_build" / "html"


@pytest.fixture(scope="module")
def html_dir(tmp_path_factory) -> Path:
    forced = os.environ.get("SWINGBY_HTML")
    if forced:
        html = Path(forced) if Path(forced).is_absolute() else ROOT / forced
        assert (html / "index.html").is_file(), f"SWINGBY_HTML={forced}: no built book there"
        return html
    if _fresh(DEFAULT_HTML):
        return DEFAULT_HTML
    return _quick_build(tmp_path_factory.mktemp("book"))


class _Page(HTMLParser):
    """Collects what a page loads: (tag, attribute, value) of every loading attribute,
    the text of inline scripts and stylesheets, and inline style attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.loads: list[tuple[str, str, str]] = []
        self.scripts: list[tuple[str, str]] = []  # (type, body) of inline scripts
        self.styles: list[str] = []
        self.thebe_button = False
        self._in: tuple[str, str] | None = None
        self._buf: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v or "") for k, v in attrs}
        if "thebe-launch-button" in a.get("class", "").split():
            self.thebe_button = True
        if a.get("style"):
            self.styles.append(a["style"])
        if tag == "link":
            rels = set(a.get("rel", "").lower().split())
            if not rels or not rels <= NAV_RELS:
                self.loads.append((tag, "href", a.get("href", "")))
            for k, v in a.items():  # e.g. imagesrcset of a preload
                if k not in ("href", "rel") and EXTERNAL.match(v):
                    self.loads.append((tag, k, v))
        for attr in LOADING_ATTRS.get(tag, ()):
            if attr in a:
                values = [u.strip().split(" ")[0] for u in a[attr].split(",")] if attr.endswith("srcset") else [a[attr]]
                self.loads += [(tag, attr, v) for v in values if v]
        if tag == "script":
            # e.g. data-jupyter-widgets-cdn: where a widget manager fetches modules
            self.loads += [(tag, k, v) for k, v in a.items() if k != "src" and EXTERNAL.match(v)]
            if "src" not in a:
                self._in, self._buf = ("script", a.get("type", "").lower()), []
        if tag == "style":
            self._in, self._buf = ("style", ""), []

    def handle_data(self, data):
        if self._in:
            self._buf.append(data)

    def handle_endtag(self, tag):
        if self._in and tag == self._in[0]:
            body = "".join(self._buf)
            if tag == "script":
                self.scripts.append((self._in[1], body))
            else:
                self.styles.append(body)
            self._in = None


def _parse(page: Path) -> _Page:
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    return parser


def _css_urls(css: str) -> list[str]:
    return [u or i for u, i in CSS_URL.findall(CSS_COMMENT.sub("", css))]


def _local_target(page: Path, url: str) -> Path | None:
    """The file a relative URL of ``page`` points at, or None for data:, blob:, #... ."""
    if re.match(r"^\s*(data|blob|about|javascript):", url) or url.startswith("#"):
        return None
    path = unquote(urlsplit(url).path)
    return (page.parent / path) if path else None


@pytest.fixture(scope="module")
def pages(html_dir):
    found = _pages(html_dir)
    assert html_dir / "index.html" in found and len(found) > 3, f"{html_dir}: too few pages"
    return {p: _parse(p) for p in found}


def test_no_page_loads_anything_from_outside_the_book(html_dir, pages):
    problems = []
    for page, parsed in pages.items():
        name = page.relative_to(html_dir).as_posix()
        for tag, attr, value in parsed.loads:
            if EXTERNAL.match(value):
                problems.append(f"{name}: <{tag} {attr}={value!r}>")
        for style in parsed.styles:
            problems += [f"{name}: style url({u})" for u in _css_urls(style) if EXTERNAL.match(u)]
        for kind, body in parsed.scripts:
            if kind not in INLINE_JS_TYPES:
                continue  # data, e.g. widget state or a thebe config, loads nothing itself
            if THEBE_CONSTANT.search(body):
                assert not parsed.thebe_button, f"{name}: a thebe launch button loads thebe from a CDN"
                body = THEBE_CONSTANT.sub("", body)
            problems += [f"{name}: inline script names {u}" for u in URL_IN_TEXT.findall(body)]
    assert not problems, "pages that load from outside the book:\n" + "\n".join(sorted(set(problems)))


def test_every_local_file_a_page_loads_is_in_the_book(html_dir, pages):
    missing = []
    for page, parsed in pages.items():
        for tag, attr, value in parsed.loads:
            target = None if EXTERNAL.match(value) else _local_target(page, value)
            if target is not None and not target.exists():
                missing.append(f"{page.relative_to(html_dir).as_posix()}: <{tag} {attr}={value!r}>")
    assert not missing, "pages that load files the build lacks:\n" + "\n".join(sorted(set(missing)))


def test_stylesheets_load_nothing_from_outside(html_dir):
    problems = []
    for css in sorted((html_dir / "_static").rglob("*.css")):
        for url in _css_urls(css.read_text(encoding="utf-8", errors="replace")):
            if EXTERNAL.match(url):
                problems.append(f"{css.relative_to(html_dir).as_posix()}: url({url})")
    assert not problems, "stylesheets that load from outside the book:\n" + "\n".join(problems)


def test_math_and_widgets_are_served_by_the_book(html_dir, pages):
    """MathJax comes from _static/mathjax, and every page with ipywidgets loads the
    book's own widget manager (without one its explorers are empty boxes)."""
    mathjax = [v for p in pages.values() for t, _, v in p.loads if t == "script" and "mathjax" in v.lower()]
    assert mathjax and all("_static/mathjax/" in v for v in mathjax), sorted(set(mathjax))
    assert (html_dir / "_static" / "mathjax" / "tex-chtml.js").is_file()
    for page, parsed in pages.items():
        if any(kind == WIDGET_STATE for kind, _ in parsed.scripts):
            scripts = [v for t, _, v in parsed.loads if t == "script"]
            assert any(WIDGET_MANAGER in v for v in scripts), (
                f"{page.relative_to(html_dir)} holds widget state but loads no {WIDGET_MANAGER}"
            )


def test_explorers_are_static_explorables_without_widget_state(html_dir, pages):
    """Chapters are executed in static mode (SWINGBY_STATIC=1): no page embeds widget
    state (controls that would move without redrawing anything), and in an executed
    build every explorer cell shows a static explorable (swingby.explorable): its
    controls, its default frame as an image in the page, its frames and its own inline
    script, under 2 MB."""
    with_state = [str(p.relative_to(html_dir)) for p, parsed in pages.items()
                  if any(kind == WIDGET_STATE for kind, _ in parsed.scripts)]
    assert not with_state, f"pages with ipywidgets state (built without SWINGBY_STATIC=1?): {with_state}"
    explorers = 0
    for page in pages:
        for cell in page.read_text(encoding="utf-8").split('<div class="cell docutils container')[1:]:
            code = re.sub(r"<[^>]+>", "", cell.split('<div class="cell_output', 1)[0])
            if re.search(r"\w+_explorer\(", code) and "import" not in code.split("_explorer(")[0].splitlines()[-1]:
                if '<div class="cell_output' not in cell:
                    continue  # an unexecuted (quick) build has no outputs to check
                explorers += 1
                output = cell.split('<div class="cell_output', 1)[1]
                where = f"{page.relative_to(html_dir)}: an explorer cell"
                assert output.count('<div class="sb-explorable"') == 1, f"{where} without its static explorable"
                block = output.split('<div class="sb-explorable"', 1)[1]
                assert re.search(r'<img class="sb-frame"[^>]* src="data:image/webp;base64,', block), where
                assert re.search(r"<(input|select) [^>]*data-axis=", block), f"{where} without controls"
                assert 'class="sb-frames"' in block and "sbShow" in block, f"{where} without its frames or script"
                assert len(block) < 2_000_000, f"{where} weighs {len(block) / 1e6:.2f} MB"
    executed = any('<div class="cell_output' in p.read_text(encoding="utf-8") for p in pages)
    assert explorers >= 7 or not executed, f"found {explorers} explorer cells with output, expected 7"


def test_the_widget_manager_is_configured_local(html_dir):
    """myst-nb adds the scripts of ``nb_ipywidgets_js`` to every page with widget state;
    they must be files of the book (its default is require.js and a manager from CDNs)."""
    scripts = _config()["sphinx"]["config"].get("nb_ipywidgets_js")
    assert scripts, "_config.yml must set nb_ipywidgets_js (myst-nb's default loads from CDNs)"
    for path, attrs in scripts.items():
        assert not EXTERNAL.match(path) and not any(EXTERNAL.match(str(v)) for v in attrs.values()), path
        assert (html_dir / "_static" / path).is_file(), f"_static/{path} is not in the built book"


def test_the_check_catches_external_loads(tmp_path):
    """The parser itself: a page with each kind of external load, and a page with none."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<html><head><script src="https://cdn.example.org/x.js"></script>'
        '<link rel="stylesheet" href="//cdn.example.org/x.css">'
        '<script>window.MathJax = {loader: {paths: {mathjax: "https://cdn.example.org/mj"}}}</script>'
        '<style>@import "https://fonts.example.org/css";</style></head>'
        '<body><img srcset="a.png 1x, https://example.org/b.png 2x">'
        '<div style="background: url(https://example.org/bg.png)"></div>'
        '<a href="https://example.org/paper">a paper</a></body></html>'
    )
    parsed = _parse(bad)
    external = [v for _, _, v in parsed.loads if EXTERNAL.match(v)]
    assert external == ["https://cdn.example.org/x.js", "//cdn.example.org/x.css", "https://example.org/b.png"]
    assert [u for s in parsed.styles for u in _css_urls(s)] == [
        "https://fonts.example.org/css", "https://example.org/bg.png"]
    assert URL_IN_TEXT.findall(parsed.scripts[0][1]) == ["https://cdn.example.org/mj"]
    good = tmp_path / "good.html"
    good.write_text('<script src="_static/x.js"></script><a href="https://example.org">link</a>'
                    '<link rel="canonical" href="https://example.org/book/">')
    assert not [v for _, _, v in _parse(good).loads if EXTERNAL.match(v)]
