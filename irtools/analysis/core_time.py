"""Where each core's time goes: computing, stalled on the NoC, or waiting, over the schedule or a window.

Under the `noc` model a workload runs its IR `time`, then holds its core until its layer step's NoC
time is over (irtools.analysis.noc): the core is occupied but not computing. The `cores` table's
`busy` counts that stall (it is what the schedule's length depends on); the views that say how busy a
core is (the header's cards, the timeline's rows, the mesh's tiles) show compute and stall apart, from
the functions here. Other models have no stall.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irtools.analysis.link_load import Window

SPLIT_COLUMNS = (
    "core_id",
    "compute",
    "noc_stall",
    "waiting",
    "compute_share",
    "noc_stall_share",
    "waiting_share",
)
"""core_time_split's columns: cycles in the window, and their shares of the window's length."""


def placed_rows(timeline: pd.DataFrame, model: str) -> pd.DataFrame:
    """The timeline's rows of `model` that the model places (a wait cycle's workloads have no start)."""
    return timeline[(timeline["model"] == model) & timeline["start"].notna()]


def compute_end(times: pd.DataFrame) -> np.ndarray:
    """Per workload, the cycle its compute ends: start + its IR time, never past its end (float)."""
    start = times["start"].to_numpy(dtype=float, na_value=np.nan)
    end = times["end"].to_numpy(dtype=float, na_value=np.nan)
    computed: np.ndarray = np.minimum(start + times["time"].to_numpy(dtype=float), end)
    return computed


def split_times(times: pd.DataFrame, window: Window | None) -> pd.DataFrame:
    """`times` (placed timeline rows) with per workload `run` (compute), `stalled` (NoC) and `waited`
    cycles, each cut to `window` (the whole schedule without one)."""
    start = times["start"].to_numpy(dtype=float, na_value=np.nan)
    end = times["end"].to_numpy(dtype=float, na_value=np.nan)
    wait = times["wait"].to_numpy(dtype=float, na_value=0.0)
    lo, hi = window or (0.0, float(np.nanmax(end)) if len(end) else 0.0)
    computed = compute_end(times)
    return times.assign(
        run=np.clip(np.minimum(computed, hi) - np.maximum(start, lo), 0, None),
        stalled=np.clip(np.minimum(end, hi) - np.maximum(computed, lo), 0, None),
        waited=np.clip(np.minimum(start, hi) - np.maximum(start - wait, lo), 0, None),
    )


def window_length(times: pd.DataFrame, window: Window | None) -> float:
    """The window's length in cycles; without one the schedule's (its last end), never 0."""
    if window is not None:
        return max(window[1] - window[0], 1e-9)
    end = times["end"].to_numpy(dtype=float, na_value=np.nan)
    return max(float(np.nanmax(end)) if len(end) else 0.0, 1e-9)


def core_time_split(
    timeline: pd.DataFrame, model: str, cores: list[int], window: Window | None = None
) -> pd.DataFrame:
    """One row per core of `cores`: cycles computing, stalled on the NoC and waiting in `window`, and their
    shares of it (SPLIT_COLUMNS). Under `noc`, compute + noc_stall is the `cores` table's busy."""
    times = placed_rows(timeline, model)
    split = split_times(times, window)
    length = window_length(times, window)
    sums = split.groupby("core_id")[["run", "stalled", "waited"]].sum().reindex(cores, fill_value=0.0)
    return pd.DataFrame(
        {
            "core_id": cores,
            "compute": sums["run"].to_numpy(),
            "noc_stall": sums["stalled"].to_numpy(),
            "waiting": sums["waited"].to_numpy(),
            "compute_share": sums["run"].to_numpy() / length,
            "noc_stall_share": sums["stalled"].to_numpy() / length,
            "waiting_share": sums["waited"].to_numpy() / length,
        },
        columns=list(SPLIT_COLUMNS),
    )
