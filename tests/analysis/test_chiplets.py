"""Chiplet cuts from Gemini's input line (src/main.cpp:855) and its NoP links (main.cpp:1369-1390)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from irtools.analysis.chiplets import ChipletCut, chiplet_cut, input_fields

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
# Gemini's line for an 8x8 chip cut into two dies side by side (xcut 2, ycut 1); otherwise a shared run's.
CUT_8X8 = "7 0 1 8 8 1 1 1 0 2 1 SI UCIe 128 LPDDR5 1024000 16 512 256 4096"


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures not present")
@pytest.mark.parametrize("folder", ["gemini-noc", "gemini-sweep"])
def test_every_shared_run_is_one_chip_and_its_line_names_its_mesh_noc_and_l2(folder: str) -> None:
    with open(FIXTURES / folder / "manifest.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        fields = input_fields(row["input_line"])
        assert fields is not None
        # The fields the manifest repeats agree with the line: the field order is main.cpp's.
        assert (fields["xx"], fields["yy"]) == (row["mesh_x"], row["mesh_y"])
        assert (fields["NoC_bw"], fields["ul3"], fields["DDR_type"]) == (
            row["noc_bw"],
            row["ul3_kb"],
            "LPDDR5",
        )
        cut = chiplet_cut(row["input_line"], int(row["mesh_x"]), int(row["mesh_y"]))
        assert cut is not None and (cut.xcut, cut.ycut) == (1, 1) and not cut.is_cut
        assert cut.nop_links() == set()


def test_a_cut_line_gives_the_dies_and_the_links_between_them() -> None:
    cut = chiplet_cut(CUT_8X8, 8, 8)
    assert cut == ChipletCut(2, 1, 8, 8) and cut.is_cut
    assert cut.x_boundaries() == [4] and cut.y_boundaries() == []
    assert cut.text() == "2 x 1 chiplets of 4 x 8 cores"
    links = cut.nop_links()
    # Per row: both directions across columns 3|4, and both directions at each DRAM port (its own die).
    assert len(links) == 8 * 6
    assert {(3, 0, 4, 0), (4, 0, 3, 0), (-1, 0, 0, 0), (0, 0, -1, 0), (7, 5, 8, 5), (8, 5, 7, 5)} <= links
    assert (2, 0, 3, 0) not in links and (3, 0, 3, 1) not in links


def test_a_cut_in_both_dimensions_crosses_rows_too() -> None:
    cut = ChipletCut(2, 2, 4, 4)
    assert cut.y_boundaries() == [2]
    assert {(0, 1, 0, 2), (0, 2, 0, 1), (3, 1, 3, 2)} <= cut.nop_links()
    assert len(cut.nop_links()) == 4 * 6 + 4 * 2


@pytest.mark.parametrize(
    "line",
    [
        CUT_8X8.replace(
            " 2 1 SI", " 3 1 SI"
        ),  # 8 columns do not split in 3: Gemini refuses it (main.cpp:884)
        "7 0 1 8 8 1 1 1 0 2 1 SI UCIe 128 LPDDR5 1024000 16 512 256",  # a field short
        "7 0 1 4 4 1 1 1 0 2 1 SI UCIe 128 LPDDR5 1024000 16 512 256 4096",  # another mesh's line
        "7 0 1 8 8 1 1 1 0 x 1 SI UCIe 128 LPDDR5 1024000 16 512 256 4096",
    ],
)
def test_a_line_that_gives_no_cut_for_this_mesh_gives_none(line: str) -> None:
    assert chiplet_cut(line, 8, 8) is None
