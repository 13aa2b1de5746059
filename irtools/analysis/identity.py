"""The columns that name each workload row (core, position, workload id, layer name), built once per index.

Several per-workload tables start with them (l2_blocks, dram_traffic, wl0_occupancy); each walked every
workload for them. Values stay Python ints, so an id beyond int64 reaches the table's frame, which
reports it (irtools.analysis.tables.TableSpec.frame).
"""

from __future__ import annotations

import weakref
from typing import Any

from irtools.loading.index import IRIndex

_BUILT: weakref.WeakKeyDictionary[IRIndex, dict[str, list[Any]]] = weakref.WeakKeyDictionary()


def workload_identity(index: IRIndex) -> dict[str, list[Any]]:
    """Per workload row (`IRIndex.rows`): core_id, position, workload_id and layer_name (kept)."""
    if index not in _BUILT:
        refs = index.rows
        _BUILT[index] = {
            "core_id": [ref.core_id for ref in refs],
            "position": [ref.position for ref in refs],
            "workload_id": [ref.workload_id for ref in refs],
            "layer_name": [ref.workload.layer_name for ref in refs],
        }
    return _BUILT[index]
