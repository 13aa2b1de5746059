"""The run summary of a trace joined to its IR, and how it reads on a terminal."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from irtools.trace.reader import DMA_QUEUES


@dataclass(frozen=True, slots=True)
class Wait:
    """One of the longest compute waits."""

    workload_id: int
    layer_name: str
    gap: int
    start: int
    critical_wait: str


@dataclass(frozen=True, slots=True)
class MeasuredSummary:
    """Estimated against measured, for one IR and its trace (times in the IR's `time` unit)."""

    trace: str
    instructions: int
    workloads: int
    measured_workloads: int
    estimated_makespan: int
    """Sum of `time` over core 0's workloads (its makespan under both IR timing models)."""
    measured_makespan: int
    compute_busy: int
    idle: int
    idle_share: float
    idle_with_dma_share: float
    """Share of the compute idle time during which some DMA queue (LD, LW, ST) was moving data."""
    dma_share: dict[str, float]
    """Queue -> busy / measured makespan."""
    idle_dma_share: dict[str, float]
    """Queue -> share of the compute idle time it was active."""
    slot_time_correlation: float | None
    """Pearson correlation of slot and estimated time over measured workloads."""
    tiles_by_construction: int
    tiles: int
    """Compute tiles whose duration is round(time / tiles) + 20, and all compute tiles."""
    top_waits: list[Wait] = field(default_factory=list)
    errors: int = 0
    warnings: int = 0

    @property
    def ratio(self) -> float | None:
        """measured_makespan / estimated_makespan; None when nothing was estimated."""
        return self.measured_makespan / self.estimated_makespan if self.estimated_makespan else None

    def to_dict(self) -> dict[str, Any]:
        """The summary as `analyze --json` writes it under `measured`, ratio included."""
        data = asdict(self)
        data["ratio"] = self.ratio
        return data

    def render(self) -> str:
        """Lines for the terminal, below the IR's own summary."""
        ratio = f" ({self.ratio:.2f}x)" if self.ratio else ""
        lines = [
            (
                f"  measured ({self.trace}): {self.instructions:,} instructions, "
                f"{self.measured_workloads} of {self.workloads} workloads of core 0 joined"
            ),
            (
                f"  makespan: estimated {self.estimated_makespan:,} (sum of time), measured "
                f"{self.measured_makespan:,}{ratio}"
            ),
            (
                f"  compute idle: {self.idle:,} ({self.idle_share:.1%} of the run); a DMA queue was "
                f"active in {self.idle_with_dma_share:.1%} of it"
            ),
            "  DMA busy share of the run: "
            + ", ".join(f"{q} {self.dma_share[q]:.1%}" for q in DMA_QUEUES)
            + "; during compute idle: "
            + ", ".join(f"{q} {self.idle_dma_share[q]:.1%}" for q in DMA_QUEUES),
        ]
        if self.slot_time_correlation is not None:
            lines.append(
                f"  correlation of slot (gap + busy) with estimated time: {self.slot_time_correlation:.3f}"
            )
        lines.append(
            f"  compute tiles lasting round(time / tiles) + 20: {self.tiles_by_construction} of {self.tiles} "
            "(durations reproduce the estimate by construction; the waits are what is measured)"
        )
        for n, wait in enumerate(self.top_waits, 1):
            cause = f", waiting on {wait.critical_wait}" if wait.critical_wait else ""
            lines.append(
                f"  wait {n}: {wait.gap:,} before workload {wait.workload_id} ({wait.layer_name}) "
                f"at {wait.start:,}{cause}"
            )
        if self.errors or self.warnings:
            lines.append(f"  trace findings: {self.errors} errors, {self.warnings} warnings")
        return "\n".join(lines) + "\n"
