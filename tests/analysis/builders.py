"""Builders for small IRs whose analysis numbers can be worked out by hand."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from irtools.analysis import Analysis, AnalysisOptions
from irtools.loading.load import load_ir

ROOT = Path(__file__).resolve().parent.parent.parent
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


def buffer_entry(
    tensor_id: int, address: int, size: int, kind: str = "ifmap", **extra: Any
) -> dict[str, Any]:
    entry = {
        "tensor_id": tensor_id,
        "type": kind,
        "address": address,
        "size": size,
        "align": 8,
        "bitwidth": 8,
        "lower": [0, 0, 0, 0],
        "upper": [0, 7, 9, 9],
    }
    entry.update(extra)
    return entry


def chain_ir(
    minimal: dict[str, Any], snapshots: list[list[dict[str, Any]]], times: list[int] | None = None
) -> dict[str, Any]:
    """A 1-core IR with one workload per snapshot (workload ids 0..n-1), copying minimal_ir's workload."""
    template = minimal["0"][0]
    workloads = []
    for i, buffer in enumerate(snapshots):
        w = copy.deepcopy(template)
        w["workload_id"] = i
        w["buffer"] = buffer
        w["time"] = times[i] if times else 100
        workloads.append(w)
    minimal["0"] = workloads
    return minimal


def analysis_of(doc: dict[str, Any], **options: Any) -> Analysis:
    return Analysis(load_ir(json.dumps(doc).encode()), AnalysisOptions(**options))
