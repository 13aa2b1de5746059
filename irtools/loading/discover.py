"""Turn PATH arguments into the sorted list of IR files to check."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from irtools.errors import UsageError
from irtools.limits import stream_problem

SIDECAR_SUFFIX = ".expected.json"
"""Expected-findings files that sit beside sample IRs; never IRs themselves."""

STDIN = "-"
"""The PATH that means standard input (`gunzip -c ir.json.gz | irtools validate -`)."""


def is_stream(path: str) -> bool:
    """Whether `path` is read once as it comes: standard input (`-`), a pipe or a character device
    (`<(gunzip -c ir.json.gz)` in bash is /dev/fd/63), not a file that can be read again."""
    if path == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def read_stream(path: str, max_bytes: int | None) -> bytes:
    """The bytes of the stream `path` (`is_stream`), read whole; an OSError saying why past `max_bytes`
    (a stream's size is known only once read: reading stops one byte past the limit)."""
    handle = sys.stdin.buffer if path == STDIN else open(path, "rb")  # noqa: SIM115 - closed below
    try:
        data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()
    if max_bytes is not None and len(data) > max_bytes:
        raise StreamTooLarge(stream_problem(max_bytes))
    return data


class StreamTooLarge(OSError):
    """A stream past the size limit: the message is GIR100's."""


def discover(paths: Iterable[str], allow_empty: bool = False) -> list[str]:
    """Files as given, plus every `*.json` below each directory (sidecars excluded), sorted.

    A directory with no IR file is a usage error unless `allow_empty`: in CI it is most often a
    mistyped path, and "0 files checked" would pass.
    """
    found: set[str] = set()
    for arg in paths:
        path = Path(arg)
        if arg == STDIN:
            if STDIN in found:
                raise UsageError("-: standard input given twice (it can be read once)")
            found.add(STDIN)
        elif path.is_dir():
            below = [p for p in path.rglob("*.json") if p.is_file() and not p.name.endswith(SIDECAR_SUFFIX)]
            if not below and not allow_empty:
                raise UsageError(f"{arg}: no *.json file in this directory (--allow-empty accepts that)")
            found.update(map(str, below))
        elif path.is_file() or is_stream(arg):
            found.add(str(path))
        elif path.exists():
            raise UsageError(f"{arg}: not a regular file, directory, pipe or `-` (standard input)")
        else:
            raise UsageError(f"{arg}: no such file or directory")
    return sorted(found)
