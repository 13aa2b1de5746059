"""Defect injectors, one per rule code: each makes one surgical change and predicts its findings.

An injector picks its target at random among the places where the change triggers its rule and
nothing else (a tensor that lives in one snapshot only, a WL0 entry with room around it, a
cross-core transfer that no other path duplicates), changes the document in place, and returns
the findings the checker must report, built from the format's own definitions: the expected
sidecar is a prediction, never the checker's output. Each injector claims the workloads and
DRAM entries it touches, so several codes injected into one file do not interact.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from irtools import pointer as jp
from irtools.findings import FileReport, Finding, Severity
from irtools.loading.l2 import place
from irtools.loading.mesh import far_core_message
from irtools.rules.context import CheckOptions
from irtools.rules.l2.buffer_overlap import overlap_message
from irtools.rules.l2.common import tensor_text
from irtools.rules.l2.cur_wl_ifmap import flagged_without_ifmap, unflagged_ifmap
from irtools.rules.l2.misaligned_address import misaligned_message
from irtools.rules.l2.ring_config import region_past_end_message, ring_reading_note
from irtools.rules.l2.size_mismatch import expected_fmap_size, size_mismatch_message
from irtools.rules.l2.snapshot_continuity import NOT_NEW_BUT_ABSENT, new_but_present
from irtools.rules.l2.source_union import source_box_message, source_ids_message
from irtools.rules.registry import RULES, UsageError
from irtools.rules.schedule.bad_range import bad_range_message
from irtools.rules.schedule.core_outside_mesh import outside_mesh_message
from irtools.rules.schedule.deadlock import deadlock_message
from irtools.rules.schedule.workload_order import order_message
from irtools.rules.schedule.workload_range import tile_coverage_problem
from irtools.rules.transfers.causality import causality_message
from irtools.rules.transfers.dangling_transfer import dangling_message
from irtools.rules.transfers.destination_mismatch import missing_destination_message
from irtools.rules.transfers.dram_in_mismatch import dram_in_mismatch_message, layer_problem, range_problem
from irtools.rules.transfers.duplicate_producer import also_produced_message
from irtools.rules.transfers.related_dangling import related_dangling_message
from irtools.rules.wl0.wl0_capacity import wl0_capacity_message
from irtools.rules.wl0.wl0_overlap import wl0_overlap_message
from irtools.synth.allocator import ADDRESS_ALIGN, GUARD
from irtools.synth.build import WL0_SIZE, WL0_SLOT

Doc = dict[str, Any]
Lazy = Callable[[], list[Finding]]
"""Findings are built after every injection, from the final document (ids may have changed)."""

CANDIDATES = 400
"""Candidates an injector examines before it gives up (a random sample of large files)."""


class InjectionError(UsageError):
    """The IR offers no place for the defect (e.g. GIR502 needs two cores that exchange data)."""


@dataclass(slots=True)
class Injection:
    """A document with defects, the findings the checker must report, and the validate options they need."""

    document: Doc
    findings: list[Finding]
    options: CheckOptions = field(default_factory=CheckOptions)


# --- the checker's message vocabulary, from the format's definitions ----------------------------------------


def _single(ids: list[int] | None) -> int | None:
    return ids[0] if ids is not None and len(ids) == 1 else None


def _describe(entry: dict[str, Any]) -> str:
    return tensor_text(
        entry["type"], entry["tensor_id"], entry.get("transfer_id") or [], entry.get("layer_name")
    )


def _segments(address: int, size: int, ring: list[list[int]]) -> list[tuple[int, int]]:
    """Byte ranges of an L2 tensor: ring regions are [start, end), and a tensor wraps at its region's end."""
    start, end = next((a, b) for a, b in ring if a <= address < b)
    if address + size <= end:
        return [(address, address + size)]
    return [(address, end), (start, start + address + size - end)]


def _segments_of(entry: dict[str, Any], ring: list[list[int]]) -> list[tuple[int, int]]:
    return _segments(entry["address"], entry["size"], ring)


def _finding(code: str, message: str, pointer: str, **loc: Any) -> Finding:
    return Finding(code, RULES[code].severity, message, pointer, **loc)


def baseline(document: Doc) -> list[Finding]:
    """Findings of an IR with no defect: GIR303's note on the first region that does not start at 0.

    The checker reads ring_buffer_info pairs as [start, end) and says so, once per file, at the
    first such region; any file with two or more ring regions gets this info finding.
    """
    for key in _core_keys(document):
        for position, wl in enumerate(document[key]):
            for k, (start, end) in enumerate(wl["ring_buffer_info"]):
                if start != 0:
                    message = ring_reading_note(start, end)
                    return [
                        Finding(
                            "GIR303", Severity.INFO, message, jp.join(key, position, "ring_buffer_info", k)
                        )
                    ]
    return []


def _core_keys(document: Doc) -> list[str]:
    return sorted((k for k in document if k.isdigit()), key=int)


# --- the document seen by the injectors ---------------------------------------------------------------------


class _Target:
    """The document being damaged: lookups, random choices, claims and fresh ids."""

    def __init__(self, document: Doc, rng: random.Random) -> None:
        self.doc = document
        self.rng = rng
        self.claimed: set[tuple[Any, ...]] = set()
        self.keys = _core_keys(document)
        ids = [0]
        for e in (*document["-1"]["in"], *document["-1"]["out"]):
            ids.append(e["transfer_id"])
        for _, _, wl in self.workloads():
            ids.append(wl["workload_id"])
            ids.extend(o["transfer_id"] for o in wl["ofmap"])
        self._fresh = max(ids) + 1000
        self._lifetimes: dict[str, dict[int, int]] | None = None

    def fresh(self) -> int:
        """An id no transfer and no workload of the file uses."""
        self._fresh += 1 + self.rng.randrange(50)
        return self._fresh

    def workloads(self, free: bool = False) -> Iterator[tuple[str, int, dict[str, Any]]]:
        for key in self.keys:
            for position, wl in enumerate(self.doc[key]):
                if not free or (key, position) not in self.claimed:
                    yield key, position, wl

    def pick(self, code: str, candidates: list[Any], why: str) -> Any:
        if not candidates:
            raise InjectionError(f"--inject {code}: {why}")
        return self.rng.choice(candidates)

    def claim(self, *keys: tuple[Any, ...]) -> None:
        self.claimed.update(keys)

    def sample(self, items: list[Any]) -> list[Any]:
        """At most CANDIDATES items, in a random order."""
        return self.rng.sample(items, min(len(items), CANDIDATES))

    def single_snapshot(self, key: str, tensor_id: int) -> bool:
        """Whether the tensor appears in one snapshot of its core only."""
        if self._lifetimes is None:
            self._lifetimes = {}
            for k, _, wl in self.workloads():
                counts = self._lifetimes.setdefault(k, {})
                for entry in wl["buffer"]:
                    counts[entry["tensor_id"]] = counts.get(entry["tensor_id"], 0) + 1
        return self._lifetimes[key][tensor_id] == 1


def _loc(key: str, wl: dict[str, Any], transfer_id: int | None = None) -> dict[str, Any]:
    return {"core_id": int(key), "workload_id": wl["workload_id"], "transfer_id": transfer_id}


F = TypeVar("F", bound=Callable[..., Any])
Injector = Callable[[_Target], Lazy]
INJECTORS: dict[str, Injector] = {}
HOW: dict[str, str] = {}
"""Code -> how its defect is made (shown by `irtools synth --help`)."""


def registrar(injectors: dict[str, F], how: dict[str, str]) -> Callable[[str, str], Callable[[F], F]]:
    """A decorator factory that files an injector under its code, with how its defect is made."""

    def injector(code: str, description: str) -> Callable[[F], F]:
        def register(fn: F) -> F:
            injectors[code] = fn
            how[code] = description
            return fn

        return register

    return injector


injector = registrar(INJECTORS, HOW)


# --- GIR2xx: the transfer graph ------------------------------------------------------------------------------


@injector("GIR201", "a WL0 entry (or a later user's weight) names a transfer id nobody produces")
def _dangling(t: _Target) -> Lazy:
    first_users = {
        (d["core_id"], d["workload_id"])
        for e in t.doc["-1"]["out"]
        if e["type"] == "weight"
        for d in e["destination"]
    }
    sites: list[tuple[str, int, dict[str, Any], tuple[Any, ...]]] = []
    for key, position, wl in t.workloads(free=True):
        sites.extend((key, position, wl, ("wl0_buffer", j)) for j in range(len(wl.get("wl0_buffer") or [])))
        if "weight" in wl and (int(key), wl["workload_id"]) not in first_users:
            sites.append((key, position, wl, ("weight",)))
    key, position, wl, where = t.pick("GIR201", sites, "no workload holds a weight")
    t.claim((key, position))
    tid = t.fresh()
    node = wl[where[0]][where[1]] if len(where) == 2 else wl[where[0]]
    node["transfer_id"] = [tid]
    message = dangling_message(tid)
    return lambda: [_finding("GIR201", message, jp.join(key, position, *where), **_loc(key, wl, tid))]


@injector(
    "GIR202", "an ofmap entry or a DRAM out entry is listed twice, so its transfer id has two producers"
)
def _duplicate(t: _Target) -> Lazy:
    out = t.doc["-1"]["out"]
    dram = [k for k in range(len(out)) if ("out", k) not in t.claimed]
    workloads = list(t.workloads(free=True))
    if dram and (not workloads or t.rng.random() < 0.3):
        k = t.rng.choice(dram)
        t.claim(("out", k))
        out.append(copy.deepcopy(out[k]))
        n, tid = len(out) - 1, out[k]["transfer_id"]
        message = also_produced_message(tid, jp.join("-1", "out", k))
        return lambda: [_finding("GIR202", message, jp.join("-1", "out", n), transfer_id=tid)]
    key, position, wl = t.pick("GIR202", workloads, "no workload left")
    t.claim((key, position))
    wl["ofmap"].append(copy.deepcopy(wl["ofmap"][0]))
    tid = wl["ofmap"][0]["transfer_id"]
    message = also_produced_message(tid, jp.join(key, position, "ofmap", 0))
    return lambda: [_finding("GIR202", message, jp.join(key, position, "ofmap", 1), **_loc(key, wl, tid))]


@injector(
    "GIR203",
    "an ofmap gains, or a DRAM out entry is retargeted to, a destination workload that does not exist",
)
def _destination(t: _Target) -> Lazy:
    out = t.doc["-1"]["out"]
    dram = [k for k in range(len(out)) if ("out", k) not in t.claimed]
    workloads = list(t.workloads(free=True))
    missing = t.fresh()
    core = int(t.rng.choice(t.keys))
    if dram and (not workloads or t.rng.random() < 0.3):
        k = t.rng.choice(dram)
        t.claim(("out", k))
        dest = out[k]["destination"][0]
        dest["workload_id"] = missing
        tid = out[k]["transfer_id"]
        message = missing_destination_message(dest["core_id"], missing, tid)
        return lambda: [
            _finding("GIR203", message, jp.join("-1", "out", k, "destination", 0), transfer_id=tid)
        ]
    key, position, wl = t.pick("GIR203", workloads, "no workload left")
    t.claim((key, position))
    destinations = wl["ofmap"][0]["destination"]
    destinations.append({"core_id": core, "type": "core", "workload_id": missing})
    tid = wl["ofmap"][0]["transfer_id"]
    message = missing_destination_message(core, missing, tid)
    ptr = jp.join(key, position, "ofmap", 0, "destination", len(destinations) - 1)
    return lambda: [_finding("GIR203", message, ptr, **_loc(key, wl, tid))]


@injector("GIR204", "a workload lists its own ofmap among its ifmap transfers (and as its own destination)")
def _causality(t: _Target) -> Lazy:
    sites = []
    for key, position, wl in t.workloads(free=True):
        tid = wl["ofmap"][0]["transfer_id"]
        for entry in wl["buffer"]:
            if entry.get("transfer_id") == [tid]:
                sites.append((key, position, wl, entry))
    key, position, wl, entry = t.pick("GIR204", sites, "no workload left")
    t.claim((key, position))
    tid = wl["ofmap"][0]["transfer_id"]
    wl["ifmap"][0]["transfer_id"].append(tid)
    entry["cur_wl_ifmap"] = True  # the assembler finds the current ifmaps by this flag (else GIR306)
    destinations = wl["ofmap"][0]["destination"]
    destinations.insert(0, {"core_id": int(key), "type": "core", "workload_id": wl["workload_id"]})
    return lambda: [
        _finding(
            "GIR204",
            causality_message(tid, wl["workload_id"], later=False),
            jp.join(key, position, "ifmap", 0),
            **_loc(key, wl, tid),
        )
    ]


@injector("GIR205", "a DRAM in entry names another layer, or its range no longer matches its ofmap")
def _dram_in(t: _Target) -> Lazy:
    entries = t.doc["-1"]["in"]
    k = t.pick("GIR205", [k for k in range(len(entries)) if ("in", k) not in t.claimed], "no DRAM in entry")
    t.claim(("in", k))
    entry = entries[k]
    producer = next(
        o for _, _, wl in t.workloads() for o in wl["ofmap"] if o["transfer_id"] == entry["transfer_id"]
    )
    real = entry["layer_name"]
    if entry["upper"][3] > entry["lower"][3] and t.rng.random() < 0.5:
        entry["upper"][3] -= 1
        problem = range_problem(producer["lower"], producer["upper"], entry["lower"], entry["upper"])
    else:
        entry["layer_name"] = f"{real}_stale"
        problem = layer_problem(real, entry["layer_name"])
    tid = entry["transfer_id"]
    message = dram_in_mismatch_message(tid, [problem])
    return lambda: [
        _finding(
            "GIR205",
            message,
            jp.join("-1", "in", k),
            core_id=entry["core_id"],
            workload_id=entry["workload_id"],
            transfer_id=tid,
        )
    ]


@injector(
    "GIR206", "a DRAM in related_ofmap (or DRAM out related_ifmap) names a transfer the other side lacks"
)
def _related(t: _Target) -> Lazy:
    sides = [
        (side, k)
        for side in ("in", "out")
        for k in range(len(t.doc["-1"][side]))
        if (side, k) not in t.claimed
    ]
    side, k = t.pick("GIR206", sides, "no DRAM entry left")
    t.claim((side, k))
    entry = t.doc["-1"][side][k]
    field_name = "related_ofmap" if side == "in" else "related_ifmap"
    tid = t.fresh()
    entry[field_name].append(tid)
    other = "DRAM out" if side == "in" else "DRAM in"
    message = related_dangling_message(field_name, tid, other)
    ptr = jp.join("-1", side, k, field_name, len(entry[field_name]) - 1)
    return lambda: [_finding("GIR206", message, ptr, transfer_id=entry["transfer_id"])]


# --- GIR3xx: L2 buffer snapshots -------------------------------------------------------------------------------


def _single_snapshot_entries(t: _Target) -> list[tuple[str, int, dict[str, Any], int]]:
    """(core key, position, workload, buffer index) of tensors that live in one snapshot only."""
    return [
        (key, position, wl, i)
        for key, position, wl in t.workloads(free=True)
        for i, entry in enumerate(wl["buffer"])
        if t.single_snapshot(key, entry["tensor_id"])
    ]


@injector("GIR301", "a tensor that lives in one snapshot only is moved past the end of the buffer")
def _out_of_bounds(t: _Target) -> Lazy:
    key, position, wl, i = t.pick(
        "GIR301", _single_snapshot_entries(t), "no tensor lives in one snapshot only"
    )
    t.claim((key, position))
    entry = wl["buffer"][i]
    size = t.doc["buffersize"]
    entry["address"] = size + ADDRESS_ALIGN * t.rng.randrange(16)
    problem = place(entry["address"], entry["size"], [], size).problem
    message = f"{_describe(entry)}: {problem}"
    return lambda: [
        _finding(
            "GIR301",
            message,
            jp.join(key, position, "buffer", i),
            **_loc(key, wl, _single(entry["transfer_id"])),
        )
    ]


@injector("GIR302", "a tensor that lives in one snapshot only is moved onto a live tensor at least as large")
def _overlap(t: _Target) -> Lazy:
    sites: list[tuple[str, int, dict[str, Any], int, int]] = []
    for key, position, wl, i in t.sample(_single_snapshot_entries(t)):
        size = wl["buffer"][i]["size"]
        others = [j for j, e in enumerate(wl["buffer"]) if j != i and e["size"] >= size]
        sites.extend((key, position, wl, i, j) for j in others)
        if len(sites) > CANDIDATES:
            break
    key, position, wl, i, j = t.pick("GIR302", sites, "no snapshot holds two tensors")
    t.claim((key, position))
    buffer = wl["buffer"]
    # Same start, no more bytes: the moved tensor lies inside the other one and touches nothing else.
    buffer[i]["address"] = buffer[j]["address"]
    a, b = min(i, j), max(i, j)

    def findings() -> list[Finding]:
        ring = wl["ring_buffer_info"]
        message = overlap_message(
            _describe(buffer[a]),
            _segments_of(buffer[a], ring),
            _describe(buffer[b]),
            _segments_of(buffer[b], ring),
        )
        loc = _loc(key, wl, _single(buffer[a]["transfer_id"]))
        return [_finding("GIR302", message, jp.join(key, position, "buffer", a), **loc)]

    return findings


@injector("GIR303", "a workload's ring_buffer_info gains a region past the end of the buffer")
def _ring(t: _Target) -> Lazy:
    key, position, wl = t.pick("GIR303", list(t.workloads(free=True)), "no workload left")
    t.claim((key, position))
    size = t.doc["buffersize"]
    extra = ADDRESS_ALIGN * (1 + t.rng.randrange(64))
    # A region starting at buffersize holds no tensor (every address is below it): only GIR303 sees it.
    wl["ring_buffer_info"].append([size, size + extra])
    message = region_past_end_message(size, size + extra, size)
    ptr = jp.join(key, position, "ring_buffer_info", len(wl["ring_buffer_info"]) - 1)
    return lambda: [_finding("GIR303", message, ptr, **_loc(key, wl))]


@injector(
    "GIR304", "newly_added is flipped on a tensor: true although it stayed, or false although it is new"
)
def _continuity(t: _Target) -> Lazy:
    sites = [
        (key, position, wl, i)
        for key, position, wl in t.workloads(free=True)
        if position > 0
        for i in range(len(wl["buffer"]))
    ]
    key, position, wl, i = t.pick("GIR304", sites, "no core runs two workloads")
    t.claim((key, position))
    entry = wl["buffer"][i]
    if entry["newly_added"]:
        problem = NOT_NEW_BUT_ABSENT
    else:
        problem = new_but_present(entry["address"])
    entry["newly_added"] = not entry["newly_added"]
    ptr = jp.join(key, position, "buffer", i, "newly_added")
    return lambda: [
        _finding(
            "GIR304", f"{_describe(entry)} {problem}", ptr, **_loc(key, wl, _single(entry["transfer_id"]))
        )
    ]


@injector(
    "GIR305", "a weight entry's transfer_id gains another weight's id, or its range differs from its source"
)
def _source_union(t: _Target) -> Lazy:
    weights = sorted(e["transfer_id"] for e in t.doc["-1"]["out"] if e["type"] == "weight")
    sites = [
        (key, position, wl, i)
        for key, position, wl in t.workloads(free=True)
        for i, e in enumerate(wl["buffer"])
        if e["type"] == "weight"
    ]
    key, position, wl, i = t.pick("GIR305", sites, "no snapshot holds a weight")
    t.claim((key, position))
    entry = wl["buffer"][i]
    source = entry["source"][0]
    others = [w for w in weights if w != source["transfer_id"]]
    if others and t.rng.random() < 0.5:
        entry["transfer_id"] = sorted([source["transfer_id"], t.rng.choice(others)])
        message = source_ids_message(entry["transfer_id"], [source["transfer_id"]])
    else:
        entry["upper"][1] += 1  # one input channel more than the DRAM source holds
        message = source_box_message(entry["lower"], entry["upper"], source["lower"], source["upper"])
    return lambda: [
        _finding(
            "GIR305",
            message,
            jp.join(key, position, "buffer", i),
            **_loc(key, wl, _single(entry["transfer_id"])),
        )
    ]


@injector("GIR306", "cur_wl_ifmap is cleared on an ifmap of the workload, or set on a weight")
def _cur_wl_ifmap(t: _Target) -> Lazy:
    sites = [
        (key, position, wl, i)
        for key, position, wl in t.workloads(free=True)
        for i, e in enumerate(wl["buffer"])
        if (e["cur_wl_ifmap"] and e["type"] == "ifmap") or e["type"] == "weight"
    ]
    key, position, wl, i = t.pick("GIR306", sites, "no snapshot holds an ifmap")
    t.claim((key, position))
    entry = wl["buffer"][i]
    wanted = sorted({tid for ifmap in wl["ifmap"] for tid in ifmap["transfer_id"]})
    if entry["type"] == "weight":
        entry["cur_wl_ifmap"] = True
        message = f"{_describe(entry)} {flagged_without_ifmap(wanted)}"
    else:
        entry["cur_wl_ifmap"] = False
        held = sorted(set(entry["transfer_id"]) & set(wanted))
        message = f"{_describe(entry)} {unflagged_ifmap(held)}"
    ptr = jp.join(key, position, "buffer", i, "cur_wl_ifmap")
    return lambda: [_finding("GIR306", message, ptr, **_loc(key, wl, _single(entry["transfer_id"])))]


@injector("GIR307", "a workload ifmap's size no longer matches N x roundup(C, align) x H x W x bitwidth/8")
def _size(t: _Target) -> Lazy:
    sites = [
        (key, position, wl, k)
        for key, position, wl in t.workloads(free=True)
        for k in range(len(wl["ifmap"]))
    ]
    key, position, wl, k = t.pick("GIR307", sites, "no workload left")
    t.claim((key, position))
    ifmap = wl["ifmap"][k]
    align, bits = ifmap["align"], ifmap["bitwidth"]
    expected = expected_fmap_size(ifmap["lower"], ifmap["upper"], align, bits)
    ifmap["size"] = expected + ADDRESS_ALIGN * (1 + t.rng.randrange(8))
    message = size_mismatch_message(ifmap["size"], ifmap["lower"], ifmap["upper"], align, bits)
    ptr = jp.join(key, position, "ifmap", k, "size")
    return lambda: [_finding("GIR307", message, ptr, **_loc(key, wl, _single(ifmap["transfer_id"])))]


@injector(
    "GIR308",
    f"a tensor that lives in one snapshot only moves {GUARD} bytes off the {ADDRESS_ALIGN}-byte grid "
    f"(needs --addr-align {ADDRESS_ALIGN})",
)
def _misaligned(t: _Target) -> Lazy:
    key, position, wl, i = t.pick(
        "GIR308", _single_snapshot_entries(t), "no tensor lives in one snapshot only"
    )
    t.claim((key, position))
    entry = wl["buffer"][i]
    entry["address"] += GUARD  # the allocator keeps GUARD free bytes after every tensor: no overlap
    message = misaligned_message(entry["address"], ADDRESS_ALIGN)
    ptr = jp.join(key, position, "buffer", i, "address")
    return lambda: [_finding("GIR308", message, ptr, **_loc(key, wl, _single(entry["transfer_id"])))]


# --- GIR4xx: WL0 -----------------------------------------------------------------------------------------------


def _wl0_sites(t: _Target) -> list[tuple[str, int, dict[str, Any], int]]:
    return [
        (key, position, wl, j)
        for key, position, wl in t.workloads(free=True)
        for j in range(len(wl.get("wl0_buffer") or []))
    ]


@injector("GIR401", "a WL0 snapshot gets a second copy of a weight 64 bytes above the first")
def _wl0_overlap(t: _Target) -> Lazy:
    key, position, wl, j = t.pick("GIR401", _wl0_sites(t), "no WL0 snapshot holds a weight")
    t.claim((key, position))
    entries = wl["wl0_buffer"]
    original = entries[j]
    twin = copy.deepcopy(original) | {"address": original["address"] + ADDRESS_ALIGN}
    entries.append(twin)
    n = len(entries) - 1

    def findings() -> list[Finding]:
        a, b = twin, original
        message = wl0_overlap_message(
            a["transfer_id"], a["address"], a["size"], b["transfer_id"], b["address"], b["size"]
        )
        ptr = jp.join(key, position, "wl0_buffer", n)
        return [_finding("GIR401", message, ptr, **_loc(key, wl, _single(a["transfer_id"])))]

    return findings


@injector("GIR402", f"a WL0 weight is moved to end 64 bytes past {WL0_SIZE} (needs --wl0-size {WL0_SIZE})")
def _wl0_capacity(t: _Target) -> Lazy:
    sites = [
        (key, position, wl, j)
        for key, position, wl, j in _wl0_sites(t)
        if wl["wl0_buffer"][j]["address"] == WL0_SLOT or len(wl["wl0_buffer"]) == 1
    ]
    key, position, wl, j = t.pick("GIR402", sites, "no WL0 snapshot holds a weight")
    t.claim((key, position))
    entry = wl["wl0_buffer"][j]
    # Stays above the other slot's weight (at most WL0_CHUNK bytes at 0): no GIR401.
    entry["address"] = WL0_SIZE - entry["size"] + ADDRESS_ALIGN
    end = entry["address"] + entry["size"]
    message = wl0_capacity_message(entry["transfer_id"], end, WL0_SIZE)
    return lambda: [_finding("GIR402", message, jp.join(key, position, "wl0_buffer", j), **_loc(key, wl))]


# --- GIR5xx: the schedule -------------------------------------------------------------------------------------


@injector(
    "GIR501", "a core's second-to-last workload gets an id above its successor's (references follow it)"
)
def _workload_order(t: _Target) -> Lazy:
    # Other injections may share these workloads: their findings read workload ids when they are built,
    # after this renumbering, and nothing else they check depends on an id.
    cores = [key for key in t.keys if len(t.doc[key]) >= 2]
    key = t.pick("GIR501", cores, "no core runs two workloads")
    n = len(t.doc[key])
    t.claim((key, n - 2), (key, n - 1))
    moved, successor = t.doc[key][n - 2], t.doc[key][n - 1]
    old, new = moved["workload_id"], t.fresh()
    moved["workload_id"] = new
    core = int(key)
    # Destinations and DRAM in entries name workloads by id: rename them too, so only the order is wrong.
    for _, _, wl in t.workloads():
        for o in wl["ofmap"]:
            _rename(o["destination"], core, old, new)
    for e in t.doc["-1"]["out"]:
        _rename(e["destination"], core, old, new)
    for e in t.doc["-1"]["in"]:
        if e["core_id"] == core and e["workload_id"] == old:
            e["workload_id"] = new
    return lambda: [
        _finding(
            "GIR501",
            order_message(successor["workload_id"], new),
            jp.join(key, n - 1, "workload_id"),
            core_id=core,
            workload_id=successor["workload_id"],
        )
    ]


def _rename(destinations: list[dict[str, Any]], core: int, old: int, new: int) -> None:
    for d in destinations:
        if d["type"] == "core" and d["core_id"] == core and d["workload_id"] == old:
            d["workload_id"] = new


@injector(
    "GIR502", "a producer comes to wait for its cross-core consumer's ofmap (through its weight or WL0)"
)
def _deadlock(t: _Target) -> Lazy:
    graph = _WaitGraph(t)
    for producer, consumer in t.sample(graph.cross_edges):
        p = graph.wl(producer)
        if {producer, consumer} & t.claimed or not ("weight" in p or p.get("wl0_buffer")):
            continue
        if graph.only_path(producer, consumer):
            break
    else:
        raise InjectionError(
            "--inject GIR502: no cross-core transfer whose producer holds a weight and whose consumer "
            "has no other path from it"
        )
    t.claim(producer, consumer)
    q = graph.wl(consumer)
    tid = q["ofmap"][0]["transfer_id"]
    if "weight" in p:
        p["weight"]["transfer_id"].append(tid)  # a workload waits for the producers of its weight
    else:
        # A destination makes the consumer's core send to the producer, which names the transfer in WL0.
        p["wl0_buffer"][0]["transfer_id"].append(tid)
        q["ofmap"][0]["destination"].insert(
            0, {"core_id": int(producer[0]), "type": "core", "workload_id": p["workload_id"]}
        )
    first, second = sorted([producer, consumer], key=lambda n: (int(n[0]), n[1]))

    def findings() -> list[Finding]:
        a, b = graph.wl(first), graph.wl(second)
        message = deadlock_message([(int(first[0]), a["workload_id"]), (int(second[0]), b["workload_id"])])
        return [
            _finding(
                "GIR502",
                message,
                jp.join(first[0], first[1]),
                core_id=int(first[0]),
                workload_id=a["workload_id"],
            )
        ]

    return findings


class _WaitGraph:
    """Program order plus cross-core transfers (ifmap and weight reads, core destinations), by (key, position)."""

    def __init__(self, t: _Target) -> None:
        self.t = t
        producer: dict[int, tuple[str, int]] = {}
        self.index: dict[tuple[int, int], tuple[str, int]] = {}
        for key, position, wl in t.workloads():
            self.index[(int(key), wl["workload_id"])] = (key, position)
            for o in wl["ofmap"]:
                producer.setdefault(o["transfer_id"], (key, position))
        self.succ: dict[tuple[str, int], list[tuple[str, int]]] = {}
        self.pred: dict[tuple[str, int], list[tuple[str, int]]] = {}
        self.cross_edges: list[tuple[tuple[str, int], tuple[str, int]]] = []
        for key, position, wl in t.workloads():
            node = (key, position)
            if position > 0:
                self._edge((key, position - 1), node)
            inputs = {tid for i in wl["ifmap"] for tid in i["transfer_id"]}
            inputs.update(wl["weight"]["transfer_id"] if "weight" in wl else ())
            for tid in sorted(inputs):
                source = producer.get(tid)
                if source is not None and source[0] != key:
                    self._edge(source, node)
                    self.cross_edges.append((source, node))
            for o in wl["ofmap"]:
                for d in o["destination"]:
                    target = self.index.get((d["core_id"], d["workload_id"])) if d["type"] == "core" else None
                    if target is not None and target[0] != key:
                        self._edge(node, target)

    def _edge(self, a: tuple[str, int], b: tuple[str, int]) -> None:
        self.succ.setdefault(a, []).append(b)
        self.pred.setdefault(b, []).append(a)

    def wl(self, node: tuple[str, int]) -> dict[str, Any]:
        wl: dict[str, Any] = self.t.doc[node[0]][node[1]]
        return wl

    def only_path(self, source: tuple[str, int], target: tuple[str, int]) -> bool:
        """Whether the edge source -> target is the only path between them (so closing it makes a 2-cycle).

        Workload ids rank the generator's global order, in which every edge points forward: a
        path to one of target's predecessors never leaves the ids below target's.
        """
        others = {p for p in self.pred.get(target, []) if p != source}
        if not others:
            return True
        limit = self.wl(target)["workload_id"]
        seen = {source}
        stack = [source]
        while stack:
            node = stack.pop()
            for nxt in self.succ.get(node, []):
                if nxt in others:
                    return False
                if nxt not in seen and self.wl(nxt)["workload_id"] < limit:
                    seen.add(nxt)
                    stack.append(nxt)
        return True


@injector("GIR503", "the mesh shrinks by one row (or a core key is added past a 1x1 mesh)")
def _outside_mesh(t: _Target) -> Lazy:
    doc = t.doc
    if doc["xlen"] * doc["ylen"] == 1:
        doc["1"] = []
    elif doc["ylen"] > 1:
        doc["ylen"] -= 1
    else:
        doc["xlen"] -= 1
    x, y = doc["xlen"], doc["ylen"]
    count = x * y
    outside = [int(k) for k in doc if k.isdigit() and int(k) >= count]
    return lambda: [
        _finding(
            "GIR503",
            outside_mesh_message(k, x, y),
            jp.join(str(k)),
            core_id=k,
        )
        for k in sorted(outside)
    ]


@injector("GIR506", "an empty core is added a million rows past the mesh (so GIR503 warns of it too)")
def _implausible_mesh(t: _Target) -> Lazy:
    doc = t.doc
    # Not a mesh id ((key - 1) % (xlen + 2) == xlen): the file keeps its 0..N-1 numbering.
    key = (doc["xlen"] + 2) * 10**6 + doc["xlen"] + 1
    doc[str(key)] = []

    def findings() -> list[Finding]:
        x, y = doc["xlen"], doc["ylen"]  # read after every injection: GIR503 may shrink the mesh
        cores = sum(1 for k in doc if k.isdigit())
        span = x * (key // x + 1)  # rows 0..key // x, the new core's row, in the 0..N-1 numbering
        return [
            _finding(
                "GIR503",
                outside_mesh_message(key, x, y),
                jp.join(str(key)),
                core_id=key,
            ),
            _finding(
                "GIR506",
                far_core_message(key, (key % x, key // x), x, y, span, cores),
                jp.join(str(key)),
                core_id=key,
            ),
        ]

    return findings


@injector("GIR504", "a tile's ifmap rows (or a WL0 entry's K range) are inverted: lower > upper")
def _bad_range(t: _Target) -> Lazy:
    sites: list[tuple[str, int, dict[str, Any], tuple[Any, ...]]] = []
    for key, position, wl in t.workloads(free=True):
        sites.extend((key, position, wl, ("tile_info", name)) for name in wl.get("tile_info") or {})
        sites.extend((key, position, wl, ("wl0_buffer", j)) for j in range(len(wl.get("wl0_buffer") or [])))
    key, position, wl, where = t.pick("GIR504", sites, "no workload left")
    t.claim((key, position))
    node = wl[where[0]][where[1]]
    if where[0] == "tile_info":
        node["ifmap_lower"][2] = node["ifmap_upper"][2] + 1
        message = bad_range_message(node["ifmap_lower"], node["ifmap_upper"], "ifmap_lower")
        ptr, tid = jp.join(key, position, *where, "ifmap_lower"), None
    else:
        node["lower"][0] = node["upper"][0] + 1
        message = bad_range_message(node["lower"], node["upper"])
        ptr, tid = jp.join(key, position, *where), _single(node["transfer_id"])
    return lambda: [_finding("GIR504", message, ptr, **_loc(key, wl, tid))]


@injector(
    "GIR505", "one tile's ofmap loses its last row, channel or column: the tiles no longer cover the workload"
)
def _workload_range(t: _Target) -> Lazy:
    sites = [
        (key, position, wl, name, d)
        for key, position, wl in t.workloads(free=True)
        for name, tile in (wl.get("tile_info") or {}).items()
        for d in (1, 2, 3)
        if tile["ofmap_upper"][d] > tile["ofmap_lower"][d]
    ]
    key, position, wl, name, d = t.pick("GIR505", sites, "no tile spans two elements")
    t.claim((key, position))
    wl["tile_info"][name]["ofmap_upper"][d] -= 1
    tiles = list(wl["tile_info"].values())
    lo, hi = wl["workload"]
    message = tile_coverage_problem([(tile["ofmap_lower"], tile["ofmap_upper"]) for tile in tiles], lo, hi)
    if message is None:  # other tiles would have to cover the row it gave up: synth's tiles do not overlap
        raise InjectionError("--inject GIR505: the tiles still cover the workload")
    return lambda: [_finding("GIR505", message, jp.join(key, position, "tile_info"), **_loc(key, wl))]


# --- entry point ------------------------------------------------------------------------------------------------

OPT_IN = {"GIR308": "addr_align", "GIR402": "wl0_size"}
"""Codes whose rule runs only with a validate option; their injection records it."""

COMPANIONS = {"GIR506": ("GIR503",)}
"""Codes whose defect triggers another rule by definition: a core far off the mesh is outside it."""

LAST = ("GIR501",)
"""Injected after the others: renumbering a workload would mislead the id-based searches of the rest."""


def parse_codes(text: str) -> list[str]:
    """Comma-separated codes -> sorted unique codes; raises UsageError for an unknown one."""
    codes = sorted({c.strip().upper() for c in text.split(",") if c.strip()})
    unknown = [c for c in codes if c not in INJECTORS]
    if unknown or not codes:
        raise UsageError(
            f"--inject: cannot inject {', '.join(unknown) or 'nothing'}; choose from {', '.join(INJECTORS)}"
        )
    return codes


def inject(document: Doc, codes: list[str], seed: int) -> Injection:
    """A copy of `document` with one defect per code, and the findings the checker must report for it.

    Raises UsageError for a code without an injector, InjectionError when the IR offers no place
    for a defect. The same document, codes and seed give the same result.
    """
    codes = parse_codes(",".join(codes))
    # A deep copy by JSON: the builder shares source and id lists between snapshots, and an
    # injector must change one entry of one snapshot only.
    damaged: Doc = json.loads(json.dumps(document))
    rng = random.Random(f"inject:{seed}:{','.join(codes)}")
    target = _Target(damaged, rng)
    order = [c for c in codes if c not in LAST] + [c for c in LAST if c in codes]
    pending = [INJECTORS[code](target) for code in order]
    findings = baseline(damaged)
    for lazy in pending:
        findings.extend(lazy())
    options = CheckOptions(
        addr_align=ADDRESS_ALIGN if "GIR308" in codes else None,
        wl0_size=WL0_SIZE if "GIR402" in codes else None,
    )
    return Injection(damaged, FileReport("", findings).findings, options)
