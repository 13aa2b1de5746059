"""What a worker does for one file: its row and findings, within a time limit, never raising.

Runs in a local worker process, a Dask worker thread, or this process; everything it takes and
returns is plain data, so any executor can carry it.
"""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from irtools.options import RunOptions
from irtools.sweep.row import RUN_NOC_MAKESPANS, empty_row, finding_rows, summarize_with_findings


@dataclass(frozen=True)
class Task:
    """One IR file for a worker: the path for the row, where to read it, the NoC bandwidths of its runs."""

    path: str
    """The file as the user named it (the row's `path`)."""
    location: str
    """Where the worker reads it: the same path locally, an absolute one for a remote cluster."""
    noc_bws: tuple[int, ...] = ()
    """NoC bandwidths of the manifest runs that wrote this file: a noc makespan for each."""


@dataclass(frozen=True)
class WorkOptions:
    """Options of the per-file work: the run's options, which change results (part of the cache key), and
    a `timeout`, which only decides whether there is one (a timed-out row is never cached)."""

    run: RunOptions = field(default_factory=RunOptions)
    timeout: float | None = None

    def result_options(self) -> dict[str, Any]:
        """What the cache keys results by: the options `irtools summarize` takes (--max-mb, --noc-bw,
        --noc-frequency), and the L2 and WL0 sizes, which change the checker's findings, when set."""
        run = self.run
        keyed: dict[str, Any] = {
            "max_bytes": run.max_bytes,
            "noc_bw": run.noc_bw,
            "noc_frequency": run.noc_frequency,
        }
        for name in ("l2_size", "wl0_size", "addr_align"):
            if getattr(run, name) is not None:
                keyed[name] = getattr(run, name)
        return keyed


@dataclass
class FileResult:
    """One file's outcome: its sweep row, its findings rows, and whether the cache may keep it."""

    row: dict[str, Any]
    findings: list[dict[str, Any]]
    cacheable: bool = True
    """False for outcomes that say nothing about the file itself: a timeout, a crash, a lost worker."""
    noc_runs: dict[int, int | None] = field(default_factory=dict)
    """NoC bandwidth -> noc makespan, for the Task's `noc_bws`."""


class FileTimeout(BaseException):
    """Raised inside the work when the file's time is up. A BaseException, as KeyboardInterrupt is: it lands
    between any two bytecodes, and the work's own `except Exception` (a rule's crash kept as GIR001, a
    batch of snapshot tables that fails and is built again whole) must not take it for the work's error."""


def process(task: Task, options: WorkOptions) -> FileResult:
    """The file's sweep row and findings; a timeout or an unexpected error becomes a row saying so."""
    try:
        with time_limit(options.timeout):
            row, findings = summarize_with_findings(task.location, options.run, task.noc_bws)
        runs = {int(bw): makespan for bw, makespan in row.pop(RUN_NOC_MAKESPANS, None) or []}
        result = FileResult(row, finding_rows(task.path, findings), noc_runs=runs)
    except FileTimeout:
        result = failed(task.path, f"timeout: not done after {options.timeout:g} s (--timeout)")
    except Exception as exc:  # noqa: BLE001 - one file's crash must not end the sweep
        result = failed(task.path, f"crashed: {type(exc).__name__}: {exc}")
    result.row["path"] = task.path
    return result


def failed(path: str, reason: str) -> FileResult:
    """A row for a file the sweep could not measure, with the reason as its status."""
    row = empty_row(path)
    row.update(status=reason, analyzed=False)
    return FileResult(row, [], cacheable=False)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise FileTimeout in this thread after `seconds`.

    In a process's main thread (local workers) a SIGALRM timer interrupts the work; in other threads
    (Dask runs tasks in a worker's thread pool) the exception is set on the thread asynchronously. Both
    take effect between Python bytecodes: a single long call into C (json.loads of one huge core)
    finishes first.
    """
    if not seconds:
        yield
        return
    if threading.current_thread() is threading.main_thread():
        with _alarm(seconds):
            yield
        return
    with _thread_alarm(seconds):
        yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise FileTimeout

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _thread_alarm(seconds: float) -> Iterator[None]:
    target = threading.get_ident()
    lock = threading.Lock()
    finished = False

    def ring() -> None:
        with lock:
            if not finished:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(target), ctypes.py_object(FileTimeout)
                )

    timer = threading.Timer(seconds, ring)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            finished = True
        timer.cancel()
