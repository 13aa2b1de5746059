"""The dialects of the Scheduler IR, declared, and how a file's dialect is recognised.

Each dialect module declares one `Dialect` (irtools.dialects.base); `DIALECTS` lists them in the order
they are asked whether a workload has their shape (the most specific first: an allocated file also
has the raw dialect's shape).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from irtools.dialects.alloc.dialect import ALLOC
from irtools.dialects.base import Capability, Dialect
from irtools.dialects.documented.dialect import DOCUMENTED
from irtools.dialects.raw.dialect import RAW
from irtools.model.base import CORE_KEY

DIALECTS: list[Dialect] = [ALLOC, RAW, DOCUMENTED]
"""The registered dialects, in the order they are asked whether a workload has their shape."""

BY_NAME = {d.name: d for d in DIALECTS}

__all__ = [
    "ALLOC",
    "BY_NAME",
    "DIALECTS",
    "DOCUMENTED",
    "RAW",
    "Capability",
    "Dialect",
    "dialect_of",
    "register",
    "sniff",
    "unregister",
]


def register(dialect: Dialect) -> None:
    """Add a dialect: loading recognises it (asked before the others, so its `shows` must be more specific
    than theirs), validation and analysis read it by its capabilities, `irtools schema` offers it."""
    if dialect.name in BY_NAME:
        raise ValueError(f"a dialect named {dialect.name!r} is already registered")
    DIALECTS.insert(0, dialect)
    BY_NAME[dialect.name] = dialect


def unregister(dialect: Dialect) -> None:
    """Remove a dialect `register` added."""
    DIALECTS.remove(dialect)
    del BY_NAME[dialect.name]


def core_dialect(workloads: Any, sample: int = 8) -> Dialect | None:
    """The dialect a majority of a core's first workloads show, None when they show none or tie.

    One damaged workload of a file does not turn the whole file into another dialect.
    """
    votes: dict[str, int] = {}
    for wl in workloads[:sample] if isinstance(workloads, list) else ():
        if isinstance(wl, dict):
            shown = next((d for d in DIALECTS if d.shows(wl)), None)
            if shown is not None:
                votes[shown.name] = votes.get(shown.name, 0) + 1
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return BY_NAME[ranked[0][0]]


def dram_dialect(section: Any) -> Dialect | None:
    """The dialect whose DRAM destinations (`id` or `core_id`) the DRAM section shows, None if none does."""
    entries = section.get("out") if isinstance(section, dict) else None
    judges = [d for d in DIALECTS if d.shows_destination is not None]
    for entry in entries if isinstance(entries, list) else ():
        destinations = entry.get("destination") if isinstance(entry, dict) else None
        for dest in destinations if isinstance(destinations, list) else ():
            if isinstance(dest, dict):
                found = next((d for d in judges if d.shows_destination(dest)), None)  # type: ignore[misc]
                if found is not None:
                    return found
    return None


def _shown(key: str, value: Any) -> Dialect | None:
    """The dialect one member shows: a core by its workloads' shape, any other member by its key alone."""
    return core_dialect(value) if CORE_KEY.match(key) else next((d for d in DIALECTS if key in d.marks), None)


def sniff(members: Iterable[tuple[str, Any]]) -> tuple[Dialect, Iterator[tuple[str, Any]]]:
    """The file's dialect, and all the members again (none lost).

    The first core that shows its shape decides: its members come after "-1" in the scheduler's
    files, so only the DRAM section is held meanwhile. A file whose cores show nothing is judged
    by its DRAM destinations, then taken as documented.
    """
    stream = iter(members)
    seen: list[tuple[str, Any]] = []
    for key, value in stream:
        seen.append((key, value))
        found = _shown(key, value)
        if found is not None:
            return found, itertools.chain(seen, stream)
    dram = next((value for key, value in seen if key == "-1"), None)
    return dram_dialect(dram) or DOCUMENTED, iter(seen)


def dialect_of(keys: Collection[str], read: Callable[[str], Any]) -> Dialect:
    """The file's dialect as `sniff` judges it, from its member keys in file order, reading (`read`) only
    the members that decide: the cores up to the first that shows a shape, the DRAM section only when
    none does (the typed decoder's way: the DRAM section of a large file is megabytes, a key decides)."""
    for key in keys:
        found = _shown(key, read(key) if CORE_KEY.match(key) else None)
        if found is not None:
            return found
    return (dram_dialect(read("-1")) if "-1" in keys else None) or DOCUMENTED
