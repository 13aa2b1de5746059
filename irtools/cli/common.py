"""Pieces every subcommand shares: exit codes, argument types, progress policy."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13
"""What a shell reports for a program ended by SIGPIPE: its reader closed the pipe (`| head`)."""


def positive_int(text: str) -> int:
    """An argparse type: an integer > 0, in decimal or with a 0x/0o/0b prefix."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (`inf` and `nan` parse as floats but measure nothing)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite positive number, got {text!r}")
    return value


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 1 to 65535."""
    value = positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"expected a TCP port from 1 to 65535, got {text!r}")
    return value


def add_allow_empty(parser: argparse.ArgumentParser) -> None:
    """For commands that take directories: one without IR files is a usage error unless allowed."""
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="accept a directory with no *.json file (default: usage error, exit 2: a mistyped path)",
    )


def max_bytes(args: argparse.Namespace) -> int:
    """The --max-mb limit in bytes."""
    return int(args.max_mb) * 10**6


def source_of(path: str, max_bytes: int | None) -> str | bytes:
    """What a command that reads one IR reads: the path of a file, or the bytes of a stream (`-`, a pipe),
    read once here and kept (a re-read after FieldDropped reads them again); AnalysisError past
    `max_bytes`, as for a file."""
    from irtools.errors import AnalysisError
    from irtools.loading.discover import StreamTooLarge, is_stream, read_stream

    if not is_stream(path):
        return path
    try:
        return read_stream(path, max_bytes)
    except StreamTooLarge as exc:
        raise AnalysisError(f"{path}: not an IR that can be analyzed: {exc}") from None


def show_progress() -> bool:
    """Progress goes to stderr only on a terminal, and never in CI."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def file_progress(verb: str) -> Callable[[int, int], None] | None:
    """A `done/total files` counter on stderr, or None where progress is not shown."""
    if not show_progress():
        return None

    def report(done: int, total: int) -> None:
        sys.stderr.write(_counted(verb, done, total))
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return report


_NEW_LINE = "\r\x1b[K"
"""Back to the line's start and clear it: a shorter line must not leave the end of a longer one."""


def _counted(verb: str, done: int, total: int) -> str:
    """The progress line's start, shared by the counter and the large-file note: `checked 2/6 files`."""
    return f"{_NEW_LINE}{verb} {done}/{total} files"


LARGE_FILE = 20 * 10**6
"""Bytes from which a file's check takes seconds: the terminal names it while it is read."""


def large_file_note(verb: str) -> Callable[[str, int, int], None] | None:
    """Names a large file on stderr while it is checked (a 300 MB file takes half a minute, and the
    `done/total` counter moves only when it is done), or None where progress is not shown."""
    if not show_progress():
        return None

    def note(path: str, done: int, total: int) -> None:
        try:
            size = os.path.getsize(path)
        except OSError:
            return  # the check reports it
        if size >= LARGE_FILE:
            sys.stderr.write(f"{_counted(verb, done, total)}; now {path} ({size / 1e6:,.0f} MB)…")
            sys.stderr.flush()

    return note


EXCEL_SAFE_HELP = (
    "CSV for spreadsheets: text cells starting with = + - @ tab or CR (or holding one after a line break) "
    "get a ' so Excel or LibreOffice cannot run them as formulas (numbers unchanged; off by default: "
    "pandas users read the names back as written)"
)


def arrow_uses_malloc() -> None:
    """Arrow allocates the tables' text columns from malloc, where Python and numpy allocate: its own pool
    (mimalloc) keeps what it frees, and the tables' texts were 20 MiB of analyze's peak on a 73 MB file.
    For a command's process (analyze, serve): the setting is the process's. Before pyarrow is imported,
    by the variable it reads as it loads: its own pool then never starts (3 MiB less at analyze's peak)."""
    if "pyarrow" not in sys.modules:
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
        return
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
