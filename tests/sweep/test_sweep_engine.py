"""The sweep engine: executors give the same rows, failures become rows, the cache, partial outputs."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from irtools.analysis import snapshots
from irtools.findings import Finding
from irtools.rules import RULES
from irtools.rules.registry import Form, Step
from irtools.sweep.cache import ResultCache
from irtools.sweep.engine import Sweep, collect, execute
from irtools.sweep.executors import dask_available, dask_pool, local_pool
from irtools.sweep.output import TableStream
from irtools.sweep.row import SWEEP
from irtools.sweep.work import FileResult, FileTimeout, Task, WorkOptions, process
from irtools.sweep.write import write_sweep
from tests.analysis.builders import MESH
from tests.conftest import ROOT, RunCli

POISON = "poison_2x2_ir.json"


def _sweep(tmp_path: Path, copies: int = 6) -> Path:
    """Small real files: the 2x2 sample under Gemini-style names, two invalid samples, a truncated file."""
    root = tmp_path / "sweep"
    root.mkdir()
    for i in range(copies):
        shutil.copy(MESH, root / f"conv_2x2_b{i + 1}_noc16_ul512_ir.json")
    for sample in ("GIR201-dangling-transfer.json", "GIR302-buffer-overlap.json"):
        shutil.copy(ROOT / "sample_ir" / "invalid" / sample, root / sample)
    (root / "truncated_2x2_ir.json").write_text('{"-1": ')
    return root


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=SWEEP.dtypes, keep_default_na=False, na_values=[""])


# Work functions for the failure tests: module-level, so that worker processes can unpickle them.


def kill_on_poison(task: Task) -> FileResult:
    """Kills its worker process on the poison file, as the kernel's OOM killer would."""
    if task.path.endswith(POISON):
        os.kill(os.getpid(), signal.SIGKILL)
    return process(task, WorkOptions())


def kill_once(task: Task) -> FileResult:
    """Kills its worker the first time it meets the poison file (a marker file remembers), then works."""
    marker = Path(task.location).with_suffix(".killed")
    if task.path.endswith(POISON) and not marker.exists():
        marker.write_text("")
        os.kill(os.getpid(), signal.SIGKILL)
    return process(task, WorkOptions())


def test_local_processes_and_this_process_give_the_same_tables(tmp_path: Path) -> None:
    root = _sweep(tmp_path)
    inline, pooled = collect([str(root)]), collect([str(root)], jobs=2)
    pd.testing.assert_frame_equal(inline.rows, pooled.rows)
    pd.testing.assert_frame_equal(inline.findings, pooled.findings)
    rows = inline.rows.set_index(inline.rows["path"].map(lambda p: Path(p).name))
    assert rows.loc[
        "conv_2x2_b3_noc16_ul512_ir.json", ["batch", "noc_bw_in_name", "l2_kb", "mesh_x"]
    ].tolist() == [
        3,
        16,
        512,
        2,
    ]
    assert rows.loc["GIR302-buffer-overlap.json", "errors"] == 1
    # The findings table holds every finding with its file: the overlap the sample was made for.
    overlap = inline.findings[inline.findings["code"] == "GIR302"]
    assert overlap["path"].str.endswith("GIR302-buffer-overlap.json").all() and len(overlap) == 1


def test_a_killed_worker_costs_one_row_not_the_sweep(tmp_path: Path) -> None:
    root = _sweep(tmp_path)
    shutil.copy(MESH, root / POISON)
    tasks = [Task(str(p), str(p)) for p in sorted(root.glob("*.json"))]
    results: list[FileResult] = []
    with local_pool(2) as pool:
        execute(tasks, kill_on_poison, pool, results.append)
    by_name = {Path(r.row["path"]).name: r.row for r in results}
    assert sorted(by_name) == sorted(Path(t.path).name for t in tasks)  # every file has its row
    assert by_name[POISON]["status"].startswith("worker died")
    # The files that shared the broken pool were run again and measured.
    assert sum(r["status"] == "ok" for r in by_name.values()) == 8  # 6 copies, 2 invalid samples
    assert by_name["truncated_2x2_ir.json"]["status"] == "not an IR that can be analyzed"


def test_a_timeout_becomes_the_files_row(tmp_path: Path, fixtures_dir: Path) -> None:
    big = fixtures_dir / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"  # 0.6 MB
    result = process(Task(str(big), str(big)), WorkOptions(timeout=0.001))
    assert result.row["status"] == "timeout: not done after 0.001 s (--timeout)"
    assert not result.row["analyzed"] and not result.cacheable
    assert result.row["batch"] == 1  # the name still tells the configuration


def test_a_timeout_in_a_worker_thread_as_dask_runs_it(fixtures_dir: Path) -> None:
    big = fixtures_dir / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"
    results: list[FileResult] = []
    worker = threading.Thread(
        target=lambda: results.append(process(Task(str(big), str(big)), WorkOptions(timeout=0.001)))
    )
    worker.start()
    worker.join()
    assert results[0].row["status"].startswith("timeout")


@pytest.mark.parametrize("where", ["per-core rule", "snapshot tables"])
def test_a_timeout_inside_the_works_own_error_handling_still_ends_the_row(
    fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The time limit lands between any two bytecodes: inside a per-core rule (whose crashes the checks keep
    as GIR001) or a batch of snapshot tables (which is built again whole when it fails), it still ends the
    row as a timeout, not as a crash finding or a silent retry."""

    def time_is_up(*args: object, **kwargs: object) -> Iterator[Finding]:
        raise FileTimeout

    if where == "per-core rule":
        entry = RULES["GIR505"]
        assert entry.main is not None
        broken = Form(entry.main.needs, (Step(time_is_up, per_core=True),))
        monkeypatch.setitem(RULES, "GIR505", dataclasses.replace(entry, main=broken))
    else:
        monkeypatch.setattr(snapshots, "snapshot_tables", time_is_up)
    path = str(fixtures_dir / "gemini-raw" / "resnet_2x2_b1_ir.json")
    result = process(Task(path, path), WorkOptions(timeout=600))
    assert result.row["status"].startswith("timeout") and not result.cacheable
    assert result.findings == []


def test_cache_hit_miss_and_identical_bytes_under_other_names(tmp_path: Path) -> None:
    root = _sweep(tmp_path, copies=3)
    cache_dir = tmp_path / "cache"

    def run() -> tuple[Sweep, pd.DataFrame]:
        cache = ResultCache(cache_dir, WorkOptions().result_options())
        sweep = Sweep(sorted(map(str, root.glob("*.json"))), cache=cache)
        rows: list[dict[str, object]] = []
        sweep.run(local_pool(0), lambda r, f: rows.extend(r))
        return sweep, pd.DataFrame(rows).sort_values("path", ignore_index=True)

    first, cold = run()
    # The three copies have the same bytes: one computed result, shown under each file's own name.
    assert first.counts.cached == 0 and sorted(cold["batch"].dropna()) == [1, 2, 3]
    second, warm = run()
    assert second.counts.cached == len(second.files)
    pd.testing.assert_frame_equal(cold, warm)
    # A changed file is recomputed, the others come from the cache.
    with open(root / "GIR302-buffer-overlap.json", "a") as handle:
        handle.write("\n")
    third, _ = run()
    assert third.counts.cached == len(third.files) - 1
    # A torn or foreign entry is a miss, never an error.
    for entry in (cache_dir / "sweep-v1").rglob("*.json"):
        if "stat" not in entry.parts:
            entry.write_text("{not json")
    fourth, _ = run()
    assert fourth.counts.cached == 0
    # A different result-changing option is another key: nothing matches.
    assert ResultCache(cache_dir, {"max_bytes": 1}).key(str(MESH)) != ResultCache(
        cache_dir, WorkOptions().result_options()
    ).key(str(MESH))


def test_no_cache_reads_and_writes_nothing(run_cli: RunCli, tmp_path: Path) -> None:
    root = _sweep(tmp_path, copies=1)
    cache = tmp_path / "cache"
    code, out, err = run_cli("summarize", root, "-o", tmp_path / "s.csv", "--cache-dir", cache, "--no-cache")
    assert code == 0, err
    assert not cache.exists() and "from the cache" not in out


def test_ctrl_c_leaves_a_valid_partial_table(tmp_path: Path) -> None:
    root = _sweep(tmp_path)
    for suffix in (".csv", ".parquet"):
        out = tmp_path / f"sweep{suffix}"
        found = tmp_path / f"sweep.findings{suffix}"
        sweep = Sweep(sorted(map(str, root.glob("*.json"))))

        def interrupt_after_three(done: int, total: int) -> None:
            if done == 3:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            write_sweep(sweep, local_pool(0), out, found, interrupt_after_three)
        table = _read(out) if suffix == ".csv" else pd.read_parquet(out)
        assert len(table) == 3 and list(table.columns) == list(SWEEP.dtypes)
        assert sweep.counts.interrupted
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp left


def test_stream_abort_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "t.csv"
    target.write_text("OLD")
    stream = TableStream(target, {"path": "str"})
    stream.append([{"path": "a"}])
    stream.abort()
    assert target.read_text() == "OLD" and [p.name for p in tmp_path.iterdir()] == ["t.csv"]


needs_dask = pytest.mark.skipif(not dask_available(), reason="dask.distributed not installed (sweep extra)")


@needs_dask
def test_a_local_dask_cluster_gives_the_same_rows(run_cli: RunCli, tmp_path: Path) -> None:
    root = _sweep(tmp_path)
    out = {}
    for executor in ("local", "dask"):
        out[executor] = tmp_path / f"{executor}.csv"
        code, _, err = run_cli(
            "summarize", root, "-o", out[executor], "--executor", executor, "--jobs", "2", "--no-cache"
        )
        assert code == 0, err
    # And on a cluster that runs already (--scheduler): workers get absolute paths, the rows say the
    # paths as given.
    from distributed import LocalCluster

    # ":0": any free port for its dashboard; None would bind 8787, which another test's cluster may hold.
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=50) as cluster:
        out["cluster"] = tmp_path / "cluster.csv"
        code, _, err = run_cli(
            "summarize", root, "-o", out["cluster"], "--scheduler", cluster.scheduler_address, "--no-cache"
        )
        assert code == 0, err
    assert out["local"].read_bytes() == out["dask"].read_bytes() == out["cluster"].read_bytes()
    assert (tmp_path / "local.findings.csv").read_bytes() == (tmp_path / "dask.findings.csv").read_bytes()


@needs_dask
def test_a_killed_dask_worker_is_replaced_and_the_file_rerun(tmp_path: Path) -> None:
    import cloudpickle

    import tests.sweep.test_sweep_engine as this

    cloudpickle.register_pickle_by_value(this)  # the workers need not import the tests
    root = _sweep(tmp_path, copies=3)
    shutil.copy(MESH, root / POISON)
    tasks = [Task(str(p), str(p)) for p in sorted(root.glob("*.json"))]
    results: list[FileResult] = []
    try:
        with dask_pool(None, 2) as pool:
            execute(tasks, kill_once, pool, results.append)
    finally:
        cloudpickle.unregister_pickle_by_value(this)
    statuses = {Path(r.row["path"]).name: r.row["status"] for r in results}
    assert len(statuses) == len(tasks) and statuses[POISON] == "ok"
    assert (root / POISON).with_suffix(".killed").exists()  # it did kill a worker
