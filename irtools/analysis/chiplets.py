"""Chiplets: where Gemini cuts the mesh into dies, and which links are then die-to-die (NoP) links.

The IR records no cut; Gemini's input line does (a manifest's `input_line`). src/main.cpp:855 reads it as
`tech mm nn xx yy ss bb rr ff xcut ycut package_type IO_type NoP_bw DDR_type DRAM_bw NoC_bw mac_dim ul3
total_tops` ("xcut & ycut means the chiplet partition granularity at the x and y dimension", :864), and
refuses a cut that does not divide the mesh (:884). A run with xcut * ycut == 1 is one chip
(`NoC::soc`, :877). Otherwise the dies are x_step = xlen / xcut columns wide and y_step = ylen / ycut rows
high (:882), and the NoP links (main.cpp:1369-1390, `NoC::NoP_links`) are the links crossing a die
boundary in either direction plus every link to and from a DRAM port (the DRAM is its own die). Gemini's
link id is (x * ylen + y) * 4 + dir with dir 0: +x, 1: -y, 2: -x, 3: +y (src/noc.cpp:310-326, :632).
"""

from __future__ import annotations

from dataclasses import dataclass

INPUT_FIELDS = (
    "tech",
    "mm",
    "nn",
    "xx",
    "yy",
    "ss",
    "bb",
    "rr",
    "ff",
    "xcut",
    "ycut",
    "package_type",
    "IO_type",
    "NoP_bw",
    "DDR_type",
    "DRAM_bw",
    "NoC_bw",
    "mac_dim",
    "ul3",
    "total_tops",
)
"""Gemini's input line, field by field, as src/main.cpp:855 reads it from stdin."""

Link = tuple[int, int, int, int]


def input_fields(line: str) -> dict[str, str] | None:
    """Gemini's input line by field name (INPUT_FIELDS); None when it has not exactly their number of words."""
    words = str(line).split()
    return dict(zip(INPUT_FIELDS, words, strict=True)) if len(words) == len(INPUT_FIELDS) else None


@dataclass(frozen=True, slots=True)
class ChipletCut:
    """A mesh of xlen x ylen cores cut into xcut x ycut dies (Gemini's xcut, ycut)."""

    xcut: int
    ycut: int
    xlen: int
    ylen: int

    @property
    def is_cut(self) -> bool:
        """More than one compute die (Gemini's `!NoC::soc`)."""
        return self.xcut * self.ycut > 1

    def x_boundaries(self) -> list[int]:
        """The columns j that start a new die (a boundary between columns j - 1 and j)."""
        step = self.xlen // self.xcut
        return list(range(step, self.xlen, step)) if self.is_cut else []

    def y_boundaries(self) -> list[int]:
        """The rows j that start a new die (a boundary between rows j - 1 and j)."""
        step = self.ylen // self.ycut
        return list(range(step, self.ylen, step)) if self.is_cut else []

    def nop_links(self) -> set[Link]:
        """The directed die-to-die links as (x, y, to_x, to_y), DRAM ports at x = -1 and x = xlen
        (main.cpp:1369-1390); empty on one chip."""
        if not self.is_cut:
            return set()
        links: set[Link] = set()
        for y in range(self.ylen):
            east = self.xlen - 1
            links |= {(-1, y, 0, y), (0, y, -1, y), (east, y, self.xlen, y), (self.xlen, y, east, y)}
            for j in self.x_boundaries():
                links |= {(j - 1, y, j, y), (j, y, j - 1, y)}
        for x in range(self.xlen):
            for j in self.y_boundaries():
                links |= {(x, j - 1, x, j), (x, j, x, j - 1)}
        return links

    def text(self) -> str:
        """`2 x 1 chiplets of 4 x 8 cores`."""
        return (
            f"{self.xcut} x {self.ycut} chiplets of {self.xlen // self.xcut} x {self.ylen // self.ycut} cores"
        )


def chiplet_cut(line: str, xlen: int, ylen: int) -> ChipletCut | None:
    """The cut Gemini's input line `line` sets for an xlen x ylen mesh; None when the line is not Gemini's,
    names another mesh (its xx, yy), or a cut Gemini refuses (one that does not divide the mesh)."""
    fields = input_fields(line)
    if fields is None:
        return None
    try:
        xx, yy, xcut, ycut = (int(fields[k]) for k in ("xx", "yy", "xcut", "ycut"))
    except ValueError:
        return None
    if (xx, yy) != (xlen, ylen) or xcut < 1 or ycut < 1 or xlen % xcut or ylen % ycut:
        return None
    return ChipletCut(xcut, ycut, xlen, ylen)
