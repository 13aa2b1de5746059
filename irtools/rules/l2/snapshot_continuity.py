"""GIR304 snapshot-continuity: consecutive L2 snapshots of a core disagree about a tensor; on the raw
and alloc dialects, an input held ahead for a later workload does not reach it."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from itertools import compress, repeat
from operator import attrgetter
from typing import Any

import numpy as np

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.dialects.raw.models import flat_ids
from irtools.findings import Finding, Severity
from irtools.loading.boxes import Bools, Ints, flagged_rows, ints, tensor_columns
from irtools.loading.columns import first_rows, join
from irtools.loading.index import IRIndex
from irtools.model.view import PlacedEntry
from irtools.rules.context import CheckContext
from irtools.rules.l2.common import describe, loc
from irtools.rules.registry import rule, variant
from irtools.rules.screens import core_ranks

NOT_NEW_BUT_ABSENT = "is marked not newly added but was absent before"
"""GIR304's problem with a tensor marked not newly added that the previous snapshot lacks."""


def new_but_present(address: int) -> str:
    """GIR304's problem with a tensor marked newly added that the previous snapshot held at the same address."""
    return f"is marked newly added but was already present at {address:#x}"


def continuity_rows(ir: IRIndex) -> list[int] | None:
    """GIR304's screen: workloads with an entry whose `newly_added` disagrees with the snapshot before it on the
    core (the first entry of the same tensor_id there, as the reference's `setdefault`)."""
    buffers = tensor_columns(ir).buffers
    tensor, address = buffers.ints("tensor_id"), buffers.ints("address")
    if tensor is None or address is None:
        return None
    row, core = buffers.row, core_ranks(ir)
    span = int(tensor.max(initial=0)) + 1
    if (len(core) + 1) * span >= 2**62:
        return None
    follows = (row > 0) & (core[row] == core[np.maximum(row - 1, 0)])
    at = first_rows(row * span + tensor, (row - 1) * span + tensor)
    before = follows & (at >= 0)
    moved = before & (address[np.maximum(at, 0)] != address)
    kept, added = buffers.equals("newly_added", False), buffers.equals("newly_added", True)
    wrong = (follows & kept & ~before) | (kept & moved) | (added & before & ~moved)
    return flagged_rows([row[wrong]])


@rule(
    "GIR304",
    "snapshot-continuity",
    Severity.WARNING,
    needs={Capability.NEWLY_ADDED},
    screen=continuity_rows,
    whole_file=True,
    per_core=True,
)
def snapshot_continuity(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Consecutive L2 snapshots of a core disagree about a tensor (identified by tensor_id).

    Flags `newly_added: false` for a tensor absent from the previous snapshot, an address that
    changed without `newly_added: true`, and `newly_added: true` for a tensor that was already
    present at the same address. Entries without `newly_added` (DRAM-only outputs with
    `start_send`) are not compared.
    Why: the assembler loads exactly the newly added tensors; a wrong flag loads data twice or
    never.
    Example: `/0/5/buffer/1/newly_added: GIR304 warning ifmap tensor 3 [transfer 39] is marked not newly added but was absent before`
    On the raw dialect (no tensor ids, no addresses), an input listed ahead for a later workload
    (`workload_id`) must be for a workload that runs later on the core and be in every snapshot
    until then (the scheduler keeps an input from a core in L2 from its producer to its reader). On the
    alloc dialect both forms run: `start_loading` is `newly_added`, for tensors numbered as the SET
    allocator's parser numbers them.
    Fix: recompute newly_added from the previous snapshot.
    """
    for refs in ir.cores.values():
        previous: dict[int, PlacedEntry] | None = None
        for ref in refs:
            if ref.pointer in ir.incomplete:
                previous = None  # a snapshot with skipped entries cannot be compared either way
                continue
            if not ir.follows(ref):
                previous = None  # the snapshot before it in the file was left out
            current: dict[int, PlacedEntry] = {}
            for i, entry in enumerate(ir.placed(ref)):
                current.setdefault(entry.tensor_id, entry)
                if entry.newly_added is None or previous is None:
                    continue
                before = previous.get(entry.tensor_id)
                problem = None
                if entry.newly_added is False and before is None:
                    problem = NOT_NEW_BUT_ABSENT
                elif entry.newly_added is False and before is not None and before.address != entry.address:
                    problem = f"moved from {before.address:#x} to {entry.address:#x} without being re-added"
                elif entry.newly_added is True and before is not None and before.address == entry.address:
                    problem = new_but_present(entry.address)
                if problem:
                    yield ctx.finding(
                        "GIR304",
                        f"{describe(entry)} {problem}",
                        jp.extend(ref.pointer, "buffer", i, "newly_added"),
                        **loc(ref, entry),
                    )
            previous = current


def held_ahead_rows(ir: IRIndex) -> list[int] | None:
    """GIR304's screen on the raw dialect: workloads with an entry held for another workload that does not
    run later on the core (the core's last workload holds none for another), or whose tensor the next
    snapshot on the core does not list (for the same workload, the same layer and transfer ids)."""
    cols = tensor_columns(ir)
    buffers = cols.buffers
    own = ints(cols.field("workload_id"), len(ir.rows))
    held = _optional_ints(buffers.objects, "workload_id")
    ids = buffers.lists("transfer_id")
    if own is None or held is None or ids is None:
        return None
    has, held_for = held
    row, core = buffers.row, core_ranks(ir)
    if int(min(own.min(initial=0), held_for.min(initial=0))) < 0:
        return None  # a negative id would meet another's composite key
    span = int(max(own.max(initial=0), held_for.max(initial=0))) + 1
    if (len(core) + 1) * span >= 2**62:
        return None
    ahead = has & (held_for != own[row])
    # The last row on its core of the workload each entry is held for: the first match in the rows reversed.
    key = core * span + own
    last = len(key) - 1 - first_rows(key[::-1], core[row] * span + held_for)
    last[last == len(key)] = -1  # not on the core
    # Held for a workload later on the core (so not the core's last): an entry of the next snapshot held for
    # it with the same ids and layer lists it (the layers compared for those pairs only: hashing every
    # entry's name cost half the screen).
    wanted = np.flatnonzero(ahead & (last > row))
    entry_key = np.where(has, row * span + held_for, -1)
    mine, theirs = join(entry_key[wanted] + span, entry_key)
    mine = wanted[mine]
    same = _same_lists(ids, len(buffers), mine, theirs)
    mine, theirs = mine[same], theirs[same]
    pair = [list(map(buffers.objects.__getitem__, side.tolist())) for side in (mine, theirs)]
    same_layer = map(operator.eq, *(map(attrgetter("layer"), side) for side in pair))
    listed = np.zeros(len(buffers), dtype=bool)
    listed[mine[np.fromiter(same_layer, bool, len(mine))]] = True
    return flagged_rows([row[ahead & ~listed]])


def _optional_ints(objects: list[Any], name: str) -> tuple[Bools, Ints] | None:
    """Whether the attribute `name` of each object is set (not None), and its value (0 where not); None
    when a set one is not an int64."""
    values = list(map(attrgetter(name), objects))
    has = np.fromiter(map(operator.is_not, values, repeat(None)), bool, len(values))
    numbers = ints(compress(values, has), int(has.sum()))
    if numbers is None:
        return None
    out = np.zeros(len(values), dtype=np.int64)
    out[has] = numbers
    return has, out


def _same_lists(lists: tuple[Ints, Ints], owners: int, left: Ints, right: Ints) -> Bools:
    """Per pair (left[k], right[k]) of owners: whether their lists (owner, value, flattened in order) are
    equal."""
    owner, value = lists
    length = np.bincount(owner, minlength=owners)
    start = np.cumsum(length) - length
    size = length[left]
    same = size == length[right]
    n = np.where(same, size, 0)
    within = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    differ = value[np.repeat(start[left], n) + within] != value[np.repeat(start[right], n) + within]
    pair = np.repeat(np.arange(len(left), dtype=np.int64), n)
    equal: Bools = same & (np.bincount(pair, weights=differ, minlength=len(left)) == 0)
    return equal


@variant(
    "GIR304",
    needs={Capability.HELD_AHEAD, Capability.NEWLY_ADDED},
    screen=held_ahead_rows,
    whole_file=True,
    plus_main=True,
    per_core=True,
)
@variant("GIR304", needs={Capability.HELD_AHEAD}, screen=held_ahead_rows, whole_file=True, per_core=True)
def raw_snapshot_continuity(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR304 on the raw dialect: an input held ahead for a later workload must reach that workload.

    The scheduler tags an input in L2 with the workload that reads it (`workload_id`), and lists it in
    every snapshot of that core from when it is there until that workload runs (GEMINI-HPCA2024
    `SchNode::IR_gen`: an input from a core stays in `curr_ifmap` from its producer's workload to its
    reader's; one from DRAM also goes into the snapshot just before its reader's). So an entry held
    for another workload w must be for a workload that runs later on the same core, and the next
    snapshot must hold it too (same layer, same transfer ids, tagged w): w's own when w runs next.
    """
    for core_id, refs in ir.cores.items():
        # Each workload id's last position on the core: an id held for runs later when that is after.
        last_at = {ir.raw(ref).workload_id: ref.position for ref in refs}
        for ref in refs:
            wl = ir.raw(ref)
            if ref.position + 1 < len(refs) and not ir.follows(refs[ref.position + 1]):
                continue  # the workload after it in the file was left out: its next one is unknown
            nxt = ir.raw(refs[ref.position + 1]) if ref.position + 1 < len(refs) else None
            for i, entry in enumerate(wl.buffer):
                held_for = entry.workload_id
                if held_for is None or held_for == wl.workload_id:
                    continue
                held = f"{entry.type} of layer {entry.layer!r} is held for workload {held_for}"
                if nxt is None:
                    problem = "but no workload runs next on this core"
                elif last_at.get(held_for, -1) <= ref.position:
                    problem = "which does not run later on this core"
                elif _holds(nxt.buffer, entry):
                    continue
                elif nxt.workload_id == held_for:
                    problem = "whose own snapshot does not hold it"
                else:
                    problem = (
                        f"but the next snapshot on this core (workload {nxt.workload_id}) does not hold it"
                    )
                yield ctx.finding(
                    "GIR304",
                    f"{held}, {problem}",
                    jp.extend(ref.pointer, "buffer", i, "workload_id"),
                    core_id=core_id,
                    workload_id=wl.workload_id,
                )


def _holds(snapshot: Any, entry: Any) -> bool:
    """Whether `snapshot` lists `entry`'s tensor for the same workload: same layer, same transfer ids."""
    key = (entry.layer, flat_ids(entry.transfer_id_as_written))
    return any(
        e.workload_id == entry.workload_id and (e.layer, flat_ids(e.transfer_id_as_written)) == key
        for e in snapshot
    )
