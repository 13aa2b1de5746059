"""The mesh names the NoC link that costs the schedule, on an absolute scale with direction (issue 29: 1-3, 5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dashboards.mesh import _SCALES, LINK_COLORS, link_steps, mesh_links, mesh_view
from dashboards.mesh_view import link_transfers
from irtools.analysis import analyze
from irtools.analysis.analysis import AnalysisOptions
from irtools.analysis.units import byte_ticks, format_bytes

ROOT = Path(__file__).resolve().parents[2]
VGG = ROOT.parent / "shared" / "fixtures" / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"


@pytest.fixture(scope="module")
def vgg8():  # type: ignore[no-untyped-def]
    return analyze(VGG, AnalysisOptions(noc_bw=8))


def test_with_a_bandwidth_the_costliest_link_is_the_one_the_noc_timeline_blames(vgg8) -> None:  # type: ignore[no-untyped-def]
    links, scale = mesh_links(vgg8, "noc", None)
    # The layers table says which link bounds each NoC-bound layer; the mesh must lead with the same one,
    # not with (0,1)->(0,0), one of 8 links tied at 5.83 MiB that bounds almost nothing.
    layers = vgg8.layers
    blamed = layers[layers["bound"] == "NoC"].groupby("noc_link")["noc_added"].sum().idxmax()
    assert scale.rank_by == "cycles added"
    assert links.iloc[0]["link"] == blamed == "DRAM W0->(0,0)"
    assert links.iloc[0]["bound_layers"] == 5 and links.iloc[0]["added_cycles"] == 64_378
    assert links["bytes"].idxmax() != 0  # the costliest is not the heaviest
    note = mesh_view(vgg8, "noc").layout.annotations[0].text
    assert (
        note.startswith("links by NoC cycles added at 8 B/cycle")
        and "costliest DRAM W0->(0,0): +64,378" in note
    )


def _link_bar(fig) -> list[str]:  # type: ignore[no-untyped-def]
    return list(next(t for t in fig.data if t.name == "link scale").marker.colorbar.ticktext)


def test_the_cycles_added_colour_bar_ticks_whole_cycles(vgg8) -> None:  # type: ignore[no-untyped-def]
    assert _link_bar(mesh_view(vgg8, "noc")) == ["0", "20,000", "40,000", "60,000"]  # top +64,378
    # Darknet19 2x2 at 32 B/cycle: no link adds a cycle, the bar runs to 1 and read "0, 1, 1" (0.5 rounded).
    quiet = analyze(VGG.with_name("darknet19_2x2_b1_noc32-128_ul512_ir.json"), AnalysisOptions(noc_bw=32))
    assert mesh_links(quiet, "noc", None)[1].top == 0
    assert _link_bar(mesh_view(quiet, "noc")) == ["0", "1"]


def test_without_a_bandwidth_links_rank_by_bytes_and_the_page_says_so() -> None:
    a = analyze(VGG)
    links, scale = mesh_links(a, "dependency", None)
    assert scale.rank_by == "bytes" and links["bytes"].is_monotonic_decreasing
    assert mesh_view(a).layout.annotations[0].text.startswith("links by bytes")


def test_the_link_colour_bar_is_the_whole_schedules_in_every_window(vgg8) -> None:  # type: ignore[no-untyped-def]
    whole = mesh_view(vgg8, "noc")
    zoomed = mesh_view(vgg8, "noc", window=(0, 100_000))

    def bar(fig):  # type: ignore[no-untyped-def]
        return next(t for t in fig.data if t.name == "link scale").marker

    assert bar(whole).cmax == bar(zoomed).cmax == 64_378
    # A window whose links add a fraction of the whole's cycles reads lighter, not as hot.
    zoom_links, scale = mesh_links(vgg8, "noc", (0, 100_000))
    assert link_steps(zoom_links["added_cycles"].to_numpy(float), scale.top).max() < len(LINK_COLORS) - 1


def test_each_link_ends_in_an_arrowhead_and_tiles_never_use_the_link_palette(vgg8) -> None:  # type: ignore[no-untyped-def]
    fig = mesh_view(vgg8, "noc", "sent")
    heads = {t.name: t for t in fig.data if (t.name or "").endswith(": arrowheads")}
    segments = [t for t in fig.data if (t.name or "").startswith("links ") and "lines" in t.mode]
    assert segments and all(t.marker.symbol == "arrow" for t in heads.values())
    for line in segments:  # each link's head sits at its far end and points along it, on screen
        head = heads[f"{line.name}: arrowheads"]
        x, y = np.asarray(line.x, float).reshape(-1, 3), np.asarray(line.y, float).reshape(-1, 3)
        assert np.array_equal(head.x, x[:, 1]) and np.array_equal(head.y, y[:, 1])
        dx, dy = x[:, 1] - x[:, 0], y[:, 1] - y[:, 0]  # the y axis points down: +y is 180 degrees
        expected = np.select([dx > 0, dx < 0, dy > 0], [90.0, 270.0, 180.0], 0.0)
        assert np.allclose(np.asarray(head.marker.angle) % 360, expected)  # Plotly keeps [-180, 180)
    assert "Oranges" not in _SCALES.values()


def test_noc_stalled_time_is_apart_from_compute_on_the_tiles(vgg8) -> None:  # type: ignore[no-untyped-def]
    noc, dep = vgg8.tiles("noc"), vgg8.tiles("dependency")
    # Under noc a core's compute share shrinks by what it waits on the NoC; dependency has no stall.
    assert (noc["noc_stall_share"] > 0).all() and (dep["noc_stall_share"] == 0).all()
    assert (noc["busy_share"] + noc["noc_stall_share"] <= 1 + 1e-9).all()
    assert (noc["busy_share"] < 1).all()


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (448, "448 B"),
        (1010 * 1024, "0.99 MiB"),  # was "1.01e+03 KiB"
        (999 * 1024, "999 KiB"),
        (13 * 1024, "13 KiB"),
        (int(7.76 * 2**20), "7.76 MiB"),
        (1234 * 2**30, "1,234 GiB"),
    ],
)
def test_bytes_read_in_binary_units_without_exponents(n: int, text: str) -> None:
    assert format_bytes(n) == text


@pytest.mark.parametrize(
    "top", [1000 * 1024, 2 << 20, 1.05 * 1.5 * 2**20, 3 << 30, 700, 11.1 * 2**20, 999 * 2**20]
)
@pytest.mark.parametrize("count", [3, 5, 8])
def test_byte_ticks_read_round(top: float, count: int) -> None:
    # The counter track's L2 axis read "0.98 MiB" and "1.95 MiB" at a 2 MiB L2 (steps of 1,000 KiB).
    values, labels = byte_ticks(top, count)
    numbers = [float(label.split()[0].replace(",", "")) for label in labels]
    assert all(n == int(n) or (4 * n) == int(4 * n) for n in numbers), labels
    assert values[0] == 0 and values[-1] <= top and 1 <= len(values) - 1 <= 2 * count


def test_byte_ticks_at_a_2_mib_l2() -> None:
    assert byte_ticks(2 << 20, 3)[1] == ["0 B", "1 MiB", "2 MiB"]
    assert byte_ticks(2 << 20, 5)[1] == ["0 B", "512 KiB", "1 MiB", "1.5 MiB", "2 MiB"]
    assert byte_ticks(1000 * 1024, 5)[1] == ["0 B", "256 KiB", "512 KiB", "768 KiB"]  # not 205 KiB


def test_byte_colour_bars_tick_in_binary_units() -> None:
    values, labels = byte_ticks(11.1 * 2**20)
    assert labels[1:3] == ["2.5 MiB", "5 MiB"] and values[-1] <= 11.1 * 2**20
    fig = mesh_view(analyze(VGG), "dependency", "dram")
    tiles = next(t for t in fig.data if t.name == "tiles")
    assert all(label.endswith(("B", "0")) for label in tiles.marker.colorbar.ticktext)
    assert all("M" not in t or "MiB" in t for t in tiles.text)  # tiles print MiB, never SI "8.13M"


def test_a_links_transfers_say_where_from_and_which_cores_they_reach_through_it() -> None:
    a = analyze(VGG.parents[1] / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json")
    rows = link_transfers(a, "dependency", None, (3, 3, 3, 2))  # northbound in column 3, row 3 -> 2
    assert rows is not None and len(rows) == 595
    # Transfer 258 is written by core (0,3) for (3,2): XY routing runs along row 3, then up column 3.
    first = rows[(rows["kind"] == "core") & (rows["transfer"] == 258)].iloc[0]
    assert (first["source"], first["reached"]) == ("(0,3)", "(3,2)")
    # A DRAM read through this link reaches only column 3's cores above row 3.
    read = rows[rows["kind"] == "dram_read"].iloc[0]
    assert read["source"] == "DRAM" and set(read["reached"].split(", ")) <= {"(3,0)", "(3,1)", "(3,2)"}
