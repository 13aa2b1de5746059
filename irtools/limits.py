"""Input size guard: refuse a file before reading it when checking it would exhaust memory.

Loading keeps a model object per entry; peak memory measured on 100 MB files is about 4 times
the file size for validate and 5 for analyze (docs/benchmarks.md). The default limit, 1024 MB, keeps a
run within about 5 GB; `--max-mb` raises or lowers it.
"""

from __future__ import annotations

DEFAULT_MAX_MB = 1024
MEMORY_PER_BYTE = 5
"""Peak resident memory per byte of input, measured (benchmarks/bench_scale.py)."""


def size_problem(size: int, max_bytes: int | None) -> str | None:
    """Why a file of `size` bytes is refused, or None when it is within the limit."""
    if max_bytes is None or size <= max_bytes:
        return None
    need_gb = size * MEMORY_PER_BYTE / 1e9
    return (
        f"file is {size / 1e6:,.0f} MB, over the {max_bytes / 1e6:,.0f} MB limit: checking it needs about "
        f"{need_gb:,.0f} GB of memory; raise the limit with --max-mb if the machine has it"
    )
