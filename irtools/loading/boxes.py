"""The tensors of every workload as numpy columns, gathered once per IR by C-level iteration.

A group (buffer entries, their sources, ifmaps, ofmaps, tiles) lists its model objects flat over
the whole file, in `IRIndex.rows` order (core by core, program order, then file order inside a
workload), with each object's workload row. Coordinates come as (n, 4) int64 arrays. The columnar
screens of the rules compare whole columns and hand only the workloads they flag to the
object-by-object reference check (irtools.reference), so every finding is the reference's own.

Every getter returns None when a value does not fit a column exactly (a coordinate list that is not
4 ints, a value beyond int64): the rule then runs its reference check on the whole file.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from itertools import chain, compress, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from irtools.loading.sets import distinct

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex, WorkloadRef

Ints = npt.NDArray[np.int64]
Coordinates = npt.NDArray[np.int32] | npt.NDArray[np.int64]
"""The boxes' coordinates: int32 when every number of the column fits (`coordinates`), else int64."""
Bools = npt.NDArray[np.bool_]

_FAILURES = (TypeError, ValueError, OverflowError)
"""What numpy raises for a value that is not an int64 (None, a float list, too large, wrong length)."""


class Group:
    """One kind of object over the whole file: the objects and each one's workload row."""

    def __init__(self, objects: list[Any], row: Ints) -> None:
        self.objects = objects
        self.row = row
        self._quads: dict[str, Coordinates | None] = {}
        self._bounds: dict[str, tuple[Ints, Coordinates] | None] = {}
        self._ints: dict[str, Ints | None] = {}
        self._lists: dict[str, tuple[Ints, Ints] | None] = {}
        self._children: dict[str, Group] = {}

    def __len__(self) -> int:
        return len(self.objects)

    def quad(self, name: str) -> Coordinates | None:
        """The attribute `name` of every object, a list of 4 ints each, as an (n, 4) array (kept:
        several rules read the same coordinates)."""
        if name not in self._quads:
            # The attribute that `name` pads to four coordinates, when every object's class says so:
            # reading it as written skips a property call and a list per object.
            written = self._class_constant("COORDS_WRITTEN_AS", name)
            if written is None:
                self._quads[name] = quads(list(map(attrgetter(name), self.objects)))
            else:
                shaped = self.bounds(written)
                self._quads[name] = None if shaped is None else shaped[1]
        return self._quads[name]

    def bounds(self, name: str) -> tuple[Ints, Coordinates] | None:
        """The attribute `name` of every object, an int or a list of at most 4 ints: (its length, -1
        for an int; an (n, 4) array of it padded as `coords` pads), kept; None when some value is
        neither."""
        if name not in self._bounds:
            self._bounds[name] = coords(list(map(attrgetter(name), self.objects)))
        return self._bounds[name]

    def ints(self, name: str) -> Ints | None:
        """The int attribute `name` of every object, as an array (kept)."""
        if name not in self._ints:
            read = attrgetter(self._renamed(name))
            self._ints[name] = ints(map(read, self.objects), len(self.objects))
        return self._ints[name]

    def _renamed(self, name: str) -> str:
        """The field that the property `name` only renames, when every object's class says so (`RENAMES`):
        reading it skips a property call per object."""
        field = self._class_constant("RENAMES", name)
        return name if field is None else field

    def _class_constant(self, constant: str, name: str) -> str | None:
        """What every object's class maps `name` to in its class constant `constant`, None if not all
        agree."""
        fields: set[str | None] = {getattr(c, constant, {}).get(name) for c in self._classes}
        return fields.pop() if len(fields) == 1 else None

    @cached_property
    def _classes(self) -> set[type]:
        """The objects' classes (found once: every column of the group asks)."""
        return set(map(type, self.objects))

    def equals(self, name: str, value: object, negate: bool = False) -> Bools:
        """Whether the attribute `name` of each object is `value` (a string, a flag or None), or
        with `negate`, is not."""
        values = map(attrgetter(name), self.objects)
        tested = map(operator.ne if negate else operator.eq, values, repeat(value))
        return np.fromiter(tested, bool, len(self.objects))

    def lists(self, name: str) -> tuple[Ints, Ints] | None:
        """The list attribute `name` of every object (None as empty), flattened: (owner, value) (kept)."""
        if name not in self._lists:
            self._lists[name] = self._flatten(name)
        return self._lists[name]

    def _flatten(self, name: str) -> tuple[Ints, Ints] | None:
        written = self._class_constant("FLAT_AS_WRITTEN", name)
        if written is not None:  # the field as written, when it holds ints only (`[[t]]` does not)
            as_written = self._flatten(written)
            if as_written is not None:
                return as_written
        values = _lists(list(map(attrgetter(name), self.objects)))
        counts = np.fromiter(map(len, values), np.int64, len(values))
        flat = ints(chain.from_iterable(values), int(counts.sum()))
        if flat is None:
            return None
        return np.repeat(np.arange(len(values), dtype=np.int64), counts), flat

    def present(self, *names: str) -> Group:
        """The objects whose attributes `names` are all set (not None), with their rows."""
        keep = [all(getattr(o, n) is not None for n in names) for o in self.objects]
        if all(keep):
            return self
        return Group(
            [o for o, k in zip(self.objects, keep, strict=True) if k], self.row[np.array(keep, dtype=bool)]
        )

    def children(self, name: str) -> Group:
        """The objects of list attribute `name` (None as empty) of every object, as a group; its
        `row` is the owning object's index in this group (not the workload row). Kept: the transfer
        columns and GIR205's screen both read the ofmaps' destinations."""
        if name not in self._children:
            lists = _lists(list(map(attrgetter(name), self.objects)))
            counts = np.fromiter(map(len, lists), np.int64, len(lists))
            owner = np.repeat(np.arange(len(lists), dtype=np.int64), counts)
            self._children[name] = Group(list(chain.from_iterable(lists)), owner)
        return self._children[name]


def _lists(values: list[Any]) -> list[Any]:
    """`values` (lists or None) with None as empty; the same list when none is None (a C-level scan)."""
    return [v or () for v in values] if None in values else values


def ints(values: Iterable[Any], count: int) -> Ints | None:
    """`count` ints as an int64 array, or None when one is not an int64."""
    try:
        return np.fromiter(values, np.int64, count)
    except _FAILURES:
        return None


def coordinates(lists: Sequence[Iterable[Any]], count: int) -> Coordinates | None:
    """The `count` numbers of `lists`, in order, as int32 when every one fits, else as int64; None when
    one is not an int64 (None, too large). A float would be truncated, not refused: none reaches here, as
    the typed decoder and the models admit ints only in coordinates. The boxes' columns are most of what
    the rules' columns hold while a file is checked, and real coordinates are small: half the bytes.
    Whoever computes with them (`extents`) widens first; comparing them, as the screens do, needs no
    widening."""
    try:
        return np.fromiter(chain.from_iterable(lists), np.int32, count)
    except OverflowError:
        return ints(chain.from_iterable(lists), count)
    except (TypeError, ValueError):
        return None


def quads(values: Sequence[Any], lists_of_four: bool = False) -> Coordinates | None:
    """Lists of 4 ints as an (n, 4) array (`coordinates`: int32 when they fit), or None when one is not a
    list of 4 int64 values; `lists_of_four`: the caller has checked that every value is a list of 4
    (`coords`).

    Equal coordinate lists are mostly one list (the models' `model.base._share`, the typed decoder's
    irtools.loading.sharing), so each distinct list is read once: on large files, reaching the int
    objects costs more than sorting the lists' ids. Lists whose first ones are all distinct are read
    straight, as sorting ids that are all distinct only adds to it."""
    if len(values) > _SAMPLE and len(set(map(id, values[:_SAMPLE]))) == _SAMPLE:
        if not lists_of_four and (not set(map(type, values)) <= {list} or not set(map(len, values)) <= {4}):
            return None
        flat = coordinates(values, 4 * len(values))
        return None if flat is None else flat.reshape(-1, 4)
    ids = np.fromiter(map(id, values), np.int64, len(values))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    distinct = list(map(values.__getitem__, first.tolist()))
    # Lists only: the reference compares them with lists, and a tuple never equals a list.
    if not set(map(type, distinct)) <= {list} or not set(map(len, distinct)) <= {4}:
        return None
    flat = coordinates(distinct, 4 * len(distinct))
    return None if flat is None else flat.reshape(-1, 4)[inverse.reshape(-1)]


_SAMPLE = 64
"""Lists looked at to tell shared coordinates (the models') from unshared ones (the decoder's)."""


def coords(values: Sequence[Any]) -> tuple[Ints, Coordinates] | None:
    """Ints and lists of at most 4 ints as (length, -1 for an int; an (n, 4) array, int32 when every
    value fits, as `coordinates`): an int K as [K, 0, 0, 0], a shorter list padded with 0 (how a raw
    file's weight bounds and 3-D boxes read as coordinates). None when a value is neither, or not an
    int64. Iterates in C only."""
    count = len(values)
    if set(map(type, values)) <= {list} and set(map(len, values)) <= {4}:  # the usual: two C-level scans
        out = quads(values, lists_of_four=True)
        return None if out is None else (np.full(count, 4, dtype=np.int64), out)
    is_list = np.fromiter(map(operator.is_, map(type, values), repeat(list)), bool, count)
    lists = list(compress(values, is_list))
    scalars = list(compress(values, ~is_list))
    if not set(map(type, scalars)) <= {int}:
        return None  # a bool or a float is no bound the models allow
    length = np.full(count, -1, dtype=np.int64)
    # Ints and lists of 4 (a raw file's weights beside its fmaps): no list to pad.
    if set(map(len, lists)) <= {4}:
        length[is_list] = 4
        whole, first = quads(lists, lists_of_four=True), coordinates([scalars], len(scalars))
        if whole is None or first is None:
            return None
        out = np.zeros((count, 4), dtype=np.result_type(whole, first))
        out[is_list], out[~is_list, 0] = whole, first
        return length, out
    length[is_list] = np.fromiter(map(len, lists), np.int64, len(lists))
    four = length == 4  # not all: lists of 4 only are read above
    shorter = is_list & ~four
    if int(length.max(initial=0)) > 4:
        return None  # a fifth coordinate is no bound the models allow
    whole = quads(list(compress(values, four)), lists_of_four=True)
    first = coordinates([scalars], len(scalars))
    numbers = coordinates(list(compress(values, shorter)), int(length[shorter].sum()))
    if whole is None or first is None or numbers is None:
        return None
    out = np.zeros((count, 4), dtype=np.result_type(whole, first, numbers))
    out[four], out[~is_list, 0] = whole, first
    # A shorter list's numbers fill its first places, in order.
    rows = np.repeat(np.flatnonzero(shorter), length[shorter])
    starts = np.repeat(np.cumsum(length[shorter]) - length[shorter], length[shorter])
    out[rows, np.arange(len(rows), dtype=np.int64) - starts] = numbers
    return length, out


class TensorColumns:
    """The groups of one IR, each built on first use."""

    def __init__(self, index: IRIndex) -> None:
        self.workloads = [ref.workload for ref in index.rows]

    @cached_property
    def _fields(self) -> dict[str, tuple[Any, ...]]:
        """The workloads' attributes the groups read, gathered in one pass: each workload is touched
        once (on files of 100 MB, reaching an object costs more than reading one more attribute)."""
        if not self.workloads:
            return {name: () for name in _FIELDS}
        return dict(zip(_FIELDS, zip(*map(attrgetter(*_FIELDS), self.workloads), strict=True), strict=True))

    def field(self, name: str) -> tuple[Any, ...]:
        """The attribute `name` (one of _FIELDS) of every workload."""
        return self._fields[name]

    def _group(self, objects: Callable[[Any], Sequence[Any]] | str, field: str | None = None) -> Group:
        """The objects of every workload: a list field by name, or `objects` applied to a field
        (or to the workload)."""
        if isinstance(objects, str):
            lists = list(self.field(objects))
        else:
            lists = list(map(objects, self.workloads if field is None else self.field(field)))
        counts = np.fromiter(map(len, lists), np.int64, len(lists))
        row = np.repeat(np.arange(len(lists), dtype=np.int64), counts)
        return Group(list(chain.from_iterable(lists)), row)

    @cached_property
    def buffers(self) -> Group:
        """Every L2 buffer entry."""
        return self._group("buffer")

    @cached_property
    def sources(self) -> Group:
        """Every source of every buffer entry; `row` is the entry's index in `buffers`."""
        return self.buffers.children("source")

    @cached_property
    def ifmaps(self) -> Group:
        """Every ifmap entry of every workload."""
        return self._group("ifmap")

    @cached_property
    def ofmaps(self) -> Group:
        """Every ofmap entry of every workload."""
        return self._group("ofmap")

    @cached_property
    def tiles(self) -> Group:
        """Every tile of every workload's tile_info, in the mapping's order."""
        return self._group(lambda tiles: list(tiles.values()) if tiles else (), "tile_info")

    @cached_property
    def weights(self) -> Group:
        """Every workload's weight entry (a workload has at most one)."""
        return self._group(lambda weight: () if weight is None else (weight,), "weight")

    @cached_property
    def wl0(self) -> Group:
        """Every WL0 buffer entry of every workload."""
        return self._group(attrgetter("wl0_entries"))

    def workload_boxes(self) -> tuple[Coordinates, Coordinates] | None:
        """Each workload's own range (lower, upper), kept: GIR504's and GIR505's screens both read it."""
        return self._workload_boxes

    @cached_property
    def _workload_boxes(self) -> tuple[Coordinates, Coordinates] | None:
        boxes = self.field("workload")
        if any(len(b) != 2 for b in boxes):
            return None
        lower = quads([b[0] for b in boxes])
        upper = quads([b[1] for b in boxes])
        return None if lower is None or upper is None else (lower, upper)


_FIELDS = ("buffer", "ifmap", "ofmap", "weight", "tile_info", "workload", "workload_id", "ring_buffer_info")

_BUILT: weakref.WeakKeyDictionary[IRIndex, TensorColumns] = weakref.WeakKeyDictionary()


def tensor_columns(index: IRIndex) -> TensorColumns:
    """The tensor columns of `index`'s IR, kept as long as the index lives (each group built once)."""
    if index not in _BUILT:
        _BUILT[index] = TensorColumns(index)
    return _BUILT[index]


def release_tensor_columns(index: IRIndex) -> None:
    """Let go of the tensor columns of `index` (built again if asked for): for an index that outlives its
    check, as the dashboard's does, whose views read none of them (tens of MiB on a 64-core file)."""
    _BUILT.pop(index, None)


def flagged_rows(rows: Iterable[Ints]) -> list[int]:
    """The sorted distinct workload rows of several flag columns."""
    parts = [r for r in rows if len(r)]
    return distinct(np.concatenate(parts)).tolist() if parts else []


class _Only:
    """An index that walks only some workloads; every other lookup is the whole file's."""

    def __init__(self, index: IRIndex, rows: list[int]) -> None:
        self._index = index
        self._rows = rows

    def workloads(self) -> Iterable[WorkloadRef]:
        refs = self._index.rows
        return (refs[r] for r in self._rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


def only(index: IRIndex, rows: list[int]) -> IRIndex:
    """`index` with `workloads()` reduced to the given rows (sorted): a reference check that walks
    `workloads()` then checks just what a screen flagged, while the index's own lookups (producers,
    by_id, incomplete, buffersize) still see the whole file. A check that gathers whole-file facts
    by walking `workloads()` itself must be given them (see raw_checks' GIR204)."""
    return cast("IRIndex", _Only(index, rows))


def grouped_min_max(values: Coordinates, owner: Ints, count: int) -> tuple[Ints, Ints]:
    """Per owner 0..count-1: the column-wise min and max of its rows of `values` (n, 4), owner
    sorted ascending; owners without rows get (max int, min int)."""
    low = np.full((count, values.shape[1]), np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full((count, values.shape[1]), np.iinfo(np.int64).min, dtype=np.int64)
    if len(owner):
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        who = owner[starts]
        low[who] = np.minimum.reduceat(values, starts, axis=0)
        high[who] = np.maximum.reduceat(values, starts, axis=0)
    return low, high


def max_before(values: Ints, group: Ints, initial: int) -> Ints:
    """Per element, the largest of the earlier elements of its group, `initial` for a group's first:
    a running maximum restarted at each group, `group` sorted (equal values adjacent) and every value
    at least `initial`. Each group is lifted above the earlier ones (by its rank times the value span),
    so one accumulate never carries a maximum across groups; the caller keeps that product in int64."""
    if not len(values):
        return np.full(0, initial, dtype=np.int64)
    first = np.ones(len(group), dtype=bool)
    first[1:] = group[1:] != group[:-1]
    span = int(values.max()) - initial + 1
    # In place, one int64 copy beside the lift: millions of rows on a 64-core file (routed runs).
    lift = np.cumsum(first, dtype=np.int64)
    lift -= 1
    lift *= span
    lift -= initial
    running = values + lift
    np.maximum.accumulate(running, out=running)
    running -= lift
    del lift
    out = np.empty(len(values), dtype=np.int64)
    out[1:] = running[:-1]
    out[first] = initial
    return out
