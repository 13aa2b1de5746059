"""Time covered by a set of intervals, queried for any window in O(log n)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable


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
        return self._before[-1]

    def intervals(self) -> list[tuple[int, int]]:
        return list(zip(self.starts, self.ends))

    def _upto(self, t: int) -> int:
        """Covered time in (-inf, t)."""
        i = bisect_right(self.starts, t)  # intervals starting at or before t
        if i == 0:
            return 0
        return self._before[i - 1] + min(self.ends[i - 1], t) - self.starts[i - 1]

    def covered(self, a: int, b: int) -> int:
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
