"""Core numbering on the mesh: 0..xlen*ylen-1 row by row, or Gemini's mesh ids y*(xlen+2)+x+1.

Gemini numbers a core by its mesh position with a DRAM-port column on either side of each row
(columns 0 and xlen+1), so a 2x2 mesh has cores 1, 2, 5, 6; the single-core files use 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice

LINEAR = "linear"
MESH = "mesh"

NUMBERING_TEXT = {LINEAR: "0..xlen*ylen-1 row by row", MESH: "mesh ids y*(xlen+2)+x+1"}


def mesh_ids(xlen: int, ylen: int) -> list[int]:
    """Gemini's ids of the cores of an xlen x ylen mesh, row by row."""
    return [y * (xlen + 2) + x + 1 for y in range(ylen) for x in range(xlen)]


def first_mesh_ids(xlen: int, ylen: int, count: int) -> list[int]:
    """The first `count` of `mesh_ids(xlen, ylen)`, without listing the others (a header may claim any mesh)."""
    return list(islice((y * (xlen + 2) + x + 1 for y in range(ylen) for x in range(xlen)), count))


def is_mesh_id(core_id: int, xlen: int, ylen: int) -> bool:
    """Whether `core_id` is one of `mesh_ids(xlen, ylen)`, computed rather than looked up in the list."""
    if core_id < 1 or xlen < 1:
        return False
    row, column = divmod(core_id - 1, xlen + 2)
    return column < xlen and row < ylen


def numbering(core_ids: Iterable[int], xlen: int | None, ylen: int | None) -> str:
    """LINEAR when every core fits 0..xlen*ylen-1 (or the mesh is unknown), else MESH if more cores fit that."""
    ids = list(core_ids)
    if xlen is None or ylen is None or all(c < xlen * ylen for c in ids):
        return LINEAR
    # Per core, never per mesh position: the file's xlen and ylen may be any size (issue 34's fuzzing).
    fit_mesh = sum(is_mesh_id(c, xlen, ylen) for c in ids)
    fit_linear = sum(c < xlen * ylen for c in ids)
    return MESH if fit_mesh > fit_linear else LINEAR


def position(core_id: int, scheme: str, xlen: int | None) -> tuple[int, int] | None:
    """(x, y) of a core on the mesh under `scheme`; None when xlen is unknown or the id is no core."""
    if xlen is None:
        return None
    if scheme == MESH:
        if core_id < 1 or (core_id - 1) % (xlen + 2) >= xlen:
            return None
        return (core_id - 1) % (xlen + 2), (core_id - 1) // (xlen + 2)
    return core_id % xlen, core_id // xlen


def core_label(core_id: int, scheme: str, xlen: int | None) -> str:
    """`5 (0,1)`: a core id with its mesh position, for labels and tables."""
    pos = position(core_id, scheme, xlen)
    return f"{core_id}" if pos is None else f"{core_id} ({pos[0]},{pos[1]})"
