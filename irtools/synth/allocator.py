"""A ring allocator for one ring region of one core's L2, with tensors' lifetimes known in advance.

Tensors are placed in order of their first snapshot at the region's ring head, which then
advances past them; a tensor that runs past the region's end wraps to its start, as the
hardware's ring buffer does. Before a tensor is placed, it is checked against every tensor
already placed whose lifetime overlaps its own, so no snapshot ever holds two tensors that
share a byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ADDRESS_ALIGN = 64
"""Every address is a multiple of this (so `irtools validate --addr-align 64` stays clean)."""

GUARD = 8
"""Bytes kept free after every tensor, so the GIR308 injector can shift one by 8 without an overlap."""


class AllocationError(Exception):
    """The live tensors of some snapshot do not fit in their ring region."""


def reserve(size: int) -> int:
    """Bytes a tensor of `size` bytes blocks: the size plus the guard, rounded up to the alignment."""
    return -(-(size + GUARD) // ADDRESS_ALIGN) * ADDRESS_ALIGN


@dataclass(slots=True)
class _Placed:
    last: int
    pieces: tuple[tuple[int, int], ...]


@dataclass(slots=True)
class RingAllocator:
    """Addresses in the ring region [start, end) for tensors given in order of their first snapshot."""

    start: int
    end: int
    head: int
    _live: list[_Placed] = field(default_factory=list)

    def pieces(self, address: int, size: int) -> tuple[tuple[int, int], ...]:
        """Half-open byte ranges of `size` bytes at `address`, wrapped at the region's end."""
        if address + size <= self.end:
            return ((address, address + size),)
        return ((address, self.end), (self.start, self.start + address + size - self.end))

    def allocate(self, first: int, last: int, size: int) -> int:
        """An address for a tensor live in snapshots first..last; raises AllocationError if none is free."""
        blocked = reserve(size)
        if blocked > self.end - self.start:
            raise AllocationError(f"{size} bytes exceed the ring region [{self.start:#x}, {self.end:#x})")
        self._live = [p for p in self._live if p.last >= first]
        address = self.head
        moved = 0
        while True:
            mine = self.pieces(address, blocked)
            clash = self._clash(mine)
            if clash is None:
                break
            step = (clash - address) if clash > address else (clash - self.start) + (self.end - address)
            moved += step
            address = clash if clash < self.end else self.start
            if moved > self.end - self.start:
                address = self._first_fit(blocked)
                mine = self.pieces(address, blocked)
                break
        self._live.append(_Placed(last, mine))
        self.head = address + blocked
        if self.head >= self.end:
            self.head = self.start + self.head - self.end
        return address

    def _clash(self, mine: tuple[tuple[int, int], ...]) -> int | None:
        """End of a live piece that overlaps `mine`, or None."""
        for placed in self._live:
            for a, b in placed.pieces:
                for c, d in mine:
                    if a < d and c < b:
                        return b
        return None

    def _first_fit(self, blocked: int) -> int:
        cursor = self.start
        for a, b in sorted(piece for placed in self._live for piece in placed.pieces):
            if a - cursor >= blocked:
                return cursor
            cursor = max(cursor, b)
        if self.end - cursor >= blocked:
            return cursor
        raise AllocationError(
            f"live tensors leave no {blocked} free bytes in ring region [{self.start:#x}, {self.end:#x})"
        )
