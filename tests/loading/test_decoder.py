"""The typed decoder reads valid members itself and hands every member it cannot vouch for to the models,
so validate's findings are the models' to the byte: what a user sees never depends on which path read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from unittest import mock

import pandas as pd
import pytest

from irtools.analysis import analyze
from irtools.loading import decoder
from irtools.loading.load import LoadedIR, load_ir
from irtools.synth import SynthOptions, synthesize
from irtools.synth.alloc import to_alloc
from irtools.synth.build import KIB
from irtools.synth.raw import to_raw
from irtools.validate import validate_paths

ROOT = Path(__file__).resolve().parents[2]


def documents() -> dict[str, dict[str, Any]]:
    documented = synthesize(SynthOptions(2, 2, 12, 2, 512 * KIB, 1, 3)).document
    raw = to_raw(json.loads(json.dumps(documented)))
    return {"documented": documented, "raw": raw, "alloc": to_alloc(json.loads(json.dumps(raw)))}


DOCS = documents()


def load(data: bytes, typed: bool) -> LoadedIR:
    with mock.patch.object(decoder, "enabled", return_value=typed):
        return load_ir(data, "x.json")


def seen(loaded: LoadedIR) -> tuple[Any, ...]:
    """What validate reports from a load (findings in order) and what the rules read (the repr of every part)."""
    findings = [(f.code, f.severity.value, f.pointer, f.message, f.line, f.column) for f in loaded.findings]
    return findings, loaded.skipped, loaded.kept, repr(loaded.ir), loaded.member_offsets, loaded.dialect.name


def fallbacks(data: bytes) -> list[str]:
    split = decoder.split(data)
    assert split is not None
    list(split.members(split.dialect().parts))
    return split.fallbacks


def same_either_way(data: bytes) -> LoadedIR:
    typed = load(data, True)
    assert seen(typed) == seen(load(data, False))
    return typed


@pytest.mark.parametrize("style", ["compact", "gemini"])
@pytest.mark.parametrize("dialect", sorted(DOCS))
def test_a_valid_file_is_decoded_whole_and_reads_as_the_models_read_it(dialect: str, style: str) -> None:
    doc = DOCS[dialect]
    # Gemini's writer puts a space on both sides of each colon; json.dumps' default only after.
    data = (
        json.dumps(doc) if style == "compact" else json.dumps(doc, indent=3, separators=(",", " : "))
    ).encode()
    assert fallbacks(data) == []
    loaded = same_either_way(data)
    assert type(next(iter(loaded.ir.cores.values()))[0]).__module__ == "irtools.loading.fast_types"  # type: ignore[union-attr]


def test_a_repeated_key_in_a_core_is_read_by_the_models_and_reported_as_gir102() -> None:
    text = json.dumps(DOCS["raw"], separators=(",", " : "))
    data = text.replace('"block" : ', '"block" : 1, "block" : ', 1).encode()
    assert any("repeated key" in why for why in fallbacks(data))
    [finding] = [f for f in same_either_way(data).findings if f.code == "GIR102"]
    assert finding.pointer.endswith("/buffer/0/block")


def test_a_repeated_key_of_equal_value_is_still_found() -> None:
    # The Structs keep one value; only the count of keys tells the two apart.
    text = json.dumps(DOCS["documented"])
    data = text.replace('"tensor_id": ', '"tensor_id": 0, "tensor_id": ', 1).encode()
    assert [f.code for f in same_either_way(data).findings].count("GIR102") == 1


def test_a_key_written_with_its_default_value_sends_its_member_to_the_models() -> None:
    # The key count cannot tell it from a repeated key; the models can (no GIR102 here).
    doc = json.loads(json.dumps(DOCS["documented"]))
    core = next(k for k in doc if k.isdigit())
    doc[core][0]["buffer"][0]["layer_name"] = None
    data = json.dumps(doc).encode()
    assert [why.split(":")[0] for why in fallbacks(data)] == [core]
    assert not [f for f in same_either_way(data).findings if f.code == "GIR102"]


def test_a_repeated_top_level_key_leaves_the_whole_file_to_the_models() -> None:
    data = json.dumps(DOCS["documented"])[:-1].encode() + b', "xlen": 2}'
    assert decoder.split(data) is None
    assert any(f.code == "GIR102" for f in same_either_way(data).findings)


def test_a_schema_error_sends_only_its_member_to_the_models() -> None:
    doc = json.loads(json.dumps(DOCS["documented"]))
    core = next(k for k in doc if k.isdigit())
    doc[core][0]["buffer"][0]["address"] = -4
    data = json.dumps(doc).encode()
    why = fallbacks(data)
    assert len(why) == 1 and why[0].startswith(f"{core}: ")
    loaded = same_either_way(data)
    assert next(f.pointer for f in loaded.findings if f.code == "GIR101") == f"/{core}/0/buffer/0/address"


def _tile(doc: dict[str, Any]) -> dict[str, Any]:
    core = next(k for k in doc if k.isdigit())
    tile: dict[str, Any] = doc[core][0]["tile_info"]["tile_num_0"]
    return tile


@pytest.mark.parametrize(
    ("field", "written", "why"),
    [
        ("single_tile_time_pred", b"1e400", "a float past the largest double reads as inf: not finite"),
        ("single_tile_time_pred", b"-0.5", "below its ge=0"),
        ("ifmap_lower", b"[0, 0, 0, 0, 0]", "a coordinate of 5 numbers: longer than 4"),
        ("ifmap_lower", b"[0, 0]", "a coordinate of 2 numbers: shorter than 3"),
        ("act_mini_tile", b"[1, 3, 4]", "a 4-list of 3"),
    ],
)
def test_each_constraint_of_the_models_holds_on_the_decoders_path(
    field: str, written: bytes, why: str
) -> None:
    """The Structs carry every bound of the models: a value just past one is GIR101, as the models say."""
    doc = json.loads(json.dumps(DOCS["documented"]))
    _tile(doc)[field] = "PLACEHOLDER"
    data = json.dumps(doc).encode().replace(b'"PLACEHOLDER"', written, 1)
    loaded = same_either_way(data)
    pointers = [f.pointer for f in loaded.findings if f.code == "GIR101"]
    assert any(
        p.endswith(f"/tile_info/tile_num_0/{field}") or f"/tile_num_0/{field}/" in p for p in pointers
    ), why


def test_an_unknown_key_sends_its_member_to_the_models_key_scan() -> None:
    doc = json.loads(json.dumps(DOCS["documented"]))
    core = next(k for k in doc if k.isdigit())
    doc[core][0]["comment"] = "x"
    data = json.dumps(doc).encode()
    assert [why.split(":")[0] for why in fallbacks(data)] == [core]
    assert ("GIR103", "warning") in [(f.code, f.severity.value) for f in same_either_way(data).findings]


def test_dialect_keys_are_noted_where_and_as_often_as_the_models_key_scan_notes_them() -> None:
    doc = json.loads(json.dumps(DOCS["documented"]))
    cores = [k for k in doc if k.isdigit()]
    doc[cores[1]][1]["buffer"][0]["start_send"] = True  # met after the tile key of the workload before
    doc[cores[1]][2]["buffer"][1]["start_send"] = False
    tiles = {
        "tile_num_0": {
            f"{side}_{end}": [0, 0, 0, 0] for side in ("ifmap", "ofmap") for end in ("lower", "upper")
        }
    }
    tiles["tile_num_0"] |= {
        "single_tile_time_pred": 1.5,
        "ifmap_upper2": [0, 0, 0, 0],
        "ifmap_lower2": [0, 0, 0, 0],
    }
    doc[cores[1]][0]["tile_info"] = tiles
    doc[cores[0]][0]["wl1_buffer"] = doc[cores[0]][0].pop("wl0_buffer", None) or []
    data = json.dumps(doc).encode()
    assert fallbacks(data) == []
    notes = [(f.message, f.pointer) for f in same_either_way(data).findings if f.code == "GIR103"]
    assert len(notes) == 4 and any("(2 occurrences)" in m for m, _ in notes)


@pytest.mark.parametrize(
    ("key", "place"),
    [
        ("wl1_buffer", "workload"),
        ("start_send", "buffer"),
        ("ifmap_lower2", "tile"),
        ("ifmap_upper2", "tile"),
    ],
)
def test_each_dialect_key_is_found_alone_where_it_is_written(key: str, place: str) -> None:
    """Each extension key is read from the Structs of the kind that holds it (its workload, a buffer entry
    of the second core, a tile), also written with a null-like value; the findings are the models'."""
    doc = json.loads(json.dumps(DOCS["documented"]))
    workload = doc[[k for k in doc if k.isdigit()][1]][2]
    if place == "workload":
        workload[key] = []
    elif place == "buffer":
        workload["buffer"][-1][key] = False
    else:
        tile = {end: [0, 0, 0, 0] for end in ("ifmap_lower", "ifmap_upper", "ofmap_lower", "ofmap_upper")}
        workload["tile_info"] = {"tile_num_0": {**tile, "single_tile_time_pred": 1.0, key: [0, 0, 0, 0]}}
    data = json.dumps(doc).encode()
    notes = [f.pointer for f in same_either_way(data).findings if f.code == "GIR103" and key in f.message]
    assert len(notes) == 1 and notes[0].endswith(key)


def test_a_dialect_keys_name_written_as_a_value_is_no_key() -> None:
    """A layer named like an extension key names no key: no GIR103 note, as the models read it."""
    doc = json.loads(json.dumps(DOCS["documented"]))
    for wl in doc[next(k for k in doc if k.isdigit())]:
        wl["layer_name"] = "start_send"
    data = json.dumps(doc).encode()
    assert fallbacks(data) == []
    assert not [f for f in same_either_way(data).findings if f.code == "GIR103" and "start_send" in f.message]


def test_omitted_raw_keys_are_counted_as_the_models_count_them() -> None:
    doc = json.loads(json.dumps(DOCS["raw"]))
    cores = [k for k in doc if k.isdigit()]
    doc[cores[0]][1]["ifmap"].pop("transfer_id", None)  # omitted before any buffer is: listed first
    doc[cores[0]][2].pop("buffer", None)
    doc[cores[1]][0].pop("buffer", None)
    data = json.dumps(doc).encode()
    assert fallbacks(data) == []
    gir104 = [(f.message, f.pointer) for f in same_either_way(data).findings if f.code == "GIR104"]
    assert [p for _, p in gir104][:2] == [f"/{cores[0]}/1/ifmap", f"/{cores[0]}/2"]


def test_transfer_ids_mixing_both_forms_are_judged_by_the_models() -> None:
    doc = json.loads(json.dumps(DOCS["raw"]))
    core = next(k for k in doc if k.isdigit())
    entry = next(e for wl in doc[core] for e in wl.get("buffer", ()) if e.get("transfer_id"))
    entry["transfer_id"] = [entry["transfer_id"][0], [entry["transfer_id"][0]]]
    data = json.dumps(doc).encode()
    assert any("mixing" in why for why in fallbacks(data))
    assert any(f.code == "GIR101" for f in same_either_way(data).findings)


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace('"layer_name": "', '"layer_name": "\\u00e9', 1),  # an escape
        lambda t: t.replace('"layer_name": "', '"layer_name": "\u00e9', 1),  # not ASCII
        lambda t: t.replace('"transfer_id": ', '"$irtools:layer_name": "x", "transfer_id": ', 1),
        lambda t: t + " x",  # not JSON
    ],
    ids=["escape", "non-ascii", "internal-name", "trailing-data"],
)
def test_files_the_key_count_cannot_vouch_for_go_to_the_models_whole(change: Any) -> None:
    data = change(json.dumps(DOCS["raw"], ensure_ascii=False)).encode()
    assert decoder.split(data) is None
    same_either_way(data)


def test_the_switch_turns_the_decoder_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert decoder.enabled()
    monkeypatch.setenv(decoder.SWITCH, "models")
    assert not decoder.enabled()


def test_validate_reports_the_same_with_the_decoder_on_and_off(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [str(ROOT / "sample_ir"), str(ROOT.parent / "shared" / "fixtures" / "gemini-raw")]
    typed = validate_paths(paths)
    monkeypatch.setenv(decoder.SWITCH, "models")
    assert validate_paths(paths) == typed


TABLED = [
    ROOT.parent / "shared" / "fixtures" / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json",
    ROOT.parent / "shared" / "fixtures" / "gemini-raw" / "resnet_2x2_b1_ir.json",
    ROOT.parent / "shared" / "fixtures" / "gemini-alloc" / "resnet_2x2_b1_alloc.json",
]
"""A real file of each dialect (the documented one writes start_send, read as the to_dram column)."""


@pytest.mark.parametrize("path", TABLED, ids=lambda p: p.parent.name)
def test_every_analysis_table_is_the_same_from_the_structs_as_from_the_models(path: Path) -> None:
    data = path.read_bytes()
    assert fallbacks(data) == []
    tables = [analyze(load(data, typed)).tables(links=True) for typed in (True, False)]
    assert tables[0].keys() == tables[1].keys()
    for name, frame in tables[0].items():
        pd.testing.assert_frame_equal(frame, tables[1][name], check_exact=True, obj=name)
    if "gemini/" in str(path):
        assert tables[0]["tensors"]["to_dram"].any()


@pytest.mark.parametrize("dialect", sorted(DOCS))
def test_a_file_read_again_member_by_member_loads_as_its_bytes_do(dialect: str, tmp_path: Path) -> None:
    """From a path, the bytes are dropped once split and each member is read again as it is decoded."""
    path = tmp_path / "ir.json"
    path.write_bytes(json.dumps(DOCS[dialect], indent=1).encode())
    reads: list[tuple[int, int]] = []
    real_read = decoder.Reread.read

    def counted(self: Any, start: int, end: int) -> bytes:
        reads.append((start, end))
        return real_read(self, start, end)

    with mock.patch.object(decoder.Reread, "read", counted):
        from_path = load_ir(path, str(path))
    assert seen(from_path) == seen(load_ir(path.read_bytes(), str(path)))
    assert len(reads) >= len(from_path.member_offsets) - 1  # every core, and the DRAM section


def test_a_file_changed_while_read_again_is_read_whole_once_more(tmp_path: Path) -> None:
    """What is loaded is one version of the file, never members of two: here the file is rewritten after
    two of its members were read again, its members left where they were and every layer renamed."""
    path = tmp_path / "ir.json"
    before = json.dumps(DOCS["raw"]).encode()
    after = before.replace(b'"Conv_', b'"Cnv__')
    path.write_bytes(before)
    real_read = decoder.Reread.read
    reads: list[int] = []

    def rewritten_midway(self: Any, start: int, end: int) -> bytes:
        reads.append(start)
        if len(reads) == 3:  # the dialect judged by core 1, the DRAM section decoded, core 1 not yet
            path.write_bytes(after)
            os.utime(path, ns=(1, 1))  # a new modification time, however coarse the file system's clock
        return real_read(self, start, end)

    with mock.patch.object(decoder.Reread, "read", rewritten_midway):
        loaded = load_ir(path, str(path))
    assert "Conv_" not in repr(loaded.ir)
    assert seen(loaded) == seen(load_ir(after, str(path)))


def test_a_pipe_is_read_once(tmp_path: Path) -> None:
    """A named pipe cannot be read again: its bytes stay for the members (opening it again would wait
    for a writer for ever, hence the load in a thread with a time limit)."""
    import threading

    pipe = tmp_path / "ir.pipe"
    os.mkfifo(pipe)
    data = json.dumps(DOCS["raw"]).encode()
    result: list[LoadedIR] = []
    writer = threading.Thread(target=pipe.write_bytes, args=(data,), daemon=True)
    reader = threading.Thread(target=lambda: result.append(load_ir(pipe, "x.json")), daemon=True)
    writer.start()
    reader.start()
    reader.join(timeout=60)
    assert result, "the load waited on the pipe"
    assert seen(result[0]) == seen(load_ir(data, "x.json"))
