"""`irtools analyze`, `irtools export-trace` and `irtools tables`: argument glue over irtools.analysis."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from typing import TYPE_CHECKING

from irtools.cli.common import (
    EXCEL_SAFE_HELP,
    EXIT_OK,
    arrow_uses_malloc,
    positive_float,
    show_progress,
    source_of,
)
from irtools.cli.noc_args import add_dram_arguments, add_noc_arguments
from irtools.cli.trace_args import add_trace_argument, load_measured, print_measured
from irtools.config import add_settings, run_options
from irtools.findings import Severity
from irtools.loading.reader import gc_paused

if TYPE_CHECKING:
    from irtools.analysis import Analysis
    from irtools.options import RunOptions


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `analyze`, `export-trace` and `tables` commands to the parser."""
    ana = sub.add_parser(
        "analyze",
        help="write the analysis tables (timeline, L2/WL0 occupancy, tensors, DRAM traffic, layers)",
        description=(
            "Analyze one IR: write its tables to DIR (one file per table, each written atomically) "
            "and print a summary. Exit 0: written; 1: the file is not an IR that can be analyzed; "
            "2: usage error or unreadable file. Columns and units: `irtools tables`."
        ),
    )
    ana.add_argument("path", metavar="PATH", help="an IR file, - for standard input, or a pipe")
    ana.add_argument("--out", "-o", required=True, metavar="DIR", help="directory for the tables (created)")
    ana.add_argument(
        "--format", choices=("csv", "parquet"), default="csv", help="table format (parquet needs pyarrow)"
    )
    ana.add_argument(
        "--excel-safe",
        action="store_true",
        help=EXCEL_SAFE_HELP,
    )
    ana.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_noc_arguments(ana)
    add_dram_arguments(ana)
    ana.add_argument(
        "--noc-links",
        action="store_true",
        help="route the NoC traffic without --noc-bw: write the noc_links table and the busiest link "
        "(on a 64-core file routing costs about as much as parsing it)",
    )
    add_trace_argument(ana)
    add_settings(ana, "analyze")

    trc = sub.add_parser(
        "export-trace",
        help="write the schedule as a Chrome trace (open in Perfetto or chrome://tracing)",
        description="One track per core, workloads as slices, cross-core transfers as flow arrows.",
    )
    trc.add_argument("path", metavar="PATH", help="an IR file, - for standard input, or a pipe")
    trc.add_argument("-o", "--output", required=True, metavar="FILE", help="trace file to write (atomically)")
    trc.add_argument(
        "--model",
        choices=("dependency", "sequential", "noc"),
        default="dependency",
        help="timing model (default: dependency; noc needs --noc-bw)",
    )
    add_noc_arguments(trc)
    trc.add_argument(
        "--clock-mhz",
        type=positive_float,
        metavar="MHZ",
        help="core clock, to show real time; default: one cycle shown as 1 us",
    )
    add_trace_argument(trc)
    add_settings(trc, "export-trace")

    tab = sub.add_parser("tables", help="list the analysis tables and their columns")
    tab.add_argument("name", nargs="?", help="one table's columns")
    tab.add_argument("--markdown", action="store_true", help="the catalogue as Markdown (docs/tables.md)")


def _analysis(
    path: str,
    source: str | bytes,
    options: RunOptions,
    keep_snapshots: bool = True,
    snapshot_tables: bool = True,
) -> Analysis:
    from irtools.analysis import analyze

    if show_progress():
        sys.stderr.write(f"loading {path}\n")
    # The models live until the command ends: frozen out of the collector's sight before it resumes, so
    # its passes while the tables are built no longer rescan millions of them. Resumed before the freeze,
    # its first passes moved every list the load made through its young generations: 0.06-0.1 s of a
    # 70-100 MB file's analyze.
    with gc_paused():
        analysis = analyze(
            source, options, keep_snapshots=keep_snapshots, snapshot_tables=snapshot_tables, name=path
        )
        gc.freeze()
    errors = [f for f in analysis.loaded.findings if f.severity is Severity.ERROR]
    if errors:
        print(
            f"irtools: warning: {path} has {len(errors)} schema errors; broken entries are left out and "
            "their workloads marked incomplete (see `irtools validate`)",
            file=sys.stderr,
        )
    return analysis


def _note_writing(name: str) -> None:
    sys.stderr.write(f"writing {name}\n")


def run_analyze(args: argparse.Namespace) -> int:
    """`irtools analyze`: write the tables to --out and print the summary; the exit code."""
    from irtools.analysis.io import parquet_available, write_tables
    from irtools.analysis.writing import write_analysis
    from irtools.loading.dropping import FieldDropped
    from irtools.rules.registry import UsageError

    if args.excel_safe and args.format != "csv":
        raise UsageError(
            "--excel-safe applies to --format csv only (Parquet is read by programs, not spreadsheets)"
        )
    if args.format == "parquet" and not parquet_available():
        raise UsageError("--format parquet needs pyarrow (pip install pyarrow)")
    arrow_uses_malloc()
    # The tables need no snapshot once built; a measured trace is matched to the IR's tiles.
    options = run_options(args)
    source = source_of(args.path, options.max_bytes)
    analysis = _analysis(args.path, source, options, keep_snapshots=bool(args.trace))
    # Before any table is written: a trace that cannot be read leaves no directory half-written.
    measured = load_measured(analysis, args.trace) if args.trace else None
    progress = _note_writing if show_progress() else None
    try:
        written, summary = write_analysis(analysis, args.out, args.format, progress, args.excel_safe)
    except FieldDropped:  # a table read what the streamed load let go: read the file whole, as validate does
        sys.stderr.write(
            f"irtools analyze: {args.path}: a table needs what was dropped as the file was read: reading it "
            "again whole\n"
        )
        analysis = _analysis(args.path, source, options)
        written, summary = write_analysis(analysis, args.out, args.format, progress, args.excel_safe)
    if measured:
        written += write_tables(
            measured.tables(), args.out, args.format, progress, excel_safe=args.excel_safe
        )
    if args.json:
        data = summary.to_dict()
        if measured:
            data["measured"] = measured.summary().to_dict()
            data["trace_findings"] = [
                {
                    "code": f.code,
                    "severity": f.severity.value,
                    "message": f.message,
                    "line": f.line,
                    "workload_id": f.workload_id,
                }
                for f in measured.findings
            ]
        print(json.dumps(data, indent=2))
    else:
        sys.stdout.write(summary.render())
        if measured:
            print_measured(measured)
        print(f"  wrote {len(written)} tables to {args.out}")
        if not options.routes_noc:
            print("  (noc_links not routed: give --noc-links, or --noc-bw for the noc timing model)")
    return EXIT_OK


def run_export_trace(args: argparse.Namespace) -> int:
    """`irtools export-trace`: write the Chrome/Perfetto trace of one timing model; the exit code."""
    from irtools.loading.dropping import FieldDropped
    from irtools.rules.registry import UsageError
    from irtools.trace.perfetto import write_chrome_trace

    if args.model == "noc" and args.noc_bw is None:
        raise UsageError("--model noc needs --noc-bw")
    options = run_options(args)
    # The trace reads no snapshot (its slices list their tensors' transfers); a measured trace is matched
    # to the IR's tiles.
    source = source_of(args.path, options.max_bytes)
    analysis = _analysis(args.path, source, options, keep_snapshots=bool(args.trace), snapshot_tables=False)
    # Before the trace is written: a measured trace that cannot be read leaves no file half-written.
    measured = load_measured(analysis, args.trace) if args.trace else None
    try:
        other = write_chrome_trace(args.output, analysis, args.model, args.clock_mhz, measured)
    except FieldDropped:
        # The schedule read what the streamed load let go: the file read whole, as analyze does.
        sys.stderr.write(
            f"irtools export-trace: {args.path}: the schedule needs what was dropped as the file was read: "
            "reading it again whole\n"
        )
        analysis = _analysis(args.path, source, options)
        measured = load_measured(analysis, args.trace) if args.trace else None
        other = write_chrome_trace(args.output, analysis, args.model, args.clock_mhz, measured)
    note = (
        f", {other['unscheduled_workloads']} unschedulable workloads left out"
        if other["unscheduled_workloads"]
        else ""
    )
    lanes = f", measured lanes of {len(measured.trace.instructions):,} instructions" if measured else ""
    print(
        f"wrote {args.output}: {len(analysis.index.cores)} cores, {other['flows']} cross-core flows{note}{lanes}"
    )
    return EXIT_OK


def run_tables(args: argparse.Namespace) -> int:
    """`irtools tables`: list the tables, print one table's columns, or the Markdown catalogue; the exit
    code."""
    from irtools.analysis.measured_tables import MEASURED_TABLES
    from irtools.analysis.tables import TABLES as IR_TABLES
    from irtools.catalogue import tables_markdown
    from irtools.rules.registry import UsageError

    TABLES = {**IR_TABLES, **MEASURED_TABLES}

    if args.markdown:
        sys.stdout.write(tables_markdown())
        return EXIT_OK
    if args.name:
        if args.name not in TABLES:
            raise UsageError(f"unknown table {args.name!r}; tables: {', '.join(TABLES)}")
        spec = TABLES[args.name]
        print(f"{spec.name}: {spec.doc}\n")
        width = max(len(c.name) for c in spec.columns)
        for c in spec.columns:
            print(f"  {c.name:<{width}}  {c.dtype:<7}  {c.unit:<8}  {c.doc}")
        return EXIT_OK
    for spec in TABLES.values():
        print(f"{spec.name:<15} {spec.doc.split('. ')[0].rstrip('.')}.")
    return EXIT_OK


COMMANDS = {
    "analyze": run_analyze,
    "export-trace": run_export_trace,
    "tables": run_tables,
}
