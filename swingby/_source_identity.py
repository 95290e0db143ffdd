"""What the code identities of stored results read from a source file: its syntax tree
without docstrings or comments (comments never reach the tree), so that editing a
description keeps an identity and editing code changes it. Used by
:mod:`swingby.diffusion.runs.identity` (the diffusion sweeps) and
:mod:`swingby.open_questions.store` (the open-question sweeps)."""
from __future__ import annotations

import ast


def strip_docstrings(tree: ast.AST) -> ast.AST:
    """Remove every bare string statement (docstrings, attribute docstrings) in place.

    Parameters
    ----------
    tree : ast.AST
        A parsed module or definition.

    Returns
    -------
    ast.AST
        The same tree; a body left empty holds ``pass``.
    """
    if not isinstance(tree, ast.AST):
        raise ValueError(f"tree must be an ast.AST, got {type(tree).__name__}")
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                            and isinstance(s.value.value, str))]
            node.body = kept or [ast.Pass()]
    return tree


def code_only(source: str) -> str:
    """The syntax tree of ``source`` without docstrings, comments or line numbers, as
    text: what runs, not how it is described.

    Parameters
    ----------
    source : str
        Python source.

    Returns
    -------
    str
    """
    if not isinstance(source, str):
        raise ValueError(f"source must be Python source text, got {type(source).__name__}")
    return ast.dump(strip_docstrings(ast.parse(source)), include_attributes=False)
