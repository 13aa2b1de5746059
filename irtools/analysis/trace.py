"""Chrome Trace Event format (Perfetto, chrome://tracing): a track per core, cross-core flows."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from irtools.analysis.analysis import Analysis
from irtools.analysis.timeline import Schedule

DISPLAY_UNIT = "ns"
"""The document's displayTimeUnit."""
_PID = 0
"""The IR's cores are process 0 (a measured run's lanes are process 1: irtools.trace.perfetto)."""
_BATCH = 4096
"""Events encoded at a time by `write_trace`: one call per event cost more than the encoding."""
_COMPACT = (",", ":")


def track_events(pid: int, tid: int, name: str) -> Iterator[dict[str, Any]]:
    """The metadata events of a track: its name, and its place among the process's tracks (its id)."""
    yield {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}
    yield {"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}}


def chrome_trace(
    analysis: Analysis, model: str = "dependency", clock_mhz: float | None = None
) -> dict[str, Any]:
    """The schedule under `model` as a trace document (`TraceEvents`, held whole: for tests and small
    files; `irtools export-trace` writes the events as they are made, `write_trace`)."""
    trace = TraceEvents(analysis, model, clock_mhz)
    events = list(trace.events())
    return {"traceEvents": events, "displayTimeUnit": DISPLAY_UNIT, "otherData": trace.other}


class TraceEvents:
    """The schedule under `model` as trace events, made one at a time (`events`).

    Timestamps are in microseconds as the format requires: cycles / clock_mhz, or cycles taken
    as microseconds when no clock is given. Workloads the model cannot place are left out and
    counted in `other` (the document's `otherData`), complete once every event is made.
    """

    def __init__(self, analysis: Analysis, model: str = "dependency", clock_mhz: float | None = None) -> None:
        self.analysis = analysis
        self.model = model
        self.clock_mhz = clock_mhz
        self.other: dict[str, Any] = {}

    def events(self) -> Iterator[dict[str, Any]]:
        """The cores' tracks, the workloads' slices, then the cross-core flows; fills `other`."""
        analysis, clock_mhz = self.analysis, self.clock_mhz
        schedule = analysis.schedules[self.model]
        scale = 1.0 / clock_mhz if clock_mhz else 1.0
        yield {"name": "process_name", "ph": "M", "pid": _PID, "args": {"name": Path(analysis.path).name}}
        for core_id in analysis.index.cores:
            yield from track_events(_PID, core_id, analysis.core_label(core_id))
        skipped = 0
        critical = set(schedule.critical_path)
        for n, ref in enumerate(schedule.nodes):
            start = schedule.start[n]
            if start is None:
                skipped += 1
                continue
            w = ref.workload
            yield {
                "name": w.layer_name,
                "cat": w.layer_type,
                "ph": "X",
                "ts": start * scale,
                "dur": schedule.duration(n) * scale,  # under noc, stretched to the NoC time
                "pid": _PID,
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
        number = {(ref.core_id, ref.position): n for n, ref in enumerate(schedule.nodes)}
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
            common = {"name": f"transfer {tid}", "cat": "transfer", "id": flow, "pid": _PID}
            # The start must fall inside the producer's slice to bind to it; the end binds to the
            # slice that begins at the consumer's start ("bp": "e").
            yield {**common, "ph": "s", "ts": max(p_start, p_end - 1) * scale, "tid": int(src_core)}
            yield {**common, "ph": "f", "bp": "e", "ts": c_start * scale, "tid": int(dst_core)}
        self.other.update(
            {
                "source": analysis.path,
                "model": self.model,
                "time_unit": f"microseconds at {clock_mhz} MHz"
                if clock_mhz
                else "cycles (shown as microseconds)",
                "makespan_cycles": schedule.makespan,
                "unscheduled_workloads": skipped,
                "flows": flow,
            }
        )


def write_trace(out: TextIO, events: Iterable[dict[str, Any]], other: Callable[[], dict[str, Any]]) -> None:
    """The trace document of `events` and `other()` (its `otherData`, asked for once every event is
    written) written to `out`, the events encoded a batch at a time: the same text as `json.dumps` of
    the whole document (compact separators), without the document or its text ever held whole (on a
    64-core file the trace's dicts and text were most of export-trace's memory)."""
    out.write('{"traceEvents":[')
    first = True
    iterator = iter(events)
    while batch := list(itertools.islice(iterator, _BATCH)):
        if not first:
            out.write(",")
        out.write(json.dumps(batch, separators=_COMPACT)[1:-1])
        first = False
    out.write(f'],"displayTimeUnit":{json.dumps(DISPLAY_UNIT)},"otherData":')
    out.write(json.dumps(other(), separators=_COMPACT))
    out.write("}")


def _noc_args(schedule: Schedule, n: int) -> dict[str, Any]:
    """The noc model's why for slice n: its NoC time, what bounds it and the link."""
    assert schedule.noc_time is not None and schedule.noc_link is not None
    noc = schedule.noc_time[n]
    bound = "NoC" if noc > schedule.nodes[n].workload.time else "compute"
    return {"noc_time_cycles": noc, "bound": bound, "noc_link": schedule.noc_link[n]}
