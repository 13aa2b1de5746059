"""ZeBu instruction traces (../shared/docs/ZeBu_Trace_Format.md): text -> instructions + GIR60x findings.

Each line is one instruction written as a Python repr, not JSON:
`[name, {slyr, clyr, s_flyr, c_flyr, wkl, tile}, {'inst_idx': N, 'time': [start, end]}, {parameters}]`,
with enum values such as `<DataFmt.INT8: 1>`. The reader rewrites each line into JSON (names quoted,
enums as their names, Python literals as JSON ones) and checks its shape strictly.

Then it replays the hardware's ordering rules, which the shared traces follow exactly: instructions
run in program order within their queue, and `Prev_Insts`/`Next_Insts` name queue classes, read as
token queues: the k-th instruction of class P listing C in `Next_Insts` feeds the k-th instruction
of class C listing P in `Prev_Insts`. (Read literally, "wait for the last P instruction", the shared
traces would show dozens of false violations.)
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irtools.findings import Finding, Severity
from irtools.loading.reader import gc_paused

QUEUES = ("CT", "LD", "LW", "PE", "VP", "DT", "ST")
"""The hardware queues, in the order figures show them."""

CLASS_QUEUE = {
    "ct": "CT",
    "lda": "LD",  # activations from DRAM
    "ldw": "LD",  # weights from DRAM share the LD queue: only so do the tokens pair and times not overlap
    "lw": "LW",  # weights into the PE array
    "pe": "PE",
    "vp": "VP",
    "dt": "DT",
    "sta": "ST",
}
"""Instruction class (the name up to its first '_') -> queue."""

COMPUTE_QUEUES = frozenset({"PE", "VP", "DT"})
DMA_QUEUES = ("LD", "LW", "ST")

_ELEMENT_BYTES = {"INT8": 1, "UINT8": 1, "FP16": 2, "BF16": 2, "INT16": 2, "FP32": 4, "INT32": 4}
_ENUM = re.compile(r"<([A-Za-z_]\w*(?:\.\w+)+): -?\d+>")
_HEAD = re.compile(r"^\[([A-Za-z_]\w*),", re.MULTILINE)
_PY_LITERAL = re.compile(r"(True|False|None)(?=[,\]}])")  # a value: followed by a delimiter
_JSON_LITERAL = {"True": "true", "False": "false", "None": "null"}
_LOCATION_KEYS = ("slyr", "wkl", "tile")


@dataclass(slots=True)
class Instruction:
    """One executed instruction; times in the trace's units (the IR's `time` unit)."""

    line: int
    """1-based line in the trace file."""
    name: str
    queue: str
    inst_idx: int
    start: int
    end: int
    wkl: int
    """The IR's workload_id (on core 0) the instruction belongs to."""
    tile: int
    """k of the workload's `tile_num_k`; -1 on the LD, LW, ST, DT and CT queues."""
    slyr: int
    prev: tuple[str, ...]
    next: tuple[str, ...]
    size_bytes: int | None
    """Bytes a data move carries (its Tile or Wsize times the element size of its class's last cfg)."""
    waited_on: int | None = None
    """Index of the instruction whose end set this one's start (queue predecessor or token producer)."""

    @property
    def is_config(self) -> bool:
        """Whether the instruction configures its queue (`*_cfg`) rather than doing work."""
        return "_cfg" in self.name

    @property
    def is_compute(self) -> bool:
        """PE, VP or DT work (not configuration): what measures a workload."""
        return self.queue in COMPUTE_QUEUES and not self.is_config

    @property
    def duration(self) -> int:
        """Cycles from the instruction's start to its end."""
        return self.end - self.start


@dataclass(slots=True)
class Trace:
    """A read ZeBu trace: its instructions in file order and the findings of reading it (GIR601, GIR602)."""

    path: str
    instructions: list[Instruction] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def makespan(self) -> int:
        """End of the last instruction (the run starts at 0)."""
        return max((i.end for i in self.instructions), default=0)

    @property
    def errors(self) -> int:
        """Error-severity findings of reading the trace."""
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)


def _finding(
    code: str, severity: Severity, message: str, line: int | None, wkl: int | None = None
) -> Finding:
    return Finding(
        code, severity, message, line=line, workload_id=wkl, core_id=0 if wkl is not None else None
    )


def _json_lines(text: str) -> list[str]:
    """The trace rewritten into one JSON array per line (line numbers kept)."""
    text = _ENUM.sub(r'"\1"', text)
    text = _HEAD.sub(r'["\1",', text)
    text = text.replace("'", '"')
    return _PY_LITERAL.sub(lambda m: _JSON_LITERAL[m.group(0)], text).split("\n")


_INT64 = 1 << 63
_LIMIT = 1 << 53
"""Times and sizes beyond this are refused: sums over a whole trace must still fit in int64."""


def _int(value: Any) -> bool:
    """An integer the tables can hold (int64), not a bool."""
    return isinstance(value, int) and not isinstance(value, bool) and -_INT64 <= value < _INT64


def _classes(params: dict[str, Any], key: str) -> tuple[str, ...] | str:
    """A Prev_Insts/Next_Insts list, or the reason it is malformed."""
    value = params.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return f"{key} is not a list of queue names"
    return tuple(value)


def _parse(record: Any, line: int, formats: dict[str, str]) -> Instruction | str:
    """One line's JSON as an Instruction, or why it is malformed."""
    if not isinstance(record, list) or len(record) != 4:
        return "expected [name, {location}, {inst_idx, time}, {parameters}]"
    name, location, timing, params = record
    if not isinstance(name, str) or not isinstance(location, dict) or not isinstance(timing, dict):
        return "expected [name, {location}, {inst_idx, time}, {parameters}]"
    if not isinstance(params, dict):
        return "the parameters are not a {key: value} object"
    for key in _LOCATION_KEYS:
        if not _int(location.get(key)):
            return f"location has no integer {key!r} (int64)"
    if location["tile"] < -1 or location["wkl"] < 0:
        return f"wkl {location['wkl']} or tile {location['tile']} out of range"
    inst_idx, time = timing.get("inst_idx"), timing.get("time")
    if not isinstance(inst_idx, int) or isinstance(inst_idx, bool) or not _int(inst_idx):
        return "no integer 'inst_idx' (int64)"
    if not (isinstance(time, list) and len(time) == 2 and all(_int(t) for t in time)):
        return "'time' is not [start, end] in integers (int64)"
    start, end = time
    if start < 0 or end < start:
        return f"time [{start}, {end}] ends before it starts or starts before 0"
    if end >= _LIMIT:
        return f"time [{start}, {end}] beyond 2**53"
    prev, nxt = _classes(params, "Prev_Insts"), _classes(params, "Next_Insts")
    if isinstance(prev, str):
        return prev
    if isinstance(nxt, str):
        return nxt
    klass = name.split("_", 1)[0]
    queue = CLASS_QUEUE.get(klass, "")
    if "DF" in params and isinstance(params["DF"], str):
        formats[klass] = params["DF"].rpartition(".")[2]
    moves = queue in DMA_QUEUES and "_cfg" not in name
    return Instruction(
        line,
        name,
        queue,
        inst_idx,
        start,
        end,
        location["wkl"],
        location["tile"],
        location["slyr"],
        prev,
        nxt,
        _size(params, formats.get(klass)) if moves else None,
    )


def _size(params: dict[str, Any], data_format: str | None) -> int | None:
    shape = params.get("Tile", params.get("Wsize"))
    element = _ELEMENT_BYTES.get(data_format or "")
    if element is None or not isinstance(shape, list) or not all(_int(d) and d >= 0 for d in shape):
        return None
    size = math.prod(shape) * element
    return size if size < _LIMIT else None


def parse_trace(data: bytes, path: str = "<trace>") -> Trace:
    """Read a trace's bytes: every well-formed instruction, findings for the rest, then the ordering checks."""
    with gc_paused():  # hundreds of thousands of acyclic records: collector passes would dominate
        return _parse_trace(data, path)


def _parse_trace(data: bytes, path: str) -> Trace:
    trace = Trace(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        trace.findings.append(_finding("GIR601", Severity.ERROR, f"not UTF-8: {exc.reason}", line))
        text = data.decode("utf-8", errors="replace")
    formats: dict[str, str] = {}
    for number, source in enumerate(_json_lines(text), 1):
        if not source.strip():
            continue
        try:
            record = json.loads(source)
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            trace.findings.append(_finding("GIR601", Severity.ERROR, f"not an instruction: {reason}", number))
            continue
        parsed = _parse(record, number, formats)
        if isinstance(parsed, str):
            trace.findings.append(_finding("GIR601", Severity.ERROR, parsed, number))
        elif not parsed.queue:
            trace.findings.append(
                _finding("GIR602", Severity.ERROR, f"unknown instruction class {parsed.name!r}", number)
            )
        else:
            trace.instructions.append(parsed)
    if not trace.instructions and not trace.findings:
        trace.findings.append(_finding("GIR601", Severity.ERROR, "the trace holds no instruction", None))
    trace.findings.extend(_check_order(trace.instructions))
    trace.findings.sort(key=lambda f: (f.line or 0, f.code, f.message))
    return trace


def read_trace(path: str | os.PathLike[str]) -> Trace:
    """Read a trace file (OSError when unreadable)."""
    return parse_trace(Path(path).read_bytes(), str(path))


def _check_order(instructions: list[Instruction]) -> Iterator[Finding]:
    """Queue order (GIR603) and token dependencies (GIR604, GIR605); sets each `waited_on`."""
    last: dict[str, int] = {}
    tokens: dict[tuple[str, str], deque[int]] = {}
    for n, ins in enumerate(instructions):
        ready, waited_on = 0, None
        before = last.get(ins.queue)
        if before is not None:
            prior = instructions[before]
            if ins.start < prior.end:
                yield _finding(
                    "GIR603",
                    Severity.ERROR,
                    f"{ins.name} starts at {ins.start} before the previous {ins.queue} instruction "
                    f"{prior.name} (line {prior.line}) ended at {prior.end}",
                    ins.line,
                    ins.wkl,
                )
            ready, waited_on = prior.end, before
        last[ins.queue] = n
        for producer_class in ins.prev:
            if producer_class not in QUEUES:
                yield _finding(
                    "GIR602",
                    Severity.ERROR,
                    f"unknown queue {producer_class!r} in Prev_Insts",
                    ins.line,
                    ins.wkl,
                )
                continue
            pending = tokens.get((producer_class, ins.queue))
            if not pending:
                yield _finding(
                    "GIR605",
                    Severity.WARNING,
                    f"{ins.name} waits for a {producer_class} token that no earlier {producer_class} "
                    f"instruction sends to {ins.queue}",
                    ins.line,
                    ins.wkl,
                )
                continue
            source = pending.popleft()
            producer = instructions[source]
            if ins.start < producer.end:
                yield _finding(
                    "GIR604",
                    Severity.ERROR,
                    f"{ins.name} starts at {ins.start} before its {producer_class} producer {producer.name} "
                    f"(line {producer.line}) ended at {producer.end}",
                    ins.line,
                    ins.wkl,
                )
            if producer.end >= ready:  # on a tie the dependency, not the queue, explains the wait
                ready, waited_on = producer.end, source
        ins.waited_on = waited_on
        for consumer_class in ins.next:
            if consumer_class not in QUEUES:
                yield _finding(
                    "GIR602",
                    Severity.ERROR,
                    f"unknown queue {consumer_class!r} in Next_Insts",
                    ins.line,
                    ins.wkl,
                )
                continue
            tokens.setdefault((ins.queue, consumer_class), deque()).append(n)
    for (producer_class, consumer_class), pending in sorted(tokens.items()):
        if pending:
            first = instructions[pending[0]]
            yield _finding(
                "GIR605",
                Severity.WARNING,
                f"{len(pending)} {producer_class} -> {consumer_class} tokens never consumed, the first sent by "
                f"{first.name}",
                first.line,
                first.wkl,
            )
