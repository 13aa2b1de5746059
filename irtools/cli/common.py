"""Pieces every subcommand shares: exit codes, argument types, progress policy."""

from __future__ import annotations

import argparse
import os
import sys

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def positive_int(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def show_progress() -> bool:
    """Progress goes to stderr only on a terminal, and never in CI."""
    return sys.stderr.isatty() and not os.environ.get("CI")
