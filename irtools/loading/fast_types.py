"""msgspec Structs derived from the Pydantic models at import: the typed decoder's types (issue 28).

The models stay the single source of the types (the JSON Schema and the precise error path are
theirs); each Struct is made from a model's fields, so nothing here restates a field:

- names, aliases (as msgspec renames) and the required set;
- constraints (`ge`, `le`, list lengths, no inf/nan) as `msgspec.Meta`; any other validator on a field
  stops the derivation (a new one must be judged here: does it change the value?);
- `type: Literal["x"]` as the Struct's tag where the model is a member of a discriminated union;
- an optional field holds the model's default, and the encoder leaves it out while it holds it
  (`omit_defaults`: the key count of GIR102 compares what is left with the file's keys); one whose
  absence a finding names (a extension key, a key Gemini leaves out: GIR103/GIR104) or that files often
  write with the default value (the dialect's `written_with_default`) defaults to `UNSET` instead, so a key left out
  is told from one written, and is read through a property of the model's name giving the default;
- fields irtools fills after loading (`init=False`) under a name no file uses, holding the model's
  default (`NOT_DERIVED`, which raises on use, until the dialect's `finish` sets them);
- the model's properties, methods and class constants, so the index, the rules and the tables read a
  Struct as they read the model (irtools.model.view), and the model's repr (what a user or a test
  prints compares equal on both reads).

Two unions the models allow have no msgspec equivalent; they decode looser and the decoder checks the
rest (`LOOSE`): a list of `[t]` or `[[t]]` (a mix decodes here). A union of boxes of 4 or 3 numbers
is one list of 3 to 4 numbers, which is exact.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import sys
import types
import typing
from typing import Any

import annotated_types
import msgspec
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic.functional_validators import AfterValidator

from irtools.dialects import DIALECTS
from irtools.loading.sharing import PLANS, Sharing
from irtools.model.base import _intern, _share, is_extension

INTERNAL_PREFIX = "$irtools:"
"""JSON name of the fields irtools fills after loading: a file holding it is read by the models."""

OPTIONAL_SUFFIX = "_as_read"
"""Struct field name of an optional model field, read through a property of the model's name."""

_VALUE_KEEPING = {_intern, _share}
"""AfterValidators that keep the value (they share equal values): safe to leave out of the Structs."""

_FLOAT_MAX = sys.float_info.max

LOOSE: set[tuple[str, str]] = set()
"""(model name, field name) of the fields decoded looser than the model: `[t]` or `[[t]]` lists."""


class DerivationError(TypeError):
    """A model uses a type or validator the derivation does not know how to carry exactly."""


def _constraints(metadata: list[Any], where: str) -> dict[str, Any]:
    """msgspec.Meta arguments from pydantic/annotated_types metadata."""
    meta: dict[str, Any] = {}
    for item in metadata:
        if isinstance(item, FieldInfo):
            meta.update(_constraints(item.metadata, where))
        elif isinstance(item, annotated_types.Ge):
            meta["ge"] = item.ge
        elif isinstance(item, annotated_types.Le):
            meta["le"] = item.le
        elif isinstance(item, annotated_types.Gt):
            meta["gt"] = item.gt
        elif isinstance(item, annotated_types.Lt):
            meta["lt"] = item.lt
        elif isinstance(item, annotated_types.MinLen):
            meta["min_length"] = item.min_length
        elif isinstance(item, annotated_types.MaxLen):
            meta["max_length"] = item.max_length
        elif type(item).__name__ == "AllowInfNan" and not item.allow_inf_nan:
            meta["le"] = min(meta.get("le", _FLOAT_MAX), _FLOAT_MAX)
            meta.setdefault("ge", -_FLOAT_MAX)
        elif type(item).__name__ == "SkipJsonSchema":
            pass  # the schema's business, not the value's
        elif type(item).__name__ == "Strict" and item.strict:
            pass  # msgspec's decode is strict: no bool for an int, no number in a string
        elif isinstance(item, AfterValidator) and item.func in _VALUE_KEEPING:
            pass
        else:
            raise DerivationError(f"{where}: {item!r} has no msgspec equivalent")
    return meta


def _with(kind: Any, meta: dict[str, Any]) -> Any:
    if not meta:
        return kind
    if "ge" in meta and meta.get("ge") == -_FLOAT_MAX and kind is not float:
        meta = {k: v for k, v in meta.items() if k != "ge"}
    return typing.Annotated[kind, msgspec.Meta(**meta)]


def _list_bounds(kind: Any) -> tuple[Any, int, int | None] | None:
    """(item type, min length, max length) of a derived list type, None if not a list."""
    meta: dict[str, Any] = {}
    if typing.get_origin(kind) is typing.Annotated:
        kind, *extra = typing.get_args(kind)
        for m in extra:
            meta.update({k: getattr(m, k) for k in ("min_length", "max_length") if getattr(m, k) is not None})
    if typing.get_origin(kind) is not list:
        return None
    return typing.get_args(kind)[0], meta.get("min_length", 0), meta.get("max_length")


def derive(annotation: Any, where: str, metadata: list[Any] | None = None) -> Any:
    """The msgspec type of a pydantic annotation, with its constraints."""
    meta = _constraints(metadata or [], where)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        return derive(inner, where, [*extra, *(metadata or [])])
    if origin is typing.Literal or annotation in (int, str, bool, float, type(None)):
        return _with(annotation, meta)
    if origin is list:
        return _with(list[derive(typing.get_args(annotation)[0], where)], meta)  # type: ignore[misc]
    if origin is dict:
        key, value = typing.get_args(annotation)
        return _with(dict[derive(key, where), derive(value, where)], meta)  # type: ignore[misc]
    if origin in (typing.Union, types.UnionType):
        return _with(_union(typing.get_args(annotation), where), meta)
    if is_model_class(annotation):
        return struct_for(annotation)
    raise DerivationError(f"{where}: no msgspec type for {annotation!r}")


def _union(members: tuple[Any, ...], where: str) -> Any:
    derived: list[Any] = []
    for arg in members:
        if isinstance(arg, type) and hasattr(arg, "__pydantic_fields__"):
            derived.append(struct_for(arg, tagged=len(members) > 1))
        else:
            derived.append(derive(arg, where))
    as_lists: list[tuple[Any, int, int | None]] = []
    others: list[Any] = []
    for kind in derived:
        shape = _list_bounds(kind)
        if shape is None:
            others.append(kind)
        else:
            as_lists.append(shape)
    if len(as_lists) == 1:
        others.append(derived[[_list_bounds(d) is not None for d in derived].index(True)])
    elif as_lists:  # msgspec takes one array type per union
        items = {repr(item) for item, _, _ in as_lists}
        spans = sorted((low, high) for _, low, high in as_lists)
        contiguous = all(
            high is not None and next_low <= high + 1
            for (_, high), (next_low, _) in itertools.pairwise(spans)
        )
        merged: Any
        if len(items) == 1 and contiguous:  # boxes of 4 or 3 numbers: one list of 3 to 4, exact
            highs = [high for _, _, high in as_lists]
            lengths: dict[str, Any] = {"min_length": spans[0][0]}
            if None not in highs:
                lengths["max_length"] = max(h for h in highs if h is not None)
            item = as_lists[0][0]
            merged = typing.Annotated[list[item], msgspec.Meta(**lengths)]  # type: ignore[valid-type]
        else:  # `[t]` or `[[t]]`: a list of `t | [t]`, looser; the decoder checks each list is one form
            model, _, name = where.partition(".")
            LOOSE.add((model, name))
            merged = list[typing.Union[tuple(item for item, _, _ in as_lists)]]  # type: ignore[misc]  # noqa: UP007
        others.append(merged)
    return typing.Union[tuple(others)] if len(others) > 1 else others[0]  # noqa: UP007


def _model_namespace(model: type) -> dict[str, Any]:
    """The model's properties, methods and class constants (not its fields, validators or pydantic's)."""
    fields = model.__pydantic_fields__  # type: ignore[attr-defined]
    found: dict[str, Any] = {}
    for cls in model.__mro__:
        if cls is object or cls.__module__.startswith("pydantic") or cls is BaseModel:
            continue
        for name, value in vars(cls).items():
            if name.startswith(("_", "model_")) or name in fields or name in found:
                continue
            found[name] = value
    return found


def _presence_needed(model: type, name: str, info: FieldInfo) -> bool:
    """Whether the Struct must tell a key the file left out from one written with the default value: an
    extension key (GIR103 notes where it is written), a key the writer may leave out (GIR104 counts where:
    a dialect's `PartModels.omitted`), or one often written with its default (its `written_with_default`).
    The others hold the model's default directly (read at the speed of a slot), and the encoder leaves
    them out when they hold it."""
    if is_extension(info):
        return True
    key = info.alias or name
    omitted = {kind_key for d in DIALECTS for kind_key in d.parts.omitted}
    written = {kind_key for d in DIALECTS for kind_key in d.parts.written_with_default}
    return any((cls.__name__, key) in omitted or (cls.__name__, name) in written for cls in model.__mro__)


def _optional_property(name: str, info: FieldInfo) -> property:
    default_factory = info.default_factory
    default = info.default

    if default_factory is not None:

        def read(self: Any) -> Any:
            value = getattr(self, name)
            return default_factory() if value is msgspec.UNSET else value  # type: ignore[call-arg]
    else:

        def read(self: Any) -> Any:
            value = getattr(self, name)
            return default if value is msgspec.UNSET else value

    def write(self: Any, value: Any) -> None:
        setattr(self, name, value)

    return property(read, write, doc=info.description)


def _repr_fields(model: type) -> tuple[str, ...]:
    if dataclasses.is_dataclass(model):
        return tuple(f.name for f in dataclasses.fields(model) if f.repr)
    return tuple(name for name, info in model.__pydantic_fields__.items() if info.repr)  # type: ignore[attr-defined]


def _make_repr(model: type) -> Any:
    """The model's repr, field by field, compiled as dataclasses compile theirs (the allocator's tensor
    numbering compares the reprs of every entry's sources: a generic loop doubled that step)."""
    parts = ", ".join(f"{name}={{self.{name}!r}}" for name in _repr_fields(model))
    namespace: dict[str, Any] = {}
    exec(f'def __repr__(self):\n    return f"{model.__name__}({parts})"', namespace)  # noqa: S102
    return namespace["__repr__"]


@functools.cache
def struct_for(
    model: type, tagged: bool = False, skimmed: frozenset[str] = frozenset()
) -> type[msgspec.Struct]:
    """The Struct of `model`; `tagged`: its single-valued `type` is the tag of a union; the fields
    `skimmed` hold their JSON as written (msgspec.Raw, unchecked: `skimming_decoder`)."""
    fields: dict[str, FieldInfo] = model.__pydantic_fields__  # type: ignore[attr-defined]
    specs: list[Any] = []
    rename: dict[str, str] = {}
    namespace = _model_namespace(model)
    plan = Sharing()
    tag: str | None = None
    for name, info in fields.items():
        where = f"{model.__name__}.{name}"
        key = info.alias or name
        if key.startswith("$"):
            continue  # the top models' gathered cores: not a key of the file
        literal = (
            typing.get_args(info.annotation) if typing.get_origin(info.annotation) is typing.Literal else ()
        )
        if tagged and name == "type" and len(literal) == 1 and isinstance(literal[0], str):
            tag = literal[0]
            namespace["type"] = tag
            continue
        kind = msgspec.Raw if name in skimmed else derive(info.annotation, where, list(info.metadata))
        default: Any = (
            msgspec.field(default_factory=info.default_factory)  # type: ignore[arg-type]  # no-argument ones only
            if info.default_factory is not None
            else info.default
        )
        held_as = name  # the Struct's field
        if info.is_required() and info.init is not False:
            specs.append((name, kind))
            if key != name:
                rename[name] = key
        elif info.init is not False and _presence_needed(model, name, info):
            held_as = f"{name}{OPTIONAL_SUFFIX}"
            if held_as in fields:
                raise DerivationError(f"{where}: {held_as} is a field of the model")
            specs.append((held_as, kind | msgspec.UnsetType, msgspec.UNSET))
            rename[held_as] = key
            namespace[name] = _optional_property(held_as, info)
        else:  # the model's default, left out when encoding (omit_defaults): the key count tells
            specs.append((name, kind, default))
            rename[name] = INTERNAL_PREFIX + name if info.init is False else key
        if name not in skimmed:
            _plan(plan, held_as, info)
    namespace["__model__"] = model
    namespace["__repr__"] = _make_repr(model)
    namespace["__doc__"] = model.__doc__
    options: dict[str, Any] = {"tag_field": "type", "tag": tag} if tag is not None else {}
    struct = msgspec.defstruct(
        model.__name__,
        specs,
        rename=rename,
        kw_only=True,
        forbid_unknown_fields=True,
        omit_defaults=True,
        gc=False,  # acyclic: millions of objects the collector need not track
        namespace=namespace,
        module=__name__,
        **options,
    )
    PLANS[struct] = plan
    return struct


def _plan(plan: Sharing, held_as: str, info: FieldInfo) -> None:
    """Note the field `held_as` in `plan` if its model shares its value or it holds other models."""
    keeping = _value_keeping(info.annotation, list(info.metadata))
    if _share in keeping:
        plan.coordinates.append(held_as)
    if _intern in keeping:
        plan.strings.append(held_as)
    if _holds_models(info.annotation):
        plan.nested.append(held_as)


def _value_keeping(annotation: Any, metadata: list[Any]) -> set[Any]:
    """The value-keeping validators (`_VALUE_KEEPING`) on a field's own value: in its metadata, its
    Annotated layers and its union's members, not inside its lists or models."""
    found: set[Any] = set()
    for item in metadata:
        if isinstance(item, FieldInfo):
            found |= _value_keeping(None, list(item.metadata))
        elif isinstance(item, AfterValidator) and item.func in _VALUE_KEEPING:
            found.add(item.func)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        found |= _value_keeping(inner, extra)
    elif origin in (typing.Union, types.UnionType):
        for member in typing.get_args(annotation):
            found |= _value_keeping(member, [])
    return found


def _holds_models(annotation: Any) -> bool:
    return is_model_class(annotation) or any(_holds_models(arg) for arg in typing.get_args(annotation))


def is_model_class(annotation: Any) -> bool:
    """Whether the annotation is a model class (a BaseModel or a pydantic dataclass)."""
    return isinstance(annotation, type) and hasattr(annotation, "__pydantic_fields__")


def was_written(struct: Any, name: str) -> bool:
    """Whether the file wrote the optional field `name` of a decoded Struct (not UNSET)."""
    return getattr(struct, name + OPTIONAL_SUFFIX, msgspec.UNSET) is not msgspec.UNSET


def model_of(value: Any) -> type | None:
    """The model a decoded Struct stands for (None for anything else)."""
    return getattr(type(value), "__model__", None)


def is_model(value: Any, model: type) -> bool:
    """`isinstance(value, model)`, true also for the Struct derived from `model` or a subclass of it."""
    if isinstance(value, model):
        return True
    derived_from = model_of(value)
    return derived_from is not None and issubclass(derived_from, model)


def decoder_for(annotation: Any) -> msgspec.json.Decoder[Any]:
    """A JSON decoder of `annotation` (models become their Structs)."""
    return _decoder(annotation)


@functools.cache
def _decoder(annotation: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(derive(annotation, repr(annotation)))


@functools.cache
def skimming_decoder(workload: type, skimmed: frozenset[str]) -> msgspec.json.Decoder[Any] | None:
    """A decoder of a core (a list of `workload`) whose workloads' fields `skimmed` keep the JSON as
    written, neither checked nor made into objects: for a core whose checks run elsewhere
    (irtools.forked_cores), of which this process keeps only the other fields. None when `workload` is
    no model (a union: no such core is skimmed)."""
    if not is_model_class(workload):
        return None
    return msgspec.json.Decoder(list[struct_for(workload, skimmed=skimmed)])  # type: ignore[misc]


@functools.cache
def skimmed_nullable(workload: type, skimmed: frozenset[str]) -> tuple[str, ...]:
    """The Struct fields of `skimming_decoder`'s workloads that may hold null: what a skimmed `null` is to
    become (None), as the full decode makes it (a dropped field keeps a None: irtools.loading.dropping)."""
    fields = workload.__pydantic_fields__  # type: ignore[attr-defined]
    struct = struct_for(workload, skimmed=skimmed)
    return tuple(
        held_as
        for name in skimmed
        if name in fields and _allows_none(fields[name].annotation)
        for held_as in (name, name + OPTIONAL_SUFFIX)
        if held_as in struct.__struct_fields__
    )


def _allows_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None):
        return True
    if typing.get_origin(annotation) is typing.Annotated:
        return _allows_none(typing.get_args(annotation)[0])
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and any(
        _allows_none(arg) for arg in typing.get_args(annotation)
    )


@functools.cache
def extension_keys(annotation: Any) -> tuple[str, ...]:
    """The keys marked as extension keys (GIR103 info) in every model `annotation` reaches."""
    found: dict[str, None] = {}
    _extension_keys(annotation, found, set())
    return tuple(found)


def _extension_keys(annotation: Any, found: dict[str, None], seen: set[type]) -> None:

    if is_model_class(annotation):
        if annotation in seen:
            return
        seen.add(annotation)
        for name, info in annotation.__pydantic_fields__.items():
            if is_extension(info):
                found[info.alias or name] = None
            _extension_keys(info.annotation, found, seen)
        return
    for arg in typing.get_args(annotation):
        _extension_keys(arg, found, seen)
