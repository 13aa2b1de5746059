"""Counters over time, as trace viewers draw them under the slices: L2 held by a core, bytes per cycle on
a link, and every link's load per time bin (the link x time heatmap).

A workload's L2 snapshot is what its core holds while it runs; a layer step's bytes on a link are spread
evenly over the step's span (irtools.analysis.link_load), so a link's rate is a step function: the sum
of the rates of the steps running. All of it is computed from columns with sorts and prefix sums.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irtools.analysis.core_time import placed_rows
from irtools.analysis.link_grid import step_link_sums
from irtools.analysis.link_load import LinkLoads, Window
from irtools.analysis.noc import KindRuns, routed_steps
from irtools.analysis.routing import link_label
from irtools.reference import fast_path

Link = tuple[int, int, int, int]
"""A directed link: x, y, to_x, to_y (x = -1 / xlen: a DRAM port)."""


def l2_counter(timeline: pd.DataFrame, held: pd.DataFrame, model: str, core_id: int) -> pd.DataFrame:
    """The L2 a core holds over time under `model`: cycle, held_bytes; each workload's snapshot from its
    start, and a last point at the core's last end (draw with a step shape: `hv`)."""
    times = placed_rows(timeline, model)
    mine = times[times["core_id"] == core_id].sort_values("start")
    sizes = held[held["core_id"] == core_id].set_index("position")["held_bytes"]
    values = sizes.reindex(mine["position"].to_numpy()).to_numpy(dtype=float, na_value=np.nan)
    if mine.empty:
        return pd.DataFrame({"cycle": [], "held_bytes": []})
    cycles = np.append(mine["start"].to_numpy(dtype=float), float(mine["end"].max()))
    return pd.DataFrame({"cycle": cycles, "held_bytes": np.append(values, values[-1])})


_SIDE = 1 << 12
"""Link ends are packed into one int64 key: each coordinate + 1 (DRAM ports sit at -1) in 12 bits."""


def link_steps(loads: LinkLoads) -> pd.DataFrame:
    """Bytes per (directed link, layer step) with the step's span: `link` (one int64 key per link),
    bytes, start, end, by link and step. The routed rows summed, since every row of a step shares its
    span (far fewer rows than transfers x links). The reference of `run_link_steps`."""
    rows = loads.rows
    start, end = loads.spans(rows)
    keep = (rows["bytes"].to_numpy() > 0) & ~np.isnan(start)
    rows, start, end = rows[keep], start[keep], end[keep]
    frame = pd.DataFrame(
        {
            "link": _link_keys(*(rows[c].to_numpy(np.int64) for c in ("x", "y", "to_x", "to_y"))),
            "step": rows["step"].to_numpy(np.int64),
            "bytes": rows["bytes"].to_numpy(np.int64),
            "start": start,
            "end": end,
        }
    )
    return frame.groupby(["link", "step"], as_index=False).agg(
        bytes=("bytes", "sum"), start=("start", "first"), end=("end", "first")
    )


def _link_keys(x: np.ndarray, y: np.ndarray, to_x: np.ndarray, to_y: np.ndarray) -> np.ndarray:
    """Each link's ends packed into one int64 (each coordinate + 1 in 12 bits)."""
    key = np.zeros(len(x), dtype=np.int64)
    for column in (x, y, to_x, to_y):
        key = key * _SIDE + column + 1
    return key


def _link_steps_reference(routed: list[KindRuns], loads: LinkLoads) -> pd.DataFrame:
    return link_steps(loads)


@fast_path(reference=_link_steps_reference)
def run_link_steps(routed: list[KindRuns], loads: LinkLoads) -> pd.DataFrame:
    """`link_steps` from the routed runs (noc.noc_runs), without a row per link and transfer.

    The runs' bytes are summed per (step, link) over intervals of link ids (link_grid.step_link_sums);
    only the links a step loads are written out. Linear in runs and in the (link, step) pairs loaded,
    whatever the mesh's size.
    """
    return timed_link_steps(run_link_step_sums(routed, loads.xlen), loads)


def run_link_step_sums(routed: list[KindRuns], xlen: int) -> pd.DataFrame:
    """Bytes per (directed link, layer step) of every step (link, step, bytes; by link, then step): what
    `run_link_steps` times, the same under every timing model. The runs' bytes are summed per (step,
    link) over intervals of link ids (link_grid.step_link_sums); only the links a step loads are written."""
    runs = routed_steps(routed, np.zeros(0, dtype=np.int64), xlen, with_bytes=True)  # no bytes, no load
    if not len(runs.step):
        return _no_link_steps()[["link", "step", "bytes"]]
    grid, ids, steps, sizes = step_link_sums(runs.step, runs.code, runs.line, runs.lo, runs.hi, runs.size)
    x, y, to_x, to_y, _ = grid.ends(ids)
    frame = pd.DataFrame({"link": _link_keys(x, y, to_x, to_y), "step": steps, "bytes": sizes})
    return frame.sort_values(["link", "step"], kind="stable").reset_index(drop=True)


def timed_link_steps(sums: pd.DataFrame, loads: LinkLoads) -> pd.DataFrame:
    """`run_link_step_sums` under the timing model of `loads`: each step's span as start and end, and
    the steps that cannot be scheduled (a wait cycle: no span, NaN) left out, as the rows' NaN start is."""
    steps = sums["step"].to_numpy(np.int64)
    kept = sums[~np.isnan(loads.step_start[steps])]
    if kept.empty:
        return _no_link_steps()
    steps = kept["step"].to_numpy(np.int64)
    timed = kept.assign(start=loads.step_start[steps], end=loads.step_end[steps])
    return timed.reset_index(drop=True)


def _no_link_steps() -> pd.DataFrame:
    empty = np.zeros(0, np.int64)
    return pd.DataFrame(
        {"link": empty, "step": empty, "bytes": empty, "start": empty * 0.0, "end": empty * 0.0}
    )


def _unpack(key: int) -> Link:
    ends = []
    for _ in range(4):
        key, part = divmod(key, _SIDE)
        ends.append(part - 1)
    x, y, tx, ty = reversed(ends)
    return x, y, tx, ty


def link_rate(link_steps: pd.DataFrame, link: Link) -> pd.DataFrame:
    """Bytes per cycle on one directed link over time: cycle, bytes_per_cycle (a step function, `hv`),
    each step's bytes spread evenly over its span. `link_steps`: the `link_steps` table."""
    key = int(_link_keys(*(np.array([v], dtype=np.int64) for v in link))[0])
    steps = link_steps[link_steps["link"].to_numpy() == key]  # by step: the table's order
    if steps.empty:
        return pd.DataFrame({"cycle": [], "bytes_per_cycle": []})
    start = steps["start"].to_numpy(float)
    end = steps["end"].to_numpy(float)
    length = np.maximum(end - start, 1.0)  # a zero-length step puts its bytes on one cycle
    rate = steps["bytes"].to_numpy(float) / length
    end = start + length
    times = np.concatenate([start, end])
    change = np.concatenate([rate, -rate])
    order = np.argsort(times, kind="stable")
    times, level = times[order], np.cumsum(change[order])
    # Several changes at one cycle: the level after the last of them.
    last = np.append(times[1:] != times[:-1], True)
    level = np.where(np.abs(level[last]) < 1e-9, 0.0, level[last])
    cycles = times[last]
    if len(cycles) and cycles[0] > 0:  # idle from cycle 0 until the first step
        cycles, level = np.append(0.0, cycles), np.append(0.0, level)
    return pd.DataFrame({"cycle": cycles, "bytes_per_cycle": level})


@dataclass(frozen=True, slots=True)
class LinkHeat:
    """Every loaded link's bytes per cycle in each time bin: `rate[i, j]` for link `labels[i]`, bin j."""

    labels: list[str]
    links: list[Link]
    edges: np.ndarray
    """Bin edges in cycles (len(bins) + 1)."""
    rate: np.ndarray
    """Bytes per cycle, links x bins."""
    total: np.ndarray
    """Bytes per link over the window, the rows' order (heaviest first)."""


def link_heat(
    loads: LinkLoads, bins: int, window: Window | None = None, steps: pd.DataFrame | None = None
) -> LinkHeat:
    """Each link's mean bytes per cycle in `bins` equal bins of `window` (the schedule without one), links
    heaviest first. The bytes in a bin are the integral of the link's rate: with every step's rate as a
    +rate event at its start and a -rate one at its end, sorted per link, the integral up to t is
    t * (sum of rates started) - (sum of rate x time started), read at the bin edges by one searchsorted.
    `steps` is link_steps(loads) when the caller keeps it (it sums every routed row)."""
    lo, hi = window or loads.span
    edges = np.linspace(lo, max(hi, lo + 1.0), bins + 1)
    steps = link_steps(loads) if steps is None else steps
    if steps.empty:
        return LinkHeat([], [], edges, np.zeros((0, bins)), np.zeros(0))
    uniques, codes = np.unique(steps["link"].to_numpy(np.int64), return_inverse=True)
    start = steps["start"].to_numpy(float)
    length = np.maximum(steps["end"].to_numpy(float) - start, 1.0)
    rate = steps["bytes"].to_numpy(float) / length
    times = np.concatenate([start, start + length])
    change = np.concatenate([rate, -rate])
    link = np.concatenate([codes, codes])
    # One sorted axis for all links: link k's events lie in [k * scale, (k + 1) * scale).
    base = min(float(times.min()), lo)
    scale = max(float(times.max()), hi) - base + 1.0
    key = link * scale + (times - base)
    order = np.argsort(key, kind="stable")
    key, change, times = key[order], change[order], times[order]
    rates = np.concatenate([[0.0], np.cumsum(change)])
    moments = np.concatenate([[0.0], np.cumsum(change * times)])
    n = len(uniques)
    query = np.arange(n)[:, None] * scale + (edges[None, :] - base)
    # Events at or before each edge; the link's own events only (earlier links' rates sum to zero).
    at = np.searchsorted(key, query.ravel(), side="right").reshape(n, len(edges))
    first = np.searchsorted(key, np.arange(n) * scale, side="left")
    started = rates[at] - rates[first][:, None]
    moment = moments[at] - moments[first][:, None]
    integral = edges[None, :] * started - moment
    per_bin = np.clip(np.diff(integral, axis=1), 0.0, None)
    width = np.diff(edges)
    total = per_bin.sum(axis=1)
    every = [_unpack(int(k)) for k in uniques]
    names = [link_label(*lk, loads.xlen) for lk in every]
    # Heaviest first, ties by label: the noc_links table's order (a few hundred links: a Python sort).
    heaviest = np.array(sorted(range(n), key=lambda i: (-round(total[i]), names[i])), dtype=np.int64)
    return LinkHeat(
        labels=[names[i] for i in heaviest],
        links=[every[i] for i in heaviest],
        edges=edges,
        rate=per_bin[heaviest] / width[None, :],
        total=total[heaviest],
    )


def parse_link_label(label: str, xlen: int) -> Link | None:
    """The link a `link_label` names (`(0,1)->(1,1)`, `DRAM W0->(0,0)`, `(3,2)->DRAM E2`), or None."""

    def end(text: str) -> tuple[int, int] | None:
        text = text.strip()
        if text.startswith("DRAM W") and text[6:].isdigit():
            return -1, int(text[6:])
        if text.startswith("DRAM E") and text[6:].isdigit():
            return xlen, int(text[6:])
        if text.startswith("(") and text.endswith(")"):
            parts = text[1:-1].split(",")
            if len(parts) == 2 and all(p.strip().lstrip("-").isdigit() for p in parts):
                return int(parts[0]), int(parts[1])
        return None

    if "->" not in label:
        return None
    a, b = (end(t) for t in label.split("->", 1))
    return None if a is None or b is None else (a[0], a[1], b[0], b[1])


def link_capacity(bandwidth: int, frequency: float) -> float:
    """Bytes a link moves per cycle of the IR's time under the noc model: Gemini's NoC time of B bytes
    is ceil(B / bandwidth) / frequency (irtools.analysis.noc.NocModel.link_time)."""
    return bandwidth * frequency
