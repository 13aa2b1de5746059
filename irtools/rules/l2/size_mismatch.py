"""GIR307 size-mismatch: an fmap tensor's size differs from N x roundup(C, align) x H x W x bitwidth/8."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.dialects.documented import BufferEntry, IfmapTensor
from irtools.findings import Finding, Severity
from irtools.loading.boxes import flagged_rows, tensor_columns
from irtools.loading.index import IRIndex, inverted, single_transfer
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule
from irtools.rules.screens import EXACT, box_columns, extents, huge


def size_mismatch_message(size: int, lower: list[int], upper: list[int], align: int, bitwidth: int) -> str:
    """GIR307's message: the fmap's size against N x roundup(C, align) x H x W x bitwidth/8, spelled out."""
    n, c, h, w = (hi - lo + 1 for lo, hi in zip(lower, upper, strict=True))
    expected = expected_fmap_size(lower, upper, align, bitwidth)
    return f"size {size} differs from {n} x roundup({c}, {align}) x {h} x {w} x {bitwidth}/8 = {expected}"


def expected_fmap_size(lower: list[int], upper: list[int], align: int, bitwidth: int) -> int:
    """N x roundup(C, align) x H x W x bitwidth / 8, the size of an fmap tensor in L2."""
    n, c, h, w = (hi - lo + 1 for lo, hi in zip(lower, upper, strict=True))
    return n * (math.ceil(c / align) * align) * h * w * bitwidth // 8


def size_mismatch_rows(ir: IRIndex) -> list[int] | None:
    """GIR307's screen: workloads with an ifmap (or ifmap buffer entry) whose size is not its shape's."""
    cols = tensor_columns(ir)
    flags = []
    for group, keep in ((cols.ifmaps, None), (cols.buffers, cols.buffers.equals("type", "ifmap"))):
        boxes = box_columns(group)
        sizes = [group.ints(name) for name in ("size", "align", "bitwidth")]
        if boxes is None or sizes[0] is None or sizes[1] is None or sizes[2] is None:
            return None
        size, align, bitwidth = sizes[0], sizes[1], sizes[2]
        if huge(*boxes, align, bitwidth):
            return None
        n, c, h, w = extents(*boxes).T
        rough = n * (c + align).astype(np.float64) * h * w * bitwidth
        rounded = (c + align - 1) // align * align
        expected = np.where(rough < EXACT, n * rounded * h * w * bitwidth // 8, -1)
        wrong = expected != size
        flags.append(group.row[wrong if keep is None else wrong & keep])
    return flagged_rows(flags)


@rule(
    "GIR307",
    "size-mismatch",
    Severity.WARNING,
    needs={Capability.ALIGN_BITWIDTH},
    screen=size_mismatch_rows,
    per_core=True,
)
def size_mismatch(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """An fmap tensor's size differs from N x roundup(C, align) x H x W x bitwidth/8.

    Applies to ifmap-type L2 buffer entries and workload ifmap entries (weights carry
    BatchNorm parameters and ofmap entries carry no bitwidth). The formula holds for every
    such entry in the real Gemini files (900 entries).
    Why: a size that disagrees with the shape either truncates the tensor or wastes L2 and
    shifts every later address.
    Example: `/0/2/ifmap/0: GIR307 warning size 802816 differs from 1 x roundup(64, 8) x 112 x 112 x 8/8 = 802816`
    Fix: recompute the size with channel alignment.
    """
    for ref in ir.workloads():
        wl = ir.documented(ref)
        items: list[tuple[str, int, IfmapTensor | BufferEntry]] = [
            ("ifmap", i, t) for i, t in enumerate(wl.ifmap)
        ]
        items += [("buffer", i, b) for i, b in enumerate(wl.buffer) if b.type == "ifmap"]
        for key, i, t in items:
            if inverted(t.lower, t.upper):
                continue  # GIR504 reports inverted ranges
            if expected_fmap_size(t.lower, t.upper, t.align, t.bitwidth) != t.size:
                yield ctx.finding(
                    "GIR307",
                    size_mismatch_message(t.size, t.lower, t.upper, t.align, t.bitwidth),
                    jp.extend(ref.pointer, key, i, "size"),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=single_transfer(t.transfer_id or []),
                )
