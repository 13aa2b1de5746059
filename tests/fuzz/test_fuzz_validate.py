"""Bad input never breaks `irtools validate`: property tests over random bytes, JSON values and mutated IRs.

The contract: every input yields findings (or one clear error line), exit code 0/1/2, never a
traceback, a hang or a memory blow-up. In-process: `load_ir(bytes)` + `check_loaded` never raise,
never report GIR001 (a rule crashed), and every finding has a GIR code, a severity and a JSON
pointer into the file as written. The long campaign is benchmarks/fuzz_campaign.py.
"""

from __future__ import annotations

import codecs
import functools
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from irtools import pointer as jp
from irtools.findings import Finding
from irtools.loading import schema_errors
from irtools.loading.load import LoadedIR, load_ir
from tests.budget import examples

from . import mutators as M

FAST = settings(max_examples=examples(150), deadline=None)
SAMPLES = M.sample_bases()
SAMPLE_BYTES = M.base_bytes(M.SAMPLE)
IR_KEYS = sorted(M.paths_of(SAMPLE_BYTES)[1])
"""Every key name the sample uses: arbitrary JSON built from them reaches deep into the schema."""


def keeps_contract(data: bytes, options: Any = None) -> list[Finding]:
    """Validate `data` in-process (an exception fails the test) and check every finding."""
    findings = M.check_bytes(data, options)
    assert M.contract_violations(findings) == []
    assert M.location_violations(data, findings) == []
    return findings


# --------------------------------------------------------------------------- strategies

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(M.BIG_INTS),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["DRAM", "core", "weight", "fmap", "ifmap", "ofmap", "CORE", "DDR", "\ud800"]),
)
keys = st.one_of(
    st.sampled_from(IR_KEYS),
    st.sampled_from(["-1", "0", "1", "3", "$cores", "in", "out"]),
    st.text(max_size=8),
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(keys, children, max_size=6),
    max_leaves=60,
)


def _dump(value: Any, ascii_only: bool) -> bytes:
    # allow_nan writes NaN/Infinity tokens, which the reader must reject (GIR100).
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


coord = st.lists(st.one_of(st.integers(-2, 40), st.sampled_from(M.BIG_INTS), scalars), min_size=0, max_size=5)
workloads = st.fixed_dictionaries(
    {},
    optional={
        "workload_id": st.integers(-1, 5) | scalars,
        "layer_name": st.sampled_from(["a", "b"]) | scalars,
        "layer_type": st.just("pe") | scalars,
        "time": st.integers(0, 10) | scalars,
        "workload": st.lists(coord, max_size=3) | json_values,
        "ofmap_size": st.integers(0, 10) | scalars,
        "ifmap": json_values,
        "ofmap": json_values,
        "buffer": json_values,
        "wl0_buffer": json_values,
        "ring_buffer_info": st.lists(st.lists(st.integers(-1, 2**20), max_size=3), max_size=3) | json_values,
        "tile_info": json_values,
    },
)
ir_shaped = st.fixed_dictionaries(
    {},
    optional={
        "-1": st.fixed_dictionaries({}, optional={"in": json_values, "out": json_values}) | json_values,
        "0": st.lists(workloads, max_size=3),
        "1": st.lists(workloads, max_size=2) | json_values,
        "buffersize": st.integers(-1, 2**21) | scalars,
        "top_batch_cut": st.integers(0, 2) | scalars,
        "xlen": st.integers(0, 3) | scalars,
        "ylen": st.integers(0, 3) | scalars,
    },
)


# --------------------------------------------------------------------------- properties


@FAST
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    keeps_contract(data)


@FAST
@given(
    st.sampled_from([b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, b'{"-1":', b'{"0":[{', b"[" * 999]),
    st.binary(max_size=200),
)
def test_arbitrary_bytes_after_a_plausible_start(prefix: bytes, data: bytes) -> None:
    keeps_contract(prefix + data)


@settings(max_examples=examples(100), deadline=None)
@given(json_values, st.booleans())
def test_arbitrary_json_values(value: Any, ascii_only: bool) -> None:
    keeps_contract(_dump(value, ascii_only))


@settings(max_examples=examples(100), deadline=None)
@given(ir_shaped, st.booleans())
@example({"-1": {"out": [{"destination": True}]}}, False)  # the dialect sniffer once iterated a bool
def test_ir_shaped_json(value: Any, ascii_only: bool) -> None:
    keeps_contract(_dump(value, ascii_only), M.OPTIONS[1])


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(SAMPLES), st.randoms(use_true_random=False), st.sampled_from(M.OPTIONS))
def test_mutated_samples(base: Path, rng: random.Random, options: Any) -> None:
    data, _log = M.generate(M.base_bytes(base), rng, damage=0.3)
    keeps_contract(data, options)


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_mutated_real_fixture_slices(fixtures_dir: Path, data: st.DataObject) -> None:
    path, window = data.draw(st.sampled_from(M.fixture_bases(fixtures_dir)))
    rng = data.draw(st.randoms(use_true_random=False))
    raw, _log = M.generate(M.base_bytes(path, window), rng, damage=0.2)
    keeps_contract(raw, M.OPTIONS[1])


@functools.cache
def _synth_dialects() -> tuple[bytes, ...]:
    """A small synthetic file in each dialect (documented, raw, alloc) from one schedule."""
    from irtools.synth import SynthOptions, synthesize
    from irtools.synth.alloc import to_alloc
    from irtools.synth.raw import to_raw

    documented = synthesize(SynthOptions(2, 2, 8, 1, 1 << 20, 1, 11)).document
    raw = to_raw(documented)
    return tuple(json.dumps(d).encode() for d in (documented, raw, to_alloc(raw)))


@FAST
@given(which=st.integers(0, 2), seed=st.integers(0, 2**32 - 1), options=st.sampled_from(M.OPTIONS))
# ylen 12,234,068 and a core 999999999: numbering and GIR503 listed every mesh id (MemoryError)
@example(which=0, seed=25773, options=M.OPTIONS[0])
def test_mutated_synth_files_of_every_dialect(which: int, seed: int, options: Any) -> None:
    data, _ = M.generate(_synth_dialects()[which], random.Random(seed))
    keeps_contract(data, options)


# --------------------------------------------------------------------------- raw-text damage, one of each


def _replace_number(text: bytes, token: bytes) -> bytes:
    return text.replace(b'"buffersize":1048576', b'"buffersize":' + token, 1)


RAW: dict[str, Any] = {
    "NaN": lambda t: _replace_number(t, b"NaN"),
    "Infinity": lambda t: _replace_number(t, b"-Infinity"),
    "1e999": lambda t: _replace_number(t, b"1e999"),
    "5000-digit integer": lambda t: _replace_number(t, b"9" * 5000),
    "4000-digit integer": lambda t: _replace_number(t, b"9" * 4000),
    "nesting 5000 deep": lambda t: _replace_number(t, b"[" * 5000 + b"]" * 5000),
    "nesting 950 deep": lambda t: _replace_number(t, b"[" * 950 + b"]" * 950),
    "duplicate keys": lambda t: t.replace(b'"xlen":2', b'"xlen":2,"xlen":3', 1),
    "UTF-8 BOM": lambda t: codecs.BOM_UTF8 + t,
    "UTF-16": lambda t: t.decode().encode("utf-16"),
    "UTF-16-LE without BOM": lambda t: t.decode().encode("utf-16-le"),
    "UTF-32": lambda t: t.decode().encode("utf-32"),
    "invalid UTF-8": lambda t: t.replace(b'"Conv_0"', b'"Conv_\xff"', 1),
    "lone surrogate escapes": lambda t: t.replace(b'"Conv_0"', b'"\\ud800"', 1).replace(
        b'"type"', b'"\\udfff"', 1
    ),
    "truncated": lambda t: t[: len(t) // 2],
    "empty": lambda t: b"",
    "huge array": lambda t: _replace_number(t, b"[" + b"0," * 200_000 + b"0]"),
    "huge transfer list": lambda t: t.replace(b'"transfer_id":[', b'"transfer_id":[' + b"7," * 100_000, 1),
}


@pytest.mark.parametrize("damage", sorted(RAW))
def test_raw_text_damage(damage: str) -> None:
    data = RAW[damage](SAMPLE_BYTES)
    assert data != SAMPLE_BYTES or damage == "empty"
    keeps_contract(data, M.OPTIONS[1])


def test_the_mutators_produce_every_kind_of_finding() -> None:
    # Guards the fuzzer itself: mutations reach every rule, not just the reader and the schema.
    seen: set[str] = set()
    bases = [M.base_bytes(p) for p in SAMPLES]
    for seed in range(250):
        rng = random.Random(seed)
        data, _ = M.generate(rng.choice(bases), rng)
        seen.update(f.code for f in M.check_bytes(data, M.OPTIONS[1]))
    assert {"GIR100", "GIR101", "GIR201", "GIR203", "GIR302", "GIR303", "GIR307", "GIR502"} <= seen
    assert "GIR001" not in seen


# --------------------------------------------------------------------------- the command line


def test_cli_on_nasty_files_exits_cleanly(tmp_path: Path) -> None:
    doc = json.loads(SAMPLE_BYTES)
    doc["0"][0]["\ud800<&>\x01"] = [2**64, -1]
    doc["0"][0]["buffer"][0]["address"] = 2**63
    files = {
        "deep.json": b"[" * 5000 + b"]" * 5000,
        "utf16.json": SAMPLE_BYTES.decode().encode("utf-16"),
        "nan.json": _replace_number(SAMPLE_BYTES, b"1e999").replace(b'"xlen":2', b'"xlen":NaN', 1),
        "binary.json": bytes(range(256)) * 8,
        "surrogates.json": json.dumps(doc).encode(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(M.ROOT), os.environ.get("PYTHONPATH")])),
    }
    for fmt in ("text", "json", "sarif", "junit", "github"):
        args = ["--format", fmt, *sorted(str(p) for p in tmp_path.iterdir())]
        proc = subprocess.run(
            [sys.executable, "-m", "irtools", "validate", *args],
            capture_output=True,
            cwd=M.ROOT,
            env=env,
            timeout=120,
            check=False,
        )
        stderr = proc.stderr.decode("utf-8", "replace")
        assert proc.returncode in (0, 1, 2), (args, stderr)
        assert "Traceback" not in stderr, (args, stderr)
        assert proc.returncode == 1, (args, stderr)  # every file has an error-severity finding
        assert proc.stdout, args


# --------------------------------------------------------------------------- regressions found by fuzzing


def _sample() -> dict[str, Any]:
    return json.loads(SAMPLE_BYTES)


def test_regression_workload_with_scalar_ofmap() -> None:
    # Broke: a workload whose "ofmap" was an integer raised TypeError while noting unchecked transfers.
    doc = _sample()
    doc["2"][0]["ofmap"] = 2
    findings = keeps_contract(json.dumps(doc).encode())
    assert any(f.code == "GIR101" and f.pointer == "/2/0/ofmap" for f in findings)


def test_regression_finding_after_a_skipped_buffer_entry_points_at_the_file() -> None:
    # Broke: buffer [schema error, out of bounds]: GIR301 pointed at /0/0/buffer/0 (positions shifted).
    doc = _sample()
    doc["0"][0]["buffer"][0]["address"] = "bad"
    doc["0"][0]["buffer"][1]["address"] = 2**40
    findings = keeps_contract(json.dumps(doc).encode())
    assert [f.pointer for f in findings if f.code == "GIR301"] == ["/0/0/buffer/1"]


def test_regression_finding_after_a_skipped_workload_points_at_the_file() -> None:
    # Broke: core 2 workload 0 with a bad layer_name: GIR103 for workload 1 pointed at /2/0/... .
    doc = _sample()
    doc["2"][0]["layer_name"] = 5
    findings = keeps_contract(json.dumps(doc).encode())
    assert [f.pointer for f in findings if f.code == "GIR103"] == ["/2/1/buffer/1/start_send"]


def test_regression_skipped_entries_are_mapped_back_to_file_positions() -> None:
    # Broke: after a skipped workload, `incomplete` judged the wrong workload and GIR202's message
    # named a shifted DRAM pointer.
    doc = _sample()
    doc["2"][0]["layer_name"] = 5
    doc["2"][1]["buffer"][0]["size"] = -1
    doc["-1"]["out"][0]["size"] = None
    doc["-1"]["out"].append(doc["-1"]["out"][1])
    loaded = load_ir(json.dumps(doc).encode())
    assert loaded.ir is not None
    assert loaded.file_pointer("/2/0/buffer/0") == "/2/1/buffer/1"
    assert loaded.file_pointer("/-1/out/0") == "/-1/out/1"
    assert loaded.incomplete("/2/0")
    findings = keeps_contract(json.dumps(doc).encode())
    dup = [f for f in findings if f.code == "GIR202"]
    assert [(f.pointer, f.related) for f in dup] == [(jp.join("-1", "out", 6), ("/-1/out/1",))]
    assert dup[0].message.endswith("also produced at /-1/out/1")


class _CountingList(list[str]):
    iterations = 0

    def __iter__(self) -> Any:
        _CountingList.iterations += 1
        return super().__iter__()


def test_regression_incomplete_does_not_rescan_skipped_entries() -> None:
    # Broke: 4000 workloads with 20 broken buffer entries each (9 MB) took 20 s: every workload
    # scanned every skipped pointer (quadratic). incomplete() now reads `skipped` once.
    skipped = _CountingList(f"/0/{w}/buffer/{i}" for w in range(0, 2000, 2) for i in range(20))
    loaded = LoadedIR("x.json", None, skipped=skipped)
    _CountingList.iterations = 0
    assert [loaded.incomplete(f"/0/{w}") for w in range(6)] == [True, False] * 3
    assert all(loaded.incomplete(f"/0/{w}") for w in range(0, 2000, 2))
    assert not loaded.incomplete("/0/1999") and not loaded.incomplete("/1/0")
    assert _CountingList.iterations == 1


def test_regression_messages_do_not_repeat_unbounded_lists() -> None:
    # Broke: one workload with 20000 ifmap transfer ids and 20000 wrongly flagged buffer entries
    # (7 MB) built 3.4 GB of GIR306 messages (60 s, 7 GB RSS): each message listed every id; GIR302
    # and GIR401 likewise repeated a big tensor's ids and layer name in every overlap.
    doc = _sample()
    wl = doc["0"][0]
    entry = wl["buffer"][0]
    wl["ifmap"][0]["transfer_id"] = list(range(1000, 1300))
    big = dict(entry, transfer_id=list(range(300)), address=0, size=1000, tensor_id=0, layer_name="L" * 5000)
    wl["buffer"] = [big] + [
        dict(entry, cur_wl_ifmap=True, transfer_id=[5], tensor_id=i + 1, address=1 + i, size=1)
        for i in range(300)
    ]
    wl0 = wl["wl0_buffer"][0]
    wl["wl0_buffer"] = [dict(wl0, transfer_id=list(range(300)), size=1000)] + [
        dict(wl0, address=i, size=1) for i in range(1, 300)
    ]
    findings = keeps_contract(json.dumps(doc).encode())
    by_code = {code: [f for f in findings if f.code == code] for code in ("GIR302", "GIR306", "GIR401")}
    assert all(len(by_code[code]) >= 299 for code in by_code)
    assert max(len(f.message) for f in findings) < 600
    assert "1000, 1001, 1002" in by_code["GIR306"][0].message and "(284 more)" in by_code["GIR306"][0].message


def test_regression_many_schema_errors_show_the_first_and_count_the_rest() -> None:
    # Broke: "-1"/"in" holding 1,000,000 zeros (2.9 MB) took 12 s and 1.4 GB: every error became a
    # Python dict and each broken entry was revisited through its pointer.
    doc = _sample()
    doc["-1"]["in"] = [0] * 30_000
    findings = keeps_contract(json.dumps(doc).encode())
    errors = [f for f in findings if f.code == "GIR101" and f.severity.value == "error"]
    assert len(errors) == 1001
    assert (errors[0].pointer, errors[0].message) == ("/-1/in/0", "expected an object, got integer 0")
    assert errors[-1].message == "29000 more schema errors not shown"
    assert any(f.message.startswith("30000 entries with schema errors were left out") for f in findings)


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(SAMPLES), st.randoms(use_true_random=False))
def test_bounded_schema_errors_match_the_detailed_ones(base: Path, rng: random.Random) -> None:
    # first_errors() decodes the errors of huge files from ValidationError.json(); force that path.
    data, _log = M.generate(M.base_bytes(base), rng, damage=0.1)
    detailed = M.check_bytes(data)
    with mock.patch.object(schema_errors, "DETAILED_ERRORS", 0):
        bounded = M.check_bytes(data)
    assert sorted(bounded, key=Finding.sort_key) == sorted(detailed, key=Finding.sort_key)
