"""Pieces every subcommand shares: exit codes, argument types, progress policy."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def positive_int(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_max_mb(parser: argparse.ArgumentParser) -> None:
    """The input size guard every command that reads IR files takes."""
    from irtools.limits import DEFAULT_MAX_MB, MEMORY_PER_BYTE

    parser.add_argument(
        "--max-mb",
        type=positive_int,
        default=DEFAULT_MAX_MB,
        metavar="MB",
        help=f"refuse IR files larger than this, unread (default {DEFAULT_MAX_MB}; "
        f"checking needs about {MEMORY_PER_BYTE}x the file size in memory)",
    )


def max_bytes(args: argparse.Namespace) -> int:
    return int(args.max_mb) * 10**6


def show_progress() -> bool:
    """Progress goes to stderr only on a terminal, and never in CI."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def file_progress(verb: str) -> Callable[[int, int], None] | None:
    """A `done/total files` counter on stderr, or None where progress is not shown."""
    if not show_progress():
        return None

    def report(done: int, total: int) -> None:
        sys.stderr.write(f"\r{verb} {done}/{total} files")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return report
