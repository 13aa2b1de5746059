"""The usage errors of --select and --ignore, whole: the CLI prints them as the one line a user reads."""

from __future__ import annotations

import pytest

from irtools.rules.registry import UsageError, resolve_selection


@pytest.mark.parametrize(
    ("select", "ignore", "message"),
    [
        (["GIR999"], None, "--select: unknown rule code or prefix 'GIR999' (see `irtools rules`)"),
        (None, ["E501"], "--ignore: unknown rule code or prefix 'E501' (see `irtools rules`)"),
    ],
)
def test_an_unknown_selector_is_named_with_its_flag(
    select: list[str] | None, ignore: list[str] | None, message: str
) -> None:
    with pytest.raises(UsageError) as info:
        resolve_selection(select, ignore)
    assert str(info.value) == message
