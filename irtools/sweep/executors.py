"""Where the per-file work runs: any concurrent.futures executor, chosen by the command line.

- local (default): a ProcessPoolExecutor of --jobs processes, started with the sweep, nothing to install.
- dask: dask.distributed's Client.get_executor() on a LocalCluster of --jobs worker processes, or on a
  running cluster (--scheduler tcp://HOST:8786), whatever started it (dask-scheduler by hand,
  dask-jobqueue on Slurm/PBS, dask-kubernetes): the work is the same function either way.
- inline: in this process, one file after another (the library's default for one job; no isolation).
"""

from __future__ import annotations

import importlib.util
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from irtools.rules.registry import UsageError

T = TypeVar("T")


@dataclass
class Pool:
    """An executor that can be replaced after its workers died, and how many files it runs at once."""

    new: Callable[[], Executor]
    workers: int
    description: str
    remote: bool = False
    """Workers may not share this process's working directory: send them absolute paths."""
    in_flight_per_worker: int = 2
    """Files submitted ahead per worker: enough to hide the executor's round trip (a Dask task's is
    milliseconds), few enough that a broken local pool has few files to rerun."""
    stop: Callable[[Executor], None] = lambda executor: executor.shutdown(wait=True)
    """End an executor; after Ctrl-C, `abandon` instead ends it without waiting for running files."""
    abandon: Callable[[Executor], None] = lambda executor: executor.shutdown(wait=False, cancel_futures=True)


class InlineExecutor(Executor):
    """Runs each submitted call at once in this process: the executor interface without processes."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Run `fn` now, in this process, and return its outcome as a finished future."""
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(exc)
        return future


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group: the sweep's own process handles it (ends the workers, keeps
    # the partial output); a worker that also raised would print a traceback per file.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _terminate(executor: Executor) -> None:
    """End a local pool now, even with files running (after Ctrl-C): kill its processes."""
    processes = getattr(executor, "_processes", None) or {}  # no public way before Python 3.14
    for process in list(processes.values()):
        process.terminate()
    executor.shutdown(wait=False, cancel_futures=True)


@contextmanager
def local_pool(jobs: int) -> Iterator[Pool]:
    """A pool of `jobs` local worker processes, or this process itself when `jobs` is 0."""
    if jobs == 0:
        yield Pool(InlineExecutor, 1, "this process")
        return
    yield Pool(
        lambda: ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint),
        jobs,
        f"{jobs} local process{'es' if jobs > 1 else ''}",
        abandon=_terminate,
    )


DASK_IN_FLIGHT_PER_WORKER = 16
"""Dask hands each task to a worker through a scheduler round trip: more tasks queued per worker keep
workers busy between small files (a dead Dask worker's tasks are rerun by Dask, not by us)."""


def dask_available() -> bool:
    """Whether dask.distributed is installed (the sweep extra)."""
    return importlib.util.find_spec("distributed") is not None


@contextmanager
def dask_pool(scheduler: str | None, jobs: int) -> Iterator[Pool]:
    """A Dask client executor: on the cluster at `scheduler`, or on a LocalCluster of `jobs` processes."""
    if not dask_available():
        raise UsageError("the dask executor needs dask.distributed: pip install 'irtools[sweep]'")
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"--scheduler: cannot reach a Dask scheduler at {scheduler}: {exc}") from None
        cluster = None
    else:
        # One thread per worker process: the work is CPU-bound Python, threads would share one GIL.
        # dashboard_address=None still binds Dask's default 8787 (and warns when another cluster holds
        # it); ":0" takes any free port, so sweeps side by side do not collide.
        cluster = LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        )
        client = Client(cluster)
    try:
        _check_workers(client)
        workers = max(sum(client.nthreads().values()), 1)
        where = scheduler or f"a local Dask cluster of {jobs} process{'es' if jobs > 1 else ''}"
        executor = client.get_executor(pure=False)
        yield Pool(
            lambda: executor,
            workers,
            f"{where} ({workers} worker threads)",
            remote=scheduler is not None,
            in_flight_per_worker=DASK_IN_FLIGHT_PER_WORKER,
            stop=lambda e: None,
            abandon=lambda e: None,
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _check_workers(client: Any) -> None:
    """Workers must run this irtools version: cached results and rows would otherwise mix versions."""
    from irtools import __version__

    def version() -> str:
        import irtools

        return irtools.__version__

    try:
        found = client.run(version)
    except Exception as exc:  # noqa: BLE001 - a worker without irtools fails to unpickle the call
        raise UsageError(
            f"the Dask workers cannot run irtools ({type(exc).__name__}: {exc}); "
            "install the same irtools on every worker"
        ) from None
    other = {w: v for w, v in found.items() if v != __version__}
    if other:
        raise UsageError(
            f"Dask workers run another irtools version than this one ({__version__}): "
            + ", ".join(f"{w}: {v}" for w, v in sorted(other.items()))
        )


def executor_pool(kind: str, jobs: int, scheduler: str | None) -> Any:
    """The pool context for the command line's choice (a --scheduler implies dask)."""
    if scheduler or kind == "dask":
        return dask_pool(scheduler, jobs)
    return local_pool(jobs)
