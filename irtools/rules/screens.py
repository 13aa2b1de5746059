"""Columnar screens: which workloads may hold a finding of a rule, from whole-file numpy columns.

Each screen returns the sorted workload rows (`IRIndex.rows`) that its rule's reference check must
look at, a superset of those with a finding, or None when the columns cannot be built exactly (the
rule then runs its reference check on the whole file). The rules run their object-by-object
reference check on the flagged rows only, so every finding is the reference's own (irtools.reference).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from irtools.findings import Finding
from irtools.loading.boxes import Bools, Group, Ints, flagged_rows, grouped_min_max, only, tensor_columns
from irtools.loading.columns import first_rows, take, transfer_columns
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext

Screen = Callable[[IRIndex], list[int] | None]
Check = Callable[[IRIndex, CheckContext], Iterator[Finding]]


def screened(ir: IRIndex, ctx: CheckContext, screen: Screen, reference: Check) -> Iterator[Finding]:
    """The reference check of a rule over the workloads `screen` flags (all, when it cannot tell)."""
    rows = screen(ir)
    return reference(ir if rows is None else only(ir, rows), ctx)


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


def source_union_rows(ir: IRIndex) -> list[int] | None:
    """GIR305: workloads with an entry whose transfer ids or range differ from its sources' union."""
    cols = tensor_columns(ir)
    buffers, sources = cols.buffers, cols.sources
    own, bounds = _boxes(buffers), _boxes(sources)
    sent = sources.ints("transfer_id")
    listed = buffers.lists("transfer_id")
    if own is None or bounds is None or sent is None or listed is None:
        return None
    count = len(buffers)
    has_source = np.bincount(sources.row, minlength=count) > 0
    low, _ = grouped_min_max(bounds[0], sources.row, count)
    _, high = grouped_min_max(bounds[1], sources.row, count)
    boxed = has_source & ((low != own[0]).any(axis=1) | (high != own[1]).any(axis=1))
    # Ids (of entries that list them): the distinct (entry, id) pairs of the lists and of the sources differ.
    compared = has_source & buffers.equals("transfer_id", None, negate=True)
    owner, tid = listed
    keep, kept = compared[owner], compared[sources.row]
    differ = np.zeros(count, dtype=bool)
    span = int(max(tid.max(initial=0), sent.max(initial=0))) + 1
    if count * span >= 2**62:
        return None
    pairs = np.setxor1d(owner[keep] * span + tid[keep], sources.row[kept] * span + sent[kept])
    differ[pairs // span] = True
    return flagged_rows([buffers.row[boxed | differ]])


def causality_rows(ir: IRIndex) -> list[int] | None:
    """GIR204: workloads reading an ifmap transfer whose first producer is on their core, not earlier."""
    cols = transfer_columns(ir)
    if cols is None:
        return None
    producer = take(cols.ofmap_row, first_rows(cols.ofmap_tid, cols.read_tid))
    made = producer >= 0
    reader, producer = cols.read_row[made], producer[made]
    # Rows run in program order within a core: a later position is a larger row.
    late = (cols.core[producer] == cols.core[reader]) & (producer >= reader)
    return flagged_rows([reader[late]])
