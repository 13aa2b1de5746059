"""Time covered by a set of intervals, and bytes moved by data moves, queried for any window by bisection."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from irtools.trace.reader import Instruction


class Coverage:
    """The union of [start, end) intervals; `covered(a, b)` is how much of [a, b) it holds."""

    def __init__(self, intervals: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(intervals):
            if end <= start:
                continue
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = [s for s, _ in merged]
        self.ends = [e for _, e in merged]
        self._before = [0]  # covered time before the i-th interval
        for s, e in merged:
            self._before.append(self._before[-1] + e - s)

    @property
    def total(self) -> int:
        """Cycles covered by any interval."""
        return self._before[-1]

    def intervals(self) -> list[tuple[int, int]]:
        """The merged [start, end) intervals, sorted."""
        return list(zip(self.starts, self.ends))

    def _upto(self, t: int) -> int:
        """Covered time in (-inf, t)."""
        i = bisect_right(self.starts, t)  # intervals starting at or before t
        if i == 0:
            return 0
        return self._before[i - 1] + min(self.ends[i - 1], t) - self.starts[i - 1]

    def covered(self, a: int, b: int) -> int:
        """Cycles covered within [a, b)."""
        return self._upto(b) - self._upto(a) if b > a else 0

    def gaps(self, until: int) -> list[tuple[int, int]]:
        """The uncovered windows of [0, until)."""
        out, cursor = [], 0
        for s, e in zip(self.starts, self.ends):
            if s > cursor:
                out.append((cursor, min(s, until)))
            cursor = max(cursor, e)
            if cursor >= until:
                break
        if cursor < until:
            out.append((cursor, until))
        return [(s, e) for s, e in out if e > s]

    def first_from(self, t: int) -> int:
        """Index of the first interval ending after t."""
        return bisect_left(self.ends, t + 1)


class Moves:
    """A DMA queue's data moves, to ask how many bytes moved in a window (pro rata of each move)."""

    def __init__(self, instructions: list[Instruction]) -> None:
        moves = sorted(
            (i.start, i.end, i.size_bytes) for i in instructions if i.size_bytes and i.end > i.start
        )
        self.starts = [m[0] for m in moves]
        self.ends = [m[1] for m in moves]
        self.sizes = [m[2] or 0 for m in moves]
        self._latest_end = []  # running max of ends, so a window search can bisect even if moves overlap
        latest = 0
        for end in self.ends:
            latest = max(latest, end)
            self._latest_end.append(latest)

    def bytes_in(self, a: int, b: int) -> float:
        """Bytes moved within [a, b): each move counted pro rata of its time inside the window."""
        total = 0.0
        n = bisect_right(self._latest_end, a)
        while n < len(self.starts) and self.starts[n] < b:
            overlap = min(self.ends[n], b) - max(self.starts[n], a)
            if overlap > 0:
                total += self.sizes[n] * overlap / (self.ends[n] - self.starts[n])
            n += 1
        return total
