"""GIR2xx: the transfer graph linking producers (DRAM `out`, ofmaps) to consumers; one module per rule.

Importing the package registers its rules in code order.
"""

from irtools.rules.transfers import (
    causality,
    dangling_transfer,
    destination_mismatch,
    dram_in_mismatch,
    duplicate_producer,
    related_dangling,
)

__all__ = [
    "causality",
    "dangling_transfer",
    "destination_mismatch",
    "dram_in_mismatch",
    "duplicate_producer",
    "related_dangling",
]
