"""Sphinx extension of the book's API page (``book/api.md``): the ``#:`` comments of
module constants and NamedTuple fields are prose, shown as written.

Napoleon reads the first line of an attribute's docstring as ``type: description``, so
``#: independent repeated draws of every class: the sampling noise ...`` would turn
the words before the colon into a type whose every word the strict (``-n``) build tries
to link. This keeps what napoleon makes of functions and classes and gives attributes
back their original text.
"""
from __future__ import annotations

_original: dict[str, list[str]] = {}
_ATTRIBUTES = ("attribute", "data")


def _keep(app, what, name, obj, options, lines) -> None:
    if what in _ATTRIBUTES:
        _original[name] = list(lines)


def _restore(app, what, name, obj, options, lines) -> None:
    if what in _ATTRIBUTES and name in _original:
        lines[:] = _original.pop(name)


def setup(app):
    # napoleon processes docstrings at the default priority, 500
    app.connect("autodoc-process-docstring", _keep, priority=400)
    app.connect("autodoc-process-docstring", _restore, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
