"""A fourth dialect takes one declaration and one line: a toy dialect declared here (the documented IR with its
L2 size under `l2_bytes` instead of `buffersize`), once registered, passes through load, check, analyze and
the schema command like the three built in. This is the count docs/dialects.md gives."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

from irtools.dialects import BY_NAME, DOCUMENTED, Dialect, register, unregister
from irtools.dialects.base import SchemaInfo
from irtools.dialects.documented import SchedulerIR
from irtools.dialects.documented.keys import DocumentedKeyScan
from irtools.loading.load import load_ir
from irtools.model.base import PositiveInt
from irtools.validate import check_loaded
from tests.conftest import ROOT

# --- the toy dialect: its models, key scan and declaration (what its folder would hold) ----------------------


class ToyIR(SchedulerIR):
    """The documented IR whose L2 size is written `l2_bytes`."""

    buffersize: PositiveInt = Field(alias="l2_bytes")
    """Size of the L2 buffer, in bytes (the shared vocabulary's name)."""


class ToyKeyScan(DocumentedKeyScan):
    """GIR103 on a toy file: its top level is ToyIR's."""

    TOP = ToyIR


TOY = Dialect(
    name="toy",
    title="the documented IR with its L2 size under l2_bytes (a test's dialect)",
    note="toy dialect: the documented IR with its L2 size under l2_bytes",
    capabilities=DOCUMENTED.capabilities,
    parts=dataclasses.replace(DOCUMENTED.parts, top=ToyIR, key_scan=ToyKeyScan),
    shows=lambda workload: False,  # its workloads look documented: its top-level mark tells it apart
    marks=frozenset({"l2_bytes"}),
    schema=SchemaInfo(
        "schemas/toy.schema.json", "Toy IR", "The documented IR with its L2 size under l2_bytes."
    ),
)

SAMPLE = ROOT / "sample_ir" / "invalid" / "GIR301-buffer-out-of-bounds.json"
"""A documented sample whose finding (a tensor past the L2 size) needs the renamed key read right."""


@pytest.fixture
def toy() -> Iterator[Dialect]:
    register(TOY)  # the one line that makes the dialect known to every command
    yield TOY
    unregister(TOY)


def _as_toy(doc: dict[str, Any]) -> dict[str, Any]:
    """The documented `doc` in the toy dialect: `buffersize` renamed, written before the cores."""
    toy = {"-1": doc["-1"], "l2_bytes": doc["buffersize"]}
    toy.update((k, v) for k, v in doc.items() if k not in ("-1", "buffersize"))
    return toy


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    """The sample as written, and the same IR in the toy dialect, under one file name in two folders."""
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    (tmp_path / "documented").mkdir()
    (tmp_path / "toy").mkdir()
    documented, toy = tmp_path / "documented" / "ir.json", tmp_path / "toy" / "ir.json"
    documented.write_text(json.dumps(doc), encoding="utf-8")
    toy.write_text(json.dumps(_as_toy(doc)), encoding="utf-8")
    return documented, toy


def _rows(findings: list[Any]) -> list[tuple[str, str, str, str]]:
    return [(f.code, f.severity.value, f.pointer, f.message) for f in findings]


def test_unregistered_the_toy_file_is_a_documented_file_missing_its_l2_size(tmp_path: Path) -> None:
    _, toy = _pair(tmp_path)
    loaded = load_ir(toy)
    assert loaded.dialect is DOCUMENTED
    assert any(f.code == "GIR101" and "buffersize" in f.message for f in loaded.findings)  # required there
    assert ("GIR103", "/l2_bytes") in {(f.code, f.pointer) for f in loaded.findings}  # a key unknown there


def test_registered_it_loads_and_checks_as_the_documented_file_does(toy: Dialect, tmp_path: Path) -> None:
    documented, toy_file = _pair(tmp_path)
    loaded = load_ir(toy_file)
    assert loaded.dialect is toy and loaded.ir is not None
    assert loaded.ir.buffersize == json.loads(SAMPLE.read_text())["buffersize"]
    expected = _rows(check_loaded(load_ir(documented)))
    got = _rows(check_loaded(loaded))
    assert got[0] == ("GIR103", "info", "", toy.note)  # the dialect says its name, as raw and alloc do
    assert got[1:] == expected
    assert any(code == "GIR301" for code, *_ in expected)  # the L2 size was read under its new key


def test_registered_it_is_validated_and_analyzed_by_the_cli(
    toy: Dialect, tmp_path: Path, run_cli: Any
) -> None:
    documented, toy_file = _pair(tmp_path)
    code, out, _ = run_cli("validate", "--format", "json", toy_file)
    findings = json.loads(out)["files"][0]["findings"]
    assert code == 1 and any(f["code"] == "GIR301" for f in findings)
    summaries = []
    for path in (documented, toy_file):
        code, out, _ = run_cli("analyze", "--json", "--out", path.parent / "tables", path)
        assert code == 0
        summaries.append(json.loads(out))
    for summary, name in zip(summaries, ("documented", "toy"), strict=True):
        assert summary.pop("dialect") == name and summary.pop("path").endswith(f"/{name}/ir.json")
    assert summaries[1] == summaries[0]
    tables = sorted(p.name for p in (toy_file.parent / "tables").iterdir())
    assert tables == sorted(p.name for p in (documented.parent / "tables").iterdir()) and tables


def test_registered_the_schema_command_offers_it(toy: Dialect, run_cli: Any) -> None:
    code, out, _ = run_cli("schema", "--dialect", "toy")
    assert code == 0
    schema = json.loads(out)
    assert schema["$id"].endswith("/schemas/toy.schema.json") and schema["title"] == "Toy IR"
    assert "l2_bytes" in schema["required"] and "buffersize" not in schema["properties"]


def test_registration_is_undone(run_cli: Any) -> None:
    assert "toy" not in BY_NAME
    code, _, err = run_cli("schema", "--dialect", "toy")
    assert code == 2 and "invalid choice" in err
