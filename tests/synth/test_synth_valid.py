"""`irtools synth` writes valid IRs: no finding for any seed and size, the same bytes for the same seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from irtools.findings import Severity
from irtools.report.json_report import finding_to_json
from irtools.rules.context import CheckOptions
from irtools.synth import SynthOptions, synthesize
from irtools.synth.allocator import ADDRESS_ALIGN
from irtools.synth.build import KIB, MIB, WL0_SIZE
from irtools.synth.inject import baseline
from irtools.synth.writer import write_ir
from irtools.validate import validate_file
from tests.budget import examples

STRICT = CheckOptions(addr_align=ADDRESS_ALIGN, wl0_size=WL0_SIZE)
"""The opt-in rules too: generated addresses are 64-byte aligned and WL0 weights end within 16 KiB."""

options = st.builds(
    SynthOptions,
    xlen=st.integers(1, 3),
    ylen=st.integers(1, 3),
    layers=st.integers(1, 24),
    batch=st.integers(1, 2),
    buffersize=st.sampled_from([64 * KIB, 256 * KIB, 1 * MIB, 3 * MIB + 64 * KIB, 8 * MIB]),
    ring_regions=st.integers(1, 3),
    seed=st.integers(0, 2**32),
)


def _findings(path: Path, check: CheckOptions | None = None) -> list[dict[str, Any]]:
    return [finding_to_json(f) for f in validate_file(str(path), check).findings]


@settings(max_examples=examples(80), deadline=None)
@given(options)
def test_generated_ir_has_no_finding(tmp_path_factory: pytest.TempPathFactory, opts: SynthOptions) -> None:
    assume(opts.buffersize // opts.ring_regions >= 64 * KIB)
    result = synthesize(opts)
    path = tmp_path_factory.mktemp("synth") / "ir.json"
    write_ir(path, result.document)
    expected = [finding_to_json(f) for f in baseline(result.document)]
    assert _findings(path) == expected
    assert _findings(path, STRICT) == expected
    # The only exception: with 2+ ring regions, GIR303 says once how it reads ring_buffer_info.
    assert [(f["code"], f["severity"]) for f in expected] == (
        [("GIR303", Severity.INFO.value)] if opts.ring_regions > 1 else []
    )
    assert result.stats.workloads == sum(len(v) for k, v in result.document.items() if k.isdigit())


def _ir(**kwargs: Any) -> dict[str, Any]:
    return synthesize(SynthOptions(**kwargs)).document


def test_ir_contains_what_the_issue_asks_for() -> None:
    doc = _ir(xlen=2, ylen=2, layers=30, batch=2, ring_regions=2, seed=7)
    workloads = [wl for k, v in doc.items() if k.isdigit() for wl in v]
    names = {wl["layer_name"].split("_")[0] for wl in workloads}
    assert names == {"Conv", "Relu", "Add"}
    assert {wl["layer_type"] for wl in workloads} == {"pe", "vp"}
    assert all(len(wl["ifmap"]) == 2 for wl in workloads if wl["layer_name"].startswith("Add"))
    # Core-to-core transfers, across cores and on one core; DRAM in both directions.
    dests = [
        (k, d)
        for k, v in doc.items()
        if k.isdigit()
        for wl in v
        for o in wl["ofmap"]
        for d in o["destination"]
    ]
    assert any(d["type"] == "core" and d["core_id"] != int(k) for k, d in dests)
    assert any(d["type"] == "DRAM" for _, d in dests)
    assert {e["type"] for e in doc["-1"]["out"]} == {"weight", "fmap"}
    assert doc["-1"]["in"]
    # A layer's parts spread over several cores.
    cores_of: dict[str, set[str]] = {}
    for k, v in doc.items():
        if k.isdigit():
            for wl in v:
                cores_of.setdefault(wl["layer_name"], set()).add(k)
    assert max(len(c) for c in cores_of.values()) > 1
    # L2: sources from several cores, tensors kept across snapshots, tensors wrapping around their region.
    entries = [(wl, e) for wl in workloads for e in wl["buffer"]]
    assert any(len({s["core_id"] for s in e["source"]}) > 1 for _, e in entries)
    assert any(not e["newly_added"] for _, e in entries)
    assert any(e["cur_wl_ifmap"] for _, e in entries)
    wrapped = [
        e
        for wl, e in entries
        for start, end in wl["ring_buffer_info"]
        if start <= e["address"] < end < e["address"] + e["size"]
    ]
    assert wrapped
    assert all(e["address"] % ADDRESS_ALIGN == 0 for _, e in entries)
    # WL0 under its documented key, never the dialect wl1_buffer.
    assert any(wl["wl0_buffer"] for wl in workloads)
    assert not any("wl1_buffer" in wl for wl in workloads)
    # Workload ids ascend on every core; every core key lies in the mesh.
    for k, v in doc.items():
        if k.isdigit():
            ids = [wl["workload_id"] for wl in v]
            assert ids == sorted(set(ids))
            assert int(k) < doc["xlen"] * doc["ylen"]


def test_small_buffers_shrink_the_network() -> None:
    big = synthesize(SynthOptions(layers=12, buffersize=8 * MIB)).stats.scale
    small = synthesize(SynthOptions(layers=12, buffersize=64 * KIB)).stats.scale
    assert big != small


# --- CLI -----------------------------------------------------------------------------------------------------


def test_same_seed_same_bytes(run_cli: Any, tmp_path: Path) -> None:
    args = ["--mesh", "3x2", "--layers", "25", "--batch", "2", "--ring-regions", "2"]
    for name, seed in (("a.json", "5"), ("b.json", "5"), ("c.json", "6")):
        assert run_cli("synth", *args, "--seed", seed, "-o", tmp_path / name).code == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.json").read_bytes() != (tmp_path / "c.json").read_bytes()
    code, out, err = run_cli("validate", tmp_path / "a.json")
    assert code == 0, out + err
    assert "0 errors, 0 warnings, 1 info" in out


def test_cli_writes_a_valid_file_and_says_what_is_in_it(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "ir.json"
    code, out, err = run_cli(
        "synth",
        "--mesh",
        "4x4",
        "--layers",
        "40",
        "--batch",
        "2",
        "--buffersize",
        "4M",
        "--seed",
        "3",
        "-o",
        path,
    )
    assert code == 0, err
    assert out.startswith(f"wrote {path}: 16 cores (4x4), 40 layers, ")
    assert "wrapping around" in out
    doc = json.loads(path.read_text())
    assert (doc["xlen"], doc["ylen"], doc["buffersize"], doc["top_batch_cut"]) == (4, 4, 4 * MIB, 2)
    assert [p.name for p in tmp_path.iterdir()] == ["ir.json"]  # atomic: no temp file left, no sidecar
    code, out, err = run_cli("validate", "--addr-align", "64", "--wl0-size", "16384", path)
    assert code == 0, out + err
    assert out.endswith("1 file checked: 0 errors, 0 warnings, 0 info\n")


def test_indent_changes_layout_not_content(run_cli: Any, tmp_path: Path) -> None:
    assert run_cli("synth", "--layers", "5", "-o", tmp_path / "a.json").code == 0
    assert run_cli("synth", "--layers", "5", "--indent", "2", "-o", tmp_path / "b.json").code == 0
    a, b = (tmp_path / "a.json").read_text(), (tmp_path / "b.json").read_text()
    assert len(b) > len(a) and json.loads(a) == json.loads(b)


def test_help_documents_the_options_and_the_injectors(run_cli: Any) -> None:
    code, out, _ = run_cli("synth", "--help")
    assert code == 0
    for flag in (
        "--mesh",
        "--layers",
        "--batch",
        "--buffersize",
        "--ring-regions",
        "--seed",
        "--inject",
        "-o",
    ):
        assert flag in out
    assert "GIR201" in out and "GIR505" in out and "GIR303" in out
    assert "synth" in run_cli("--help").out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mesh", "4by4"], "argument --mesh: expected XxY with positive integers (e.g. 4x4), got '4by4'"),
        (["--mesh", "0x4"], "argument --mesh: expected XxY"),
        (["--mesh", "4x"], "argument --mesh: expected XxY"),
        (["--layers", "0"], "argument --layers: expected a positive integer"),
        (["--buffersize", "lots"], "argument --buffersize: expected a positive number of bytes"),
        (["--seed", "-1"], "argument --seed: expected a non-negative integer"),
        (["--buffersize", "100000"], "--buffersize: expected a multiple of 64"),
        (
            ["--buffersize", "65536", "--ring-regions", "2"],
            "--ring-regions: 2 regions of a 65536-byte buffer",
        ),
        (["--mesh", "100x100"], "--mesh: 100x100 has to have 1 to 4096 cores"),
        (["--inject", "GIR999"], "--inject: cannot inject GIR999; choose from GIR201, "),
        (["--inject", "GIR101"], "--inject: cannot inject GIR101"),
    ],
)
def test_usage_errors_exit_2_with_a_clear_message(
    run_cli: Any, tmp_path: Path, args: list[str], message: str
) -> None:
    code, _, err = run_cli("synth", *args, "-o", tmp_path / "ir.json")
    assert code == 2
    assert message in err
    assert not (tmp_path / "ir.json").exists()


def test_missing_output_or_directory_is_a_usage_error(run_cli: Any, tmp_path: Path) -> None:
    assert run_cli("synth").code == 2
    code, _, err = run_cli("synth", "-o", tmp_path / "no" / "such" / "dir" / "ir.json")
    assert code == 2
    assert "irtools synth: error:" in err
