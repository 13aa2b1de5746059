"""What several rules' screens share: boxes from whole-file numpy columns, and bounds on their arithmetic.

A screen (declared on its rule: `@rule(..., screen=...)`, see irtools.rules.registry) returns the sorted
workload rows (`IRIndex.rows`) that its rule's reference check must look at, a superset of those with a
finding, or None when the columns cannot be built exactly (the rule then runs its reference check on the
whole file). The registry runs the reference check on the flagged rows only, so every finding is the
reference's own (irtools.reference). Each screen lives in its rule's file; tests/rules/test_screens.py
checks each against its reference check on generated files of every dialect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from irtools.loading.boxes import Coordinates, Group, Ints

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex

EXACT = 2**50
"""Products estimated (in float64) below this are computed exactly in int64; above, the row is flagged."""


def box_columns(
    group: Group, lower: str = "lower", upper: str = "upper"
) -> tuple[Coordinates, Coordinates] | None:
    """The (n, 4) lower and upper columns of a group's boxes, None when some box is not 4 integers."""
    low, high = group.quad(lower), group.quad(upper)
    return None if low is None or high is None else (low, high)


def extents(lower: Coordinates, upper: Coordinates) -> Ints:
    """Per box, max(upper - lower + 1, 0) per dimension, in int64 (the columns may hold int32
    coordinates, whose extent can pass 2**31 - 1; the screens keep coordinates below 2**40)."""
    extent: Ints = np.maximum(upper.astype(np.int64) - lower + 1, 0)
    return extent


def huge(*arrays: Coordinates | Ints) -> bool:
    """Whether a value is too large for the screens' arithmetic (the rule then checks every row)."""
    return any(len(a) and int(a.max()) >= 2**40 for a in arrays)


def core_ranks(ir: IRIndex) -> Ints:
    """Per workload row, its core's rank among the index's cores: what tells the cores' rows apart,
    without the transfer graph's columns (a core checked alone would build them again for this only)."""
    counts = [len(refs) for refs in ir.cores.values()]
    ranks: Ints = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return ranks
