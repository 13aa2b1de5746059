"""GIR506: a mesh far larger than the cores present is an error, and nothing analyzes such a file.

The red team set `ylen` to 2**53+1 in a published fixture: `validate` said nothing, `analyze` grew to
23 GB, `ylen` 10**4..10**6 raised in analysis/routing.py, and one upload took `serve` to 6 GB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dashboards.app import create_app
from irtools.findings import Severity
from irtools.loading.mesh import LINEAR, MESH, is_mesh_id, mesh_ids, mesh_problem, numbering
from irtools.validate import validate_file
from tests.conftest import FIXTURES, RunCli
from tests.dashboard.dash_client import DashClient

KINDS = {
    "documented": "gemini/int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json",
    "npu-simulator": "npu-simulator/ir_ramulator2_dram_test_slice.json",
    "raw": "gemini-sweep/vgg_2x2_b1_noc16_ul256_ir.json",
    "alloc": "gemini-alloc/bert_2x2_b1_alloc.json",
}
"""The smallest real file of each dialect."""
HUGE = 2**53 + 1


def _fixture(kind: str) -> dict[str, Any]:
    path = FIXTURES / KINDS[kind]
    if not path.is_file():
        pytest.skip("../shared/fixtures not present")
    doc: dict[str, Any] = json.loads(path.read_text())
    return doc


def _mutant(tmp_path: Path, kind: str, **header: int) -> Path:
    doc = _fixture(kind)
    doc.update(header)
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(doc))
    return path


def _gir506(path: Path) -> list[tuple[str, str]]:
    return [(f.pointer, f.message) for f in validate_file(str(path)).findings if f.code == "GIR506"]


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("key", "value"), [("ylen", 1000), ("ylen", 10**5), ("xlen", HUGE), ("ylen", HUGE)])
def test_a_huge_mesh_is_an_error_and_analyze_and_report_refuse_it(
    run_cli: RunCli, tmp_path: Path, kind: str, key: str, value: int
) -> None:
    path = _mutant(tmp_path, kind, **{key: value})
    doc = json.loads(path.read_text())
    findings = _gir506(path)
    assert [p for p, _ in findings] == [f"/{key}"], findings
    assert f"({doc['xlen'] * doc['ylen']:,} positions)" in findings[0][1]
    code, out, _ = run_cli("validate", path, "--select", "GIR506")
    assert code == 1 and "GIR506 error" in out
    for command in (
        ("analyze", path, "--out", tmp_path / "tables"),
        ("report", path, "-o", tmp_path / "r.html"),
    ):
        code, out, err = run_cli(*command)
        assert code == 1, (out, err)
        assert "GIR506" in _one_line(err) and f"/{key}" in err
    assert not (tmp_path / "tables").exists() and not (tmp_path / "r.html").exists()


def test_a_core_half_a_billion_rows_off_the_mesh_is_an_error_not_a_billion_hops(
    run_cli: RunCli, tmp_path: Path
) -> None:
    doc = _fixture("npu-simulator")  # cores 0 and 1 on a 2x2 mesh, numbered 0..3
    doc["999999999"] = doc.pop("1")
    for entry in doc["-1"]["out"]:
        for destination in entry.get("destination", []):
            if destination.get("core_id") == 1:
                destination["core_id"] = 999999999
    path = tmp_path / "far.json"
    path.write_text(json.dumps(doc))
    assert [p for p, _ in _gir506(path)] == ["/999999999"]
    code, _, err = run_cli("analyze", path, "--out", tmp_path / "tables")
    assert code == 1 and "core 999999999 at (1,499999999)" in _one_line(err)


def test_serve_refuses_the_file_with_its_reason_and_downloads_nothing(tmp_path: Path) -> None:
    path = _mutant(tmp_path, "raw", ylen=HUGE)
    client = DashClient(create_app(tmp_path).server.test_client())
    status = client.call("status.children", {"shown.data": path.name, "model.value": "dependency"})
    assert "GIR506" in json.dumps(status)
    state = {"table-name.value": "noc_links", "shown.data": path.name}
    assert not client.call("download.data", {"download-button.n_clicks": 1}, state)  # nothing sent


def test_no_real_fixture_has_an_implausible_mesh(fixtures_dir: Path) -> None:
    """Every real file (29, all dialects) keeps its mesh: no GIR506 on any of them (no false positive)."""
    files = sorted(fixtures_dir.glob("*/*.json"))
    assert len(files) >= 29
    flagged = {}
    for path in files:
        report = validate_file(str(path), enabled=frozenset({"GIR506"}))
        flagged[path.name] = [f.message for f in report.findings if f.code == "GIR506"]
    assert {name: m for name, m in flagged.items() if m} == {}


def test_the_bound_holds_the_real_meshes_with_room() -> None:
    # Gemini's meshes with every core (2x2, 4x4 in mesh ids), the npu-simulator slice (2 cores of a 2x2),
    # and the single-core files (1x1): the largest ratio in the real files is 2 positions per core.
    assert mesh_problem(mesh_ids(4, 4), MESH, 4, 4) is None
    assert mesh_problem([0, 1], LINEAR, 2, 2) is None
    assert mesh_problem([0], LINEAR, 4, 4) is None  # one core of a 4x4 mesh: a slice, still plausible
    assert mesh_problem([0], LINEAR, 4, 5) is not None
    assert mesh_problem(list(range(16)), LINEAR, 8, 8) is None  # 64 positions, 4 per core
    assert mesh_problem(list(range(16)), LINEAR, 5, 13) is not None


def test_mesh_ids_are_tested_without_listing_the_mesh() -> None:
    # numbering() and GIR503 used to build a list of xlen*ylen ids: 2**53 of them for this header.
    assert numbering([1, 2, 5, 6, HUGE * 4], 2, HUGE) == LINEAR
    assert numbering([1, 2, 5, 6, HUGE * 10], 2, 2) == MESH
    assert is_mesh_id(5, 2, HUGE) and not is_mesh_id(3, 2, HUGE) and not is_mesh_id(0, 2, 2)
    assert mesh_ids(2, HUGE, 4) == [1, 2, 5, 6]
    assert [c for c in range(30) if is_mesh_id(c, 4, 4)] == mesh_ids(4, 4)


def test_gir506_severity_is_error() -> None:
    from irtools.rules import RULES

    assert RULES["GIR506"].severity is Severity.ERROR


def test_summarize_gives_the_file_a_row_with_its_reason_and_its_findings(
    run_cli: RunCli, tmp_path: Path
) -> None:
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    _mutant(sweep, "raw", ylen=HUGE)
    code, _, err = run_cli("summarize", sweep, "-o", tmp_path / "s.csv", "--no-cache", "--jobs", "1")
    assert code == 0 and "crashed" not in err, err
    rows = pd.read_csv(tmp_path / "s.csv", keep_default_na=False)
    assert rows["status"].tolist()[0].startswith("not analyzed: GIR506 /ylen: a 2x9007199254740993 mesh")
    findings = pd.read_csv(tmp_path / "s.findings.csv", keep_default_na=False)
    assert "GIR506" in findings["code"].tolist()
