"""GIR504 bad-range: a lower coordinate exceeds its upper coordinate in some dimension."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.boxes import Bools, Coordinates, Group, Ints, flagged_rows, tensor_columns
from irtools.loading.index import IRIndex, Range
from irtools.rules.context import CheckContext
from irtools.rules.registry import also, rule
from irtools.rules.screens import box_columns


def bad_range_message(lower: Sequence[int], upper: Sequence[int], key: str | None = None) -> str:
    """GIR504's message: the box and the dimensions where lower > upper (`key` names a lower key other than
    `lower`, such as a tile's `ifmap_lower`)."""
    bad = [str(d) for d, (lo, hi) in enumerate(zip(lower, upper, strict=True)) if lo > hi]
    where = f"{key}: " if key else ""
    return f"{where}lower {list(lower)} > upper {list(upper)} in dimension{'s' if len(bad) > 1 else ''} {', '.join(bad)}"


def _range_findings(ranges: Iterable[Range], ctx: CheckContext) -> Iterator[Finding]:
    for r in ranges:
        own_key = r.lower_key in ("lower", "0")
        pointer = r.pointer if own_key else jp.extend(r.pointer, r.lower_key)
        yield ctx.finding(
            "GIR504",
            bad_range_message(r.lower, r.upper, None if own_key else r.lower_key),
            pointer,
            core_id=r.core_id,
            workload_id=r.workload_id,
            transfer_id=r.transfer_id,
        )


def _inverted(lower: Coordinates, upper: Coordinates) -> Bools:
    return np.asarray((lower > upper).any(axis=1))


def inverted_rows(ir: IRIndex) -> list[int] | None:
    """GIR504's screen: workloads with a lower/upper pair inverted in some dimension (`_workload_pairs`)."""
    cols = tensor_columns(ir)
    own = cols.workload_boxes()
    if own is None:
        return None
    flags = [np.flatnonzero(_inverted(*own))]
    tiles, wl0 = cols.tiles, cols.wl0.present("lower", "upper")
    second = tiles.present("ifmap_lower2", "ifmap_upper2")
    checks: list[tuple[Group, str, str, Ints]] = [
        (cols.ifmaps, "lower", "upper", cols.ifmaps.row),
        (cols.ofmaps, "lower", "upper", cols.ofmaps.row),
        (cols.weights, "lower", "upper", cols.weights.row),
        (cols.buffers, "lower", "upper", cols.buffers.row),
        (cols.sources, "lower", "upper", cols.buffers.row[cols.sources.row]),
        (wl0, "lower", "upper", wl0.row),
        (tiles, "ifmap_lower", "ifmap_upper", tiles.row),
        (tiles, "ofmap_lower", "ofmap_upper", tiles.row),
        (second, "ifmap_lower2", "ifmap_upper2", second.row),
    ]
    for group, lower, upper, rows in checks:
        boxes = box_columns(group, lower, upper)
        if boxes is None:
            return None
        flags.append(rows[_inverted(*boxes)])
    return flagged_rows(flags)


@rule("GIR504", "bad-range", Severity.ERROR, screen=inverted_rows, per_core=True)
def bad_range(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A lower coordinate exceeds its upper coordinate in some dimension.

    Why: lower/upper are inclusive corners of a 4-D box; lower > upper describes an empty or
    inverted tensor, and sizes, transfers and tile loops computed from it are wrong.
    Example: `/0/3/ifmap/0: GIR504 error lower [0, 64, 0, 0] > upper [0, 63, 13, 13] in dimension 1`
    Fix: the writer swapped or miscomputed the corners of that tensor.
    """
    return _range_findings(ir.inverted_ranges(ir.workloads()), ctx)


@also("GIR504")
def dram_bad_range(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR504 on the DRAM entries (no workload rows, and read once for the file, not once per core)."""
    return _range_findings(ir.inverted_dram_ranges(), ctx)
