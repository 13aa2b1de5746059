"""Input generators shared by the fuzz tests and the long campaign (benchmarks/fuzz_campaign.py).

Everything is driven by a `random.Random`, so an input is reproducible from its seed, and the
hypothesis tests can hand in `st.randoms()`. Three layers:

- `mutate`: structural mutations of a parsed IR at random JSON paths (delete a key, wrong types,
  out-of-range integers, huge/empty arrays, duplicated or swapped entries, random ids/addresses);
- `serialize`: json.dumps, sometimes followed by raw-text damage the JSON model cannot express
  (NaN/Infinity/1e999 tokens, 5000-deep nesting, duplicate keys, BOM, UTF-16/32, truncation);
- `check_bytes` / `contract_violations`: run bytes through load + all rules and list every way the
  result breaks the contract (a GIR001 finding, a malformed code, severity or pointer).
"""

from __future__ import annotations

import codecs
import copy
import functools
import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.load import load_ir
from irtools.rules.context import CheckOptions
from irtools.validate import check_loaded

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
FIXTURES = ROOT.parent / "shared" / "fixtures"
"""Same folder as tests/conftest.py's FIXTURES (read-only, beside the project)."""

Path_ = tuple[str | int, ...]
Paths = tuple[Path_, ...]
ByKey = dict[str, Paths]

# --------------------------------------------------------------------------- checking


OPTIONS = (CheckOptions(), CheckOptions(wl0_size=16384, addr_align=64, l2_size=256 * 1024))
"""Default options, and the opt-in rules (GIR308, GIR402; GIR301 on raw and alloc files) switched on."""

_CODE = re.compile(r"GIR\d{3}\Z")
_POINTER = re.compile(r"(/([^~/]|~[01])*)*\Z")


def check_bytes(data: bytes, options: CheckOptions | None = None) -> list[Finding]:
    """What `irtools validate` computes for one file, in-process: load the bytes, run every rule."""
    return check_loaded(load_ir(data, "<fuzz>"), options or CheckOptions())


def contract_violations(findings: list[Finding]) -> list[str]:
    """Why these findings break the contract; empty when they keep it."""
    problems = []
    for f in findings:
        if f.code == "GIR001":
            problems.append(f"GIR001: {f.message}")
        if not isinstance(f.code, str) or not _CODE.match(f.code):
            problems.append(f"bad code {f.code!r}")
        if not isinstance(f.severity, Severity):
            problems.append(f"{f.code}: bad severity {f.severity!r}")
        if not isinstance(f.pointer, str) or not _POINTER.match(f.pointer):
            problems.append(f"{f.code}: bad pointer {f.pointer!r}")
        for ptr in f.related:
            if not isinstance(ptr, str) or not _POINTER.match(ptr):
                problems.append(f"{f.code}: bad related pointer {ptr!r}")
        if not isinstance(f.message, str) or not f.message:
            problems.append(f"{f.code}: empty message")
    return problems


def location_violations(data: bytes, findings: list[Finding]) -> list[str]:
    """Findings that point at the wrong place of the file as written.

    A pointer must exist in the file (GIR306 may name an absent cur_wl_ifmap flag: its parent must
    exist); a finding on a workload must name that workload's core and id; and a finding's
    transfer_id must be the one the nearest enclosing entry with a transfer_id holds.
    """
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return []  # unparsable: every finding is a GIR100 at ""
    problems = []
    for f in findings:
        for ptr in (f.pointer, *f.related):
            tokens = jp.split(ptr) if ptr.startswith("/") else []
            if _exists(doc, tokens) is _MISSING and (
                f.code != "GIR306" or _exists(doc, tokens[:-1]) is _MISSING
            ):
                problems.append(f"{f.code}: pointer {ptr!r} is not in the file")
        tokens = jp.split(f.pointer) if f.pointer.startswith("/") else []
        on_core = len(tokens) >= 2 and tokens[0].isdecimal()
        if f.core_id is not None and on_core and tokens[0] != str(f.core_id):
            problems.append(f"{f.code}: pointer {f.pointer!r} is not on core {f.core_id}")
        if f.workload_id is not None and on_core:
            workload = _exists(doc, tokens[:2])
            wid = workload.get("workload_id") if isinstance(workload, dict) else None
            if type(wid) is int and wid != f.workload_id:
                problems.append(f"{f.code}: pointer {f.pointer!r} holds workload {wid}, not {f.workload_id}")
        if f.transfer_id is not None:
            for n in range(len(tokens), 2, -1):
                node = _exists(doc, tokens[:n])
                if isinstance(node, dict) and "transfer_id" in node:
                    tid = node["transfer_id"]
                    # the raw dialect's weight entries may nest each id: [[t]]
                    flat = (
                        [t for x in tid for t in (x if isinstance(x, list) else [x])]
                        if isinstance(tid, list)
                        else []
                    )
                    if tid != f.transfer_id and f.transfer_id not in flat:
                        problems.append(
                            f"{f.code}: {f.pointer!r} holds transfer {tid!r}, not {f.transfer_id}"
                        )
                    break
    return problems


_MISSING = object()


def _exists(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isascii() and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


# --------------------------------------------------------------------------- bases


@functools.cache
def base_bytes(path: Path, window: tuple[int, int] | None = None) -> bytes:
    """A base document as compact JSON; `window` = (start, count) keeps that slice of each core."""
    doc = json.loads(path.read_bytes())
    if window is not None:
        doc = trim(doc, *window)
    return json.dumps(doc, separators=(",", ":")).encode()


def trim(doc: dict[str, Any], start: int, count: int) -> dict[str, Any]:
    """A small base cut from a big IR: workloads [start, start+count) of each core and their DRAM entries."""
    out = {k: v for k, v in doc.items() if not k.isdigit()}
    kept: set[tuple[int, int]] = set()
    for key, workloads in doc.items():
        if key.isdigit() and isinstance(workloads, list):
            window = workloads[start : start + count]
            out[key] = window
            kept.update(
                (int(key), w["workload_id"]) for w in window if isinstance(w, dict) and "workload_id" in w
            )
    dram = doc.get("-1")
    if isinstance(dram, dict):

        def used(entry: Any) -> bool:
            dests = entry.get("destination") if isinstance(entry, dict) else None
            return any(
                # documented destinations name the core by core_id, the raw dialect's by id
                isinstance(d, dict) and (d.get("core_id", d.get("id")), d.get("workload_id")) in kept
                for d in dests or ()
            )

        out["-1"] = {
            **dram,
            "in": [e for e in dram.get("in", []) if (e.get("core_id"), e.get("workload_id")) in kept],
            "out": [e for e in dram.get("out", []) if used(e)],
        }
    return out


def sample_bases() -> list[Path]:
    """The bundled samples: the valid ones, the near misses and one invalid file per rule."""
    return sorted(p for p in (ROOT / "sample_ir").rglob("*.json") if not p.name.endswith(".expected.json"))


@functools.cache
def fixture_bases(fixtures_dir: Path = FIXTURES, window: int = 3) -> tuple[tuple[Path, tuple[int, int]], ...]:
    """Small slices (start, count) of every real fixture: first, middle and last `window` workloads."""
    bases: list[tuple[Path, tuple[int, int]]] = []
    if not fixtures_dir.is_dir():
        return ()
    globs = ("gemini/*.json", "npu-simulator/*.json", "gemini-raw/*.json", "gemini-alloc/*.json")
    for path in sorted(p for pattern in globs for p in fixtures_dir.glob(pattern)):
        doc = json.loads(path.read_bytes())
        longest = max((len(v) for k, v in doc.items() if k.isdigit() and isinstance(v, list)), default=0)
        for start in sorted({0, max(longest // 2 - window // 2, 0), max(longest - window, 0)}):
            bases.append((path, (start, window)))
    return tuple(bases)


# --------------------------------------------------------------------------- paths


def walk(doc: Any) -> Iterator[Path_]:
    """Every path below the root (iteratively, so deep documents are fine)."""
    stack: list[tuple[Any, Path_]] = [(doc, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            items: Iterator[tuple[str | int, Any]] = iter(node.items())
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        for key, child in items:
            stack.append((child, (*path, key)))
            yield (*path, key)


@functools.cache
def paths_of(data: bytes) -> tuple[Paths, ByKey]:
    """All paths of a base document, and those paths grouped by their last dict key."""
    doc = json.loads(data)
    paths = tuple(walk(doc))
    by_key: dict[str, list[Path_]] = {}
    for p in paths:
        for token in reversed(p):
            if isinstance(token, str):
                by_key.setdefault(token, []).append(p)
                break
    return paths, {k: tuple(v) for k, v in by_key.items()}


def resolve(doc: Any, path: Path_) -> tuple[Any, str | int] | None:
    """(container, key) of `path` in `doc`, or None when an earlier mutation removed it."""
    node = doc
    for token in path[:-1]:
        try:
            node = node[token]
        except (KeyError, IndexError, TypeError):
            return None
    if not path:
        return None
    last = path[-1]
    if isinstance(node, dict) and isinstance(last, str) and last in node:
        return node, last
    if isinstance(node, list) and isinstance(last, int) and 0 <= last < len(node):
        return node, last
    return None


# --------------------------------------------------------------------------- values

ID_KEYS = (
    "transfer_id",
    "core_id",
    "workload_id",
    "tensor_id",
    "tensor_order",
    "address",
    "size",
    "ofmap_size",
    "align",
    "bitwidth",
    "lower",
    "upper",
    "buffersize",
    "xlen",
    "ylen",
    "top_batch_cut",
    "ring_buffer_info",
    "related_ofmap",
    "related_ifmap",
    "time",
)
"""Keys whose integers the rules compute with: targeted more often than others."""

BIG_INTS = (
    -1,
    -(2**31),
    -(2**63),
    -(2**63) - 1,
    2**31,
    2**32,
    2**63 - 1,
    2**63,
    2**64,
    2**64 + 1,
    10**30,
    -(10**30),
    10**300,
    int("9" * 4000),
)


def random_int(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.45:
        return rng.randint(0, 12)  # small: collides with real ids and coordinates
    if roll < 0.7:
        return rng.choice(BIG_INTS)
    if roll < 0.85:
        return rng.randint(-(2**20), 2**24)
    return rng.getrandbits(rng.choice((16, 32, 63, 64, 65, 128)))


_STRINGS = (
    "",
    "0",
    "123",
    "-1",
    "NaN",
    "Infinity",
    "1e999",
    "null",
    "true",
    "DRAM",
    "core",
    "weight",
    "ifmap",
    "\u0000",
    "\ud800",
    "~/~0~1",
    "é" * 3,
    "x" * 10000,
    "$cores",
)


def random_scalar(rng: random.Random) -> Any:
    kind = rng.randrange(7)
    if kind == 0:
        return random_int(rng)
    if kind == 1:
        return rng.choice((0.5, -0.0, 1.0, 1e308, -1e308, 5e-324, 2.0**63, 1e16 + 1, 3.14))
    if kind == 2:
        return rng.choice(_STRINGS)
    if kind == 3:
        return rng.choice((True, False))
    if kind == 4:
        return None
    if kind == 5:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(8)))
    return rng.randint(-5, 5)


def wrong_type(rng: random.Random, old: Any) -> Any:
    """A value of another JSON type (or the same type with a hostile value)."""
    choice = rng.randrange(11)
    if choice == 0:
        return str(old)[:50] if not isinstance(old, (dict, list)) else "x"
    if choice == 1:
        return rng.choice((1.5, -0.0, 1e308, float(old) if type(old) is int and abs(old) < 2**1000 else 2.5))
    if choice == 2:
        return rng.choice(("NaN", "Infinity", "-Infinity"))
    if choice == 3:
        return None
    if choice == 4:
        return [] if rng.random() < 0.5 else [old]
    if choice == 5:
        return {} if rng.random() < 0.5 else {"value": old}
    if choice == 6:
        return rng.choice((True, False))
    if choice == 7:
        return random_int(rng)
    if choice == 8:
        return [random_int(rng) for _ in range(rng.choice((0, 1, 2, 3, 4, 5, 8)))]
    if choice == 9:
        return [[random_int(rng) for _ in range(4)] for _ in range(rng.randrange(4))]
    return random_scalar(rng)


# --------------------------------------------------------------------------- mutations

Mutation = Callable[[random.Random, Any, Paths, ByKey], str | None]


def _pick(rng: random.Random, doc: Any, paths: Paths, tries: int = 8) -> tuple[Path_, Any, str | int] | None:
    for _ in range(tries):
        if not paths:
            return None
        path = rng.choice(paths)
        hit = resolve(doc, path)
        if hit is not None:
            return path, *hit
    return None


def _pick_id(rng: random.Random, doc: Any, by_key: ByKey) -> tuple[Path_, Any, str | int] | None:
    keys = [k for k in ID_KEYS if k in by_key]
    if not keys:
        return None
    return _pick(rng, doc, by_key[rng.choice(keys)])


def _show(path: Path_) -> str:
    return "/" + "/".join(str(t) for t in path)


def m_delete(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    hit = _pick(rng, doc, paths)
    if hit is None:
        return None
    path, node, key = hit
    del node[key]
    return f"delete {_show(path)}"


def m_wrong_type(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    hit = _pick(rng, doc, paths) if rng.random() < 0.5 else _pick_id(rng, doc, by_key)
    if hit is None:
        return None
    path, node, key = hit
    node[key] = wrong_type(rng, node[key])
    return f"wrong type at {_show(path)}"


def m_random_int(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    hit = _pick_id(rng, doc, by_key)
    if hit is None:
        return None
    path, node, key = hit
    value = node[key]
    if isinstance(value, list) and value and rng.random() < 0.7:
        i = rng.randrange(len(value))
        if isinstance(value[i], list) and value[i]:
            value[i][rng.randrange(len(value[i]))] = random_int(rng)
        else:
            value[i] = random_int(rng)
    else:
        node[key] = random_int(rng)
    return f"random int at {_show(path)}"


def m_resize_list(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    for _ in range(8):
        hit = _pick(rng, doc, paths)
        if hit is None:
            return None
        path, node, key = hit
        value = node[key]
        if not isinstance(value, list):
            continue
        roll = rng.random()
        if roll < 0.3 or not value:
            node[key] = []
            return f"empty list at {_show(path)}"
        if roll < 0.6:
            node[key] = value * rng.choice((2, 10, 100))  # shared references: serialized as copies
            return f"repeat list at {_show(path)}"
        if roll < 0.8:
            node[key] = [rng.choice(value) for _ in range(rng.randrange(1, 6))]
            return f"resample list at {_show(path)}"
        node[key] = [rng.randint(0, 9)] * rng.choice((5, 1000, 100_000))
        return f"huge int list at {_show(path)}"
    return None


def m_duplicate_entry(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    for _ in range(8):
        hit = _pick(rng, doc, paths)
        if hit is None:
            return None
        path, node, key = hit
        if isinstance(node, list):
            node.insert(rng.randrange(len(node) + 1), copy.deepcopy(node[key]))
            return f"duplicate entry {_show(path)}"
    return None


def m_swap(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    if rng.random() < 0.6:
        keys = [k for k in by_key if len(by_key[k]) > 1]
        if not keys:
            return None
        group = by_key[rng.choice(keys)]
    else:
        group = paths
    a, b = _pick(rng, doc, group), _pick(rng, doc, group)
    if a is None or b is None or a[0] == b[0]:
        return None
    # Swapping a node with its own ancestor would build a cycle; copy the values instead.
    va, vb = copy.deepcopy(a[1][a[2]]), copy.deepcopy(b[1][b[2]])
    a[1][a[2]] = vb
    if resolve(doc, b[0]) is not None:
        node, key = resolve(doc, b[0])  # type: ignore[misc]
        node[key] = va
    return f"swap {_show(a[0])} <-> {_show(b[0])}"


def m_shuffle(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    """Reorder a list: a core's workloads (program order, deadlocks), buffer entries, coordinates."""
    group = by_key.get("workload_id", ()) if rng.random() < 0.5 else paths
    hit = _pick(rng, doc, group)
    if hit is None:
        return None
    path = hit[0][:-2] if group is not paths else hit[0]  # the core's list of workloads
    found = resolve(doc, path)
    if found is None or not isinstance(found[0][found[1]], list):
        return None
    value = found[0][found[1]]
    if rng.random() < 0.5:
        value.reverse()
    else:
        rng.shuffle(value)
    return f"reorder {_show(path)}"


def m_copy_subtree(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    a, b = _pick(rng, doc, paths), _pick(rng, doc, paths)
    if a is None or b is None:
        return None
    b[1][b[2]] = copy.deepcopy(a[1][a[2]])
    return f"copy {_show(a[0])} over {_show(b[0])}"


def m_rename_key(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    for _ in range(8):
        hit = _pick(rng, doc, paths)
        if hit is None:
            return None
        path, node, key = hit
        if isinstance(node, dict):
            new = rng.choice(
                (
                    key.upper(),
                    key + "_",
                    key[:-1],
                    "",
                    "~1/",
                    "$cores",
                    "-1",
                    "0",
                    "00",
                    "7",
                    "999999999",
                    "1000000000",
                    "in",
                    "out",
                    "type",
                    "source",
                    "\ud800",
                )
            )
            node[new] = node.pop(key)
            return f"rename {_show(path)} -> {new!r}"
    return None


def m_top_level(rng: random.Random, doc: Any, paths: Paths, by_key: ByKey) -> str | None:
    if not isinstance(doc, dict):
        return None
    cores = [k for k in doc if k.isdigit()]
    roll = rng.randrange(6)
    if roll == 0 and cores:
        new = rng.choice(("4", "17", "00", "-2", "999999999", "1000000000", " 1", "1.0"))
        doc[new] = copy.deepcopy(doc[rng.choice(cores)])
        return f"copy a core to key {new!r}"
    if roll == 1:
        key = rng.choice(("buffersize", "xlen", "ylen", "top_batch_cut"))
        doc[key] = rng.choice((0, 1, 2, 16, -1, 2**63 - 1, 2**63, None, "8", 1.0, True))
        return f"set {key}"
    if roll == 2:
        doc.pop("-1", None)
        return "delete DRAM section"
    if roll == 3 and cores:
        doc[rng.choice(cores)] = rng.choice(([], {}, None, [[]], [None], "0", 0))
        return "replace a core"
    if roll == 4:
        dram = doc.get("-1")
        if isinstance(dram, dict):
            dram["in"], dram["out"] = dram.get("out"), dram.get("in")
            return "swap DRAM in/out"
        return None
    return None


MUTATIONS: tuple[tuple[Mutation, float], ...] = (
    (m_delete, 1.0),
    (m_wrong_type, 2.0),
    (m_random_int, 3.0),
    (m_resize_list, 1.0),
    (m_duplicate_entry, 1.0),
    (m_swap, 1.5),
    (m_shuffle, 0.7),
    (m_copy_subtree, 0.5),
    (m_rename_key, 0.7),
    (m_top_level, 0.5),
)


def mutate(base: bytes, rng: random.Random, count: int | None = None) -> tuple[Any, list[str]]:
    """Parse `base` and apply `count` (default: 1-6) random mutations; returns the document and a log."""
    doc = json.loads(base)
    paths, by_key = paths_of(base)
    log: list[str] = []
    functions, weights = zip(*MUTATIONS, strict=True)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4, 6)) if count is None else count):
        mutation = rng.choices(functions, weights)[0]
        note = mutation(rng, doc, paths, by_key)
        if note:
            log.append(note)
    return doc, log


# --------------------------------------------------------------------------- serialization

_NUMBER = re.compile(rb"(?<=[:\[,])\s*-?\d+(\.\d+)?([eE][+-]?\d+)?")
_RAW_NUMBERS = (
    b"NaN",
    b"-NaN",
    b"Infinity",
    b"-Infinity",
    b"1e999",
    b"-1e999",
    b"1E400",
    b"0.0e-999",
    b"01",
    b"+1",
    b"1.",
    b".5",
    b"0x10",
    b"1_000",
    b"-",
    b"1" * 5000,
    b"9" * 4300,
    b"9" * 4299,
    b"true",
    b"null",
    b'"1"',
    b"[]",
    b"{}",
)


def _nest(depth: int, inner: bytes = b"0") -> bytes:
    return b"[" * depth + inner + b"]" * depth


def _damage(text: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One raw-text change that json.dumps cannot produce."""
    roll = rng.randrange(14)
    numbers = list(_NUMBER.finditer(text)) if roll in (0, 1, 2) else []
    if roll in (0, 1) and numbers:
        m = rng.choice(numbers)
        token = rng.choice(_RAW_NUMBERS)
        return text[: m.start()] + token + text[m.end() :], f"number -> {token[:20]!r}"
    if roll == 2 and numbers:
        m = rng.choice(numbers)
        depth = rng.choice((5000, 100_000, 1001, 999, 990, 900, 500))
        inner = rng.choice((b"0", b"{}", b'{"a":1}', b"null"))
        if rng.random() < 0.3:
            nested = b'{"a":' * depth + inner + b"}" * depth
        else:
            nested = _nest(depth, inner)
        return text[: m.start()] + nested + text[m.end() :], f"nesting {depth} deep"
    if roll == 3:
        # Duplicate an existing key in place: `"k":v` -> `"k":v,"k":v`.
        pairs = list(re.finditer(rb'"([A-Za-z_]+)":(-?\d+|"[^"]*"|true|false|null)', text))
        if pairs:
            m = rng.choice(pairs)
            dup = (
                m.group(0)
                if rng.random() < 0.5
                else m.group(0).split(b":")[0] + b":" + str(random_int(rng)).encode()
            )
            return text[: m.end()] + b"," + dup + text[m.end() :], f"duplicate key {m.group(1)!r}"
    if roll == 4:
        return codecs.BOM_UTF8 + text, "UTF-8 BOM"
    if roll == 5:
        encoding = rng.choice(("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"))
        return text.decode("utf-8", "replace").encode(encoding, "surrogatepass"), encoding
    if roll == 6 and text:
        cut = rng.randrange(len(text))
        return text[:cut], f"truncated at {cut}"
    if roll == 7 and text:
        i = rng.randrange(len(text))
        byte = rng.choice((0x00, 0x80, 0xFF, 0xC0, 0xED, 0xF4, rng.randrange(256)))
        return text[:i] + bytes([byte]) + text[i + 1 :], f"byte {byte:#x} at {i}"
    if roll == 8 and text:
        i = rng.randrange(len(text))
        junk = rng.choice(
            (b",", b"]", b"}", b"{", b"[", b":", b'"', b"\\", b"\x00", "\ufeff".encode(), b"//", b"/*")
        )
        return text[:i] + junk + text[i:], f"insert {junk!r} at {i}"
    if roll == 9:
        return text + rng.choice((b" ", b"\n", b"x", b"{}", b"\x00", b"]")), "trailing junk"
    if roll == 10:
        return rng.choice((b" \n\t", b"\x00\x00")) + text, "leading junk"
    if roll == 11:
        return rng.choice(
            (
                b"",
                b" ",
                b"\n",
                b"\xef\xbb\xbf",
                b"\xff\xfe",
                b"\xfe\xff",
                b"\x00",
                b"null",
                b"[]",
                b"{}",
                b'"',
                b"0",
                _nest(5000),
                _nest(1000),
                _nest(990),
            )
        ), "replace with a short input"
    if roll == 12:
        # A string with escapes that decode to awkward characters: lone surrogates, NUL, BOM.
        escape = rng.choice((rb"\ud800", rb"\udfff", rb"\u0000", rb"\ufeff", rb"\ud83d\ude00"))
        strings = list(re.finditer(rb'"[A-Za-z_]*"', text))
        if strings:
            m = rng.choice(strings)
            return text[: m.end() - 1] + escape + text[m.end() - 1 :], f"escape {escape!r} in a string"
    return text, "no raw damage"


def serialize(doc: Any, rng: random.Random, damage: float = 0.25) -> tuple[bytes, list[str]]:
    """JSON text for `doc`; with probability `damage`, 1-2 raw-text changes follow."""
    indent = rng.choice((None, None, 1, 2))
    separators = (",", ":") if indent is None and rng.random() < 0.5 else None
    text = json.dumps(doc, indent=indent, separators=separators, ensure_ascii=rng.random() < 0.5)
    data = text.encode("utf-8", "surrogatepass")  # lone surrogates become invalid UTF-8 bytes
    log = []
    if rng.random() < damage:
        for _ in range(rng.choice((1, 1, 2))):
            data, note = _damage(data, rng)
            log.append(note)
    return data, log


def generate(base: bytes, rng: random.Random, damage: float = 0.25) -> tuple[bytes, list[str]]:
    """One fuzz input derived from `base`, and a log of what was done to it."""
    doc, log = mutate(base, rng)
    data, more = serialize(doc, rng, damage)
    return data, log + more
