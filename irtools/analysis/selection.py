"""Rows of one core or one timing model: the filtering every front end asks for, written once."""

from __future__ import annotations

import pandas as pd


def of_core(table: pd.DataFrame, core_id: int) -> pd.DataFrame:
    """The rows of `table` (any table with a core_id column) about core `core_id`."""
    return table[table["core_id"] == core_id]


def cores_under(cores: pd.DataFrame, model: str) -> pd.DataFrame:
    """The `cores` table's rows for timing model `model`."""
    return cores[cores["model"] == model]


def model_makespan(timeline: pd.DataFrame, model: str) -> float | None:
    """The last end of `model` in the timeline table, or None when nothing is scheduled."""
    end = timeline.loc[timeline["model"] == model, "end"].max()
    return None if pd.isna(end) else float(end)


def cores_that_matter(busy: dict[int, int], peak_l2: dict[int, int], count: int) -> list[tuple[int, str]]:
    """Up to `count` cores worth a closer look, with why: the busiest and the highest L2 peaks, taken in turn
    (`busiest #1`, `L2 peak #1`, `busiest #2`...). With room for every core: all of them by id, no reason."""
    cores = sorted(set(busy) | set(peak_l2))
    if count >= len(cores):
        return [(c, "") for c in cores]
    by_busy = sorted(busy, key=lambda c: (-busy[c], c))
    by_peak = sorted(peak_l2, key=lambda c: (-peak_l2[c], c))
    picked: dict[int, str] = {}
    for rank in range(len(cores)):
        for order, why in ((by_busy, "busiest"), (by_peak, "L2 peak")):
            if rank < len(order) and order[rank] not in picked and len(picked) < count:
                picked[order[rank]] = f"{why} #{rank + 1}"
        if len(picked) >= count:
            break
    return list(picked.items())
