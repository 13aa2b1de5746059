"""L2 address arithmetic: ring regions and wrap-around segments, shared by the checker and analysis.

`ring_buffer_info` pairs are read as [start, end) with an exclusive end. The real files only
hold [[0, buffersize]], where this and the [start, size] reading agree; when they differ for
a file, GIR303 says which reading was used.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a tensor sits in L2: its byte segments after wrap-around, or why it does not fit."""

    segments: tuple[tuple[int, int], ...]
    """Half-open [start, end) byte ranges; two when the tensor wraps around its region."""
    region: tuple[int, int] | None
    """The ring region [start, end) holding the tensor's start address."""
    problem: str | None = None

    @property
    def wraps(self) -> bool:
        """Whether the tensor wraps around the end of its ring region (two segments)."""
        return len(self.segments) > 1


def regions_of(ring_buffer_info: Sequence[list[int]], buffersize: int | None) -> list[tuple[int, int]]:
    """Ring regions as sorted [start, end) pairs; the whole buffer when none are given."""
    if not ring_buffer_info:
        return [(0, buffersize)] if buffersize else []
    return sorted((r[0], r[1]) for r in ring_buffer_info)


def place(address: int, size: int, regions: list[tuple[int, int]], buffersize: int | None) -> Placement:
    """Map a tensor onto L2, wrapping it to its region's start when it runs past the region's end."""
    if buffersize is not None and address >= buffersize:
        return Placement(
            ((address, address + size),), None, f"starts at {address:#x}, past buffersize {buffersize:#x}"
        )
    starts = [r[0] for r in regions]
    k = bisect.bisect_right(starts, address) - 1
    if k < 0 or not regions[k][0] <= address < regions[k][1]:
        return Placement(
            ((address, address + size),), None, f"starts at {address:#x}, outside every ring region"
        )
    start, end = regions[k]
    if size > end - start:
        return Placement(
            ((address, end),), (start, end), f"{size} bytes do not fit in ring region [{start:#x}, {end:#x})"
        )
    if address + size <= end:
        return Placement(((address, address + size),), (start, end))
    return Placement(((address, end), (start, start + address + size - end)), (start, end))


def linear(address: int, size: int, end: int | None) -> Placement:
    """A tensor in an L2 without ring regions (raw, alloc): where it is, never wrapped; past `end` is a problem."""
    stop = address + size
    problem = f"ends at {stop:#x}, past the L2 size {end:#x}" if end is not None and stop > end else None
    return Placement(((address, stop),), (0, end) if end is not None else None, problem)
