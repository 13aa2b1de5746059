"""Gemini's batch groups: a layer run once per batch group shares its DRAM weights over the groups.

Where a segment runs its layers in G batch groups (the printout's `S 4/4`: 4 samples, 4 groups),
Gemini charges each group's layer with 1/G of the layer's DRAM weight traffic: `noc /= (wgt_bgrp /
num_batch)` in `StdLayerEngine::calcNoC` (src/layerengine.cpp of SET-Scheduling-Project/GEMINI-HPCA2024)
divides the link loads, hops and DRAM bytes of the weights fetched so far (integer division), before the
ifmaps and ofmaps are added; `Cut::construct` (src/schnode.cpp) then multiplies the segment's traffic by
its number of groups. The IR lists a weight's DRAM read only for the first group's workloads (later
groups reuse it), so charging it to that step alone makes the first group NoC-bound where Gemini's are
not (darknet19 4x4, batch 4, NoC 8: +9.3% on `T`).

Here a layer's groups are its steps (the k-th workload of the layer on each core; `noc.workload_steps`),
and each step carries its own ifmap and ofmap traffic plus the layer's weight loads, per link, divided
by the number of steps. The IR does not say which batch groups Gemini formed: the number of steps
stands for `wgt_bgrp / num_batch`, which it equals on every shared run. Weights that a layer reads from
another layer's ofmap (`wgt_B`, e.g. attention) are core traffic, not DRAM weights, and are not spread,
as in Gemini.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from irtools.analysis.link_grid import step_link_sums
from irtools.analysis.routing import DIRECTIONS
from irtools.loading.boxes import tensor_columns
from irtools.loading.index import IRIndex

LINK_KEYS = ["x", "y", "direction", "to_x", "to_y"]


@dataclass(frozen=True, slots=True)
class RoutedSteps:
    """The routed runs of one link or more (noc.routed_steps), as columns: each run's layer step, its
    links as a line span (routing.line_spans: code, line, lo..hi), its bytes per link and number of links,
    whether it carries a DRAM weight read, and how many of its links (0 or 1) leave or enter a DRAM port
    (where step_traffic counts a DRAM byte)."""

    step: np.ndarray
    code: np.ndarray
    line: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    size: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    dram: np.ndarray

    def take(self, keep: np.ndarray) -> RoutedSteps:
        """The runs `keep` (a mask) selects, in their order."""
        return RoutedSteps(*(getattr(self, f.name)[keep] for f in fields(self)))


def weight_transfers(index: IRIndex) -> np.ndarray:
    """Transfer ids that some workload reads as its weight (sorted, unique)."""
    read = tensor_columns(index).weights.lists("transfer_id")
    if read is not None:
        return np.unique(read[1])
    ids = [  # an id beyond int64, which the columns cannot hold: np.array raises here, as it always did
        t
        for ref in index.workloads()
        if ref.workload.weight is not None
        for t in ref.workload.weight.transfer_id
    ]
    return np.unique(np.array(ids, dtype=np.int64))


def layer_groups(steps: pd.DataFrame) -> pd.Series:
    """Per layer_name: its number of steps, the batch groups Gemini divides its weights by."""
    return steps.groupby("layer_name", sort=False)["step"].count()


def is_weight(links: pd.DataFrame, weights: np.ndarray) -> np.ndarray:
    """Rows of routed links (noc.noc_links) that carry a DRAM weight read."""
    weight: np.ndarray = ((links["kind"] == "dram_read") & links["transfer"].isin(weights)).to_numpy()
    return weight


def step_link_loads(links: pd.DataFrame, steps: pd.DataFrame, weights: np.ndarray) -> pd.DataFrame:
    """Bytes per (step, directed link), each layer's DRAM weight loads shared evenly by its steps.

    `links`: noc.noc_links rows; `steps`: step, layer_name (noc.workload_steps); `weights`: weight
    transfer ids. Per layer and link the weight bytes are summed, divided by the layer's number of steps
    (integer division, as Gemini's `HopCount::operator/=`) and put on every step of the layer. Columns:
    step, x, y, direction, to_x, to_y, bytes. The routed rows of a large file number millions: they are
    summed under one integer key per (step, link), and only the sums (thousands) become a frame.
    """
    codec = _LinkCodec.of(links)
    step = links["step"].to_numpy(dtype=np.int64)
    key = step * codec.size + codec.encode(links)
    size = links["bytes"].to_numpy(dtype=np.int64)
    loads = pd.Series(size).groupby(key).sum()
    weight = is_weight(links, weights)
    own = pd.Series(size[weight]).groupby(key[weight]).sum() if weight.any() else None
    return _weights_shared(loads, own, codec, steps)


def run_step_link_loads(routed: RoutedSteps, steps: pd.DataFrame) -> pd.DataFrame:
    """`step_link_loads` from the routed runs, without a row per link and transfer: the same frame."""
    if not len(routed.step):
        return _weights_shared(pd.Series([], dtype="int64"), None, _LinkCodec(0, 1, 0, 1), steps)
    x, y, code, step, size = _link_sums(routed)
    codec = _LinkCodec(
        int(x.min()), int(x.max()) - int(x.min()) + 1, int(y.min()), int(y.max()) - int(y.min()) + 1
    )
    loads = pd.Series(size, index=step * codec.size + codec.encode_ends(x, y, code)).sort_index()
    own = None
    if routed.weight.any():  # the weight reads' links are among all runs': the same codec holds them
        x, y, code, step, size = _link_sums(routed.take(routed.weight))
        own = pd.Series(size, index=step * codec.size + codec.encode_ends(x, y, code)).sort_index()
    return _weights_shared(loads, own, codec, steps)


def _link_sums(routed: RoutedSteps) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x, y, direction code, step and bytes of every (step, link) the runs cross (links crossed only by runs
    of no bytes too, with 0 bytes, as the rows' sums keep them)."""
    grid, ids, step, size = step_link_sums(
        routed.step, routed.code, routed.line, routed.lo, routed.hi, routed.size, idle=True
    )
    x, y, _, _, code = grid.ends(ids)
    return x, y, code, step, size


def _weights_shared(
    loads: pd.Series, own: pd.Series | None, codec: _LinkCodec, steps: pd.DataFrame
) -> pd.DataFrame:
    """The frame of step_link_loads from its bytes per (step, link) key (`loads`, sorted) and, when some
    link carries a DRAM weight read, the weight reads' own bytes per key (`own`)."""
    if own is not None:
        layer_codes, layer_names = pd.factorize(steps["layer_name"])
        layer_of_step = np.zeros(int(steps["step"].max()) + 1, dtype=np.int64)
        layer_of_step[steps["step"].to_numpy()] = layer_codes
        own_key = own.index.to_numpy()
        per_layer = own.groupby(
            layer_of_step[own_key // codec.size] * codec.size + own_key % codec.size
        ).sum()
        groups = layer_groups(steps).reindex(layer_names).to_numpy()
        layer = per_layer.index.to_numpy() // codec.size
        shared = pd.DataFrame(
            {
                "layer": layer,
                "link": per_layer.index.to_numpy() % codec.size,
                "bytes": per_layer.to_numpy() // groups[layer],
            }
        ).merge(pd.DataFrame({"layer": layer_codes, "step": steps["step"].to_numpy()}), on="layer")
        spread = pd.Series(
            shared["bytes"].to_numpy(),
            index=shared["step"].to_numpy() * codec.size + shared["link"].to_numpy(),
        )
        loads = pd.concat([loads, -own, spread]).groupby(level=0).sum()
        loads = loads[loads > 0]
    keys = loads.index.to_numpy()
    frame = codec.decode(keys % codec.size)
    frame.insert(0, "step", keys // codec.size)
    frame["bytes"] = loads.to_numpy()
    return frame


_DX = np.array([{"+x": 1, "-x": -1}.get(d, 0) for d in DIRECTIONS], dtype=np.int64)
_DY = np.array([{"+y": 1, "-y": -1}.get(d, 0) for d in DIRECTIONS], dtype=np.int64)
"""A link's step along x and y, by its direction's index in routing.DIRECTIONS."""


class _LinkCodec:
    """Directed links as integers: ((x - x0) * ny + (y - y0)) * 4 + direction (routing.DIRECTIONS order);
    a link's end follows from its start and direction."""

    def __init__(self, x0: int, nx: int, y0: int, ny: int) -> None:
        self.x0, self.nx, self.y0, self.ny = x0, nx, y0, ny
        self.size = nx * ny * len(DIRECTIONS)

    @classmethod
    def of(cls, links: pd.DataFrame) -> _LinkCodec:
        if links.empty:
            return cls(0, 1, 0, 1)
        x, y = links["x"], links["y"]
        return cls(
            int(x.min()), int(x.max()) - int(x.min()) + 1, int(y.min()), int(y.max()) - int(y.min()) + 1
        )

    def encode(self, links: pd.DataFrame) -> np.ndarray:
        direction = pd.Categorical(links["direction"], categories=DIRECTIONS).codes.astype(np.int64)
        x = links["x"].to_numpy(dtype=np.int64) - self.x0
        y = links["y"].to_numpy(dtype=np.int64) - self.y0
        code: np.ndarray = (x * self.ny + y) * len(DIRECTIONS) + direction
        return code

    def encode_ends(self, x: np.ndarray, y: np.ndarray, direction: np.ndarray) -> np.ndarray:
        """`encode` of links given by their start and direction code."""
        code: np.ndarray = ((x - self.x0) * self.ny + (y - self.y0)) * len(DIRECTIONS) + direction
        return code

    def decode(self, code: np.ndarray) -> pd.DataFrame:
        direction = code % len(DIRECTIONS)
        cell = code // len(DIRECTIONS)
        x, y = cell // self.ny + self.x0, cell % self.ny + self.y0
        dx, dy = _DX[direction], _DY[direction]
        return pd.DataFrame(
            {
                "x": x,
                "y": y,
                "direction": pd.Categorical.from_codes(direction, categories=DIRECTIONS),
                "to_x": x + dx,
                "to_y": y + dy,
            }
        )


def step_traffic(links: pd.DataFrame, steps: pd.DataFrame, weights: np.ndarray, xlen: int) -> pd.DataFrame:
    """Per step, what Gemini counts for its batch group: `hops` (bytes x hops, its NoC_tot_hops) and
    `dram_bytes` (its DRAM acc), each layer's DRAM weights shared evenly by its steps (integer division
    of the layer's totals, as `NoC::operator/=`). One row per step of `steps`, in its order.

    A DRAM read leaves its port column (x = -1 or xlen) once per port, on its first link; a DRAM write
    enters the port column once, on its last horizontal link: those links' bytes are the DRAM bytes
    (Gemini's `bytes // 4` per channel, as routed).
    """
    weight = is_weight(links, weights)
    x, to_x = links["x"].to_numpy(), links["to_x"].to_numpy()
    port = (x < 0) | (x >= xlen)
    to_port = (to_x < 0) | (to_x >= xlen)
    # Comparing the pandas string column keeps the kinds out of Python objects (millions of rows).
    read = (links["kind"] == "dram_read").to_numpy()
    write = (links["kind"] == "dram_write").to_numpy()
    dram = (read & port & ~to_port) | (write & to_port & ~port)
    size = links["bytes"].to_numpy(dtype=np.int64)
    return _traffic(links["step"].to_numpy(dtype=np.int64), weight, size, np.where(dram, size, 0), steps)


def run_step_traffic(routed: RoutedSteps, steps: pd.DataFrame) -> pd.DataFrame:
    """`step_traffic` from the routed runs, without a row per link and transfer: the same frame."""
    size = routed.size.astype(np.int64, copy=False)
    return _traffic(
        routed.step.astype(np.int64, copy=False),
        routed.weight,
        size * routed.count,
        size * routed.dram,
        steps,
    )


def _traffic(
    step: np.ndarray, weight: np.ndarray, hops: np.ndarray, dram: np.ndarray, steps: pd.DataFrame
) -> pd.DataFrame:
    """step_traffic's frame from per-row (or per-run) steps, weight flags, bytes x hops and DRAM bytes."""
    # One integer key per (step, weight or not): 2 * step + weight.
    key = step * 2 + weight
    sums = pd.DataFrame({"hops": hops, "dram_bytes": dram}).groupby(key).sum()
    n_steps = int(steps["step"].max()) + 1 if len(steps) else 0
    own = np.zeros((n_steps, 2), dtype=np.int64)
    shared = np.zeros((n_steps, 2), dtype=np.int64)
    keys = sums.index.to_numpy()
    values = sums[["hops", "dram_bytes"]].to_numpy(dtype=np.int64)
    own[keys[keys % 2 == 0] // 2] = values[keys % 2 == 0]
    shared[keys[keys % 2 == 1] // 2] = values[keys % 2 == 1]
    layer_codes, layer_names = pd.factorize(steps["layer_name"])
    step_ids = steps["step"].to_numpy()
    per_layer = np.zeros((len(layer_names), 2), dtype=np.int64)
    np.add.at(per_layer, layer_codes, shared[step_ids])
    groups = layer_groups(steps).reindex(layer_names).to_numpy(dtype=np.int64)
    spread = (per_layer // groups[:, None])[layer_codes]
    total = own[step_ids] + spread
    return pd.DataFrame({"step": step_ids, "hops": total[:, 0], "dram_bytes": total[:, 1]})
