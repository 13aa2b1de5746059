"""GIR5xx: the schedule: workload order, coordinates, the core mesh and cross-core waits."""

from __future__ import annotations

from collections.abc import Iterator

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule


@rule("GIR504", "bad-range", Severity.ERROR)
def bad_range(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A lower coordinate exceeds its upper coordinate in some dimension.

    Why: lower/upper are inclusive corners of a 4-D box; lower > upper describes an empty or
    inverted tensor, and sizes, transfers and tile loops computed from it are wrong.
    Example: `/0/3/ifmap/0: GIR504 error lower [0, 64, 0, 0] > upper [0, 63, 13, 13] in dimension 1`
    Fix: the writer swapped or miscomputed the corners of that tensor.
    """
    for r in ir.ranges():
        bad = [d for d, (lo, hi) in enumerate(zip(r.lower, r.upper, strict=True)) if lo > hi]
        if not bad:
            continue
        pointer = r.pointer if r.lower_key in ("lower", "0") else jp.extend(r.pointer, r.lower_key)
        where = "" if r.lower_key in ("lower", "0") else f"{r.lower_key}: "
        dims = ", ".join(str(d) for d in bad)
        yield ctx.finding(
            "GIR504",
            f"{where}lower {r.lower} > upper {r.upper} in dimension{'s' if len(bad) > 1 else ''} {dims}",
            pointer,
            core_id=r.core_id,
            workload_id=r.workload_id,
            transfer_id=r.transfer_id,
        )
