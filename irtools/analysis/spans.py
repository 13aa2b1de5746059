"""Cycles of L2/WL0 snapshots and tensor lifetimes: a snapshot spans its workload's start to end."""

from __future__ import annotations

import numpy as np
import pandas as pd


def with_cycles(
    frame: pd.DataFrame,
    timeline: pd.DataFrame,
    model: str,
    first: str = "first_position",
    last: str = "last_position",
) -> pd.DataFrame:
    """`frame` (rows with `core_id` and positions) plus `start` and `end` in cycles under `model`.

    `start` is the start of the workload at `first`, `end` the end of the one at `last` (both
    columns may name `position`, for snapshots); NaN where that workload cannot be scheduled
    (a wait cycle, GIR502) or is missing. Two lookups on (core_id, position): linear.
    """
    times = timeline[timeline["model"] == model]
    key = pd.MultiIndex.from_arrays([times["core_id"].to_numpy(), times["position"].to_numpy()])
    start = pd.Series(_floats(times["start"]), index=key)
    end = pd.Series(_floats(times["end"]), index=key)
    firsts = pd.MultiIndex.from_arrays([frame["core_id"].to_numpy(), frame[first].to_numpy()])
    lasts = pd.MultiIndex.from_arrays([frame["core_id"].to_numpy(), frame[last].to_numpy()])
    return frame.assign(
        start=start.reindex(firsts).to_numpy(float) if len(frame) else np.zeros(0),
        end=end.reindex(lasts).to_numpy(float) if len(frame) else np.zeros(0),
    )


def _floats(column: pd.Series) -> np.ndarray:
    values: np.ndarray = column.astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    return values
