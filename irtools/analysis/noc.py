"""The NoC term of Gemini's latency: per layer step, the heaviest directed link's load over the NoC bandwidth.

Gemini (src/layerengine.cpp, src/noc.cpp, src/schnode.cpp of SET-Scheduling-Project/GEMINI-HPCA2024)
charges a layer with the traffic it pulls in (weights and ifmaps from DRAM or from the producing cores)
and the ofmap it writes to DRAM, routes it (`irtools.analysis.routing`), and bounds the layer's time
by `ceil(max link bytes / NoC bandwidth) / frequency` (`NoC::get_nocp_time`, then `noc.get_time() /
frequency` in `LNode::searchLayer` / `Cut::construct`). The IR's workload `time` leaves this term out.

A *step* is one execution of a layer: the k-th workload of a layer on each core (a layer that a
temporal cut runs once per batch group has one step per group). Its NoC time applies to each of its
workloads: the `noc` timing model stretches a workload to max(time, its step's NoC time). The steps of a
layer share its DRAM weights as Gemini's batch groups do (irtools.analysis.batch_groups).
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
import pandas as pd

from irtools.analysis.batch_groups import (
    RoutedSteps,
    run_step_link_loads,
    run_step_traffic,
    step_link_loads,
    step_traffic,
    weight_transfers,
)
from irtools.analysis.noc_columns import dram_writes, reads_and_sends
from irtools.analysis.routing import (
    DRAM_CHANNELS,
    Runs,
    dram_read_runs,
    dram_write_runs,
    expand,
    from_dram,
    line_spans,
    link_label,
    link_loads,
    narrowed,
    narrowest,
    to_dram,
    tree_runs,
    tree_runs_by_groupby,
)
from irtools.analysis.timeline import Schedule, dependency
from irtools.gemini import GEMINI_FREQUENCY
from irtools.loading.index import IRIndex
from irtools.model.view import DestinationView, is_core
from irtools.reference import fast_path


@dataclass(frozen=True, slots=True)
class NocModel:
    """The NoC of one run: `bandwidth` bytes per cycle per directed link (Gemini's input line) and its frequency."""

    bandwidth: int
    frequency: float = GEMINI_FREQUENCY
    dram_bw: int | None = None
    """DRAM bandwidth as in Gemini's input line (e.g. 1024000); None leaves the DRAM term out."""

    def __post_init__(self) -> None:
        if self.bandwidth <= 0:
            raise ValueError(f"NoC bandwidth must be a positive integer, got {self.bandwidth}")
        if not self.frequency > 0:
            raise ValueError(f"NoC frequency must be positive, got {self.frequency}")
        if self.dram_bw is not None and self.dram_bw // 1024 // DRAM_CHANNELS <= 0:
            raise ValueError(f"DRAM bandwidth must be at least {1024 * DRAM_CHANNELS}, got {self.dram_bw}")

    def cycles(self, link_bytes: int) -> int:
        """Gemini's NoC time of a step whose heaviest link carries `link_bytes`, in the IR's time unit."""
        return int(self.link_time(link_bytes))

    def link_time(self, link_bytes: int) -> float:
        """`ceil(link_bytes / bandwidth) / frequency` before Gemini truncates it (as its printout shows it)."""
        return math.ceil(link_bytes / self.bandwidth) / self.frequency

    def dram_cycles(self, dram_bytes: int) -> int | None:
        """Gemini's DRAM time of `dram_bytes` interleaved over its 4 channels, in the IR's unit (truncated);
        None without a DRAM bandwidth."""
        exact = self.dram_time(dram_bytes)
        return None if exact is None else int(exact)

    def dram_time(self, dram_bytes: int) -> float | None:
        """`NoC::get_dram_time` over the frequency, before truncation: each channel moves its quarter of the
        bytes at `dram_bw / 1024 / 4` bytes per cycle (src/main.cpp:868); None without a DRAM bandwidth."""
        if self.dram_bw is None:
            return None
        per_channel = self.dram_bw // 1024 // DRAM_CHANNELS
        return -(-(dram_bytes // DRAM_CHANNELS) // per_channel) / self.frequency


_STEPS: weakref.WeakKeyDictionary[IRIndex, tuple[dict[tuple[int, int], int], list[tuple[str, int]]]] = (
    weakref.WeakKeyDictionary()
)


def workload_steps(index: IRIndex) -> tuple[dict[tuple[int, int], int], list[tuple[str, int]]]:
    """(core_id, position) -> step number, and each step's (layer_name, instance), in order of first appearance.

    Built once per index (a walk over every workload; the NoC tables ask for it several times) and
    shared: callers read it and never change it.
    """
    if index not in _STEPS:
        _STEPS[index] = _workload_steps(index)
    return _STEPS[index]


def _workload_steps(index: IRIndex) -> tuple[dict[tuple[int, int], int], list[tuple[str, int]]]:
    steps: dict[tuple[str, int], int] = {}
    of_workload: dict[tuple[int, int], int] = {}
    for refs in index.cores.values():
        seen: dict[str, int] = {}
        for ref in refs:
            layer = ref.workload.layer_name
            k = seen.get(layer, 0)
            seen[layer] = k + 1
            of_workload[(ref.core_id, ref.position)] = steps.setdefault((layer, k), len(steps))
    return of_workload, list(steps)


def _noc_transfers_reference(index: IRIndex) -> dict[str, pd.DataFrame]:
    """noc_transfers object by object (the reference core's; see noc_transfers)."""
    steps, _ = workload_steps(index)
    by_id = index.by_id
    position = index.core_position

    def users(destinations: Sequence[DestinationView]) -> Iterator[tuple[int, int, int]]:
        """(x, y, step) of each core destination whose position and workload are known."""
        for d in destinations:
            if is_core(d):
                dst, user = position(d.core_id), by_id.get((d.core_id, d.workload_id))
                if dst is not None and user is not None:
                    yield (*dst, steps[(user.core_id, user.position)])

    core: list[tuple[int, ...]] = []
    reads: list[tuple[int, ...]] = []
    for ref in index.workloads():
        src = position(ref.core_id)
        if src is not None:
            for o in ref.workload.ofmap:
                core.extend((o.transfer_id, *src, x, y, o.size, step) for x, y, step in users(o.destination))
    for out in index.ir.dram.out:
        reads.extend((out.transfer_id, x, y, out.size, step) for x, y, step in users(out.destination))
    return {
        "core": _frame(core, ["transfer", "src_x", "src_y", "dst_x", "dst_y", "bytes", "step"]),
        "dram_read": _frame(reads, ["transfer", "dst_x", "dst_y", "bytes", "step"]),
        "dram_write": _dram_writes(index, steps),
    }


@fast_path(reference=_noc_transfers_reference)
def noc_transfers(index: IRIndex) -> dict[str, pd.DataFrame]:
    """The IR's traffic as routing input, each row charged to a step.

    `core`: one row per (ofmap, core destination): `route` input plus `step` (the destination's).
    `dram_read`: one row per (DRAM out entry, core destination): transfer, dst_x, dst_y, bytes, step.
    `dram_write`: one row per DRAM in entry: transfer, src_x, src_y, bytes, step (the producer's).
    Endpoints whose mesh position is unknown (no xlen, or a core off the mesh) are left out.
    """
    steps, _ = workload_steps(index)
    # From the transfer columns (the objects only when a value does not fit int64): a file read for the
    # dashboard keeps no tensor objects.
    gathered, writes = reads_and_sends(index, steps), dram_writes(index, steps)
    if gathered is None or writes is None:
        return _noc_transfers_reference(index)
    return gathered | {"dram_write": writes}


def _dram_writes(index: IRIndex, steps: dict[tuple[int, int], int]) -> pd.DataFrame:
    """noc_transfers' `dram_write` rows: each DRAM `in` entry from its producer's position and ofmap size."""
    by_id, position = index.by_id, index.core_position
    writes: list[tuple[int, ...]] = []
    for entry in index.ir.dram.in_:
        producer, src = by_id.get((entry.core_id, entry.workload_id)), position(entry.core_id)
        if producer is None or src is None:
            continue
        size = next((o.size for o in producer.workload.ofmap if o.transfer_id == entry.transfer_id), None)
        if size is not None:
            writes.append((entry.transfer_id, *src, size, steps[(producer.core_id, producer.position)]))
    return _frame(writes, ["transfer", "src_x", "src_y", "bytes", "step"])


def _frame(rows: list[tuple[int, ...]], columns: list[str]) -> pd.DataFrame:
    data = np.array(rows, dtype=np.int64).reshape(len(rows), len(columns))
    return pd.DataFrame(data, columns=columns)


KINDS = ("core", "dram_read", "dram_write")
"""The traffic kinds of noc_links rows (its `kind` category), in the noc_links table's column order."""


@dataclass(frozen=True, slots=True)
class KindRuns:
    """One traffic kind routed: its runs of links (routing.Runs, `transfer` the IR's transfer id) and
    each run's layer step, in the narrowest integers that hold them (`Runs.narrowed`)."""

    kind: str
    runs: Runs
    step: np.ndarray

    def take(self, keep: np.ndarray) -> KindRuns:
        """The runs `keep` (a mask) selects, with their steps, in their order."""
        return KindRuns(self.kind, self.runs.take(keep), self.step[keep])


def noc_runs(index: IRIndex, transfers: dict[str, pd.DataFrame] | None = None) -> list[KindRuns]:
    """The IR's traffic routed on the mesh as runs of links, per kind present (none without a mesh);
    `transfers`: noc_transfers(index), when the caller has it already."""
    xlen, ylen = index.ir.xlen, index.ir.ylen
    if xlen is None or ylen is None:
        return []
    routed = []
    for kind, rows in (noc_transfers(index) if transfers is None else transfers).items():
        if rows.empty:
            continue
        # One tree per (transfer, step): a transfer feeding two steps loads each step's links.
        n_steps = int(rows["step"].max()) + 1
        keyed = rows.assign(transfer=rows["transfer"] * n_steps + rows["step"])
        runs = kind_runs(kind, keyed, xlen, ylen)
        transfer, step = np.divmod(runs.transfer.astype(np.int64, copy=False), n_steps)
        routed.append(KindRuns(kind, dataclasses.replace(runs, transfer=narrowed(transfer)), narrowed(step)))
    return routed


def _kind_runs_reference(kind: str, transfers: pd.DataFrame, xlen: int, ylen: int) -> Runs:
    """kind_runs through a row per (transfer, DRAM port) grouped by pandas (the reference core's)."""
    if kind == "dram_read":
        transfers = from_dram(transfers, xlen, ylen)
    elif kind == "dram_write":
        transfers = to_dram(transfers, xlen, ylen)
    return tree_runs_by_groupby(transfers)


@fast_path(reference=_kind_runs_reference)
def kind_runs(kind: str, transfers: pd.DataFrame, xlen: int, ylen: int) -> Runs:
    """One kind of noc_transfers' rows routed as runs of links (DRAM traffic spread over the ports)."""
    if kind == "dram_read":
        return dram_read_runs(transfers, xlen, ylen)
    if kind == "dram_write":
        return dram_write_runs(transfers, xlen, ylen)
    return tree_runs(transfers)


def noc_links(index: IRIndex, runs: list[KindRuns] | None = None) -> pd.DataFrame:
    """Every (step, kind, directed link) with its bytes: route() rows with `step` and `kind` added.

    `kind` is `core` (core to core), `dram_read` or `dram_write`. Empty when the file has no mesh (xlen/ylen).
    Millions of rows on a 64-core file: `step` in the narrowest integers that hold it, `kind` a category.
    """
    columns = ["step", "kind", "transfer", "x", "y", "direction", "to_x", "to_y", "bytes"]
    frames = []
    for routed in noc_runs(index) if runs is None else runs:
        links = expand(routed.runs)
        count = routed.runs.count
        links["step"] = np.repeat(routed.step, count).astype(narrowest(routed.step), copy=False)
        links["kind"] = pd.Categorical.from_codes(
            np.full(len(links), KINDS.index(routed.kind), np.int8), KINDS
        )
        frames.append(links)
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype="int64") for c in columns})
    return pd.concat(frames, ignore_index=True)[columns]


def step_loads(links: pd.DataFrame) -> pd.DataFrame:
    """Per step, its heaviest directed link: step, x, y, direction, to_x, to_y, bytes (one row per step)."""
    loads = link_loads(links, by=["step"])
    return loads.drop_duplicates("step").reset_index(drop=True)


def step_frame(index: IRIndex) -> pd.DataFrame:
    """One row per layer step: step, layer_name, instance (its k-th run)."""
    _, keys = workload_steps(index)
    return pd.DataFrame(
        {"step": range(len(keys)), "layer_name": [k[0] for k in keys], "instance": [k[1] for k in keys]}
    )


def _noc_times_reference(
    index: IRIndex, model: NocModel, routed: list[KindRuns] | None = None
) -> pd.DataFrame:
    """noc_times through a row per link and transfer (noc_links): the reference core's."""
    steps = step_frame(index)
    links = noc_links(index, routed)
    weights = weight_transfers(index)
    traffic = step_traffic(links, steps, weights, index.ir.xlen or 0)
    return _step_times(index, model, steps, step_link_loads(links, steps, weights), traffic)


@fast_path(reference=_noc_times_reference)
def noc_times(index: IRIndex, model: NocModel, routed: list[KindRuns] | None = None) -> pd.DataFrame:
    """One row per step: layer_name, instance, link_bytes, noc_time, link (label of the heaviest link),
    hops and dram_bytes (what Gemini counts for the step), dram_time (with a DRAM bandwidth), and the
    layer's own: layer_link_bytes, layer_link, layer_noc_time (over all its steps).

    noc_time is Gemini's `NoC::get_time`: the heaviest link's time, or the DRAM time when that is
    longer. A layer's steps are Gemini's batch groups of one segment (irtools.analysis.batch_groups):
    the segment takes `max(its groups' times, its own NoC time)` (`Cut::construct`: `noc *= num_bgrp`,
    then the time once, truncated once). So the last step's noc_time is raised to what the layer's NoC
    time leaves after its earlier steps, when that is more (a few cycles of rounding on the shared runs).

    `routed`: noc_runs(index), when the caller has it already. The bytes per (step, link) and each step's
    hops and DRAM bytes are summed from the runs (batch_groups.run_step_link_loads, run_step_traffic).
    """
    steps = step_frame(index)
    runs = routed_steps(
        noc_runs(index) if routed is None else routed, weight_transfers(index), index.ir.xlen or 0
    )
    return _step_times(index, model, steps, run_step_link_loads(runs, steps), run_step_traffic(runs, steps))


def _step_times(
    index: IRIndex, model: NocModel, steps: pd.DataFrame, loads: pd.DataFrame, traffic: pd.DataFrame
) -> pd.DataFrame:
    """noc_times' frame from the bytes per (step, link) (`loads`) and each step's hops and DRAM bytes."""
    heaviest = step_loads(loads)
    xlen = index.ir.xlen or 0
    merged = steps.merge(heaviest, on="step", how="left")
    link_bytes = merged["bytes"].fillna(0).astype("int64")
    labels = [
        None if pd.isna(b) else link_label(int(x), int(y), int(tx), int(ty), xlen)
        for b, x, y, tx, ty in zip(merged["bytes"], merged["x"], merged["y"], merged["to_x"], merged["to_y"])
    ]
    dram_bytes = traffic["dram_bytes"].to_numpy()
    dram_time = [model.dram_cycles(int(b)) for b in dram_bytes]
    noc_time = np.array([model.cycles(int(b)) for b in link_bytes], dtype=np.int64)
    noc_time = np.maximum(noc_time, [t or 0 for t in dram_time])
    layers = layer_heaviest(loads, steps, xlen)
    layer_link_bytes = steps["layer_name"].map(layers["bytes"]).fillna(0).astype("int64").to_numpy()
    layer_dram = traffic.groupby(steps["layer_name"].to_numpy(), sort=False)["dram_bytes"].sum()
    layer_noc_time = np.maximum(
        [model.cycles(int(b)) for b in layer_link_bytes],
        [model.dram_cycles(int(b)) or 0 for b in steps["layer_name"].map(layer_dram)],
    )
    step_time = np.maximum(step_compute(index), noc_time)
    earlier = (
        pd.Series(step_time).groupby(steps["layer_name"].to_numpy(), sort=False).cumsum().to_numpy()
        - step_time
    )
    last = ~steps.duplicated("layer_name", keep="last").to_numpy()
    noc_time = np.where(last, np.maximum(noc_time, layer_noc_time - earlier), noc_time)
    return pd.DataFrame(
        {
            "step": merged["step"],
            "layer_name": merged["layer_name"],
            "instance": merged["instance"],
            "link_bytes": link_bytes,
            "noc_time": noc_time,
            "link": labels,
            "hops": traffic["hops"].to_numpy(),
            "dram_bytes": dram_bytes,
            "dram_time": pd.array(dram_time, dtype="Int64"),
            "layer_link_bytes": layer_link_bytes,
            "layer_link": steps["layer_name"].map(layers["link"]).to_numpy(),
            "layer_noc_time": layer_noc_time,
        }
    )


def routed_steps(
    routed: list[KindRuns], weights: np.ndarray, xlen: int, with_bytes: bool = False
) -> RoutedSteps:
    """The runs of one link or more of every kind (noc_runs) as batch_groups.RoutedSteps; `weights`: the
    transfer ids read as weights (weight_transfers). `with_bytes`: only the runs of some bytes."""
    parts = []
    for kind_runs in routed:
        runs, step = kind_runs.runs, kind_runs.step
        # The runs kept are taken before their spans are computed (in int64): most of a DRAM read's
        # runs carry no bytes.
        keep = (runs.count > 0) & (runs.size > 0) if with_bytes else runs.count > 0
        if not keep.all():
            runs, step = runs.take(keep), step[keep]
        code, line, lo, hi = line_spans(runs)
        if kind_runs.kind == "dram_read":
            weight = np.isin(runs.transfer, weights)
        else:
            weight = np.zeros(len(code), dtype=bool)
        dram = _port_links(kind_runs.kind, code, lo, hi, xlen)
        columns = (step, code, line, lo, hi, runs.size, runs.count, weight, dram)
        # Narrowed as the runs are (`Runs.narrowed`): nine int64 columns of every run were most of the
        # link counters' peak on a 64-core file. LinkGrid.interval widens what it computes with.
        parts.append([narrowed(column) for column in columns])
        del code, line, lo, hi, weight, dram
    if not parts:
        no = np.zeros(0, dtype=np.int64)
        return RoutedSteps(no, no, no, no, no, no, no, weight=np.zeros(0, dtype=bool), dram=no)
    return RoutedSteps(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def _port_links(kind: str, code: np.ndarray, lo: np.ndarray, hi: np.ndarray, xlen: int) -> np.ndarray:
    """Per run: 1 when one of its links leaves a DRAM port column (a read) or enters one (a write), where
    step_traffic counts the DRAM bytes. Only an east or west run crosses a port's edge, and at most once:
    a read's link starts at x = -1 going east or at x = xlen going west; a write's at x = xlen - 1 going
    east or at x = 0 going west (line_spans' positions are the links' starts)."""
    if kind not in ("dram_read", "dram_write"):
        return np.zeros(len(code), dtype=np.int64)
    east, west = (-1, xlen) if kind == "dram_read" else (xlen - 1, 0)
    edge = np.where(code == 0, east, west)
    crosses: np.ndarray = ((code == 0) | (code == 2)) & (lo <= edge) & (edge <= hi)
    return crosses.astype(np.int64)


def layer_heaviest(loads: pd.DataFrame, steps: pd.DataFrame, xlen: int = 0) -> pd.DataFrame:
    """Per layer_name (index): `bytes` of its heaviest directed link over all its steps and its `link`
    label (`loads`: batch_groups.step_link_loads)."""
    layer_of = steps.set_index("step")["layer_name"]
    keys = ["x", "y", "direction", "to_x", "to_y"]
    per_link = (
        loads.assign(layer_name=layer_of.reindex(loads["step"]).to_numpy())
        .groupby(["layer_name", *keys], sort=False)["bytes"]
        .sum()
        .reset_index()
        .sort_values(
            ["bytes", "layer_name", *keys], ascending=[False, True, *[True] * len(keys)], kind="stable"
        )
        .drop_duplicates("layer_name")
    )
    per_link["link"] = [
        link_label(int(x), int(y), int(tx), int(ty), xlen)
        for x, y, tx, ty in zip(per_link["x"], per_link["y"], per_link["to_x"], per_link["to_y"], strict=True)
    ]
    return per_link.set_index("layer_name")[["bytes", "link"]]


def step_compute(index: IRIndex) -> np.ndarray:
    """Per step: its longest workload's `time` (the IR's compute time of that batch group)."""
    of_workload, keys = workload_steps(index)
    rows = index.rows
    step = np.fromiter(of_workload.values(), np.int64, len(of_workload))  # in `rows` order, as built
    time = np.fromiter(map(attrgetter("time"), map(attrgetter("workload"), rows)), np.int64, len(rows))
    longest = np.zeros(len(keys), dtype=np.int64)
    np.maximum.at(longest, step, time)
    return longest


def noc_durations(index: IRIndex, times: pd.DataFrame) -> tuple[list[int], list[int]]:
    """Per workload (in `index.workloads()` order): its duration max(time, step NoC time), and its step."""
    of_workload, _ = workload_steps(index)
    step_time = times["noc_time"].to_numpy()
    durations, steps = [], []
    for ref in index.workloads():
        step = of_workload[(ref.core_id, ref.position)]
        steps.append(step)
        durations.append(max(ref.workload.time, int(step_time[step])))
    return durations, steps


def noc_schedule(index: IRIndex, model: NocModel, times: pd.DataFrame | None = None) -> Schedule:
    """The `noc` timing model: the dependency model with each workload stretched to its step's NoC time."""
    times = noc_times(index, model) if times is None else times
    durations, steps = noc_durations(index, times)
    schedule = dependency(index, durations, model="noc")
    step_time, step_link = times["noc_time"].tolist(), times["link"].tolist()
    schedule.noc_time = [int(step_time[s]) for s in steps]
    schedule.noc_link = [step_link[s] for s in steps]
    return schedule


def noc_headline(
    layers: pd.DataFrame, dependency: int | None, noc: int | None, model: NocModel
) -> dict[str, Any]:
    """What the NoC adds: cycles over the dependency makespan, the NoC-bound layers, and the links they wait on.

    `layers` is the layer rollup of an analysis with this NoC model (its noc_added, bound, noc_link).
    """
    bound = layers[layers["bound"] == "NoC"]
    by_link = (
        bound.groupby("noc_link", sort=False)
        .agg(added=("noc_added", "sum"), layers=("layer_name", list))
        .sort_values("added", ascending=False, kind="stable")
    )
    added = None if dependency is None or noc is None else noc - dependency
    return {
        "bandwidth": model.bandwidth,
        "frequency": model.frequency,
        "added": added,
        "added_fraction": added / noc if added is not None and noc else None,
        "bound_layers": len(bound),
        "layers": len(layers),
        "links": [
            {"link": str(link), "added": int(row.added), "layers": list(row.layers)}
            for link, row in by_link.iterrows()
        ],
    }


def step_costs(index: IRIndex, times: pd.DataFrame) -> pd.DataFrame:
    """`times` (noc_times) with `added`: the cycles by which each step's NoC time exceeds its longest workload."""
    return times.assign(added=np.maximum(times["noc_time"].to_numpy() - step_compute(index), 0))


def layer_bounds(index: IRIndex, times: pd.DataFrame) -> pd.DataFrame:
    """Per layer (index `layer_name`): noc_added, bound, noc_link.

    noc_added sums over the layer's steps the cycles by which the step's NoC time exceeds its longest
    workload; bound is `NoC` when that is positive; noc_link is the heaviest link of the step adding most.
    """
    steps = step_costs(index, times)
    slowest = steps.sort_values("added", ascending=False, kind="stable").drop_duplicates("layer_name")
    out = steps.groupby("layer_name", sort=False)["added"].sum().to_frame("noc_added")
    out["bound"] = np.where(out["noc_added"] > 0, "NoC", "compute")
    out["noc_link"] = slowest.set_index("layer_name")["link"]
    return out
