"""Fixtures of the dashboard tests that call callbacks as functions."""

from __future__ import annotations

import pytest

from dashboards import data


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """No browser draws the timeline and maps that the mesh, counters and link heat wait for
    (`Entry.after_view`): those callbacks, called as functions, would wait FIRST_VIEW_WAIT each."""
    monkeypatch.setattr(data, "FIRST_VIEW_WAIT", 0.0)
