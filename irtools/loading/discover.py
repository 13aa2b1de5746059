"""Turn PATH arguments into the sorted list of IR files to check."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from irtools.rules.registry import UsageError

SIDECAR_SUFFIX = ".expected.json"
"""Expected-findings files that sit beside sample IRs; never IRs themselves."""


def discover(paths: Iterable[str]) -> list[str]:
    """Files as given, plus every `*.json` below each directory (sidecars excluded), sorted."""
    found: set[str] = set()
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            found.update(
                str(p) for p in path.rglob("*.json") if p.is_file() and not p.name.endswith(SIDECAR_SUFFIX)
            )
        elif path.is_file():
            found.add(str(path))
        elif path.exists():
            raise UsageError(f"{arg}: not a regular file or directory")
        else:
            raise UsageError(f"{arg}: no such file or directory")
    return sorted(found)
