"""GIR506 implausible-mesh: the mesh is far larger than the cores present."""

from __future__ import annotations

from collections.abc import Iterator

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.loading.mesh import mesh_problem
from irtools.rules.context import CheckContext
from irtools.rules.registry import rule


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
