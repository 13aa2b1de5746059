"""Gemini's own per-segment and per-layer cost printout (../shared/fixtures/gemini-noc/stdout/), parsed.

Only the final schedule counts: the tree after `Schtree_spm (after SPM search):`. Its lines are the top
cut (`T b/g`), each segment (`S b/g` or `T b/g`, one tab deeper) and each layer of a segment (two tabs
deeper, `name num_batch (placement) util:...`). Gemini prints doubles with 4 significant digits
(`std::cout.precision(4)`, src/main.cpp) and integers (T, hops, DRAM acc, Computing_time) exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_NUMBER = r"([-+0-9.e]+)"
_FIELDS = {
    "energy": rf"\bE:{_NUMBER}",
    "time": rf"\bT:{_NUMBER}",
    "ubuf": rf"Ubuf/Buf/Bus/Mac:{_NUMBER}/",
    "buf": rf"Ubuf/Buf/Bus/Mac:[^/]+/{_NUMBER}/",
    "bus": rf"Ubuf/Buf/Bus/Mac:[^/]+/[^/]+/{_NUMBER}/",
    "mac": rf"Ubuf/Buf/Bus/Mac:[^/]+/[^/]+/[^/]+/{_NUMBER}\s",
    "noc_energy": rf"NoC energy = {_NUMBER}",
    "nop_energy": rf"NoP energy = {_NUMBER}",
    "dram_energy": rf"DRAM energy = {_NUMBER}",
    "noc_hops": rf"NoC_tot_hops= {_NUMBER}",
    "nop_hops": rf"NoP_tot_hops= {_NUMBER}",
    "dram_acc": rf"DRAM acc={_NUMBER}\)",
    "noc_time": rf"NoCtime = {_NUMBER}",
    "computing_time": rf"Computing_time = {_NUMBER}",
}
_INTEGERS = {"time", "noc_hops", "nop_hops", "dram_acc", "computing_time"}


@dataclass
class Node:
    """One line of the tree: a cut (`kind` T or S) or a layer (`kind` L, with its `name`)."""

    kind: str
    name: str
    num_batch: int
    groups: int
    values: dict[str, float]
    children: list[Node] = field(default_factory=list)


def _node(line: str) -> Node:
    text = line.strip()
    head = text.split()
    values: dict[str, float] = {}
    for key, pattern in _FIELDS.items():
        found = re.search(pattern, text)
        if found:
            values[key] = int(found.group(1)) if key in _INTEGERS else float(found.group(1))
    if head[0] in ("T", "S") and "/" in head[1]:
        batch, groups = head[1].split("/")
        return Node(head[0], "", int(batch), int(groups), values)
    return Node("L", head[0], int(head[1]), 1, values)


def parse_printout(path: Path) -> Node:
    """The final schedule tree (after the SPM search) of one Gemini printout."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Schtree_spm"))
    stack: list[tuple[int, Node]] = []
    root: Node | None = None
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        if line.strip().startswith("NoC info:"):
            continue
        depth = len(line) - len(line.lstrip("\t"))
        node = _node(line)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            stack[-1][1].children.append(node)
        else:
            root = node
        stack.append((depth, node))
    assert root is not None, f"{path}: no schedule tree after the SPM search"
    return root


def segments(root: Node) -> list[Node]:
    """The top cut's children: Gemini's segments, in order."""
    return root.children


def layers(root: Node) -> list[tuple[Node, Node]]:
    """(segment, layer) for every layer, in order."""
    found = []
    for segment in root.children:
        stack = [segment]
        while stack:
            node = stack.pop(0)
            if node.kind == "L":
                found.append((segment, node))
            stack[:0] = node.children
    return found
