"""`irtools.heap.give_back_freed_memory`: freed pages inside glibc's heap stop counting as resident."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from irtools.heap import _malloc_trim, give_back_freed_memory


def _resident_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(_malloc_trim() is None, reason="no malloc_trim in this C library (not glibc)")
def test_freed_memory_between_kept_blocks_is_given_back() -> None:
    # 64 KiB blocks come from the heap (under malloc's mmap threshold); every other one kept, so the
    # freed ones sit between live ones, where malloc never trims by itself.
    blocks = [np.ones(8192) for _ in range(4000)]  # 250 MiB, every page touched
    kept = blocks[::2]
    del blocks
    gc.collect()
    before = _resident_mib()
    give_back_freed_memory()
    after = _resident_mib()
    assert before - after > 50, (before, after)  # most of the freed 125 MiB
    assert all(block[-1] == 1.0 for block in kept)  # the kept blocks are intact
