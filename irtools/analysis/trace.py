"""Chrome Trace Event format (Perfetto, chrome://tracing): a track per core, cross-core flows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irtools.analysis.analysis import Analysis
from irtools.analysis.timeline import Schedule


def chrome_trace(
    analysis: Analysis, model: str = "dependency", clock_mhz: float | None = None
) -> dict[str, Any]:
    """The schedule under `model` as a trace document.

    Timestamps are in microseconds as the format requires: cycles / clock_mhz, or cycles taken
    as microseconds when no clock is given. Workloads the model cannot place are left out and
    counted in `otherData`.
    """
    schedule = analysis.schedules[model]
    scale = 1.0 / clock_mhz if clock_mhz else 1.0
    pid = 0
    events: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": Path(analysis.path).name}}
    ]
    for core_id in analysis.index.cores:
        events.append(
            {
                "name": "thread_name",
                "ph": "M",
                "pid": pid,
                "tid": core_id,
                "args": {"name": analysis.core_label(core_id)},
            }
        )
        events.append(
            {
                "name": "thread_sort_index",
                "ph": "M",
                "pid": pid,
                "tid": core_id,
                "args": {"sort_index": core_id},
            }
        )
    number = {(ref.core_id, ref.position): n for n, ref in enumerate(schedule.nodes)}
    critical = set(schedule.critical_path)
    skipped = 0
    for n, ref in enumerate(schedule.nodes):
        start = schedule.start[n]
        if start is None:
            skipped += 1
            continue
        w = ref.workload
        events.append(
            {
                "name": w.layer_name,
                "cat": w.layer_type,
                "ph": "X",
                "ts": start * scale,
                "dur": schedule.duration(n) * scale,  # under noc, stretched to the NoC time
                "pid": pid,
                "tid": ref.core_id,
                "args": {
                    "workload_id": w.workload_id,
                    "position": ref.position,
                    "time_cycles": w.time,
                    "start_cycles": start,
                    "ifmap_transfers": sorted({t for i in w.ifmap for t in i.transfer_id}),
                    "ofmap_transfers": [o.transfer_id for o in w.ofmap],
                    "critical": n in critical,
                    **({} if schedule.noc_time is None else _noc_args(schedule, n)),
                },
            }
        )
    flow = 0
    edges = analysis.core_transfers
    for tid, src_core, src_pos, dst_core, dst_pos in zip(
        edges.transfer_id, edges.src_core, edges.src_position, edges.dst_core, edges.dst_position
    ):
        p, c = number[(src_core, src_pos)], number[(dst_core, dst_pos)]
        p_start, p_end, c_start = schedule.start[p], schedule.end[p], schedule.start[c]
        if p_start is None or p_end is None or c_start is None:
            continue
        flow += 1
        common = {"name": f"transfer {tid}", "cat": "transfer", "id": flow, "pid": pid}
        # The start must fall inside the producer's slice to bind to it; the end binds to the
        # slice that begins at the consumer's start ("bp": "e").
        events.append({**common, "ph": "s", "ts": max(p_start, p_end - 1) * scale, "tid": int(src_core)})
        events.append({**common, "ph": "f", "bp": "e", "ts": c_start * scale, "tid": int(dst_core)})
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "source": analysis.path,
            "model": model,
            "time_unit": f"microseconds at {clock_mhz} MHz"
            if clock_mhz
            else "cycles (shown as microseconds)",
            "makespan_cycles": schedule.makespan,
            "unscheduled_workloads": skipped,
            "flows": flow,
        },
    }


def _noc_args(schedule: Schedule, n: int) -> dict[str, Any]:
    """The noc model's why for slice n: its NoC time, what bounds it and the link."""
    assert schedule.noc_time is not None and schedule.noc_link is not None
    noc = schedule.noc_time[n]
    bound = "NoC" if noc > schedule.nodes[n].workload.time else "compute"
    return {"noc_time_cycles": noc, "bound": bound, "noc_link": schedule.noc_link[n]}
