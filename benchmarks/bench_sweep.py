"""Sweep throughput: files per second over 1,000 small synthetic IRs, per executor, and a cached rerun.

Run: python benchmarks/bench_sweep.py [--files 1000]

The files come from `irtools synth` (2x2 and 4x4 meshes, 3 to 8 layers, batch 1-4, a few KB each), written
under Gemini's own naming (`synth_4x4_b2_noc16_ul512_ir.json`) so the name columns are filled too. Each
row is the whole sweep through the engine, streaming both tables to CSV, as `irtools summarize` does:
- this process (no executor: the per-file work alone),
- local processes (1 and 2 workers), a 2-worker Dask LocalCluster (its start-up reported apart),
- a rerun with every result in the cache (no worker starts).
The executor's per-file overhead is (sweep time - the same work in this process) / files, per worker.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path

from irtools.synth import SynthOptions, synthesize
from irtools.synth.writer import write_ir


def make_files(folder: Path, count: int) -> list[str]:
    rng = random.Random(19)
    paths = []
    for i in range(count):
        side = rng.choice((2, 4))
        batch, noc, l2 = rng.randint(1, 4), rng.choice((16, 64)), rng.choice((256, 512, 1024))
        options = SynthOptions(xlen=side, ylen=side, layers=rng.randint(3, 8), batch=batch, seed=i)
        path = folder / f"synth{i:04d}_{side}x{side}_b{batch}_noc{noc}_ul{l2}_ir.json"
        write_ir(path, synthesize(options).document)
        paths.append(str(path))
    return paths


def timed_sweep(files: list[str], pool_context: object, out: Path, cache_dir: Path | None) -> float:
    from irtools.sweep.cache import ResultCache
    from irtools.sweep.engine import Sweep
    from irtools.sweep.work import WorkOptions
    from irtools.sweep.write import write_sweep

    options = WorkOptions()
    cache = ResultCache(cache_dir, options.result_options()) if cache_dir else None
    sweep = Sweep(files, options, cache)
    start = time.perf_counter()
    write_sweep(sweep, pool_context, out / "sweep.csv", out / "sweep.findings.csv")
    elapsed = time.perf_counter() - start
    assert sweep.counts.analyzed == len(files), sweep.counts
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--dask-only", action="store_true", help="only this process and the Dask row")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    from irtools.sweep.executors import DASK_IN_FLIGHT_PER_WORKER, Pool, local_pool

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "irs").mkdir()
        files = make_files(folder / "irs", args.files)
        size = sum(os.path.getsize(f) for f in files)
        start = time.perf_counter()
        for f in files:
            json.loads(Path(f).read_bytes())
        parse = time.perf_counter() - start
        rows = []

        def record(name: str, seconds: float, workers: int, note: str = "") -> None:
            rows.append((name, workers, seconds, note))

        inline = timed_sweep(files, local_pool(0), folder, None)
        record("this process (no executor)", inline, 1)
        for jobs in () if args.dask_only else (1, 2):
            record(
                f"local processes, {jobs} worker{'s' if jobs > 1 else ''}",
                timed_sweep(files, local_pool(jobs), folder, None),
                jobs,
            )
        start = time.perf_counter()
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        )
        client = Client(cluster)
        client.run(
            lambda: __import__("irtools.sweep.work")
        )  # import irtools in the workers: part of start-up
        startup = time.perf_counter() - start
        executor = client.get_executor(pure=False)

        class Existing:  # the cluster is started above; the sweep only uses it
            def __enter__(self) -> Pool:
                return Pool(
                    lambda: executor,
                    2,
                    "dask",
                    in_flight_per_worker=DASK_IN_FLIGHT_PER_WORKER,
                    stop=lambda e: None,
                    abandon=lambda e: None,
                )

            def __exit__(self, *exc: object) -> None:
                return None

        record(
            "Dask LocalCluster, 2 worker processes",
            timed_sweep(files, Existing(), folder, None),
            2,
            f"cluster start-up {startup:.1f} s not included",
        )
        client.close()
        cluster.close()
        if not args.dask_only:
            cache = folder / "cache"
            timed_sweep(files, local_pool(2), folder, cache)  # fills the cache
            record("cached rerun (every file a hit)", timed_sweep(files, local_pool(2), folder, cache), 0)

    print(
        f"{len(files)} files, {size / 1e6:.1f} MB in all ({size / len(files) / 1e3:.1f} KB each); "
        f"json.loads of all: {parse:.2f} s; {os.cpu_count()} CPUs\n"
    )
    print(
        "| executor | workers | seconds | files/s | per-file overhead vs this process, ms (x workers) | note |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for name, workers, seconds, note in rows:
        overhead = (
            f"{(seconds * max(workers, 1) - inline) / len(files) * 1e3:.2f}"
            if workers and name != rows[0][0]
            else "-"
        )
        print(
            f"| {name} | {workers or '-'} | {seconds:.2f} | {len(files) / seconds:.0f} | {overhead} | {note} |"
        )


if __name__ == "__main__":
    main()
