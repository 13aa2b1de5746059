"""Core numbering on the mesh: 0..xlen*ylen-1 row by row, or Gemini's mesh ids y*(xlen+2)+x+1.

Gemini numbers a core by its mesh position with a DRAM-port column on either side of each row
(columns 0 and xlen+1), so a 2x2 mesh has cores 1, 2, 5, 6; the single-core files use 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

LINEAR = "linear"
MESH = "mesh"

MESH_SLACK = 4
"""Mesh positions allowed per core present. Gemini writes a core for every position of its mesh (16 of
16 in the 4x4 fixtures); the one file here from another writer is a 2-core slice of a 2x2 mesh (4 for 2)."""
MIN_MESH = 16
"""Positions always allowed, whatever the cores: a 4x4 mesh (the largest in the real files) with one core."""

NUMBERING_TEXT = {LINEAR: "0..xlen*ylen-1 row by row", MESH: "mesh ids y*(xlen+2)+x+1"}


def mesh_ids(xlen: int, ylen: int, limit: int | None = None) -> list[int]:
    """Gemini's ids of the cores of an xlen x ylen mesh, row by row (the first `limit` of them)."""
    return list(islice(_mesh_ids(xlen, ylen), limit))


def _mesh_ids(xlen: int, ylen: int) -> Iterator[int]:
    # A generator: a header's mesh can be far larger than anything worth listing.
    return (y * (xlen + 2) + x + 1 for y in range(ylen) for x in range(xlen))


def is_mesh_id(core_id: int, xlen: int, ylen: int) -> bool:
    """Whether `core_id` is one of Gemini's mesh ids of an xlen x ylen mesh (in constant time)."""
    return core_id >= 1 and (core_id - 1) % (xlen + 2) < xlen and (core_id - 1) // (xlen + 2) < ylen


def numbering(core_ids: Iterable[int], xlen: int | None, ylen: int | None) -> str:
    """LINEAR when every core fits 0..xlen*ylen-1 (or the mesh is unknown), else MESH if more cores fit that."""
    ids = list(core_ids)
    if xlen is None or ylen is None or all(c < xlen * ylen for c in ids):
        return LINEAR
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


@dataclass(frozen=True, slots=True)
class MeshProblem:
    """Why a file's mesh cannot be laid out: the message, and the key it is about (xlen, ylen or a core)."""

    message: str
    key: str
    core_id: int | None = None


def mesh_problem(
    core_ids: Sequence[int], scheme: str, xlen: int | None, ylen: int | None
) -> MeshProblem | None:
    """Why the mesh that xlen, ylen and the cores' positions span is implausible, or None.

    The analysis lays out (and routes over) every mesh position, its DRAM ports one per row: a header
    of 2**53 rows, or a core key placing one core a billion rows away, would take that much memory.
    Allowed: MESH_SLACK positions per core present, and at least MIN_MESH.
    """
    if xlen is None or ylen is None:
        return None
    count = len(core_ids)
    allowed = max(MESH_SLACK * count, MIN_MESH)
    if xlen * ylen > allowed:
        return MeshProblem(
            f"a {xlen}x{ylen} mesh ({xlen * ylen:,} positions) for {_cores_and_bound(count)}",
            "ylen" if ylen >= xlen else "xlen",
        )
    low, high, farthest = 0, ylen - 1, None
    for core_id in core_ids:
        pos = position(core_id, scheme, xlen)
        if pos is None:
            continue
        if pos[1] < low or pos[1] > high:
            low, high, farthest = min(low, pos[1]), max(high, pos[1]), (core_id, pos)
    if farthest is None or xlen * (high - low + 1) <= allowed:
        return None
    core_id, at = farthest
    return MeshProblem(
        far_core_message(core_id, at, xlen, ylen, xlen * (high - low + 1), count), str(core_id), core_id
    )


def far_core_message(
    core_id: int, at: tuple[int, int], xlen: int, ylen: int, positions: int, count: int
) -> str:
    """GIR506's message for a core at `at` so far off the mesh that the mesh holding every one of the `count`
    cores has `positions` positions, too many."""
    return (
        f"core {core_id} at ({at[0]},{at[1]}) lies so far off the {xlen}x{ylen} mesh that the mesh holding every "
        f"core has {positions:,} positions for {_cores_and_bound(count)}"
    )


def _cores_and_bound(count: int) -> str:
    allowed = max(MESH_SLACK * count, MIN_MESH)
    cores = f"{count} core{'' if count == 1 else 's'}"
    return f"{cores}: more than the {allowed:,} allowed ({MESH_SLACK} per core, at least {MIN_MESH})"
