"""The one cycles range of the page (the `view` store): read it, set a figure to it, read a zoom into it.

The timeline, the occupancy maps, the measured lanes and the mesh view all follow it.
"""

from __future__ import annotations

from typing import Any

from dash import Patch


def view_window(view: Any, key: str | None) -> tuple[float, float] | None:
    """The view's cycles range, if it belongs to the file shown."""
    if not isinstance(view, dict) or view.get("file") != key or not view.get("x"):
        return None
    lo, hi = view["x"]
    return (float(lo), float(hi))


def range_patch(window: tuple[float, float] | None, axes: tuple[str, ...]) -> Patch:
    """The figure change that shows `window` (None: everything) on the given x axes."""
    patch = Patch()
    for axis in axes:
        if window is None:
            patch["layout"][axis]["autorange"] = True
        else:
            patch["layout"][axis]["range"] = list(window)
            patch["layout"][axis]["autorange"] = False
    return patch


def zoomed_window(relayout: dict[str, Any] | None) -> tuple[float, float] | None:
    """The x range a zoom or pan set (Plotly's relayoutData; xaxis2 in the maps' lower panel), or None."""
    data = relayout or {}
    for axis in ("xaxis", "xaxis2"):
        bounds = data.get(f"{axis}.range") or [data.get(f"{axis}.range[0]"), data.get(f"{axis}.range[1]")]
        try:
            lo, hi = float(bounds[0]), float(bounds[1])
        except (TypeError, ValueError, IndexError):
            continue
        return (lo, hi) if lo < hi else None
    return None


def was_reset(relayout: dict[str, Any] | None) -> bool:
    """Whether the user reset the x axis (Reset axes, Autoscale, or a double click)."""
    data = relayout or {}
    return bool(data.get("xaxis.autorange") or data.get("xaxis2.autorange"))
