"""What a dialect is: its name, note, part models, how it is recognised and mapped, and what it provides.

A dialect says which facts its files hold as a set of capabilities; rules declare the capabilities
they need (irtools.rules.registry), and analysis asks the index for capabilities, never for a
dialect's name. Adding a dialect = one module here declaring a `Dialect`, plus its models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irtools.dialects.keys import KeyScan
    from irtools.model.view import IRView


class Capability(StrEnum):
    """A kind of fact a file may hold; the value says it in a rule-skipped note ("GIR303 needs ...")."""

    L2_ADDRESSES = "L2 addresses"
    RING_REGIONS = "ring_buffer_info"
    CUR_WL_FLAGS = "cur_wl_ifmap flags"
    ALIGN_BITWIDTH = "align and bitwidth"
    WL0 = "a WL0 snapshot"
    NEWLY_ADDED = "per-tensor load flags (newly_added or start_loading)"
    BLOCK_COUNTS = "1 KiB block counts"
    DRAM_WAITS = "max_workload_id"
    HELD_AHEAD = "inputs held ahead for a later workload (workload_id in the snapshot)"
    SOURCE_CHANNELS = "sources in the producer's frame with channel"
    L2_SIZE = "an L2 size (buffersize in the file, or --l2-size)"


DOCUMENTED_FACTS = frozenset(
    {Capability.CUR_WL_FLAGS, Capability.ALIGN_BITWIDTH, Capability.WL0, Capability.RING_REGIONS}
)
"""Facts only the documented models hold: a dialect declaring one gives workloads of their shape
(`IRIndex.documented`)."""

SCHEDULER_FACTS = frozenset(
    {Capability.BLOCK_COUNTS, Capability.DRAM_WAITS, Capability.HELD_AHEAD, Capability.SOURCE_CHANNELS}
)
"""Facts only the scheduler's own (raw) models hold: a dialect declaring one gives workloads of their shape
(`IRIndex.raw`)."""


SCHEMA_BASE = "https://github.com/irtools/irtools/"
"""Where the `$id` of each committed schema points: this base + its path under schemas/."""


@dataclass(frozen=True, slots=True)
class SchemaInfo:
    """What a dialect's schema says of itself beyond its models: where it is committed, its title and description."""

    path: str
    """Where the schema is committed, relative to the repository root (schemas/...)."""
    title: str
    description: str

    @property
    def schema_id(self) -> str:
        """The schema's `$id`."""
        return SCHEMA_BASE + self.path


@dataclass(frozen=True, slots=True)
class PartModels:
    """The models one dialect's file is validated against, part by part (irtools.loading.load)."""

    top: type
    """The whole file (its scalars are validated with it; cores and DRAM are validated apart)."""
    workload: type
    dram_section: type
    dram_entries: Mapping[str, type]
    """DRAM side ("in", "out") -> entry model: entries that break the schema are left out one by one."""
    workload_lists: Mapping[str, type]
    """Workload key -> entry model of the lists whose broken entries are left out one by one."""
    scalars: tuple[str, ...]
    """Top-level positive integers kept when the top level as a whole breaks the schema (the top model's field
    names; the file's keys are their aliases)."""
    key_scan: Callable[[], KeyScan]
    """GIR103: the keys these models do not know."""
    omitted: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(model name, key) -> what it means: optional keys the writer leaves out when it has nothing to say
    (GIR104 names them; the decoder tells them apart from keys written)."""
    written_with_default: frozenset[tuple[str, str]] = frozenset()
    """(model name, field name) of optional keys files often write with the model's default value (`[]`,
    null): the decoder tells them apart from keys left out, so its key count matches the file's. Counted on
    the real fixtures, the samples and synth files; a key missing here only sends its member to the models
    (correct, slower)."""


@dataclass(frozen=True, slots=True)
class Dialect:
    """One dialect of the Scheduler IR, declared."""

    name: str
    title: str
    """One line for humans (docs, the GIR103 note)."""
    note: str | None
    """The GIR103 info finding that names the dialect on every file of it (None: the format document's own)."""
    capabilities: frozenset[Capability]
    parts: PartModels
    shows: Callable[[dict[str, Any]], bool]
    """Whether one workload (as JSON) has this dialect's shape; the sniffer asks the dialects in order."""
    marks: frozenset[str] = frozenset()
    """Top-level keys only this dialect's files have: one met before the first core decides the dialect."""
    shows_destination: Callable[[dict[str, Any]], bool] | None = None
    """Whether one destination of a DRAM `out` entry (as JSON) has this dialect's shape: judges a file whose
    cores show nothing; None: its DRAM section is not told apart from another dialect's."""
    finish: Callable[[Any], IRView] | None = None
    """What loading completes once every part is validated (facts the file spreads over parts), into model
    fields declared `init=False` with the default `NOT_DERIVED` (irtools.model.base: any use of it raises,
    so a fact it forgot is an error, not a -1 or ""); None: nothing."""
    finish_core: Callable[[list[Any]], None] | None = None
    """What loading completes on one core's workloads alone, before `finish` (the allocator's tensor
    numbering, core by core): applied to each core as it is read, so a core can be checked and its L2
    snapshots dropped before the next is read (irtools.streaming); None: nothing."""
    file_pointer: Callable[[str], str] | None = None
    """A pointer the rules build -> the pointer into the file as written; None: they are the same."""
    schema: SchemaInfo | None = None
    """Where its JSON Schema is committed, its title and description (irtools schema --dialect NAME builds it
    from `parts.top`); None: no schema is offered."""

    def has(self, capability: Capability) -> bool:
        """Whether files of this dialect hold what `capability` names (L2 addresses, ring regions, WL0,
        ...)."""
        return capability in self.capabilities


def buffer_shows(workload: dict[str, Any], present: tuple[str, ...], absent: tuple[str, ...] = ()) -> bool:
    """Whether one of the workload's buffer entries (as JSON) has every key of `present` and none of
    `absent`: the buffer keys are what tells the dialects apart."""
    buffer = workload.get("buffer")
    return any(
        isinstance(b, dict) and all(k in b for k in present) and not any(k in b for k in absent)
        for b in (buffer if isinstance(buffer, list) else ())
    )
