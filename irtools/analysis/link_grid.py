"""Directed NoC links numbered along the mesh's lines, and bytes per (layer step, link) summed from the
routed runs (irtools.analysis.routing.Runs) without a row per link and transfer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irtools.analysis.routing import STEP_X, STEP_Y


@dataclass(frozen=True, slots=True)
class LinkGrid:
    """Directed links numbered along lines (routing.line_spans): a run's links are the ids start..stop-1.

    Lines are rows for east/west links and columns for north/south ones, 4 directions each; each line has
    one position beyond its last, where a difference array's closing entries go.
    """

    low: int
    line_low: int
    n_pos: int
    n_line: int

    @classmethod
    def of(cls, line: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> LinkGrid:
        """The grid holding runs on `line` from positions `lo` to `hi` (routing.line_spans)."""
        low, line_low = int(lo.min()), int(line.min())
        return cls(low, line_low, int(hi.max()) - low + 2, int(line.max()) - line_low + 1)

    @property
    def size(self) -> int:
        """How many ids: every line's positions and its closing one, in 4 directions."""
        return 4 * self.n_line * self.n_pos

    def interval(
        self, code: np.ndarray, line: np.ndarray, lo: np.ndarray, hi: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ids [start, stop) of the links lo..hi of each run's line, in int64 whatever integers the
        runs are held in (noc.routed_steps narrows them)."""
        # In place: one int64 column beside the two answers (millions of runs on a 64-core file).
        flat_line = code.astype(np.int64)
        flat_line *= self.n_line
        flat_line += line
        flat_line -= self.line_low
        flat_line *= self.n_pos
        start = flat_line + lo
        start -= self.low
        flat_line += hi
        flat_line -= self.low - 1
        return start, flat_line

    def ends(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """x, y, to_x, to_y and direction code of each link id."""
        rest, pos = np.divmod(ids, self.n_pos)
        code, line = np.divmod(rest, self.n_line)
        position, line = pos + self.low, line + self.line_low
        along_x = (code == 0) | (code == 2)
        x, y = np.where(along_x, position, line), np.where(along_x, line, position)
        return x, y, x + STEP_X[code], y + STEP_Y[code], code


def step_link_sums(
    step: np.ndarray,
    code: np.ndarray,
    line: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    size: np.ndarray,
    idle: bool = False,
) -> tuple[LinkGrid, np.ndarray, np.ndarray, np.ndarray]:
    """Bytes per (step, link) of runs given as line spans (routing.line_spans; at least one run, each of
    one link or more) in steps `step`: (the grid, and per loaded pair its link id, step and bytes), sorted
    by step, then id. With `idle`, a link that only runs of no bytes cross is written too (with 0 bytes),
    as summing a row per link and transfer writes it.

    Each run adds its bytes to an interval of link ids in its step: as +bytes at the interval's start and
    -bytes past its end, sorted by (step, id), the running sum is each link's load between two events of a
    step. Linear in runs and in the pairs written, whatever the mesh's size.
    """
    # Millions of events on a 64-core file: each column is let go, or computed in place, as soon as it
    # can be (a tenth of the events' bytes at a time, not the whole run of them).
    grid = LinkGrid.of(line, lo, hi)
    at_id = np.concatenate(grid.interval(code, line, lo, hi))
    at_step = np.concatenate([step, step]).astype(np.int64, copy=False)
    if (int(at_step.max()) + 1) * (grid.size + 1) < 2**62:  # one int64 key sorts 2-3x faster than a lexsort
        key = at_step * (grid.size + 1)
        key += at_id
        order = np.argsort(key, kind="stable")
        del key
    else:
        order = np.lexsort((at_id, at_step))
    at_step, at_id = at_step[order], at_id[order]
    level = np.concatenate([size, -size]).astype(np.int64)[order]
    np.cumsum(level, out=level)
    if idle:  # how many runs cover each stretch, zero-byte ones included
        ones = np.ones(len(step), dtype=np.int64)
        covered = np.cumsum(np.concatenate([ones, -ones])[order])[:-1] > 0
    else:
        covered = level[:-1] > 0
    del order
    # The load from each event to the next one of the same step (a step's events sum to zero).
    width = np.diff(at_id)
    loaded = np.flatnonzero((at_step[1:] == at_step[:-1]) & (width > 0) & covered)
    counts = width[loaded]
    ids = np.repeat(at_id[loaded] - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
    return grid, ids, np.repeat(at_step[loaded], counts), np.repeat(level[loaded], counts)
