"""GIR5xx: the schedule: workload order, coordinates, the core mesh and cross-core waits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex, Range, inverted
from irtools.loading.mesh import MESH, is_mesh_id, mesh_ids, mesh_problem
from irtools.reference import fast_path
from irtools.rules.context import MESSAGE_IDS, CheckContext
from irtools.rules.registry import rule
from irtools.rules.screens import inverted_rows, screened, workload_range_rows


def bad_range_message(lower: Sequence[int], upper: Sequence[int], key: str | None = None) -> str:
    """GIR504's message: the box and the dimensions where lower > upper (`key` names a lower key other than
    `lower`, such as a tile's `ifmap_lower`)."""
    bad = [str(d) for d, (lo, hi) in enumerate(zip(lower, upper, strict=True)) if lo > hi]
    where = f"{key}: " if key else ""
    return f"{where}lower {list(lower)} > upper {list(upper)} in dimension{'s' if len(bad) > 1 else ''} {', '.join(bad)}"


def _range_findings(ranges: Iterable[Range], ctx: CheckContext) -> Iterator[Finding]:
    for r in ranges:
        own_key = r.lower_key in ("lower", "0")
        pointer = r.pointer if own_key else jp.extend(r.pointer, r.lower_key)
        yield ctx.finding(
            "GIR504",
            bad_range_message(r.lower, r.upper, None if own_key else r.lower_key),
            pointer,
            core_id=r.core_id,
            workload_id=r.workload_id,
            transfer_id=r.transfer_id,
        )


def _bad_range_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    return _range_findings(ir.inverted_ranges(), ctx)


@rule("GIR504", "bad-range", Severity.ERROR)
@fast_path(reference=_bad_range_reference)
def bad_range(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A lower coordinate exceeds its upper coordinate in some dimension.

    Why: lower/upper are inclusive corners of a 4-D box; lower > upper describes an empty or
    inverted tensor, and sizes, transfers and tile loops computed from it are wrong.
    Example: `/0/3/ifmap/0: GIR504 error lower [0, 64, 0, 0] > upper [0, 63, 13, 13] in dimension 1`
    Fix: the writer swapped or miscomputed the corners of that tensor.
    """
    rows = inverted_rows(ir)
    if rows is None:
        return _bad_range_reference(ir, ctx)
    return _range_findings(ir.inverted_ranges([ir.rows[r] for r in rows]), ctx)


@rule("GIR501", "workload-order", Severity.ERROR)
def workload_order(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Workload ids within a core are duplicated or not ascending.

    Why: a core runs its workloads in ascending workload_id and destinations name workloads by
    id; a duplicate id makes a destination ambiguous, a descending one breaks program order.
    Example: `/0/5/workload_id: GIR501 error workload_id 4 follows workload_id 7 (ids must ascend)`
    Fix: renumber the core's workloads in program order.
    """
    for refs in ir.cores.values():
        first_at: dict[int, str] = {}
        previous: int | None = None
        for ref in refs:
            wid = ref.workload_id
            ptr = jp.extend(ref.pointer, "workload_id")
            if wid in first_at:
                yield ctx.finding(
                    "GIR501",
                    f"workload_id {wid} is used twice on this core",
                    ptr,
                    core_id=ref.core_id,
                    workload_id=wid,
                    related=(first_at[wid],),
                )
            elif previous is not None and wid < previous:
                yield ctx.finding(
                    "GIR501",
                    order_message(wid, previous),
                    ptr,
                    core_id=ref.core_id,
                    workload_id=wid,
                )
            first_at.setdefault(wid, ptr)
            previous = wid if previous is None else max(previous, wid)


def order_message(workload_id: int, previous: int) -> str:
    """GIR501's message for a workload_id below the one before it (synth predicts it with this too)."""
    return f"workload_id {workload_id} follows workload_id {previous} (ids must ascend)"


def deadlock_message(cycle: Sequence[tuple[int, int]]) -> str:
    """GIR502's message: the wait cycle's (core_id, workload_id) steps, back to the first."""
    return "deadlock: " + " -> ".join(f"core {c}/wl {w}" for c, w in [*cycle, cycle[0]])


def outside_mesh_message(core_id: int, xlen: int, ylen: int) -> str:
    """GIR503's message for a core numbered 0..N-1 whose id is past the xlen x ylen mesh."""
    return f"core {core_id} is outside the {xlen}x{ylen} mesh (cores 0..{xlen * ylen - 1})"


def _deadlock_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    from irtools.loading.graph import find_cycles, wait_graph

    nodes, edges = wait_graph(ir)
    for cycle in find_cycles(len(nodes), edges):
        refs = [nodes[n] for n in cycle]
        yield ctx.finding(
            "GIR502",
            deadlock_message([(r.core_id, r.workload_id) for r in refs]),
            refs[0].pointer,
            core_id=refs[0].core_id,
            workload_id=refs[0].workload_id,
            related=tuple(r.pointer for r in refs[1:]),
        )


def _deadlock_by_columns(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    from irtools.loading.columns import waits_acyclic

    if not waits_acyclic(ir):  # only a cycle needs the reference graph, which names it
        yield from _deadlock_reference(ir, ctx)


@rule("GIR502", "deadlock", Severity.ERROR)
@fast_path(reference=_deadlock_reference)
def deadlock(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Cores wait on each other in a cycle.

    The wait graph has program order on each core (each workload waits for its predecessor)
    plus one edge per cross-core transfer, from the producing workload to each consumer (a
    workload whose ifmap or weight reads the producer's ofmap, or that the ofmap names as a
    destination). A cycle in it is a deadlock; the message lists the cycle as core/workload
    steps. Same-core order violations are GIR204.
    Why: every core in the cycle waits for data that another core in the cycle can only send
    after it is unblocked; the hardware hangs.
    Example: `/0/1: GIR502 error deadlock: core 0/wl 1 -> core 1/wl 0 -> core 1/wl 1 -> core 0/wl 0 -> core 0/wl 1`
    Fix: reorder the workloads so cross-core consumers run after their producers.
    """
    return _deadlock_by_columns(ir, ctx)


@rule("GIR503", "core-outside-mesh", Severity.WARNING)
def core_outside_mesh(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A core key is not in 0..xlen*ylen-1, nor one of Gemini's mesh ids y*(xlen+2)+x+1.

    Two numberings are accepted: 0..xlen*ylen-1 (the published single-core files) and Gemini's
    mesh ids, which leave a DRAM-port column on each side of every row (a 2x2 mesh is cores 1,
    2, 5, 6). A file using the mesh ids gets one info finding saying so; a core that fits
    neither numbering is a warning.
    Why: cores are placed on an xlen x ylen mesh; a core outside it has no hardware to run on
    and no NoC route.
    Example: `/4: GIR503 warning core 4 is outside the 2x2 mesh (cores 0..3)`
    Fix: check xlen/ylen or the core numbering.
    """
    xlen, ylen = ir.ir.xlen, ir.ir.ylen
    if xlen is None or ylen is None:
        return
    count = xlen * ylen
    if ir.numbering == MESH:
        ids = _mesh_id_list(xlen, ylen)
        yield ctx.finding(
            "GIR503",
            mesh_numbering_message(xlen, ylen),
            "",
            severity=Severity.INFO,
        )
        for core_id in ir.cores:
            if not is_mesh_id(core_id, xlen, ylen):
                yield ctx.finding(
                    "GIR503",
                    f"core {core_id} is outside the {xlen}x{ylen} mesh (mesh ids {ids})",
                    jp.join(str(core_id)),
                    core_id=core_id,
                )
        return
    for core_id in ir.cores:
        if core_id >= count:
            yield ctx.finding(
                "GIR503",
                outside_mesh_message(core_id, xlen, ylen),
                jp.join(str(core_id)),
                core_id=core_id,
            )


def mesh_numbering_message(xlen: int, ylen: int) -> str:
    """GIR503's note (info) that the file numbers its cores by Gemini's mesh ids, listing the first few."""
    return (
        f"cores are numbered by mesh position y*(xlen+2)+x+1 (Gemini's mesh ids: {_mesh_id_list(xlen, ylen)})"
    )


def _mesh_id_list(xlen: int, ylen: int) -> str:
    """`id_list` of the mesh ids, listing only the first few of a header's (perhaps 2**53) positions."""
    count = xlen * ylen
    shown = ", ".join(str(i) for i in mesh_ids(xlen, ylen, MESSAGE_IDS))
    return shown if count <= MESSAGE_IDS else f"{shown}, ... ({count - MESSAGE_IDS} more)"


@rule("GIR506", "implausible-mesh", Severity.ERROR)
def implausible_mesh(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """The mesh (xlen x ylen, and the cores' positions on it) is far larger than the cores present.

    The mesh that holds every core spans xlen x ylen and each core's position (under the file's
    numbering, as GIR503 reads it); it may have at most 4 positions per core present, and always 16.
    Gemini writes one core for every position of its mesh; the one file here from another writer
    is a 2-core slice of a 2x2 mesh. A core a little off the mesh is GIR503's warning; one so far
    off that the mesh holding it breaks the bound is this error, like a header of 2**53 rows.
    Why: the NoC tables lay out every mesh position and a DRAM port on each row: an implausible
    header makes an analysis take memory by the header's numbers instead of the file's content,
    so `analyze`, `report` and `serve` refuse such a file.
    Example: `/ylen: GIR506 error a 2x1000 mesh (2,000 positions) for 4 cores: more than the 16 allowed (4 per core, at least 16)`
    Fix: set xlen/ylen to the mesh the schedule was made for, or correct the core keys.
    """
    problem = mesh_problem(list(ir.cores), ir.numbering, ir.ir.xlen, ir.ir.ylen)
    if problem is not None:
        yield ctx.finding("GIR506", problem.message, jp.join(problem.key), core_id=problem.core_id)


def _inside(lower: list[int], upper: list[int], box_lo: list[int], box_hi: list[int]) -> bool:
    # Ofmap ranges are absolute in some files and relative to the workload (or its batch group)
    # in others: accept each dimension that fits in either frame.
    for d in range(4):
        extent = box_hi[d] - box_lo[d]
        absolute = box_lo[d] <= lower[d] and upper[d] <= box_hi[d]
        relative = 0 <= lower[d] and upper[d] <= extent
        if not (absolute or relative):
            return False
    return True


def tile_coverage_problem(
    tiles: Sequence[tuple[list[int], list[int]]], lo: list[int], hi: list[int]
) -> str | None:
    """GIR505's message when the tiles' ofmap boxes do not cover the workload [lo, hi] exactly; else None."""
    t_lo = [min(t[0][d] for t in tiles) for d in range(4)]
    t_hi = [max(t[1][d] for t in tiles) for d in range(4)]
    covered = sum(_volume(a, b) for a, b in tiles)
    if (t_lo, t_hi) == (lo, hi) and covered >= _volume(lo, hi):
        return None
    gap = "" if (t_lo, t_hi) != (lo, hi) else f" with gaps ({covered} of {_volume(lo, hi)} elements)"
    return f"tiles cover {t_lo}..{t_hi}{gap} but the workload is {lo}..{hi}"


def _volume(lower: list[int], upper: list[int]) -> int:
    product = 1
    for lo, hi in zip(lower, upper, strict=True):
        product *= max(hi - lo + 1, 0)
    return product


def _workload_range_reference(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    for ref in ir.workloads():
        wl = ref.workload
        lo, hi = wl.workload
        if inverted(lo, hi):
            continue  # GIR504
        for i, o in enumerate(wl.ofmap):
            if not _inside(o.lower, o.upper, lo, hi):
                yield ctx.finding(
                    "GIR505",
                    f"ofmap range {o.lower}..{o.upper} lies outside the workload range {lo}..{hi}",
                    jp.extend(ref.pointer, "ofmap", i),
                    core_id=ref.core_id,
                    workload_id=ref.workload_id,
                    transfer_id=o.transfer_id,
                )
        tiles = list((wl.tile_info or {}).values())
        if not tiles:
            continue
        message = tile_coverage_problem([(t.ofmap_lower, t.ofmap_upper) for t in tiles], lo, hi)
        if message:
            yield ctx.finding(
                "GIR505",
                message,
                jp.extend(ref.pointer, "tile_info"),
                core_id=ref.core_id,
                workload_id=ref.workload_id,
            )


@rule("GIR505", "workload-range", Severity.WARNING)
@fast_path(reference=_workload_range_reference)
def workload_range(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """Ofmap ranges fall outside the workload's range, or tile_info does not cover the workload.

    Ofmap ranges are compared per dimension in the absolute frame or relative to the
    workload's lower corner (real files use both). The tiles' ofmap boxes must span exactly
    the workload's box, and their volumes must add up to at least its volume (no gap).
    Why: an ofmap outside its workload writes another workload's output; tiles that miss part
    of the workload leave outputs uncomputed.
    Example: `/0/8/tile_info: GIR505 warning tiles cover [0, 0, 0, 0]..[0, 63, 27, 27] but the workload is [0, 0, 0, 0]..[0, 63, 55, 55]`
    Fix: recompute the workload range or the tiling.
    """
    return screened(ir, ctx, workload_range_rows, _workload_range_reference)
