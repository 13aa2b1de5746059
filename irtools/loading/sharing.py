"""Equal coordinates as one list and equal strings as one string in the typed decoder's Structs.

The models share them as they validate (`model.base._share`, `_intern`: a third less memory on a
100 MB file). msgspec calls no validator per value, so the Structs of a Gemini file held 0.9 million
coordinate lists for 0.14 million distinct ones, and 0.8 million layer names for 147: a third of the
loaded file. `share_values` does it after each member is decoded, a kind of Struct and a
field at a time over all of its objects, in C loops; which fields, the derivation of each Struct from
its model records (`PLANS`, filled by irtools.loading.fast_types).
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import operator
import sys
from collections.abc import Callable
from typing import Any

import msgspec

from irtools.model.base import shared_coordinates


@dataclasses.dataclass
class Sharing:
    """A Struct's fields the models' validators share (`_share`: coordinates; `_intern`: strings), and
    those that hold other Structs."""

    coordinates: list[str] = dataclasses.field(default_factory=list)
    strings: list[str] = dataclasses.field(default_factory=list)
    nested: list[str] = dataclasses.field(default_factory=list)


PLANS: dict[type, Sharing] = {}
"""Each Struct's plan, recorded as irtools.loading.fast_types derives it from its model."""


def share_values(value: Any) -> None:
    """Make equal coordinates one list and equal strings one string across the Structs in `value` (a
    Struct or a list of them), as the models' validators make them (inside `sharing_values`)."""
    pending: list[list[Any]] = [value if isinstance(value, list) else [value]]
    while pending:
        objects = pending.pop()
        kinds = set(map(type, objects))
        for kind in kinds:
            plan = PLANS.get(kind)
            if plan is None:
                continue
            group = objects if len(kinds) == 1 else [o for o in objects if type(o) is kind]
            for name in plan.coordinates:
                _replace(group, name, list, shared_coordinates)
            for name in plan.strings:
                _replace(group, name, str, _interned)
            for name in plan.nested:
                pending.append(_children(list(map(operator.attrgetter(name), group))))


def _replace(objects: list[Any], name: str, kind: type, replaced: Callable[[list[Any]], list[Any]]) -> None:
    """Set the attribute `name` of each object whose value is a `kind` to `replaced` of those values; the
    others (an int for a raw channel bound, None, UNSET) are left as they are."""
    values = list(map(operator.attrgetter(name), objects))
    held = list(map(operator.is_, map(type, values), itertools.repeat(kind)))
    if not all(held):
        objects, values = list(itertools.compress(objects, held)), list(itertools.compress(values, held))
    collections.deque(map(setattr, objects, itertools.repeat(name), replaced(values)), maxlen=0)


def _interned(values: list[str]) -> list[str]:
    return list(map(sys.intern, values))


def _children(values: list[Any]) -> list[Any]:
    """The Structs among `values` (lists of Structs, dicts of them, Structs, None or UNSET), lists and
    dicts flattened."""
    if set(map(type, values)) == {list}:
        return list(itertools.chain.from_iterable(values))
    found: list[Any] = []
    for value in values:
        if type(value) is list:
            found.extend(value)
        elif type(value) is dict:
            found.extend(value.values())
        elif isinstance(value, msgspec.Struct):
            found.append(value)
    return found
