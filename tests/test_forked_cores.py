"""`validate --jobs 2` on one file checks its later cores in a forked child (irtools.forked_cores): the
report is exactly the one-process report, on real, generated and fuzzed files; where the child's checks
cannot be taken as they are (a core the models read, a crash, a child that dies) the file is checked
again in one process."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irtools import forked_cores
from irtools.dialects import DIALECTS
from irtools.findings import FileReport, Finding
from irtools.loading.decoder import Reread
from irtools.loading.discover import discover
from irtools.loading.index import IRIndex
from irtools.options import RunOptions
from irtools.rules import RULES
from irtools.rules.context import CheckContext
from irtools.rules.registry import Form, Step
from irtools.validate import validate_file, validate_paths
from tests.budget import examples
from tests.conftest import ROOT
from tests.rules.test_screens import INJECT, OPTIONS, _base, fuzzed_files, synth_files

FIXTURES = ROOT.parent / "shared" / "fixtures"
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
    join = forked_cores.ForkedCores.join

    def noted(self: forked_cores.ForkedCores) -> bool:
        taken.append(join(self))
        return taken[-1]

    monkeypatch.setattr(forked_cores.ForkedCores, "join", noted)
    return taken


def _both(path: str | Path, options: RunOptions | None = None) -> tuple[FileReport, FileReport]:
    return validate_file(str(path), options), validate_file(str(path), options, fork=True)


@pytest.mark.parametrize("share", [0.3, 0.95])
def test_real_multi_core_files_report_the_same_with_a_child(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch, share: float
) -> None:
    monkeypatch.setattr(forked_cores, "SHARE", share)
    for path in MULTI_CORE:
        alone, forked = _both(path)
        assert forked == alone, path
    # Every real file's child checked its cores exactly: its findings were taken, not read again.
    assert joins == [True] * len(MULTI_CORE)


def test_findings_in_the_childs_cores_come_back_in_order(joins: list[bool], tmp_path: Path) -> None:
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
        share=st.sampled_from([0.2, 0.6, 0.95]),
        opt_in=st.booleans(),
    )
    def same(data: bytes, share: float, opt_in: bool) -> None:
        forked_cores.SHARE = share
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "ir.json"
            path.write_bytes(data)
            alone, forked = _both(path, OPTIONS if opt_in else None)
        assert forked == alone

    share = forked_cores.SHARE
    try:
        same()
    finally:
        forked_cores.SHARE = share
    assert True in joins  # some children's checks were taken, not all read again


def _with_a_repeated_key(path: str) -> bytes:
    """The file with one workload of its last core writing `workload_id` twice."""
    document = json.loads(Path(path).read_bytes())
    last = [key for key in document if key != "-1" and key.isdigit()][-1]  # the child takes the last cores
    text = json.dumps(document)
    workload = json.dumps(document[last][-1])
    assert text.count(workload) == 1
    repeated = workload.replace('"workload_id": ', '"workload_id": 0, "workload_id": ', 1)
    return text.replace(workload, repeated).encode()


def test_a_repeated_key_in_the_childs_cores_is_found_in_one_process(
    joins: list[bool], tmp_path: Path
) -> None:
    path = tmp_path / "repeated.json"
    path.write_bytes(_with_a_repeated_key(MULTI_CORE[0]))
    alone, forked = _both(path)
    assert joins == [False]  # the child read that core with the models: the file is checked again
    assert forked == alone
    assert [f.code for f in alone.findings if f.code == "GIR102"] == ["GIR102"]


def test_a_rule_crashing_in_the_child_is_reported_once(
    joins: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
        raise RuntimeError("boom")

    entry = RULES["GIR505"]
    assert entry.main is not None
    broken = Form(entry.main.needs, (Step(crash, per_core=True),))
    monkeypatch.setitem(RULES, "GIR505", dataclasses.replace(entry, main=broken))
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
