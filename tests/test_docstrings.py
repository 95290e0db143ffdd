"""Docstring coverage of the ``swingby`` package (issue 13, item 3).

Every public function and every public method of a public class that takes two or
more parameters (``self`` and ``cls`` not counted) should carry a numpydoc
``Parameters`` section, the way QuantEcon.py documents nearly all of its functions.
The book's API page (``book/api.md``) renders these docstrings with napoleon, and its
strict build fails on a broken one; this test measures how many have the section.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import swingby

#: smallest share of the counted functions that must have a ``Parameters`` section
MIN_COVERAGE = 0.90
#: modules that are programs rather than library code
SKIP = {"swingby.diffusion.__main__"}

_SECTION = re.compile(r"^\s*Parameters\s*\n\s*-{10}\s*$", re.MULTILINE)


def _modules() -> list:
    names = [swingby.__name__] + [m.name for m in pkgutil.walk_packages(swingby.__path__, "swingby.")]
    return [importlib.import_module(n) for n in sorted(names) if n not in SKIP]


def _params(func, bound: bool) -> list[str]:
    """Parameter names of ``func``; ``bound``: drop the first (``self`` or ``cls``)."""
    try:
        names = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return []
    return names[1:] if bound else names


def _counted(module) -> list[tuple[str, object, list[str]]]:
    """Public functions of ``module`` and public methods of its public classes (defined
    there, not imported) with two or more parameters, as ``(qualified name, function,
    parameter names)``."""
    out = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            out.append((name, obj, _params(obj, bound=False)))
        elif inspect.isclass(obj):
            for mname, member in vars(obj).items():
                if mname.startswith("_"):
                    continue
                func = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                if inspect.isfunction(func):
                    out.append((f"{name}.{mname}", func, _params(func, not isinstance(member, staticmethod))))
    return [(n, f, p) for n, f, p in out if len(p) >= 2]


def _documented(doc: str) -> set[str]:
    """Parameter names a numpydoc ``Parameters`` section lists (``x, y : array`` gives
    two; free-text entries such as ``other arguments`` are not names and are skipped)."""
    m = re.search(r"^Parameters\n-{10}\n(.*?)(?=^\S[^\n]*\n-{3,}$|\Z)", doc, re.MULTILINE | re.DOTALL)
    names = set()
    for line in (m.group(1).splitlines() if m else []):
        if line and not line[0].isspace():
            for item in line.split(" : ")[0].split(","):
                item = item.strip().lstrip("*")
                if item.isidentifier():
                    names.add(item)
    return names


def coverage() -> dict[str, tuple[int, int, list[str]]]:
    """Per module: (documented, counted, names without a ``Parameters`` section)."""
    table = {}
    for module in _modules():
        funcs = _counted(module)
        missing = [n for n, f, _ in funcs if not _SECTION.search(inspect.getdoc(f) or "")]
        if funcs:
            table[module.__name__] = (len(funcs) - len(missing), len(funcs), missing)
    return table


def report(table: dict) -> str:
    lines = [f"{'module':42s} {'documented':>10s}"]
    for mod, (ok, n, missing) in table.items():
        lines.append(f"{mod:42s} {ok:4d} / {n:<4d}" + (f"  missing: {', '.join(missing)}" if missing else ""))
    ok, n = sum(t[0] for t in table.values()), sum(t[1] for t in table.values())
    lines.append(f"{'all':42s} {ok:4d} / {n:<4d} = {ok / n:.0%} (bar: {MIN_COVERAGE:.0%})")
    return "\n".join(lines)


def test_the_walk_finds_the_package():
    table = coverage()
    assert "swingby.sim.data" in table and "swingby.capability.measures" in table
    assert sum(t[1] for t in table.values()) >= 80


def test_public_functions_have_a_parameters_section():
    table = coverage()
    print(report(table))  # shown by pytest -rA or on failure
    ok, n = sum(t[0] for t in table.values()), sum(t[1] for t in table.values())
    assert ok / n >= MIN_COVERAGE, (
        f"only {ok} of {n} public functions with two or more parameters have a numpydoc "
        f"Parameters section:\n{report(table)}")



def test_parameters_sections_name_real_parameters():
    """A documented name that the function does not take is a stale docstring (an
    argument renamed or removed)."""
    stale = []
    for module in _modules():
        for name, func, params in _counted(module):
            extra = _documented(inspect.getdoc(func) or "") - set(params)
            if extra:
                stale.append(f"{module.__name__}.{name}: documents {sorted(extra)}, takes {params}")
    assert not stale, "Parameters sections that name no parameter:\n" + "\n".join(stale)



def test_the_api_page_lists_every_public_module():
    """``book/api.md`` has an ``automodule`` for every module whose name has no leading
    underscore, so a new module cannot be left out of the API reference."""
    page = (Path(__file__).resolve().parents[1] / "book" / "api.md").read_text()
    listed = set(re.findall(r"^\.\. automodule:: (\S+)$", page, re.MULTILINE))
    public = {m.__name__ for m in _modules() if not any(part.startswith("_") for part in m.__name__.split("."))}
    assert not public - listed, f"book/api.md lacks an automodule for {sorted(public - listed)}"
    assert not listed - public - {"swingby._checks"}, f"book/api.md lists unknown modules {sorted(listed - public)}"


if __name__ == "__main__":
    print(report(coverage()))
