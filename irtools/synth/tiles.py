"""Intra-core tiles of a workload, as the Intra-Core Compiler would record them in tile_info."""

from __future__ import annotations

from typing import Any

from irtools.synth.boxes import ALIGN, Box, split
from irtools.synth.graph import Layer


def tile_info(layer: Layer, box: Box, count: int) -> list[dict[str, Any]]:
    """The workload's ofmap box cut into about `count` tiles by rows (or channels, for a single row).

    The tiles partition the box exactly (what GIR505 checks); each reads the ifmap box its rows
    need, and its predicted time grows with its MACs (pe) or elements (vp).
    """
    if box.extent(2) >= 2:
        cuts = [
            Box(
                (box.lower[0], box.lower[1], h0, box.lower[3]),
                (box.upper[0], box.upper[1], h1, box.upper[3]),
            )
            for h0, h1 in split(box.lower[2], box.upper[2], count)
        ]
        cut_mode = "H"
    else:
        cuts = [
            Box(
                (box.lower[0], k0, box.lower[2], box.lower[3]),
                (box.upper[0], k1, box.upper[2], box.upper[3]),
            )
            for k0, k1 in split(box.lower[1], box.upper[1], count, ALIGN)
        ]
        cut_mode = "K"
    tiles = []
    for cut in cuts:
        ifmap = layer.input_box(cut)
        if layer.op == "conv":
            work = cut.volume() * layer.in_channels * layer.kernel * layer.kernel / 256
        else:
            work = cut.volume() * len(layer.inputs or (0,)) / 32
        tiles.append(
            {
                "act_mini_tile": [
                    1,
                    min(8, ifmap.extent(1)),
                    min(9, ifmap.extent(2)),
                    min(9, ifmap.extent(3)),
                ],
                "ci_cut_num": 1,
                "cut_mode": cut_mode,
                "ifmap_lower": list(ifmap.lower),
                "ifmap_upper": list(ifmap.upper),
                "layer_name": layer.name,
                "loop_order": "KNHW",
                "mtc0_mtk0": [1, 1],
                "ofmap_lower": list(cut.lower),
                "ofmap_upper": list(cut.upper),
                "out_mini_tile": [1, min(8, cut.extent(1)), min(2, cut.extent(2)), min(2, cut.extent(3))],
                "single_tile_time_pred": round(work + 64.0, 3),
                "tile_padding_tblr": layer.padding(cut),
            }
        )
    return tiles
