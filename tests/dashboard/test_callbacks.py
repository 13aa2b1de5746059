"""Callback helpers that read what the browser sends."""

from __future__ import annotations

from typing import Any

import pytest

from dashboards import callbacks


@pytest.mark.parametrize(
    ("relayout", "window"),
    [
        ({"xaxis.range[0]": 10, "xaxis.range[1]": 20.5}, (10.0, 20.5)),  # a drag-zoom
        ({"xaxis.range": [5, 7]}, (5.0, 7.0)),  # a pan or a zoom button
        ({"xaxis.autorange": True}, None),  # reset
        ({"autosize": True}, None),  # Plotly after drawing
        ({"xaxis.range[0]": 3, "xaxis.range[1]": 3}, None),
        (None, None),
    ],
)
def test_the_timeline_window_comes_from_plotly_relayout_data(relayout: Any, window: Any) -> None:
    assert callbacks._window(relayout) == window
