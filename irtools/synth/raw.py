"""Synthetic IRs in the raw dialect (Gemini's own IR before address allocation), and defects injected into them.

`to_raw` rewrites a generated documented IR the way the scheduler writes it before L2 addresses
exist: cores keyed by Gemini's mesh ids y*(xlen+2)+x+1, one ifmap object with max_workload_id,
destinations and sources naming cores by `id`, weights as output-channel ranges, buffer entries
as 1 KiB `block` counts (inputs held for their reader, outputs leaving the core as 10-block ofmap
entries: `_raw_core`), sizes in bits, and no buffersize, ring regions, WL0, tiles or addresses.
The same generator and seed give the same schedule in both dialects.

`inject_raw` adds one defect per code (GIR201, GIR203, GIR204, GIR502) and predicts the checker's
findings from the dialect's definitions, never from the checker's output.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from irtools import pointer as jp
from irtools.dialects import RAW
from irtools.findings import FileReport, Finding, Severity
from irtools.rules.registry import RULES, UsageError, skipped_note
from irtools.rules.schedule.core_outside_mesh import mesh_numbering_message
from irtools.rules.schedule.deadlock import deadlock_message
from irtools.rules.transfers.causality import max_workload_message
from irtools.rules.transfers.dangling_transfer import dangling_message
from irtools.rules.transfers.destination_mismatch import missing_destination_message
from irtools.synth.inject import CANDIDATES, Injection, InjectionError, registrar

Doc = dict[str, Any]
Node = tuple[str, int]
"""(core key, position) of a workload."""

BLOCK = 1024
BITS = 8
OFMAP_BLOCKS = 10
"""The blocks the scheduler lists for every ofmap entry: a staging buffer, not the whole output."""


def _mesh_key(linear: int, xlen: int) -> int:
    return (linear // xlen) * (xlen + 2) + linear % xlen + 1


def _channels(coord: list[int]) -> int:
    return coord[0]  # a weight's first coordinate is its output channel K


def _bits(size: int) -> int:
    return size * BITS


def to_raw(document: Doc) -> Doc:
    """The raw-dialect form of a generated (documented) IR."""
    xlen = document["xlen"]
    core = {int(k): _mesh_key(int(k), xlen) for k in document if k.isdigit()}
    producer: dict[int, int] = {}
    for key in document:
        if key.isdigit():
            for wl in document[key]:
                for o in wl["ofmap"]:
                    producer.setdefault(o["transfer_id"], wl["workload_id"])
    writer = {e["transfer_id"]: e["workload_id"] for e in document["-1"]["in"]}
    for e in document["-1"]["out"]:
        written = [writer[t] for t in e.get("related_ifmap", []) if t in writer]
        if written:
            producer.setdefault(e["transfer_id"], max(written))
    raw: Doc = {"-1": _raw_dram(document["-1"], core)}
    for key in sorted((k for k in document if k.isdigit()), key=int):
        raw[str(core[int(key)])] = _raw_core(document[key], int(key), core, producer)
    raw.update(top_batch_cut=document["top_batch_cut"], xlen=document["xlen"], ylen=document["ylen"])
    return raw


def _raw_dram(section: Doc, core: dict[int, int]) -> Doc:
    ins = [
        {
            "core_id": core[e["core_id"]],
            "lower": e["lower"],
            "related_ofmap": e.get("related_ofmap", []),
            "transfer_id": e["transfer_id"],
            "upper": e["upper"],
            "workload_id": e["workload_id"],
        }
        for e in section["in"]
    ]
    outs = []
    for e in section["out"]:
        weight = e["type"] == "weight"
        dests = [d for d in e["destination"] if d["type"] == "core"]
        outs.append(
            {
                "destination": [
                    {"id": core[d["core_id"]], "type": "core", "workload_id": d["workload_id"]} for d in dests
                ],
                "layer_name": next((d["layer_name"] for d in dests if d.get("layer_name")), ""),
                "lower": _channels(e["lower"]) if weight else e["lower"],
                "related_ifmap": e.get("related_ifmap", []),
                "size": _bits(e["size"]),
                "transfer_id": e["transfer_id"],
                "type": e["type"],
                "upper": _channels(e["upper"]) if weight else e["upper"],
            }
        )
    return {"in": ins, "out": outs}


def _raw_destination(d: Doc, core: dict[int, int]) -> Doc:
    if d["type"] == "DRAM":
        return {"id": 0, "type": "DRAM"}
    return {"id": core[d["core_id"]], "type": "core", "workload_id": d["workload_id"]}


def _raw_source(s: Doc, weight: bool, core: dict[int, int]) -> Doc:
    out = {
        "id": 0 if s["type"] == "DRAM" else core[s["core_id"]],
        "lower": _channels(s["lower"]) if weight else s["lower"],
        "size": _bits(s["size"]),
        "transfer_id": s["transfer_id"],
        "type": s["type"],
        "upper": _channels(s["upper"]) if weight else s["upper"],
    }
    if s.get("layer_name") is not None:
        out["layer_name"] = s["layer_name"]
    return out


def _raw_core(program: list[Doc], home: int, core: dict[int, int], producer: dict[int, int]) -> list[Doc]:
    """One core's workloads in the raw dialect, their snapshots as the scheduler lists them
    (GEMINI-HPCA2024 `SchNode::IR_gen`, every real raw file):

    - an input under its reader's layer and range, tagged with its reader's workload id, in every
      snapshot from when it is in L2 (from its producer's workload, when that runs on this core) until
      its reader runs; one entry per reader, so an input read twice is listed twice;
    - the workload's own output, when it leaves the core (for DRAM or another core), as an ofmap
      entry; an output read on this core is an input of its reader;
    - weights as the generator holds them.
    """
    made_here = {o["transfer_id"]: p for p, wl in enumerate(program) for o in wl["ofmap"]}
    holds = [{t for entry in wl["buffer"] for t in entry["transfer_id"]} for wl in program]
    listed: list[list[Doc]] = [[] for _ in program]
    ahead: list[list[Doc]] = [[] for _ in program]
    for position, wl in enumerate(program):
        wanted = {t for ifmap in wl["ifmap"] for t in ifmap["transfer_id"]}
        own = {o["transfer_id"] for o in wl["ofmap"]}
        leaves = any(d["core_id"] != home for o in wl["ofmap"] for d in o["destination"])
        for entry in wl["buffer"]:
            ids = entry["transfer_id"]
            if entry["type"] == "weight":
                listed[position].append(_raw_entry(entry, wl, core))
                continue
            if entry["type"] == "ifmap" and not wanted.isdisjoint(ids):
                read = _raw_entry(entry, wl, core, held_for=wl["workload_id"])
                listed[position].append(read)
                # A copy per snapshot: a defect is injected into one snapshot's entry only.
                for before in range(_arrival(position, ids, holds, made_here), position):
                    ahead[before].append(copy.deepcopy(read))
            if not own.isdisjoint(ids) and (entry["type"] == "ofmap" or leaves):
                listed[position].append(_raw_output(entry, wl))
    return [_raw_workload(wl, listed[p] + ahead[p], core, producer) for p, wl in enumerate(program)]


def _arrival(position: int, ids: list[int], holds: list[set[int]], made_here: dict[int, int]) -> int:
    """The first position from which the core holds the input `ids` read at `position`: where its
    producer ran on this core, or where the generator's snapshots start holding it without a break."""
    start = position
    while start > 0 and not holds[start - 1].isdisjoint(ids):
        start -= 1
    return min([start, *(made_here[t] for t in ids if made_here.get(t, position) < position)])


def _raw_output(entry: Doc, wl: Doc) -> Doc:
    """The scheduler's ofmap entry: a fixed 10-block staging buffer, its size in bits, no source (all
    9,128 ofmap entries of the 22 raw fixtures), although the documented form names the core as its
    source."""
    return {
        "block": OFMAP_BLOCKS,
        "layer": wl["layer_name"],
        "lower": entry["lower"],
        "size": _bits(entry["size"]),
        "type": "ofmap",
        "upper": entry["upper"],
    }


def _raw_entry(b: Doc, wl: Doc, core: dict[int, int], held_for: int | None = None) -> Doc:
    """An input or weight entry; `wl` is the workload whose layer it is listed under."""
    weight = b["type"] == "weight"
    entry: Doc = {
        "block": -(-b["size"] // BLOCK),
        "layer": (b.get("layer_name") or wl["layer_name"]) if weight else wl["layer_name"],
        "lower": _channels(b["lower"]) if weight else b["lower"],
        "source": [_raw_source(s, weight, core) for s in b["source"]],
        "transfer_id": b.get("transfer_id") or sorted({s["transfer_id"] for s in b["source"]}),
        "type": b["type"],
        "upper": _channels(b["upper"]) if weight else b["upper"],
    }
    if held_for is not None:
        entry["workload_id"] = held_for
    return entry


def _raw_workload(wl: Doc, buffer: list[Doc], core: dict[int, int], producer: dict[int, int]) -> Doc:
    ids = sorted({t for i in wl["ifmap"] for t in i["transfer_id"]})
    lower = [min(i["lower"][d] for i in wl["ifmap"]) for d in range(4)] if wl["ifmap"] else wl["workload"][0]
    upper = [max(i["upper"][d] for i in wl["ifmap"]) for d in range(4)] if wl["ifmap"] else wl["workload"][1]
    made = [producer[t] for t in ids if t in producer]
    raw: Doc = {
        "buffer": buffer,
        "ifmap": {
            "lower": lower,
            "max_workload_id": max(made) if made else 0,
            "transfer_id": ids,
            "upper": upper,
        },
        "layer_name": wl["layer_name"],
        "layer_type": wl["layer_type"],
        "ofmap": [
            {
                "destination": [_raw_destination(d, core) for d in o["destination"]],
                "lower": o["lower"],
                "size": _bits(o["size"]),
                "transfer_id": o["transfer_id"],
                "upper": o["upper"],
            }
            for o in wl["ofmap"]
        ],
        "ofmap_size": _bits(wl["ofmap_size"]),
        "time": wl["time"],
        "workload": wl["workload"],
        "workload_id": wl["workload_id"],
    }
    if "weight" in wl:
        w = wl["weight"]
        raw["weight"] = {
            "lower": _channels(w["lower"]),
            "transfer_id": w["transfer_id"],
            "upper": _channels(w["upper"]),
        }
    return raw


def raw_baseline(document: Doc) -> list[Finding]:
    """What `irtools validate` says about any raw file: the dialect, the rules it skips, the numbering."""
    return [
        Finding("GIR103", Severity.INFO, RAW.note or "", ""),
        Finding("GIR103", Severity.INFO, skipped_note(RAW.capabilities, RAW.name) or "", ""),
        Finding(
            "GIR503",
            Severity.INFO,
            mesh_numbering_message(document["xlen"], document["ylen"]),
            "",
        ),
    ]


# --- injectors --------------------------------------------------------------------------------------------


class _Raw:
    """The raw document being damaged: workloads, producers, the wait graph, claims and fresh ids."""

    def __init__(self, document: Doc, rng: random.Random) -> None:
        self.doc = document
        self.rng = rng
        self.claimed: set[Node] = set()
        self.keys = sorted((k for k in document if k.isdigit()), key=int)
        self.by_id: dict[int, Node] = {}
        self.producer: dict[int, Node] = {}
        for key, position, wl in self.workloads():
            self.by_id[wl["workload_id"]] = (key, position)
            for o in wl["ofmap"]:
                self.producer.setdefault(o["transfer_id"], (key, position))
        writer = {e["transfer_id"]: self.by_id[e["workload_id"]] for e in document["-1"]["in"]}
        self.read_back = {
            e["transfer_id"]: [writer[t] for t in e["related_ifmap"] if t in writer]
            for e in document["-1"]["out"]
        }
        ids = [0, *self.by_id, *self.producer, *(int(e["transfer_id"]) for e in document["-1"]["out"])]
        self._fresh: int = max(ids) + 1000

    def wl(self, node: Node) -> Doc:
        found: Doc = self.doc[node[0]][node[1]]
        return found

    def workloads(self) -> Iterator[tuple[str, int, Doc]]:
        for key in self.keys:
            for position, wl in enumerate(self.doc[key]):
                yield key, position, wl

    def fresh(self) -> int:
        self._fresh += 1 + self.rng.randrange(50)
        return self._fresh

    def waits(self, node: Node) -> set[Node]:
        """The workloads `node` waits for: its core predecessor, producers (also through DRAM), senders."""
        key, position = node
        wl = self.wl(node)
        found = {(key, position - 1)} if position > 0 else set()
        reads = wl["ifmap"]["transfer_id"] + (wl.get("weight") or {}).get("transfer_id", [])
        for t in reads:
            if t in self.producer:
                found.add(self.producer[t])
            found.update(self.read_back.get(t, ()))
        found.discard(node)
        return found

    def reaches(self, source: Node, target: Node, skip_direct: bool) -> bool:
        """Whether a wait chain leads from source to target (without the direct edge when skip_direct).

        Edges point from lower to higher workload ids in a generated schedule, so the search stays
        below the target's id.
        """
        succ: dict[Node, list[Node]] = {}
        limit = int(self.wl(target)["workload_id"])
        for key, position, wl in self.workloads():
            if wl["workload_id"] <= limit:
                for w in self.waits((key, position)):
                    succ.setdefault(w, []).append((key, position))
        stack, seen = [source], {source}
        while stack:
            node = stack.pop()
            for nxt in succ.get(node, ()):
                if nxt == target and (node != source or not skip_direct):
                    return True
                if nxt not in seen and self.wl(nxt)["workload_id"] < limit:
                    seen.add(nxt)
                    stack.append(nxt)
        return False

    def pick(self, code: str, candidates: list[Any], why: str) -> Any:
        if not candidates:
            raise InjectionError(f"--inject {code} --dialect raw: {why}")
        return self.rng.choice(candidates)


def _finding(code: str, message: str, pointer: str, **loc: Any) -> Finding:
    return Finding(code, RULES[code].severity, message, pointer, **loc)


def _loc(node: Node, wl: Doc, transfer_id: int | None = None) -> dict[str, Any]:
    return {"core_id": int(node[0]), "workload_id": wl["workload_id"], "transfer_id": transfer_id}


RawInjector = Callable[[_Raw], list[Finding]]
RAW_INJECTORS: dict[str, RawInjector] = {}
RAW_HOW: dict[str, str] = {}


_injector = registrar(RAW_INJECTORS, RAW_HOW)


@_injector("GIR201", "an ifmap names one more transfer id, which nobody produces")
def _dangling(t: _Raw) -> list[Finding]:
    nodes = [(k, p) for k, p, _ in t.workloads() if (k, p) not in t.claimed]
    node = t.pick("GIR201", nodes, "no workload left")
    t.claimed.add(node)
    wl, tid = t.wl(node), t.fresh()
    wl["ifmap"]["transfer_id"].append(tid)  # max_workload_id stays right: nobody produces the new id
    message = dangling_message(tid)
    return [_finding("GIR201", message, jp.join(node[0], node[1], "ifmap"), **_loc(node, wl, tid))]


@_injector("GIR203", "a DRAM out destination names another core by id (whose workloads have other ids)")
def _destination_id(t: _Raw) -> list[Finding]:
    out = t.doc["-1"]["out"]
    sites = [(k, j) for k, e in enumerate(out) for j in range(len(e["destination"]))]
    k, j = t.pick("GIR203", sites, "no DRAM out destination")
    dest = out[k]["destination"][j]
    others = [int(key) for key in t.keys if int(key) != dest["id"]]
    wrong = t.pick("GIR203", others, "needs two cores")
    dest["id"] = wrong  # workload ids are unique across cores: that core has no such workload
    tid = out[k]["transfer_id"]
    message = missing_destination_message(wrong, dest["workload_id"], tid)
    return [_finding("GIR203", message, jp.join("-1", "out", k, "destination", j), transfer_id=tid)]


@_injector("GIR204", "an ifmap's max_workload_id names its own workload instead of its latest producer")
def _max_workload(t: _Raw) -> list[Finding]:
    sites = [
        (k, p)
        for k, p, wl in t.workloads()
        if (k, p) not in t.claimed and any(tid in t.producer for tid in wl["ifmap"]["transfer_id"])
    ]
    node = t.pick("GIR204", sites, "no workload reads another workload's ofmap")
    t.claimed.add(node)
    wl = t.wl(node)
    ids = wl["ifmap"]["transfer_id"]
    latest = wl["ifmap"]["max_workload_id"]
    wl["ifmap"]["max_workload_id"] = wl["workload_id"]
    message = max_workload_message("ifmap", wl["workload_id"], ids, latest)
    single = ids[0] if len(ids) == 1 else None
    return [
        _finding(
            "GIR204", message, jp.join(node[0], node[1], "ifmap", "max_workload_id"), **_loc(node, wl, single)
        )
    ]


@_injector(
    "GIR502", "a producer's weight comes to wait for its cross-core consumer's ofmap: a two-core wait cycle"
)
def _deadlock(t: _Raw) -> list[Finding]:
    edges = []
    for key, position, wl in t.workloads():
        for tid in wl["ifmap"]["transfer_id"]:
            source = t.producer.get(tid)
            if source is not None and source[0] != key:
                edges.append((source, (key, position)))
    candidates = t.rng.sample(edges, min(len(edges), CANDIDATES))
    for producer, consumer in candidates:
        p, q = t.wl(producer), t.wl(consumer)
        if {producer, consumer} & t.claimed or "weight" not in p or not q["ofmap"]:
            continue
        if not t.reaches(producer, consumer, skip_direct=True):
            break
    else:
        raise InjectionError(
            "--inject GIR502 --dialect raw: no cross-core transfer whose producer holds a weight and whose "
            "consumer has no other wait chain from it"
        )
    t.claimed.update((producer, consumer))
    p["weight"]["transfer_id"].append(
        q["ofmap"][0]["transfer_id"]
    )  # a workload waits for its weight's producers
    first, second = sorted([producer, consumer], key=lambda n: (int(n[0]), n[1]))
    a, b = t.wl(first), t.wl(second)
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


def inject_raw(document: Doc, codes: list[str], seed: int) -> Injection:
    """A copy of raw `document` with one defect per code, and the findings the checker must report."""
    unknown = [c for c in codes if c not in RAW_INJECTORS]
    if unknown:
        raise UsageError(
            f"--inject {','.join(unknown)}: not available with --dialect raw (available: {', '.join(RAW_INJECTORS)})"
        )
    damaged: Doc = json.loads(json.dumps(document))
    target = _Raw(damaged, random.Random(f"inject-raw:{seed}:{','.join(codes)}"))
    findings = raw_baseline(damaged)
    for code in codes:
        findings.extend(RAW_INJECTORS[code](target))
    return Injection(damaged, FileReport("", findings).findings)
