"""The measured lanes in the Chrome Trace Event export: one process for the trace, a track per queue."""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irtools.analysis.trace import TraceEvents, track_events, write_trace
from irtools.atomic import text_atomic
from irtools.trace.join import Measured
from irtools.trace.reader import QUEUES

if TYPE_CHECKING:
    from irtools.analysis import Analysis

MEASURED_PID = 1
"""The IR's cores are process 0; the measured run is process 1, so Perfetto shows them one above the other."""
_WAITS_TID = len(QUEUES)


def write_chrome_trace(
    path: str | os.PathLike[str],
    analysis: Analysis,
    model: str = "dependency",
    clock_mhz: float | None = None,
    measured: Measured | None = None,
) -> dict[str, Any]:
    """Write the trace document of `analysis` under `model` (with `measured`'s lanes) to `path`
    atomically, an event at a time (irtools.analysis.trace.write_trace); returns its `otherData`."""
    trace = TraceEvents(analysis, model, clock_mhz)
    events: Iterable[dict[str, Any]] = trace.events()
    if measured is not None:
        events = itertools.chain(events, measured_events(measured, clock_mhz))

    @functools.cache  # asked for by the writer once every event is made, then returned
    def other() -> dict[str, Any]:
        return trace.other if measured is None else {**trace.other, **measured_other(measured)}

    with text_atomic(path) as out:
        write_trace(out, events, other)
    return other()


def add_measured_lanes(document: dict[str, Any], measured: Measured, clock_mhz: float | None = None) -> int:
    """Append the trace's instructions (one track per queue) and the compute waits to `document`.

    Same time scale as the estimated tracks (cycles / clock_mhz, or cycles shown as microseconds).
    Returns the number of instruction slices added.
    """
    document["traceEvents"].extend(measured_events(measured, clock_mhz))
    document.setdefault("otherData", {}).update(measured_other(measured))
    return len(measured.trace.instructions)


def measured_other(measured: Measured) -> dict[str, Any]:
    """What the measured run adds to the document's `otherData`."""
    summary = measured.summary()
    return {
        "trace": measured.trace.path,
        "measured_makespan_cycles": summary.measured_makespan,
        "estimated_makespan_cycles": summary.estimated_makespan,
        "trace_findings": len(measured.findings),
    }


def measured_events(measured: Measured, clock_mhz: float | None = None) -> Iterator[dict[str, Any]]:
    """The measured run's events, one at a time: its process and tracks, the instructions, the compute waits."""
    scale = 1.0 / clock_mhz if clock_mhz else 1.0
    name = f"measured: {Path(measured.trace.path).name}"
    yield {"name": "process_name", "ph": "M", "pid": MEASURED_PID, "args": {"name": name}}
    yield {"name": "process_sort_index", "ph": "M", "pid": MEASURED_PID, "args": {"sort_index": 1}}
    for tid, queue in enumerate((*QUEUES, "compute waits")):
        yield from track_events(MEASURED_PID, tid, queue)
    lane = {q: tid for tid, q in enumerate(QUEUES)}
    instructions = measured.trace.instructions
    for ins in instructions:
        args: dict[str, Any] = {"line": ins.line, "wkl": ins.wkl, "tile": ins.tile}
        if ins.size_bytes is not None:
            args["bytes"] = ins.size_bytes
        if ins.waited_on is not None:
            args["waited_on_line"] = instructions[ins.waited_on].line
        yield {
            "name": ins.name,
            "cat": ins.queue,
            "ph": "X",
            "ts": ins.start * scale,
            "dur": ins.duration * scale,
            "pid": MEASURED_PID,
            "tid": lane[ins.queue],
            "args": args,
        }
    waits = measured.workloads[measured.workloads["gap"].fillna(0) > 0]
    for row in waits.itertuples():
        yield {
            "name": f"wait before workload {row.workload_id}",
            "cat": "wait",
            "ph": "X",
            "ts": (row.start - row.gap) * scale,
            "dur": row.gap * scale,
            "pid": MEASURED_PID,
            "tid": _WAITS_TID,
            "args": {
                "layer_name": row.layer_name,
                "gap_cycles": int(row.gap),
                "dma_queues": row.dma_queues,
                "dma_bytes": int(row.dma_bytes),
                "critical_wait": row.critical_wait,
            },
        }
