"""The Pareto front of a sweep: the runs no other run beats on both of two metrics (both minimized)."""

from __future__ import annotations

import pandas as pd


def pareto_front(frame: pd.DataFrame, x: str, y: str) -> pd.Index:
    """Index labels of the rows on the front of (x, y), sorted by x: sort by x then y, keep each row
    whose y is below every y before it (n log n). Rows missing either value are left out."""
    values = frame[[x, y]].apply(pd.to_numeric, errors="coerce").dropna()
    ordered = values.sort_values([x, y], kind="stable")
    front = []
    best = float("inf")
    for label, y_value in zip(ordered.index, ordered[y], strict=True):
        if y_value < best:
            front.append(label)
            best = y_value
    return pd.Index(front)
