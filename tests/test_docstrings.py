"""Docstrings of the ``swingby`` package follow its public API, each module's ``__all__``.

A public function, or a public method of a public class, that takes two or more parameters
(``self`` and ``cls`` not counted) should carry a numpydoc ``Parameters`` section, which the
book's API page (``book/api.md``) renders; every other function gets at most one line. A
module without ``__all__`` counts its names without a leading underscore as public.
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


def _public(module, name: str) -> bool:
    """Whether ``name`` is in the module's ``__all__`` (without one: has no leading underscore)."""
    names = getattr(module, "__all__", None)
    return name in names if names is not None else not name.startswith("_")


def _defined(module) -> list[tuple[str, object, bool, list[str]]]:
    """Functions of ``module`` and methods of its classes (defined there, not imported; no dunder
    methods) as ``(qualified name, function, public, parameter names)``; a method is public when it
    and its class are, and its ``self`` or ``cls`` is not counted."""
    out = []
    for name, obj in vars(module).items():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            out.append((name, obj, _public(module, name), _params(obj, bound=False)))
        elif inspect.isclass(obj):
            for mname, member in vars(obj).items():
                func = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                if inspect.isfunction(func) and not (mname.startswith("__") and mname.endswith("__")):
                    public = _public(module, name) and not mname.startswith("_")
                    out.append((f"{name}.{mname}", func, public, _params(func, not isinstance(member, staticmethod))))
    return out


def _counted(module) -> list[tuple[str, object, list[str]]]:
    """Public functions and methods of ``module`` with two or more parameters."""
    return [(n, f, p) for n, f, public, p in _defined(module) if public and len(p) >= 2]


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
    names = {m.__name__ for m in _modules()}
    assert {"swingby.sim.data", "swingby.verdicts", "swingby.diffusion.runs.storage"} <= names
    assert sum(t[1] for t in coverage().values()) >= 40


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


def test_private_functions_have_at_most_one_line():
    long = [f"{module.__name__}.{name}" for module in _modules() for name, func, public, _ in _defined(module)
            if not public and "\n" in (inspect.getdoc(func) or "")]
    assert not long, f"{len(long)} functions outside __all__ with more than one line of docstring:\n" + \
        "\n".join(long)


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
