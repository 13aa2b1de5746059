"""Every public class, method and function of irtools/ and dashboards/ has its docstring (shared/STYLE.md).

ruff's D101-D103 say the same where ruff runs (pyproject.toml); this test holds it in the test run too,
which needs no linter installed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import ROOT

PROTOCOL_MEMBERS = ROOT / "irtools" / "model" / "view.py"
"""Its protocols' members restate the dialect models' fields, documented there (pyproject.toml says why)."""


def _public(name: str) -> bool:
    return not name.startswith("_")


def _undocumented(path: Path) -> Iterator[str]:
    """`path:line name` of each public class, and function or method of a public class, without a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(ROOT)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name):
            if ast.get_docstring(node) is None and not _is_overload(node):
                yield f"{where}:{node.lineno} {node.name}"
        elif isinstance(node, ast.ClassDef) and _public(node.name):
            if ast.get_docstring(node) is None:
                yield f"{where}:{node.lineno} {node.name}"
            if path == PROTOCOL_MEMBERS:
                continue
            for member in node.body:
                if (
                    isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
                    and _public(member.name)
                    and ast.get_docstring(member) is None
                    and not _is_overload(member)
                ):
                    yield f"{where}:{member.lineno} {node.name}.{member.name}"


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "overload" for d in node.decorator_list)


def test_every_public_function_has_its_docstring() -> None:
    missing = [
        place
        for package in ("irtools", "dashboards")
        for path in sorted((ROOT / package).rglob("*.py"))
        for place in _undocumented(path)
    ]
    assert not missing, "give each a one-line docstring (what it returns or does):\n" + "\n".join(missing)
