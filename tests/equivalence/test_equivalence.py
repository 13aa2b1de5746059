"""The fast core changes no finding: byte-identical `--format json` reports from the fast and the
reference path (irtools.reference) on every sample, every real fixture, a fixed fuzz corpus and synth
IRs of every dialect with injected defects; and the same analysis tables.

Both reports are computed here, at test time, from the same code: the reference path is the
object-by-object core each fast path replaced, kept in the package. So the proof needs no golden
files to regenerate when rules change (a rule change moves both paths, or breaks this test), and
an intended change in a finding is made once, in the reference, and then matched by the fast path.
"""

from __future__ import annotations

import difflib
import io
import itertools
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from irtools.analysis import analyze
from irtools.findings import FileReport, Report
from irtools.loading.load import load_ir
from irtools.reference import reference_core
from irtools.report.json_report import JsonReporter
from irtools.rules.context import CheckOptions
from irtools.synth import INJECTORS, InjectionError, SynthOptions, inject, synthesize
from irtools.synth.alloc import ALLOC_INJECTORS, inject_alloc, to_alloc
from irtools.synth.build import KIB, MIB
from irtools.synth.raw import RAW_INJECTORS, inject_raw, to_raw
from irtools.validate import check_loaded, validate_file
from tests.conftest import FIXTURES, ROOT
from tests.fuzz import mutators as M

OPTIONS = {"default": CheckOptions(), "opt-in": CheckOptions(wl0_size=16384, addr_align=64)}
"""The default rules, and the opt-in ones (GIR308, GIR402) switched on too."""

SAMPLES = sorted(p for p in (ROOT / "sample_ir").rglob("*.json") if not p.name.endswith(".expected.json"))
REAL = sorted(FIXTURES.rglob("*.json")) if FIXTURES.is_dir() else []

CORPUS_SEED = 18
CORPUS_SIZE = 300
"""A fixed corpus: CORPUS_SIZE mutants of the samples and of slices of the real fixtures."""


def _render(report: FileReport) -> str:
    out = io.StringIO()
    JsonReporter().render(Report([report]), out)
    return out.getvalue()


def _file_report(path: Path, options: CheckOptions, reference: bool) -> str:
    with reference_core(reference):
        return _render(validate_file(str(path), options))


def _bytes_report(data: bytes, options: CheckOptions, reference: bool) -> str:
    with reference_core(reference):
        return _render(FileReport("<fuzz>", check_loaded(load_ir(data, "<fuzz>"), options)))


def _same(fast: str, reference: str, what: str) -> None:
    if fast != reference:
        diff = "".join(
            list(
                difflib.unified_diff(reference.splitlines(True), fast.splitlines(True), "reference", "fast")
            )[:60]
        )
        pytest.fail(f"the fast path changed the report of {what}:\n{diff}")


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_samples(path: Path, options: CheckOptions) -> None:
    _same(_file_report(path, options, False), _file_report(path, options, True), path.name)


@pytest.mark.skipif(not REAL, reason="../shared/fixtures not present")
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_real_fixtures(path: Path) -> None:
    options = OPTIONS["default"]
    _same(_file_report(path, options, False), _file_report(path, options, True), path.name)


def corpus() -> list[tuple[str, bytes]]:
    """The fuzz corpus: (name, bytes), reproducible from CORPUS_SEED (the campaign's mutators)."""
    bases = [(p.name, M.base_bytes(p)) for p in M.sample_bases()]
    bases += [(f"{p.name}[{a}:{a + n}]", M.base_bytes(p, (a, n))) for p, (a, n) in M.fixture_bases()]
    rng = random.Random(CORPUS_SEED)
    mutants = []
    for i in range(CORPUS_SIZE):
        name, base = bases[i % len(bases)]
        data, log = M.generate(base, rng)
        mutants.append((f"#{i} {name}: {'; '.join(log)}", data))
    return mutants


def test_fuzz_corpus() -> None:
    # One test over the whole corpus: parametrizing would make 300 ids of mutation logs.
    mutants = corpus()
    assert len(mutants) == CORPUS_SIZE
    for i, (name, data) in enumerate(mutants):
        options = list(OPTIONS.values())[i % 2]
        _same(_bytes_report(data, options, False), _bytes_report(data, options, True), name)


ANALYZED = [p for p in SAMPLES if "valid" in p.parts] + REAL
"""Files whose analysis tables both cores must build identically (the valid samples and the real files)."""


@pytest.mark.parametrize("path", ANALYZED, ids=lambda p: p.name)
def test_analysis_tables(path: Path) -> None:
    loaded = load_ir(path)
    tables = {}
    for reference in (False, True):
        with reference_core(reference):
            tables[reference] = analyze(loaded).tables(links=True)
    assert tables[False].keys() == tables[True].keys()
    for name, frame in tables[False].items():
        pd.testing.assert_frame_equal(frame, tables[True][name], check_exact=True, obj=name)


def injected() -> list[tuple[str, bytes, CheckOptions]]:
    """Small synth IRs of every dialect with known defects: each code alone, all at once, every pair of
    the transfer-graph and schedule codes (the columnar screens' own), and random pairs. (A cycle next to
    a destination out of range once slipped past a screen, and past the mutants: the pairs hold it.)"""
    out = []
    rng = random.Random(CORPUS_SEED)
    for b, options in enumerate(
        (SynthOptions(2, 1, 9, 1, 256 * KIB, 1, 1), SynthOptions(2, 2, 14, 2, 1 * MIB, 2, 2))
    ):
        base = synthesize(options).document
        raw = to_raw(base)
        kinds = {
            "documented": (base, inject, sorted(INJECTORS)),
            "raw": (raw, inject_raw, sorted(RAW_INJECTORS)),
            "alloc": (to_alloc(raw), inject_alloc, sorted({*RAW_INJECTORS, *ALLOC_INJECTORS})),
        }
        for dialect, (document, injector, codes) in kinds.items():
            graph = [c for c in codes if c[3] in "25"]
            sets = [codes, *([c] for c in codes), *itertools.combinations(graph, 2)]
            sets += [sorted(rng.sample(codes, 2)) for _ in range(4)]
            for seed, chosen in enumerate(sets):
                try:
                    injection = injector(document, list(chosen), seed % 3)
                except InjectionError:
                    continue  # no place for this combination in the base
                name = f"base {b} {dialect} {','.join(chosen)} seed {seed % 3}"
                out.append((name, json.dumps(injection.document).encode(), injection.options))
    return out


def test_synth_injections() -> None:
    cases = injected()
    assert len(cases) > 30
    for name, data, options in cases:
        _same(_bytes_report(data, options, False), _bytes_report(data, options, True), name)


def l2_cases() -> list[tuple[str, bytes]]:
    """Snapshots the L2 screens (GIR301, GIR302) place by columns, one edge of `loading.l2.place` each:
    a tensor wrapping around its ring region onto another, one past buffersize (in a region or not), one larger than its
    region, one in a gap between two regions, two regions (checked object by object), no regions."""
    base = synthesize(SynthOptions(2, 1, 9, 1, 256 * KIB, 1, 1)).document
    size = base["buffersize"]

    def case(edit: Callable[[list[dict[str, Any]], dict[str, Any]], None]) -> bytes:
        document = json.loads(json.dumps(base))
        workload = document["0"][3]
        edit(workload["buffer"], workload)
        return json.dumps(document).encode()

    def wrap(buffer: list[dict[str, Any]], _: dict[str, Any]) -> None:
        buffer[0]["address"] = size - buffer[0]["size"] // 2  # its tail lands on [0, size / 2)
        buffer[1]["address"] = 0

    def wrap_clear(buffer: list[dict[str, Any]], _: dict[str, Any]) -> None:
        buffer[0]["address"] = size - buffer[0]["size"] // 2
        buffer[1]["address"] = buffer[0]["size"]

    def past(buffer: list[dict[str, Any]], _: dict[str, Any]) -> None:
        buffer[2]["address"] = size + 64

    def past_region(buffer: list[dict[str, Any]], workload: dict[str, Any]) -> None:
        workload["ring_buffer_info"] = [[0, 2 * size]]  # a region beyond buffersize (GIR303)
        buffer[2]["address"] = size + 64  # inside it, past buffersize

    def too_big(buffer: list[dict[str, Any]], _: dict[str, Any]) -> None:
        buffer[1]["size"] = size + 1

    def regions(buffer: list[dict[str, Any]], workload: dict[str, Any]) -> None:
        workload["ring_buffer_info"] = [[0, size // 2], [size // 2 + 4096, size]]
        buffer[0]["address"] = size // 2 - 1024  # wraps inside the first region
        buffer[3]["address"] = size // 2 + 1024  # in the gap

    def no_regions(_: list[dict[str, Any]], workload: dict[str, Any]) -> None:
        workload["ring_buffer_info"] = []

    def empty_region(_: list[dict[str, Any]], workload: dict[str, Any]) -> None:
        workload["ring_buffer_info"] = [[4096, 4096]]

    edits = [wrap, wrap_clear, past, past_region, too_big, regions, no_regions, empty_region]
    return [(edit.__name__, case(edit)) for edit in edits]


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_l2_placements(options: CheckOptions) -> None:
    for name, data in l2_cases():
        _same(_bytes_report(data, options, False), _bytes_report(data, options, True), name)
