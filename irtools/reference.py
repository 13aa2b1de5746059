"""The reference core: the object-by-object path kept beside each fast path, to prove they agree.

Every fast path (the JSON reader, the columnar rules) keeps the code it replaced as its reference.
`IRTOOLS_CORE=reference irtools validate FILE` runs the reference everywhere; tests/equivalence
compares the `--format json` reports of both, byte for byte, on every sample, every real fixture
and a fuzz corpus. A fast path may change no finding: not its text, pointer, order or count.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec, TypeVar

ENV = "IRTOOLS_CORE"
"""Set to "reference" to run the reference path (for tests, benchmarks and bug reports)."""

_forced: list[bool] = []

P = ParamSpec("P")
R = TypeVar("R")


def active() -> bool:
    """Whether the reference path runs (the environment, or `reference_core()` in this thread)."""
    return _forced[-1] if _forced else os.environ.get(ENV, "").strip().lower() == "reference"


@contextmanager
def reference_core(on: bool = True) -> Iterator[None]:
    """Run the reference path (or, with on=False, the fast path) inside the block."""
    _forced.append(on)
    try:
        yield
    finally:
        _forced.pop()


def fast_path(reference: Callable[P, R]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a fast implementation: `reference` (same signature and results) runs instead when
    the reference core is active. The decorated function keeps its own name and docstring."""

    def decorate(fast: Callable[P, R]) -> Callable[P, R]:
        @wraps(fast)
        def choose(*args: P.args, **kwargs: P.kwargs) -> R:
            return (reference if active() else fast)(*args, **kwargs)

        return choose

    return decorate
