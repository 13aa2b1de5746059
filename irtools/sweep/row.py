"""Sweep summaries: one row per IR file of a design-space sweep, to compare schedules side by side.

The columns and the per-file work live here (what a worker computes); running it over many files,
caching, manifests and output are the rest of irtools.sweep's. The measured columns (a ZeBu trace found
beside the IR) are measured.py's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from irtools.analysis.analysis import Analysis
from irtools.analysis.as_read import analyze_as_read, check_as_read
from irtools.analysis.summary import summarize
from irtools.analysis.tables import Column, TableSpec
from irtools.errors import AnalysisError
from irtools.findings import Finding, Severity
from irtools.loading.dropping import FieldDropped
from irtools.loading.load import load_ir
from irtools.loading.reader import gc_paused
from irtools.options import RunOptions
from irtools.sweep.measured import SWEEP_COLUMNS, measured_columns
from irtools.sweep.names import name_columns
from irtools.trace.discover import discover_trace
from irtools.validate import check_file, check_loaded

SWEEP = TableSpec(
    "sweep",
    "One row per IR file (per manifest run with --manifest). Configuration from the file name when it "
    "follows Gemini's patterns (<model>_b<batch>_c<cores>_bw<GB/s>_stschedule.json, or the scheduler's own "
    "<net>_<x>x<y>[_b4_noc16_ul512...]_ir.json); schedule metrics from the analysis; finding counts from "
    "the checker (all rules, default severities). Manifest columns follow these.",
    (
        Column("path", "str", "", "The file."),
        Column(
            "status", "str", "", "ok, or why the row has no metrics (not an IR, timeout, crash, missing)."
        ),
        Column("model", "str", "", "Network, from the file name."),
        Column("mesh_x", "Int64", "", "Mesh columns, from a <net>_<x>x<y> name."),
        Column("mesh_y", "Int64", "", "Mesh rows, from a <net>_<x>x<y> name."),
        Column("batch", "Int64", "", "Batch size, from the file name (_b<N>)."),
        Column("cores_in_name", "Int64", "", "Core count, from the file name (_c<N>, or x*y)."),
        Column("dram_gbps", "Int64", "GB/s", "DRAM bandwidth, from the file name (_bw<N>)."),
        Column("noc_bw_in_name", "Int64", "", "NoC bandwidth, from the file name (_noc<N>)."),
        Column("l2_kb", "Int64", "KB", "L2 size, from the file name (_ul<N>)."),
        Column("cost_function", "Int64", "", "Gemini's cost function, from the file name (_ff<N>)."),
        Column("stride", "Int64", "", "Gemini's stride, from the file name (_ss<N>)."),
        Column("rounds", "Int64", "", "Search rounds, from the file name (_rr<N>)."),
        Column("name_tags", "str", "", "Other name tags, tag=value joined with ';' (e.g. noc=32-128)."),
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
        Column("scheduler_latency", "Int64", "cycles", "The scheduler's own latency T (manifest cost line)."),
        Column(
            "latency_ratio",
            "float64",
            "ratio",
            "scheduler_latency / makespan_dependency: above 1 where the scheduler counted NoC time the IR's "
            "workload times leave out.",
        ),
        Column(
            "noc_latency_ratio",
            "float64",
            "ratio",
            "scheduler_latency / makespan_noc, the noc model at the run's NoC bandwidth (the manifest's "
            "noc_bw column, else --noc-bw): 1 where irtools reproduces the scheduler's latency.",
        ),
        Column("scheduler_energy", "float64", "pJ", "The scheduler's own energy E (manifest cost line)."),
        Column(
            "energy",
            "float64",
            "pJ",
            "Gemini's energy from the IR: the sum of the terms it determines (energy_noc, energy_dram); "
            "needs a NoC bandwidth (--noc-bw or the manifest's noc_bw); docs/noc.md.",
        ),
        Column("energy_noc", "float64", "pJ", "NoC term: bytes x hops x Gemini's energy per byte and hop."),
        Column(
            "energy_dram",
            "float64",
            "pJ",
            "DRAM term, by the DRAM type a manifest run names (e.g. in its Gemini input line); else empty.",
        ),
        Column(
            "energy_undetermined", "str", "", "Terms the IR does not determine, left out of energy (';')."
        ),
        Column(
            "energy_delay",
            "float64",
            "pJ x cycles",
            "energy x makespan_noc: the energy-delay product of the determined terms (a sweep page axis).",
        ),
        Column(
            "energy_ratio",
            "float64",
            "ratio",
            "scheduler_energy / energy: above 1 by the terms the IR does not determine (mostly buffers).",
        ),
        Column("peak_l2_max", "Int64", "bytes", "Largest L2 snapshot on any core."),
        Column(
            "peak_l2_fraction",
            "float64",
            "fraction",
            "peak_l2_max / the L2 size (buffersize, else the size in the file name, `_ul256`); above 1: "
            "the schedule needs more L2 than the run has.",
        ),
        Column("peak_l2_per_core", "str", "bytes", "Peak L2 of each core, in core order, joined with ';'."),
        Column("dram_read_bytes", "Int64", "bytes", "DRAM bytes read (weights and fmaps)."),
        Column("dram_write_bytes", "Int64", "bytes", "DRAM bytes written."),
        Column("errors", "Int64", "", "Error findings (empty when the file was not checked)."),
        Column("warnings", "Int64", "", "Warning findings."),
        Column("analyzed", "bool", "", "False when the file is not an IR that can be analyzed."),
        *SWEEP_COLUMNS,
    ),
)

SWEEP_FINDINGS = TableSpec(
    "sweep_findings",
    "Every checker finding across a sweep, one row each (all rules, default severities).",
    (
        Column("path", "str", "", "The file."),
        Column("code", "str", "", "Rule code (GIRxxx)."),
        Column("severity", "str", "", "error, warning or info."),
        Column("core_id", "Int64", "", "Core the finding is about, if any."),
        Column("workload_id", "Int64", "", "Workload the finding is about, if any."),
        Column("transfer_id", "Int64", "", "Transfer the finding is about, if any."),
        Column("message", "str", "", "What is wrong."),
        Column("pointer", "str", "", "RFC 6901 JSON pointer into the file."),
    ),
)


RUN_NOC_MAKESPANS = "noc_makespan_per_run_bw"
"""Row key (not a column) for the noc makespans at the manifest runs' NoC bandwidths."""

ENERGY = "energy_by_term"
"""Row key (not a column): the file's energy_summary, for a manifest run's DRAM type to complete."""


def _product(energy: float | None, makespan: int | None) -> float | None:
    return None if energy is None or makespan is None else energy * makespan


def energy_columns(energy: dict[str, Any]) -> dict[str, Any]:
    """The sweep's energy columns from an energy_summary (irtools.analysis.energy)."""
    return {
        "energy": energy["total"],
        "energy_noc": energy["terms"]["noc"],
        "energy_dram": energy["terms"]["dram"],
        "energy_undetermined": ";".join(energy["undetermined"]),
    }


def empty_row(path: str) -> dict[str, Any]:
    """A row with the configuration its name gives and nothing measured yet."""
    row: dict[str, Any] = dict.fromkeys(SWEEP.dtypes)
    row["path"] = path
    row.update(name_columns(Path(path).name))
    return row


def summarize_with_findings(
    path: str, options: RunOptions | None = None, run_noc_bws: Sequence[int] = ()
) -> tuple[dict[str, Any], list[Finding]]:
    """One sweep row and the checker's findings for the file, under the run's `options`.

    `options.noc_bw` adds the noc model's makespan. `run_noc_bws` are the NoC bandwidths of the manifest's runs
    that wrote this very file (Gemini writes the same IR whatever the NoC bandwidth): the row's
    RUN_NOC_MAKESPANS key gets the noc makespan of each, [[bandwidth, makespan], ...], from the one load.
    """
    # The file's models are acyclic and let go when the row is made: collector passes over their
    # millions of lists were a sixth of a row's time (0.68 s against 0.57 s on a 16 MB raw file).
    with gc_paused():
        row, findings = _row_and_findings(path, options or RunOptions(), run_noc_bws)
    # In the file's order, as `irtools validate` lists them, whichever way the file was checked.
    return row, sorted(findings, key=Finding.sort_key)


def _row_and_findings(
    path: str, options: RunOptions, run_noc_bws: Sequence[int]
) -> tuple[dict[str, Any], list[Finding]]:
    row = empty_row(path)
    # Read as `irtools analyze` reads it, each core's snapshots (and tensors, unless the manifest's NoC runs
    # route them) dropped once its tables are built and its rules run: a 73 MB raw file's row peaked at
    # 402 MiB read whole. A measured trace beside the file is matched to the tiles: they stay then, as the
    # dashboard keeps them.
    routed = dataclasses.replace(options, noc_links=True) if run_noc_bws else options
    streamed = _streamed(path, routed, for_views=discover_trace(path) is not None)
    if streamed is not None:
        try:
            return _filled(row, *streamed, path, run_noc_bws), streamed[1]
        except FieldDropped:  # the row read what the streamed load let go: the file read whole
            row = empty_row(path)
    try:
        loaded = load_ir(path, max_bytes=options.max_bytes)
    except OSError as exc:
        # unreadable: counted as one error (GIR100)
        row.update(errors=1, warnings=0, analyzed=False, status=f"unreadable: {exc.strerror or exc}")
        return row, []
    refused = "not an IR that can be analyzed"
    try:
        analysis = Analysis(loaded, options) if loaded.ir is not None else None
    except AnalysisError as exc:  # an IR, but one that cannot be laid out (GIR506): its findings say why
        analysis, refused = None, f"not analyzed: {str(exc).partition(': cannot be analyzed: ')[2] or exc}"
    findings = check_loaded(loaded, options, index=analysis.index if analysis else None)
    if analysis is None:
        row.update(_counts(findings), analyzed=False, status=refused)
        return row, findings
    return _filled(row, analysis, findings, path, run_noc_bws), findings


def _streamed(
    path: str, options: RunOptions, for_views: bool = False
) -> tuple[Analysis, list[Finding]] | None:
    """The file analyzed and checked as it is read (irtools.analysis.as_read); None where the whole file's
    reading says more (not an IR, one that cannot be laid out, an unreadable file)."""
    try:
        analysis, checks = analyze_as_read(path, options, for_views=for_views)
    except (AnalysisError, OSError):
        return None
    try:
        return analysis, check_as_read(analysis, checks)
    except FieldDropped:  # a step of the whole file needs a dropped snapshot: read again, as validate does
        return analysis, check_file(path, options, options.max_bytes)


def _counts(findings: list[Finding]) -> dict[str, int]:
    return {
        "errors": sum(f.severity is Severity.ERROR for f in findings),
        "warnings": sum(f.severity is Severity.WARNING for f in findings),
    }


def _filled(
    row: dict[str, Any], analysis: Analysis, findings: list[Finding], path: str, run_noc_bws: Sequence[int]
) -> dict[str, Any]:
    """`row` with the analysis's columns and the findings' counts."""
    noc_bw = analysis.options.noc_bw
    row.update(_counts(findings), analyzed=True, status="ok")
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
        peak_l2_fraction=_l2_fraction(max(peaks, default=0), s.buffersize, row.get("l2_kb")),
        peak_l2_per_core=";".join(map(str, peaks)) or None,
        dram_read_bytes=s.dram_read_weight + s.dram_read_fmap,
        dram_write_bytes=s.dram_write,
    )
    row.update(measured_columns(analysis, path))
    energy = s.energy or (analysis.energy_at(run_noc_bws[0]) if run_noc_bws else None)
    if energy is not None:
        row.update(energy_columns(energy), energy_delay=_product(energy["total"], row["makespan_noc"]))
        row[ENERGY] = energy
    if run_noc_bws:
        row[RUN_NOC_MAKESPANS] = [[bw, analysis.noc_makespan_at(bw)] for bw in run_noc_bws]
    return row


def _l2_fraction(peak: int, buffersize: int | None, l2_kb_in_name: Any) -> float | None:
    """peak / the L2 size: the file's buffersize, else the size its name gives (`_ul256`: a raw file
    records none, and a run's L2 size is in its name)."""
    size = buffersize or (
        int(l2_kb_in_name) * 1024 if isinstance(l2_kb_in_name, int | float) and l2_kb_in_name > 0 else None
    )
    return peak / size if size else None


def finding_rows(path: str, findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """The file's findings as rows of SWEEP_FINDINGS."""
    return [{"path": path, **f.to_row()} for f in findings]
