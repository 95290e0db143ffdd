"""Read a built chapter in a real browser with no network (issue 14), by hand:

    .venv/bin/python tests/browser_check.py                       # book/sim_task.html
    .venv/bin/python tests/browser_check.py book/diffusion.html   # any pages of _build/html

Needs a built book (``make book``) and a headless Chromium: Debian's
``chromium-headless-shell`` or ``chromium`` package (``apt-get install
chromium-headless-shell``), or any Chrome named by ``--browser`` or ``$CHROMIUM``.

Headless Chromium opens each page from the file system, with every network request
sent to a closed proxy port and every host name unresolvable, and a net log of what it
tried. The check fails when

- the page asked for anything over the network (the net log names it);
- the math did not render: no MathJax output, or raw TeX delimiters ``\\(`` / ``\\[``
  left in the page's text (outside code and scripts);
- the page holds ipywidgets state but no widget was drawn (the explorers would be empty
  boxes).

It is not part of ``make test``: CI machines have no browser, and installing one (about
a hundred Debian packages) is too heavy for every run. ``tests/test_offline_html.py``,
which ``make test`` runs, checks the same property statically on every page.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome",
            "google-chrome-stable"]
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def find_browser(name: str | None) -> str:
    for candidate in [name, os.environ.get("CHROMIUM")] + BROWSERS:
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    sys.exit("no headless Chromium found: apt-get install chromium-headless-shell, "
             "or give --browser PATH")


def network_requests(net_log: Path) -> list[str]:
    """Every http(s)/ws URL that the net log records a request for."""
    try:
        text = net_log.read_text(errors="replace")
    except FileNotFoundError:
        return []
    return sorted(set(re.findall(r'"url":"((?:https?|wss?)://[^"]*)"', text)))


def visible_text(dom: str) -> str:
    """The page's text outside scripts, styles, code and MathJax's own output."""
    dom = re.sub(r"<(script|style|pre|code|textarea|mjx-container)\b.*?</\1>", " ", dom, flags=re.S | re.I)
    return re.sub(r"<[^>]+>", " ", dom)


def check_page(browser: str, page: Path, budget_ms: int) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        net_log = Path(tmp) / "net.json"
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={tmp}/profile", "--proxy-server=127.0.0.1:9",
               "--host-resolver-rules=MAP * ~NOTFOUND", f"--log-net-log={net_log}",
               f"--virtual-time-budget={budget_ms}", "--dump-dom", page.as_uri()]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        if run.returncode != 0 or "<html" not in run.stdout:
            return [f"the browser failed (exit {run.returncode}): {run.stderr[-2000:]}"]
        dom, requests = run.stdout, network_requests(net_log)
    problems = [f"asked the network for {url}" for url in requests]
    rendered = len(re.findall(r"<mjx-container\b", dom))
    source = page.read_text(encoding="utf-8")
    has_math = bool(re.search(r'class="[^"]*\bmath\b', source))
    raw = re.findall(r"\\[(\[]", visible_text(dom))
    if has_math and not rendered:
        problems.append("the page has math but MathJax rendered none of it")
    if raw:
        problems.append(f"{len(raw)} raw TeX delimiter(s) left in the text, e.g. {raw[0]!r}")
    if WIDGET_STATE in source:
        views = source.count('type="application/vnd.jupyter.widget-view+json"')
        drawn = len(re.findall(r'class="widget-subarea"', dom))
        if drawn < views:
            problems.append(f"{views} widget view(s) in the page, {drawn} drawn")
    print(f"{page.name}: {rendered} formulas rendered, {len(requests)} network request(s)"
          + (f", {source.count('widget-view+json')} widget view(s)" if WIDGET_STATE in source else ""))
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="*", default=["book/sim_task.html"],
                    help="pages relative to the built book (default: book/sim_task.html)")
    ap.add_argument("--html", default=str(ROOT / "_build" / "html"), help="the built book")
    ap.add_argument("--browser", help="a Chromium or Chrome executable")
    ap.add_argument("--budget-ms", type=int, default=20000,
                    help="virtual time the page may run its scripts (default 20000)")
    args = ap.parse_args(argv)
    browser = find_browser(args.browser)
    failed = 0
    for name in args.pages:
        page = Path(args.html) / name
        if not page.is_file():
            sys.exit(f"{page} does not exist: build the book first (make book)")
        problems = check_page(browser, page.resolve(), args.budget_ms)
        for p in problems:
            print(f"  FAIL {name}: {p}")
        failed += bool(problems)
    print(f"{len(args.pages) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
