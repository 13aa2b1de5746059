"""Writing every table of an analysis and summarizing it, each table let go once written.

Held together until the last was written, the tables were a quarter of `irtools analyze`'s peak memory
on a 64-core file; written one at a time (in parts: `Analysis.table_parts`), in an order that builds none
twice, each table takes the memory the one before it left, given back to the system in between
(irtools.heap): the load's end is then analyze's peak.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from irtools.analysis.analysis import Analysis
from irtools.analysis.io import write_table
from irtools.analysis.summary import Summary, summarize
from irtools.heap import give_back_freed_memory

BEFORE_SUMMARY = ("tensors", "l2_regions", "wl0_tensors")
"""Tables that neither the summary nor another table reads: written before the summary, which then
builds what it reads in the memory they held (the snapshot tables are held from the load on). The L2
table the summary does not read (`Analysis.l2_held`'s other) joins them."""

AFTER_SUMMARY = (
    "noc_links",
    "layer_cost",
    "dram_transfers",
    "cores",
    "wl0_occupancy",
    "layers",
    "l2_occupancy",
    "l2_blocks",
    "dram_traffic",
    "core_transfers",
    "timeline",
)
"""The rest, each before the tables it is built from (dram_traffic from dram_transfers, built for the
summary already; layers from the DRAM traffic and the L2 tables), so that none is built again once let
go, and the ones the layers do not read before them; core_transfers and the timeline, the largest, last,
each alone beside what it is built from."""


def write_analysis(
    analysis: Analysis,
    out_dir: str | os.PathLike[str],
    fmt: str = "csv",
    progress: Callable[[str], None] | None = None,
    excel_safe: bool = False,
    links: bool | None = None,
) -> tuple[list[Path], Summary]:
    """Write every table of `analysis` to out_dir (as `write_tables`; noc_links only with `links`,
    default: when the options route the NoC traffic) and summarize it; the files written and the summary.

    Each table is forgotten by `analysis` once written: a later read builds it again."""
    wanted = analysis.options.routes_noc if links is None else links

    def write(names: Iterable[str]) -> list[Path]:
        written = []
        for name in names:
            if name == "noc_links" and not wanted:
                continue
            # What the last table (or the load) freed goes back before this one is built: the heap keeps
            # it resident otherwise, and the allocated stand-in peaked 10 MiB higher (226 -> 216 MiB).
            give_back_freed_memory()
            # A CSV takes the timeline a timing model at a time; Parquet, a table whole.
            parts = analysis.table_parts(name) if fmt == "csv" else iter([analysis.table(name)])
            written.append(write_table(name, parts, out_dir, fmt, progress, excel_safe))
            del parts
            analysis.forget(name)
        return written

    unread = "l2_blocks" if analysis.l2_held == "l2_occupancy" else "l2_occupancy"
    written = write((*BEFORE_SUMMARY, unread))
    summary = summarize(analysis, links=wanted)
    written += write(name for name in AFTER_SUMMARY if name != unread)
    return written, summary
