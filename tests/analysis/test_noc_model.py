"""The `noc` timing model against the scheduler's own latency T on every shared Gemini run."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from irtools.analysis import AnalysisOptions, analyze
from irtools.analysis.noc import NocModel
from tests.analysis.builders import MESH
from tests.conftest import FIXTURES, NO_FIXTURES, RunCli

RESIDUAL = {
    # A temporal cut over 2 batch groups: Gemini truncates the NoC time of the whole segment once
    # ((2 x link bytes) / bw / 1.3), irtools once per batch group; the makespan ends 1-2 cycles early.
    ("vgg_2x2_b2_noc16_ul512_ir.json", 16): -2,
    ("vgg_2x2_b2_noc16_ul1024_ir.json", 16): -1,
}


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
    assert makespan["noc"] - t == RESIDUAL.get((name, noc_bw), 0)
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
