"""Bytes on each directed NoC link, over the whole schedule or a cycles window: the `noc_links` table.

The traffic and its routes are `irtools.analysis.noc` and `irtools.analysis.routing` (Gemini's XY
routing, multicast trees, interleaved DRAM ports). Gemini charges each transfer to a layer *step*
(the k-th workload of a layer on each core); here a step occupies the cycles from its first workload's
start to its last workload's end under the chosen timing model, and its bytes are spread evenly over
that span, so a window holds each step's bytes pro rata of the overlap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pandas as pd

from irtools.analysis.link_grid import LinkGrid
from irtools.analysis.noc import KINDS, KindRuns, noc_links, noc_transfers, workload_steps
from irtools.analysis.routing import DIRECTIONS, STEP_X, STEP_Y, line_spans, link_label, narrowed
from irtools.analysis.tables import NOC_LINKS
from irtools.loading.boxes import max_before
from irtools.loading.index import IRIndex
from irtools.reference import fast_path

ArrayT = TypeVar("ArrayT", pd.Series, np.ndarray)

Window = tuple[float, float]


@dataclass(frozen=True, slots=True)
class LinkLoads:
    """Routed link rows of one schedule and each layer step's time span, ready to be cut to a window."""

    routed_rows: Callable[[], pd.DataFrame]
    """Gives noc.noc_links rows (step, kind, transfer, x, y, direction, to_x, to_y, bytes), made when first
    read: millions of rows on a 64-core file, one frame for every timing model. The mesh, its windows,
    the link heat, the counters and a link's transfers read the runs instead (`link_sums`,
    `window_rows`, `run_link_steps`, `rows_on`): the rows are for the reference core."""
    step_start: np.ndarray
    step_end: np.ndarray
    """Per step number: its first workload's start and last workload's end under this model (NaN: the
    step cannot be scheduled)."""
    core: pd.DataFrame
    """noc.noc_transfers' core-to-core rows (transfer, src_x, src_y, dst_x, dst_y, bytes, step) + start, end."""
    xlen: int
    span: Window
    """[0, the makespan] (or the last end when some workloads cannot be scheduled)."""
    steps: list[tuple[str, int]]
    """Each step's (layer_name, instance): the k-th run of that layer."""

    @property
    def rows(self) -> pd.DataFrame:
        """The routed rows (`routed_rows`)."""
        return self.routed_rows()

    def spans(self, rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """The start and end of each of `rows`' steps (rows of `self.rows`)."""
        step = rows["step"].to_numpy(np.int64)
        return self.step_start[step], self.step_end[step]


def step_spans(index: IRIndex, timeline: pd.DataFrame, model: str) -> pd.DataFrame:
    """One row per layer step: step, start (its first workload's start), end (its last workload's end)."""
    of_workload, _ = workload_steps(index)
    times = timeline[(timeline["model"] == model) & timeline["start"].notna()]
    keys = zip(times["core_id"].tolist(), times["position"].tolist(), strict=True)
    steps = pd.DataFrame(
        {
            "step": [of_workload[k] for k in keys],
            "start": times["start"].to_numpy(dtype=float, na_value=np.nan),
            "end": times["end"].to_numpy(dtype=float, na_value=np.nan),
        }
    )
    return steps.groupby("step", as_index=False).agg(start=("start", "min"), end=("end", "max"))


def timed_links(
    index: IRIndex, timeline: pd.DataFrame, model: str, routed: Callable[[], pd.DataFrame]
) -> LinkLoads | None:
    """The routed traffic of a file with a mesh (`routed` gives noc.noc_links rows), timed under `model`;
    None without xlen/ylen."""
    xlen, ylen = index.ir.xlen, index.ir.ylen
    if xlen is None or ylen is None:
        return None
    spans = step_spans(index, timeline, model)
    names = workload_steps(index)[1]
    # A step that cannot be scheduled (a wait cycle) has no span: NaN start and end.
    start, end = np.full(len(names), np.nan), np.full(len(names), np.nan)
    scheduled = spans["step"].to_numpy(np.int64)
    start[scheduled], end[scheduled] = spans["start"].to_numpy(float), spans["end"].to_numpy(float)
    core = noc_transfers(index)["core"].merge(spans, on="step", how="left")
    return LinkLoads(routed, start, end, core, xlen, schedule_span(timeline, model), names)


def schedule_span(timeline: pd.DataFrame, model: str) -> Window:
    """[0, the makespan] under `model` (or the last end when some workloads cannot be scheduled)."""
    ends = timeline.loc[timeline["model"] == model, "end"]
    return (0.0, float(ends.max()) if ends.notna().any() else 0.0)


def in_window(start: np.ndarray, end: np.ndarray, window: Window | None) -> np.ndarray:
    """Share of each [start, end) that lies in `window` (1 everywhere without one).

    A zero-length span counts whole when it lies inside the window; a missing span (NaN: a step
    that cannot be scheduled) counts only without a window.
    """
    if window is None:
        return np.ones(len(start))
    lo, hi = window
    overlap = np.clip(np.minimum(end, hi) - np.maximum(start, lo), 0, None)
    length = end - start
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(length > 0, overlap / length, ((start >= lo) & (start < hi)).astype(float))
    return np.nan_to_num(share, nan=0.0)


def noc_links_table(
    loads: LinkLoads | None,
    bandwidth: int | None,
    frequency: float,
    window: Window | None = None,
    rows: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per directed link that carries bytes (in `window`, or over the whole schedule), heaviest first.

    `bandwidth` is bytes per NoC cycle per directed link (Gemini's NoC bandwidth); with it each link's
    busy cycles (bytes / bandwidth) and busy share of the window (or of the makespan), in the IR's time
    unit (`busy_share`). `rows`: the routed rows that can load `window` (`window_rows`), in the rows' order;
    all of them by default.
    """
    if loads is None:
        return NOC_LINKS.empty()
    rows = loads.rows if rows is None else rows
    if rows.empty:
        return NOC_LINKS.empty()
    share = rows["bytes"].to_numpy(float) * in_window(*loads.spans(rows), window)
    kept = share > 0  # before any copy: a window keeps a few of a large file's millions of rows
    rows = rows[kept].assign(share_bytes=share[kept])
    if rows.empty:
        return NOC_LINKS.empty()
    keys = ["x", "y", "direction", "to_x", "to_y"]
    by_kind = rows.pivot_table(
        index=keys, columns="kind", values="share_bytes", aggfunc="sum", fill_value=0.0, observed=True
    )
    transfers = rows.drop_duplicates([*keys, "kind", "transfer"]).groupby(keys, observed=True).size()
    table = by_kind.reindex(columns=["core", "dram_read", "dram_write"], fill_value=0.0)
    table["bytes"] = table.sum(axis=1)
    table["transfers"] = transfers
    table = table.reset_index()
    length = (window[1] - window[0]) if window is not None else loads.span[1] - loads.span[0]
    busy = table["bytes"] / bandwidth if bandwidth else pd.Series(np.nan, index=table.index)
    out = {
        "link": [
            link_label(int(x), int(y), int(tx), int(ty), loads.xlen)
            for x, y, tx, ty in zip(table["x"], table["y"], table["to_x"], table["to_y"], strict=True)
        ],
        "x": table["x"],
        "y": table["y"],
        "direction": table["direction"].astype(str),
        "to_x": table["to_x"],
        "to_y": table["to_y"],
        "bytes": table["bytes"].round().astype("int64"),
        "core_bytes": table["core"].round().astype("int64"),
        "dram_read_bytes": table["dram_read"].round().astype("int64"),
        "dram_write_bytes": table["dram_write"].round().astype("int64"),
        "transfers": table["transfers"].astype("int64"),
        "busy_cycles": busy.round() if bandwidth else busy,
        "busy_share": busy_share(busy, frequency, length),  # NaN without a bandwidth, as `busy` is
    }
    frame = NOC_LINKS.frame({k: list(v) for k, v in out.items()})
    return frame.sort_values(["bytes", "link"], ascending=[False, True], kind="stable").reset_index(drop=True)


def _window_rows_reference(
    index: IRIndex, routed: list[KindRuns], loads: LinkLoads, window: Window | None
) -> pd.DataFrame:
    return loads.rows


@fast_path(reference=_window_rows_reference)
def window_rows(
    index: IRIndex, routed: list[KindRuns], loads: LinkLoads, window: Window | None
) -> pd.DataFrame:
    """The routed rows (noc.noc_links) of the layer steps whose span overlaps `window`, in the rows' order:
    only their runs are expanded (a window of a 64-core file holds a few of its millions of rows). Summed
    in that order, a window's links are the reference's to the last bit (`noc_links_table`)."""
    steps = in_window(loads.step_start, loads.step_end, window) > 0
    return noc_links(index, [kind_runs.take(steps[kind_runs.step]) for kind_runs in routed])


@dataclass(frozen=True, slots=True)
class LinkSums:
    """The routed traffic summed per loaded directed link over the whole schedule (`link_sums`): the same
    under every timing model, which only scales the busy share."""

    ends: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    """x, y, to_x, to_y and direction code of each link (LinkGrid.ends)."""
    by_kind: np.ndarray
    """Bytes per link (rows) and traffic kind (columns, in KINDS' order)."""
    transfers: np.ndarray
    """Distinct transfers crossing each link."""


def link_sums(routed: list[KindRuns]) -> LinkSums | None:
    """The routed runs (noc.noc_runs) summed per link; None when they load no link. With `links_frame`, the
    whole schedule's noc_links table: equal to `noc_links_table` without a window (every row counts whole
    there), but with no row per link and transfer. Each run adds its
    bytes to an interval of positions along its line (a difference array, summed once), and the distinct
    transfers per link come from each transfer's runs merged into disjoint intervals per line. Linear in
    runs, not in hops."""
    parts = []
    for routed_kind in routed:
        runs = routed_kind.runs
        # A run of no link (a tree with no destination west of its source, say) or of no bytes loads
        # nothing: left out before its spans are computed (in int64: most of a DRAM read's runs have no
        # bytes, and their spans were this function's peak), which are kept as narrow as they fit.
        keep = (runs.count > 0) & (runs.size > 0)
        if not keep.all():
            runs = runs.take(keep)
        spans = tuple(map(narrowed, line_spans(runs)))
        kind = np.full(len(runs.count), KINDS.index(routed_kind.kind), dtype=np.int8)
        parts.append((kind, *spans, runs.size, runs.transfer))
    if not any(len(part[0]) for part in parts):
        return None
    kind, code, line, lo, hi, size, transfer = (np.concatenate(column) for column in zip(*parts, strict=True))
    # Millions of runs on a 64-core file: the per-kind copies and the spans, once the link ids are
    # known, are dropped before the sums (they held half of this function's peak).
    del parts
    grid = LinkGrid.of(line, lo, hi)
    start, stop = grid.interval(code, line, lo, hi)
    del code, line, lo, hi
    by_kind = np.stack(
        [
            _interval_sums(start[kind == k], stop[kind == k], size[kind == k], grid.size)
            for k in range(len(KINDS))
        ],
        axis=1,
    )
    first, last = _disjoint_per_group(kind, transfer, start, stop)
    transfers = _interval_sums(first, last, np.ones(len(first), np.int64), grid.size)
    used = np.flatnonzero(transfers)
    return LinkSums(grid.ends(used), by_kind[used], transfers[used])


def links_frame(
    sums: LinkSums | None, bandwidth: int | None, frequency: float, span: Window, xlen: int
) -> pd.DataFrame:
    """The noc_links table of `sums` for a schedule of `span`, heaviest link first."""
    if sums is None:
        return NOC_LINKS.empty()
    lx, ly, tx, ty, code = sums.ends
    by_kind, transfers = sums.by_kind, sums.transfers
    total = by_kind.sum(axis=1)
    length = span[1] - span[0]
    busy = total / bandwidth if bandwidth else np.full(len(total), np.nan)
    out = {
        "link": [
            link_label(int(a), int(b), int(c), int(d), xlen)
            for a, b, c, d in zip(lx, ly, tx, ty, strict=True)
        ],
        "x": lx,
        "y": ly,
        "direction": np.array(DIRECTIONS, dtype=object)[code],
        "to_x": tx,
        "to_y": ty,
        "bytes": np.round(total).astype(np.int64),
        "core_bytes": np.round(by_kind[:, 0]).astype(np.int64),
        "dram_read_bytes": np.round(by_kind[:, 1]).astype(np.int64),
        "dram_write_bytes": np.round(by_kind[:, 2]).astype(np.int64),
        "transfers": transfers.astype(np.int64),
        "busy_cycles": np.round(busy) if bandwidth else busy,
        "busy_share": busy_share(busy, frequency, length),  # NaN without a bandwidth, as `busy` is
    }
    frame = NOC_LINKS.frame({k: list(v) for k, v in out.items()})
    return frame.sort_values(["bytes", "link"], ascending=[False, True], kind="stable").reset_index(drop=True)


def busy_share(busy_cycles: ArrayT, frequency: float, length: float) -> ArrayT:
    """The share of a span of `length` IR cycles that links are busy `busy_cycles` NoC cycles: Gemini's
    NoC time in the IR's unit is the NoC cycles over its `frequency` (docs/noc.md), so a link moves
    bandwidth x frequency bytes per IR cycle, as the noc model and the counter track have it. NaN for
    an empty span."""
    if not length > 0:
        return busy_cycles * np.nan
    return busy_cycles / frequency / length


def _interval_sums(start: np.ndarray, stop: np.ndarray, value: np.ndarray, size: int) -> np.ndarray:
    """value[i] added to every position start[i] .. stop[i]-1 of a flat array of `size` positions."""
    diff = np.bincount(start, weights=value, minlength=size + 1) - np.bincount(
        stop, weights=value, minlength=size + 1
    )
    return np.cumsum(diff[:size]).round().astype(np.int64)


def _disjoint_per_group(
    kind: np.ndarray, transfer: np.ndarray, start: np.ndarray, stop: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The intervals [start, stop) of each (kind, transfer) made disjoint (a part already covered by an
    earlier interval of the group is cut off), so that counting them counts each group once per position.
    Intervals of different lines never meet: positions are flat over lines."""
    span = int(stop.max()) + 1
    low = int(transfer.min())
    # Millions of runs on a 64-core file: each column is computed in place, one copy at a time.
    if (int(transfer.max()) - low + 1) * len(KINDS) * span < 2**62:
        group = transfer.astype(np.int64)  # ids are small: no hashing needed
        group -= low
    else:
        group = pd.factorize(transfer)[0].astype(np.int64, copy=False)
    group *= len(KINDS)
    group += kind
    # One int64 key sorts by group, then start (positions are below `span`): cheaper than a lexsort.
    key = group * span
    key += start
    order = np.argsort(key)
    del key
    group, start, stop = group[order], start[order], stop[order]
    del order
    first = max_before(stop, group, 0)  # the furthest stop of the group's earlier intervals
    del group
    np.maximum(start, first, out=first)
    keep = first < stop
    return first[keep], stop[keep]


def crossing(
    loads: LinkLoads, routed: list[KindRuns], link: tuple[int, int, int, int], window: Window | None = None
) -> pd.DataFrame:
    """The transfers that cross one directed link (x, y, to_x, to_y), heaviest first: kind, transfer,
    step, layer (the step's layer, `name #k` for its k-th run), start, end, bytes (in `window`).
    `routed`: the routed runs (noc.noc_runs) `loads` times."""
    mine = rows_on(routed, loads, link)[["kind", "transfer", "step", "bytes"]]
    mine = mine.astype({"transfer": "int64", "step": "int64", "bytes": "int64"})
    start, end = loads.spans(mine)
    weight = in_window(start, end, window)
    mine = mine.assign(
        start=start, end=end, bytes=(mine["bytes"].to_numpy(float) * weight).round().astype("int64")
    )
    mine = mine[mine["bytes"] > 0]
    grouped = mine.groupby(["kind", "transfer", "step"], as_index=False, observed=True).agg(
        start=("start", "first"), end=("end", "first"), bytes=("bytes", "sum")
    )
    grouped.insert(
        3, "layer", [f"{loads.steps[s][0]} #{loads.steps[s][1]}" for s in grouped["step"].astype(int)]
    )
    return grouped.sort_values(["bytes", "transfer"], ascending=[False, True]).reset_index(drop=True)


def _rows_on_reference(
    routed: list[KindRuns], loads: LinkLoads, link: tuple[int, int, int, int]
) -> pd.DataFrame:
    rows = loads.rows
    x, y, tx, ty = link
    return rows[(rows["x"] == x) & (rows["y"] == y) & (rows["to_x"] == tx) & (rows["to_y"] == ty)]


@fast_path(reference=_rows_on_reference)
def rows_on(routed: list[KindRuns], loads: LinkLoads, link: tuple[int, int, int, int]) -> pd.DataFrame:
    """The routed rows (noc.noc_links) on directed `link`, in the rows' order: kind, transfer, step, bytes.
    A run loads each link of its interval once, so the runs through the link are its rows: no row of
    another link is made."""
    x, y, tx, ty = link
    direction = np.flatnonzero((STEP_X == tx - x) & (STEP_Y == ty - y))  # none: not one hop, no link
    frames = []
    for kind_runs in routed if len(direction) else []:
        code, line, lo, hi = line_spans(kind_runs.runs)
        along_x = (code == 0) | (code == 2)
        position = np.where(along_x, x, y)
        on = (code == direction[0]) & (line == np.where(along_x, y, x)) & (lo <= position) & (position <= hi)
        on &= kind_runs.runs.count > 0
        frames.append(
            pd.DataFrame(
                {
                    "kind": pd.Categorical.from_codes(
                        np.full(int(on.sum()), KINDS.index(kind_runs.kind)), KINDS
                    ),
                    "transfer": kind_runs.runs.transfer[on].astype(np.int64, copy=False),
                    "step": kind_runs.step[on].astype(np.int64, copy=False),
                    "bytes": kind_runs.runs.size[on].astype(np.int64, copy=False),
                }
            )
        )
    if not frames:
        empty = np.zeros(0, np.int64)
        return pd.DataFrame(
            {"kind": pd.Categorical([], KINDS), "transfer": empty, "step": empty, "bytes": empty}
        )
    return pd.concat(frames, ignore_index=True)


def crossing_ends(
    transfers: dict[str, pd.DataFrame], link: tuple[int, int, int, int], rows: pd.DataFrame
) -> pd.DataFrame:
    """`rows` (crossing's) with `source` and `reached`: where each transfer comes from and the destinations
    it reaches through this link, under Gemini's XY routing (along the source row, then down or up each
    destination column). `transfers` is noc.noc_transfers; DRAM reads come from the ports, writes go to them.
    """
    x, y, tx, ty = link
    horizontal = ty == y

    def through(src_x: int, src_y: int, dst_x: np.ndarray, dst_y: np.ndarray) -> np.ndarray:
        if horizontal:  # on the source row, towards the destinations' columns
            if src_y != y:
                return np.zeros(len(dst_x), bool)
            return np.asarray(dst_x >= tx if tx > x else dst_x <= tx, dtype=bool)
        # in the destination's own column, from the source row towards the destination's
        onward = (dst_y >= ty) & (src_y <= y) if ty > y else (dst_y <= ty) & (src_y >= y)
        return np.asarray((dst_x == x) & onward, dtype=bool)

    def reached(frame: pd.DataFrame, src: tuple[int, int] | None) -> str:
        if frame.empty:
            return ""
        dx, dy = frame["dst_x"].to_numpy(), frame["dst_y"].to_numpy()
        # From DRAM every row has a port, each with a tree of its share: one of them starts on this row.
        keep = through(*(src or (x, y)), dx, dy)
        cells = sorted({f"({a},{b})" for a, b in zip(dx[keep], dy[keep], strict=True)})
        return ", ".join(cells[:4]) + (f" and {len(cells) - 4} more" if len(cells) > 4 else "")

    core = transfers.get("core", pd.DataFrame())
    reads = transfers.get("dram_read", pd.DataFrame())
    writes = transfers.get("dram_write", pd.DataFrame())
    sources, targets = [], []
    for kind, transfer, step in zip(rows["kind"], rows["transfer"], rows["step"], strict=True):
        if kind == "core":
            mine = core[(core["transfer"] == transfer) & (core["step"] == step)]
            src = (int(mine["src_x"].iloc[0]), int(mine["src_y"].iloc[0])) if len(mine) else None
            sources.append(f"({src[0]},{src[1]})" if src else "")
            targets.append(reached(mine, src) if src else "")
        elif kind == "dram_read":
            mine = reads[(reads["transfer"] == transfer) & (reads["step"] == step)]
            sources.append("DRAM")
            targets.append(reached(mine, None))
        else:
            mine = writes[(writes["transfer"] == transfer) & (writes["step"] == step)]
            sources.append(
                f"({int(mine['src_x'].iloc[0])},{int(mine['src_y'].iloc[0])})" if len(mine) else ""
            )
            targets.append("DRAM")
    return rows.assign(source=sources, reached=targets)
