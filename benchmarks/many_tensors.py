"""A schema-valid multi-core IR with very many short-lived L2 tensors, to load the dashboard.

Each workload's snapshot holds the tensors of the last three workloads on its core (8 new per
workload), so every tensor lives three snapshots. Only required fields are written: it is a
load generator for figures, not a realistic schedule (`irtools synth` is the realistic one).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

NEW_PER_WORKLOAD = 8
LIVE_FOR = 3
SLOT = 4096


def _workload(core: int, wid: int, buffersize: int) -> dict[str, Any]:
    buffer = []
    slots = buffersize // SLOT
    for age in range(LIVE_FOR):
        born = wid - age
        if born < 0:
            continue
        for k in range(NEW_PER_WORKLOAD):
            tensor = born * NEW_PER_WORKLOAD + k
            kind = ("ifmap", "ofmap", "weight")[k % 3]
            buffer.append(
                {
                    "tensor_id": tensor,
                    "type": kind,
                    "address": (tensor % slots) * SLOT,
                    "size": SLOT - 64 * (k % 4),  # 8 channels x 8 rows x (64 - k % 4) columns, int8
                    "align": 8,
                    "bitwidth": 8,
                    "lower": [0, 0, 0, 0],
                    "upper": [0, 7, 7, 63 - k % 4],
                }
            )
    return {
        "workload_id": wid,
        "layer_name": f"layer_{wid % 50}",
        "layer_type": "pe" if wid % 4 else "vp",
        "time": 1000 + 37 * (wid % 11) + 13 * core,
        "workload": [[0, 0, 0, 0], [0, 7, 7, 7]],
        "ofmap_size": 512,
        "ifmap": [],
        "ofmap": [],
        "buffer": buffer,
        "ring_buffer_info": [[0, buffersize]],
    }


def write_many_tensors(
    path: str | Path, cores: int = 16, workloads: int = 800, buffersize: int = 8 << 20
) -> int:
    """Write the IR; returns the number of tensor lifetimes it holds."""
    side = 1
    while side * side < cores:
        side += 1
    doc: dict[str, Any] = {
        "-1": {"in": [], "out": []},
        "buffersize": buffersize,
        "top_batch_cut": 1,
        "xlen": side,
        "ylen": side,
    }
    for core in range(cores):
        doc[str(core)] = [_workload(core, w, buffersize) for w in range(workloads)]
    Path(path).write_text(json.dumps(doc, separators=(",", ":")))
    return cores * workloads * NEW_PER_WORKLOAD
