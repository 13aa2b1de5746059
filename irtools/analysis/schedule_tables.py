"""The timeline, cores and core_transfers tables, from the schedules of every timing model."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from irtools.analysis.identity import workload_identity
from irtools.analysis.tables import CORE_TRANSFERS, CORES, TIMELINE, TableSpec
from irtools.analysis.timeline import Schedule, core_ranges
from irtools.loading.columns import first_rows, take, transfer_columns
from irtools.loading.index import IRIndex, WorkloadRef, workload_inputs
from irtools.reference import fast_path


def _joined(ids: Iterable[int]) -> str | None:
    return ";".join(map(str, sorted(set(ids)))) or None


def timeline_table(index: IRIndex, schedules: dict[str, Schedule]) -> pd.DataFrame:
    """The `timeline` table from the schedules of each timing model."""
    if not schedules:
        return TIMELINE.empty()
    shared, times = _shared_columns(index)
    rows, own = [], []
    for model, schedule in schedules.items():
        node_rows = _node_rows(index.rows, schedule)
        rows.append(np.arange(len(index.rows)) if node_rows is None else node_rows)
        own.append(_model_columns(model, schedule, times if node_rows is None else times[node_rows]))
    # Taken for every model's rows at once: the table's columns are those taken, not copies of per-model
    # frames joined.
    taken = shared.take(np.concatenate(rows)).reset_index(drop=True)
    del shared
    # Typed from the models' lists joined: no object array of every model's values on the way.
    modelled = _typed(
        {name: list(itertools.chain.from_iterable(part[name] for part in own)) for name in own[0]}
    )
    del own
    return _timeline_frame(taken, modelled)


def timeline_parts(index: IRIndex, schedules: dict[str, Schedule]) -> Iterator[pd.DataFrame]:
    """The `timeline` table a timing model at a time: each model's rows in turn, as in the table, each
    part made once the one before it is let go (`irtools analyze` writes the table, its largest, so)."""
    if not schedules:
        yield TIMELINE.empty()
        return
    shared, times = _shared_columns(index)
    for model, schedule in schedules.items():
        node_rows = _node_rows(index.rows, schedule)
        taken = shared if node_rows is None else shared.take(node_rows).reset_index(drop=True)
        own = _typed(_model_columns(model, schedule, times if node_rows is None else times[node_rows]))
        part = _timeline_frame(taken, own)
        del taken, own
        yield part
        del part


def _shared_columns(index: IRIndex) -> tuple[pd.DataFrame, np.ndarray]:
    """The timeline's columns that do not depend on the model, typed once (the texts and numbers made
    once, not once per model), and each workload's own time (for the noc model's bound)."""
    workload = _workload_columns(index)
    return _typed(workload), workload["time"]  # the texts as Python strings go; typed, they are Arrow's


def _timeline_frame(taken: pd.DataFrame, modelled: pd.DataFrame) -> pd.DataFrame:
    """The timeline's columns in order, from the workloads' columns taken for its rows and the models'."""
    columns = {c.name: taken[c.name] if c.name in taken else modelled[c.name] for c in TIMELINE.columns}
    return pd.DataFrame(columns, copy=False)


def _model_columns(model: str, schedule: Schedule, times: np.ndarray) -> dict[str, Sequence[Any]]:
    """The timeline's columns that depend on the timing model, one entry per node of its schedule
    (`times`: each node's own time, for the noc model's bound)."""
    count = len(schedule.nodes)
    critical = [False] * count
    for n in schedule.critical_path:
        critical[n] = True
    none = [None] * count
    own: dict[str, Sequence[Any]] = {
        "model": [model] * count,
        "start": schedule.start,
        "end": schedule.end,
        "wait": schedule.wait,
        "critical": critical,
        "noc_time": none,
        "bound": none,
        "noc_link": none if schedule.noc_link is None else schedule.noc_link,
    }
    if schedule.noc_time is not None:
        noc = _objects(schedule.noc_time)  # Python ints: compared whole, whatever their size
        own["noc_time"] = schedule.noc_time
        own["bound"] = np.where(noc > times, "NoC", "compute").astype(object).tolist()
    return own


LAYER_ROW_COLUMNS = ("core_id", "position", "layer_name", "layer_type", "time", "start", "end")
"""The timeline's columns the layers rollup reads."""


def layer_rows(index: IRIndex, schedule: Schedule) -> pd.DataFrame:
    """The timeline's rows of one timing model, with only the columns the layers rollup reads
    (`LAYER_ROW_COLUMNS`, their dtypes the timeline's): built from the schedule, not from the timeline,
    whose texts are most of its bytes (`irtools analyze` writes the timeline last, alone)."""
    named = _workload_values(index)
    columns = {name: named[name] for name in LAYER_ROW_COLUMNS if name in named}
    rows = _node_rows(index.rows, schedule)
    if rows is not None:
        columns = {name: values[rows] for name, values in columns.items()}
    columns["start"], columns["end"] = _objects(schedule.start), _objects(schedule.end)
    return _typed(columns)[list(LAYER_ROW_COLUMNS)]


def _typed(columns: dict[str, Any]) -> pd.DataFrame:
    """Some of the timeline's columns with their declared dtypes (TIMELINE.frame, which reports a number
    beyond int64)."""
    spec = TableSpec(TIMELINE.name, TIMELINE.doc, tuple(c for c in TIMELINE.columns if c.name in columns))
    return spec.frame(columns)


def _node_rows(refs: list[WorkloadRef], schedule: Schedule) -> np.ndarray | None:
    """The schedule's nodes as workload rows; None where they are the rows themselves (every model of
    irtools places the index's rows in order)."""
    if len(schedule.nodes) == len(refs) and all(map(operator.is_, schedule.nodes, refs)):
        return None
    row_of = {id(ref): n for n, ref in enumerate(refs)}
    return np.fromiter((row_of[id(ref)] for ref in schedule.nodes), np.int64, len(schedule.nodes))


def _workload_columns(index: IRIndex) -> dict[str, np.ndarray]:
    """The timeline's columns that do not depend on the timing model, one entry per workload row:
    worked out once, then taken for every model's rows. Python ints kept as objects, so a value beyond
    int64 reaches TIMELINE.frame (which reports it) instead of failing here."""
    incomplete, refs = index.incomplete, index.rows
    ifmap_transfers, ofmap_transfers = transfer_lists(index)
    return {
        **_workload_values(index),
        "ifmap_transfers": ifmap_transfers,
        "ofmap_transfers": ofmap_transfers,
        "incomplete": np.array([ref.pointer in incomplete for ref in refs], dtype=bool),
    }


def _workload_values(index: IRIndex) -> dict[str, np.ndarray]:
    """Per workload row, as objects: its identity (core, position, workload id, layer name), layer type
    and time; what the timeline and the layers' rows read of the workloads themselves."""
    workloads = [ref.workload for ref in index.rows]
    return {
        **{name: _objects(values) for name, values in workload_identity(index).items()},
        "layer_type": _objects([w.layer_type for w in workloads]),
        "time": _objects([w.time for w in workloads]),
    }


def _transfer_lists_reference(index: IRIndex) -> tuple[np.ndarray, np.ndarray]:
    workloads = [ref.workload for ref in index.rows]
    return (
        _objects([_joined(workload_inputs(w)) for w in workloads]),
        _objects([_joined(o.transfer_id for o in w.ofmap) for w in workloads]),
    )


@fast_path(reference=_transfer_lists_reference)
def transfer_lists(index: IRIndex) -> tuple[np.ndarray, np.ndarray]:
    """Per workload row, the distinct transfer ids it reads (ifmap and weight) and the ids of its
    ofmaps, ascending and joined by ";" (None for none), from the transfer columns: a set and a sort
    per workload were a quarter of the timeline's time on a 64-core file."""
    cols = transfer_columns(index)
    if cols is None:
        return _transfer_lists_reference(index)  # an id beyond int64: the objects hold it whole
    count = len(index.rows)
    reads = _joined_per_row(
        count,
        np.concatenate([cols.read_row, cols.weight_row]),
        np.concatenate([cols.read_tid, cols.weight_tid]),
    )
    return reads, _joined_per_row(count, cols.ofmap_row, cols.ofmap_tid)


def _joined_per_row(count: int, rows: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """`_joined` of each row's ids (rows 0..count-1), as one object column."""
    out = np.full(count, None, dtype=object)
    if not len(rows):
        return out
    order = np.lexsort((ids, rows))
    rows, ids = rows[order], ids[order]
    fresh = np.ones(len(rows), dtype=bool)
    fresh[1:] = (rows[1:] != rows[:-1]) | (ids[1:] != ids[:-1])  # each distinct (row, id) once
    rows, ids = rows[fresh], ids[fresh]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    ends = np.r_[starts[1:], len(rows)]
    # The ids' texts a few thousand rows at a time, as wide as the longest id (not int64's 21 characters):
    # all at once, on a 64-core file, they were 30 MiB for a moment.
    width = max(len(str(int(ids.min()))), len(str(int(ids.max()))))
    for first in range(0, len(starts), _TEXT_ROWS):
        row_starts, row_ends = starts[first : first + _TEXT_ROWS], ends[first : first + _TEXT_ROWS]
        base = int(row_starts[0])
        text = ids[base : row_ends[-1]].astype(f"U{width}").tolist()
        out[rows[row_starts]] = [
            ";".join(text[a - base : b - base])
            for a, b in zip(row_starts.tolist(), row_ends.tolist(), strict=True)
        ]
    return out


_TEXT_ROWS = 4096


def _objects(values: Sequence[Any]) -> np.ndarray:
    """`values` as a 1-D object array (np.array would turn a list of lists or of equal strings into more)."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _core_transfers_reference(index: IRIndex) -> pd.DataFrame:
    """`core_transfers_table` object by object: each workload's inputs through the producers' dict."""
    columns: dict[str, list[int]] = {c.name: [] for c in CORE_TRANSFERS.columns}
    producers = index.ofmap_producer
    for ref in index.workloads():
        for tid in sorted(workload_inputs(ref.workload)):
            producer = producers.get(tid)
            if producer is None or producer.core_id == ref.core_id:
                continue
            columns["transfer_id"].append(tid)
            columns["src_core"].append(producer.core_id)
            columns["src_position"].append(producer.position)
            columns["dst_core"].append(ref.core_id)
            columns["dst_position"].append(ref.position)
    return CORE_TRANSFERS.frame(columns)


@fast_path(reference=_core_transfers_reference)
def core_transfers_table(index: IRIndex) -> pd.DataFrame:
    """The `core_transfers` table: each transfer a workload reads from another core's ofmap (from the
    transfer columns: each workload's distinct ifmap and weight ids ascending, the first ofmap producing
    each)."""
    cols = transfer_columns(index)
    if cols is None:
        return _core_transfers_reference(index)
    row = np.concatenate([cols.read_row, cols.weight_row])
    tid = np.concatenate([cols.read_tid, cols.weight_tid])
    order = np.lexsort((tid, row))
    row, tid = row[order], tid[order]
    if len(row):
        first = np.r_[True, (row[1:] != row[:-1]) | (tid[1:] != tid[:-1])]
        row, tid = row[first], tid[first]
    producer = first_rows(cols.ofmap_tid, tid)
    src = take(cols.ofmap_row, producer)
    crossing = (src >= 0) & (cols.core[np.maximum(src, 0)] != cols.core[row])
    row, tid, src = row[crossing], tid[crossing], src[crossing]
    position = np.array(workload_identity(index)["position"], dtype=np.int64)
    columns = {
        "transfer_id": tid,
        "src_core": cols.core[src],
        "src_position": position[src],
        "dst_core": cols.core[row],
        "dst_position": position[row],
    }
    return CORE_TRANSFERS.frame(columns)


def cores_table(index: IRIndex, schedules: dict[str, Schedule]) -> pd.DataFrame:
    """The `cores` table: each core's busy and idle cycles and utilization under each timing model."""
    columns: dict[str, list[Any]] = {c.name: [] for c in CORES.columns}
    for model, schedule in schedules.items():
        makespan = schedule.makespan
        for (core_id, refs), nodes in zip(index.cores.items(), core_ranges(index)):
            ends = [schedule.end[n] for n in nodes]
            busy = sum(schedule.duration(n) for n in nodes)
            placed = [e for e in ends if e is not None]
            columns["model"].append(model)
            columns["core_id"].append(core_id)
            columns["workloads"].append(len(refs))
            columns["busy"].append(busy)
            columns["idle"].append(makespan - busy if makespan is not None else None)
            columns["last_end"].append(max(placed, default=0) if len(placed) == len(ends) else None)
            columns["utilization"].append(busy / makespan if makespan else float("nan"))
    return CORES.frame(columns)
