"""The models' fields are described by the docstrings under them as Pydantic's `use_attribute_docstrings`
describes them (irtools.model.docstrings reads them from one parse of each module, 30 ms less per process).
Pydantic's own reader is the oracle: on every model class of irtools and on the odd cases below. (Every
dialect's schema, which shows every description, is held to the committed one by test_schema_sync.py.)"""

from __future__ import annotations

import pkgutil
from importlib import import_module

from pydantic import BaseModel, Field
from pydantic._internal._docs_extraction import extract_docstrings_from_cls

import irtools.dialects
from irtools.model.base import IRModel, record
from irtools.model.docstrings import attribute_docstrings


class Odd(IRModel):
    """The class's own docstring is no field's."""

    a: int = 0
    """A's doc,
        indented on its second line."""
    b: int = 0
    c: int = Field(default=0, description="given")
    """a docstring, though c has a description"""
    d: int = 0  # a comment, then
    _x = 1
    """after a plain assignment: no field's"""

    class Inner(BaseModel):
        e: int = 0
        """inner's, not the outer's"""


class OddChild(Odd):
    b: int = 1
    """the child's b"""
    a: int = 2  # redefined without a docstring


@record
class OddRecord:
    size: int = 0
    """bits"""
    name: str = ""


@record
class OddRecordChild(OddRecord):
    extra: int = 0
    """more"""


def _descriptions(cls: type) -> dict[str, str | None]:
    return {name: info.description for name, info in cls.__pydantic_fields__.items()}  # type: ignore[attr-defined]


def _model_classes() -> list[type]:
    found = []
    for module in pkgutil.walk_packages(irtools.dialects.__path__, "irtools.dialects."):
        for value in vars(import_module(module.name)).values():
            if isinstance(value, type) and "__pydantic_fields__" in value.__dict__ and value not in found:
                found.append(value)
    return found


def test_every_model_class_reads_as_pydantic_reads_it() -> None:
    classes = [*_model_classes(), Odd, Odd.Inner, OddChild, OddRecord, OddRecordChild]
    assert len(classes) > 30
    for cls in classes:
        assert attribute_docstrings(cls) == extract_docstrings_from_cls(cls, use_inspect=True), (
            cls.__qualname__
        )


def test_only_fields_without_a_description_take_theirs() -> None:
    assert _descriptions(Odd) == {
        "a": "A's doc,\nindented on its second line.",
        "b": None,
        "c": "given",
        "d": None,
    }
    assert _descriptions(OddChild)["b"] == "the child's b" and _descriptions(OddChild)["a"] is None
    # As Pydantic has it: a dataclass's inherited fields are made anew from the base's dataclass fields.
    assert _descriptions(OddRecordChild) == {"size": None, "name": None, "extra": "more"}
    assert _descriptions(OddRecord) == {"size": "bits", "name": None}


def test_classes_it_cannot_place_get_no_descriptions() -> None:
    def local() -> type:
        class Made(IRModel):
            a: int = 0
            """not read: a class made in a function"""

        return Made

    assert _descriptions(local()) == {"a": None}
    assert attribute_docstrings(int) == {}  # a class without Python source
