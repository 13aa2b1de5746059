"""GIR3xx: L2 buffer snapshots (bounds, ring regions, lifetime overlaps, continuity, contents); one
module per rule, with what several share in `common` and `placements`."""

from irtools.rules.l2 import (
    buffer_out_of_bounds,
    buffer_overlap,
    cur_wl_ifmap,
    misaligned_address,
    ring_config,
    size_mismatch,
    snapshot_continuity,
    source_union,
)

__all__ = [
    "buffer_out_of_bounds",
    "buffer_overlap",
    "cur_wl_ifmap",
    "misaligned_address",
    "ring_config",
    "size_mismatch",
    "snapshot_continuity",
    "source_union",
]
