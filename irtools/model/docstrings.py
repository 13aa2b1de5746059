"""The models' attribute docstrings as their fields' descriptions (the JSON Schema's), read cheaply.

A string right under an annotated attribute documents it. Pydantic's `use_attribute_docstrings` reads
them as each class is made, by tokenizing the class's block found from the interpreter's frames: 24 ms
of every process's start (a fifth of `irtools validate`'s imports). Here each module's source is parsed
once, when its first model is made, every class's docstrings read from that tree and only those kept,
with Pydantic's rule: the string must follow the annotated assignment directly, is cleaned as a
docstring, and fills only a field that has no description.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cache
from typing import Any


def describe_fields(cls: type[Any]) -> None:
    """Set each field of the Pydantic model or dataclass `cls` that has no description to the docstring
    written under it in `cls`'s own body. Call it as the class is made, before any subclass is: a
    subclass's fields start from its bases' (as with Pydantic's own reading)."""
    docs = attribute_docstrings(cls)
    for name, info in cls.__dict__.get("__pydantic_fields__", {}).items():
        if info.description is None and name in docs:
            info.description = docs[name]


def attribute_docstrings(cls: type[Any]) -> dict[str, str]:
    """Field name -> the docstring under its annotation in `cls`'s own body (none for a class defined in a
    function, one of two classes of the same name, or one whose source cannot be read)."""
    return _module_docstrings(cls.__module__).get(cls.__qualname__, {})


@cache
def _module_docstrings(module: str) -> dict[str, dict[str, str]]:
    """Qualified class name -> its attribute docstrings, for every class of `module` (its syntax tree is
    let go: only the strings are kept)."""
    try:
        body = ast.parse(inspect.getsource(sys.modules[module])).body
    except (KeyError, OSError, TypeError, SyntaxError):
        return {}
    found: dict[str, dict[str, str]] = {}
    repeated: set[str] = set()
    classes = [("", s) for s in body if isinstance(s, ast.ClassDef)]
    while classes:
        prefix, node = classes.pop()
        name = prefix + node.name
        if name in found:
            repeated.add(name)  # which of the two a class is, the tree does not say
        found[name] = _own_docstrings(node)
        classes += [(name + ".", s) for s in node.body if isinstance(s, ast.ClassDef)]
    return {name: docs for name, docs in found.items() if name not in repeated}


def _own_docstrings(node: ast.ClassDef) -> dict[str, str]:
    """Pydantic's rule: a string statement right after an annotated assignment to a name documents it."""
    docs: dict[str, str] = {}
    target: str | None = None
    previous: type[ast.stmt] | None = None
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign):
            if isinstance(statement.target, ast.Name):
                target = statement.target.id
        elif (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
            and previous is ast.AnnAssign
        ):
            if target:
                docs[target] = inspect.cleandoc(statement.value.value)
            target = None
        previous = type(statement)
    return docs
