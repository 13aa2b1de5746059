"""How evenly the work is spread over the cores: a bottleneck only when one core is measurably busier.

The busiest core bounds the makespan from below, but on a well balanced 64-core schedule every core is
"the busiest" within a fraction of a percent: calling one of them the bottleneck points at noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from statistics import median

import pandas as pd

BOTTLENECK_MARGIN = 0.05
"""The busiest core is the bottleneck when it is busy this much more than the median core."""
TOP_CORES = 3
"""Cores named in a summary line of many cores (the busiest, the fullest)."""
ALL_CORES_UP_TO = 8
"""Up to this many cores a summary line names every core; past it, min / median / max and the top few."""


@dataclass(frozen=True, slots=True)
class Balance:
    """Busy cycles over the cores (the sum of their workloads' time: the same under every timing model)."""

    cores: int
    busiest: int
    """The busiest core (the lowest id on a tie)."""
    busy_min: int
    busy_median: float
    busy_max: int
    margin: float
    """busy_max / busy_median - 1: how much busier the busiest core is than the median core."""

    @property
    def bottleneck(self) -> int | None:
        """The busiest core when it is BOTTLENECK_MARGIN busier than the median core, else None (balanced)."""
        return self.busiest if self.cores > 1 and self.margin >= BOTTLENECK_MARGIN else None

    def text(self, label: str) -> str:
        """One phrase: `core 6 is the bottleneck: busy 12% more than the median core`, or `balanced: ...`.

        `label` names the busiest core (`core 6 (1,0)`).
        """
        if self.cores < 2:
            return "one core"
        more = f"{self.margin:.0%}" if self.margin >= 0.1 else f"{self.margin * 100:.2g}%"
        if self.bottleneck is not None:
            return f"{label} is the bottleneck: busy {more} more than the median core"
        return (
            f"balanced: the busiest core, {label}, is busy {more} more than the median core "
            f"(a bottleneck from {BOTTLENECK_MARGIN:.0%})"
        )


def balance(cores: pd.DataFrame, model: str = "dependency") -> Balance | None:
    """The busy spread of the cores table under `model`; None without cores."""
    rows = cores[cores["model"] == model]
    if rows.empty:
        return None
    ordered = rows.sort_values(["busy", "core_id"], ascending=[False, True])
    busy = [int(b) for b in rows["busy"]]
    mid = float(median(busy))
    top = int(ordered["busy"].iloc[0])
    return Balance(
        cores=len(busy),
        busiest=int(ordered["core_id"].iloc[0]),
        busy_min=min(busy),
        busy_median=mid,
        busy_max=top,
        margin=top / mid - 1 if mid > 0 else (0.0 if top == 0 else float("inf")),
    )


def spread_text(values: dict[int, int], label: dict[int, str], show: Callable[[int], str]) -> str:
    """`min 1.0 MiB, median 2.0 MiB, max 3.1 MiB (top: 6 (1,0) 3.1 MiB, ...)` for many cores, else every pair.

    `show` formats one value; `label` names each core.
    """
    ordered = sorted(values.items())
    if len(ordered) <= ALL_CORES_UP_TO:
        return ", ".join(f"{label.get(c, c)}: {show(v)}" for c, v in ordered)
    numbers = sorted(v for _, v in ordered)
    top = sorted(ordered, key=lambda item: (-item[1], item[0]))[:TOP_CORES]
    return (
        f"min {show(numbers[0])}, median {show(int(median(numbers)))}, max {show(numbers[-1])} "
        f"over {len(numbers)} cores (top: " + ", ".join(f"{label.get(c, c)} {show(v)}" for c, v in top) + ")"
    )
