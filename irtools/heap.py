"""The process's C heap: giving its freed pages back to the system between the phases of a long command.

glibc's malloc keeps what numpy, Arrow and pandas free (tens of MiB inside the heap after `irtools
analyze` has read a 64-core file), and touched pages count as resident until it trims them: at the
top of the heap only, by itself. `malloc_trim(0)` returns every whole free page, wherever it is.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache


def give_back_freed_memory() -> None:
    """Return the C heap's free pages to the system (glibc's `malloc_trim`); nothing where the C library
    has none. A few milliseconds: between phases, not in loops."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:  # the process's own symbols, the C library's among them (no search for its file)
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc (musl, macOS, Windows): no such call
        return None
    return trim
