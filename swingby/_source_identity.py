"""The code of a source file as the identities of stored results read it: its syntax tree without
docstrings or comments, so that editing a description keeps an identity and editing code changes it
(:mod:`swingby.diffusion.runs.identity`, :mod:`swingby.open_questions.store`)."""
from __future__ import annotations

import ast

__all__ = []


def strip_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` with every bare string statement removed in place (a body left empty holds ``pass``)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                            and isinstance(s.value.value, str))]
            node.body = kept or [ast.Pass()]
    return tree


def code_only(source: str) -> str:
    """The syntax tree of ``source`` without docstrings, comments or line numbers, as text."""
    return ast.dump(strip_docstrings(ast.parse(source)), include_attributes=False)
