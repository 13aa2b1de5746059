"""Values kept by key, built one at a time: a thread asking while another builds waits for it.

The dashboard's callbacks run in threads of their own, and after a file's first view several of them
ask an `Analysis` for the same whole-schedule values at once (the mesh, the counters and the page's
warm-up all want the routed links summed): built by each, the work was done three times over, and its
temporaries held side by side made the server's peak memory (880 MiB for a 73 MB file). Different
values are built one at a time too: the interpreter runs one thread at a time, so building two at
once finishes neither sooner, but holds both's temporaries (the routed runs' spans, millions of rows).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager
from typing import Any

_MISSING = object()


class BuiltOnce:
    """A dict of values, each made by `get`'s `build`, one build at a time.

    `keep`: only the last `keep` values built are kept (the oldest let go first). `alongside`: another
    BuiltOnce whose builds this one's never overlap (one lock for both)."""

    def __init__(self, keep: int | None = None, alongside: BuiltOnce | None = None) -> None:
        self._values: dict[Hashable, Any] = {}
        self._keep = keep
        self._building: threading.RLock = alongside._building if alongside is not None else threading.RLock()

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """The value kept for `key`; else `build()`'s, kept. A thread asking while another builds any
        value waits for it; a `build` may ask for other values (the same thread goes on: an RLock), and
        one that raises keeps nothing."""
        value = self._values.get(key, _MISSING)  # one lookup: a value may be let go meanwhile (`keep`)
        if value is not _MISSING:
            return value
        with self._building:
            value = self._values.get(key, _MISSING)
            if value is _MISSING:
                value = self._values[key] = build()
                while self._keep is not None and len(self._values) > self._keep:
                    del self._values[next(iter(self._values))]  # the oldest first
            return value

    def alone(self) -> AbstractContextManager[Any]:
        """Held while other work runs that no build may overlap (a build asked for meanwhile waits)."""
        return self._building

    def pop(self, key: Hashable) -> None:
        """Forget the value of `key` (built again when next asked)."""
        self._values.pop(key, None)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._values
