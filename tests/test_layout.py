"""The package's layout rules: no import circle between its modules (imports inside
functions included), imports only down the parts of :data:`PARTS`, and every
subpackage's ``__init__`` says what it holds. Files are
split where the code has a boundary, not at a line count."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

PKG = Path(__file__).resolve().parents[1] / "swingby"


def _modules() -> dict[str, Path]:
    mods = {}
    for f in PKG.rglob("*.py"):
        name = ".".join(f.relative_to(PKG.parent).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = f
    return mods


def _graph(mods: dict[str, Path]) -> dict[str, set]:
    graph = {m: set() for m in mods}
    for m, f in mods.items():
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("swingby"):
                for a in node.names:
                    sub = f"{node.module}.{a.name}"
                    graph[m].add(sub if sub in mods else node.module)
            elif isinstance(node, ast.Import):
                graph[m].update(a.name for a in node.names if a.name.startswith("swingby"))
    return {m: {t for t in ts if t in mods and t != m} for m, ts in graph.items()}


def _cycles(graph: dict[str, set]) -> list[list[str]]:
    """Strongly connected components with more than one module."""
    names = sorted(graph)
    at = {m: i for i, m in enumerate(names)}
    rows = [at[m] for m in names for t in graph[m]]
    cols = [at[t] for m in names for t in graph[m]]
    adj = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(names), len(names)))
    _, label = connected_components(adj, directed=True, connection="strong")
    comps = [sorted(n for n, lab in zip(names, label) if lab == k) for k in set(label)]
    return sorted(c for c in comps if len(c) > 1)


#: the parts of the package from the bottom up: a module imports only from its own part or
#: parts below it (the README's "How the package is built")
PARTS = (("swingby._checks", "swingby.results", "swingby._source_identity", "swingby.exact_tests"),
         ("swingby.live", "swingby.explorable", "swingby.style", "swingby.verdicts"),
         ("swingby.sim", "swingby.status", "swingby.chapter"),
         ("swingby.observations",), ("swingby.theory",), ("swingby.claims",), ("swingby.audit", "swingby.findings"),
         ("swingby.diffusion",), ("swingby.capability",), ("swingby.open_questions",))


def _level(module: str) -> int:
    for k, part in enumerate(PARTS):
        if any(module == p or module.startswith(p + ".") for p in part):
            return k
    raise AssertionError(f"{module} is in no part of PARTS")


def _upward(graph: dict[str, set]) -> list[tuple[str, str]]:
    return sorted((m, t) for m, ts in graph.items() for t in ts if _level(t) > _level(m))


def test_no_import_circle():
    assert _cycles(_graph(_modules())) == []


def test_imports_go_down_the_parts():
    assert _upward(_graph(_modules())) == []


def test_the_direction_check_can_fail():
    assert _upward({"swingby.sim.data": {"swingby.theory.stages"}, "swingby.theory.stages": set()}) == [
        ("swingby.sim.data", "swingby.theory.stages")]


def test_the_circle_check_can_fail():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_every_subpackage_says_what_it_holds():
    for init in PKG.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and len(doc) > 40, f"{init.relative_to(PKG.parent)} needs a docstring saying what it holds"
