"""GIR503 core-outside-mesh: a core key is in neither of the mesh's numberings."""

from __future__ import annotations

from collections.abc import Iterator

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.loading.index import IRIndex
from irtools.loading.mesh import MESH, is_mesh_id, mesh_ids
from irtools.rules.context import MESSAGE_IDS, CheckContext
from irtools.rules.registry import rule


def outside_mesh_message(core_id: int, xlen: int, ylen: int) -> str:
    """GIR503's message for a core numbered 0..N-1 whose id is past the xlen x ylen mesh."""
    return f"core {core_id} is outside the {xlen}x{ylen} mesh (cores 0..{xlen * ylen - 1})"


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
