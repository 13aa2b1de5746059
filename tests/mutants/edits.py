"""Small IRs one edit away from a clean one, checked on both cores, for the boundary tests of the rules.

The base is the clean 2x2 sample (sample_ir/valid/mesh2x2_conv_b1_c4_bw16_stschedule.json, five
workloads on four cores) or a small synth file of the raw or alloc dialect. A test edits one value and
asserts the exact findings of one code. Every check runs on the fast core and on the reference core
(irtools.reference) and both must agree, so a broken rule is caught whichever path it breaks: the
equivalence harness alone cannot see a break in the reference or in what both share.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from irtools import pointer as jp
from irtools.findings import Finding
from irtools.reference import reference_core
from irtools.rules.context import CheckOptions
from irtools.synth import SynthOptions, synthesize
from irtools.synth.alloc import to_alloc
from irtools.synth.build import KIB
from irtools.synth.raw import to_raw
from irtools.validate import validate_file

ROOT = Path(__file__).resolve().parent.parent.parent
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"

Doc = dict[str, Any]
Row = tuple[str, str, str]
"""(code, pointer, message) of one finding."""


@functools.cache
def _text(path: Path) -> str:
    return path.read_text()


def mesh_doc() -> Doc:
    """A fresh copy of the clean 2x2 sample."""
    return json.loads(_text(MESH))


@functools.cache
def _synth_alloc() -> str:
    # One core, 16 workloads; tensors persist across snapshots, so start_loading is both true and false.
    options = SynthOptions(xlen=1, ylen=1, layers=3, batch=1, buffersize=256 * KIB, seed=1)
    return json.dumps(to_alloc(to_raw(synthesize(options).document)))


def alloc_doc() -> Doc:
    """A fresh copy of a clean one-core file of the alloc dialect (L2 addresses in 1 KiB blocks)."""
    return json.loads(_synth_alloc())


@functools.cache
def _synth_raw() -> str:
    options = SynthOptions(xlen=2, ylen=1, layers=4, batch=1, buffersize=256 * KIB, seed=1)
    return json.dumps(to_raw(synthesize(options).document))


def raw_doc() -> Doc:
    """A fresh copy of a clean two-core file of the raw dialect."""
    return json.loads(_synth_raw())


def check(tmp: Path, doc: Doc, options: CheckOptions | None = None) -> list[Finding]:
    """Validate `doc` as a file on both cores; the findings, which must be the same on both."""
    path = tmp / f"ir-{len(list(tmp.iterdir()))}.json"
    path.write_text(json.dumps(doc))
    fast = validate_file(str(path), options).findings
    with reference_core():
        reference = validate_file(str(path), options).findings
    assert fast == reference, "the fast and the reference core disagree"
    assert not [f for f in fast if f.code == "GIR001"], "a rule crashed"
    for finding in fast:
        assert_located(doc, finding)
    return fast


def _ids(value: Any) -> set[int]:
    """Every int in a transfer_id value as written (an int, a list, or the raw dialect's nested lists)."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, list):
        return set().union(*map(_ids, value)) if value else set()
    return set()


def assert_located(doc: Doc, finding: Finding) -> None:
    """A finding's location agrees with the file: its pointer and every related pointer resolve, the
    core and workload ids are those of the workload the pointer is in, and a transfer id is one that
    an object on the pointer's path carries (the structured location a report's reader relies on)."""
    for ptr in (finding.pointer, *finding.related):
        tokens = jp.split(ptr)
        # Raises for a pointer into nothing; a flag the entry lacks may be named (where to add it).
        parent = jp.resolve(doc, jp.join(*tokens[:-1]))
        assert not tokens or isinstance(parent, dict) or int(tokens[-1]) < len(parent), ptr
    tokens = jp.split(finding.pointer)
    if not tokens or tokens[0] == "-1" or not tokens[0].isdigit():
        return
    if finding.core_id is not None:
        assert finding.core_id == int(tokens[0]), finding
    if len(tokens) >= 2 and finding.workload_id is not None:
        assert finding.workload_id == doc[tokens[0]][int(tokens[1])]["workload_id"], finding
    if finding.transfer_id is not None:
        carried: set[int] = set()
        node: Any = doc
        for token in tokens:
            node = node[int(token)] if isinstance(node, list) else node.get(token)
            if isinstance(node, dict):
                carried |= _ids(node.get("transfer_id"))
        assert finding.transfer_id in carried, finding


def rows(findings: Iterable[Finding], code: str, *, info: bool = False) -> list[Row]:
    """(code, pointer, message) of the findings of `code`, notes at info left out unless `info`."""
    return [
        (f.code, f.pointer, f.message)
        for f in findings
        if f.code == code and (info or f.severity.value != "info")
    ]


def edited(doc: Doc, *edits: tuple[tuple[str | int, ...], Any]) -> Doc:
    """A copy of `doc` with each (path, value) set; the path is keys and indices from the top."""
    out = copy.deepcopy(doc)
    for path, value in edits:
        node: Any = out
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return out
