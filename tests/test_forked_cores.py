"""`validate --jobs 2` on one file shares its cores with a forked child (irtools.forked_cores): the
report is exactly the one-process report, on real, generated and fuzzed files; where the child's checks
cannot be taken as they are (a core the models read, a crash, a child that dies) the file is checked
again in one process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irtools.validate as validate_module
from irtools import forked_cores
from irtools.dialects import DIALECTS
from irtools.findings import FileReport
from irtools.loading import decoder
from irtools.loading.decoder import Reread
from irtools.loading.discover import discover
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.validate import validate_file, validate_paths
from tests.budget import examples
from tests.conftest import ROOT
from tests.rules.test_screens import INJECT, OPTIONS, _base, fuzzed_files, synth_files
from tests.rules.test_streaming import crash_per_core

FIXTURES = ROOT.parent / "shared" / "fixtures"
RAW_16_CORES = str(FIXTURES / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json")
MULTI_CORE = sorted(
    path
    for folder in ("gemini-raw", "gemini-alloc", "gemini-sweep")
    for path in discover([str(FIXTURES / folder)], False)
)


@pytest.fixture
def joins(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every file forks (whatever its size); the list collects whether each child's checks were taken."""
    monkeypatch.setattr(forked_cores, "MIN_BYTES", 0)
    # The suite's process may hold a thread another test started (dask's idle offload thread): a
    # validate process has none, and these forks take no lock such a thread could hold.
    monkeypatch.setattr(forked_cores, "_may_fork", lambda: True)
    taken: list[bool] = []
    close = forked_cores.ForkedCores.close

    def noted(self: forked_cores.ForkedCores) -> None:
        if self.forked:
            taken.append(self.joined)
        close(self)

    monkeypatch.setattr(forked_cores.ForkedCores, "close", noted)
    return taken


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files validate loads: one each, unless a whole-file step read a dropped field (read again)."""
    loaded: list[str] = []

    def noted(source: Any, *args: Any, **kwargs: Any) -> Any:
        loaded.append(str(source))
        return load_ir(source, *args, **kwargs)

    monkeypatch.setattr(validate_module, "load_ir", noted)
    return loaded


ChildTakes = Callable[[int, int], bool]
"""Whether the child takes the core at this place among that many cores."""

SHARES: dict[str, ChildTakes] = {
    "alternate": lambda place, count: place % 2 == 1,
    "later": lambda place, count: place >= count // 3,
    "all but the first": lambda place, count: place > 0,
    "none": lambda place, count: False,
}
"""Deterministic ways the cores may fall to either process (the race of `Claims` gives any of them)."""


def _share(child_takes: ChildTakes) -> Callable[[forked_cores.Claims, str], bool]:
    """A `Claims.__call__` giving the child the cores `child_takes` says, this process the others."""
    parent = os.getpid()

    def claim(claims: forked_cores.Claims, key: str) -> bool:
        return child_takes(claims.place[key], len(claims.place)) == (os.getpid() != parent)

    return claim


def _both(path: str | Path, options: RunOptions | None = None) -> tuple[FileReport, FileReport]:
    return validate_file(str(path), options), validate_file(str(path), options, fork=True)


@pytest.mark.parametrize("share", [*SHARES, "raced"])
def test_real_multi_core_files_report_the_same_with_a_child(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch, share: str
) -> None:
    if share != "raced":
        monkeypatch.setattr(forked_cores.Claims, "__call__", _share(SHARES[share]))
    for path in MULTI_CORE:
        alone, forked = _both(path)
        assert forked == alone, path
    # Every real file's child checked its cores exactly: its findings were taken, not read again.
    assert joins == [True] * len(MULTI_CORE)


def test_findings_in_the_childs_cores_come_back(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(forked_cores.Claims, "__call__", _share(SHARES["alternate"]))
    inject, _ = INJECT["raw"]
    path = tmp_path / "injected.json"
    path.write_text(json.dumps(inject(_raw_base(), ["GIR201", "GIR203", "GIR204"], 1).document))
    alone, forked = _both(path)
    assert joins == [True]
    assert forked == alone and len(alone.findings) >= 3


def _raw_base() -> dict[str, Any]:
    base: dict[str, Any] = json.loads(_base(1, "raw"))  # the larger synth base: 2x2 cores
    return base


@pytest.mark.bounded  # generated input: under the memory bound of tests/budget.py
def test_generated_and_fuzzed_files_report_the_same_with_a_child(joins: list[bool]) -> None:
    dialects = list(DIALECTS)
    codes = sorted({code for _, listed in INJECT.values() for code in listed})

    @settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        data=st.one_of(
            st.sampled_from(codes).flatmap(lambda code: synth_files(code, dialects)), fuzzed_files()
        ),
        share=st.sampled_from(sorted(SHARES)),
        opt_in=st.booleans(),
    )
    def same(data: bytes, share: str, opt_in: bool) -> None:
        setattr(forked_cores.Claims, "__call__", _share(SHARES[share]))  # noqa: B010 - undone below
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "ir.json"
            path.write_bytes(data)
            alone, forked = _both(path, OPTIONS if opt_in else None)
        assert forked == alone

    claim = forked_cores.Claims.__call__
    try:
        same()
    finally:
        setattr(forked_cores.Claims, "__call__", claim)  # noqa: B010
    assert True in joins  # some children's checks were taken, not all read again


def _with_a_repeated_key(path: str) -> bytes:
    """The file with one workload of its last core writing `workload_id` twice."""
    document = json.loads(Path(path).read_bytes())
    last = [key for key in document if key != "-1" and key.isdigit()][-1]
    text = json.dumps(document)
    workload = json.dumps(document[last][-1])
    assert text.count(workload) == 1
    repeated = workload.replace('"workload_id": ', '"workload_id": 0, "workload_id": ', 1)
    return text.replace(workload, repeated).encode()


def test_a_repeated_key_in_the_childs_cores_is_found_in_one_process(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(
        forked_cores.Claims, "__call__", _share(SHARES["later"])
    )  # the last core: the child's
    path = tmp_path / "repeated.json"
    path.write_bytes(_with_a_repeated_key(MULTI_CORE[0]))
    alone, forked = _both(path)
    assert joins == [False]  # the child read that core with the models: the file is checked again
    assert forked == alone
    assert [f.code for f in alone.findings if f.code == "GIR102"] == ["GIR102"]


def _cores_in_order(document: dict[str, Any]) -> list[str]:
    return [key for key in document if key != "-1" and key.isdigit()]


def test_keys_left_out_are_counted_across_both_processes(
    joins: list[bool], reads: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """GIR104 counts the keys the scheduler left out over the whole file, its pointer the first: the child
    scans its cores' keys and this process adds them, each core in its place (irtools.dialects.raw.keys
    `add_cores`)."""
    monkeypatch.setattr(forked_cores.Claims, "__call__", _share(SHARES["alternate"]))
    document = json.loads(Path(RAW_16_CORES).read_bytes())
    cores = _cores_in_order(document)
    # The first in the child's cores (odd places), then one of this process's, then the child's again.
    for key, position in ((cores[1], 2), (cores[-2], 5), (cores[-1], 0)):
        del document[key][position]["buffer"]
    path = tmp_path / "omitted.json"
    path.write_text(json.dumps(document))
    forked = validate_file(str(path), fork=True)
    assert joins == [True] and reads == [str(path)]  # the child's part taken, the file read once
    assert forked == validate_file(str(path))
    omitted = [(f.message.split(":")[0], f.pointer) for f in forked.findings if f.code == "GIR104"]
    assert omitted == [("key 'buffer' left out in RawWorkload (3 occurrences)", f"/{cores[1]}/2")]


def test_extension_keys_are_noted_across_both_processes(
    joins: list[bool], reads: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(forked_cores.Claims, "__call__", _share(SHARES["alternate"]))
    document = json.loads(_base(1, "documented"))
    cores = _cores_in_order(document)
    for key in (cores[1], cores[2]):  # the child's core, then this process's: the child's is named
        document[key][0]["buffer"][0]["start_send"] = False
    document[cores[-1]][1]["wl1_buffer"] = None
    path = tmp_path / "extensions.json"
    path.write_text(json.dumps(document))
    forked = validate_file(str(path), fork=True)
    assert joins == [True] and reads == [str(path)]
    assert forked == validate_file(str(path))
    alone = forked
    notes = {(f.message.split(":")[0], f.pointer) for f in alone.findings if "extension key" in f.message}
    assert notes == {
        ("extension key 'wl1_buffer' in Workload", f"/{cores[-1]}/1/wl1_buffer"),
        ("extension key 'start_send' in BufferEntry (2 occurrences)", f"/{cores[1]}/0/buffer/0/start_send"),
    }


def test_a_schema_error_in_the_childs_snapshots_is_found_in_one_process(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """This process skims the child's cores' snapshots unchecked; the child reads the broken one with the
    models, so the file is checked again in one process, with the models' finding."""
    monkeypatch.setattr(forked_cores.Claims, "__call__", _share(SHARES["later"]))
    document = json.loads(Path(RAW_16_CORES).read_bytes())
    entry = document[_cores_in_order(document)[-1]][3]["buffer"][0]
    entry["block"] = "many"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document))
    alone, forked = _both(path)
    assert joins == [False]
    assert forked == alone
    assert any(f.code == "GIR101" and "/buffer/0/block" in f.pointer for f in alone.findings)


def test_a_rule_crashing_in_the_child_is_reported_once(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    crash_per_core(monkeypatch)
    alone, forked = _both(MULTI_CORE[0])
    assert joins == [False]
    assert forked == alone
    assert [f.message for f in forked.findings if f.code == "GIR001"] == [
        "rule GIR505 crashed: RuntimeError: boom"
    ]


def test_a_child_that_dies_leaves_the_file_to_one_process(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    def dies(*args: object) -> None:
        os._exit(3)

    monkeypatch.setattr(forked_cores, "_check_in_child", dies)
    alone, forked = _both(MULTI_CORE[0])
    assert joins == [False]
    assert forked == alone


def test_small_files_are_checked_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[forked_cores.ForkedCores] = []
    init = forked_cores.ForkedCores.__init__

    def noted(self: forked_cores.ForkedCores, *args: Any) -> None:
        init(self, *args)
        made.append(self)

    monkeypatch.setattr(forked_cores.ForkedCores, "__init__", noted)
    assert os.path.getsize(MULTI_CORE[0]) < forked_cores.MIN_BYTES
    validate_file(MULTI_CORE[0], fork=True)
    assert [hook.forked for hook in made] == [False]


def test_jobs_fork_a_single_file_only(joins: list[bool]) -> None:
    one = validate_paths([MULTI_CORE[0]], jobs=2)
    assert joins == [True]
    assert one == validate_paths([MULTI_CORE[0]])
    validate_paths([MULTI_CORE[0]], jobs=1)
    assert joins == [True]  # --jobs 1: one process


def test_a_process_with_another_thread_is_not_forked() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not forked_cores._may_fork()  # a lock that thread holds would stay held in the child
    finally:
        stop.set()
        thread.join()


def test_a_file_is_read_again_at_offsets_not_at_the_handles_place(tmp_path: Path) -> None:
    path = tmp_path / "bytes"
    path.write_bytes(b"0123456789")
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        again = Reread(handle, (status.st_size, status.st_mtime_ns))
        handle.seek(7)  # as a forked child sharing the open file would leave it
        assert again.read(2, 5) == b"234"
        assert handle.tell() == 7


def test_a_skimmed_core_holds_none_where_the_file_writes_null() -> None:
    """A skimmed core keeps what the whole-file steps may read as the full decode has it: a `null` weight is
    None (dropping keeps a None), the other skimmed fields the JSON as written."""
    document = json.loads(Path(RAW_16_CORES).read_bytes())
    last = _cores_in_order(document)[-1]
    for workload in document[last]:
        workload.setdefault("weight", None)  # Gemini leaves the key out; another writer may write null
    data = json.dumps(document).encode()
    assert b'"weight": null' in data
    skimmed = decoder.split(data)
    assert skimmed is not None
    skimmed.checked_elsewhere = {last}
    (skim,) = [value for key, value in skimmed.members(skimmed.dialect().parts) if key == last]
    assert skim.checked_elsewhere
    weights = [workload["weight"] is None for workload in document[last]]
    assert True in weights and False in weights
    assert [wl.weight is None for wl in skim.value] == weights
    assert {type(wl.buffer) for wl in skim.value} == {msgspec.Raw}
    assert [wl.workload_id for wl in skim.value] == [workload["workload_id"] for workload in document[last]]


_ORPHAN = """
import os, sys, time
from irtools import forked_cores
from irtools.options import RunOptions
from irtools.validate import validate_file

forked_cores.MIN_BYTES = 0
forked_cores._check_in_child = lambda *args: time.sleep(60)  # a child still at work, or waiting on the lock
fork = os.fork
def noted():
    child = fork()
    if child:
        print(child, flush=True)
        os._exit(0)  # the parent dies at once, as if killed
    return child
os.fork = noted
validate_file(sys.argv[1], RunOptions(), fork=True)
"""


def _ended(pid: int) -> bool:
    """Whether the process is gone or a zombie (ended, not yet reaped by whoever inherited it)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux only (PR_SET_PDEATHSIG)")
def test_a_child_ends_with_its_parent() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _ORPHAN, MULTI_CORE[0]], capture_output=True, text=True, timeout=60, check=True
    )
    child = int(run.stdout)
    for _ in range(100):
        if _ended(child):
            return  # the kernel ended it with its parent (not waiting out its minute)
        time.sleep(0.05)
    os.kill(child, 9)
    raise AssertionError("the forked child outlived its parent")


def test_a_file_is_read_again_without_pread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "pread")  # as on Windows, which cannot fork either
    path = tmp_path / "bytes"
    path.write_bytes(b"0123456789")
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        assert Reread(handle, (status.st_size, status.st_mtime_ns)).read(2, 5) == b"234"


def test_pool_workers_fork_when_there_are_two_cpus_per_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`--jobs 4` on two files: each of the two workers shares its file's cores with a child (the workers are
    forked from this process, so they see the patched size limit and note each fork in a file)."""
    monkeypatch.setattr(forked_cores, "MIN_BYTES", 0)
    close = forked_cores.ForkedCores.close
    notes = tmp_path / "forks"

    def noted(self: forked_cores.ForkedCores) -> None:
        if self.forked:
            with open(notes, "a") as out:
                out.write(f"{self.joined}\n")
        close(self)

    monkeypatch.setattr(forked_cores.ForkedCores, "close", noted)
    files = MULTI_CORE[:2]
    assert validate_paths(files, jobs=4) == validate_paths(files)
    assert notes.read_text().split() == ["True", "True"]
    notes.unlink()
    validate_paths(files, jobs=3)  # fewer than two CPUs per file: no worker forks
    assert not notes.exists()
