"""The real IR files in ../shared/fixtures: Gemini files load cleanly, the converter file with its defects.

Expected findings are computed here by walking the raw JSON independently of irtools, so every
finding the loader reports on these files is checked to be true, and every defect to be found.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.load import LoadedIR, load_ir

GEMINI = {
    # file name -> extension keys it uses (keys real Gemini files write but the format document omits)
    "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json": {
        "wl1_buffer",
        "start_send",
        "ifmap_lower2",
        "ifmap_upper2",
    },
    "int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json": {
        "wl1_buffer",
        "start_send",
        "ifmap_lower2",
        "ifmap_upper2",
    },
    "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json": {"start_send", "ifmap_lower2", "ifmap_upper2"},
}
NPU = "npu-simulator/ir_ramulator2_dram_test_slice.json"


def core_items(doc: dict[str, Any]) -> Iterator[tuple[str, list[Any]]]:
    """(core key, workloads) in file order; "-1" is DRAM, not a core."""
    for key, value in doc.items():
        if re.fullmatch(r"0|[1-9][0-9]*", key):
            yield key, value


def dialect_occurrences(doc: dict[str, Any]) -> dict[str, list[str]]:
    """Pointers of every extension key present (null values included), in file order, per extension key."""
    found: dict[str, list[str]] = {}
    for core, workloads in core_items(doc):
        for w, wl in enumerate(workloads):
            if "wl1_buffer" in wl:
                found.setdefault("wl1_buffer", []).append(jp.join(core, w, "wl1_buffer"))
            for b, entry in enumerate(wl["buffer"]):
                if "start_send" in entry:
                    found.setdefault("start_send", []).append(jp.join(core, w, "buffer", b, "start_send"))
            for name, tile in (wl.get("tile_info") or {}).items():
                for key in ("ifmap_lower2", "ifmap_upper2"):
                    if key in tile:
                        found.setdefault(key, []).append(jp.join(core, w, "tile_info", name, key))
    return found


def dialect_key(message: str) -> str:
    match = re.match(r"extension key '(\w+)'", message)
    assert match, message
    return match.group(1)


@pytest.fixture(scope="module")
def shared_fixtures() -> Path:
    # Module-scoped twin of conftest's fixtures_dir, so each big file is loaded once per module.
    path = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures"
    if not path.is_dir():
        pytest.skip("../shared/fixtures not present")
    return path


# --- Gemini files ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=sorted(GEMINI))
def gemini(request: pytest.FixtureRequest, shared_fixtures: Path) -> tuple[str, Any, LoadedIR]:
    path = shared_fixtures / "gemini" / request.param
    return request.param, json.loads(path.read_bytes()), load_ir(path)


def test_gemini_loads_completely(gemini: tuple[str, Any, LoadedIR]) -> None:
    _, raw, loaded = gemini
    assert loaded.ir is not None
    assert loaded.skipped == []
    assert [f for f in loaded.findings if f.code in ("GIR100", "GIR101", "GIR102")] == []
    assert len(loaded.ir.cores["0"]) == len(raw["0"])
    assert len(loaded.ir.dram.out) == len(raw["-1"]["out"])
    assert len(loaded.ir.dram.in_) == len(raw["-1"]["in"])


def test_gemini_has_only_dialect_info(gemini: tuple[str, Any, LoadedIR]) -> None:
    name, raw, loaded = gemini
    assert {(f.code, f.severity) for f in loaded.findings} == {("GIR103", Severity.INFO)}
    reported = {dialect_key(f.message): f for f in loaded.findings}
    assert set(reported) == GEMINI[name]

    occurrences = dialect_occurrences(raw)
    assert set(occurrences) == GEMINI[name]
    for key, finding in reported.items():
        # One finding per key, at its first occurrence; keys present with a null value (wl1_buffer: null) count too.
        assert finding.pointer == occurrences[key][0]
        count = len(occurrences[key])
        assert finding.message.startswith(f"extension key {key!r} in ")
        assert (f"({count} occurrences)" in finding.message) is (count > 1)


def test_gemini_wl1_buffer_is_read_as_the_wl0_snapshot(gemini: tuple[str, Any, LoadedIR]) -> None:
    name, raw, loaded = gemini
    assert loaded.ir is not None
    for wl, raw_wl in zip(loaded.ir.cores["0"], raw["0"], strict=True):
        expected = raw_wl.get("wl0_buffer") or raw_wl.get("wl1_buffer") or []
        assert [e.address for e in wl.wl0_entries] == [e["address"] for e in expected]
        if "wl1_buffer" in GEMINI[name] and raw_wl.get("wl1_buffer") is not None:
            assert wl.wl0_key == "wl1_buffer"


def test_gemini_validates_in_the_cli(run_cli: Any, fixtures_dir: Path) -> None:
    code, out, _ = run_cli("validate", "--format", "json", "--select", "GIR1", fixtures_dir / "gemini")
    assert code == 0
    report = json.loads(out)
    assert report["summary"] == {"files": 3, "errors": 0, "warnings": 0}
    assert [Path(f["path"]).name for f in report["files"]] == sorted(GEMINI)


# --- npu-simulator converter file: its defects are each reported ---------------------------------------


@pytest.fixture(scope="module")
def npu(shared_fixtures: Path) -> tuple[Any, LoadedIR]:
    path = shared_fixtures / NPU
    return json.loads(path.read_bytes()), load_ir(path)


def errors(loaded: LoadedIR, code: str = "GIR101") -> list[Finding]:
    return [f for f in loaded.findings if f.code == code and f.severity is Severity.ERROR]


def bool_addresses(raw: Any) -> dict[str, tuple[str, bool]]:
    """Pointer -> (core key, value) of every boolean `address` in a buffer or WL0 entry."""
    found = {}
    for core, workloads in core_items(raw):
        for w, wl in enumerate(workloads):
            for key in ("buffer", "wl0_buffer", "wl1_buffer"):
                for i, entry in enumerate(wl.get(key) or []):
                    if isinstance(entry.get("address"), bool):
                        found[jp.join(core, w, key, i, "address")] = (core, entry["address"])
    return found


def test_npu_file_is_two_cores_with_boolean_addresses(npu: tuple[Any, LoadedIR]) -> None:
    raw, _ = npu
    assert [core for core, _ in core_items(raw)] == ["0", "1"]
    assert bool_addresses(raw), "the fixture no longer holds the defect this module tests"


def test_npu_every_boolean_address_is_a_gir101(npu: tuple[Any, LoadedIR]) -> None:
    raw, loaded = npu
    expected = bool_addresses(raw)
    reported = {f.pointer: f for f in errors(loaded) if f.pointer.endswith("/address")}
    assert set(reported) == set(expected)
    for pointer, (core, value) in expected.items():
        finding = reported[pointer]
        assert finding.message == f"expected an integer, got boolean {'true' if value else 'false'}"
        assert finding.core_id == int(core)


def test_npu_every_scalar_coordinate_in_dram_out_is_a_gir101(npu: tuple[Any, LoadedIR]) -> None:
    raw, loaded = npu
    expected = {
        jp.join("-1", "out", i, key): entry[key]
        for i, entry in enumerate(raw["-1"]["out"])
        for key in ("lower", "upper")
        if not isinstance(entry[key], list)
    }
    assert expected, "the fixture no longer holds the defect this module tests"
    reported = {
        f.pointer: f.message for f in errors(loaded) if re.fullmatch(r"/-1/out/\d+/(lower|upper)", f.pointer)
    }
    assert reported == {p: f"expected an array, got integer {v}" for p, v in expected.items()}


def test_npu_dram_out_type_ifmap_is_a_gir101(npu: tuple[Any, LoadedIR]) -> None:
    raw, loaded = npu
    expected = {
        jp.join("-1", "out", i, "type")
        for i, e in enumerate(raw["-1"]["out"])
        if e["type"] not in ("weight", "fmap")
    }
    reported = {f.pointer: f.message for f in errors(loaded) if f.pointer.endswith("/type")}
    assert set(reported) == expected
    assert set(reported.values()) == {"expected 'weight' or 'fmap', got string 'ifmap'"}


def test_npu_reports_nothing_else_as_a_schema_error(npu: tuple[Any, LoadedIR]) -> None:
    raw, loaded = npu
    expected_places = re.compile(r"/\d+/\d+/buffer/\d+/address|/-1/out/\d+/(lower|upper|type)")
    for finding in errors(loaded):
        assert expected_places.fullmatch(finding.pointer), finding
        jp.resolve(raw, finding.pointer)  # every pointer names a value in the file as written
    assert errors(loaded, "GIR100") == errors(loaded, "GIR102") == []


def test_npu_broken_entries_are_left_out_and_counted(npu: tuple[Any, LoadedIR]) -> None:
    raw, loaded = npu
    broken_out = {
        jp.join("-1", "out", i)
        for i, e in enumerate(raw["-1"]["out"])
        if not isinstance(e["lower"], list) or not isinstance(e["upper"], list) or e["type"] == "ifmap"
    }
    broken_buffers = {p.rsplit("/", 1)[0] for p in bool_addresses(raw)}
    broken = broken_out | broken_buffers
    assert set(loaded.skipped) == broken
    [note] = [f for f in loaded.findings if f.code == "GIR101" and f.severity is Severity.INFO]
    assert note.message == f"{len(broken)} entries with schema errors were left out of the semantic checks"
    # The rest of the file still loads, so the semantic rules can check it.
    assert loaded.ir is not None
    assert [len(loaded.ir.cores[c]) for c in ("0", "1")] == [len(raw["0"]), len(raw["1"])]


def test_npu_unknown_id_key_in_destinations_is_a_warning(npu: tuple[Any, LoadedIR]) -> None:
    raw, loaded = npu
    gir103 = [f for f in loaded.findings if f.code == "GIR103"]
    [finding] = [f for f in gir103 if "'id'" in f.message and "Destination" in f.message]
    assert finding.severity is Severity.WARNING
    assert finding.message.startswith("unknown key 'id' in CoreDestination")
    assert re.fullmatch(r"/\d+/\d+/ofmap/\d+/destination/\d+/id", finding.pointer)
    assert "id" in jp.resolve(raw, finding.pointer.rsplit("/", 1)[0])
    assert all(
        f.severity is not Severity.INFO for f in gir103
    )  # this converter uses no Gemini extension keys


def test_npu_fails_in_the_cli(run_cli: Any, fixtures_dir: Path, npu: tuple[Any, LoadedIR]) -> None:
    raw, loaded = npu
    code, out, _ = run_cli("validate", "--format", "json", "--select", "GIR1", fixtures_dir / NPU)
    assert code == 1
    [file_report] = json.loads(out)["files"]
    assert file_report["errors"] == len(errors(loaded)) >= len(bool_addresses(raw))
    assert file_report["warnings"] == 1  # the unknown 'id' key
