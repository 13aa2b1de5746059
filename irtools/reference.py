"""The reference core: the object-by-object path kept beside each fast path, to prove they agree.

Every fast path (the JSON reader, the rules' screens, the analysis tables) keeps the code it replaced
as its reference. `IRTOOLS_CORE=reference irtools validate FILE` runs the reference everywhere;
tests/equivalence compares the `--format json` reports of both, byte for byte, on every sample, every
real fixture and a fuzz corpus. A fast path may change no finding: not its text, pointer, order or count.

The switch is a `ContextVar`: `reference_core()` holds in its own thread or task only, so a dashboard
request or a test running beside another sees the core it asked for. The rule registry
(irtools.rules.registry) is its reader for the rules: a rule file declares its screen and never asks.
It lives here, below every package, because the readers' fast paths (irtools.loading,
irtools.dialects) consult it too and the rules build on them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import ParamSpec, TypeVar

ENV = "IRTOOLS_CORE"
"""Set to "reference" to run the reference path (for tests, benchmarks and bug reports)."""

FORCED: ContextVar[bool | None] = ContextVar("irtools_reference_core", default=None)
"""The core `reference_core()` chose in this context (True: reference), or None: the environment decides."""

P = ParamSpec("P")
R = TypeVar("R")


def active() -> bool:
    """Whether the reference path runs (`reference_core()` in this context, else the environment)."""
    forced = FORCED.get()
    return os.environ.get(ENV, "").strip().lower() == "reference" if forced is None else forced


@contextmanager
def reference_core(on: bool = True) -> Iterator[None]:
    """Run the reference path (or, with on=False, the fast path) inside the block."""
    token = FORCED.set(on)
    try:
        yield
    finally:
        FORCED.reset(token)


def fast_path(reference: Callable[P, R]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a fast implementation: `reference` (same signature and results) runs instead when
    the reference core is active. The decorated function keeps its own name and docstring."""

    def decorate(fast: Callable[P, R]) -> Callable[P, R]:
        @wraps(fast)
        def choose(*args: P.args, **kwargs: P.kwargs) -> R:
            return (reference if active() else fast)(*args, **kwargs)

        return choose

    return decorate
