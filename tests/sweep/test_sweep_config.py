"""Configuration columns: Gemini's two naming schemes, and a manifest joined by file name (real sweep)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from irtools.sweep.names import name_columns
from irtools.sweep.row import SWEEP
from tests.conftest import FIXTURES, RunCli


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json",
            {"model": "int8_resnet34.sim_quantized", "batch": 4, "cores_in_name": 1, "dram_gbps": 16},
        ),
        (
            "vgg_2x2_b1_noc16_ul1024_ir.json",
            {
                "model": "vgg",
                "mesh_x": 2,
                "mesh_y": 2,
                "cores_in_name": 4,
                "batch": 1,
                "noc_bw_in_name": 16,
                "l2_kb": 1024,
            },
        ),
        (
            "resnet_4x4_b4_ff1_ss2_rr50_alloc.json",
            {"model": "resnet", "mesh_x": 4, "mesh_y": 4, "cores_in_name": 16, "batch": 4}
            | {"cost_function": 1, "stride": 2, "rounds": 50},
        ),
        # One IR written by the runs at NoC 32 and 128: the range is kept as written, not guessed.
        (
            "darknet19_2x2_b1_noc32-128_ul512_ir.json",
            {"model": "darknet19", "mesh_x": 2, "mesh_y": 2, "cores_in_name": 4, "batch": 1, "l2_kb": 512}
            | {"name_tags": "noc=32-128"},
        ),
        (
            "mobilenet_v2_4x4_ir.json",
            {"model": "mobilenet_v2", "mesh_x": 4, "mesh_y": 4, "cores_in_name": 16},
        ),
        ("schedule.json", {}),
    ],
)
def test_names_give_the_configuration(name: str, expected: dict[str, object]) -> None:
    assert name_columns(name) == expected


def test_the_real_sweep_with_its_manifest(run_cli: RunCli, tmp_path: Path, fixtures_dir: Path) -> None:
    sweep = fixtures_dir / "gemini-sweep"
    out = tmp_path / "sweep.parquet"
    code, stdout, err = run_cli("summarize", sweep, "--manifest", sweep / "manifest.csv", "-o", out)
    assert code == 0, err
    assert (
        "10 files, 10 analyzed, 0 errors in all" in stdout
        and "12 rows for 12 manifest runs, 2 without" in stdout
    )
    table = pd.read_parquet(out).set_index("name")
    assert list(table.columns[:3]) == [
        "path",
        "status",
        "model",
    ]  # irtools columns first, then the manifest's
    # The two runs that wrote no IR: rows that say so, with the manifest's reason in its cost column.
    missing = table[table["status"].str.startswith("missing")]
    assert sorted(missing.index) == ["vgg_2x2_b2_noc16_ul256_ir.json", "vgg_2x2_b2_noc64_ul256_ir.json"]
    assert (missing["gemini_cost_line"] == "no IR written (scheduler found no schedule)").all()
    ran = table[table["status"] == "ok"]
    # The name and the manifest agree on the configuration.
    assert (ran["noc_bw_in_name"] == ran["manifest_noc_bw"]).all() and (ran["l2_kb"] == ran["ul3_kb"]).all()
    # The fixtures' README: at NoC 64 the scheduler's T is the IR's makespan; at NoC 16 (the same IR,
    # byte for byte) T is larger, by the NoC time the IR's workload times leave out.
    assert (ran.loc[ran["noc_bw_in_name"] == 64, "latency_ratio"] == 1.0).all()
    assert (ran.loc[ran["noc_bw_in_name"] == 16, "latency_ratio"] > 1.0).all()
    assert ran.loc["vgg_2x2_b1_noc16_ul512_ir.json", "scheduler_latency"] == 7644420


def test_a_manifest_without_a_name_column_is_a_usage_error(run_cli: RunCli, tmp_path: Path) -> None:
    manifest = tmp_path / "m.csv"
    manifest.write_text("net,batch\nvgg,1\n")
    code, _, err = run_cli(
        "summarize", tmp_path, "--allow-empty", "--manifest", manifest, "-o", tmp_path / "s.csv"
    )
    assert code == 2 and "no column naming the IR file" in err


def test_docs_list_the_sweep_columns() -> None:
    from irtools.sweep.row import SWEEP_FINDINGS
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "sweeps.md").read_text()
    for spec in (SWEEP, SWEEP_FINDINGS):
        for column in spec.columns:
            assert f"| {column.name} | {column.dtype} | {column.unit} | {column.doc} |" in text, column.name


def test_each_manifest_run_gets_the_noc_makespan_at_its_own_bandwidth(
    run_cli: RunCli, tmp_path: Path
) -> None:
    # One IR served three runs (NoC 8, 32, 128): the noc model at each run's bandwidth gives that run's T,
    # on the batch-4 runs too (rows 7-12: the batch groups share each layer's weights).
    noc = FIXTURES / "gemini-noc"
    out = tmp_path / "noc.csv"
    args = ("summarize", noc, "--manifest", noc / "manifest.csv", "-o", out, "--cache-dir", tmp_path / "c")
    code, stdout, err = run_cli(*args)
    assert code == 0, err
    table = pd.read_csv(out)
    assert len(table) == 12
    assert sorted(table["noc_bw"]) == [8] * 5 + [32] * 5 + [128] * 2
    assert (table["makespan_noc"] == table["scheduler_latency"]).all()
    assert (table["noc_latency_ratio"] == 1.0).all()
    vgg = table[table["path"].str.endswith("vgg_4x4_b1_ul512_ir.json")].set_index("noc_bw")
    assert vgg["makespan_noc"].to_dict() == {8: 1941778, 32: 1852948, 128: 1843751}
    # A cached rerun keeps the per-run makespans (they are part of the cache entry).
    code, stdout, _ = run_cli(*args[:-4], "-o", tmp_path / "again.csv", "--cache-dir", tmp_path / "c")
    assert "8 from the cache" in stdout  # 8 IR files for the 12 runs
    assert (tmp_path / "again.csv").read_bytes() == out.read_bytes()
