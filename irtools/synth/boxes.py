"""4-D boxes [N, C, H, W] with inclusive corners, and the L2 size of an fmap box."""

from __future__ import annotations

from typing import NamedTuple

Coord = tuple[int, int, int, int]

ALIGN = 8
"""Channel alignment of every generated fmap (the format's 64-bit default for int8)."""

BITWIDTH = 8
"""Every generated tensor is int8."""


class Box(NamedTuple):
    """An inclusive 4-D box: lower and upper corners, as in the IR's lower/upper pairs."""

    lower: Coord
    upper: Coord

    def intersect(self, other: Box) -> Box | None:
        """The common part of two boxes, or None when they are disjoint."""
        lo = (
            max(self.lower[0], other.lower[0]),
            max(self.lower[1], other.lower[1]),
            max(self.lower[2], other.lower[2]),
            max(self.lower[3], other.lower[3]),
        )
        hi = (
            min(self.upper[0], other.upper[0]),
            min(self.upper[1], other.upper[1]),
            min(self.upper[2], other.upper[2]),
            min(self.upper[3], other.upper[3]),
        )
        if lo[0] > hi[0] or lo[1] > hi[1] or lo[2] > hi[2] or lo[3] > hi[3]:
            return None
        return Box(lo, hi)

    def extent(self, dim: int) -> int:
        """Number of elements along one dimension."""
        return self.upper[dim] - self.lower[dim] + 1

    def volume(self) -> int:
        """Number of elements."""
        return self.extent(0) * self.extent(1) * self.extent(2) * self.extent(3)

    def lists(self) -> tuple[list[int], list[int]]:
        """The corners as JSON lists (fresh objects, safe to mutate)."""
        return list(self.lower), list(self.upper)


def roundup(value: int, multiple: int) -> int:
    """`value` rounded up to a multiple of `multiple`."""
    return -(-value // multiple) * multiple


def fmap_size(box: Box, align: int = ALIGN, bitwidth: int = BITWIDTH) -> int:
    """N x roundup(C, align) x H x W x bitwidth/8: the L2 size of an fmap box (what GIR307 checks)."""
    return box.extent(0) * roundup(box.extent(1), align) * box.extent(2) * box.extent(3) * bitwidth // 8


def weight_size(box: Box) -> int:
    """Bytes of a [K, C, R, S] int8 weight with channel alignment, plus 8 bytes of BatchNorm per K."""
    k = box.extent(0)
    return k * roundup(box.extent(1), ALIGN) * box.extent(2) * box.extent(3) + 8 * k


def split(first: int, last: int, parts: int, step: int = 1) -> list[tuple[int, int]]:
    """[first, last] cut into `parts` contiguous near-equal ranges whose inner bounds are multiples of `step`."""
    units = roundup(last - first + 1, step) // step
    parts = max(1, min(parts, units))
    bounds = [first + (units * i // parts) * step for i in range(parts + 1)]
    bounds[-1] = last + 1
    return [(bounds[i], bounds[i + 1] - 1) for i in range(parts)]
