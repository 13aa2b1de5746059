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
