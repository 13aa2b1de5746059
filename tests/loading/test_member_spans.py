"""The members found a chunk at a time (irtools.loading.spans) are the whole-file split's, so loading a file
never needs its bytes whole: on every fixture and sample, on fuzzed files, and with chunks so small that
keys and separators are cut by them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irtools.analysis import analyze
from irtools.loading import decoder, spans
from irtools.loading.discover import discover
from irtools.loading.load import load_ir
from irtools.loading.reader import StreamError
from irtools.options import RunOptions
from irtools.reference import reference_core
from irtools.synth import SynthOptions, inject, synthesize
from irtools.synth.build import KIB
from irtools.synth.writer import ir_text
from irtools.validate import _check_file
from tests.budget import examples
from tests.conftest import ROOT
from tests.rules.test_screens import fuzzed_files

FILES = discover([str(ROOT.parent / "shared" / "fixtures"), str(ROOT / "sample_ir")], False)


def _both(path: Path | str) -> tuple[decoder.Split | None, decoder.Split | None]:
    """The whole-file split of the file, and the chunked one with its assumed members shown (each segment
    split, as loading does for a member it cannot decode whole); None where showing one fails."""
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        chunked = decoder.scan(decoder.Reread(handle, (status.st_size, status.st_mtime_ns)), status.st_size)
        try:
            for key in list(chunked.assumed if chunked is not None else ()):
                chunked.split_assumed(key)  # type: ignore[union-attr]
        except StreamError:
            assert chunked is not None and chunked.unsplit
            chunked = None
        handle.seek(0)
        return decoder.split(handle.read()), chunked


@pytest.mark.parametrize("chunk", [spans.CHUNK, 4096, 61])
def test_every_fixture_and_sample_splits_as_the_whole_file_does(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spans, "CHUNK", chunk)
    for path in FILES:
        whole, chunked = _both(path)
        assert (whole is None) == (chunked is None), path
        assert whole is None or chunked is None or whole.spans == chunked.spans, path


@pytest.mark.bounded  # generated input: under the memory bound of tests/budget.py
@given(data=fuzzed_files())
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_fuzzed_file_splits_as_the_whole_file_does_or_is_read_whole(
    data: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("spans") / "fuzzed.json"
    path.write_bytes(data)
    whole, chunked = _both(path)
    if chunked is not None:  # where the chunks cannot tell, the file is read whole: never other members
        assert whole is not None and whole.spans == chunked.spans


def test_a_core_key_nested_in_a_member_sends_the_file_to_be_read_whole(tmp_path: Path) -> None:
    """A nested object keyed like a core leaves its segment unbalanced: the chunks cannot tell, so the
    file is split whole, and loads as before."""
    path = tmp_path / "nested.json"
    path.write_text(json.dumps({"-1": {"in": [], "out": [], "x": {"7": [1]}}, "0": []}))
    whole, chunked = _both(path)
    assert chunked is None and whole is not None
    assert load_ir(str(path)).findings == load_ir(path.read_bytes()).findings


def test_white_space_beyond_the_looked_at_edges_sends_the_file_to_be_read_whole(tmp_path: Path) -> None:
    """The document's braces are looked for in the file's first and last 4 KiB: more white space around
    them than that, and the file is split whole, with the same members and findings."""
    edge = " \n" * 3000
    for text in (edge + '{"0": []}', '{"0": []}' + edge, edge + '{"0": []}' + edge):
        path = tmp_path / "padded.json"
        path.write_text(text)
        whole, chunked = _both(path)
        assert chunked is None and whole is not None and list(whole.spans) == ["0"]
        assert load_ir(str(path)).findings == load_ir(path.read_bytes()).findings


def test_no_json_object_and_a_backslash_are_split_by_neither(tmp_path: Path) -> None:
    """Not an object, a backslash, a stray comma or brace, a missing comma: both leave it to the models."""
    texts = ['[{"0": []}]', '{"0": [], "-1": {"in": [], "out": [{"layer_name": "a\\\\b"}]}}', "", "  "]
    texts += ['{ , "0": []}', '{"0": [] , , "1": []}', '{"0": [] "1": []}', '{"0": []}}']
    for text in texts:
        path = tmp_path / "odd.json"
        path.write_text(text)
        assert _both(path) == (None, None), text


@pytest.mark.parametrize(
    "text",
    [
        '{"-1": {"in": [], "out": []}, "xlen": 2, "ylen": 1, "xlen": 2}',  # in one segment
        '{"0": [], "1": [], "0": []}',  # across segments
    ],
)
def test_a_repeated_top_level_key_is_not_split(text: str, tmp_path: Path) -> None:
    """The models' reader reports it (GIR102): neither split may keep one of the two."""
    path = tmp_path / "repeated.json"
    path.write_text(text)
    assert _both(path) == (None, None)


_KEYS = st.sampled_from(['"0"', '"1"', '"12"', '"-1"', '"x"'])
_VALUES = st.sampled_from(["[]", "[1, 2]", "{}", '{"5": []}', '{"a": 1}', "1", '"s"', '[{"7": [1]}]'])
_PIECES = st.sampled_from(
    ['"0"', '"12"', ":", ",", " ", "\n", "[]", "{}", '{"5": []}', "{", "}", "[", "]", "1"]
)


_SEPARATORS = st.sampled_from([",", ", ", " ,\n", ",", "", "{", ",,", ", {", "}, "])


@st.composite
def _tops(draw: st.DrawFn) -> str:
    """A top-level object of core-like members, mostly separated by commas, sometimes by what JSON
    forbids there, perhaps with one piece put in or cut out somewhere."""
    members = draw(st.lists(st.tuples(_KEYS, st.sampled_from([":", " : "]), _VALUES), max_size=5))
    text = (
        "{"
        + "".join(
            (draw(_SEPARATORS) if i else "") + key + colon + value
            for i, (key, colon, value) in enumerate(members)
        )
        + "}"
    )
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(_PIECES) + text[at + draw(st.integers(0, 2)) :]
    return text


@given(text=_tops(), chunk=st.sampled_from([7, 61, 4096]))
@settings(max_examples=examples(400), deadline=None)
def test_the_chunks_never_split_what_the_whole_file_split_rejects(
    text: str, chunk: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Stray braces, commas, repeated and nested keys: where the chunks split, the whole split does too,
    into the same members (20,000 such texts found two gaps, now closed)."""
    path = tmp_path_factory.mktemp("tops") / "top.json"
    path.write_text(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spans, "CHUNK", chunk)
        whole, chunked = _both(path)
    if chunked is not None:
        assert whole is not None and whole.spans == chunked.spans, text


REAL = ROOT.parent / "shared" / "fixtures" / "gemini-raw" / "bert_2x2_b1_ir.json"


def _segments_split(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys whose assumed segment loading splits (records `spans.split_segment`'s calls)."""
    calls: list[str] = []
    real = spans.split_segment

    def split_segment(read: spans.Reader, key: str, *args: object) -> None:
        calls.append(key)
        real(read, key, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(decoder, "split_segment", split_segment)
    return calls


def _found(path: Path) -> spans.Found:
    with open(path, "rb") as handle:

        def read(start: int, end: int) -> bytes:
            handle.seek(start)
            return handle.read(end - start)

        return spans.member_spans(read, path.stat().st_size)


def test_a_real_files_cores_between_two_core_keys_are_shown_by_their_decode_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The speed of it: a clean multi-core file's members between two core keys are taken from the keys'
    places and never split, and the file loads with the findings of the whole-file read."""
    # "-1", "1", "2", "5" lie between core keys; "6" is split with the top-level numbers after it.
    assert list(_found(REAL).assumed) == ["-1", "1", "2", "5"]
    split = _segments_split(monkeypatch)
    assert load_ir(str(REAL)).findings == load_ir(REAL.read_bytes()).findings
    assert split == []


def _rewritten(tmp_path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Path:
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(change(json.loads(REAL.read_text()))))
    return path


def _with_a_number_between_cores(document: dict[str, Any]) -> dict[str, Any]:
    keys = list(document)
    return {
        **{k: document[k] for k in keys[:2]},
        "xlen": document["xlen"],
        **{k: document[k] for k in keys[2:]},
    }


def _with_a_bad_time_in_core_2(document: dict[str, Any]) -> dict[str, Any]:
    document["2"][0]["time"] = "soon"
    return document


def _with_a_core_key_in_a_workload_of_core_2(document: dict[str, Any]) -> dict[str, Any]:
    document["2"][1]["7"] = []
    return document


@pytest.mark.parametrize(
    ("change", "split", "whole"),
    [
        # "xlen" after core 1: core 1's segment holds two members, so the file is split whole.
        (_with_a_number_between_cores, ["1"], True),
        # Core 2 breaks the schema: its segment is split (it holds core 2 only), the models read it.
        (_with_a_bad_time_in_core_2, ["2"], False),
        # `"7": []` after a comma inside core 2 ends a segment mid-member: the file is split whole.
        (_with_a_core_key_in_a_workload_of_core_2, ["2"], True),
    ],
)
def test_a_member_the_chunks_mistook_is_split_and_loads_as_the_whole_file(
    change: Callable[[dict[str, Any]], dict[str, Any]],
    split: list[str],
    whole: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _rewritten(tmp_path, change)
    expected = load_ir(path.read_bytes()).findings
    splits = _segments_split(monkeypatch)
    whole_splits: list[bytes] = []
    real_split = decoder.split
    monkeypatch.setattr(decoder, "split", lambda data: whole_splits.append(data) or real_split(data))
    assert load_ir(str(path)).findings == expected
    assert splits == split
    assert bool(whole_splits) is whole


def test_top_level_numbers_between_cores_are_not_missed_by_the_per_core_checks(tmp_path: Path) -> None:
    """A file with its top-level numbers between two cores (Gemini writes them after the cores; `irtools
    synth --inject GIR506` adds a core after them, as another writer may): the chunks assume core 1's
    segment holds core 1 only, core 0's per-core checks have run without the L2 size when the segment
    shows otherwise, and the file is then read again whole, nothing of that first pass kept (it reported
    a tensor "outside every ring region" besides "past buffersize"; found by tests/synth's property test).
    validate's findings are those of the file read whole from its bytes."""
    base = synthesize(
        SynthOptions(xlen=2, ylen=1, layers=9, batch=1, buffersize=256 * KIB, ring_regions=1, seed=1)
    )
    document = inject(json.loads(ir_text(base.document)), ["GIR206", "GIR301", "GIR506"], 19).document
    assert list(document)[2:4] == ["1", "buffersize"] and list(document)[-1] == "4000003"
    path = tmp_path / "between.json"
    path.write_text(json.dumps(document))
    from_the_file, _ = _check_file(str(path), RunOptions(), None)
    from_the_bytes, _ = _check_file(path.read_bytes(), RunOptions(), None, str(path))
    assert [f.message for f in from_the_bytes if f.code == "GIR301"] == [
        "ifmap tensor 10 [transfer 12] (Conv_2): starts at 0x403c0, past buffersize 0x40000"
    ]
    assert sorted(from_the_file, key=repr) == sorted(from_the_bytes, key=repr)


def test_a_file_read_again_whole_after_the_chunks_gives_the_tables_of_its_bytes(tmp_path: Path) -> None:
    """As `irtools analyze` reads it (snapshots dropped core by core, the snapshot tables built as cores
    come): a file whose numbers sit between cores is read again whole, and its tables are those of its
    bytes read whole."""
    document = synthesize(
        SynthOptions(xlen=3, ylen=1, layers=9, batch=1, buffersize=256 * KIB, ring_regions=1, seed=1)
    ).document
    keys = ["-1", "0", "1", "buffersize", "top_batch_cut", "xlen", "ylen", "2"]
    path = tmp_path / "between.json"
    path.write_text(json.dumps({key: document[key] for key in keys}))
    from_the_file = analyze(str(path), keep_snapshots=False).tables()
    from_the_bytes = analyze(path.read_bytes(), name=str(path)).tables()
    assert from_the_file.keys() == from_the_bytes.keys()
    for table, frame in from_the_file.items():
        pd.testing.assert_frame_equal(frame, from_the_bytes[table], obj=table)


_REORDERED = [
    json.loads((ROOT.parent / "shared" / "fixtures" / path).read_text())
    for path in ("gemini-raw/bert_2x2_b1_ir.json", "gemini-alloc/bert_2x2_b1_alloc.json")
] + [
    synthesize(
        SynthOptions(xlen=3, ylen=1, layers=9, batch=1, buffersize=256 * KIB, ring_regions=1, seed=1)
    ).document
]
"""Two real multi-core files and a documented one with an L2 size the per-core rules read."""


@given(
    base=st.sampled_from(range(len(_REORDERED))),
    order=st.randoms(use_true_random=False),
    size=st.sampled_from([None, 4096]),
    layout=st.sampled_from([(None, (",", ":")), (None, (", ", ": ")), (2, (",", " : "))]),
)
@settings(max_examples=examples(40), deadline=None)
def test_members_in_any_order_and_layout_are_checked_as_the_reference_checks_them(
    base: int,
    order: Any,
    size: int | None,
    layout: tuple[int | None, tuple[str, str]],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Whatever order a writer gives the top-level members (the numbers between cores, the DRAM section
    last) and however it spaces them, the file checked as read (members found chunk by chunk, cores
    checked as they come, perhaps read again whole) gives the reference core's findings (the models' read,
    every rule's reference check). Gemini sorts its keys; a key order found only by chance by
    tests/synth made the per-core checks run before the L2 size was read."""
    document = _REORDERED[base]
    keys = list(document)
    order.shuffle(keys)
    shuffled = {key: document[key] for key in keys}
    if size is not None and "buffersize" in shuffled:
        shuffled["buffersize"] = size
    indent, separators = layout
    path = tmp_path_factory.mktemp("order") / "ir.json"
    path.write_text(json.dumps(shuffled, indent=indent, separators=separators))
    as_read, _ = _check_file(str(path), RunOptions(), None)
    with reference_core():
        reference, _ = _check_file(str(path), RunOptions(), None)
    assert sorted(as_read, key=repr) == sorted(reference, key=repr)
