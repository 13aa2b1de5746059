"""Sweep summaries: one row per IR file of a design-space sweep, to compare schedules side by side."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd

from irtools.analysis.analysis import Analysis, AnalysisOptions
from irtools.analysis.summary import summarize
from irtools.analysis.tables import Column, TableSpec
from irtools.findings import Severity
from irtools.gemini import GEMINI_FREQUENCY
from irtools.loading.discover import discover
from irtools.loading.load import load_ir
from irtools.trace.sweep import SWEEP_COLUMNS, measured_columns
from irtools.validate import check_loaded

NAME = re.compile(r"^(?P<model>.+)_b(?P<batch>\d+)_c(?P<cores>\d+)_bw(?P<bw>\d+)_stschedule\.json$")
"""Gemini's file names: <model>_b<batch>_c<cores>_bw<DRAM GB/s>_stschedule.json."""

SWEEP = TableSpec(
    "sweep",
    "One row per IR file. Configuration from the file name when it follows Gemini's pattern "
    "<model>_b<batch>_c<cores>_bw<GB/s>_stschedule.json; schedule metrics from the analysis; "
    "finding counts from the checker (all rules, default severities).",
    (
        Column("path", "str", "", "The file."),
        Column("model", "str", "", "Network, from the file name."),
        Column("batch", "Int64", "", "Batch size, from the file name."),
        Column("cores_in_name", "Int64", "", "Core count, from the file name."),
        Column("dram_gbps", "Int64", "GB/s", "DRAM bandwidth, from the file name."),
        Column("cores", "Int64", "", "Cores in the file."),
        Column("workloads", "Int64", "", "Workloads in the file."),
        Column("makespan_sequential", "Int64", "cycles", "Makespan, sequential model."),
        Column(
            "makespan_dependency", "Int64", "cycles", "Makespan, dependency model; empty on a wait cycle."
        ),
        Column(
            "noc_bw", "Int64", "B/cycle", "NoC bandwidth per directed link the noc model used; empty without."
        ),
        Column(
            "makespan_noc",
            "Int64",
            "cycles",
            "Makespan, noc model (the scheduler's latency T); empty without a NoC bandwidth.",
        ),
        Column("peak_l2_max", "Int64", "bytes", "Largest L2 snapshot on any core."),
        Column("peak_l2_fraction", "float64", "fraction", "peak_l2_max / buffersize."),
        Column("peak_l2_per_core", "str", "bytes", "Peak L2 of each core, in core order, joined with ';'."),
        Column("dram_read_bytes", "Int64", "bytes", "DRAM bytes read (weights and fmaps)."),
        Column("dram_write_bytes", "Int64", "bytes", "DRAM bytes written."),
        Column("errors", "int64", "", "Error findings."),
        Column("warnings", "int64", "", "Warning findings."),
        Column("analyzed", "bool", "", "False when the file is not an IR that can be analyzed."),
        *SWEEP_COLUMNS,
    ),
)


def summarize_file(
    path: str,
    max_bytes: int | None = None,
    noc_bw: int | None = None,
    noc_frequency: float = GEMINI_FREQUENCY,
) -> dict[str, Any]:
    """One sweep row; never raises for bad content (the row says what could not be measured).

    `noc_bw` (per file: a sweep's runs may differ in it) adds the noc model's makespan.
    """
    row: dict[str, Any] = dict.fromkeys(SWEEP.dtypes)
    row["path"] = path
    match = NAME.match(Path(path).name)
    if match:
        row.update(
            model=match["model"],
            batch=int(match["batch"]),
            cores_in_name=int(match["cores"]),
            dram_gbps=int(match["bw"]),
        )
    try:
        loaded = load_ir(path, max_bytes=max_bytes)
    except OSError:
        row.update(errors=1, warnings=0, analyzed=False)  # unreadable: counted as one error (GIR100)
        return row
    options = AnalysisOptions(noc_bw=noc_bw, noc_frequency=noc_frequency)
    analysis = Analysis(loaded, options) if loaded.ir is not None else None
    findings = check_loaded(loaded, index=analysis.index if analysis else None)
    row["errors"] = sum(f.severity is Severity.ERROR for f in findings)
    row["warnings"] = sum(f.severity is Severity.WARNING for f in findings)
    row["analyzed"] = analysis is not None
    if analysis is None:
        return row
    s = summarize(analysis, links=False)  # routing every file of a sweep costs more than its row says
    peaks = [s.peak_l2[c] for c in sorted(s.peak_l2)]
    row.update(
        cores=s.cores,
        workloads=s.workloads,
        makespan_sequential=s.makespan["sequential"],
        makespan_dependency=s.makespan["dependency"],
        noc_bw=noc_bw,
        makespan_noc=s.makespan.get("noc"),
        peak_l2_max=max(peaks, default=0),
        peak_l2_fraction=max(peaks, default=0) / s.buffersize if s.buffersize else None,
        peak_l2_per_core=";".join(map(str, peaks)) or None,
        dram_read_bytes=s.dram_read_weight + s.dram_read_fmap,
        dram_write_bytes=s.dram_write,
    )
    row.update(measured_columns(analysis, path))
    return row


def sweep_table(
    paths: Sequence[str],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    max_bytes: int | None = None,
    allow_empty: bool = False,
    noc_bw: int | None = None,
    noc_frequency: float = GEMINI_FREQUENCY,
) -> pd.DataFrame:
    """Summaries of every IR under `paths` (files or directories), sorted by path."""
    files = discover(paths, allow_empty)
    rows: list[dict[str, Any]] = []
    if jobs > 1 and len(files) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
            n = len(files)
            for row in pool.map(summarize_file, files, [max_bytes] * n, [noc_bw] * n, [noc_frequency] * n):
                rows.append(row)
                if progress:
                    progress(len(rows), len(files))
    else:
        for f in files:
            rows.append(summarize_file(f, max_bytes, noc_bw, noc_frequency))
            if progress:
                progress(len(rows), len(files))
    return SWEEP.frame({c.name: [r[c.name] for r in rows] for c in SWEEP.columns})
