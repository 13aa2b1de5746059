"""Fields of a loaded core's workloads let go once what reads them has read them (validate's per-core
steps, analyze's snapshot tables): `DROPPED` takes their place, and any later read of it raises
`FieldDropped`, so a reader that still needed one is caught, never handed something else."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from itertools import repeat
from operator import attrgetter
from typing import Any, NoReturn

import msgspec


class FieldDropped(Exception):
    """A workload's field was read after its core was read and the field dropped."""


class _Dropped:
    """What a workload's dropped field holds: any read raises."""

    __slots__ = ()

    def _gone(self, *_: object) -> NoReturn:
        raise FieldDropped("a workload's field was read after its core was read and the field dropped")

    __iter__ = __len__ = __getitem__ = __bool__ = __contains__ = __getattr__ = _gone

    def __repr__(self) -> str:
        return "<dropped>"


DROPPED: Any = _Dropped()

SNAPSHOT_FIELDS = ("buffer", "wl0_buffer", "wl1_buffer", "tile_info")
"""A workload's L2 and WL0 snapshots and its tiles: three quarters of a Gemini file's bytes."""

TENSOR_FIELDS = ("ifmap", "waits", "weight", "ofmap", "workload")
"""A workload's tensors and range: most of what is left of it once its snapshots are gone; the transfer
columns (irtools.loading.columns) hold what the whole-file steps read of them."""

DROPPED_FIELDS = (*SNAPSHOT_FIELDS, *TENSOR_FIELDS)
"""What validate drops of each core once checked (irtools.streaming): a field a workload's Struct lacks, or
that holds None, is left as it is."""


def drop_fields(workloads: list[Any], names: Iterable[str]) -> None:
    """DROPPED in each field `names` of these workloads that are Structs, where it holds no None (the
    models' workloads, of a part the typed decoder left to them, keep theirs)."""
    names = tuple(names)
    for kind in {type(w) for w in workloads if isinstance(w, msgspec.Struct)}:
        group = [w for w in workloads if type(w) is kind]
        for name in (n for n in names if _settable(kind, n)):
            held = [
                w for w, value in zip(group, map(attrgetter(name), group), strict=True) if value is not None
            ]
            deque(map(setattr, held, repeat(name), repeat(DROPPED)), maxlen=0)


def _settable(kind: type, name: str) -> bool:
    """Whether `name` is a field of the Struct `kind`, or a property with a setter over an optional one
    (`name_as_read`); not a property that derives a value (the raw dialect's `ifmap`)."""
    attribute = getattr(kind, name, None)
    if isinstance(attribute, property):
        return attribute.fset is not None
    return name in getattr(kind, "__struct_fields__", ())
