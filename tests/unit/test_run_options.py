"""RunOptions: one carrier from the configuration layer to every part, and the L2 size decided once."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dashboards.data import FileStore
from irtools.analysis import analyze
from irtools.cli.main import build_parser, main
from irtools.config import apply, run_options
from irtools.gemini import GEMINI_FREQUENCY
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.sweep.work import WorkOptions
from irtools.validate import check_loaded

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
"""A documented file whose buffersize is 1 MiB."""
RAW = ROOT.parent / "shared" / "fixtures" / "gemini-raw" / "resnet_2x2_b1_ir.json"
MIB = 1 << 20


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_l2_size_given_to_a_file_with_a_buffersize_changes_nothing(tmp_path: Path) -> None:
    """--l2-size is for files that record no L2 size (docs/dialects.md, --help): on a file with a
    buffersize, l2_blocks used to say l2_kib = 4 (fraction 3.5) while l2_occupancy and the rules used
    the file's 1 MiB. Every table now agrees with the file and with a run without the flag."""
    with_flag, without = tmp_path / "with", tmp_path / "without"
    assert main(["analyze", str(SAMPLE), "--out", str(with_flag), "--l2-size", "4096"]) == 0
    assert main(["analyze", str(SAMPLE), "--out", str(without)]) == 0
    blocks = _rows(with_flag / "l2_blocks.csv")
    assert blocks and {row["l2_kib"] for row in blocks} == {"1024"}
    assert all(float(row["fraction"]) == int(row["held_kib"]) / 1024 for row in blocks)
    occupancy = _rows(with_flag / "l2_occupancy.csv")
    assert {int(r["used_bytes"]) + int(r["free_bytes"]) for r in occupancy} == {MIB}
    for table in sorted(p.name for p in without.iterdir()):
        assert (with_flag / table).read_bytes() == (without / table).read_bytes(), table


def test_every_path_reads_one_l2_size() -> None:
    """The index, the analysis's capacity, its tables and the check all read IRIndex.l2_size."""
    options = RunOptions(l2_size=4096)
    analysis = analyze(SAMPLE, options)
    assert analysis.index.l2_size == analysis.buffersize == MIB
    assert analysis.l2_capacity_kib == 1024
    assert set(analysis.l2_blocks["l2_kib"]) == {1024}
    loaded = load_ir(SAMPLE)
    assert check_loaded(loaded, options) == check_loaded(loaded)


@pytest.mark.skipif(not RAW.is_file(), reason="../shared/fixtures not present")
def test_l2_size_is_the_size_of_a_file_that_records_none() -> None:
    """A raw file records no L2 size: --l2-size is its capacity everywhere (l2_blocks, the index)."""
    analysis = analyze(RAW, RunOptions(l2_size=512 * 1024))
    assert analysis.index.l2_size == 512 * 1024
    assert set(analysis.l2_blocks["l2_kib"]) == {512}
    assert analyze(RAW).index.l2_size is None
    assert analyze(RAW).l2_blocks["l2_kib"].isna().all()


def test_the_configuration_layer_makes_one_run_options(tmp_path: Path) -> None:
    """Flags and the nearest configuration file become one RunOptions, whole: sizes, NoC, size limit."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "irtools.toml").write_text("wl0-size = 2048\nmax-mb = 7\n")
    target = folder / "x.json"
    target.write_bytes(SAMPLE.read_bytes())
    args = build_parser().parse_args(
        ["analyze", str(target), "--out", str(tmp_path / "o"), "--l2-size", "4096"]
    )
    apply(args, "analyze", str(target))
    assert run_options(args) == RunOptions(
        l2_size=4096, wl0_size=2048, noc_frequency=GEMINI_FREQUENCY, max_bytes=7 * 10**6
    )
    args = build_parser().parse_args(
        ["summarize", str(target), "-o", str(tmp_path / "s.csv"), "--noc-bw", "8"]
    )
    apply(args, "summarize", str(target))
    options = run_options(args)
    assert (options.noc_bw, options.max_bytes) == (8, 7 * 10**6)
    assert WorkOptions(options).result_options() == {
        "max_bytes": 7 * 10**6,
        "noc_bw": 8,
        "noc_frequency": GEMINI_FREQUENCY,
    }


def test_the_dashboard_store_hands_its_options_whole_to_every_file(tmp_path: Path) -> None:
    """The store made by `irtools serve` analyzes and checks each file under the run's options."""
    (tmp_path / "a.json").write_bytes(SAMPLE.read_bytes())
    options = RunOptions(wl0_size=4096, l2_size=8192, noc_bw=8, max_bytes=10**6)
    store = FileStore(tmp_path, 10**6, options=options)
    entry = store.get("a.json")
    assert entry.analysis.options == options  # the page times the file at the served --noc-bw
    assert store.noc is not None and store.noc.bandwidth == 8
    assert store.max_file_bytes == 10**6
    assert "noc" in entry.analysis.models
