"""A few headline numbers of one analysis: makespans, peak L2 per core, DRAM bytes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from irtools.analysis.analysis import Analysis
from irtools.analysis.blocks import KIB
from irtools.analysis.timeline import MODELS
from irtools.dialects import BY_NAME, DOCUMENTED, Capability
from irtools.loading.mesh import LINEAR, MESH, core_label


@dataclass(frozen=True, slots=True)
class Summary:
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
    """The file's dialect (irtools.dialects): "documented", "raw" (peak_l2 counts 1 KiB blocks) or "alloc"."""
    core_labels: dict[int, str] = field(default_factory=dict)
    """Core -> "id (x,y)", its mesh position under the file's numbering."""
    numbering: str = LINEAR

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["peak_l2"] = {str(k): v for k, v in self.peak_l2.items()}
        data["peak_wl0"] = {str(k): v for k, v in self.peak_wl0.items()}
        data["core_labels"] = {str(k): v for k, v in self.core_labels.items()}
        return data

    def render(self) -> str:
        """Human-readable lines for the terminal."""
        size = _size(self.buffersize) if self.buffersize else "size unknown"
        lines = [f"{self.path}: {self.cores} cores, {self.workloads} workloads, L2 {size}"]
        if self.dialect != DOCUMENTED.name:
            lines.append(f"  {self.dialect} dialect: {BY_NAME[self.dialect].title}")
        if self.numbering == MESH:
            cores = ", ".join(self.core_labels[c] for c in sorted(self.core_labels))
            lines.append(f"  cores by mesh position y*(xlen+2)+x+1: {cores}")
        for model in MODELS:
            value = self.makespan[model]
            text = (
                f"{value:,} cycles"
                if value is not None
                else f"none ({self.unscheduled} workloads unschedulable)"
            )
            lines.append(f"  makespan ({model}): {text}")
        if self.peak_l2:
            peaks = ", ".join(
                f"{core}: {_size(b)}" + (f" ({b / self.buffersize:.0%})" if self.buffersize else "")
                for core, b in sorted(self.peak_l2.items())
            )
            lines.append(f"  peak L2 per core: {peaks}")
        if any(self.peak_wl0.values()):
            lines.append(
                "  peak WL0 per core: "
                + ", ".join(f"{c}: {_size(b)}" for c, b in sorted(self.peak_wl0.items()))
            )
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


def models_agree(analysis: Analysis) -> bool:
    """Whether both timing models start and end every workload at the same cycle (one core, or
    cores that never wait for each other): one timeline then shows both."""
    sequential, dependency = analysis.schedules["sequential"], analysis.schedules["dependency"]
    return sequential.start == dependency.start and sequential.end == dependency.end


def bottleneck_core(cores: pd.DataFrame, model: str) -> int | None:
    """The core busiest under `model` in the cores table (the lowest id on a tie); None without cores.

    Its busy time bounds the makespan from below: no schedule finishes before it is done.
    """
    rows = cores[cores["model"] == model]
    if rows.empty:
        return None
    return int(rows.sort_values(["busy", "core_id"], ascending=[False, True])["core_id"].iloc[0])


def _size(n: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def summarize(analysis: Analysis) -> Summary:
    """The headline numbers; reads the timeline, occupancy and traffic tables."""
    if not analysis.index.has(Capability.L2_ADDRESSES):  # the L2 held is known in blocks only
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
        makespan={model: analysis.makespan(model) for model in MODELS},
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
    )
