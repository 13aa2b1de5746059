"""The layer_cost table and the energy against Gemini's own printout, layer by layer, on every shared run.

../shared/fixtures/gemini-noc/stdout/ holds the scheduler's printout for each manifest row; every segment
of those runs holds one layer, so a layer's row (all its batch groups) is held against its segment's line.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from irtools.analysis import AnalysisOptions, analyze
from irtools.analysis.energy import EnergyModel
from tests.analysis.builders import MESH
from tests.analysis.gemini_printout import layers, parse_printout
from tests.conftest import FIXTURES, NO_FIXTURES, RunCli

NOC = FIXTURES / "gemini-noc"


def _runs() -> list[dict[str, str]]:
    manifest = NOC / "manifest.csv"
    if not manifest.exists():
        return []
    with manifest.open(newline="") as f:
        return list(csv.DictReader(f))


RUNS = _runs()


def _printout(row: dict[str, str]) -> Path:
    return (
        NOC
        / "stdout"
        / f"{row['net']}_{row['mesh_x']}x{row['mesh_y']}_b{row['batch']}_noc{row['noc_bw']}_ul{row['ul3_kb']}.stdout.txt"
    )


def _options(row: dict[str, str]) -> AnalysisOptions:
    dram_type = row["input_line"].split()[14]  # Gemini's input line: ... NoP_bw DRAM_type DRAM_bw NoC_bw ...
    return AnalysisOptions(noc_bw=int(row["noc_bw"]), dram_bw=int(row["dram_bw"]), dram_type=dram_type)


@pytest.mark.skipif(not RUNS, reason=NO_FIXTURES)
@pytest.mark.parametrize("row", RUNS, ids=[f"{r['name']}@noc{r['noc_bw']}" for r in RUNS])
def test_every_layer_costs_what_gemini_printed(row: dict[str, str]) -> None:
    cost = analyze(NOC / row["name"], _options(row)).layer_cost.set_index("layer_name")
    printed = layers(parse_printout(_printout(row)))
    assert sorted(cost.index) == sorted(layer.name for _, layer in printed)
    for segment, layer in printed:
        ours, theirs = cost.loc[layer.name], segment.values
        assert segment.children == [layer], "every segment of the shared runs holds one layer"
        assert ours["groups"] == segment.groups
        # Integers Gemini prints exactly: equal.
        assert ours["hops"] == theirs["noc_hops"], layer.name
        assert ours["dram_bytes"] == theirs["dram_acc"], layer.name
        assert ours["time"] == theirs["time"], layer.name
        assert ours["compute_time"] == segment.groups * layer.values["computing_time"], layer.name
        # NoCtime is a double printed with 4 significant digits.
        assert ours["noc_time"] == pytest.approx(theirs["noc_time"], rel=5e-4), layer.name
        # NoC energy too; DRAM energy is 0 for LPDDR5 (Gemini's DRAM_acc_cost), as printed.
        assert ours["noc_energy"] == pytest.approx(theirs["noc_energy"], rel=5e-4), layer.name
        assert ours["dram_energy"] == theirs["dram_energy"] == 0


@pytest.mark.skipif(not RUNS, reason=NO_FIXTURES)
@pytest.mark.parametrize("row", RUNS, ids=[f"{r['name']}@noc{r['noc_bw']}" for r in RUNS])
def test_the_determined_energy_terms_are_geminis(row: dict[str, str]) -> None:
    a = analyze(NOC / row["name"], _options(row))
    energy = a.energy()
    top = parse_printout(_printout(row)).values
    assert energy is not None and a.layer_cost["time"].sum() == a.makespan("noc") == top["time"]
    assert energy["terms"]["noc"] == pytest.approx(top["noc_energy"], rel=5e-4)
    assert energy["terms"]["dram"] == top["dram_energy"] == 0
    # MAC, buffers and NoP are not in the IR: named, left out of the total.
    assert set(energy["undetermined"]) == {"nop", "mac", "buffers"}
    assert energy["total"] == energy["terms"]["noc"] + energy["terms"]["dram"]
    # What is left out is the rest of Gemini's E (Ubuf + Buf + Bus + Mac, NoP 0 on one chip).
    rest = top["ubuf"] + top["buf"] + top["bus"] + top["mac"]
    assert energy["total"] + rest == pytest.approx(top["energy"], rel=2e-3)


def test_layer_cost_needs_a_noc_bandwidth_and_energy_names_what_is_missing() -> None:
    a = analyze(MESH)
    assert a.layer_cost.empty and a.energy() is None
    assert (
        EnergyModel().undetermined()["dram"].startswith("the per-byte DRAM energy depends on the DRAM type")
    )
    with pytest.raises(ValueError, match="unknown DRAM type"):
        EnergyModel(dram_type="DDR3")


@pytest.mark.skipif(not RUNS, reason=NO_FIXTURES)
def test_analyze_json_gives_the_energy_beside_the_makespan(run_cli: RunCli, tmp_path: Path) -> None:
    path = NOC / "vgg_4x4_b1_ul512_ir.json"
    code, out, err = run_cli(
        "analyze", path, "-o", tmp_path, "--noc-bw", "8", "--dram-type", "LPDDR5", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["makespan"]["noc"] == 1941778
    # Gemini printed NoC energy = 6.588e+08 for this run (pJ); DRAM energy 0 (LPDDR5).
    assert data["energy"]["terms"]["noc"] == pytest.approx(6.588e8, rel=5e-4)
    assert data["energy"]["terms"]["dram"] == 0 and data["energy"]["terms"]["mac"] is None
    assert "intra-core mapping" in data["energy"]["undetermined"]["buffers"]
    assert (tmp_path / "layer_cost.csv").exists()


@pytest.mark.skipif(not RUNS, reason=NO_FIXTURES)
def test_summarize_has_the_energy_and_its_ratio_to_the_manifests_e(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "s.csv"
    args = ("summarize", NOC, "--manifest", NOC / "manifest.csv", "-o", out, "--cache-dir", tmp_path / "c")
    code, _, err = run_cli(*args)
    assert code == 0, err
    with out.open(newline="") as f:
        rows = {(Path(r["path"]).name, r["noc_bw"]): r for r in csv.DictReader(f)}
    vgg = rows[("vgg_4x4_b1_ul512_ir.json", "8")]
    # The NoC term is all the IR determines (Gemini printed NoC energy = 6.588e+08 of E = 5.08e+09).
    assert float(vgg["energy"]) == pytest.approx(6.588e8, rel=5e-4) == float(vgg["energy_noc"])
    assert float(vgg["energy_ratio"]) == pytest.approx(5.08e9 / 6.588e8, rel=1e-3)
    # The manifest's input line names the DRAM type (LPDDR5: Gemini's per-byte energy 0): DRAM is determined.
    assert vgg["energy_undetermined"] == "nop;mac;buffers" and float(vgg["energy_dram"]) == 0
    # The energy-delay product of each run is its energy times its own noc makespan (= T).
    assert float(vgg["energy_delay"]) == pytest.approx(float(vgg["energy"]) * 1941778)
    # The energy does not depend on the NoC bandwidth: one IR, three runs, one energy.
    assert {rows[("vgg_4x4_b1_ul512_ir.json", bw)]["energy"] for bw in ("8", "32", "128")} == {vgg["energy"]}


def test_a_file_without_a_mesh_has_no_noc_or_dram_energy() -> None:
    # Without xlen/ylen nothing can be routed: no hops, no DRAM bytes, and nothing is claimed about them.
    doc = json.loads(MESH.read_text())
    del doc["xlen"], doc["ylen"]
    a = analyze(json.dumps(doc).encode(), AnalysisOptions(noc_bw=16, dram_type="LPDDR5"))
    energy = a.energy()
    assert energy is not None and a.layer_cost.empty
    assert energy["terms"] == dict.fromkeys(("noc", "nop", "dram", "mac", "buffers")) and energy["total"] == 0
    assert "no mesh" in energy["undetermined"]["noc"] and "no mesh" in energy["undetermined"]["dram"]
