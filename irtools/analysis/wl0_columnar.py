"""wl0_tensors and wl0_occupancy from columns: the documented files' WL0 snapshots without a walk.

The same sorts and grouped running maxima as the L2 tables (irtools.analysis.l2_columnar); a weight's
key is (address, size, transfer ids, layer name), and a snapshot's free space is measured against
the WL0 size when known, else against the snapshot's own extent, as `buffers.wl0_tables` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from irtools.analysis.identity import workload_identity
from irtools.analysis.l2_columnar import INT64_ROOM, lifetime_columns, lifetimes, segment_cover
from irtools.analysis.tables import WL0_OCCUPANCY, WL0_TENSORS
from irtools.loading.boxes import tensor_columns
from irtools.loading.index import IRIndex


def wl0_columnar(
    index: IRIndex, wl0_size: int | None, describe: Callable[[list[Any]], dict[str, list[Any]]]
) -> dict[str, pd.DataFrame] | None:
    """The two tables, or None when a value leaves int64 (the walk then builds them). `describe(entries)`
    gives the weights' columns read from the entries themselves, for each weight's first entry."""
    wl0 = tensor_columns(index).wl0
    address, size = wl0.ints("address"), wl0.ints("size")
    identity = workload_identity(index)
    try:
        positions, cores, workload_ids = (
            np.asarray(identity[name], dtype=np.int64) for name in ("position", "core_id", "workload_id")
        )
    except OverflowError:
        return None
    if address is None or size is None or (address < 0).any() or (size < 0).any():
        return None
    end = address + size
    rows = len(index.rows)
    if (rows + 2) * (max(int(end.max(initial=0)), wl0_size or 0) + 2) >= INT64_ROOM:
        return None
    row = wl0.row
    extent = np.zeros(rows, dtype=np.int64)
    np.maximum.at(extent, row, end)
    hi = np.full(rows, wl0_size) if wl0_size else extent
    flagged, used, largest = segment_cover(row, address, end, hi)
    # Transfer ids and layer names as numbers: equal codes exactly where the walk's key parts are equal.
    ids, _ = pd.factorize(pd.Series([tuple(e.transfer_id) for e in wl0.objects], dtype=object))
    names, _ = pd.factorize(pd.Series([e.layer_name for e in wl0.objects], dtype=object))
    key = [address, size, ids.astype(np.int64), names.astype(np.int64)]
    first, life = lifetimes(cores[row], positions[row], key)
    weights: dict[str, Any] = {
        "core_id": cores[row[first]],
        "address": address[first],
        "size": size[first],
        **describe([wl0.objects[i] for i in first.tolist()]),
        **lifetime_columns(row, first, life, flagged, positions, workload_ids),
    }
    total = np.zeros(rows, dtype=np.int64)
    np.add.at(total, row, size)
    known = bool(wl0_size)
    occupancy: dict[str, Any] = {
        **identity,
        "weights": np.bincount(row, minlength=rows),
        "total_bytes": total,
        "extent": extent,
        "free_bytes": (wl0_size or 0) - used if known else [None] * rows,
        "largest_free_block": largest if known else [None] * rows,
    }
    return {"wl0_tensors": WL0_TENSORS.frame(weights), "wl0_occupancy": WL0_OCCUPANCY.frame(occupancy)}
