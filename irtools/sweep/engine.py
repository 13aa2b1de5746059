"""The sweep engine: files to rows through any concurrent.futures executor, streamed as they arrive.

Per file, in this process: look the result up in the cache; otherwise submit the work (irtools.sweep.work)
to the pool, a few files per worker in flight (Pool.in_flight_per_worker). Whatever happens to a file becomes its row:
- a crash or a timeout inside the work: the work's own row (status says which);
- its worker process dies (killed, out of memory, a crash in native code): a local pool breaks and
  every file in flight with it; those files are run again, one at a time, in a fresh pool, and a file
  that breaks a pool on its own gets a row saying so;
- a Dask worker dies: Dask reruns the task elsewhere and gives up after its allowed-failures (3):
  the KilledWorker error becomes the row.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pandas as pd

from irtools.analysis.energy import dram_type_in, with_dram_type
from irtools.loading.discover import discover
from irtools.options import RunOptions
from irtools.sweep.cache import ResultCache
from irtools.sweep.executors import Pool, local_pool
from irtools.sweep.manifest import Manifest, cost_columns
from irtools.sweep.names import NAME_COLUMNS, name_columns
from irtools.sweep.row import ENERGY, SWEEP, SWEEP_FINDINGS, empty_row, energy_columns
from irtools.sweep.work import FileResult, Task, WorkOptions, failed, process
from irtools.trace.discover import discover_trace

NOC_BW_COLUMN = "noc_bw"
"""The manifest column with each run's NoC bandwidth (Gemini's input line): the noc model runs at it."""

WORKER_DIED = (
    "worker died: the process analyzing this file ended (killed, out of memory, or a crash in native "
    "code), also when run alone"
)


@dataclass
class SweepCounts:
    """What a sweep did: files seen, analyzed and from the cache, failures, error findings, rows written."""

    files: int = 0
    analyzed: int = 0
    errors: int = 0
    cached: int = 0
    failed: int = 0
    missing: int = 0
    rows: int = 0
    findings: int = 0
    interrupted: bool = False


Sink = Callable[[list[dict[str, Any]], list[dict[str, Any]]], None]
"""Receives each file's rows (one per manifest run) and its findings, as they arrive."""


@dataclass
class Sweep:
    """One sweep: the files, how to run them, where results go."""

    files: list[str]
    options: WorkOptions = field(default_factory=WorkOptions)
    cache: ResultCache | None = None
    manifest: Manifest | None = None
    counts: SweepCounts = field(default_factory=SweepCounts)

    def run(self, pool_context: Any, sink: Sink, progress: Callable[[int, int], None] | None = None) -> None:
        """Compute every file (cache first, then the pool) and hand each result to `sink`."""
        self.counts.files = len(self.files)
        done = 0

        def deliver(result: FileResult) -> None:
            nonlocal done
            done += 1
            row = result.row
            self.counts.analyzed += bool(row.get("analyzed"))
            self.counts.errors += row.get("errors") or 0
            self.counts.failed += str(row.get("status")).startswith(("timeout", "crashed", "worker"))
            self._emit(result, sink)
            if progress:
                progress(done, len(self.files))

        todo: list[tuple[Task, str | None]] = []
        for path in self.files:
            bws = self._run_noc_bws(path)
            key = self._key(path, bws)
            cached = self.cache.get(key) if self.cache and key else None
            if cached is not None:
                self.counts.cached += 1
                runs = {int(bw): makespan for bw, makespan in cached.get("noc_runs", [])}
                deliver(_renamed(FileResult(cached["row"], cached["findings"], noc_runs=runs), path))
            else:
                todo.append((Task(path, path, bws), key))
        self._missing(sink)
        if not todo:
            return
        with pool_context as pool:
            if pool.remote:
                todo = [(Task(t.path, os.path.abspath(t.path), t.noc_bws), k) for t, k in todo]
            keys = {t.path: k for t, k in todo}

            def store(result: FileResult) -> None:
                key = keys.get(result.row["path"])
                if self.cache and key and result.cacheable:
                    entry = {"row": result.row, "findings": result.findings}
                    self.cache.put(key, entry | {"noc_runs": [[bw, m] for bw, m in result.noc_runs.items()]})
                deliver(result)

            execute([t for t, _ in todo], partial(process, options=self.options), pool, store)

    def _key(self, path: str, noc_bws: tuple[int, ...]) -> str | None:
        if self.cache is None:
            return None
        trace = discover_trace(path)  # its path is a column, its bytes give the measured ones
        salt = f"{trace}\0noc runs {noc_bws}"
        return self.cache.key(path, (str(trace) if trace else None,), salt=salt)

    def _run_noc_bws(self, path: str) -> tuple[int, ...]:
        """The NoC bandwidths of the manifest runs that wrote this file (its `noc_bw` column)."""
        if self.manifest is None:
            return ()
        return self.manifest.noc_bws(os.path.basename(path), NOC_BW_COLUMN)

    def _emit(self, result: FileResult, sink: Sink) -> None:
        rows = self._join(result)
        self.counts.rows += len(rows)
        self.counts.findings += len(result.findings)
        sink(rows, result.findings)

    def _join(self, result: FileResult) -> list[dict[str, Any]]:
        """The file's row, once per manifest run naming it (once with empty manifest columns if none)."""
        row = result.row
        if self.manifest is None:
            return [row]
        runs = self.manifest.rows_for(os.path.basename(row["path"])) or [{}]
        return [self._with_run(dict(row), run, result.noc_runs) for run in runs]

    def _with_run(
        self, row: dict[str, Any], run: dict[str, Any], noc_runs: dict[int, int | None] | None = None
    ) -> dict[str, Any]:
        assert self.manifest is not None
        row.update(cost_columns(run, self.manifest.cost_column))
        bw = run.get(NOC_BW_COLUMN)
        if noc_runs and bw in noc_runs:  # the run's own NoC bandwidth overrides --noc-bw
            row.update(noc_bw=bw, makespan_noc=noc_runs[bw])
        latency, makespan, noc = (
            row.get("scheduler_latency"),
            row.get("makespan_dependency"),
            row.get("makespan_noc"),
        )
        if latency is not None and makespan:
            row["latency_ratio"] = latency / makespan
        if latency is not None and noc:
            row["noc_latency_ratio"] = latency / noc
        energy, dram_type = row.get(ENERGY), dram_type_in(run.values())
        if energy is not None and dram_type is not None:
            row.update(energy_columns(with_dram_type(energy, dram_type)))
        if row.get("energy") is not None and row.get("makespan_noc"):  # this run's makespan
            row["energy_delay"] = row["energy"] * row["makespan_noc"]
        if row.get("scheduler_energy") is not None and row.get("energy"):
            row["energy_ratio"] = row["scheduler_energy"] / row["energy"]
        for column in self.manifest.columns():
            row[manifest_column(column)] = run.get(column)
        return row

    def _missing(self, sink: Sink) -> None:
        """A row for each manifest run whose IR file is not among the files."""
        if self.manifest is None:
            return
        present = {os.path.basename(f) for f in self.files}
        for name, run in zip(self.manifest.names, self.manifest.rows_for_all(), strict=True):
            if name in present:
                continue
            row = empty_row(os.path.join(self.manifest.folder, name))
            row.update(status="missing: no IR file of this name under the given paths", analyzed=False)
            self.counts.missing += 1
            self.counts.rows += 1
            sink([self._with_run(row, run)], [])


def _renamed(result: FileResult, path: str) -> FileResult:
    """The result under `path`: a cached result may come from another file with the same bytes (Gemini
    writes the very same IR for runs that differ only in NoC bandwidth), so the columns a name gives
    are always this file's."""
    result.row.update(dict.fromkeys(NAME_COLUMNS))
    result.row.update(name_columns(os.path.basename(path)), path=path)
    for finding in result.findings:
        finding["path"] = path
    return result


def manifest_column(name: str) -> str:
    """A manifest column's name in the sweep table: its own, unless irtools has a column of that name."""
    return f"manifest_{name}" if name in SWEEP.dtypes else name


def manifest_dtypes(manifest: Manifest | None) -> dict[str, str]:
    """The manifest's columns as they follow irtools' columns, with dtypes pandas inferred for them."""
    if manifest is None:
        return {}
    out = {}
    for name in manifest.columns():
        kind = manifest.frame[name].dtype.kind
        out[manifest_column(name)] = {"i": "Int64", "u": "Int64", "f": "float64", "b": "boolean"}.get(
            kind, "str"
        )
    return out


def execute(
    tasks: Sequence[Task],
    work: Callable[[Task], FileResult],
    pool: Pool,
    deliver: Callable[[FileResult], None],
) -> None:
    """Run `work` on every task through `pool`, delivering each result as it completes.

    Files in flight when a local pool breaks are retried one at a time in a fresh pool once the rest
    is done; a file that breaks a pool alone is delivered as a failed row.
    """
    queue: deque[Task] = deque(tasks)
    suspects: deque[Task] = deque()
    executor: Executor = pool.new()
    in_flight: dict[Future[FileResult], Task] = {}
    isolated: Task | None = None  # the suspect running alone, if any
    broken = False
    try:
        while queue or suspects or in_flight:
            if broken and not in_flight:
                pool.stop(executor)
                executor, broken = pool.new(), False
            if not broken:
                if queue:
                    while queue and len(in_flight) < pool.workers * pool.in_flight_per_worker:
                        task = queue.popleft()
                        in_flight[executor.submit(work, task)] = task
                elif suspects and not in_flight:
                    isolated = suspects.popleft()
                    in_flight[executor.submit(work, isolated)] = isolated
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for future in done:
                task = in_flight.pop(future)
                try:
                    result = future.result()
                except BrokenExecutor:
                    broken = True
                    if task is isolated:
                        deliver(failed(task.path, WORKER_DIED))
                    else:
                        suspects.append(task)
                    continue
                except Exception as exc:  # noqa: BLE001 - e.g. Dask's KilledWorker: the file's row says it
                    result = failed(task.path, f"worker failed: {type(exc).__name__}: {exc}")
                if task is isolated:
                    isolated = None
                deliver(result)
    except BaseException:
        pool.abandon(executor)
        raise
    pool.stop(executor)


@dataclass
class Collected:
    """A whole sweep in memory: its rows table, its findings table and its counts."""

    rows: pd.DataFrame
    findings: pd.DataFrame
    counts: SweepCounts


def collect(
    paths: Iterable[str],
    options: WorkOptions | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    allow_empty: bool = False,
    cache: ResultCache | None = None,
    manifest: Manifest | None = None,
) -> Collected:
    """A sweep held in memory, sorted by path: jobs=1 runs in this process, more in local processes."""
    sweep = Sweep(discover(list(paths), allow_empty), options or WorkOptions(), cache, manifest)
    rows: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []

    def sink(new_rows: list[dict[str, Any]], new_findings: list[dict[str, Any]]) -> None:
        rows.extend(new_rows)
        findings.extend(new_findings)

    sweep.run(local_pool(0 if jobs == 1 else jobs), sink, progress)
    order = sorted(range(len(rows)), key=lambda i: rows[i]["path"])
    dtypes = SWEEP.dtypes | manifest_dtypes(manifest)
    table = pd.DataFrame({c: pd.Series([rows[i].get(c) for i in order], dtype=t) for c, t in dtypes.items()})
    found = SWEEP_FINDINGS.frame({c: [f[c] for f in findings] for c in SWEEP_FINDINGS.dtypes})
    found = found.sort_values("path", kind="stable", ignore_index=True)
    return Collected(table, found, sweep.counts)


def sweep_table(
    paths: Sequence[str],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    max_bytes: int | None = None,
    allow_empty: bool = False,
) -> pd.DataFrame:
    """Summaries of every IR under `paths` (files or directories), sorted by path, computed in this
    process or `jobs` local processes, without a cache (the library entry point; the CLI streams)."""
    return collect(paths, WorkOptions(RunOptions(max_bytes=max_bytes)), jobs, progress, allow_empty).rows
