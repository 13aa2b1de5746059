"""The models' fields are described by the docstrings under them as Pydantic's `use_attribute_docstrings`
describes them (irtools.model.docstrings reads them from one parse of each module, 30 ms less per process):
each pair of classes below is made both ways and must end with the same descriptions."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.dataclasses import dataclass

from irtools.model.base import IRModel, record
from irtools.model.docstrings import attribute_docstrings

PYDANTIC = ConfigDict(use_attribute_docstrings=True)


class OursModel(IRModel):
    """The class's own docstring is no field's."""

    a: int = 0
    """A's doc,
        indented on its second line."""
    b: int = 0
    c: int = Field(default=0, description="given")
    """not used: c has a description"""
    d: int = 0  # a comment, then
    _x = 1
    """after a plain assignment: no field's"""

    class Inner(BaseModel):
        e: int = 0
        """inner's, not the outer's"""


class TheirsModel(BaseModel):
    """The class's own docstring is no field's."""

    model_config = PYDANTIC
    a: int = 0
    """A's doc,
        indented on its second line."""
    b: int = 0
    c: int = Field(default=0, description="given")
    """not used: c has a description"""
    d: int = 0  # a comment, then
    _x = 1
    """after a plain assignment: no field's"""

    class Inner(BaseModel):
        e: int = 0
        """inner's, not the outer's"""


class OursChild(OursModel):
    b: int = 1
    """the child's b"""
    a: int = 2  # redefined without a docstring


class TheirsChild(TheirsModel):
    b: int = 1
    """the child's b"""
    a: int = 2  # redefined without a docstring


@record
class OursRecord:
    size: int = 0
    """bits"""
    name: str = ""


@dataclass(slots=True, kw_only=True, config=PYDANTIC)
class TheirsRecord:
    size: int = 0
    """bits"""
    name: str = ""


@record
class OursRecordChild(OursRecord):
    extra: int = 0
    """more"""


@dataclass(slots=True, kw_only=True, config=PYDANTIC)
class TheirsRecordChild(TheirsRecord):
    extra: int = 0
    """more"""


def _descriptions(cls: type) -> dict[str, str | None]:
    return {name: info.description for name, info in cls.__pydantic_fields__.items()}  # type: ignore[attr-defined]


def test_our_reading_of_the_docstrings_is_pydantics() -> None:
    pairs = [
        (OursModel, TheirsModel),
        (OursChild, TheirsChild),
        (OursRecord, TheirsRecord),
        (OursRecordChild, TheirsRecordChild),
    ]
    for ours, theirs in pairs:
        assert _descriptions(ours) == _descriptions(theirs), ours.__name__
    assert _descriptions(OursModel)["a"] == "A's doc,\nindented on its second line."
    assert _descriptions(OursChild)["b"] == "the child's b" and _descriptions(OursChild)["a"] is None
    # As Pydantic has it: a dataclass's inherited fields are made anew from the base's dataclass fields.
    assert _descriptions(OursRecordChild) == {"size": None, "name": None, "extra": "more"}
    assert _descriptions(OursRecord) == {"size": "bits", "name": None}


def test_classes_it_cannot_place_get_no_descriptions() -> None:
    def local() -> type:
        class Made(IRModel):
            a: int = 0
            """not read: a class made in a function"""

        return Made

    assert _descriptions(local()) == {"a": None}
    assert attribute_docstrings(int) == {}  # a class without Python source
