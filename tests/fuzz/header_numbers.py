"""Header-number mutants: xlen, ylen, top_batch_cut, buffersize and the entries' sizes set huge, negative, zero.

The red team's inputs (issue 32): `ylen` 2**53+1 passed `validate` and took `analyze` to 23 GB; every
one of its 18 failing `analyze` inputs out of 400 was an xlen/ylen change. The random mutators
(tests/fuzz/mutators.py) rarely reach such a value with the file otherwise intact; these do, for
every dialect, as a fixed table (tests) or drawn at random (benchmarks/fuzz_campaign.py).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.fuzz import mutators as M

HEADER_KEYS = ("xlen", "ylen", "top_batch_cut", "buffersize")
SIZES = "sizes"
"""Every `size` (documented dialect) or `block` (raw and alloc: 1 KiB blocks) of the file's entries."""
TARGETS = (*HEADER_KEYS, SIZES)
HUGE = (1000, 10**5, 2**31, 2**53 + 1, 2**63 - 1, 2**64, 10**30)
SMALL = (0, -1, -(2**31), -(2**63))
VALUES = (*SMALL, *HUGE)
DIALECT_BASES = {
    "documented": ("gemini/int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json", (40, 4)),
    "npu-simulator": ("npu-simulator/ir_ramulator2_dram_test_slice.json", None),
    "raw": ("gemini-raw/resnet_2x2_b1_ir.json", (10, 4)),
    "alloc": ("gemini-alloc/goog_2x2_b1_alloc.json", (10, 4)),
}
"""A small piece of one real file per dialect (workloads [start, start+count) of each core), and the sample."""


def dialect_bases(fixtures_dir: Path = M.FIXTURES) -> dict[str, bytes]:
    """Base documents by dialect: the bundled 2x2 sample and a slice of a real file of each dialect."""
    bases = {"sample": M.base_bytes(M.SAMPLE)}
    for dialect, (name, window) in DIALECT_BASES.items():
        if (fixtures_dir / name).is_file():
            bases[dialect] = M.base_bytes(fixtures_dir / name, window)
    return bases


def set_number(doc: dict[str, Any], target: str, value: int) -> int:
    """Set a header key, or every entry size, to `value`; returns how many numbers changed."""
    if target != SIZES:
        doc[target] = value
        return 1
    changed = 0
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("size", "block"):
                if isinstance(node.get(key), int) and not isinstance(node.get(key), bool):
                    node[key] = value
                    changed += 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return changed


def header_mutant(base: bytes, changes: dict[str, int]) -> bytes:
    """`base` with each target of `changes` set to its value."""
    doc = json.loads(base)
    for target, value in changes.items():
        set_number(doc, target, value)
    return json.dumps(doc, separators=(",", ":")).encode()


def random_header_mutant(base: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """One to three targets set to a value drawn from VALUES (or a random huge or negative number)."""
    changes = {}
    for target in rng.sample(TARGETS, rng.choice((1, 1, 2, 3))):
        roll = rng.random()
        value = rng.choice(VALUES) if roll < 0.8 else rng.randrange(2, 10**7) * rng.choice((1, -1))
        changes[target] = value
    return header_mutant(base, changes), [f"set {t} = {v}" for t, v in changes.items()]
