"""GIR205 dram-in-mismatch: DRAM `in` entries and ofmaps with a DRAM destination do not match one to one."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.rules.context import CheckContext, short
from irtools.rules.registry import rule


def layer_problem(ofmap_layer: str, entry_layer: str) -> str:
    """A GIR205 problem: the DRAM in entry names another layer than the ofmap that writes it."""
    return f"layer is {short(ofmap_layer)!r}, not {short(entry_layer)!r}"


def range_problem(
    ofmap_lower: Sequence[int], ofmap_upper: Sequence[int], lower: Sequence[int], upper: Sequence[int]
) -> str:
    """A GIR205 problem: the DRAM in entry's range is not the ofmap's."""
    return f"ofmap range {list(ofmap_lower)}..{list(ofmap_upper)} differs from {list(lower)}..{list(upper)}"


def dram_in_mismatch_message(transfer_id: int, problems: Sequence[str]) -> str:
    """GIR205's message for a DRAM in entry that disagrees with its ofmap, its problems joined by `; `."""
    return f"DRAM in entry for transfer {transfer_id} does not match its ofmap: " + "; ".join(problems)


def _frame_free(lower: list[int], upper: list[int]) -> tuple[int, ...]:
    # DRAM `in` ranges use absolute batch indices while ofmaps are relative to their batch group:
    # compare the N extent and the C/K, H, W coordinates only.
    return (upper[0] - lower[0], *lower[1:], *upper[1:])


def dram_in_unmatched(ir: IRIndex) -> list[int] | None:
    """GIR205's screen: nothing when the columns show every DRAM `in` entry matching the first ofmap that
    writes its transfer to DRAM (producer, layer, range), and every such ofmap an entry; else None (the
    check then pairs them all)."""
    import numpy as np

    from irtools.loading.columns import dram_writers, first_rows, frame_free, transfer_columns
    from irtools.loading.sets import distinct, member

    cols, writers = transfer_columns(ir), dram_writers(ir)
    if cols is None or writers is None:
        return None
    entries = ir.ir.dram.in_
    try:
        tid = np.array([e.transfer_id for e in entries], dtype=np.int64)
        producer = np.array([(e.core_id, e.workload_id) for e in entries], dtype=np.int64).reshape(-1, 2)
        lower = np.array([e.lower for e in entries], dtype=np.int64).reshape(-1, 4)
        upper = np.array([e.upper for e in entries], dtype=np.int64).reshape(-1, 4)
    except (TypeError, ValueError, OverflowError):
        return None  # ranges of several lengths, or values beyond int64
    if len(lower) != len(entries) or len(upper) != len(entries):
        return None  # ranges of 2 or 8 numbers each: reshaped, but not one row per entry
    # The first ofmap writing each entry's transfer, as the check's dict keeps it.
    writer = first_rows(writers.tid, tid)
    if (writer < 0).any() or not member(distinct(writers.tid), tid).all():
        return None
    row = writers.row[writer]
    if not (
        np.array_equal(cols.core[row], producer[:, 0])
        and np.array_equal(cols.workload_id[row], producer[:, 1])
        and np.array_equal(writers.frame[writer], frame_free(lower, upper))
    ):
        return None
    refs = ir.rows
    same_layer = all(
        refs[r].workload.layer_name == e.layer_name for r, e in zip(row.tolist(), entries, strict=True)
    )
    return [] if same_layer else None


@rule("GIR205", "dram-in-mismatch", Severity.WARNING, screen=dram_in_unmatched, whole_file=True)
def dram_in_mismatch(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """DRAM `in` entries and ofmaps with a DRAM destination do not match one to one.

    Each DRAM `in` entry must match an ofmap with a DRAM destination on the same core_id,
    workload_id, transfer_id and layer_name, with the same range (the batch index compared by
    extent, since ofmaps count batches within their batch group); and each such ofmap must
    have its DRAM `in` entry.
    Why: the DRAM `in` list is what the runtime copies back from DRAM; a missing or mismatched
    entry loses a network output or writes it to the wrong place.
    Example: `/-1/in/0: GIR205 warning no ofmap of core 0 workload 34 sends transfer 72 to DRAM`
    Fix: regenerate the DRAM section from the ofmaps.
    """
    to_dram: dict[int, tuple[WorkloadRef, int]] = {}
    for ref in ir.workloads():
        for i, o in enumerate(ref.workload.ofmap):
            if any(d.type == "DRAM" for d in o.destination):
                to_dram.setdefault(o.transfer_id, (ref, i))
    matched: set[int] = set()
    for k, entry in enumerate(ir.ir.dram.in_):
        ptr = jp.join("-1", "in", k)
        loc: dict[str, Any] = {
            "core_id": entry.core_id,
            "workload_id": entry.workload_id,
            "transfer_id": entry.transfer_id,
        }
        hit = to_dram.get(entry.transfer_id)
        if hit is None:
            yield ctx.finding("GIR205", f"no ofmap sends transfer {entry.transfer_id} to DRAM", ptr, **loc)
            continue
        ref, i = hit
        matched.add(entry.transfer_id)
        o = ref.workload.ofmap[i]
        problems = []
        if (ref.core_id, ref.workload_id) != (entry.core_id, entry.workload_id):
            problems.append(f"it is produced by core {ref.core_id} workload {ref.workload_id}")
        if ref.workload.layer_name != entry.layer_name:
            problems.append(layer_problem(ref.workload.layer_name, entry.layer_name))
        if _frame_free(o.lower, o.upper) != _frame_free(entry.lower, entry.upper):
            problems.append(range_problem(o.lower, o.upper, entry.lower, entry.upper))
        if problems:
            yield ctx.finding(
                "GIR205",
                dram_in_mismatch_message(entry.transfer_id, problems),
                ptr,
                **loc,
                related=(jp.extend(ref.pointer, "ofmap", i),),
            )
    for tid, (ref, i) in to_dram.items():
        if tid not in matched:
            yield ctx.finding(
                "GIR205",
                f"ofmap sends transfer {tid} to DRAM but the DRAM in list has no entry for it",
                jp.extend(ref.pointer, "ofmap", i),
                core_id=ref.core_id,
                workload_id=ref.workload_id,
                transfer_id=tid,
            )
