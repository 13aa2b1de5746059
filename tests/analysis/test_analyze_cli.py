"""`irtools analyze`, `export-trace` and `tables` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from irtools.analysis import TABLES
from tests.analysis.builders import MESH
from tests.conftest import RunCli, WriteIR


def test_analyze_writes_every_table_and_a_summary(run_cli: RunCli, tmp_path: Path) -> None:
    code, out, err = run_cli("analyze", MESH, "--out", tmp_path / "t", "--noc-links")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(f"{n}.csv" for n in TABLES)
    assert "makespan (sequential): 60,192 cycles" in out
    assert "makespan (dependency): 102,192 cycles" in out
    assert "DRAM: read 19.5 KiB" in out


def test_noc_links_are_routed_only_when_asked_for(run_cli: RunCli, tmp_path: Path) -> None:
    """Without --noc-links or --noc-bw nothing NoC-related is computed (as --help says): no noc_links
    table, no busiest link; either flag writes the same table and summary line."""
    code, out, err = run_cli("analyze", MESH, "--out", tmp_path / "plain", "--json")
    assert code == 0, err
    assert json.loads(out)["busiest_link"] is None
    written = sorted(p.name for p in (tmp_path / "plain").iterdir())
    assert written == sorted(f"{n}.csv" for n in TABLES if n != "noc_links")
    code, out, _ = run_cli("analyze", MESH, "--out", tmp_path / "plain")
    assert code == 0 and "noc_links not routed: give --noc-links" in out
    code, out, _ = run_cli("analyze", MESH, "--out", tmp_path / "links", "--noc-links", "--json")
    assert code == 0 and json.loads(out)["busiest_link"]["link"]
    with_bw = run_cli("analyze", MESH, "--out", tmp_path / "bw", "--noc-bw", "8")
    assert with_bw.code == 0 and (tmp_path / "bw" / "noc_links.csv").is_file()
    links = (tmp_path / "links" / "noc_links.csv").read_text().splitlines()
    assert len(links) > 1 and links[0].startswith("link,")


def test_analyze_json_summary(run_cli: RunCli, tmp_path: Path) -> None:
    code, out, _ = run_cli("analyze", MESH, "-o", tmp_path, "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["makespan"] == {"sequential": 60192, "dependency": 102192}
    assert summary["peak_l2"] == {"0": 13568, "1": 13568, "2": 37376, "3": 37376}
    assert summary["dram_write"] == 32768


def test_analyze_refuses_what_is_not_an_ir(run_cli: RunCli, write_ir: WriteIR, tmp_path: Path) -> None:
    code, _out, err = run_cli("analyze", write_ir(b"{not json"), "--out", tmp_path / "t")
    assert code == 1
    assert "not an IR that can be analyzed" in err and "Traceback" not in err
    assert not (tmp_path / "t").exists()


def test_analyze_missing_file_is_a_usage_error(run_cli: RunCli, tmp_path: Path) -> None:
    code, _, err = run_cli("analyze", tmp_path / "nope.json", "--out", tmp_path / "t")
    assert code == 2 and "nope.json" in err


def test_analyze_parquet_without_pyarrow_says_so(run_cli: RunCli, tmp_path: Path) -> None:
    from irtools.analysis.io import parquet_available

    code, _, err = run_cli("analyze", MESH, "--out", tmp_path, "--format", "parquet")
    if parquet_available():
        assert code == 0 and (tmp_path / "timeline.parquet").is_file()
    else:
        assert code == 2 and "pyarrow" in err


def test_export_trace(run_cli: RunCli, tmp_path: Path) -> None:
    code, _out, err = run_cli("export-trace", MESH, "-o", tmp_path / "trace.json")
    assert code == 0, err
    trace = json.loads((tmp_path / "trace.json").read_text())
    events = trace["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    assert sorted({e["tid"] for e in slices}) == [0, 1, 2, 3]
    assert len(slices) == 5
    relu = next(e for e in slices if e["name"] == "Relu_2")
    assert (relu["ts"], relu["dur"]) == (94000, 8192)
    # Conv_1 on cores 2 and 3 each read transfers 10 (core 0) and 11 (core 1): four flows.
    starts = [e for e in events if e["ph"] == "s"]
    finishes = {e["id"]: e for e in events if e["ph"] == "f"}
    assert len(starts) == 4 and trace["otherData"]["flows"] == 4
    for s in starts:
        f = finishes[s["id"]]
        assert f["ts"] == 42000 and f["tid"] in (2, 3) and s["tid"] in (0, 1)
    names = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert names == {"core 0", "core 1", "core 2", "core 3"}


def test_export_trace_with_clock(run_cli: RunCli, tmp_path: Path) -> None:
    code, _, _ = run_cli(
        "export-trace", MESH, "-o", tmp_path / "t.json", "--clock-mhz", "1000", "--model", "sequential"
    )
    assert code == 0
    relu = next(
        e for e in json.loads((tmp_path / "t.json").read_text())["traceEvents"] if e.get("name") == "Relu_2"
    )
    assert relu["ts"] == 52.0 and relu["dur"] == 8.192  # microseconds at 1 GHz


def test_tables_lists_columns(run_cli: RunCli) -> None:
    code, out, _ = run_cli("tables", "l2_occupancy")
    assert code == 0 and "largest_free_block" in out and "bytes" in out
    code, _, err = run_cli("tables", "nope")
    assert code == 2 and "unknown table" in err


def test_the_text_summary_of_64_cores_has_no_line_wider_than_a_terminal(
    run_cli: RunCli, tmp_path: Path
) -> None:
    ir = tmp_path / "raw8x8.json"
    assert run_cli("synth", "--dialect", "raw", "--mesh", "8x8", "--layers", "6", "-o", ir)[0] == 0
    code, out, err = run_cli("analyze", ir, "-o", tmp_path / "t")
    assert code == 0, err
    # The mesh-position line listed all 64 ids in 671 characters; it keeps the ends and says where the rest is.
    mesh_line = next(line for line in out.splitlines() if "cores by mesh position" in line)
    assert "1 (0,0)" in mesh_line and "78 (7,7)" in mesh_line and "64 cores" in mesh_line
    assert max(len(line) for line in out.splitlines()) <= 160
    assert len(json.loads(run_cli("analyze", ir, "-o", tmp_path / "j", "--json")[1])["core_labels"]) == 64
