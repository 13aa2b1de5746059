"""CSV round trips with the documented dtypes, and atomic writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from irtools import csv_out
from irtools.analysis import TABLES, Analysis, analyze, read_table, write_tables
from tests.analysis.builders import analysis_of, buffer_entry, chain_ir


def _round_trip(tables: dict[str, pd.DataFrame], tmp_path: Path) -> None:
    for path in write_tables(tables, tmp_path / "out"):
        back = read_table(path)
        pd.testing.assert_frame_equal(back, tables[path.stem], check_exact=False, rtol=1e-12)
        assert dict(back.dtypes.astype(str)) == {c.name: c.dtype for c in TABLES[path.stem].columns}


def test_every_table_round_trips(mesh: Analysis, tmp_path: Path) -> None:
    _round_trip(mesh.tables(), tmp_path)


def test_missing_values_and_awkward_names_round_trip(minimal_ir: dict[str, Any], tmp_path: Path) -> None:
    doc = chain_ir(minimal_ir, [[buffer_entry(1, 0, 64, layer_name="NA")], [buffer_entry(2, 2 << 20, 8)]])
    doc["0"][0]["layer_name"] = 'conv "a", b\nc'
    doc["0"][1]["layer_name"] = "null"
    doc["0"][1]["layer_type"] = "Ω<img src=x>"
    a = analysis_of(doc)
    _round_trip(a.tables(), tmp_path)
    back = read_table(tmp_path / "out" / "timeline.csv")
    assert back.layer_name.tolist()[:2] == ['conv "a", b\nc', "null"]
    tensors = read_table(tmp_path / "out" / "tensors.csv")
    assert tensors.layer_name.iloc[0] == "NA" and pd.isna(tensors.layer_name.iloc[1])  # a name vs missing


def test_empty_tables_round_trip(minimal_ir: dict[str, Any], tmp_path: Path) -> None:
    minimal_ir["0"] = []
    _round_trip(analysis_of(minimal_ir).tables(), tmp_path)


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(
    mesh: Analysis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    write_tables(mesh.tables(links=True), out)
    before = (out / "timeline.csv").read_bytes()

    def broken(frame: pd.DataFrame, out: Any, **kwargs: Any) -> None:
        out.write("half a tab")  # the temp file's open stream (irtools.csv_out writes through one)
        raise OSError("disk full")

    monkeypatch.setattr(csv_out, "write_csv_to", broken)
    with pytest.raises(OSError, match="disk full"):
        write_tables(mesh.tables(links=True), out)
    assert (out / "timeline.csv").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{name}.csv" for name in TABLES)


def test_unknown_format_is_refused(mesh: Analysis, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        write_tables(mesh.tables(), tmp_path, "xlsx")


def test_analysis_does_not_import_plotting_libraries() -> None:
    import subprocess
    import sys

    code = (
        "import sys, irtools.analysis as a; a.analyze(sys.argv[1]).tables(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('plotly', 'dash')))"
    )
    from tests.analysis.builders import MESH

    out = subprocess.run([sys.executable, "-c", code, str(MESH)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_analyze_accepts_bytes() -> None:
    from tests.analysis.builders import MESH

    assert analyze(MESH.read_bytes()).makespan("dependency") == 102192
