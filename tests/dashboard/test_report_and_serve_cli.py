"""`irtools report` (static HTML) and `irtools serve` argument handling."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from irtools.cli.main import build_parser
from tests.conftest import RunCli, WriteIR

ROOT = Path(__file__).resolve().parents[2]
OVERLAP = ROOT / "sample_ir" / "invalid" / "GIR302-buffer-overlap.json"


def test_report_is_self_contained_with_figures_and_findings(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, stdout, err = run_cli("report", OVERLAP, "-o", out)
    assert code == 0, err
    assert "4 cores, 4 occupancy maps" in stdout
    page = out.read_text()
    assert page.count("Plotly.newPlot") == 2 + 1 + 2 * 4  # two timelines, the mesh, L2 and WL0 per core
    assert '<h2 id="mesh">Mesh and NoC links</h2>' in page
    assert "<script src=" not in page  # plotly.js is inlined: no network needed
    assert page.count('<tr class="error">') == 1 and "GIR302" in page
    assert out.stat().st_mode & 0o644 == 0o644  # readable like any file the user writes


def test_report_escapes_ir_text(run_cli: RunCli, write_ir: WriteIR, tmp_path: Path) -> None:
    doc = json.loads(OVERLAP.read_text())
    doc["2"][0]["layer_name"] = "<script>alert(1)</script>"
    path = write_ir(doc, "evil.json")
    code, _, err = run_cli("report", path, "-o", tmp_path / "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "<script>alert(1)</script>" not in page
    assert "alert(1)" in page  # shown, as text


def test_report_on_a_non_ir_fails_cleanly(run_cli: RunCli, write_ir: WriteIR, tmp_path: Path) -> None:
    code, _, err = run_cli("report", write_ir(b"[1, 2"), "-o", tmp_path / "r.html")
    assert code == 1 and "Traceback" not in err and "not an IR" in err
    assert not (tmp_path / "r.html").exists()


def test_serve_binds_localhost_by_default() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.path, args.max_upload_mb) == ("127.0.0.1", 8050, ".", 200)


def test_serve_missing_path_is_a_usage_error(run_cli: RunCli, tmp_path: Path) -> None:
    code, _, err = run_cli("serve", tmp_path / "nope")
    assert code == 2 and "does not exist" in err


def test_report_with_a_wl0_size_shows_capacity_and_gir402(run_cli: RunCli, tmp_path: Path) -> None:
    mesh = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
    code, _, err = run_cli("report", mesh, "-o", tmp_path / "r.html", "--wl0-size", "1024")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "WL0 occupancy, core 0 (1 KiB)" in page
    # Conv_1's 2304-byte weights on cores 2 and 3 do not fit a 1 KiB WL0.
    assert page.count("GIR402") == 2


def test_serve_open_must_name_a_served_file(run_cli: RunCli) -> None:
    code, _, err = run_cli("serve", ROOT / "sample_ir", "--open", "../README.md")
    assert code == 2 and "--open" in err and "outside the served directory" in err


def test_report_has_contents_core_headings_and_one_timeline_when_models_agree(
    run_cli: RunCli, tmp_path: Path
) -> None:
    ir = tmp_path / "one_core.json"
    assert run_cli("synth", "-o", ir, "--mesh", "1x1", "--layers", "5")[0] == 0
    code, _, err = run_cli("report", ir, "-o", tmp_path / "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    # One core never waits for another: both models give one schedule, drawn once.
    assert "Both timing models give the same schedule" in page
    assert page.count("Plotly.newPlot") == 1 + 2
    assert '<a href="#core-0">Core 0: L2 and WL0 occupancy</a>' in page
    assert '<h2 id="core-0">Core 0: L2 and WL0 occupancy</h2>' in page
    assert "No findings" in page and 'class="findings"' not in page


def test_report_summary_is_a_table_per_core_with_the_bottleneck(run_cli: RunCli, tmp_path: Path) -> None:
    code, _, err = run_cli("report", OVERLAP, "-o", tmp_path / "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    # Core 2 runs Conv_1 and Relu_2: 60,192 busy cycles, the most of the four cores.
    assert '<tr class="bottleneck"><td>core 2 (bottleneck)</td>' in page
    assert page.count("<td>core ") == 4  # mesh ids: labels carry the position
    assert '<a href="#timeline-sequential">' in page and '<a href="#findings">Findings (3)</a>' in page


def test_a_64_core_raw_report_maps_the_cores_that_matter_with_their_positions(
    run_cli: RunCli, tmp_path: Path
) -> None:
    ir = tmp_path / "raw8x8.json"
    assert run_cli("synth", "--dialect", "raw", "--mesh", "8x8", "--layers", "6", "-o", ir)[0] == 0
    code, _, err = run_cli("report", ir, "-o", tmp_path / "r.html", "--max-cores", "4")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    # The summary table names each core by its mesh position too; the left-out line sits with the maps.
    assert "<td>core 1 (0,0)" in page and "<td>core 78 (7,7)" in page
    maps_at, findings_at = page.index('<h2 id="core-'), page.index('<h2 id="findings">')
    left_out = page.index("the other 60 are left out (--max-cores)")
    assert maps_at < left_out < findings_at
    # Four maps, of the busiest core and the highest L2 peak first (not core ids 1, 2, 3, 4).
    assert page.count('<h2 id="core-') == 4 and "(busiest #1)</h2>" in page and "(L2 peak #1)</h2>" in page
    # A raw file has no WL0: no placeholder panel per core; no busy column without --noc-bw.
    assert "no WL0 snapshot" not in page and "<th>busy</th>" not in page
    assert "by bytes (--noc-bw ranks them by the NoC cycles they add)" in page


def test_a_report_at_a_noc_bandwidth_ranks_links_by_the_cycles_they_add(
    run_cli: RunCli, tmp_path: Path
) -> None:
    vgg = ROOT.parent / "shared" / "fixtures" / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"
    code, _, err = run_cli("report", vgg, "-o", tmp_path / "r.html", "--noc-bw", "8", "--max-cores", "2")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    table = page[page.index("costliest of") :]
    # DRAM W0->(0,0) bounds 5 layers and adds 64,378 cycles: first, ahead of the links with most bytes.
    assert (
        table.index("DRAM W0-&gt;(0,0)") < table.index("DRAM W1-&gt;DRAM W2") < table.index("(0,1)-&gt;(0,0)")
    )
    assert '<td class="num">64,378</td><td class="num">5</td>' in table and "<th>busy</th>" in table


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_serve_asks_malloc_for_one_arena_unless_the_user_set_it() -> None:
    # Each request's thread would get an arena of its own: hundreds of MB more at the server's peak.
    probe = (
        "from irtools.cli.serve import fewer_malloc_arenas as f; print(f({}), f({'MALLOC_ARENA_MAX': '8'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["True", "False"]


def test_analyze_and_serve_have_arrow_allocate_from_malloc(tmp_path: Path) -> None:
    # Arrow's own pool (mimalloc) keeps what it frees: the tables' texts stayed in analyze's peak.
    pytest.importorskip("pyarrow")
    probe = (
        "import sys, pyarrow as pa; from irtools.cli.main import main; "
        "main(['analyze', sys.argv[1], '--out', sys.argv[2]]); "
        "print(pa.default_memory_pool().backend_name, file=sys.stderr)"
    )
    run = [sys.executable, "-c", probe, str(ROOT / "sample_ir/valid/mesh2x2_conv_b1_c4_bw16_stschedule.json")]
    out = subprocess.run([*run, str(tmp_path / "t")], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stderr.split()[-1] == "system", out.stderr  # from Arrow's default (mimalloc or jemalloc)
    # serve serves until stopped: it makes the same call before any table is built.
    assert "arrow_uses_malloc()" in (ROOT / "irtools" / "cli" / "serve.py").read_text()


def test_a_report_section_that_reads_a_dropped_snapshot_is_built_from_the_file_read_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The report loads as the dashboard does, each core's snapshots let go as it is read; a section that
    # still reads one gets the page built again from the whole file (the same page), not a traceback.
    from dashboards import report

    def without_div_ids(built: tuple[str, str]) -> tuple[str, str]:  # plotly names each figure's div anew
        page, description = built
        return re.sub(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "id", page), description

    expected = without_div_ids(report.build_report(OVERLAP))
    drawn = report.mesh_view

    def reading_a_snapshot(analysis: Any) -> Any:
        len(analysis.index.rows[0].workload.buffer)  # dropped on the streamed load: raises
        return drawn(analysis)

    monkeypatch.setattr(report, "mesh_view", reading_a_snapshot)
    assert without_div_ids(report.build_report(OVERLAP)) == expected
    assert "a view needs what was dropped as it was read: read whole" in capsys.readouterr().err
