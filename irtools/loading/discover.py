"""Turn PATH arguments into the sorted list of IR files to check."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from irtools.errors import UsageError

SIDECAR_SUFFIX = ".expected.json"
"""Expected-findings files that sit beside sample IRs; never IRs themselves."""


def discover(paths: Iterable[str], allow_empty: bool = False) -> list[str]:
    """Files as given, plus every `*.json` below each directory (sidecars excluded), sorted.

    A directory with no IR file is a usage error unless `allow_empty`: in CI it is most often a
    mistyped path, and "0 files checked" would pass.
    """
    found: set[str] = set()
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            below = [p for p in path.rglob("*.json") if p.is_file() and not p.name.endswith(SIDECAR_SUFFIX)]
            if not below and not allow_empty:
                raise UsageError(f"{arg}: no *.json file in this directory (--allow-empty accepts that)")
            found.update(map(str, below))
        elif path.is_file():
            found.add(str(path))
        elif path.exists():
            raise UsageError(f"{arg}: not a regular file or directory")
        else:
            raise UsageError(f"{arg}: no such file or directory")
    return sorted(found)
