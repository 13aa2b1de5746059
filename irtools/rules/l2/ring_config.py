"""GIR303 ring-config: ring-buffer regions overlap, are empty, or leave [0, buffersize)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext
from irtools.rules.l2.common import loc
from irtools.rules.registry import rule


def region_past_end_message(start: int, end: int, buffersize: int) -> str:
    """GIR303's message for a ring region that reaches past the buffer."""
    return f"region [{start:#x}, {end:#x}) ends past buffersize {buffersize:#x}"


def ring_reading_note(start: int, end: int) -> str:
    """GIR303's note (info) on how a ring_buffer_info pair not starting at 0 is read, and the other reading."""
    return (
        f"ring_buffer_info pair [{start:#x}, {end:#x}] read as [start, end) = [{start:#x}, {end:#x}); "
        f"read as [start, size] it would be [{start:#x}, {start + end:#x})"
    )


@rule("GIR303", "ring-config", Severity.ERROR, needs={Capability.RING_REGIONS})
def ring_config(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Ring-buffer regions overlap, are empty, or leave [0, buffersize).

    `ring_buffer_info` pairs are read as [start, end). When a file has a region that does not
    start at 0 the [start, size] reading would differ; an info finding says which was used.
    Each distinct misconfiguration is reported once, at the first workload that has it.
    Why: regions partition L2 for the ring allocator; overlapping or out-of-range regions
    let two rings write the same bytes.
    Example: `/0/0/ring_buffer_info/1: GIR303 error region [0x400000, 0x300000) is empty`
    Fix: correct ring_buffer_info in the scheduler configuration.
    """
    seen: set[tuple[tuple[int, int], ...]] = set()
    ambiguous: tuple[str, int, int] | None = None
    for ref in ir.workloads():
        info = ref.workload.ring_buffer_info
        config = tuple((r[0], r[1]) for r in info)
        if config in seen:
            continue
        seen.add(config)
        base = jp.extend(ref.pointer, "ring_buffer_info")
        order = sorted(range(len(config)), key=lambda k: config[k])
        for k, (start, end) in enumerate(config):
            if start != 0 and ambiguous is None:
                ambiguous = (jp.extend(base, k), start, end)
            problem = None
            if end <= start:
                problem = f"region [{start:#x}, {end:#x}) is empty"
            elif ir.buffersize is not None and end > ir.buffersize:
                problem = region_past_end_message(start, end, ir.buffersize)
            if problem:
                yield ctx.finding("GIR303", problem, jp.extend(base, k), **loc(ref))
        for a, b in itertools.pairwise(order):
            if config[b][0] < config[a][1] and config[a][1] > config[a][0] and config[b][1] > config[b][0]:
                yield ctx.finding(
                    "GIR303",
                    f"region [{config[a][0]:#x}, {config[a][1]:#x}) overlaps region [{config[b][0]:#x}, {config[b][1]:#x})",
                    jp.extend(base, b),
                    **loc(ref),
                )
    if ambiguous is not None:
        ptr, start, end = ambiguous
        yield ctx.finding(
            "GIR303",
            ring_reading_note(start, end),
            ptr,
            severity=Severity.INFO,
        )
