"""Read the built book in a real browser with no network, as a reader sees it, by hand:

    .venv/bin/python tests/browser_check.py                       # book/sim_task.html
    .venv/bin/python tests/browser_check.py book/diffusion.html   # any pages of _build/html
    .venv/bin/python tests/browser_check.py --all                 # every page of _build/html
    .venv/bin/python tests/browser_check.py --all --html /tmp/ci/_build/html --report report.md

Needs a built book (``make book``) and a headless Chromium: Debian's ``chromium`` or
``chromium-headless-shell`` package (``apt-get install chromium``), or any Chrome named
by ``--browser`` or ``$CHROMIUM``. Nothing else: it drives the browser through Chromium's
DevTools protocol over a pipe (``--remote-debugging-pipe``) with the standard library
only, so any Python 3.9+ runs it, the project's ``.venv`` included.

Headless Chromium opens each page from the file system in a window of ``--window-size``
(default 1280,900: the book shows its left navigation and right-hand contents), with
every network request sent to a closed proxy port, every host name unresolvable, and a
net log of what it tried. It waits for the page's load event, for MathJax to finish
typesetting, for the web fonts and images, and for any widgets to be drawn, then runs
a small script in the page that reads what a reader sees. A page fails when

- it asked for anything over the network (the net log or the page's own requests name
  it; Chromium's own background requests at start, to Google's update and sign-in
  hosts, are not the page's and are left out);
- its math did not render: the page has math but MathJax rendered none of it, MathJax
  drew an error box (``mjx-merror``), or raw TeX is left in the text (``\\(``, ``\\[``,
  ``$...$``, ``$$``, a TeX command such as ``\\alpha``);
- raw MyST or markdown shows in the rendered text (outside code, code cells, API
  signatures and math): a role or glue left as typed (``{glue:text}``, ``{ref}``,
  ``{numref}``, ``{cite}``, any ``{role}`` followed by a backtick), a directive or code
  fence (a line starting with three backticks or ``:::``), emphasis (``**word**``,
  ``__word__``, ``*word*``), inline code left in backticks, a stray backtick or dollar
  sign (what is left when a ``|`` inside code or math splits a markdown table's cell and
  the rest of the row is lost), a markdown link ``[text](target)``, a heading's ``#``,
  an HTML tag printed as text, or a table printed as text lines starting with ``|``; in
  a code cell's printed output, a role, glue or a markdown table (``|---|``) counts too;
- a glued value (``{glue:text}``) shows a string's quotes, a NumPy or Python repr, or
  ``nan`` / ``inf`` / ``None``;
- a table row ends in an empty cell where at least 3 in 4 of the other rows have text
  (a row short of a ``|`` in the source: its text stands under the wrong headings);
- Sphinx or docutils left an error in the page: a ``problematic`` node, a system
  message, or a cross-reference that did not resolve (``xref`` not inside a link);
- an image did not load (a broken ``img``);
- a figure (an ``img`` or ``svg`` in the article, outside margins, icons and math) is
  shown narrower than ``--min-fraction`` (default 0.6) of the text column it stands in
  (the article's, or its grid cell's) while its natural width is larger than that, i.e.
  the page shrank it; or it is wider than that column (cut off);
- it holds ipywidgets state but fewer widgets were drawn than it has views (the
  explorers would be empty boxes);
- it holds static explorables (``swingby/explorable.js``) and, reloaded as
  ``#selftest``, one of them fails its self-test: a control that never changes the
  figure or does not swap the image, or a frame that does not decode (each control is
  moved through every value; the network stays cut throughout);
- it only redirects (the book's ``index.html``) to a page that does not exist.

Notes, listed but not failing: JavaScript exceptions the page raised (failures with
``--strict-js``), figures small at their natural size, tables wider than the text column
(read by scrolling sideways, the last columns cut at the column's edge), and API entries
whose signature prints a long value whole (over ``--long-signature`` characters).
``-v`` prints every figure's measured width.

``--all`` checks every page of the built book (each ``.html`` file outside ``_static``,
``_sources``, ``_images`` and ``_downloads``), besides any pages named; ``--report FILE``
also writes the findings, page by page, as markdown. The exit status is 1 when a page
failed. It is not part of ``make test``: CI machines have no browser, and installing one
(about a hundred Debian packages) is too heavy for every run.
``tests/test_offline_html.py``, which ``make test`` runs, checks the no-network property
statically on every page.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome",
            "google-chrome-stable"]
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
NOT_PAGES = {"_static", "_sources", "_images", "_downloads"}
# Chromium's own background services (updates, sign-in, time), which Debian's ``chromium``
# calls at start whatever the flags: in the net log but never asked for by a page (a page's
# own requests, to these hosts too, are read from the page itself)
BROWSER_OWN = re.compile(r"^[a-z]+://(?:[\w-]+\.)*(?:google\.com|googleapis\.com|gvt1\.com|gvt2\.com)(?::\d+)?/")


def find_browser(name: str | None) -> str:
    for candidate in [name, os.environ.get("CHROMIUM")] + BROWSERS:
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    sys.exit("no headless Chromium found: apt-get install chromium (or chromium-headless-shell), "
             "or give --browser PATH")


def network_requests(net_log: Path) -> list[str]:
    """Every http(s)/ws URL that the net log records a request for."""
    try:
        text = net_log.read_text(errors="replace")
    except FileNotFoundError:
        return []
    return sorted(set(re.findall(r'"url":"((?:https?|wss?)://[^"]*)"', text)))


# --- Chromium's DevTools protocol over a pipe (fd 3: commands in, fd 4: replies out) -------------

class Browser:
    """One headless Chromium, driven by JSON messages, each ended by a NUL byte."""

    def __init__(self, cmd: list[str], timeout: float):
        self.timeout = timeout
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()

        def child_fds():  # runs in the child, before exec: the pipe ends become fds 3 and 4
            a, b = os.dup(cmd_r), os.dup(out_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd + ["--remote-debugging-pipe"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self._stderr,
                                     pass_fds=(3, 4), preexec_fn=child_fds)
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-2000:]

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self._out_r], [], [], left)
            if ready:
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"the browser closed its pipe (exit {self.proc.poll()}): {self.stderr()}")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float | None = None) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev.get("method") == method:
                    return self.events.pop(i)
            try:
                self.events.append(self._read_message(deadline))
            except TimeoutError:
                return None

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._cmd_w, self._out_r):
            try:
                os.close(fd)
            except OSError:
                pass


# --- what the page shows: read in the page by this script, after it has rendered ----------------

READ_PAGE = r"""
(async () => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const deadline = Date.now() + %(wait_ms)d;
  // MathJax 3 typesets after its startup promise; wait for it, then for the fonts and images
  for (let i = 0; i < 100 && window.MathJax && !(MathJax.startup && MathJax.startup.promise); i++)
    await sleep(50);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    try { await Promise.race([MathJax.startup.promise, sleep(%(wait_ms)d)]); } catch (e) {}
  }
  try { await Promise.race([document.fonts.ready, sleep(5000)]); } catch (e) {}
  await Promise.race([Promise.all([...document.images].map(im => im.complete ? null :
      new Promise(r => { im.addEventListener('load', r); im.addEventListener('error', r); }))), sleep(10000)]);
  // widgets: wait until as many are drawn as the page has views, or the time is up
  const views = %(views)d;  // counted in the page's source (the widget manager may replace its tags)
  while (views && document.querySelectorAll('.widget-subarea').length < views && Date.now() < deadline)
    await sleep(200);
  await sleep(300);

  const SKIP = 'script, style, pre, code, kbd, samp, textarea, mjx-container, mjx-assistive-mml, '
             + '.MathJax, svg, .headerlink, .cell_input, .highlight, noscript, template, '
             + '.copybtn, .toggle-button, .bd-search, .search-button-field, .sig, span.pre';
  const BLOCK = 'p, li, td, th, dt, dd, h1, h2, h3, h4, h5, h6, figcaption, caption, '
              + 'blockquote, div, section, article, nav, aside, header, footer, main, body';
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const where = el => {
    const sec = el.closest('section[id]');
    let heading = '';
    if (sec) { const h = sec.querySelector('h1, h2, h3, h4, h5, h6'); heading = h ? h.textContent.replace(/[#¶]\s*$/, '').trim() : ''; }
    return (sec ? '#' + sec.id : '') + (heading ? ' (' + heading.slice(0, 60) + ')' : '');
  };
  // the text a reader reads, block by block, outside code, code cells and math
  const blocks = new Map();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(SKIP)) continue;
    const block = el.closest(BLOCK) || document.body;
    if (!blocks.has(block)) blocks.set(block, []);
    blocks.get(block).push(n.textContent);
  }
  const prose = [];
  for (const [block, parts] of blocks) {
    const text = parts.join('');
    if (text.trim()) prose.push({text, where: where(block), in_article: article.contains(block)});
  }
  // what code cells printed (text outputs), where raw markdown also shows
  const outputs = [...document.querySelectorAll('.cell_output pre, .output pre')].map(
      el => ({text: el.textContent, where: where(el)}));
  // the text column: the article's content box
  const colOf = el => {
    const box = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return box.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)
                     - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth);
  };
  const column = colOf(article);
  const figures = [];
  for (const el of article.querySelectorAll('img, svg')) {
    if (el.closest('mjx-container, .headerlink, button, .margin, .sidebar, aside, .bd-header-article, '
                   + '.sd-octicon, .fa, .fas, .far, .fab, [class*="fa-"], .admonition-title, .copybtn'))
      continue;
    if (el.tagName.toLowerCase() === 'svg' && el.parentElement.closest('svg')) continue;
    const box = el.getBoundingClientRect();
    let natural = 0, loaded = true, src = '';
    if (el.tagName.toLowerCase() === 'img') {
      natural = el.naturalWidth; loaded = el.complete && el.naturalWidth > 0;
      src = el.getAttribute('src') || '';
    } else {
      const vb = el.viewBox && el.viewBox.baseVal;
      const w = el.width && el.width.baseVal;
      natural = (w && w.unitType !== 2 /* not a percentage */ && w.value) || (vb && vb.width) || 0;
      src = 'inline <svg>' + (el.id ? ' #' + el.id : '');
    }
    // the column the figure stands in: the article, or a grid/column cell inside it
    const cell = el.parentElement.closest('.sd-col, .sd-card, td, th, [class*="col-"]');
    const own = cell && article.contains(cell) ? colOf(cell) : column;
    const hidden = !el.getClientRects().length || box.width === 0;
    figures.push({src, natural: Math.round(natural), width: Math.round(box.width),
                  height: Math.round(box.height), column: Math.round(column), cell: Math.round(own),
                  in_cell: !!(cell && article.contains(cell)), loaded, hidden, where: where(el),
                  alt: (el.getAttribute('alt') || '').slice(0, 80)});
  }
  const unresolved = [...document.querySelectorAll('.xref')].filter(el => !el.closest('a'))
      .map(el => ({text: el.textContent.trim(), where: where(el)}));
  const problematic = [...document.querySelectorAll('.problematic, .system-message')]
      .map(el => ({text: el.textContent.trim().slice(0, 200), where: where(el)}));
  const merror = [...document.querySelectorAll('mjx-merror')]
      .map(el => ({text: (el.getAttribute('data-mjx-error') || el.textContent).slice(0, 200), where: where(el)}));
  // an API entry whose signature prints a long value whole (autodoc's repr of a constant)
  const long_sigs = [...document.querySelectorAll('dt.sig')].filter(el => el.textContent.length > %(long_sig)d)
      .map(el => ({id: el.id, length: el.textContent.replace(/\s+/g, ' ').length}));
  // table rows that end in empty cells where the other rows have text: a row short of a cell
  // in the markdown source, whose text sits under the wrong headings
  const short_rows = [];
  for (const table of article.querySelectorAll('table')) {
    const rows = [...table.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(td => td.textContent.trim()));
    const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
    if (rows.length < 2) continue;
    rows.forEach((cells, i) => {
      const last = cells.length - 1;
      if (last < 1 || cells[last] || !cells[0]) return;
      const others = rows.filter((r, j) => j !== i);
      const filled = others.filter(r => r[last]).length / others.length;
      if (filled >= 0.75) {
        let k = last; while (k > 0 && !cells[k]) k--;
        short_rows.push({where: where(table), row: i + 1, first: cells[0].slice(0, 60),
                         empty: heads.slice(k + 1).join(', ') || 'the last column',
                         shifted: (heads[k] || '') + ': ' + cells[k].slice(0, 100)});
      }
    });
  }
  // tables wider than the text column: the reader scrolls sideways, the last columns cut at the edge
  const wide_tables = [...article.querySelectorAll('table:not(.indextable):not(.modindextable)')].filter(t => t.getClientRects().length)
      .map(t => ({width: Math.round(t.getBoundingClientRect().width), where: where(t),
                  heads: [...t.querySelectorAll('thead th')].map(th => th.textContent.trim()).join(' | ').slice(0, 100)}))
      .filter(t => t.width > column + 2);
  // glued values, as the reader reads them
  const glued = [...document.querySelectorAll('.pasted-text, .pasted-inline')]
      .map(el => ({text: el.textContent, where: where(el)}));
  return JSON.stringify({
    prose, long_sigs, glued, short_rows, wide_tables, outputs, figures, unresolved, problematic, merror,
    mathjax: document.querySelectorAll('mjx-container').length,
    math_in_page: document.querySelectorAll('.math, span.math, div.math').length,
    widgets_drawn: document.querySelectorAll('.widget-subarea').length, widget_views: views,
    title: document.title, column: Math.round(column),
  });
})()
"""


# raw MyST or markdown in the rendered prose: (name, pattern)
RAW_PROSE = [
    ("a glue left as typed", r"\{glue(?::\w+)?\}`?[^\s`]*`?|\{glue:"),
    ("a MyST role left as typed", r"\{(?:ref|numref|cite(?::\w+)?|eq|doc|term|download|math|abbr|"
                                  r"sub|sup|py:\w+|external\+?[\w:]*)\}`?[^`\s]*`?"),
    ("a role left as typed", r"\{[A-Za-z][\w:+.-]*\}`[^`\n]*`"),
    ("a code fence or directive", r"(?m)^[ \t]*(?:```|~~~|:::)"),
    ("raw TeX math", r"\\[(\[]|\\[)\]]|\$\$|(?<![\w$])\$[^$\s][^$\n]{0,200}?(?<!\s)\$(?![\w$])"),
    ("a raw TeX command", r"\\(?:[A-Za-z]{2,}|[{}_^,;!])"),
    ("bold left as typed", r"\*\*[^*\s][^*\n]*?\*\*|(?<!\w)__[^_\s][^_\n]*?__(?!\w)"),
    ("emphasis left as typed", r"(?<![\w*\\])\*[A-Za-z][^*\n]{0,60}?(?<![\s*])\*(?![\w*])"),
    ("inline code left in backticks", r"`[^`\n]+`"),
    ("a stray backtick (code cut off, e.g. a table cell split at a | inside code)", r"`"),
    ("a stray dollar sign (math cut off or left raw)", r"\$"),
    ("a markdown link", r"\[[^\]\n]+\]\([^)\s]+\)"),
    ("a markdown heading", r"(?m)^[ \t]*#{1,6} \S"),
    ("an HTML tag printed as text", r"</?(?:div|span|br|img|table|tr|td|p|sup|sub|b|i|em|strong|a)\b[^>\n]{0,80}>"),
    ("a table printed as text", r"(?m)^[ \t]*\|[^\n]*\|[ \t]*$|\|[ \t]*:?-{3,}:?[ \t]*\|"),
]
# a glued value that shows Python's repr, or no number, instead of the value
RAW_GLUE = [
    ("a string's quotes", r"^\s*(['\"]).*\1\s*$"),
    ("a NumPy or Python repr", r"\b(?:np|numpy)\.\w+\(|\barray\(|object at 0x|^\s*<.*>\s*$"),
    ("not a number", r"\b(?:nan|NaN|inf|None)\b"),
]
RAW_OUTPUT = [
    ("a glue left as typed", r"\{glue(?::\w+)?\}`?"),
    ("a MyST role left as typed", r"\{(?:ref|numref|cite(?::\w+)?|eq|doc|term)\}`"),
    ("a markdown table", r"(?m)^[ \t]*\|[ \t]*:?-{3,}:?[ \t]*\|"),
]


def snippet(text: str, start: int, end: int, pad: int = 40) -> str:
    s = text[max(0, start - pad):end + pad]
    s = re.sub(r"\s+", " ", s).strip()
    return ("…" if start > pad else "") + s + ("…" if end + pad < len(text) else "")


def raw_markup(items: list[dict], patterns) -> list[str]:
    """One line per kind of raw markup per block of text; a stretch of text is named once,
    by the first pattern that matches it ({ref}`x` is a role, not also inline code)."""
    found = []
    for item in items:
        text, covered = item["text"], []
        for name, pat in patterns:
            hits = [m for m in re.finditer(pat, text)
                    if not any(m.start() < e and s < m.end() for s, e in covered)]
            covered += [m.span() for m in hits]
            if hits:
                m = hits[0]
                more = f" (and {len(hits) - 1} more)" if len(hits) > 1 else ""
                found.append(f"{name}: {m.group(0).strip()!r}{more} in “{snippet(text, m.start(), m.end())}”"
                             + (f" at {item['where']}" if item.get("where") else ""))
    return found


def figure_problems(figures: list[dict], min_fraction: float) -> tuple[list[str], list[str]]:
    problems, notes = [], []
    for f in figures:
        name = f["src"].rsplit("/", 1)[-1][:40] or "(no src)"
        at = f" at {f['where']}" if f["where"] else ""
        if not f["loaded"]:
            problems.append(f"image did not load: {f['src']}{at}")
            continue
        if f["hidden"]:
            continue
        col = f["cell"] if f["in_cell"] else f["column"]
        limit = min_fraction * col
        frac = f["width"] / col if col else 0
        what = (f"{name}: shown {f['width']} px wide, {frac:.0%} of its "
                f"{'cell' if f['in_cell'] else 'text column'} ({col} px"
                + (f"; article column {f['column']} px" if f["in_cell"] else "") + f"), natural width {f['natural']} px")
        if f["width"] < limit and f["natural"] > limit:
            problems.append(f"figure narrower than {min_fraction:.0%} of its column: {what}{at}")
        elif f["width"] > col + 2:
            problems.append(f"figure wider than its column (cut off or scrolled): {what}{at}")
        elif f["width"] < limit and f["natural"] >= 100:
            notes.append(f"small at its natural size: {what}{at}")
    return problems, notes


#: run after reloading a page with static explorables as ``#selftest`` (``swingby/explorable.js``): the page
#: moves every control through every value and writes one ``pre.sb-selftest`` per explorable
SELF_TEST = r"""
(async () => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const deadline = Date.now() + %(wait_ms)d;
  while (document.body.dataset.sbSelftest !== 'done' && Date.now() < deadline) await sleep(100);
  return JSON.stringify({done: document.body.dataset.sbSelftest === 'done',
                         explorables: document.querySelectorAll('.sb-explorable').length,
                         results: [...document.querySelectorAll('pre.sb-selftest')].map(
                           p => ({status: p.dataset.status, text: p.textContent}))});
})()
"""


def explorable_problems(b, s, page: Path, wait_s: float) -> tuple[list[str], str]:
    """Problems of the page's static explorables, by their self-test, and a summary."""
    b.send("Runtime.evaluate", {"expression": "location.hash = 'selftest'; location.reload()"}, session=s)
    if b.wait_event("Page.loadEventFired", timeout=wait_s) is None:
        return [f"the page did not reload for the explorables' self-test in {wait_s} s"], ""
    res = b.send("Runtime.evaluate", {"expression": SELF_TEST % {"wait_ms": wait_s * 1000}, "awaitPromise": True,
                                      "returnByValue": True}, session=s, timeout=wait_s + 30)
    seen = json.loads(res["result"]["value"])
    problems = [] if seen["done"] else ["the explorables' self-test did not finish"]
    if len(seen["results"]) != seen["explorables"]:
        problems.append(f"{seen['explorables']} explorables in the page, {len(seen['results'])} self-tested")
    problems += [f"an explorable failed its self-test: {r['text']}" for r in seen["results"] if r["status"] != "pass"]
    moves = sum(json.loads(r["text"])["moves"] for r in seen["results"])
    return problems, f", {seen['explorables']} explorable(s) self-tested ({moves} control moves)"


def check_page(browser: str, page: Path, args) -> tuple[list[str], list[str]]:
    """(problems, notes) of one page."""
    source = page.read_text(encoding="utf-8", errors="replace")
    redirect = re.search(r"""<meta[^>]+http-equiv=["']?refresh["']?[^>]*url=([^"'\s>]+)""", source, re.I)
    if redirect:  # a page that only sends the reader on (the book's index.html): its target must exist
        target = (page.parent / redirect.group(1).split("#")[0]).resolve()
        print(f"{page.name}: redirects to {redirect.group(1)}", flush=True)
        return ([] if target.is_file() else [f"redirects to {redirect.group(1)}, which does not exist"]), []
    with tempfile.TemporaryDirectory() as tmp:
        net_log = Path(tmp) / "net.json"
        views = source.count('type="application/vnd.jupyter.widget-view+json"') if WIDGET_STATE in source else 0
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-quic", "--hide-scrollbars", f"--window-size={args.window_size}",
               f"--user-data-dir={tmp}/profile", "--proxy-server=127.0.0.1:9",
               "--host-resolver-rules=MAP * ~NOTFOUND", f"--log-net-log={net_log}", "about:blank"]
        b = Browser(cmd, timeout=60)
        try:
            target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Network", "Runtime"):
                b.send(f"{domain}.enable", session=s)
            w, h = (int(x) for x in args.window_size.split(","))
            b.send("Emulation.setDeviceMetricsOverride",
                   {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False}, session=s)
            b.send("Page.navigate", {"url": page.as_uri()}, session=s)
            loaded = b.wait_event("Page.loadEventFired", timeout=args.wait_s)
            res = b.send("Runtime.evaluate", {"expression": READ_PAGE % {"wait_ms": args.wait_s * 1000,
                                                                      "long_sig": args.long_signature,
                                                                      "views": views},
                                              "awaitPromise": True, "returnByValue": True},
                         session=s, timeout=args.wait_s * 3 + 30)
            if "exceptionDetails" in res:
                return [f"the check's page script failed: {res['exceptionDetails']}"], []
            seen = json.loads(res["result"]["value"])
            explorables, tested = (explorable_problems(b, s, page, args.wait_s) if 'class="sb-explorable"' in source
                                   else ([], ""))
        except (RuntimeError, TimeoutError, json.JSONDecodeError) as err:
            return [f"the browser failed: {err}"], []
        finally:
            b.close()
        requests = {u for u in network_requests(net_log) if not BROWSER_OWN.match(u)}
    for ev in b.events:
        if ev.get("method") == "Network.requestWillBeSent":
            url = ev["params"]["request"]["url"]
            if re.match(r"(?:https?|wss?)://", url):
                requests.add(url)
    problems = [f"asked the network for {url}" for url in sorted(requests)] + explorables
    if loaded is None:
        problems.append(f"the page did not finish loading in {args.wait_s} s")
    notes = []
    for ev in b.events:
        if ev.get("method") == "Runtime.exceptionThrown":
            ex = ev["params"]["exceptionDetails"]
            desc = (ex.get("exception") or {}).get("description") or ex.get("text", "")
            desc = desc.splitlines()[0][:200] if desc else str(ex)[:200]
            (problems if args.strict_js else notes).append(f"JavaScript exception: {desc}")

    has_math = bool(re.search(r'class="[^"]*\bmath\b', source))
    if has_math and not seen["mathjax"]:
        problems.append("the page has math but MathJax rendered none of it")
    problems += [f"MathJax error: {m['text']!r} at {m['where']}" for m in seen["merror"]]
    problems += [f"raw markup in the text: {p}" for p in raw_markup(seen["prose"], RAW_PROSE)]
    problems += [f"a glued value shows {p}" for p in raw_markup(seen["glued"], RAW_GLUE)]
    problems += [f"raw markup in a cell's output: {p}" for p in raw_markup(seen["outputs"], RAW_OUTPUT)]
    problems += [f"table row {r['row']} ({r['first']!r}) leaves {r['empty']!r} empty, where the other rows have "
                 f"text: a cell short, so its text stands under the wrong heading ({r['shifted']!r}) at {r['where']}"
                 for r in seen["short_rows"]]
    problems += [f"unresolved cross-reference {u['text']!r} at {u['where']}" for u in seen["unresolved"]]
    problems += [f"Sphinx/docutils error in the page: {p['text']!r} at {p['where']}" for p in seen["problematic"]]
    fig_problems, fig_notes = figure_problems(seen["figures"], args.min_fraction)
    problems += fig_problems
    notes += fig_notes
    notes += [f"API entry {sig['id']} prints a value {sig['length']} characters long in its signature"
              for sig in sorted(seen["long_sigs"], key=lambda x: -x["length"])]
    notes += [f"table wider than the text column, scrolled sideways: {t['width']} px in {seen['column']} px"
              f" (headings: {t['heads']!r}) at {t['where']}" for t in seen["wide_tables"]]
    if args.verbose:
        for f in seen["figures"]:
            print(f"    figure {f['src'].rsplit('/', 1)[-1][:40]}: {'hidden' if f['hidden'] else str(f['width']) + ' px'}"
                  f" of {f['cell'] if f['in_cell'] else f['column']} px, natural {f['natural']} px at {f['where']}")
    if WIDGET_STATE in source and seen["widgets_drawn"] < seen["widget_views"]:
        problems.append(f"{seen['widget_views']} widget view(s) in the page, {seen['widgets_drawn']} drawn")
    shown = [f for f in seen["figures"] if not f["hidden"]]
    print(f"{page.name}: {seen['mathjax']} formulas rendered, {len(shown)} figure(s) shown "
          f"(column {seen['column']} px), {len(requests)} network request(s){tested}"
          + (f", {seen['widget_views']} widget view(s), {seen['widgets_drawn']} drawn"
             if WIDGET_STATE in source else ""), flush=True)
    return problems, notes


def all_pages(html: Path) -> list[str]:
    return sorted(str(p.relative_to(html)) for p in html.rglob("*.html")
                  if not NOT_PAGES & set(p.relative_to(html).parts[:-1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].rstrip(":"))
    ap.add_argument("pages", nargs="*", help="pages relative to the built book (default: book/sim_task.html)")
    ap.add_argument("--all", action="store_true", help="check every page of the built book")
    ap.add_argument("--html", default=str(ROOT / "_build" / "html"), help="the built book")
    ap.add_argument("--browser", help="a Chromium or Chrome executable")
    ap.add_argument("--window-size", default="1280,900", help="the browser window, WIDTH,HEIGHT (default 1280,900)")
    ap.add_argument("--min-fraction", type=float, default=0.6,
                    help="a figure shown narrower than this fraction of its column fails (default 0.6)")
    ap.add_argument("--wait-s", type=int, default=30,
                    help="seconds a page may take to load and render (default 30)")
    ap.add_argument("--strict-js", action="store_true",
                    help="fail on a JavaScript exception in the page (default: list it as a note)")
    ap.add_argument("--long-signature", type=int, default=1000,
                    help="note an API entry whose signature is longer than this (default 1000 characters)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every figure's measured width")
    ap.add_argument("--report", help="also write the findings, page by page, to this markdown file")
    args = ap.parse_args(argv)
    html = Path(args.html)
    if not html.is_dir():
        sys.exit(f"{html} does not exist: build the book first (make book)")
    pages = args.pages or ([] if args.all else ["book/sim_task.html"])
    if args.all:
        pages = sorted(set(pages) | set(all_pages(html)))
    browser = find_browser(args.browser)
    failed, report = 0, []
    for name in pages:
        page = html / name
        if not page.is_file():
            sys.exit(f"{page} does not exist: build the book first (make book)")
        problems, notes = check_page(browser, page.resolve(), args)
        for p in problems:
            print(f"  FAIL {name}: {p}")
        for n in notes:
            print(f"  note {name}: {n}")
        failed += bool(problems)
        report.append((name, problems, notes))
    summary = f"{len(pages) - failed} passed, {failed} failed"
    print(summary)
    if args.report:
        lines = [f"# Browser check of {html}", "", "`" + " ".join([Path(sys.executable).name, *sys.argv]) + "`", "",
                 f"{len(pages)} page(s), window {args.window_size}, figures under "
                 f"{args.min_fraction:.0%} of their column fail. {summary}.", ""]
        for name, problems, notes in report:
            lines.append(f"## {name}: {'FAIL' if problems else 'ok'}")
            lines.append("")
            lines += [f"- {p}" for p in problems] + [f"- (note) {n}" for n in notes]
            lines.append("")
        Path(args.report).write_text("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
