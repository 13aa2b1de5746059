"""Which NoC bandwidth a served file is timed at: its runs' in the folder's manifest.csv, else `--noc-bw`.

`irtools serve --noc-bw 8` used to time every file at 8, also one whose runs used 32. A file named in
its folder's manifest.csv (the layout `irtools summarize --manifest` reads) is timed at its runs'
bandwidth instead; the page names the bandwidth and its source, and offers the file's other runs'.
The page's choice travels in the file key as a suffix (`vgg.json@noc=32`), so every figure, link and
cache entry of the file follows it without one more input to every callback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from irtools.analysis.chiplets import ChipletCut, chiplet_cut
from irtools.errors import UsageError
from irtools.sweep.manifest import read_manifest

SUFFIX = "@noc="
MANIFEST = "manifest.csv"


@dataclass(frozen=True, slots=True)
class NocRuns:
    """The bandwidths a file can be timed at and where they come from."""

    bandwidths: tuple[int, ...] = ()
    source: str = ""
    """`manifest.csv`, `--noc-bw`, or "" when none is known."""
    default: int | None = None


def split_key(key: str) -> tuple[str, int | None]:
    """(file key, chosen bandwidth or None) of a page key such as `vgg.json@noc=32`."""
    base, found, value = key.rpartition(SUFFIX)
    if found and value.isdigit() and int(value) > 0:
        return base, int(value)
    return key, None


def with_bandwidth(key: str, bandwidth: int | None) -> str:
    """The page key timing `key`'s file at `bandwidth` (None: at its default)."""
    base, _ = split_key(key)
    return base if bandwidth is None else f"{base}{SUFFIX}{bandwidth}"


def noc_runs(path: Path | None, served: int | None) -> NocRuns:
    """The NoC bandwidths of `path`'s runs in the manifest.csv beside it, else the served `--noc-bw`.

    The default is `--noc-bw` when it is one of the file's runs, else its first run's (the smallest).
    """
    if path is not None and (path.parent / MANIFEST).is_file():
        try:
            runs = read_manifest(path.parent / MANIFEST).noc_bws(path.name)
        except (UsageError, OSError, ValueError):
            runs = ()
        if runs:
            return NocRuns(runs, MANIFEST, served if served in runs else runs[0])
    if served is not None:
        return NocRuns((served,), "--noc-bw", served)
    return NocRuns()


def manifest_cut(path: Path | None, xlen: int | None, ylen: int | None) -> ChipletCut | None:
    """The chiplet cut of `path`'s runs from the `input_line` of the manifest.csv beside it (Gemini's input
    line, irtools.analysis.chiplets); None without a manifest, a mesh or such a line, or when the file's
    runs disagree (then no one cut is the file's)."""
    if path is None or xlen is None or ylen is None or not (path.parent / MANIFEST).is_file():
        return None
    try:
        rows = read_manifest(path.parent / MANIFEST).rows_for(path.name)
    except (UsageError, OSError, ValueError):
        return None
    cuts = {chiplet_cut(str(row.get("input_line") or ""), xlen, ylen) for row in rows}
    return cuts.pop() if len(cuts) == 1 else None
