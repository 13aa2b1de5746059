"""Shared model configuration and value types for the Scheduler IR."""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, TypeVar, cast, dataclass_transform

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict
from pydantic.dataclasses import dataclass as pydantic_dataclass

from irtools.model.docstrings import describe_fields

_T = TypeVar("_T")

INT64_MAX = 2**63 - 1
"""Largest integer the IR may hold: the assembler reads every number as a signed 64-bit integer."""

_shared: dict[tuple[int, ...], list[int]] = {}


def _share(values: list[int]) -> list[int]:
    # Nothing mutates a model's coordinates, so equal ones can be one list.
    return _shared.setdefault(tuple(values), values)


def shared_coordinates(values: list[list[int]]) -> list[list[int]]:
    """Each coordinate list replaced by the first equal one met (`_share` in bulk, for the typed decoder's
    Structs, which no validator reaches)."""
    return list(map(_shared.setdefault, map(tuple, values), values))


@contextmanager
def sharing_values() -> Iterator[None]:
    """Share equal coordinates and strings between the models validated inside.

    A buffer entry and its source hold four coordinates and two layer names, mostly repeated
    across the file: one object each cut the models of a 100 MB IR by about a third.
    """
    try:
        yield
    finally:
        _shared.clear()


def _intern(text: str) -> str:
    return sys.intern(text) if type(text) is str else text


NonNegInt = Annotated[int, Strict(), Field(ge=0, le=INT64_MAX)]
"""Sizes, addresses, ids and coordinates: never negative, never beyond int64."""

PositiveInt = Annotated[int, Strict(), Field(ge=1, le=INT64_MAX)]

# Strict per field, not per class: a strict pydantic dataclass accepts only instances of itself,
# never the dicts json.loads gives (see RECORD).
StrictStr = Annotated[str, Strict(), AfterValidator(_intern)]
StrictBool = Annotated[bool, Strict()]
StrictFloat = Annotated[float, Strict()]

Coord4 = Annotated[list[NonNegInt], Field(min_length=4, max_length=4), AfterValidator(_share)]
"""A 4-D coordinate [N, C, H, W] (ifmap), [N, K, H, W] (ofmap) or [K, C, R, S] (weight)."""

Padding4 = Annotated[list[NonNegInt], Field(min_length=4, max_length=4), AfterValidator(_share)]
"""Padding [top, bottom, left, right]."""

TransferIds = list[NonNegInt]

CORE_KEY = re.compile(r"^(0|[1-9][0-9]{0,8})$")
"""A core's top-level key: a decimal number ("0".."N-1", or Gemini's mesh ids); "-1" is the DRAM section."""

CORES_FIELD = "$cores"
"""The field the top models gather the core keys into (in the file they are top-level keys)."""

EXTENSION = "x-gemini-extension"
"""Schema annotation on keys that real Gemini files use but the format document does not describe."""


def extension(note: str, **kwargs: Any) -> Any:
    """A field for a key real files use but the format document does not mention."""
    return Field(default=None, json_schema_extra={EXTENSION: note}, **kwargs)


def is_extension(info: Any) -> bool:
    """Whether the Pydantic field `info` was made by `extension`."""
    extra = info.json_schema_extra
    return isinstance(extra, dict) and EXTENSION in extra


class IRModel(BaseModel):
    """Base of the IR's few container models: strict types; unknown keys are found by GIR103 in the raw file."""

    model_config = ConfigDict(
        strict=True,
        extra="ignore",
        use_attribute_docstrings=False,  # describe_fields reads them, cheaper (irtools.model.docstrings)
        validate_by_alias=True,
        validate_by_name=False,
        json_schema_extra={"additionalProperties": True},
        defer_build=True,  # see RECORD
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        describe_fields(cls)


RECORD = ConfigDict(
    extra="ignore",
    use_attribute_docstrings=False,  # `record` describes the fields (irtools.model.docstrings)
    validate_by_alias=True,
    validate_by_name=False,
    json_schema_extra={"additionalProperties": True},
    # The msgspec decoder reads the bytes; the models are the precise error path and the schema's
    # source, so their validators are built when first used, not at every import (net about 0.07-0.1 s
    # per process: docs/speed.md).
    defer_build=True,
)
"""Config of the IR's records (`@record`: `@dataclass(slots=True, kw_only=True, config=RECORD)`).

Buffer entries, tensors, sources and destinations are most of a file. As BaseModels (a __dict__
and a fields-set per object) a 100 MB IR took about 8x its size in memory; as slotted Pydantic
dataclasses about 2x. The classes cannot be strict (a strict Pydantic dataclass accepts only its
own instances, never the dicts json.loads gives), so each field type is strict (NonNegInt,
StrictStr, StrictBool). Unknown keys are not kept: GIR103 reports them from the raw file.
"""


@dataclass_transform(kw_only_default=True, field_specifiers=(dataclasses.field, Field))
def record(cls: type[_T]) -> type[_T]:
    """An IR record: a slotted, keyword-only Pydantic dataclass of config RECORD, its fields described by
    the docstrings under them."""
    made = pydantic_dataclass(slots=True, kw_only=True, config=RECORD)(cls)
    describe_fields(made)
    return cast("type[_T]", made)


class NotDerivedError(RuntimeError):
    """A fact the loader derives after construction was used before the loader derived it."""


# A dataclass without fields, only so that msgspec's introspection (the JSON schema of a Struct whose field
# defaults to it, tests/loading/test_fast_types.py) can render it, as {}.
@dataclasses.dataclass(eq=False, repr=False, slots=True)
class NotDerived:
    """What a derived fact holds until the loader's dialect `finish` sets it: a tensor's number
    (alloc), the layer of a DRAM writer (raw). Not -1 or "", which pass for real values: every use
    of this one (compare, hash, truth, int, str, format) raises NotDerivedError, and its repr says so.

    Why a value, not an unset slot or a side table: the typed decoder's msgspec Structs
    (irtools.loading.fast_types) cannot leave a field unset, and they fill this default at C speed while
    decoding millions of entries; after `finish` the fact is a plain slot read as `entry.tensor_id` /
    `entry.layer_name`, the one spelling the view protocols (irtools.model.view) give every dialect,
    where a side table would make every rule, column and table ask the index for it instead.
    """

    def __repr__(self) -> str:
        return "<not derived yet>"

    def _refuse(self, *args: object) -> Any:
        raise NotDerivedError(
            "a fact the loader derives (an alloc tensor_id, a raw DRAM writer's layer_name) was used before it"
        )

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __hash__ = __bool__ = __int__ = __index__ = __str__ = __format__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __neg__ = _refuse

    def __reduce__(self) -> str:
        return "NOT_DERIVED"  # pickles and copies stay the one value


NOT_DERIVED: Any = NotDerived()
"""The one NotDerived value: the default of every field the loader fills after construction (typed Any, so a
field of any type can default to it)."""
