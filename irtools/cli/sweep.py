"""`irtools summarize`: argument glue over irtools.sweep (executor, cache, manifest, outputs)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from irtools.cli.common import (
    EXCEL_SAFE_HELP,
    EXIT_OK,
    add_allow_empty,
    file_progress,
    positive_float,
    positive_int,
    show_progress,
)
from irtools.cli.noc_args import add_noc_arguments
from irtools.config import add_settings, run_options
from irtools.rules.registry import UsageError

EPILOG = """\
Executors: local processes by default (--jobs N, default: every CPU this process may use).
--executor dask starts a local Dask cluster of --jobs worker processes; --scheduler tcp://HOST:8786 uses a
running Dask cluster (started by dask-scheduler/dask-worker, dask-jobqueue on Slurm/PBS, or
dask-kubernetes): its workers need the same irtools version and must read the IR files at the same
absolute paths (a shared file system). Needs the sweep extra: pip install 'irtools[sweep]'.

Cache: results are kept per file content, irtools version and --max-mb in --cache-dir (default
$IRTOOLS_CACHE_DIR, else $XDG_CACHE_HOME/irtools, else ~/.cache/irtools); a rerun recomputes only files
that changed. --no-cache neither reads nor writes it.

Outputs: -o sweep.csv or -o sweep.parquet (Parquet needs pyarrow), one row per file (per manifest run),
and a findings table beside it (sweep.findings.csv; --findings FILE). Both are written as results arrive;
Ctrl-C keeps a valid partial output (exit 130). Exit 0 when written, 2 on usage errors.
"""


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `summarize` command to the parser."""
    swp = sub.add_parser(
        "summarize",
        help="one row per IR file of a sweep (CSV/Parquet): configuration, makespans, peak L2, findings",
        description=(
            "Summarize every IR under the given paths, to compare the schedules of a design-space sweep. "
            "The configuration comes from Gemini's file names (<model>_b<batch>_c<cores>_bw<GB/s>"
            "_stschedule.json, or the scheduler's <net>_<x>x<y>[_b4_noc16_ul512...]_ir.json) and from "
            "--manifest."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    swp.add_argument("paths", nargs="+", metavar="PATH", help="IR files or directories (every *.json below)")
    swp.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="table to write: .csv, or .parquet"
    )
    swp.add_argument(
        "--findings", metavar="FILE", help="findings table to write (default: OUTPUT's stem + .findings)"
    )
    swp.add_argument(
        "--manifest",
        metavar="CSV",
        help="runs of the sweep, one row each, any columns; joined by IR file name (a column name, file or path)",
    )
    swp.add_argument(
        "--jobs", "-j", type=positive_int, metavar="N", help="worker processes (default: every CPU)"
    )
    swp.add_argument(
        "--executor",
        choices=("local", "dask"),
        default="local",
        help="local processes (default) or a local Dask cluster",
    )
    swp.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler, e.g. tcp://HOST:8786")
    swp.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        help="give up on a file after this long (a row says so)",
    )
    swp.add_argument("--excel-safe", action="store_true", help=EXCEL_SAFE_HELP)
    swp.add_argument("--cache-dir", metavar="DIR", help="result cache (default: see below)")
    swp.add_argument("--no-cache", action="store_true", help="compute every file, keep nothing")
    add_noc_arguments(swp)
    add_settings(swp, "summarize")
    add_allow_empty(swp)


def run_summarize(args: argparse.Namespace) -> int:
    """`irtools summarize`: write the sweep table and its findings table; the exit code."""
    from irtools.cpus import cpus
    from irtools.loading.discover import discover
    from irtools.sweep.cache import ResultCache, default_cache_dir
    from irtools.sweep.engine import Sweep
    from irtools.sweep.executors import executor_pool
    from irtools.sweep.manifest import read_manifest
    from irtools.sweep.output import findings_path, format_of
    from irtools.sweep.work import WorkOptions
    from irtools.sweep.write import same_file, write_sweep

    findings = args.findings or str(findings_path(args.output))
    if same_file(findings, args.output):
        raise UsageError("--findings names the same file as -o")
    if args.excel_safe and "parquet" in (format_of(args.output), format_of(findings)):
        raise UsageError(
            "--excel-safe applies to CSV output only (Parquet is read by programs, not spreadsheets)"
        )
    for path in (args.output, findings):
        if format_of(path) == "parquet" and not _has("pyarrow"):
            raise UsageError(f"{path}: Parquet output needs pyarrow: pip install 'irtools[sweep]'")
    options = WorkOptions(run_options(args), timeout=args.timeout)
    cache = None
    if not args.no_cache:
        cache = ResultCache(args.cache_dir or default_cache_dir(), options.result_options())
    manifest = read_manifest(args.manifest) if args.manifest else None
    sweep = Sweep(discover(args.paths, args.allow_empty), options, cache, manifest)
    pool = executor_pool(args.executor, args.jobs or cpus(), args.scheduler)
    with _progress(len(sweep.files)) as progress:
        try:
            counts = write_sweep(sweep, pool, args.output, findings, progress, args.excel_safe)
        except KeyboardInterrupt:
            if sweep.counts.interrupted:
                done = sweep.counts.rows
                print(
                    f"irtools summarize: interrupted: {args.output} and {findings} hold the {done} rows done",
                    file=sys.stderr,
                )
            raise
    notes = [f"{counts.cached} from the cache"] if cache else []
    if counts.failed:
        notes.append(f"{counts.failed} failed (see status)")
    if manifest:
        notes.append(
            f"{counts.rows} rows for {len(manifest.frame)} manifest runs, {counts.missing} without an IR"
        )
    print(
        f"wrote {args.output}: {counts.files} files, {counts.analyzed} analyzed, {counts.errors} errors in all"
        + (f" ({'; '.join(notes)})" if notes else "")
    )
    print(f"wrote {findings}: {counts.findings} findings")
    return EXIT_OK


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


@contextmanager
def _progress(total: int) -> Iterator[Callable[[int, int], None] | None]:
    """A tqdm bar (files, rate, ETA) on a terminal; the plain counter without tqdm; nothing otherwise."""
    if not show_progress() or not _has("tqdm"):
        yield file_progress("summarized")
        return
    from tqdm import tqdm

    with tqdm(total=total, unit="file", file=sys.stderr, dynamic_ncols=True, leave=False) as bar:

        def advance(done: int, _total: int) -> None:
            bar.update(done - bar.n)

        yield advance


COMMANDS = {"summarize": run_summarize}
