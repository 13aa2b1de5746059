"""Build sample_ir/: a valid 2x2-mesh IR, near misses that must stay clean, one defect per rule, and one
per dialect variant of a rule (sample_ir/invalid/raw-alloc/: Gemini's raw and allocated files).

Run `python tools/build_samples.py` after changing it, then `pytest --update-goldens` and
review the diff of the .expected.json files.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent / "sample_ir"
KB = 1024
BUFFERSIZE = 1024 * KB
HALF = BUFFERSIZE // 2
RINGS = [[0, HALF], [HALF, BUFFERSIZE]]


def fmap_size(lower: list[int], upper: list[int], align: int = 8, bitwidth: int = 8) -> int:
    n, c, h, w = (b - a + 1 for a, b in zip(lower, upper))
    return n * (-(-c // align) * align) * h * w * bitwidth // 8


def dram_src(tid: int, lower: list[int], upper: list[int], size: int, layer: str) -> dict[str, Any]:
    return {
        "core_id": -1,
        "layer_name": layer,
        "lower": lower,
        "size": size,
        "transfer_id": tid,
        "type": "DRAM",
        "upper": upper,
    }


def core_src(core: int, tid: int, lower: list[int], upper: list[int], layer: str) -> dict[str, Any]:
    return {
        "core_id": core,
        "layer_name": layer,
        "lower": lower,
        "size": fmap_size(lower, upper),
        "transfer_id": tid,
        "type": "core",
        "upper": upper,
    }


def entry(
    tensor_id: int,
    kind: str,
    address: int,
    sources: list[dict[str, Any]],
    *,
    new: bool,
    cur: bool | None = None,
    size: int | None = None,
    layer: str | None = None,
    order: int = 0,
) -> dict[str, Any]:
    lower = [min(s["lower"][d] for s in sources) for d in range(4)]
    upper = [max(s["upper"][d] for s in sources) for d in range(4)]
    e: dict[str, Any] = {
        "address": address,
        "align": 8,
        "bitwidth": 8,
        "lower": lower,
        "newly_added": new,
        "size": size if size is not None else fmap_size(lower, upper),
        "source": sources,
        "tensor_id": tensor_id,
        "tensor_order": order,
        "transfer_id": sorted({s["transfer_id"] for s in sources}),
        "type": kind,
        "upper": upper,
    }
    if cur is not None:
        e["cur_wl_ifmap"] = cur
    if layer is not None:
        e["layer_name"] = layer
    return e


def tile(
    ifl: list[int], ifu: list[int], ofl: list[int], ofu: list[int], time: int, layer: str
) -> dict[str, Any]:
    return {
        "act_mini_tile": [1, 1, 9, 9],
        "ci_cut_num": 1,
        "cut_mode": "KH",
        "ifmap_lower": ifl,
        "ifmap_upper": ifu,
        "layer_name": layer,
        "loop_order": "KNHW",
        "mtc0_mtk0": [1, 1],
        "ofmap_lower": ofl,
        "ofmap_upper": ofu,
        "out_mini_tile": [1, 8, 2, 2],
        "single_tile_time_pred": float(time),
        "tile_padding_tblr": [1, 1, 1, 1],
    }


def workload(
    wid: int,
    layer: str,
    kind: str,
    time: int,
    wl: list[list[int]],
    ifmap: list[dict[str, Any]],
    ofmap: list[dict[str, Any]],
    buffer: list[dict[str, Any]],
    weight: dict[str, Any] | None,
    wl0: list[dict[str, Any]] | None,
    tiles: list[dict[str, Any]],
) -> dict[str, Any]:
    w: dict[str, Any] = {
        "buffer": buffer,
        "ifmap": ifmap,
        "layer_name": layer,
        "layer_type": kind,
        "ofmap": ofmap,
        "ofmap_size": sum(o["size"] for o in ofmap[:1]),
        "ring_buffer_info": copy.deepcopy(RINGS),
        "tile_info": {f"tile_num_{i}": t for i, t in enumerate(tiles)},
        "tile_padding_tblr": [1, 1, 1, 1],
        "time": time,
        "wl0_buffer": wl0,
        "workload": wl,
        "workload_id": wid,
    }
    if weight is not None:
        w["weight"] = weight
    return w


def valid_mesh() -> dict[str, Any]:
    """Conv_0 split by rows over cores 0 and 1; Conv_1 split by channels over cores 2 and 3; Relu_2 on core 2."""
    top = ([0, 0, 0, 0], [0, 15, 15, 31])
    bottom = ([0, 0, 16, 0], [0, 15, 31, 31])
    in_top = ([0, 0, 0, 0], [0, 2, 16, 31])
    in_bottom = ([0, 0, 15, 0], [0, 2, 31, 31])
    full16 = ([0, 0, 0, 0], [0, 15, 31, 31])
    w0 = ([0, 0, 0, 0], [15, 2, 2, 2])
    w1 = ([0, 0, 0, 0], [15, 15, 2, 2])
    out2 = ([0, 0, 0, 0], [0, 15, 31, 31])
    out3 = ([0, 16, 0, 0], [0, 31, 31, 31])
    wsize0, wsize1 = 1024, 4608
    dram = {
        "in": [
            {
                "core_id": 2,
                "layer_name": "Relu_2",
                "lower": out2[0],
                "related_ofmap": [],
                "transfer_id": 14,
                "upper": out2[1],
                "workload_id": 1,
            },
            {
                "core_id": 3,
                "layer_name": "Conv_1",
                "lower": out3[0],
                "related_ofmap": [],
                "transfer_id": 13,
                "upper": out3[1],
                "workload_id": 0,
            },
        ],
        "out": [
            {
                "destination": [{"core_id": 0, "layer_name": "Conv_0", "type": "core", "workload_id": 0}],
                "lower": in_top[0],
                "related_ifmap": [],
                "size": fmap_size(*in_top),
                "transfer_id": 0,
                "type": "fmap",
                "upper": in_top[1],
            },
            {
                "destination": [{"core_id": 1, "layer_name": "Conv_0", "type": "core", "workload_id": 0}],
                "lower": in_bottom[0],
                "related_ifmap": [],
                "size": fmap_size(*in_bottom),
                "transfer_id": 1,
                "type": "fmap",
                "upper": in_bottom[1],
            },
            {
                "destination": [{"core_id": 0, "layer_name": "Conv_0", "type": "core", "workload_id": 0}],
                "lower": w0[0],
                "related_ifmap": [],
                "size": wsize0,
                "transfer_id": 2,
                "type": "weight",
                "upper": w0[1],
            },
            {
                "destination": [{"core_id": 1, "layer_name": "Conv_0", "type": "core", "workload_id": 0}],
                "lower": w0[0],
                "related_ifmap": [],
                "size": wsize0,
                "transfer_id": 3,
                "type": "weight",
                "upper": w0[1],
            },
            {
                "destination": [{"core_id": 2, "layer_name": "Conv_1", "type": "core", "workload_id": 0}],
                "lower": w1[0],
                "related_ifmap": [],
                "size": wsize1,
                "transfer_id": 4,
                "type": "weight",
                "upper": w1[1],
            },
            {
                "destination": [{"core_id": 3, "layer_name": "Conv_1", "type": "core", "workload_id": 0}],
                "lower": w1[0],
                "related_ifmap": [],
                "size": wsize1,
                "transfer_id": 5,
                "type": "weight",
                "upper": w1[1],
            },
        ],
    }

    def conv0(
        core: int,
        rows: tuple[list[int], list[int]],
        inp: tuple[list[int], list[int]],
        tin: int,
        tw: int,
        tout: int,
    ) -> dict[str, Any]:
        inp_size = fmap_size(*inp)
        out_size = fmap_size(*rows)
        # Core 0's ifmap wraps around the end of ring region 0; core 1 uses region 1 plainly.
        in_addr = HALF - 4 * KB if core == 0 else HALF
        out_addr = 64 * KB if core == 0 else HALF + 64 * KB
        return workload(
            0,
            "Conv_0",
            "pe",
            41000 + 1000 * core,
            [rows[0], rows[1]],
            [
                {
                    "align": 8,
                    "bitwidth": 8,
                    "lower": inp[0],
                    "size": inp_size,
                    "transfer_id": [tin],
                    "upper": inp[1],
                }
            ],
            [
                {
                    "destination": [
                        {"core_id": 2, "type": "core", "workload_id": 0},
                        {"core_id": 3, "type": "core", "workload_id": 0},
                    ],
                    "lower": rows[0],
                    "size": out_size,
                    "transfer_id": tout,
                    "upper": rows[1],
                }
            ],
            [
                entry(
                    0,
                    "ifmap",
                    in_addr,
                    [dram_src(tin, inp[0], inp[1], inp_size, "Conv_0")],
                    new=True,
                    cur=True,
                    order=0,
                ),
                entry(
                    1,
                    "weight",
                    in_addr + 16 * KB if core == 1 else 32 * KB,
                    [dram_src(tw, w0[0], w0[1], wsize0, "Conv_0")],
                    new=True,
                    size=wsize0,
                    layer="Conv_0",
                    order=1,
                ),
                entry(
                    2,
                    "ifmap",
                    out_addr,
                    [core_src(core, tout, rows[0], rows[1], "Conv_0")],
                    new=True,
                    order=2,
                ),
            ],
            {"lower": w0[0], "size": wsize0, "transfer_id": [tw], "upper": w0[1]},
            [
                {
                    "address": 0,
                    "align": 8,
                    "bitwidth": 8,
                    "layer_name": "Conv_0",
                    "lower": w0[0],
                    "size": 448,
                    "source": "CORE",
                    "tensor_order": None,
                    "transfer_id": [tw],
                    "upper": w0[1],
                }
            ],
            [tile(inp[0], inp[1], rows[0], rows[1], 41000 + 1000 * core, "Conv_0")],
        )

    def conv1(
        core: int, out: tuple[list[int], list[int]], tw: int, tout: int, dests: list[dict[str, Any]]
    ) -> dict[str, Any]:
        sources = [core_src(0, 10, top[0], top[1], "Conv_0"), core_src(1, 11, bottom[0], bottom[1], "Conv_0")]
        size = fmap_size(*full16)
        buffer = [
            entry(0, "ifmap", 0, sources, new=True, cur=True, order=0),
            entry(
                1,
                "weight",
                32 * KB,
                [dram_src(tw, w1[0], w1[1], wsize1, "Conv_1")],
                new=True,
                size=wsize1,
                layer="Conv_1",
                order=1,
            ),
        ]
        if core == 2:
            buffer.append(
                entry(2, "ifmap", HALF, [core_src(2, tout, out[0], out[1], "Conv_1")], new=True, order=2)
            )
        else:
            buffer.append(
                {
                    "address": HALF,
                    "align": 8,
                    "bitwidth": 8,
                    "layer_name": "Conv_1",
                    "lower": out[0],
                    "size": fmap_size(*out),
                    "start_send": True,
                    "tensor_id": 2,
                    "tensor_order": 2,
                    "type": "ofmap",
                    "upper": out[1],
                }
            )
        halves = [([0, 0, 0, 0], [0, 15, 15, 31]), ([0, 0, 16, 0], [0, 15, 31, 31])]
        return workload(
            0,
            "Conv_1",
            "pe",
            52000,
            [out[0], out[1]],
            [
                {
                    "align": 8,
                    "bitwidth": 8,
                    "lower": full16[0],
                    "size": size,
                    "transfer_id": [10, 11],
                    "upper": full16[1],
                }
            ],
            [
                {
                    "destination": dests,
                    "lower": out[0],
                    "size": fmap_size(*out),
                    "transfer_id": tout,
                    "upper": out[1],
                }
            ],
            buffer,
            {"lower": w1[0], "size": wsize1, "transfer_id": [tw], "upper": w1[1]},
            [
                {
                    "address": 0,
                    "align": 8,
                    "bitwidth": 8,
                    "layer_name": "Conv_1",
                    "lower": w1[0],
                    "size": 2304,
                    "source": "CORE",
                    "tensor_order": None,
                    "transfer_id": [tw],
                    "upper": w1[1],
                }
            ],
            [
                tile(
                    full16[0],
                    [0, 15, 16, 31],
                    [out[0][0], out[0][1], h[0][2], 0],
                    [out[1][0], out[1][1], h[1][2], 31],
                    26000,
                    "Conv_1",
                )
                for h in halves
            ],
        )

    relu = workload(
        1,
        "Relu_2",
        "vp",
        8192,
        [out2[0], out2[1]],
        [
            {
                "align": 8,
                "bitwidth": 8,
                "lower": out2[0],
                "size": fmap_size(*out2),
                "transfer_id": [12],
                "upper": out2[1],
            }
        ],
        [
            {
                "destination": [{"core_id": -1, "type": "DRAM"}],
                "lower": out2[0],
                "size": fmap_size(*out2),
                "transfer_id": 14,
                "upper": out2[1],
            }
        ],
        [
            entry(
                2, "ifmap", HALF, [core_src(2, 12, out2[0], out2[1], "Conv_1")], new=False, cur=True, order=2
            ),
            {
                "address": HALF + 64 * KB,
                "align": 8,
                "bitwidth": 8,
                "layer_name": "Relu_2",
                "lower": out2[0],
                "size": fmap_size(*out2),
                "start_send": True,
                "tensor_id": 3,
                "tensor_order": 3,
                "type": "ofmap",
                "upper": out2[1],
            },
        ],
        None,
        None,
        [
            {
                "ifmap_lower": out2[0],
                "ifmap_upper": out2[1],
                "ofmap_lower": out2[0],
                "ofmap_upper": out2[1],
                "single_tile_time_pred": 8192.0,
                "tile_padding_tblr": [0, 0, 0, 0],
            }
        ],
    )
    relu["tile_padding_tblr"] = [0, 0, 0, 0]
    return {
        "-1": dram,
        "0": [conv0(0, top, in_top, 0, 2, 10)],
        "1": [conv0(1, bottom, in_bottom, 1, 3, 11)],
        "2": [conv1(2, out2, 4, 12, [{"core_id": 2, "type": "core", "workload_id": 1}]), relu],
        "3": [conv1(3, out3, 5, 13, [{"core_id": -1, "type": "DRAM"}])],
        "buffersize": BUFFERSIZE,
        "top_batch_cut": 1,
        "xlen": 2,
        "ylen": 2,
    }


Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    def apply(ir: dict[str, Any]) -> None:
        node = ir
        keys = [int(k) if k.isdigit() and isinstance(node, list) else k for k in path.split("/")]
        *parents, last = path.split("/")
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        node[int(last) if isinstance(node, list) else last] = value
        del keys

    return apply


def _deadlock(ir: dict[str, Any]) -> None:
    # Core 2 gets a second workload whose output core 0 needs before producing what core 2 waits for.
    extra = copy.deepcopy(ir["2"][1])
    extra.update(workload_id=2, layer_name="Pool_9")
    extra["ofmap"] = [
        {
            "destination": [{"core_id": 0, "type": "core", "workload_id": 0}],
            "lower": [0, 0, 0, 0],
            "size": 16384,
            "transfer_id": 30,
            "upper": [0, 15, 31, 31],
        }
    ]
    extra["buffer"] = [b for b in extra["buffer"] if b.get("transfer_id") == [12]]
    extra["buffer"][0]["newly_added"] = False
    ir["2"].append(extra)
    ir["0"][0]["ifmap"].append(
        {
            "align": 8,
            "bitwidth": 8,
            "lower": [0, 0, 0, 0],
            "size": 16384,
            "transfer_id": [30],
            "upper": [0, 15, 31, 31],
        }
    )
    ir["0"][0]["buffer"].append(
        entry(
            9,
            "ifmap",
            200 * KB,
            [core_src(2, 30, [0, 0, 0, 0], [0, 15, 31, 31], "Pool_9")],
            new=True,
            cur=True,
        )
    )


INVALID: dict[str, Mutation] = {
    "GIR201-dangling-transfer": _set("0/0/ifmap/0/transfer_id", [77]),
    "GIR202-duplicate-producer": _set("1/0/ofmap/0/transfer_id", 10),
    "GIR203-destination-missing-workload": _set("0/0/ofmap/0/destination/1/workload_id", 9),
    "GIR204-causality": lambda ir: ir["2"].__setitem__(
        slice(None), [ir["2"][1] | {"workload_id": 0}, ir["2"][0] | {"workload_id": 1}]
    ),
    "GIR205-dram-in-wrong-workload": _set("-1/in/1/workload_id", 5),
    "GIR206-related-dangling": _set("-1/in/0/related_ofmap", [99]),
    "GIR301-buffer-out-of-bounds": _set("3/0/buffer/1/address", BUFFERSIZE),
    "GIR302-buffer-overlap": _set("2/0/buffer/1/address", 8 * KB),
    "GIR303-ring-config": _set("1/0/ring_buffer_info", [[0, HALF + 4096], [HALF, BUFFERSIZE]]),
    "GIR304-snapshot-continuity": _set("2/1/buffer/0/address", HALF + 128 * KB),
    "GIR305-source-union": _set("2/0/buffer/0/transfer_id", [10]),
    "GIR306-cur-wl-ifmap": _set("3/0/buffer/0/cur_wl_ifmap", False),
    "GIR307-size-mismatch": _set("1/0/ifmap/0/size", 4096),
    "GIR401-wl0-overlap": lambda ir: ir["0"][0]["wl0_buffer"].append(
        ir["0"][0]["wl0_buffer"][0] | {"address": 256, "transfer_id": [2]}
    ),
    "GIR501-workload-order": _set("2/1/workload_id", 0),
    "GIR502-deadlock": _deadlock,
    "GIR503-core-outside-mesh": lambda ir: ir.__setitem__("xlen", 1),
    "GIR504-bad-range": _set("1/0/ifmap/0/lower", [0, 3, 15, 0]),
    "GIR505-workload-range": _set("3/0/tile_info/tile_num_1/ofmap_upper", [0, 31, 30, 31]),
    "GIR101-boolean-address": _set("0/0/buffer/0/address", True),
    "GIR103-unknown-key": _set("3/0/buffer/0/adress", 0),
}

NEAR_MISSES: dict[str, Mutation] = {
    # Core 2's weight ends exactly where its ifmap starts: touching, not overlapping.
    "near-miss-GIR302-touching-ranges": _set("2/0/buffer/1/address", 16 * KB),
    # A tensor that wraps around ring region 1 and still fits (core 3's DRAM-only output).
    "near-miss-GIR301-wrap-fits": _set("3/0/buffer/2/address", BUFFERSIZE - 8 * KB),
    # Core 2 waits on cores 0 and 1 across the mesh, but nothing waits back: no cycle.
    "near-miss-GIR502-cross-core-wait": lambda ir: None,
}


RAW_ALLOC_L2 = 256 * KB
"""The L2 size the raw and alloc samples were scheduled for; those dialects do not record it, so the
folder's irtools.toml gives it (`l2-size`), as a user's configuration would."""


def raw_alloc_bases() -> dict[str, dict[str, Any]]:
    """Small real-shaped files of the raw and alloc dialects: irtools synth's 2-layer schedule on a 2x1
    mesh (cores 1 and 2 in Gemini's mesh numbering, ten workloads), clean at RAW_ALLOC_L2."""
    from irtools.synth import SynthOptions, synthesize
    from irtools.synth.alloc import to_alloc
    from irtools.synth.raw import to_raw

    raw = to_raw(synthesize(SynthOptions(2, 1, 2, 1, RAW_ALLOC_L2, 1, 1)).document)
    return {"raw": raw, "alloc": to_alloc(raw)}


# Each variant's defect, on core 1 (workloads 0, 2, 4 run Conv_0; 5, 7, 9 Relu_1) but for the last.
RAW_ALLOC_INVALID: dict[str, tuple[str, Mutation]] = {
    # Workload 7 waits for transfer 7, which workload 2 produces, but names workload 5.
    "GIR204-raw-max-workload-id": ("raw", _set("1/4/ifmap/max_workload_id", 5)),
    "GIR204-alloc-max-workload-id": ("alloc", _set("1/4/ifmap/max_workload_id", 5)),
    # Workload 4's snapshot lists 250 blocks for one input: 299 blocks in all, past the 256 of the L2.
    "GIR301-raw-blocks-over-l2": ("raw", _set("1/2/buffer/4/block", 250)),
    # Workload 9's ofmap (its 10-block staging buffer) placed at block 250: it ends at block 260, past the
    # 256 of the L2.
    "GIR301-alloc-address-past-l2": ("alloc", _set("1/5/buffer/1/address", 250)),
    # Workload 0's input says it is held for workload 5, which runs later on the core, but the snapshot
    # of workload 2 between them does not hold it.
    "GIR304-raw-held-for-another": ("raw", _set("1/0/buffer/0/workload_id", 5)),
    # Workload 2's weight is marked loaded again, though the snapshot before holds it at the same address.
    "GIR304-alloc-start-loading": ("alloc", _set("1/1/buffer/0/start_loading", True)),
    # Workload 2's input lists transfer 7 besides its source's transfer 6 (an entry of one snapshot only:
    # one held ahead would no longer match its copy in the next snapshot).
    "GIR305-raw-source-ids": ("raw", _set("1/1/buffer/1/transfer_id", [6, 7])),
    # On core 2, the source of workload 3's input stops one row short of the input's range (an entry of
    # one snapshot only: the allocator's parser tells tensors apart by the whole entry, sources too).
    "GIR305-alloc-source-box": ("alloc", _set("2/1/buffer/1/source/0/upper", [0, 2, 43, 55])),
}


def main() -> None:
    valid = valid_mesh()
    (ROOT / "valid").mkdir(parents=True, exist_ok=True)
    (ROOT / "invalid").mkdir(parents=True, exist_ok=True)
    (ROOT / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json").write_text(
        json.dumps(valid, indent=1) + "\n"
    )
    for name, mutate in NEAR_MISSES.items():
        ir = copy.deepcopy(valid)
        mutate(ir)
        (ROOT / "valid" / f"{name}.json").write_text(json.dumps(ir, indent=1) + "\n")
    for name, mutate in INVALID.items():
        ir = copy.deepcopy(valid)
        mutate(ir)
        (ROOT / "invalid" / f"{name}.json").write_text(json.dumps(ir, indent=1) + "\n")
    folder = ROOT / "invalid" / "raw-alloc"
    folder.mkdir(exist_ok=True)
    (folder / "irtools.toml").write_text(
        "# The raw and alloc dialects do not record the L2 size: the one these samples were scheduled for.\n"
        f"l2-size = {RAW_ALLOC_L2}\n"
    )
    bases = raw_alloc_bases()
    for name, (dialect, mutate) in RAW_ALLOC_INVALID.items():
        ir = copy.deepcopy(bases[dialect])
        mutate(ir)
        (folder / f"{name}.json").write_text(json.dumps(ir, indent=1) + "\n")


if __name__ == "__main__":
    main()
