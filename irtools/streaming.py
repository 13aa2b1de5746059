"""Validate core by core: each core checked as it is read, its snapshots and tensors dropped before the next.

A whole file's Structs were most of validate's peak memory, and the L2 snapshots (`buffer`) most of
them; in documented files the WL0 snapshots and the tiles (`tile_info`) come next, then in every file
the tensors (ifmaps, ofmaps, weights) and ranges. Most rules read one core at a time (their steps
declare `per_core`, irtools.rules.registry): the loader hands each core to `CoreChecks` as soon as it
is validated (`load_ir(on_core=...)`), which runs those steps on it, keeps the columns the other
steps' screens read of it (`transfer_uses`, `transfer_columns`' workload part, `dram_writers` and, in
the scheduler's files, `wait_claims`), and puts `DROPPED` in place of each workload's snapshots, tensors and range
(`DROPPED_FIELDS`). The other steps then run on the whole file as before, given those columns: on a
file without cross-core findings their screens flag nothing, and no check reads a dropped field.

Findings stay exactly the whole file's: a per-core step's findings on a file are the union of its
findings on each core alone (tests/rules/test_streaming.py compares both ways on every fixture, sample
and generated file), and a step of the whole file that reads a dropped field (the reference check of
a screened rule that flags a workload, say) raises `FieldDropped`: validate then reads the file again,
nothing dropped, and checks it whole (`irtools.validate.validate_file`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.loading.columns import (
    DramWriters,
    Ints,
    WaitClaims,
    WorkloadTransfers,
    dram_writers,
    int32_where_fits,
    joined,
    joined_rows,
    known_transfers,
    transfer_uses,
    wait_claims,
)
from irtools.loading.dropping import DROPPED, DROPPED_FIELDS, FieldDropped, drop_fields
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.loading.sets import distinct_pairs
from irtools.options import RunOptions
from irtools.rules import RULES
from irtools.rules.context import CheckContext

if TYPE_CHECKING:
    from irtools.loading.load import LoadedIR

T = TypeVar("T")

__all__ = ["DROPPED", "DROPPED_FIELDS", "CoreChecks", "FieldDropped", "crash_finding"]


def crash_finding(code: str, exc: Exception) -> Finding:
    """GIR001: a rule crashed (a checker bug must not hide the other rules' findings)."""
    return Finding("GIR001", Severity.ERROR, f"rule {code} crashed: {type(exc).__name__}: {exc}")


@dataclass(slots=True)
class CoreChecks:
    """The per-core steps, run on each core the loader hands over (`load_ir(on_core=...)`)."""

    options: RunOptions
    findings: list[Finding] = field(default_factory=list)
    """The per-core steps' findings, their pointers into the file."""
    uses: dict[int, tuple[Ints, Ints] | None] = field(default_factory=dict)
    """Core id -> `transfer_uses` of the core alone (rows counted within the core), each pair once, narrowed."""
    transfers: dict[int, WorkloadTransfers | None] = field(default_factory=dict)
    """Core id -> its workloads' part of `transfer_columns`, narrowed (None: a value beyond int64)."""
    writers: dict[int, DramWriters | None] = field(default_factory=dict)
    """Core id -> `dram_writers` of the core alone, narrowed."""
    claims: dict[int, WaitClaims | None] = field(default_factory=dict)
    """Core id -> `wait_claims` of the core alone, narrowed (files whose workloads wait on DRAM only)."""
    crashed: set[str] = field(default_factory=set)
    """Codes whose per-core steps crashed on a core: reported once, not run on the later cores."""
    refs: dict[int, list[WorkloadRef]] = field(default_factory=dict)
    """Core id -> its workloads' refs, which the whole file's index keeps (`IRIndex(refs=...)`)."""
    drops: bool = True
    """Drop each core's snapshots, tensors and ranges once checked; not for a reader that keeps them, or lets
    another hook drop them (the dashboard's snapshot tables)."""
    checked_elsewhere: set[int] = field(default_factory=set)
    """Core ids another process checks (irtools.forked_cores): only their refs are kept here, and their
    fields dropped."""

    def __call__(self, core: LoadedIR) -> None:
        """Run the per-core steps on `core`, keep its part of the whole-file screens' columns, drop its
        workloads' snapshots, tensors and ranges (`drops`)."""
        index = IRIndex(core, self.options)
        ((core_id, refs),) = index.cores.items()
        self.refs[core_id] = refs
        if core_id in self.checked_elsewhere:
            self._drop(refs)
            return
        ctx = CheckContext(self.options)
        for entry in RULES.values():
            form = entry.form_for(index.capabilities)
            if form is None or entry.code in self.crashed:
                continue
            try:
                self.findings.extend(map(core.to_file, form.run(index, ctx, per_core=True)))
            except Exception as exc:  # noqa: BLE001 - as irtools.validate.check_loaded
                self.crashed.add(entry.code)
                self.findings.append(crash_finding(entry.code, exc))
        uses = transfer_uses(index)
        # Each pair once: the rules read the uses as a set, and a snapshot names its tensors again and again.
        uses = None if uses is None else distinct_pairs(*uses)
        self.uses[core_id] = None if uses is None else (int32_where_fits(uses[0]), int32_where_fits(uses[1]))
        try:
            self.transfers[core_id] = WorkloadTransfers.build(index).narrowed()
        except OverflowError:
            self.transfers[core_id] = None
        self.writers[core_id] = _narrowed(dram_writers(index))
        if index.has(Capability.DRAM_WAITS):
            self.claims[core_id] = _narrowed(wait_claims(index))
        self._drop(refs)

    def _drop(self, refs: list[WorkloadRef]) -> None:
        if self.drops:
            drop_fields([ref.workload for ref in refs], DROPPED_FIELDS)

    def add(self, other: CoreChecks) -> None:
        """Take the findings and columns of `other`, which checked the file's other cores (in another process:
        irtools.forked_cores; its findings follow these, as the report sorts them anyway)."""
        self.findings.extend(other.findings)
        self.uses.update(other.uses)
        self.transfers.update(other.transfers)
        self.writers.update(other.writers)
        self.claims.update(other.claims)
        self.crashed |= other.crashed

    def give_columns(self, index: IRIndex) -> None:
        """Give the whole file's index the columns its screens read that its cores' made before their
        snapshots and tensors were dropped: `transfer_uses` (the same pairs, each once),
        `transfer_columns`, `dram_writers` and `wait_claims` (the same columns), as if built from the
        whole file (rows in the index's order)."""
        counts = [len(refs) for refs in index.cores.values()]
        parts = _taken(self.transfers, index)
        known_transfers(index, parts)
        del parts
        uses = _taken(self.uses, index)
        transfer_uses.known(index, None if uses is None else _joined_uses(uses, counts))
        del uses
        writers = _taken(self.writers, index)
        dram_writers.known(index, None if writers is None else DramWriters.joined(writers, counts))
        if self.claims:
            claims = _taken(self.claims, index)
            wait_claims.known(index, None if claims is None else WaitClaims.joined(claims, counts))


Narrowable = TypeVar("Narrowable", DramWriters, WaitClaims)


def _narrowed(columns: Narrowable | None) -> Narrowable | None:
    return None if columns is None else columns.narrowed()


def _taken(kept: dict[int, T | None], index: IRIndex) -> list[T] | None:
    """The cores' parts in the index's core order, taken out of `kept`; None when some core has none (a
    value beyond int64 there: the whole file's columns are None too)."""
    parts = [kept.pop(core_id) for core_id in index.cores]
    complete = [p for p in parts if p is not None]
    return complete if len(complete) == len(parts) else None


def _joined_uses(parts: list[tuple[Ints, Ints]], counts: list[int]) -> tuple[Ints, Ints]:
    """The whole file's `transfer_uses` from its cores' (`counts`: each core's count of workloads)."""
    return joined_rows([rows for rows, _ in parts], counts), joined([tids for _, tids in parts])
