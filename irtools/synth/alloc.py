"""Synthetic IRs in the allocated dialect (the raw IR after the SET allocator), and defects injected into them.

`to_alloc` places the L2 tensors of a raw document the way SET-ISCA2023's `ir_tools` do: its parser
numbers tensors (an entry identical to one of the previous snapshot is the same tensor, living on),
a first-fit allocator places each tensor, in order of its first snapshot, at the lowest 1 KiB block
where it meets no tensor whose lifetime overlaps its own, and refill writes `address` into every
entry and `start_loading` into ifmap/weight entries (true where the tensor is new).

`inject_alloc` adds GIR302 (a tensor moved onto another live one) and GIR301 (a tensor moved past the
L2 size, which the injection records as the --l2-size to validate with), and the raw dialect's
defects (GIR201, GIR203, GIR204, GIR502); the findings are predicted from the dialect's definitions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from irtools import pointer as jp
from irtools.dialects import ALLOC
from irtools.dialects.base import Capability
from irtools.findings import FileReport, Finding, Severity
from irtools.rules.context import CheckOptions
from irtools.rules.l2.buffer_out_of_bounds import past_the_end_message
from irtools.rules.l2.buffer_overlap import overlap_message
from irtools.rules.l2.common import tensor_text
from irtools.rules.registry import RULES, UsageError, skipped_note
from irtools.rules.schedule.core_outside_mesh import mesh_numbering_message
from irtools.synth.inject import Injection, InjectionError, registrar
from irtools.synth.raw import RAW_INJECTORS, _Raw

Doc = dict[str, Any]
BLOCK = 1024


@dataclass(slots=True)
class Tensor:
    """One L2 tensor of a core as the SET parser sees it: its entries, snapshot by snapshot."""

    number: int
    first: int
    last: int
    block: int
    entries: list[tuple[int, int]] = field(default_factory=list)
    """(position, buffer index) of each of its entries."""
    address: int = 0


def tensors(workloads: list[Doc]) -> list[Tensor]:
    """A core's tensors numbered as the SET parser numbers them."""
    found: list[Tensor] = []
    last: dict[str, Tensor] = {}
    for position, wl in enumerate(workloads):
        now: dict[str, Tensor] = {}
        for i, entry in enumerate(wl["buffer"]):
            key = json.dumps(
                {k: v for k, v in entry.items() if k not in ("address", "start_loading")}, sort_keys=True
            )
            tensor = last.get(key) or now.get(key)
            if tensor is None:
                tensor = Tensor(len(found), position, position, entry["block"])
                found.append(tensor)
            tensor.last = position
            tensor.entries.append((position, i))
            now[key] = tensor
        last = now
    return found


def _first_fit(placed: list[Tensor], tensor: Tensor) -> int:
    """The lowest block where `tensor` meets none of the `placed` tensors live with it."""
    busy = sorted(
        (t.address, t.address + t.block) for t in placed if t.first <= tensor.last and tensor.first <= t.last
    )
    address = 0
    for start, end in busy:
        if start >= address + tensor.block:
            break
        address = max(address, end)
    return address


def to_alloc(raw: Doc) -> Doc:
    """The allocated form of a raw document (a copy): every L2 entry placed, ifmaps and weights flagged."""
    document: Doc = json.loads(json.dumps(raw))
    for key in (k for k in document if k.isdigit()):
        workloads = document[key]
        live: list[Tensor] = []
        numbered = tensors(workloads)
        for tensor in numbered:  # in order of first snapshot, as the parser numbers them
            live = [t for t in live if t.last >= tensor.first]
            tensor.address = _first_fit(live, tensor)
            live.append(tensor)
        for tensor in numbered:
            for position, i in tensor.entries:
                entry = workloads[position]["buffer"][i]
                entry["address"] = tensor.address
                if entry["type"] != "ofmap":
                    entry["start_loading"] = position == tensor.first
    return document


def alloc_baseline(document: Doc, l2_size: int | None) -> list[Finding]:
    """What `irtools validate` says about any allocated file: the dialect, the rules it skips, the numbering."""
    capabilities = ALLOC.capabilities | ({Capability.L2_SIZE} if l2_size else set())
    note = skipped_note(capabilities, ALLOC.name)
    return [
        Finding("GIR103", Severity.INFO, ALLOC.note or "", ""),
        *([Finding("GIR103", Severity.INFO, note, "")] if note else []),
        Finding(
            "GIR503",
            Severity.INFO,
            mesh_numbering_message(document["xlen"], document["ylen"]),
            "",
        ),
    ]


# --- injectors --------------------------------------------------------------------------------------------


class _Alloc(_Raw):
    """The allocated document being damaged: the raw view of it, plus each core's tensors."""

    def __init__(self, document: Doc, rng: random.Random) -> None:
        super().__init__(document, rng)
        self.tensors = {key: tensors(document[key]) for key in self.keys}
        for key, found in self.tensors.items():
            for tensor in found:
                position, i = tensor.entries[0]
                tensor.address = document[key][position]["buffer"][i]["address"]
        self.moved: set[tuple[str, int]] = set()
        self.l2_size: int | None = None

    def move(self, key: str, tensor: Tensor, address: int) -> None:
        tensor.address = address
        for position, i in tensor.entries:
            self.doc[key][position]["buffer"][i]["address"] = address
        self.moved.add((key, tensor.number))


AllocInjector = Callable[[_Alloc], list[Finding]]
ALLOC_INJECTORS: dict[str, AllocInjector] = {}
ALLOC_HOW: dict[str, str] = {}
_injector = registrar(ALLOC_INJECTORS, ALLOC_HOW)


def _flat(ids: Any) -> list[int]:
    return [t for item in ids or () for t in (item if isinstance(item, list) else (item,))]


def _describe(entry: Doc, number: int) -> str:
    """The checker's name for an L2 entry, numbered as the alloc dialect numbers its tensors."""
    return tensor_text(entry["type"], number, _flat(entry.get("transfer_id")), entry["layer"])


def _bytes(entry: Doc) -> list[tuple[int, int]]:
    return [(entry["address"] * BLOCK, (entry["address"] + entry["block"]) * BLOCK)]


def _single(entry: Doc) -> int | None:
    ids = _flat(entry.get("transfer_id"))
    return ids[0] if len(ids) == 1 else None


@_injector("GIR302", "a tensor that lives one snapshot is moved onto another tensor live in it")
def _overlap(t: _Alloc) -> list[Finding]:
    sites = []
    for key in t.keys:
        by_number = t.tensors[key]
        for b in by_number:
            if b.first != b.last or (key, b.number) in t.moved or b.block == 0:
                continue
            position, ib = b.entries[0]
            buffer = t.doc[key][position]["buffer"]
            numbers = {i: n.number for n in by_number for p, i in n.entries if p == position}
            for ia, entry in enumerate(buffer):
                a = by_number[numbers[ia]]
                if ia == ib or a.block == 0 or (key, a.number) in t.moved:
                    continue
                start, end = a.address, a.address + b.block
                hits = [
                    i
                    for i, e in enumerate(buffer)
                    if i != ib and e["block"] and e["address"] < end and start < e["address"] + e["block"]
                ]
                if hits == [ia]:
                    sites.append((key, position, ia, ib, numbers))
    key, position, ia, ib, numbers = t.pick("GIR302", sites, "no tensor to move onto a single live neighbour")
    b = t.tensors[key][numbers[ib]]
    t.move(key, b, t.tensors[key][numbers[ia]].address)
    t.moved.add((key, numbers[ia]))
    buffer = t.doc[key][position]["buffer"]
    i, j = sorted((ia, ib))
    message = overlap_message(
        _describe(buffer[i], numbers[i]),
        _bytes(buffer[i]),
        _describe(buffer[j], numbers[j]),
        _bytes(buffer[j]),
    )
    wl = t.doc[key][position]
    return [
        Finding(
            "GIR302",
            RULES["GIR302"].severity,
            message,
            jp.join(key, position, "buffer", i),
            int(key),
            wl["workload_id"],
            _single(buffer[i]),
            related=(jp.join(key, position, "buffer", j),),
        )
    ]


@_injector("GIR301", "a tensor is moved just past the highest block any core reaches, recorded as --l2-size")
def _past_the_end(t: _Alloc) -> list[Finding]:
    top = max((x.address + x.block for key in t.keys for x in t.tensors[key]), default=0)
    sites = [(key, x) for key in t.keys for x in t.tensors[key] if x.block and (key, x.number) not in t.moved]
    key, tensor = t.pick("GIR301", sites, "no L2 tensor")
    t.l2_size = top * BLOCK
    t.move(key, tensor, top + t.rng.randrange(4))
    workloads = t.doc[key]
    held = max(sum(e["block"] for e in wl["buffer"]) for wl in workloads)
    end = tensor.address + tensor.block
    position, i = tensor.entries[0]
    entries = len(tensor.entries)
    message = past_the_end_message(end * BLOCK, top * BLOCK, held * BLOCK, entries, entries, len(workloads))
    entry = workloads[position]["buffer"][i]
    return [
        Finding(
            "GIR301",
            RULES["GIR301"].severity,
            message,
            jp.join(key, position, "buffer", i),
            int(key),
            workloads[position]["workload_id"],
            _single(entry),
        )
    ]


def inject_alloc(document: Doc, codes: list[str], seed: int) -> Injection:
    """A copy of allocated `document` with one defect per code, and the findings the checker must report."""
    available = {**RAW_INJECTORS, **ALLOC_INJECTORS}
    unknown = [c for c in codes if c not in available]
    if unknown:
        raise UsageError(
            f"--inject {','.join(unknown)}: not available with --dialect alloc (available: {', '.join(sorted(available))})"
        )
    damaged: Doc = json.loads(json.dumps(document))
    target = _Alloc(damaged, random.Random(f"inject-alloc:{seed}:{','.join(codes)}"))
    findings: list[Finding] = []
    for code in sorted(codes, key=lambda c: c != "GIR301"):  # the L2 size first: later moves stay below it
        injected = ALLOC_INJECTORS[code](target) if code in ALLOC_INJECTORS else RAW_INJECTORS[code](target)
        findings.extend(injected)
    findings = alloc_baseline(damaged, target.l2_size) + findings
    return Injection(damaged, FileReport("", findings).findings, CheckOptions(l2_size=target.l2_size))


__all__ = ["ALLOC_HOW", "ALLOC_INJECTORS", "InjectionError", "inject_alloc", "to_alloc"]
