"""The measured lanes in the Chrome Trace Event export: one process for the trace, a track per queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irtools.trace.join import Measured
from irtools.trace.reader import QUEUES

MEASURED_PID = 1
"""The IR's cores are process 0; the measured run is process 1, so Perfetto shows them one above the other."""
_WAITS_TID = len(QUEUES)


def add_measured_lanes(document: dict[str, Any], measured: Measured, clock_mhz: float | None = None) -> int:
    """Append the trace's instructions (one track per queue) and the compute waits to `document`.

    Same time scale as the estimated tracks (cycles / clock_mhz, or cycles shown as microseconds).
    Returns the number of instruction slices added.
    """
    scale = 1.0 / clock_mhz if clock_mhz else 1.0
    events: list[dict[str, Any]] = document["traceEvents"]
    name = f"measured: {Path(measured.trace.path).name}"
    events.append({"name": "process_name", "ph": "M", "pid": MEASURED_PID, "args": {"name": name}})
    events.append({"name": "process_sort_index", "ph": "M", "pid": MEASURED_PID, "args": {"sort_index": 1}})
    for tid, queue in enumerate((*QUEUES, "compute waits")):
        events.append(
            {"name": "thread_name", "ph": "M", "pid": MEASURED_PID, "tid": tid, "args": {"name": queue}}
        )
        events.append(
            {
                "name": "thread_sort_index",
                "ph": "M",
                "pid": MEASURED_PID,
                "tid": tid,
                "args": {"sort_index": tid},
            }
        )
    lane = {q: tid for tid, q in enumerate(QUEUES)}
    instructions = measured.trace.instructions
    for ins in instructions:
        args: dict[str, Any] = {"line": ins.line, "wkl": ins.wkl, "tile": ins.tile}
        if ins.size_bytes is not None:
            args["bytes"] = ins.size_bytes
        if ins.waited_on is not None:
            args["waited_on_line"] = instructions[ins.waited_on].line
        events.append(
            {
                "name": ins.name,
                "cat": ins.queue,
                "ph": "X",
                "ts": ins.start * scale,
                "dur": ins.duration * scale,
                "pid": MEASURED_PID,
                "tid": lane[ins.queue],
                "args": args,
            }
        )
    waits = measured.workloads[measured.workloads["gap"].fillna(0) > 0]
    for row in waits.itertuples():
        events.append(
            {
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
        )
    other = document.setdefault("otherData", {})
    summary = measured.summary()
    other.update(
        {
            "trace": measured.trace.path,
            "measured_makespan_cycles": summary.measured_makespan,
            "estimated_makespan_cycles": summary.estimated_makespan,
            "trace_findings": len(measured.findings),
        }
    )
    return len(instructions)
