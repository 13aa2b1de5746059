"""Which extension keys (GIR103 info) a decoded member wrote, read from its Structs.

A decoded Struct holds an extension key as an optional field that is `UNSET` unless the file wrote it
(irtools.loading.fast_types). So the keys a member wrote are found by visiting only the objects that can
hold one (a documented core: its workloads, their buffer entries and their tiles), a kind at a time with
C-level iteration, instead of looking for each key's name in the member's bytes: four scans of every
byte of a documented file (0.12 s of the 98 MB stand-in's validate under the profiler; the walk 0.03 s).
"""

from __future__ import annotations

import functools
import operator
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter
from typing import Any

import msgspec

from irtools.loading.fast_types import OPTIONAL_SUFFIX, extension_keys, is_model_class, struct_for
from irtools.model.base import is_extension


@dataclass(frozen=True)
class _Objects:
    """Objects of one model: its extension keys (JSON key, Struct field) and the fields leading on."""

    model: type
    keys: tuple[tuple[str, str], ...]
    fields: tuple[tuple[str, _Plan], ...]
    mixed: bool
    """Met in a union: the objects are told apart by their model first."""


@dataclass(frozen=True)
class _Items:
    """Lists (`values` False) or dicts (`values` True) whose items are visited by `plan`; None, UNSET and
    empty ones hold none."""

    plan: _Plan
    values: bool


@dataclass(frozen=True)
class _Either:
    """A union: every member's plan visits the objects (each takes its own kind)."""

    plans: tuple[_Plan, ...]


_Plan = _Objects | _Items | _Either


def written_extension_keys(annotation: Any, value: Any) -> tuple[str, ...]:
    """The extension keys of `annotation`'s models that the decoded `value` wrote, in `extension_keys`'
    order."""
    plan = _plan_of(annotation)
    if plan is None:
        return ()
    found: set[str] = set()
    _visit(plan, [value], found)
    return tuple(key for key in extension_keys(annotation) if key in found)


def _visit(plan: _Plan, objects: list[Any], found: set[str]) -> None:
    if not objects:
        return
    if isinstance(plan, _Either):
        for member in plan.plans:
            _visit(member, objects, found)
    elif isinstance(plan, _Items):
        held: Iterable[Any] = filter(None, objects)  # None, UNSET and empty containers hold nothing
        if plan.values:
            held = map(dict.values, held)
        _visit(plan.plan, list(chain.from_iterable(held)), found)
    else:
        if plan.mixed:
            objects = [o for o in objects if getattr(type(o), "__model__", None) is plan.model]
        for key, field in plan.keys:
            if key not in found and any(
                map(operator.is_not, map(attrgetter(field), objects), repeat(msgspec.UNSET))
            ):
                found.add(key)
        for field, inner in plan.fields:
            _visit(inner, list(map(attrgetter(field), objects)), found)


@functools.cache
def _plan_of(annotation: Any) -> _Plan | None:
    """How to reach every object of `annotation` that can hold an extension key; None: none can."""
    return _plan(annotation, mixed=False, path=())


def _plan(annotation: Any, mixed: bool, path: tuple[type, ...]) -> _Plan | None:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _plan(typing.get_args(annotation)[0], mixed, path)
    if origin is list or origin is dict:
        inner = _plan(typing.get_args(annotation)[-1], False, path)
        return None if inner is None else _Items(inner, values=origin is dict)
    if origin in (typing.Union, types.UnionType):
        members = typing.get_args(annotation)
        # A model among other members (None, another model) takes only its own objects.
        plans = tuple(p for m in members if (p := _plan(m, len(members) > 1, path)) is not None)
        return None if not plans else plans[0] if len(plans) == 1 else _Either(plans)
    if is_model_class(annotation) and annotation not in path:
        return _model_plan(annotation, mixed, (*path, annotation))
    return None


def _model_plan(model: type, mixed: bool, path: tuple[type, ...]) -> _Objects | None:
    struct_fields = set(struct_for(model).__struct_fields__)
    keys: list[tuple[str, str]] = []
    fields: list[tuple[str, _Plan]] = []
    for name, info in model.__pydantic_fields__.items():  # type: ignore[attr-defined]
        # The Struct's own field: `name`, or `name` + OPTIONAL_SUFFIX when it tells a key left out.
        held_as = name if name in struct_fields else name + OPTIONAL_SUFFIX
        if held_as not in struct_fields:
            continue  # filled after loading: no key of the file
        if is_extension(info):
            keys.append((info.alias or name, held_as))
        inner = _plan(info.annotation, False, path)
        if inner is not None:
            fields.append((held_as, inner))
    if not keys and not fields:
        return None
    return _Objects(model, tuple(keys), tuple(fields), mixed)
