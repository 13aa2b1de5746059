"""GIR505 workload-range: ofmaps outside their workload's range, or tiles that do not cover it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows, grouped_min_max, tensor_columns
from irtools.loading.index import IRIndex, inverted
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule
from irtools.rules.screens import EXACT, box_columns, extents, huge


def _inside(lower: list[int], upper: list[int], box_lo: list[int], box_hi: list[int]) -> bool:
    # Ofmap ranges are absolute in some files and relative to the workload (or its batch group)
    # in others: accept each dimension that fits in either frame.
    for d in range(4):
        extent = box_hi[d] - box_lo[d]
        absolute = box_lo[d] <= lower[d] and upper[d] <= box_hi[d]
        relative = 0 <= lower[d] and upper[d] <= extent
        if not (absolute or relative):
            return False
    return True


def tile_coverage_problem(
    tiles: Sequence[tuple[list[int], list[int]]], lo: list[int], hi: list[int]
) -> str | None:
    """GIR505's message when the tiles' ofmap boxes do not cover the workload [lo, hi] exactly; else None."""
    t_lo = [min(t[0][d] for t in tiles) for d in range(4)]
    t_hi = [max(t[1][d] for t in tiles) for d in range(4)]
    covered = sum(_volume(a, b) for a, b in tiles)
    if (t_lo, t_hi) == (lo, hi) and covered >= _volume(lo, hi):
        return None
    gap = "" if (t_lo, t_hi) != (lo, hi) else f" with gaps ({covered} of {_volume(lo, hi)} elements)"
    return f"tiles cover {t_lo}..{t_hi}{gap} but the workload is {lo}..{hi}"


def _volume(lower: list[int], upper: list[int]) -> int:
    product = 1
    for lo, hi in zip(lower, upper, strict=True):
        product *= max(hi - lo + 1, 0)
    return product


def workload_range_rows(ir: IRIndex) -> list[int] | None:
    """GIR505's screen: workloads with an ofmap outside their range, or tiles that miss or exceed it."""
    cols = tensor_columns(ir)
    own = cols.workload_boxes()
    ofmaps, tiles = cols.ofmaps, cols.tiles
    out, tile_low, tile_high = box_columns(ofmaps), tiles.quad("ofmap_lower"), tiles.quad("ofmap_upper")
    if own is None or out is None or tile_low is None or tile_high is None:
        return None
    lo, hi = own
    if huge(lo, hi, *out, tile_low, tile_high):
        return None
    # Each dimension in the absolute frame or relative to the workload's lower corner (`_inside`).
    w_lo, w_hi = lo[ofmaps.row], hi[ofmaps.row]
    o_lo, o_hi = out
    absolute = (w_lo <= o_lo) & (o_hi <= w_hi)
    relative = (o_lo >= 0) & (o_hi <= w_hi - w_lo)
    flags = [ofmaps.row[~(absolute | relative).all(axis=1)]]
    # Tiles: their ofmap boxes must span the workload's box, their volumes add up to at least its own.
    count = len(lo)
    has_tiles = np.bincount(tiles.row, minlength=count) > 0
    t_lo, _ = grouped_min_max(tile_low, tiles.row, count)
    _, t_hi = grouped_min_max(tile_high, tiles.row, count)
    spans = ((t_lo != lo) | (t_hi != hi)).any(axis=1)
    tile_extent, own_extent = extents(tile_low, tile_high), extents(lo, hi)
    # In float64, exact while every volume and sum stays below 2**50 (integers below 2**53).
    covered = np.bincount(tiles.row, np.prod(tile_extent.astype(np.float64), axis=1), minlength=count)
    volume = np.prod(own_extent.astype(np.float64), axis=1)
    short = (covered >= EXACT) | (volume >= EXACT) | (covered < volume)
    flags.append(np.flatnonzero(has_tiles & (spans | short)))
    return flagged_rows(flags)


@rule("GIR505", "workload-range", Severity.WARNING, screen=workload_range_rows, per_core=True)
def workload_range(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Ofmap ranges fall outside the workload's range, or tile_info does not cover the workload.

    Ofmap ranges are compared per dimension in the absolute frame or relative to the
    workload's lower corner (real files use both). The tiles' ofmap boxes must span exactly
    the workload's box, and their volumes must add up to at least its volume (no gap).
    Why: an ofmap outside its workload writes another workload's output; tiles that miss part
    of the workload leave outputs uncomputed.
    Example: `/0/8/tile_info: GIR505 warning tiles cover [0, 0, 0, 0]..[0, 63, 27, 27] but the workload is [0, 0, 0, 0]..[0, 63, 55, 55]`
    Fix: recompute the workload range or the tiling.
    """
    for ref in ir.workloads():
        wl = ref.workload
        lo, hi = wl.workload
        if inverted(lo, hi):
            continue  # GIR504
        for i, o in enumerate(wl.ofmap):
            if not _inside(o.lower, o.upper, lo, hi):
                yield ctx.finding(
                    "GIR505",
                    f"ofmap range {o.lower}..{o.upper} lies outside the workload range {lo}..{hi}",
                    jp.extend(ref.pointer, "ofmap", i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=o.transfer_id,
                )
        tiles = list((wl.tile_info or {}).values())
        if not tiles:
            continue
        message = tile_coverage_problem([(t.ofmap_lower, t.ofmap_upper) for t in tiles], lo, hi)
        if message:
            yield ctx.finding(
                "GIR505",
                message,
                jp.extend(ref.pointer, "tile_info"),
                core_id=ref.core_id,
                workload_id=ref.workload_id,
            )
