"""Callbacks as plain functions: what fired one, as data, and the wiring that passes it in.

Every dashboard callback is a module-level function `f(store, trigger, *inputs)` over pure
view-model functions; `wire` registers it with Dash and hands it the FileStore and a `Trigger`
read from Dash's context, so tests call the same function with a Trigger they build.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dash import Dash, ctx

from irtools.loading.dropping import FieldDropped


@dataclass(frozen=True, slots=True)
class Trigger:
    """What fired a callback (Dash's `ctx`, as data): the component id, the props and the first value."""

    id: Any = None
    props: tuple[str, ...] = ()
    value: Any = None

    @property
    def only_view(self) -> bool:
        """Whether only the page's cycles range (the `view` store) changed."""
        return self.props == ("view.data",)


def current_trigger() -> Trigger:
    """The Trigger of the callback Dash is running now."""
    triggered = ctx.triggered
    first = triggered[0]["value"] if triggered else None
    return Trigger(ctx.triggered_id, tuple(t["prop_id"] for t in triggered), first)


def wire(app: Dash, function: Callable[..., Any], bound: Any, *dependencies: Any, **options: Any) -> None:
    """Register `function(bound, trigger, *inputs)` as the callback of `dependencies` (Outputs, Inputs, States)."""

    def call(*inputs: Any) -> Any:
        try:
            return function(bound, current_trigger(), *inputs)
        except FieldDropped:
            # A view read what the store dropped as it read the file (no view should): the store reads
            # such files again whole, and the view is drawn from them.
            read_whole = getattr(bound, "read_whole", None)
            if read_whole is None:
                raise
            read_whole()
            return function(bound, current_trigger(), *inputs)

    call.__name__ = function.__name__
    call.__qualname__ = function.__qualname__
    app.callback(*dependencies, **options)(call)
