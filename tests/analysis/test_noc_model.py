"""The `noc` timing model against the scheduler's own latency T on every shared Gemini run."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest

from irtools.analysis import AnalysisOptions, analyze
from irtools.analysis.noc import NocModel, noc_times
from irtools.reference import reference_core
from tests.analysis.builders import MESH, ROOT
from tests.conftest import FIXTURES, NO_FIXTURES, RunCli


def _runs() -> list[tuple[str, str, int, int]]:
    runs = []
    for folder in ("gemini-noc", "gemini-sweep"):
        manifest = FIXTURES / folder / "manifest.csv"
        if not manifest.exists():
            continue
        with manifest.open(newline="") as f:
            rows = list(csv.DictReader(f))
        for row in rows:
            if "T:" in row["gemini_cost_line"]:  # the two runs where Gemini found no schedule wrote no IR
                t = int(row["gemini_cost_line"].split("T:")[1].split()[0])
                runs.append((folder, row["name"], int(row["noc_bw"]), t))
    return runs


RUNS = _runs()


@pytest.mark.skipif(not RUNS, reason=NO_FIXTURES)
@pytest.mark.parametrize(("folder", "name", "noc_bw", "t"), RUNS, ids=[f"{r[1]}@noc{r[2]}" for r in RUNS])
def test_noc_makespan_is_geminis_t(
    run_cli: RunCli, tmp_path: Path, folder: str, name: str, noc_bw: int, t: int
) -> None:
    code, out, err = run_cli(
        "analyze", FIXTURES / folder / name, "--out", tmp_path, "--noc-bw", noc_bw, "--json"
    )
    assert code == 0, err
    makespan = json.loads(out)["makespan"]
    # Exact on every run, batched ones included: each batch group carries 1/G of the layer's DRAM
    # weights, and a segment is bounded once more by its whole NoC time (irtools.analysis.batch_groups).
    assert makespan["noc"] == t
    assert makespan["noc"] >= makespan["dependency"]


def test_without_noc_bw_nothing_changes(run_cli: RunCli, tmp_path: Path) -> None:
    code, out, _ = run_cli("analyze", MESH, "-o", tmp_path, "--json")
    summary = json.loads(out)
    assert code == 0 and set(summary["makespan"]) == {"sequential", "dependency"} and "noc" not in summary
    a = analyze(MESH)
    assert a.models == ("sequential", "dependency")
    assert set(a.timeline["model"]) == {"sequential", "dependency"}
    assert a.timeline["noc_time"].isna().all() and a.layers["bound"].isna().all()


@pytest.mark.skipif(not (FIXTURES / "gemini-noc").exists(), reason=NO_FIXTURES)
def test_a_slow_layer_names_its_bound_and_link() -> None:
    a = analyze(FIXTURES / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json", AnalysisOptions(noc_bw=8))
    layers = a.layers.set_index("layer_name")
    # pool1 reads 3.2 MB from DRAM; the west port of row 0 sends its eighth to all 16 cores through
    # its one link into (0,0): 401,408 bytes / 8 per cycle / 1.3 = 38,596 cycles against 4,824 of compute.
    assert layers.loc["pool1", "bound"] == "NoC" and layers.loc["pool1", "noc_link"] == "DRAM W0->(0,0)"
    assert layers.loc["pool1", "noc_added"] == 38596 - 4824
    assert layers.loc["conv2", "bound"] == "compute" and layers.loc["conv2", "noc_added"] == 0
    noc = a.timeline[(a.timeline["model"] == "noc") & (a.timeline["layer_name"] == "pool1")]
    assert set(noc["noc_time"]) == {38596} and set(noc["bound"]) == {"NoC"}
    assert (noc["end"] - noc["start"] == 38596).all()
    summary = a.cores[a.cores["model"] == "noc"]
    assert (summary["busy"] <= a.makespan("noc")).all()


@pytest.mark.skipif(not (FIXTURES / "gemini-noc").exists(), reason=NO_FIXTURES)
def test_summary_says_what_the_noc_adds_and_where(run_cli: RunCli, tmp_path: Path) -> None:
    path = FIXTURES / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"
    code, out, _ = run_cli("analyze", path, "-o", tmp_path, "--noc-bw", "8")
    assert code == 0
    assert "makespan (noc): 1,941,778 cycles" in out
    assert "NoC at 8 B/cycle per link: adds 98,027 cycles (5.0% of the noc makespan); 10 of 21 layers" in out
    assert "DRAM W0->(0,0): +64,378 cycles (pool1, pool2, pool3, pool4 and 1 more)" in out
    code, out, _ = run_cli("analyze", path, "-o", tmp_path, "--noc-bw", "128")
    assert "NoC at 128 B/cycle per link: adds nothing" in out


@pytest.mark.skipif(not (FIXTURES / "gemini-noc").exists(), reason=NO_FIXTURES)
def test_frequency_scales_the_noc_term() -> None:
    path = FIXTURES / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"
    slower = analyze(path, AnalysisOptions(noc_bw=8, noc_frequency=1.0)).layers.set_index("layer_name")
    assert slower.loc["pool1", "noc_added"] == 401408 // 8 - 4824


def test_noc_model_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="positive"):
        NocModel(0)
    with pytest.raises(ValueError, match="positive"):
        NocModel(8, frequency=0.0)
    assert NocModel(8).cycles(401408) == 38596


def test_export_trace_noc_needs_a_bandwidth(run_cli: RunCli, tmp_path: Path) -> None:
    code, _, err = run_cli("export-trace", MESH, "-o", tmp_path / "t.json", "--model", "noc")
    assert code == 2 and "--noc-bw" in err
    code, _, err = run_cli("export-trace", MESH, "-o", tmp_path / "t.json", "--model", "noc", "--noc-bw", "4")
    assert code == 0, err
    code, _, err = run_cli("analyze", MESH, "-o", tmp_path, "--noc-bw", "0")
    assert code == 2 and "positive" in err


@pytest.mark.skipif(not (FIXTURES / "gemini-sweep").exists(), reason=NO_FIXTURES)
def test_summarize_has_the_noc_makespan(run_cli: RunCli, tmp_path: Path) -> None:
    path = FIXTURES / "gemini-sweep" / "vgg_2x2_b1_noc16_ul512_ir.json"
    code, _, err = run_cli("summarize", path, "-o", tmp_path / "s.csv", "--noc-bw", "16")
    assert code == 0, err
    with (tmp_path / "s.csv").open(newline="") as f:
        row = next(csv.DictReader(f))
    assert row["noc_bw"] == "16" and row["makespan_noc"] == "7644420"  # T of that run
    code, _, _ = run_cli("summarize", path, "-o", tmp_path / "t.csv")
    with (tmp_path / "t.csv").open(newline="") as f:
        row = next(csv.DictReader(f))
    assert row["noc_bw"] == "" and row["makespan_noc"] == ""


@pytest.mark.skipif(not (FIXTURES / "gemini-noc").exists(), reason=NO_FIXTURES)
def test_report_has_a_noc_timeline_only_with_a_bandwidth(run_cli: RunCli, tmp_path: Path) -> None:
    path = FIXTURES / "gemini-noc" / "darknet19_2x2_b1_noc8_ul512_ir.json"
    code, _, err = run_cli("report", path, "-o", tmp_path / "r.html", "--noc-bw", "8")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "Timeline (noc model, 8 B/cycle per link)" in page and "makespan (noc): 1,243,618 cycles" in page
    assert "<th>busy (noc)</th>" in page
    code, _, _ = run_cli("report", path, "-o", tmp_path / "s.html")
    assert code == 0 and "noc" not in (tmp_path / "s.html").read_text().split("<h2")[1]


@pytest.mark.skipif(not (FIXTURES / "gemini-noc").exists(), reason=NO_FIXTURES)
def test_export_trace_noc_slices_last_their_noc_time(run_cli: RunCli, tmp_path: Path) -> None:
    path = FIXTURES / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"
    code, _, err = run_cli("export-trace", path, "-o", tmp_path / "t.json", "--model", "noc", "--noc-bw", "8")
    assert code == 0, err
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    pool1 = [e for e in events if e.get("ph") == "X" and e["name"] == "pool1"]
    assert len(pool1) == 16 and {e["dur"] for e in pool1} == {38596.0}
    assert pool1[0]["args"]["bound"] == "NoC" and pool1[0]["args"]["noc_link"] == "DRAM W0->(0,0)"


@pytest.mark.skipif(not (FIXTURES / "gemini-sweep").exists(), reason=NO_FIXTURES)
def test_noc_added_counts_every_batch_group_step() -> None:
    a = analyze(FIXTURES / "gemini-sweep" / "vgg_2x2_b2_noc16_ul512_ir.json", AnalysisOptions(noc_bw=16))
    layers = a.layers.set_index("layer_name")
    # pool1 runs once per sample on each core (2 steps); each waits 38,596 NoC cycles for 19,298 of compute,
    # and the segment's NoC time, truncated once over both groups (77,193), adds one cycle to the last.
    assert layers.loc["pool1", "noc_added"] == 38596 + 38597 - 2 * 19298
    times = a.noc_steps.set_index(["layer_name", "instance"])
    assert times.loc[("pool1", 1), "layer_noc_time"] == 77193 and times.loc[("pool1", 1), "noc_time"] == 38597
    # Here every layer waits for the one before, so the layers' NoC cycles add up to the makespan's.
    assert layers["noc_added"].sum() == a.makespan("noc") - a.makespan("dependency")


NOC_FILES = sorted((FIXTURES / "gemini-noc").glob("*_ir.json")) + [
    FIXTURES / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json",
    FIXTURES / "gemini-alloc" / "resnet_4x4_b4_ff1_ss2_rr50_alloc.json",
    MESH,
    ROOT / "sample_ir" / "invalid" / "GIR502-deadlock.json",
]


@pytest.mark.parametrize("path", NOC_FILES, ids=lambda p: p.name)
def test_the_step_times_from_runs_are_the_routed_rows(path: Path) -> None:
    # The link loads, hops and DRAM bytes of every step summed over the runs, not a row per link and transfer.
    if not path.is_file():
        pytest.skip(NO_FIXTURES)
    a = analyze(path)
    model = NocModel(8)
    fast = noc_times(a.index, model, a.noc_runs)
    assert fast["link_bytes"].sum() > 0  # some step loads its links
    with reference_core():
        pd.testing.assert_frame_equal(fast, noc_times(a.index, model, a.noc_runs), check_exact=True)
