"""The identity of the code that makes a results file's numbers: the SHA-256 of the sorted ``(name, tree)`` pairs of
the definitions reachable from ``ROOTS`` by name (through each module's imports) in ``swingby.diffusion`` and
``swingby._checks``, parsed, without docstrings, comments or line numbers. So docstrings, comments and moves keep
it; a change to what runs changes it. The libraries and the machine: ``tests/test_replay.py``.
"""
from __future__ import annotations

import ast
import copy
import hashlib
from pathlib import Path

from swingby._source_identity import strip_docstrings as _strip_docstrings

__all__ = []

DIFFUSION_DIR = Path(__file__).resolve().parents[1]
#: modules searched for definitions, by dotted name: every module of ``swingby.diffusion``, and the checks
SEARCHED = {"swingby._checks": DIFFUSION_DIR.parent / "_checks.py",
            **{".".join(f.relative_to(DIFFUSION_DIR.parents[1]).with_suffix("").parts): f
               for f in sorted(DIFFUSION_DIR.rglob("*.py")) if f.stem not in ("__init__", "__main__")}}
#: where the closure starts: what makes the numbers of a results file and a classifier
ROOTS = (("swingby.diffusion.runs.driver", "run_one"), ("swingby.diffusion.sweep", "checkpoint_steps"),
         ("swingby.diffusion.runs.evaluation", "get_classifier"), ("swingby.diffusion.runs.evaluation", "evaluate"),
         ("swingby.diffusion.runs.evaluation", "final_repeats"), ("swingby.diffusion.runs.storage", "save_results"),
         ("swingby.diffusion.presets", "PRESETS"), ("swingby.diffusion.presets", "get_preset"),
         ("swingby.diffusion.runs.driver", "_worker"))
IDENTITY_KEY = "code_identity"  #: the key of the identity in a results file's ``meta["code_version"]``
#: identities of code that made a stored results file, with the commit to check out to reproduce it
EARLIER = {
    "d2a5489dae45c31c2641ea44e057eabc1c06ba1944513bc9f30245ec0acd5043": (
        "5729ed8", "the stored cpu sweep (2400 steps); later code trains with a fused optimiser, samples "
        "every prompt of a checkpoint in one chain and stores per-sample disc flags"),
}
EXCLUDED = frozenset({"code_hash", "code_version", "code_identity", "covered_names"})  #: never make a number


class _Module:
    """The top-level definitions and imports of one parsed module."""

    def __init__(self, name: str, source: str, known: set):
        self.name = name
        self.defs: dict[str, ast.AST] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.defs[n.id] = node
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    self.imports[a.asname or a.name] = (full, None) if full in known else (node.module, a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    self.imports[a.asname or a.name.split(".")[0]] = (a.name, None)


def _references(node: ast.AST, known: set) -> tuple[set, dict]:
    """Names (``("x",)``) and attributes (``("mod", "x")``) that ``node`` uses, and the imports inside it."""
    refs, local = set(), {}
    for n in ast.walk(node):
        if isinstance(n, ast.ImportFrom) and n.module:
            for a in n.names:
                full = f"{n.module}.{a.name}"
                local[a.asname or a.name] = (full, None) if full in known else (n.module, a.name)
        elif isinstance(n, ast.Name):
            refs.add((n.id,))
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            refs.add((n.value.id, n.attr))
    return refs, local


def _resolve(modules: dict, mod: _Module, ref: tuple[str, ...], local: dict):
    """``(module, name)`` of the definition ``ref`` means in ``mod`` (with imports ``local``), or None."""
    head = ref[0]
    if len(ref) == 1 and head in mod.defs and head not in local:
        return mod.name, head
    imports = {**mod.imports, **local}
    if head not in imports:
        return None
    target, attr = imports[head]
    if attr is not None:  # from module import name
        return (target, attr) if target in modules and attr in modules[target].defs else None
    if len(ref) == 2 and target in modules and ref[1] in modules[target].defs:  # module.name
        return target, ref[1]
    return None


def _covered(sources: dict[str, str]) -> dict[tuple[str, str], str]:
    """``(module, name) -> normalised tree`` of every covered definition."""
    known = set(sources)
    modules = {name: _Module(name, src, known) for name, src in sources.items()}
    todo = [r for r in ROOTS if r[0] in modules and r[1] in modules[r[0]].defs]
    seen: dict[tuple[str, str], str] = {}
    while todo:
        key = todo.pop()
        if key in seen or key[1] in EXCLUDED:
            continue
        mod = modules[key[0]]
        node = mod.defs[key[1]]
        seen[key] = ast.dump(_strip_docstrings(copy.deepcopy(node)), include_attributes=False)  # no line numbers
        refs, local = _references(node, known)
        for ref in refs:
            found = _resolve(modules, mod, ref, local)
            if found is not None and found not in seen:
                todo.append(found)
    return seen


def _read_sources(sources: dict[str, str] | None) -> dict[str, str]:
    """``sources``, or the searched modules' text on disk."""
    return sources if sources is not None else {name: path.read_text() for name, path in SEARCHED.items()}


def code_identity(sources: dict[str, str] | None = None) -> str:
    """The identity of the files on disk or of ``sources`` (``{dotted module name: source text}``)."""
    h = hashlib.sha256()
    for name, dump in sorted((k[1], v) for k, v in _covered(_read_sources(sources)).items()):
        h.update(name.encode() + b"\0" + dump.encode() + b"\0")
    return h.hexdigest()


def covered_names(sources: dict[str, str] | None = None) -> list[str]:
    """The covered definitions as ``module:name``, sorted (what ``code_identity`` hashes)."""
    return sorted(f"{m}:{n}" for m, n in _covered(_read_sources(sources)))
