"""The top model built without its validator (`_valid_top`) only where the model would take the file's top
level as it is, and then with the very values the model's validator gives."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from irtools.dialects import DIALECTS, Dialect
from irtools.loading.load import _valid_top
from irtools.model.base import CORES_FIELD, INT64_MAX
from irtools.reference import reference_core

NUMBERS = st.one_of(
    st.integers(-2, 3),
    st.sampled_from([INT64_MAX, INT64_MAX + 1, True, False, 2.0, "2", None, [2]]),
)
"""Top-level values around the bounds of a positive int64, and values of other types."""


def _top(dialect: Dialect, values: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    parts = dialect.parts
    dram = parts.dram_section.model_construct(in_=[], out=[])  # type: ignore[attr-defined]
    declared = parts.top.model_fields  # type: ignore[attr-defined]
    keyed = {declared[name].alias or name: value for name, value in values.items()}
    return {"-1": dram, **keyed, **extra}


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
@given(data=st.data())
def test_the_top_model_is_built_unchecked_only_where_the_model_takes_it(
    dialect: Dialect, data: st.DataObject
) -> None:
    names = dialect.parts.scalars
    values = {
        n: data.draw(NUMBERS, label=n) for n in data.draw(st.sets(st.sampled_from(names)), label="present")
    }
    extra = data.draw(st.sampled_from([{}, {"comment": "x"}, {CORES_FIELD: {}}]), label="extra")
    top = _top(dialect, values, extra)
    built = _valid_top(dialect.parts, top)
    try:
        checked = dialect.parts.top.model_validate(top)  # type: ignore[attr-defined]
    except ValidationError:
        checked = None
    if built is not None:
        assert checked is not None, "built unchecked a top level the model rejects"
        assert {n: getattr(built, n) for n in names} == {n: getattr(checked, n) for n in names}
        assert built.dram is checked.dram
    elif not extra and set(values) == set(names):
        # Every number present and no reserved key: declined only where the model rejects it too.
        assert checked is None


def test_the_reference_core_always_asks_the_model() -> None:
    dialect = DIALECTS[-1]
    top = _top(dialect, dict.fromkeys(dialect.parts.scalars, 2), {})
    assert _valid_top(dialect.parts, top) is not None
    with reference_core():
        assert _valid_top(dialect.parts, top) is None
