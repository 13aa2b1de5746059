"""The packages of irtools stand in layers: no two import each other, not even through an import made late
inside a function (which only hides the cycle from Python's import machinery), and the analysis core knows
nothing of the trace reader or the sweep that build on it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.conftest import ROOT

CORE = "irtools.analysis"
ABOVE_CORE = ("irtools.trace", "irtools.sweep", "irtools.cli", "dashboards")
"""Packages that build on the analysis core, which it must never import."""


def _unit(module: str) -> str | None:
    """The package a module belongs to: irtools.<package> (a top-level module is its own), or dashboards."""
    parts = module.split(".")
    if parts[0] == "dashboards":
        return "dashboards"
    return ".".join(parts[:2]) if parts[0] == "irtools" and len(parts) > 1 else None


def _imports() -> Iterator[tuple[str, str, str]]:
    """(importing package, imported package, file) for every absolute import anywhere in a file."""
    for top in ("irtools", "dashboards"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            source = _unit(".".join(p for p in parts if p != "__init__"))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
                else:
                    continue
                for name in names:
                    target = _unit(name)
                    if source and target and target != source:
                        yield source, target, str(path.relative_to(ROOT))


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the package graph, or None (depth-first search with colours)."""
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        trail.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*trail[trail.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        trail.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_two_packages_import_each_other() -> None:
    graph: dict[str, set[str]] = {}
    for source, target, _ in _imports():
        graph.setdefault(source, set()).add(target)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_analysis_core_imports_nothing_built_on_it() -> None:
    upward = sorted(
        {(file, target) for source, target, file in _imports() if source == CORE and target in ABOVE_CORE}
    )
    assert not upward, upward
