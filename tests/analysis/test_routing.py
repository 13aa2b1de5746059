"""The routing function against a line-by-line reading of Gemini's NoC loops (src/noc.cpp)."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from irtools.analysis.link_grid import LinkGrid
from irtools.analysis.routing import (
    DIRECTIONS,
    Runs,
    dram_ports,
    expand,
    from_dram,
    line_spans,
    link_label,
    link_loads,
    narrowest,
    route,
    to_dram,
    tree_runs,
)


def gemini_links(
    src: tuple[int, int], dsts: list[tuple[int, int]], size: int
) -> Counter[tuple[int, int, int]]:
    """Gemini's link_hops updates for one (multi)cast, as its loops write them: (x, y, dir) -> bytes."""
    hops: Counter[tuple[int, int, int]] = Counter()
    dst = sorted(set(dsts))
    if len(dst) == 1:  # NoC::unicastCalc
        (dx_, dy_), (sx, sy) = dst[0], src
        x_dir, y_dir = (0 if dx_ > sx else 2), (3 if dy_ > sy else 1)
        step_x, step_y = (1 if dx_ > sx else -1), (1 if dy_ > sy else -1)
        x = sx
        while x != dx_:
            hops[(x, sy, x_dir)] += size
            x += step_x
        y = sy
        while y != dy_:
            hops[(dx_, y, y_dir)] += size
            y += step_y
        return hops
    sx, sy = src  # NoC::multicastCalc
    for x in range(sx, dst[0][0], -1):
        hops[(x, sy, 2)] += size
    for x in range(sx, dst[-1][0]):
        hops[(x, sy, 0)] += size
    cur_x, min_y = dst[0]
    for i in range(1, len(dst) + 1):
        if i < len(dst) and dst[i][0] == cur_x:
            continue
        for y in range(sy, min_y, -1):
            hops[(cur_x, y, 1)] += size
        for y in range(sy, dst[i - 1][1]):
            hops[(cur_x, y, 3)] += size
        if i == len(dst):
            break
        cur_x, min_y = dst[i]
    return hops


def as_counter(links: pd.DataFrame) -> Counter[tuple[int, int, int]]:
    out: Counter[tuple[int, int, int]] = Counter()
    for x, y, d, b in zip(links["x"], links["y"], links["direction"], links["bytes"]):
        out[(int(x), int(y), DIRECTIONS.index(str(d)))] += int(b)
    return out


def test_unicast_goes_x_first_then_y() -> None:
    links = route(
        pd.DataFrame(
            {"transfer": [7], "src_x": [0], "src_y": [0], "dst_x": [2], "dst_y": [1], "bytes": [100]}
        )
    )
    assert list(
        zip(links["x"], links["y"], links["to_x"], links["to_y"], links["direction"].astype(str))
    ) == [
        (0, 0, 1, 0, "+x"),
        (1, 0, 2, 0, "+x"),
        (2, 0, 2, 1, "+y"),
    ]
    assert set(links["bytes"]) == {100} and set(links["transfer"]) == {7}


def test_multicast_tree_loads_each_link_once() -> None:
    # From (1,1) to (0,0), (0,2) and (3,1): west 1 hop, east 2 hops, column 0 up and down; 5 links in all.
    rows = [(0, 0), (0, 2), (3, 1)]
    frame = pd.DataFrame(
        {
            "transfer": 1,
            "src_x": 1,
            "src_y": 1,
            "dst_x": [r[0] for r in rows],
            "dst_y": [r[1] for r in rows],
            "bytes": 64,
        }
    )
    links = route(frame)
    assert as_counter(links) == gemini_links((1, 1), rows, 64)
    assert len(links) == 5 and links["bytes"].sum() == 5 * 64


def test_local_destination_loads_nothing() -> None:
    links = route(
        pd.DataFrame({"transfer": [1], "src_x": [2], "src_y": [2], "dst_x": [2], "dst_y": [2], "bytes": [8]})
    )
    assert links.empty


@pytest.mark.parametrize("seed", range(20))
def test_random_transfers_match_gemini_loops(seed: int) -> None:
    rng = random.Random(seed)
    xlen, ylen = rng.randint(1, 6), rng.randint(1, 6)
    rows, expected = [], Counter()
    for t in range(rng.randint(1, 30)):
        src = (rng.randint(-1, xlen), rng.randint(0, ylen - 1))
        dsts = list({(rng.randint(0, xlen - 1), rng.randint(0, ylen - 1)) for _ in range(rng.randint(1, 5))})
        size = rng.randint(1, 1000)
        rows += [(t, src[0], src[1], d[0], d[1], size) for d in dsts]
        expected.update(gemini_links(src, dsts, size))
    frame = pd.DataFrame(rows, columns=["transfer", "src_x", "src_y", "dst_x", "dst_y", "bytes"])
    assert as_counter(route(frame)) == +expected


def test_dram_ports_follow_geminis_list() -> None:
    ports = dram_ports(4, 4)
    assert list(zip(ports["channel"], ports["x"], ports["y"])) == [
        (0, -1, 0),
        (0, -1, 1),
        (1, -1, 2),
        (1, -1, 3),
        (2, 4, 0),
        (2, 4, 1),
        (3, 4, 2),
        (3, 4, 3),
    ]


def test_dram_split_is_geminis_integer_split() -> None:
    # 1003 bytes: each of the 4 channels takes 250 (3 bytes dropped, as Gemini's size / DRAM_num does),
    # split 125 + 125 over a channel's two ports.
    reads = from_dram(pd.DataFrame({"transfer": [5], "dst_x": [0], "dst_y": [0], "bytes": [1003]}), 4, 4)
    assert list(reads["bytes"]) == [125] * 8
    assert sorted(zip(reads["src_x"], reads["src_y"])) == sorted((x, y) for x in (-1, 4) for y in range(4))
    odd = to_dram(pd.DataFrame({"transfer": [5], "src_x": [1], "src_y": [1], "bytes": [4 * 7]}), 2, 4)
    assert list(odd["bytes"]) == [3, 4] * 4 and set(odd["dst_x"]) == {-1, 2}


def test_dram_read_multicasts_from_every_port() -> None:
    reads = from_dram(
        pd.DataFrame({"transfer": [0, 0], "dst_x": [0, 1], "dst_y": [0, 0], "bytes": [400, 400]}), 2, 2
    )
    loads = link_loads(route(reads))
    # The west port of row 0 sends its 100 bytes east through (0,0)->(1,0) once, though both cores get them.
    west = loads[(loads["x"] == -1) & (loads["y"] == 0)]
    assert list(west["bytes"]) == [100]
    through = loads[(loads["x"] == 0) & (loads["y"] == 0) & (loads["direction"] == "+x")]
    assert list(through["bytes"]) == [100]


def test_link_loads_sums_and_labels() -> None:
    frame = pd.DataFrame(
        {
            "transfer": [1, 2],
            "src_x": [0, 0],
            "src_y": [0, 0],
            "dst_x": [1, 1],
            "dst_y": [0, 0],
            "bytes": [3, 4],
        }
    )
    loads = link_loads(route(frame))
    assert len(loads) == 1 and loads.loc[0, "bytes"] == 7
    assert link_label(-1, 0, 0, 0, 2) == "DRAM W0->(0,0)" and link_label(1, 1, 2, 1, 2) == "(1,1)->DRAM E1"


def test_dram_write_shares_are_separate_unicasts() -> None:
    # A core at (0,0) of a 4x4 mesh writes 800 bytes: 100 to each of the 8 ports. The 4 west shares all
    # leave by (0,0)->(-1,0) (X first), so that link carries 400: 4 unicasts, not one tree of 100.
    writes = to_dram(pd.DataFrame({"transfer": [3], "src_x": [0], "src_y": [0], "bytes": [800]}), 4, 4)
    loads = link_loads(route(writes))
    west = loads[(loads["x"] == 0) & (loads["y"] == 0) & (loads["direction"] == "-x")]
    assert list(west["bytes"]) == [400]
    assert as_counter(route(writes)) == sum(
        (gemini_links((0, 0), [(px, py)], 100) for px in (-1, 4) for py in range(4)), Counter()
    )


def test_routed_coordinates_and_bytes_stay_integers() -> None:
    """The routed rows become the noc_links table (CSV, the mesh view): a link end is `2`, never `2.0`."""
    links = route(
        pd.DataFrame({"transfer": [3], "src_x": [0], "src_y": [2], "dst_x": [1], "dst_y": [0], "bytes": [9]})
    )
    assert list(zip(links["x"], links["y"], links["to_x"], links["to_y"], strict=True)) == [
        (0, 2, 1, 2),
        (1, 2, 1, 1),
        (1, 1, 1, 0),
    ]
    # Millions of rows on a large mesh: coordinates in the narrowest integers holding the mesh, bytes int64.
    assert {c: str(links[c].dtype) for c in ("x", "y", "to_x", "to_y", "bytes")} == {
        "x": "int8",
        "y": "int8",
        "to_x": "int8",
        "to_y": "int8",
        "bytes": "int64",
    }
    assert links[["to_x", "to_y"]].to_csv(index=False).splitlines() == ["to_x,to_y", "1,2", "1,1", "1,0"]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([np.array([0, 126])], np.int8),  # a link from 126 ends at 127, the last int8
        ([np.array([0, 127])], np.int16),  # ... from 127 at 128
        ([np.array([-127])], np.int8),
        ([np.array([-128])], np.int16),
        ([np.array([3]), np.array([40_000])], np.int32),
        ([np.array([], dtype=np.int64)], np.int8),
    ],
)
def test_narrowest_keeps_a_links_far_end(values: list[np.ndarray], expected: type) -> None:
    assert narrowest(*values) is expected


@pytest.mark.parametrize(
    ("sources", "destinations"),
    [
        ((range(4), range(4)), (range(4), range(4))),
        ((range(60), range(60)), (range(60), range(60))),
        ((range(120), range(120)), (range(120), range(120))),
        # Rows 80-100 send to rows 128-180: starts and hop counts fit int8, the far ends do not.
        ((range(30), range(80, 101)), (range(30), range(128, 181))),
    ],
)
@pytest.mark.parametrize("seed", range(2))
def test_narrowed_runs_route_as_the_int64_ones(
    sources: tuple[range, range], destinations: tuple[range, range], seed: int
) -> None:
    """An analysis keeps its routed runs and their line spans narrowed (int8 coordinates on a mesh under
    127 wide); what is computed from them is computed in int64, so link ids and rows are the int64
    runs' own, also where int8 arithmetic would wrap (a direction code times 60 lines, a run from row
    100 to row 180) and for bytes beyond int32."""
    rng = random.Random(seed)
    rows = [
        (t, sx, sy, rng.choice(destinations[0]), rng.choice(destinations[1]), rng.randint(1, 2**40))
        for t in range(40)
        for sx, sy in [(rng.choice(sources[0]), rng.choice(sources[1]))]
        for _ in range(rng.randint(1, 4))
    ]
    narrow = tree_runs(pd.DataFrame(rows, columns=["transfer", "src_x", "src_y", "dst_x", "dst_y", "bytes"]))
    assert {narrow.y.dtype, narrow.code.dtype, narrow.count.dtype} == {np.dtype(np.int8)}
    assert narrow.size.dtype == np.int64 and narrow.transfer.dtype == np.int8
    wide = Runs(*(np.asarray(getattr(narrow, f.name), dtype=np.int64) for f in dataclasses.fields(Runs)))
    spans, narrow_spans = line_spans(wide), line_spans(narrow)
    for column, narrow_column in zip(spans, narrow_spans, strict=True):
        np.testing.assert_array_equal(column, narrow_column)
    grid = LinkGrid.of(*spans[1:])
    # The spans as the noc model and the counters keep them (noc.routed_steps narrows them too).
    kept_spans = [column.astype(narrowest(column)) for column in spans]
    for ids, narrow_ids, kept_ids in zip(
        grid.interval(*spans), grid.interval(*narrow_spans), grid.interval(*kept_spans), strict=True
    ):
        np.testing.assert_array_equal(ids, narrow_ids)
        np.testing.assert_array_equal(ids, kept_ids)
    pd.testing.assert_frame_equal(expand(narrow), expand(wide))
