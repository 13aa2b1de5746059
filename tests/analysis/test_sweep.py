"""`irtools summarize`: one row per file of a sweep."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from irtools.analysis import analyze
from irtools.sweep.engine import sweep_table
from irtools.sweep.row import SWEEP
from tests.analysis.builders import MESH
from tests.conftest import RunCli


def _sweep_dir(tmp_path: Path, fixtures_dir: Path) -> Path:
    root = tmp_path / "sweep"
    root.mkdir()
    for f in (fixtures_dir / "gemini").glob("*.json"):
        shutil.copy(f, root / f.name)
    shutil.copy(MESH, root / MESH.name)
    (root / "truncated_b1_c1_bw16_stschedule.json").write_text('{"-1": ')
    return root


def test_rows_hold_the_configuration_and_the_analysis(tmp_path: Path, fixtures_dir: Path) -> None:
    table = sweep_table([str(_sweep_dir(tmp_path, fixtures_dir))])
    table.index = [Path(p).name for p in table["path"]]
    b4 = table.loc["int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json"]
    assert (b4.model, b4.batch, b4.cores_in_name, b4.dram_gbps) == ("int8_resnet34.sim_quantized", 4, 1, 16)
    a = analyze(fixtures_dir / "gemini" / "int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json")
    assert b4.makespan_sequential == a.makespan("sequential")
    assert b4.peak_l2_max == a.l2_occupancy.total_bytes.max()
    assert (b4.errors, b4.warnings, b4.analyzed) == (0, 0, True)
    mesh = table.loc[MESH.name]
    assert (mesh.cores, mesh.makespan_dependency, mesh.peak_l2_per_core) == (
        4,
        102192,
        "13568;13568;37376;37376",
    )
    assert mesh.dram_read_bytes == 19968 and mesh.dram_write_bytes == 32768
    broken = table.loc["truncated_b1_c1_bw16_stschedule.json"]
    assert not broken.analyzed and broken.errors == 1 and pd.isna(broken.makespan_sequential)
    assert broken.status == "not an IR that can be analyzed"
    assert broken.batch == 1  # the name still tells the configuration


def test_cli_writes_the_csv_and_jobs_do_not_change_it(
    run_cli: RunCli, tmp_path: Path, fixtures_dir: Path
) -> None:
    root = _sweep_dir(tmp_path, fixtures_dir)
    code, out, err = run_cli("summarize", root, "-o", tmp_path / "one.csv")
    assert code == 0, err
    assert "5 files, 4 analyzed" in out
    code, _, _ = run_cli("summarize", root, "-o", tmp_path / "two.csv", "--jobs", "2", "--no-cache")
    assert code == 0
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()
    assert (tmp_path / "one.findings.csv").read_bytes() == (tmp_path / "two.findings.csv").read_bytes()
    back = pd.read_csv(tmp_path / "one.csv", dtype=SWEEP.dtypes, keep_default_na=False, na_values=[""])
    assert list(back.columns) == [c.name for c in SWEEP.columns]


def test_cli_missing_path(run_cli: RunCli, tmp_path: Path) -> None:
    code, _, err = run_cli("summarize", tmp_path / "nope", "-o", tmp_path / "s.csv")
    assert code == 2 and "nope" in err
    assert not (tmp_path / "s.csv").exists()
