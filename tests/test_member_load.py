"""Loading member by member (each core's raw JSON released once validated), with the typed decoder or the
models alone, gives what reading the whole document gives: the same findings, skipped entries and
models, whatever the order of the file's keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from irtools.loading import decoder as decoder_module
from irtools.loading import load as load_module
from irtools.loading.load import LoadedIR, load_ir

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_ir").glob("*/*.json"))
SAMPLES = [p for p in SAMPLES if not p.name.endswith(".expected.json")]
FIXTURES = sorted((ROOT.parent / "shared" / "fixtures").glob("*/*.json"))
VALID = ROOT / "sample_ir" / "valid"


def whole_document(data: bytes) -> LoadedIR:
    """load_ir forced onto the whole-document read (json.loads of everything, then the parts)."""
    with (
        mock.patch.object(load_module, "read_members", return_value=None),
        mock.patch.object(decoder_module, "enabled", return_value=False),
    ):
        return load_ir(data, "x.json")


def members_by_models(data: bytes) -> LoadedIR:
    """load_ir without the typed decoder: every member parsed as JSON and validated by the models."""
    with mock.patch.object(decoder_module, "enabled", return_value=False):
        return load_ir(data, "x.json")


def decoded(data: bytes) -> LoadedIR:
    """load_ir as validate runs it: the typed decoder first, the models for what it rejects."""
    with mock.patch.object(decoder_module, "enabled", return_value=True):
        return load_ir(data, "x.json")


LOADERS = {"decoder": decoded, "members": members_by_models}


def outcome(loaded: LoadedIR) -> tuple[Any, ...]:
    findings = sorted(
        (f.code, f.severity.value, f.pointer, f.message, f.line, f.column) for f in loaded.findings
    )
    ir = loaded.ir
    # The repr shows every field of every part kept (the decoder's Structs repr as their models do);
    # model_dump adds the models' own dump of each field, where the decoder's Structs have none.
    model = None if ir is None else repr(ir)
    return findings, loaded.skipped, loaded.kept, loaded.unchecked_transfer_ids, model


def a_valid_doc() -> dict[str, Any]:
    path = next(p for p in sorted(VALID.glob("*.json")) if not p.name.endswith(".expected.json"))
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("path", SAMPLES + FIXTURES, ids=lambda p: p.name)
def test_member_load_equals_whole_document_load(path: Path, loader: str) -> None:
    data = path.read_bytes()
    assert outcome(LOADERS[loader](data)) == outcome(whole_document(data))


def broken_variants() -> dict[str, bytes]:
    doc = a_valid_doc()
    cores = [k for k in doc if k.isdigit()]
    top = {k: v for k, v in doc.items() if not k.isdigit()}
    variants: dict[str, Any] = {
        # Real files put the scalars after the cores, and one puts the DRAM section last.
        "scalars-and-dram-last": {**{k: doc[k] for k in cores}, **top},
        "cores-reversed": {**top, **{k: doc[k] for k in reversed(cores)}},
        "dram-not-an-object": {**doc, "-1": [1, 2]},
        "dram-missing": {k: v for k, v in doc.items() if k != "-1"},
        "dram-entry-broken": {**doc, "-1": {**doc["-1"], "out": [0, *doc["-1"]["out"]]}},
        "scalar-broken-after-cores": {**{k: doc[k] for k in cores}, **top, "buffersize": "big"},
        "core-not-a-list": {**doc, cores[0]: {"a": 1}},
        "core-entry-broken": {**doc, cores[-1]: [*doc[cores[-1]], 7]},
        "unknown-top-level-key": {**doc, "comment": "x"},
    }
    encoded = {name: json.dumps(value).encode() for name, value in variants.items()}
    text = json.dumps(doc)
    last = f'"{cores[-1]}": '
    encoded["duplicate-top-level-key"] = text[:-1].encode() + b', "xlen": 1}'
    encoded["duplicate-key-in-a-core"] = text.replace('"address": ', '"address": 1, "address": ', 1).encode()
    encoded["syntax-error-in-the-last-core"] = text.replace(last, last + "[}", 1).encode()
    encoded["nan-in-the-last-core"] = text.replace(last, last + "[NaN, ", 1).encode()
    encoded["trailing-data"] = text.encode() + b" {}"
    encoded["empty-object"] = b" { } "
    encoded["an-array"] = b"[1, 2]"
    return encoded


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("name", sorted(broken_variants()))
def test_member_load_equals_whole_document_load_on_broken_files(name: str, loader: str) -> None:
    data = broken_variants()[name]
    assert outcome(LOADERS[loader](data)) == outcome(whole_document(data))


def test_findings_do_not_depend_on_the_order_of_top_level_keys() -> None:
    doc = a_valid_doc()
    doc["-1"]["out"].insert(0, {"type": "fmap"})  # one schema error in the DRAM section
    first = next(k for k in doc if k.isdigit())
    doc[first][0]["buffer"][0]["address"] = True  # and one in a core
    top = [k for k in doc if not k.isdigit()]
    reordered = {**{k: v for k, v in doc.items() if k.isdigit()}, **{k: doc[k] for k in reversed(top)}}
    in_order, reversed_order = (load_ir(json.dumps(d).encode(), "x.json") for d in (doc, reordered))
    assert [f.pointer for f in in_order.findings] == [f.pointer for f in reversed_order.findings]
    schema = [
        f.pointer for f in reversed_order.findings if f.code == "GIR101" and f.severity.value == "error"
    ]
    # DRAM errors first, as the models order them, although the file now ends with the DRAM section.
    assert schema[0] == "/-1/out/0" and schema[-1] == f"/{first}/0/buffer/0/address"


def test_duplicate_key_inside_a_core_is_located() -> None:
    text = json.dumps(a_valid_doc())
    data = text.replace('"address": ', '"address": 1, "address": ', 1).encode()
    [finding] = [f for f in load_ir(data, "x.json").findings if f.code == "GIR102"]
    assert finding.pointer.endswith("/buffer/0/address") and finding.pointer.startswith("/0/")


def test_syntax_error_after_valid_cores_from_a_path_is_located(tmp_path: Path) -> None:
    doc = a_valid_doc()
    text = json.dumps(doc, indent=1)
    broken = text[: text.rindex("}")] + ',\n "ylen": }'  # the last member has no value
    path = tmp_path / "broken.json"
    path.write_text(broken)
    loaded = load_ir(path)
    assert loaded.ir is None
    [finding] = loaded.findings
    assert (finding.code, finding.message) == ("GIR100", "invalid JSON: Expecting value")
    assert finding.line == broken.count("\n") + 1
