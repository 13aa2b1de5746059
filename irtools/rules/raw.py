"""What the rules' raw forms share: the workloads as the scheduler's own IR records them."""

from __future__ import annotations

from collections.abc import Iterator

from irtools.dialects.raw.models import RawWorkload
from irtools.loading.index import IRIndex


def raw_workloads(ir: IRIndex) -> Iterator[tuple[int, int, str, RawWorkload]]:
    """(core_id, position, pointer, raw workload) for every workload the index walks."""
    for ref in ir.workloads():
        yield ref.core_id, ref.position, ref.pointer, ir.raw(ref)
