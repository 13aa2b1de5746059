"""Input size guard: refuse a file before reading it when checking it would exhaust memory.

Loading keeps an object per entry (the typed decoder's Structs, 2.4x the file on their own, equal values
shared); validate's peak measured 4.0x the file on a 512 MB raw file, 3.5-4.6x on the 73-98 MB stand-ins
and 2.5x on a real 61 MB Gemini file, analyze's about 6.5x (docs/speed.md). The default limit, 1024 MB,
keeps a check within about 5 GB; `--max-mb` raises or lowers it.
"""

from __future__ import annotations

DEFAULT_MAX_MB = 1024
MEMORY_PER_BYTE = 5
"""Validate's peak resident memory per byte of input, measured (benchmarks/bench_speed.py)."""


def size_problem(size: int, max_bytes: int | None) -> str | None:
    """Why a file of `size` bytes is refused, or None when it is within the limit."""
    if max_bytes is None or size <= max_bytes:
        return None
    need_gb = size * MEMORY_PER_BYTE / 1e9
    return (
        f"file is {size / 1e6:,.0f} MB, over the {max_bytes / 1e6:,.0f} MB limit: checking it needs about "
        f"{need_gb:,.0f} GB of memory; raise the limit with --max-mb if the machine has it"
    )


def stream_problem(max_bytes: int) -> str:
    """Why a stream (standard input, a pipe) longer than `max_bytes` is refused: held whole to be checked,
    its size known only as it is read."""
    return (
        f"input is over the {max_bytes / 1e6:,.0f} MB limit (a stream is held whole while it is checked); "
        "raise the limit with --max-mb if the machine has the memory"
    )
