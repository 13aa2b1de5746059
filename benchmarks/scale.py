"""Make a large multi-core IR by tiling a real single-core schedule over many cores and repetitions.

Transfer, workload and tensor ids are shifted per copy so the result stays as consistent as
its source; it is a load generator, not a realistic schedule.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

TRANSFER_KEYS = ("transfer_id", "related_ofmap", "related_ifmap")


def _shift(node: Any, t_off: int, w_off: int, x_off: int, core: int) -> None:
    stack = [node]
    while stack:
        obj = stack.pop()
        if isinstance(obj, list):
            stack.extend(v for v in obj if isinstance(v, dict | list))
            continue
        if not isinstance(obj, dict):
            continue
        for key in TRANSFER_KEYS:
            value = obj.get(key)
            if isinstance(value, int):
                obj[key] = value + t_off
            elif isinstance(value, list):
                obj[key] = [v + t_off for v in value]
        if isinstance(obj.get("workload_id"), int):
            obj["workload_id"] += w_off
        if isinstance(obj.get("tensor_id"), int):
            obj["tensor_id"] += x_off
        if isinstance(obj.get("core_id"), int) and obj["core_id"] >= 0:
            obj["core_id"] = core
        stack.extend(v for v in obj.values() if isinstance(v, dict | list))


def tile_ir(source: dict[str, Any], cores: int, copies: int) -> dict[str, Any]:
    """`copies` back-to-back copies of the source's core 0 on each of `cores` cores."""
    workloads = source["0"]
    span_t = 1 + max(
        [o["transfer_id"] for w in workloads for o in w["ofmap"]]
        + [o["transfer_id"] for o in source["-1"]["out"]]
    )
    span_w = 1 + max(w["workload_id"] for w in workloads)
    span_x = 1 + max((b["tensor_id"] for w in workloads for b in w["buffer"]), default=0)
    side = math.ceil(math.sqrt(cores))
    out: dict[str, Any] = {"-1": {"in": [], "out": []}}
    for c in range(cores):
        core_list = []
        for k in range(copies):
            t_off, w_off, x_off = span_t * (c * copies + k), span_w * k, span_x * k
            wl = copy.deepcopy(workloads)
            _shift(wl, t_off, w_off, x_off, c)
            core_list.extend(wl)
            dram = copy.deepcopy(source["-1"])
            _shift(dram, t_off, w_off, x_off, c)
            out["-1"]["in"].extend(dram["in"])
            out["-1"]["out"].extend(dram["out"])
        out[str(c)] = core_list
    out.update(
        buffersize=source["buffersize"],
        top_batch_cut=source["top_batch_cut"],
        xlen=side,
        ylen=math.ceil(cores / side),
    )
    return out


def write_scaled(source_path: str, target_path: str, target_mb: float, cores: int) -> int:
    """Write a tiled IR of about `target_mb` MB; returns its size in bytes."""
    with open(source_path, "rb") as handle:
        source = json.load(handle)
    unit = len(json.dumps(source["0"])) + len(json.dumps(source["-1"]))
    copies = max(1, round(target_mb * 1e6 / unit / cores))
    text = json.dumps(tile_ir(source, cores, copies))
    with open(target_path, "w") as handle:
        handle.write(text)
    return len(text)
