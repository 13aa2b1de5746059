"""A few headline numbers of one analysis: makespans, peak L2 per core, DRAM bytes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from irtools.analysis.analysis import Analysis
from irtools.analysis.balance import Balance, balance, spread_text
from irtools.analysis.blocks import KIB
from irtools.analysis.noc import noc_headline
from irtools.analysis.units import format_bytes as _size
from irtools.dialects import BY_NAME, DOCUMENTED
from irtools.loading.mesh import LINEAR, MESH, core_label


@dataclass(frozen=True, slots=True)
class Summary:
    """What `irtools analyze` prints about one IR: sizes, makespans, the bottleneck core, peaks, DRAM
    bytes."""

    path: str
    cores: int
    workloads: int
    buffersize: int | None
    """None when the file's buffersize broke the schema."""
    makespan: dict[str, int | None]
    """Cycles per timing model; None when some workload cannot be scheduled."""
    unscheduled: int
    """Workloads the dependency model cannot place (in or behind a wait cycle)."""
    incomplete: int
    """Workloads that lost entries to schema errors."""
    peak_l2: dict[int, int] = field(default_factory=dict)
    """Core -> largest L2 snapshot total, in bytes."""
    peak_wl0: dict[int, int] = field(default_factory=dict)
    dram_read_weight: int = 0
    dram_read_fmap: int = 0
    dram_write: int = 0
    dialect: str = "documented"
    """The file's dialect (irtools.dialects), by name: "documented", "raw" (peak_l2 counts 1 KiB blocks), "alloc", or one registered later."""
    core_labels: dict[int, str] = field(default_factory=dict)
    """Core -> "id (x,y)", its mesh position under the file's numbering."""
    numbering: str = LINEAR
    noc: dict[str, Any] | None = None
    """With a NoC bandwidth: what the NoC adds and on which links (irtools.analysis.noc.noc_headline)."""
    balance: Balance | None = None
    """Busy cycles over the cores and whether one core is the bottleneck."""
    busiest_link: dict[str, Any] | None = None
    """The noc_links table's heaviest link: link, bytes, share of all link bytes, busy_share (with noc_bw)."""
    energy: dict[str, Any] | None = None
    """With a NoC bandwidth: Gemini's energy by term, the undetermined ones named (analysis.energy)."""

    def to_dict(self) -> dict[str, Any]:
        """The summary as `analyze --json` writes it (core ids as string keys; noc and energy only when
        computed)."""
        data = asdict(self)
        data["peak_l2"] = {str(k): v for k, v in self.peak_l2.items()}
        data["peak_wl0"] = {str(k): v for k, v in self.peak_wl0.items()}
        data["core_labels"] = {str(k): v for k, v in self.core_labels.items()}
        if self.noc is None:  # without a NoC bandwidth the JSON stays as it was
            del data["noc"]
        if self.energy is None:
            del data["energy"]
        return data

    def render(self) -> str:
        """Human-readable lines for the terminal."""
        size = _size(self.buffersize) if self.buffersize else "size unknown"
        lines = [f"{self.path}: {self.cores} cores, {self.workloads} workloads, L2 {size}"]
        if self.dialect != DOCUMENTED.name:
            lines.append(f"  {self.dialect} dialect: {BY_NAME[self.dialect].title}")
        if self.numbering == MESH:
            lines.append(f"  cores by mesh position y*(xlen+2)+x+1: {_mesh_ids(self.core_labels)}")
        for model, value in self.makespan.items():
            text = (
                f"{value:,} cycles"
                if value is not None
                else f"none ({self.unscheduled} workloads unschedulable)"
            )
            lines.append(f"  makespan ({model}): {text}")
        if self.noc is not None:
            lines.extend(_noc_lines(self.noc))
        if self.energy is not None:
            lines.append(_energy_line(self.energy))
        # Mesh ids name a position only with it; linear ids are their position already.
        labels = {
            c: self.core_labels.get(c, str(c)) if self.numbering == MESH else str(c) for c in self.core_labels
        }
        if self.balance is not None and self.balance.cores > 1:
            b = self.balance
            lines.append(
                f"  busy per core: min {b.busy_min:,}, median {b.busy_median:,.0f}, max {b.busy_max:,} cycles; "
                + b.text(f"core {labels.get(b.busiest, b.busiest)}")
            )
        if self.busiest_link is not None:
            lines.append(_busiest_link_line(self.busiest_link))
        if self.peak_l2:
            capacity = self.buffersize

            def share(b: int) -> str:
                return _size(b) + (f" ({b / capacity:.0%})" if capacity else "")

            lines.append(f"  peak L2 per core: {spread_text(self.peak_l2, labels, share)}")
        if any(self.peak_wl0.values()):
            lines.append(f"  peak WL0 per core: {spread_text(self.peak_wl0, labels, _size)}")
        lines.append(
            f"  DRAM: read {_size(self.dram_read_weight + self.dram_read_fmap)} "
            f"(weight {_size(self.dram_read_weight)}, fmap {_size(self.dram_read_fmap)}), "
            f"write {_size(self.dram_write)}"
        )
        if self.incomplete:
            lines.append(
                f"  {self.incomplete} workloads lost entries to schema errors (run `irtools validate`)"
            )
        return "\n".join(lines) + "\n"


LISTED_CORES = 8
"""Cores whose mesh position the text summary lists one by one; past that the first and last few."""


def _mesh_ids(labels: dict[int, str]) -> str:
    """`1 (0,0), 2 (1,0), 5 (0,1), 6 (1,0)`; on a large mesh the ends and where the rest is (one line, not 671
    characters on 64 cores)."""
    ordered = [labels[c] for c in sorted(labels)]
    if len(ordered) <= LISTED_CORES:
        return ", ".join(ordered)
    return (
        f"{', '.join(ordered[:3])} … {', '.join(ordered[-2:])} "
        f"({len(ordered)} cores; every one in --json's core_labels and the cores table)"
    )


def _busiest_link_line(link: dict[str, Any]) -> str:
    """`info: busiest NoC link DRAM E1->(3,1) carries 12.6 MiB (7.0% of all link bytes); busy 52% ...`."""
    line = (
        f"  info: busiest NoC link {link['link']} carries {_size(link['bytes'])} "
        f"({link['share']:.1%} of the bytes on all links, XY-routed as Gemini's NoC)"
    )
    if link["busy_share"] is None:
        return line + "; --noc-bw gives its busy share"
    return line + f"; busy {link['busy_share']:.0%} of the dependency makespan at {link['bandwidth']} B/cycle"


def busiest_link(analysis: Analysis) -> dict[str, Any] | None:
    """The heaviest row of the noc_links table as the summary shows it; None without NoC traffic."""
    table = analysis.noc_link_table
    if table.empty:
        return None
    top = table.iloc[0]
    busy = top["busy_share"]
    return {
        "link": str(top["link"]),
        "bytes": int(top["bytes"]),
        "share": float(top["bytes"]) / float(table["bytes"].sum()),
        "busy_share": None if pd.isna(busy) else float(busy),
        "bandwidth": analysis.options.noc_bw,
    }


def _energy_line(energy: dict[str, Any]) -> str:
    """`energy: 6.588e+08 pJ (NoC 6.588e+08, DRAM 0); not in the IR: NoP, MAC, buffers (layer_cost)`."""
    names = {"noc": "NoC", "nop": "NoP", "dram": "DRAM", "mac": "MAC", "buffers": "buffers"}
    known = ", ".join(f"{names[t]} {v:.4g}" for t, v in energy["terms"].items() if v is not None)
    missing = ", ".join(names[t] for t in energy["undetermined"])
    return f"  energy: {energy['total']:.4g} {energy['unit']} ({known}); not determined by the IR: {missing}"


def _noc_lines(noc: dict[str, Any]) -> list[str]:
    head = f"  NoC at {noc['bandwidth']} B/cycle per link: "
    if noc["added"] is None:
        return [head + "no makespan (unschedulable workloads)"]
    if noc["added"] <= 0:
        return [head + f"adds nothing (no layer is NoC-bound; {noc['layers']} layers)"]
    lines = [
        head + f"adds {noc['added']:,} cycles ({noc['added_fraction']:.1%} of the noc makespan); "
        f"{noc['bound_layers']} of {noc['layers']} layers NoC-bound"
    ]
    for link in noc["links"][:3]:
        names = link["layers"]
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        lines.append(f"    {link['link']}: +{link['added']:,} cycles ({shown})")
    if len(noc["links"]) > 3:
        lines.append(f"    … {len(noc['links']) - 3} more links (layers table: bound, noc_link, noc_added)")
    return lines


def models_agree(analysis: Analysis) -> bool:
    """Whether both timing models start and end every workload at the same cycle (one core, or
    cores that never wait for each other): one timeline then shows both."""
    sequential, dependency = analysis.schedules["sequential"], analysis.schedules["dependency"]
    return sequential.start == dependency.start and sequential.end == dependency.end


def summarize(analysis: Analysis, links: bool | None = None) -> Summary:
    """The headline numbers; reads the timeline, occupancy and traffic tables (and with `links` the
    routed NoC traffic, for the busiest link; default: when the options ask for it, RunOptions.routes_noc)."""
    if links is None:
        links = analysis.options.routes_noc
    if analysis.l2_held == "l2_blocks":  # the L2 held is known in blocks only
        l2 = analysis.l2_blocks.groupby("core_id")["held_kib"].max() * KIB
        capacity = analysis.l2_capacity_kib
        buffersize = capacity * KIB if capacity else None
    else:
        l2 = analysis.l2_occupancy.groupby("core_id")["total_bytes"].max()
        buffersize = analysis.buffersize
    index = analysis.index
    wl0 = analysis.wl0_occupancy.groupby("core_id")["total_bytes"].max()
    traffic = analysis.dram_traffic
    dependency = analysis.schedules["dependency"]
    return Summary(
        path=analysis.path,
        cores=len(analysis.index.cores),
        workloads=len(dependency.nodes),
        buffersize=buffersize,
        makespan={model: analysis.makespan(model) for model in analysis.models},
        unscheduled=sum(1 for s in dependency.start if s is None),
        incomplete=len(analysis.index.incomplete),
        peak_l2={int(k): int(v) for k, v in l2.items()},
        peak_wl0={int(k): int(v) for k, v in wl0.items()},
        dram_read_weight=int(traffic["read_weight_bytes"].sum()),
        dram_read_fmap=int(traffic["read_fmap_bytes"].sum()),
        dram_write=int(traffic["write_bytes"].sum()),
        dialect=analysis.loaded.dialect.name,
        core_labels={c: core_label(c, index.numbering, index.ir.xlen) for c in index.cores},
        numbering=index.numbering,
        balance=balance(analysis.cores),
        busiest_link=busiest_link(analysis) if links else None,
        noc=(
            noc_headline(
                analysis.layers, analysis.makespan("dependency"), analysis.makespan("noc"), analysis.noc_model
            )
            if analysis.noc_model
            else None
        ),
        energy=analysis.energy(),
    )
