"""validate checks a file core by core as it is read (irtools.streaming) and finds exactly what the whole
file's check finds: on every fixture, every sample, and generated and fuzzed files of every dialect.
A step declared `per_core` that read another core, the DRAM section or a file-wide state would differ
here (as GIR303 did: it reports each ring configuration once per file)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irtools.validate as validate_module
from irtools.dialects import DIALECTS
from irtools.dialects.base import Capability
from irtools.findings import Finding
from irtools.loading.columns import (
    TransferColumns,
    dram_writers,
    transfer_columns,
    transfer_uses,
    wait_claims,
)
from irtools.loading.discover import discover
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.rules import RULES
from irtools.rules.context import CheckContext
from irtools.rules.registry import Form, Step
from irtools.streaming import DROPPED, CoreChecks, FieldDropped
from irtools.validate import check_loaded, validate_file
from tests.budget import examples
from tests.conftest import ROOT
from tests.rules.test_screens import OPTIONS, fuzzed_files, synth_files

FIXTURES = ROOT.parent / "shared" / "fixtures"
SAMPLES = ROOT / "sample_ir"


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=Finding.sort_key)  # as FileReport orders them: stable, ties kept


def _streamed(source: str | bytes, options: RunOptions) -> list[Finding] | None:
    """The findings checked core by core, None when a whole-file step read a dropped field."""
    cores = CoreChecks(options)
    loaded = load_ir(source, on_core=cores)
    try:
        return check_loaded(loaded, options, cores=cores if loaded.cores_handed else None)
    except FieldDropped:
        return None


def _assert_same(source: str | bytes, options: RunOptions) -> bool:
    """Whether the file was checked core by core to the end; its findings equal the whole check's."""
    streamed = _streamed(source, options)
    if streamed is not None:
        assert _sorted(streamed) == _sorted(check_loaded(load_ir(source), options)), source
    return streamed is not None


def _files(root: Path) -> list[str]:
    return discover([str(root)], False)


@pytest.mark.parametrize("options", [RunOptions(), OPTIONS], ids=["defaults", "opt-in-rules"])
def test_fixtures_and_samples_find_the_same_core_by_core(options: RunOptions) -> None:
    files = _files(FIXTURES) + _files(SAMPLES)
    read_twice = [Path(path) for path in files if not _assert_same(path, options)]
    # Only samples of cross-core defects, whose reference checks read the flagged workloads' tensors.
    assert read_twice and all("invalid" in p.parts for p in read_twice), read_twice
    assert all(p.name.startswith(("GIR20", "GIR501", "GIR502")) for p in read_twice), read_twice


def test_real_multi_core_files_are_read_once() -> None:
    """The memory saving reaches the real scheduler files: none needs its snapshots or tensors after its cores."""
    real = [p for d in ("gemini-raw", "gemini-alloc", "gemini-sweep") for p in _files(FIXTURES / d)]
    assert real
    for path in real:
        assert _streamed(path, RunOptions()) is not None, path


@pytest.mark.bounded  # generated input: under the memory bound of tests/budget.py
@given(
    data=st.one_of(
        *(synth_files(code, list(DIALECTS)) for code in ("GIR302", "GIR305", "GIR504", "GIR201")),
        fuzzed_files(),
    )
)
@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_generated_files_find_the_same_core_by_core(data: bytes) -> None:
    _assert_same(data, OPTIONS)


@pytest.mark.parametrize("kind", ["gemini", "gemini-raw", "gemini-alloc", "gemini-sweep"])
def test_the_whole_files_columns_made_from_its_cores_are_the_ones_built_whole(kind: str) -> None:
    """The transfer graph's columns and the DRAM writers (same columns, same order, same dtype), the
    transfer uses (the same pairs, each once) and the raw files' wait claims (the same claims) that the
    whole-file screens read, given from the cores as they were read."""
    for path in _files(FIXTURES / kind):
        cores = CoreChecks(RunOptions())
        streamed = load_ir(path, on_core=cores)
        if streamed.ir is None:
            continue
        given = IRIndex(streamed, RunOptions())
        cores.give_columns(given)
        built = IRIndex(load_ir(path), RunOptions())
        mine, theirs = transfer_columns(given), transfer_columns(built)
        assert (mine is None) == (theirs is None), path
        for name in TransferColumns.__dataclass_fields__ if mine and theirs else ():
            a, b = getattr(mine, name), getattr(theirs, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), (path, name)
        uses, whole = transfer_uses(given), transfer_uses(built)
        assert uses is not None and whole is not None
        assert sorted(zip(*(u.tolist() for u in uses), strict=True)) == sorted(
            set(zip(*(u.tolist() for u in whole), strict=True))
        ), path
        mine_writers, their_writers = dram_writers(given), dram_writers(built)
        assert mine_writers is not None and their_writers is not None
        for name in ("row", "tid", "frame"):
            a, b = getattr(mine_writers, name), getattr(their_writers, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), (path, name)
        if given.has(Capability.DRAM_WAITS):
            assert _claims(given) == _claims(built), path


def _claims(index: IRIndex) -> list[tuple[int, int, bool, tuple[int, ...]]]:
    """Each waiting tensor's (row, claimed id, is a weight, transfer ids), in row order."""
    claims = wait_claims(index)
    assert claims is not None
    tids: list[list[int]] = [[] for _ in claims.row]
    for tensor, tid in zip(claims.tensor.tolist(), claims.tid.tolist(), strict=True):
        tids[tensor].append(tid)
    rows = zip(
        claims.row.tolist(), claims.claimed.tolist(), claims.weight.tolist(), map(tuple, tids), strict=True
    )
    return sorted(rows)


@pytest.mark.parametrize("kind", ["gemini", "gemini-raw", "gemini-alloc"])
def test_snapshots_and_tensors_are_dropped_as_cores_are_read(kind: str) -> None:
    """Every workload's L2 snapshot, tensors and range, and in documented files its WL0 snapshot and tiles
    where it has them, is the sentinel once validate has read its core; reading one raises."""
    path = _files(FIXTURES / kind)[0]
    loaded = load_ir(path, on_core=CoreChecks(RunOptions()))
    assert loaded.cores_handed and loaded.ir is not None
    workloads = [w for ws in loaded.ir.cores.values() for w in ws]
    assert workloads and all(w.buffer is DROPPED and w.workload is DROPPED for w in workloads)
    inputs = "ifmap" if kind == "gemini" else "waits"
    assert all(getattr(w, inputs) is DROPPED and w.weight in (None, DROPPED) for w in workloads)
    assert all(w.ofmap is DROPPED for w in workloads)
    with pytest.raises(FieldDropped):
        list(workloads[0].buffer)
    with pytest.raises(FieldDropped):  # a tensor that is one object, not a list
        assert getattr(workloads[0], inputs).transfer_id


def test_a_whole_file_step_reading_a_dropped_field_gets_the_file_read_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GIR201's check reads the snapshots of the workloads its screen flags: the sample is read twice,
    and validate reports the whole check's findings."""
    path = str(SAMPLES / "invalid" / "GIR201-dangling-transfer.json")
    assert _streamed(path, RunOptions()) is None
    reads: list[str] = []

    def counting(source: str, **kwargs: object) -> object:
        reads.append(source)
        return load_ir(source, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(validate_module, "load_ir", counting)
    report = validate_file(path)
    assert len(reads) == 2
    whole = _sorted(check_loaded(load_ir(path), RunOptions()))
    assert [(f.code, f.pointer, f.message) for f in report.findings] == [
        (f.code, f.pointer, f.message) for f in whole
    ]
    assert any(f.code == "GIR201" for f in report.findings)


def crash_per_core(monkeypatch: pytest.MonkeyPatch, code: str = "GIR505") -> None:
    """Make the rule `code` a per-core step that raises RuntimeError("boom") on every core."""

    def crash(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
        raise RuntimeError("boom")

    entry = RULES[code]
    assert entry.main is not None
    broken = Form(entry.main.needs, (Step(crash, per_core=True),))
    monkeypatch.setitem(RULES, code, dataclasses.replace(entry, main=broken))


def test_a_per_core_step_that_crashes_is_reported_once(monkeypatch: pytest.MonkeyPatch) -> None:
    crash_per_core(monkeypatch)
    path = _files(FIXTURES / "gemini-raw")[0]
    findings = validate_file(path).findings
    crashes = [f for f in findings if f.code == "GIR001"]
    assert [f.message for f in crashes] == ["rule GIR505 crashed: RuntimeError: boom"]
    assert any(f.code == "GIR103" for f in findings)  # the other rules' findings are kept
