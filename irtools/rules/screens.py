"""Columnar screens: which workloads may hold a finding of a rule, from whole-file numpy columns.

Each screen returns the sorted workload rows (`IRIndex.rows`) that its rule's reference check must
look at, a superset of those with a finding, or None when the columns cannot be built exactly (the
rule then runs its reference check on the whole file). The rules run their object-by-object
reference check on the flagged rows only, so every finding is the reference's own (irtools.reference).
"""

from __future__ import annotations

import numpy as np

from irtools.loading.boxes import Bools, Group, Ints, flagged_rows, tensor_columns
from irtools.loading.index import IRIndex


def _inverted(lower: Ints, upper: Ints) -> Bools:
    return np.asarray((lower > upper).any(axis=1))


def _boxes(group: Group, lower: str = "lower", upper: str = "upper") -> tuple[Ints, Ints] | None:
    low, high = group.quad(lower), group.quad(upper)
    return None if low is None or high is None else (low, high)


def inverted_rows(ir: IRIndex) -> list[int] | None:
    """GIR504: workloads with a lower/upper pair inverted in some dimension (`_workload_pairs`)."""
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
        boxes = _boxes(group, lower, upper)
        if boxes is None:
            return None
        flags.append(rows[_inverted(*boxes)])
    return flagged_rows(flags)
