"""Atomic file writes: a reader sees the old file or the complete new one, never half of either."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temp path beside `path`; on success fsync it and rename it over `path`, else delete it."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    except OSError as exc:  # name the file the user asked for, not our temp file
        raise type(exc)(exc.errno, exc.strerror, str(target)) from None
    os.close(fd)
    try:
        # mkstemp makes the file private (0600); give it the mode the old file had, or the umask default.
        os.chmod(tmp, _mode_for(target))
        yield Path(tmp)
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | os.PathLike[str], write: Callable[[Path], object]) -> None:
    """Call `write(temp_path)`, then move the complete file over `path`."""
    with atomic_path(path) as tmp:
        write(tmp)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to a temp file beside `path`, fsync it, then rename it over `path`."""
    with text_atomic(path) as f:
        f.write(text)


@contextmanager
def text_atomic(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A UTF-8 text file to write `path` through a piece at a time (a lone surrogate, which UTF-8 cannot
    encode, as a backslash escape), renamed over `path` once the block ends without an error, else deleted."""
    with (
        atomic_path(path) as tmp,
        open(tmp, "w", encoding="utf-8", errors="backslashreplace", newline="") as f,
    ):
        yield f


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
