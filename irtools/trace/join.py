"""The join of a measured trace to its IR: per-workload waits, rollups, queue shares and a run summary.

A workload is measured by its compute instructions (PE, VP, DT) tagged with its workload_id:
loads, stores and configuration are not, because delayed stores (`sta_*`) and prefetch loads carry
another workload's `wkl`. Compute durations reproduce the estimate by construction (each tile lasts
round(time / tiles) + 20), so what the comparison shows is the waiting between workloads.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from functools import cached_property
from typing import Any

import pandas as pd

from irtools.analysis.analysis import Analysis
from irtools.analysis.measured_tables import (
    MEASURED_INSTRUCTIONS,
    MEASURED_LAYER_TYPES,
    MEASURED_LAYERS,
    MEASURED_QUEUES,
    MEASURED_TABLES,
    MEASURED_WORKLOADS,
)
from irtools.findings import Finding, Severity
from irtools.loading.index import WorkloadRef
from irtools.loading.reader import gc_paused
from irtools.trace.intervals import Coverage, Moves
from irtools.trace.reader import DMA_QUEUES, QUEUES, Instruction, Trace
from irtools.trace.summary import MeasuredSummary, Wait

MEASURED_CORE = 0
"""The trace's `wkl` are workload ids of core "0"."""

_TILE_KEY = re.compile(r"tile_num_(\d+)")


def _tile_numbers(ref: WorkloadRef) -> list[int] | None:
    """k of each `tile_num_k` key; None when a key has another shape."""
    numbers = []
    for key in ref.workload.tile_info or {}:
        match = _TILE_KEY.fullmatch(key)
        if match is None:
            return None
        numbers.append(int(match.group(1)))
    return sorted(numbers)


OTHER_IR_UNKNOWN = 5
"""A trace naming at least this many unknown wkl ids, more than half of its ids, is another IR's trace."""


class Measured:
    """One IR joined to its measured trace; tables computed on first use (see `MEASURED_TABLES`)."""

    def __init__(self, analysis: Analysis, trace: Trace) -> None:
        self.analysis = analysis
        self.trace = trace
        self.refs = list(analysis.index.cores.get(MEASURED_CORE, []))
        self._compute: dict[int, list[int]] = defaultdict(list)
        for n, ins in enumerate(trace.instructions):
            if ins.is_compute:
                self._compute[ins.wkl].append(n)
        self.compute = Coverage((ins.start, ins.end) for ins in trace.instructions if ins.is_compute)
        self.queue_coverage = {
            q: Coverage((i.start, i.end) for i in trace.instructions if i.queue == q and not i.is_config)
            for q in QUEUES
        }
        self.dma = Coverage(
            (i.start, i.end) for i in trace.instructions if i.queue in DMA_QUEUES and not i.is_config
        )
        self._moves = {q: Moves([i for i in trace.instructions if i.queue == q]) for q in DMA_QUEUES}

    @property
    def makespan(self) -> int:
        """End of the trace's last instruction, in cycles."""
        return self.trace.makespan

    @cached_property
    def findings(self) -> list[Finding]:
        """The trace's own findings, then the join's (GIR611-GIR614)."""
        found = list(self.trace.findings)
        known = {ref.workload_id for ref in self.refs}
        tagged: dict[int, list[Instruction]] = defaultdict(list)
        for ins in self.trace.instructions:
            if ins.wkl not in known:
                tagged[ins.wkl].append(ins)
        named = {ins.wkl for ins in self.trace.instructions}
        if len(tagged) >= OTHER_IR_UNKNOWN and len(tagged) * 2 > len(named):
            # Most workloads unknown: the trace of another schedule, said once rather than per wkl.
            first = min(tagged.items(), key=lambda item: item[1][0].line or 0)
            found.append(
                Finding(
                    "GIR611",
                    Severity.ERROR,
                    f"the trace does not belong to this IR: {len(tagged)} of the {len(named)} wkl ids it names "
                    f"({sum(len(i) for i in tagged.values()):,} instructions) are not workload ids on core 0 "
                    + (f"(which has {len(known)}); " if known else "(the IR has no core 0); ")
                    + f"the first is wkl {first[0]}",
                    core_id=MEASURED_CORE,
                    line=first[1][0].line,
                )
            )
            tagged = {}
        for wkl, instructions in sorted(tagged.items()):
            found.append(
                Finding(
                    "GIR611",
                    Severity.ERROR,
                    f"{len(instructions)} instructions name wkl {wkl}, which core 0 of the IR does not have",
                    core_id=MEASURED_CORE,
                    workload_id=wkl,
                    line=instructions[0].line,
                )
            )
        for ref in self.refs:
            own = [self.trace.instructions[n] for n in self._compute.get(ref.workload_id, [])]
            if not own:
                found.append(
                    Finding(
                        "GIR612",
                        Severity.WARNING,
                        f"no compute instruction in the trace ({ref.workload.layer_name})",
                        core_id=MEASURED_CORE,
                        workload_id=ref.workload_id,
                    )
                )
                continue
            expected = _tile_numbers(ref)
            measured = sorted(i.tile for i in own if i.tile >= 0)
            if not expected:
                continue  # no tile_info, or keys of another shape: no tile numbers to compare
            if measured != expected:
                missing = sorted(set(expected) - set(measured))
                extra = [k for k in sorted(set(measured)) if measured.count(k) > expected.count(k)]
                found.append(
                    Finding(
                        "GIR613",
                        Severity.WARNING,
                        f"tiles in tile_info {_ids(expected)}, measured {_ids(measured)}"
                        + (f"; missing {_ids(missing)}" if missing else "")
                        + (f"; extra or repeated {_ids(extra)}" if extra else ""),
                        core_id=MEASURED_CORE,
                        workload_id=ref.workload_id,
                        line=own[0].line,
                    )
                )
        others = [c for c in self.analysis.index.cores if c != MEASURED_CORE]
        if others:
            found.append(
                Finding(
                    "GIR614",
                    Severity.INFO,
                    f"the trace measures core 0; {len(others)} other cores are not compared",
                )
            )
        return found

    @cached_property
    def workloads(self) -> pd.DataFrame:
        """The `measured_workloads` table: core 0's workloads joined to their compute instructions."""
        estimated = self._estimated_starts()
        rows: dict[str, list[Any]] = {c.name: [] for c in MEASURED_WORKLOADS.columns}
        previous_end = 0
        for ref in self.refs:
            w = ref.workload
            own = [self.trace.instructions[n] for n in self._compute.get(ref.workload_id, [])]
            tiles = _tile_numbers(ref)
            row: dict[str, Any] = {
                "position": ref.position,
                "workload_id": ref.workload_id,
                "layer_name": w.layer_name,
                "layer_type": w.layer_type,
                "tiles": len(w.tile_info or {}) if tiles is None else len(tiles),
                "measured_tiles": sum(1 for i in own if i.tile >= 0),
                "time": w.time,
                "estimated_start": estimated.get(ref.position),
            }
            if own:
                start, end = min(i.start for i in own), max(i.end for i in own)
                busy = Coverage((i.start, i.end) for i in own).total
                gap = start - previous_end
                previous_end = end
                window = (start - max(gap, 0), start)
                active = {q: self.queue_coverage[q].covered(*window) for q in DMA_QUEUES}
                chain = self._critical(min(own, key=lambda i: (i.start, i.line)), window[0])
                row |= {
                    "start": start,
                    "end": end,
                    "busy": busy,
                    "gap": gap,
                    "slot": gap + busy,
                    "slot_ratio": (gap + busy) / w.time if w.time else math.nan,
                    "dma_queues": ";".join(q for q in DMA_QUEUES if active[q]),
                    "ld_active": active["LD"],
                    "lw_active": active["LW"],
                    "st_active": active["ST"],
                    "dma_bytes": round(sum(self._moves[q].bytes_in(*window) for q in DMA_QUEUES)),
                    "critical_wait": _labels(chain),
                    "critical_wait_line": chain[0].line if chain else None,
                    "first_line": min(i.line for i in own),
                }
            else:
                row |= {"slot_ratio": math.nan, "dma_queues": "", "critical_wait": ""}
            for name, values in rows.items():
                values.append(row.get(name))
        return MEASURED_WORKLOADS.frame(rows)

    def _estimated_starts(self) -> dict[int, Any]:
        timeline = self.analysis.timeline
        own = timeline[(timeline["model"] == "dependency") & (timeline["core_id"] == MEASURED_CORE)]
        return dict(zip(own["position"].tolist(), own["start"].tolist()))

    def _critical(self, first: Instruction, since: int) -> list[Instruction]:
        """What held `first` back in [since, first.start): back along `waited_on`, the instructions
        covering at least a tenth of that window, in time order, the one covering most first."""
        window = first.start - since
        chain: list[tuple[int, Instruction]] = []
        current = first
        while current.waited_on is not None and window > 0:
            current = self.trace.instructions[current.waited_on]
            if current.end <= since:
                break
            overlap = min(current.end, first.start) - max(current.start, since)
            if overlap * 10 >= window:
                chain.append((overlap, current))
        if not chain:
            return []
        main = max(chain, key=lambda c: c[0])[1]
        return [main, *sorted((i for _, i in chain if i is not main), key=lambda i: i.start)][:3]

    def _rollup(self, keys: list[str], spec: Any) -> pd.DataFrame:
        table = self.workloads[self.workloads["start"].notna()]
        if table.empty:
            return spec.empty()
        total_gap = int(table["gap"].sum())
        grouped = table.groupby(keys, sort=False)
        frame = grouped.agg(
            workloads=("workload_id", "size"),
            time=("time", "sum"),
            busy=("busy", "sum"),
            gap=("gap", "sum"),
            slot=("slot", "sum"),
            dma_bytes=("dma_bytes", "sum"),
            first=("start", "min"),
        ).reset_index()
        frame["slot_ratio"] = frame["slot"] / frame["time"].where(frame["time"] > 0)
        frame["gap_share"] = frame["gap"] / total_gap if total_gap else 0.0
        if "layer_name" in keys:
            frame["layer_type"] = grouped["layer_type"].first().to_numpy()
        frame = frame.sort_values("first", kind="stable").reset_index(drop=True)
        return spec.frame({c.name: frame[c.name].to_numpy() for c in spec.columns})

    @cached_property
    def layers(self) -> pd.DataFrame:
        """The `measured_layers` table: the measured workloads rolled up per layer."""
        return self._rollup(["layer_name"], MEASURED_LAYERS)

    @cached_property
    def layer_types(self) -> pd.DataFrame:
        """The `measured_layer_types` table: the measured workloads rolled up per layer type."""
        return self._rollup(["layer_type"], MEASURED_LAYER_TYPES)

    @cached_property
    def idle_windows(self) -> list[tuple[int, int]]:
        """The windows in which no compute queue was running."""
        return self.compute.gaps(self.makespan)

    @cached_property
    def queues(self) -> pd.DataFrame:
        """The `measured_queues` table: each hardware queue's busy share and its share of the compute idle
        time."""
        idle = self.idle_windows
        idle_total = sum(e - s for s, e in idle)
        rows: dict[str, list[Any]] = {c.name: [] for c in MEASURED_QUEUES.columns}
        for q in QUEUES:
            coverage = self.queue_coverage[q]
            active = sum(coverage.covered(s, e) for s, e in idle)
            values = {
                "queue": q,
                "instructions": sum(1 for i in self.trace.instructions if i.queue == q),
                "busy": coverage.total,
                "busy_share": coverage.total / self.makespan if self.makespan else 0.0,
                "idle_active": active,
                "idle_share": active / idle_total if idle_total else 0.0,
                "bytes": sum(i.size_bytes or 0 for i in self.trace.instructions if i.queue == q),
            }
            for name, column in rows.items():
                column.append(values[name])
        return MEASURED_QUEUES.frame(rows)

    @cached_property
    def instructions(self) -> pd.DataFrame:
        """The `measured_instructions` table: every instruction of the trace with its queue, times and
        bytes."""
        ins = self.trace.instructions
        lines = [i.line for i in ins]
        return MEASURED_INSTRUCTIONS.frame(
            {
                "line": lines,
                "inst_idx": [i.inst_idx for i in ins],
                "name": [i.name for i in ins],
                "queue": [i.queue for i in ins],
                "wkl": [i.wkl for i in ins],
                "tile": [i.tile for i in ins],
                "start": [i.start for i in ins],
                "end": [i.end for i in ins],
                "bytes": [i.size_bytes for i in ins],
                "waited_on_line": [None if i.waited_on is None else lines[i.waited_on] for i in ins],
            }
        )

    def table(self, name: str) -> pd.DataFrame:
        """One measured table by its name in `MEASURED_TABLES`."""
        if name not in MEASURED_TABLES:
            raise KeyError(f"unknown measured table {name!r}")
        attribute = {"measured_layer_types": "layer_types"}.get(name, name.removeprefix("measured_"))
        frame: pd.DataFrame = getattr(self, attribute)
        return frame

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every measured table by its contract name."""
        return {name: self.table(name) for name in MEASURED_TABLES}

    def top_waits(self, count: int = 3) -> list[Wait]:
        """The `count` longest gaps before a workload, longest first (ties in program order)."""
        table = self.workloads[self.workloads["gap"].notna()]
        top = table.sort_values("gap", ascending=False, kind="stable").head(count)
        return [
            Wait(int(r.workload_id), str(r.layer_name), int(r.gap), int(r.start), str(r.critical_wait))
            for r in top.itertuples()
        ]

    def summary(self) -> MeasuredSummary:
        """The run summary (computed once)."""
        return self._summary

    @cached_property
    def _summary(self) -> MeasuredSummary:
        idle = self.idle_windows
        idle_total = sum(e - s for s, e in idle)
        with_dma = sum(self.dma.covered(s, e) for s, e in idle)
        queues = self.queues.set_index("queue")
        measured = self.workloads[self.workloads["start"].notna()]
        correlation = None
        if len(measured) > 2 and measured["slot"].std() > 0 and measured["time"].std() > 0:
            correlation = float(measured["slot"].astype(float).corr(measured["time"].astype(float)))
        exact, tiles = self._by_construction()
        found = self.findings
        return MeasuredSummary(
            trace=self.trace.path,
            instructions=len(self.trace.instructions),
            workloads=len(self.refs),
            measured_workloads=len(measured),
            estimated_makespan=sum(ref.workload.time for ref in self.refs),
            measured_makespan=self.makespan,
            compute_busy=self.compute.total,
            idle=idle_total,
            idle_share=idle_total / self.makespan if self.makespan else 0.0,
            idle_with_dma_share=with_dma / idle_total if idle_total else 0.0,
            dma_share={q: float(queues.at[q, "busy_share"]) for q in DMA_QUEUES},
            idle_dma_share={q: float(queues.at[q, "idle_share"]) for q in DMA_QUEUES},
            slot_time_correlation=correlation,
            tiles_by_construction=exact,
            tiles=tiles,
            top_waits=self.top_waits(),
            errors=sum(1 for f in found if f.severity is Severity.ERROR),
            warnings=sum(1 for f in found if f.severity is Severity.WARNING),
        )

    def _by_construction(self) -> tuple[int, int]:
        """Compute tiles lasting round-half-up(time / tiles) + 20, and all compute tiles."""
        exact = total = 0
        for ref in self.refs:
            count = len(ref.workload.tile_info or {})
            for n in self._compute.get(ref.workload_id, []):
                ins = self.trace.instructions[n]
                if ins.tile < 0 or not count:
                    continue
                total += 1
                exact += ins.duration == math.floor(ref.workload.time / count + 0.5) + 20
        return exact, total


def _labels(chain: list[Instruction]) -> str:
    """The main wait, then the others on its chain: `LD ldw_mov of wkl 61 (138,328 cycles, line 500)`."""
    labels = [f"{i.queue} {i.name} of wkl {i.wkl} ({i.duration:,} cycles, line {i.line})" for i in chain]
    return labels[0] + (f" (also {'; '.join(labels[1:])})" if labels[1:] else "") if labels else ""


def _ids(values: list[int]) -> str:
    shown = ", ".join(map(str, values[:16]))
    return f"[{shown}{', ...' if len(values) > 16 else ''}]"


def measure(analysis: Analysis, trace: Trace) -> Measured:
    """Join a trace to an analyzed IR."""
    with gc_paused():
        return Measured(analysis, trace)
