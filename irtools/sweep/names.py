"""A run's configuration read from its file name, in both naming schemes Gemini users meet.

- The published single-core files: `<model>_b<batch>_c<cores>_bw<DRAM GB/s>_stschedule.json`.
- The scheduler's own output: `<net>_<x>x<y>[_<tag><value>...]_ir.json` (or `_alloc.json` after address
  allocation), where users append tags such as `_b4` (batch), `_noc16` (NoC bandwidth), `_ul512` (L2 KB),
  `_ff1_ss2_rr50` (cost function, stride, search rounds); `_noc32-128` says one IR served a range.
"""

from __future__ import annotations

import re
from typing import Any

PUBLISHED = re.compile(r"^(?P<model>.+)_b(?P<batch>\d+)_c(?P<cores>\d+)_bw(?P<bw>\d+)_stschedule\.json$")
GEMINI = re.compile(
    r"^(?P<net>[^_]+(?:_[^_]+)*?)_(?P<x>\d+)x(?P<y>\d+)(?P<tags>(?:_[A-Za-z]+[\d.-]*)*)_(?:ir|alloc)\.json$"
)
TAG = re.compile(r"_([A-Za-z]+)([\d.]+(?:-[\d.]+)?)?")

TAG_COLUMNS = {
    "b": "batch",
    "noc": "noc_bw_in_name",
    "ul": "l2_kb",
    "ff": "cost_function",
    "ss": "stride",
    "rr": "rounds",
}
"""Tags with a column of their own; any other tag lands in `name_tags` as tag=value."""

NAME_COLUMNS = (
    "model",
    "mesh_x",
    "mesh_y",
    "batch",
    "cores_in_name",
    "dram_gbps",
    "noc_bw_in_name",
    "l2_kb",
    "cost_function",
    "stride",
    "rounds",
    "name_tags",
)


def name_columns(name: str) -> dict[str, Any]:
    """The configuration columns a file name gives (missing ones absent)."""
    published = PUBLISHED.match(name)
    if published:
        return {
            "model": published["model"],
            "batch": int(published["batch"]),
            "cores_in_name": int(published["cores"]),
            "dram_gbps": int(published["bw"]),
        }
    gemini = GEMINI.match(name)
    if not gemini:
        return {}
    x, y = int(gemini["x"]), int(gemini["y"])
    columns: dict[str, Any] = {"model": gemini["net"], "mesh_x": x, "mesh_y": y, "cores_in_name": x * y}
    others = []
    for tag, value in TAG.findall(gemini["tags"]):
        column = TAG_COLUMNS.get(tag)
        if column and value.isdigit() and column not in columns:
            columns[column] = int(value)
        else:  # a range (noc32-128), a repeated or unknown tag: kept as written
            others.append(f"{tag}={value}" if value else tag)
    if others:
        columns["name_tags"] = ";".join(others)
    return columns
