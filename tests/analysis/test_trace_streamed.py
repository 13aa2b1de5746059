"""`irtools export-trace` reads the file with its snapshots dropped as each core is read and writes the trace
an event at a time: the file it writes is the document of the whole file's analysis, byte for byte."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import irtools.analysis.trace as trace_module
from irtools.analysis import analyze
from irtools.analysis.trace import TraceEvents, chrome_trace, write_trace
from irtools.loading.dropping import FieldDropped
from tests.conftest import RunCli

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT.parent / "shared" / "fixtures"
MULTI_CORE = sorted([*FIXTURES.glob("gemini-raw/*.json"), *FIXTURES.glob("gemini-alloc/*.json")])
SINGLE_CORE = sorted(FIXTURES.glob("gemini/*.json"))[:2]
SAMPLE = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


def _whole_document(path: Path, *options: str) -> str:
    """The trace as `json.dumps` of the document built from the file read whole (before streaming)."""
    model = options[options.index("--model") + 1] if "--model" in options else "dependency"
    return json.dumps(chrome_trace(analyze(path), model), separators=(",", ":"))


@pytest.mark.parametrize(
    "path", [*MULTI_CORE, *SINGLE_CORE, SAMPLE], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_the_streamed_trace_is_the_whole_files_document(path: Path, run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    code, stdout, err = run_cli("export-trace", path, "-o", out)
    assert code == 0, err
    assert "dropped" not in err  # read once, its snapshots dropped as it was read
    assert out.read_text() == _whole_document(path)
    other = json.loads(out.read_text())["otherData"]
    assert f"{other['flows']} cross-core flows" in stdout
    # The path export-trace takes: every core's snapshots dropped as it is read, its tensors kept.
    streamed = analyze(path, keep_snapshots=False, snapshot_tables=False)
    assert streamed.snapshots_dropped
    workload = streamed.index.rows[0].workload
    with pytest.raises(FieldDropped):
        len(workload.buffer)
    assert isinstance(workload.ifmap, list)


def test_the_sequential_model_streams_alike(run_cli: RunCli, tmp_path: Path) -> None:
    path = MULTI_CORE[0]
    code, _, err = run_cli("export-trace", path, "-o", tmp_path / "t.json", "--model", "sequential")
    assert code == 0, err
    assert (tmp_path / "t.json").read_text() == _whole_document(path, "--model", "sequential")


def test_a_schedule_that_reads_a_dropped_snapshot_reads_the_file_again_whole(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the schedule to read a snapshot, the streamed file is left unwritten, the file read whole, and
    the trace is the same; stderr says why it took longer."""
    path = MULTI_CORE[0]
    expected = _whole_document(path)
    events = TraceEvents.events

    def reading_snapshots(self: TraceEvents) -> Iterator[dict[str, Any]]:
        for n, event in enumerate(events(self)):
            if n == 5:  # after the writer began: nothing half-written may be left
                _ = [len(ref.workload.buffer) for ref in self.analysis.index.rows]
            yield event

    monkeypatch.setattr(TraceEvents, "events", reading_snapshots)
    monkeypatch.setattr(trace_module, "_BATCH", 2)
    out = tmp_path / "trace.json"
    code, _, err = run_cli("export-trace", path, "-o", out)
    assert code == 0, err
    assert "needs what was dropped as the file was read: reading it again whole" in err
    assert out.read_text() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json"]  # no temporary file left behind


@pytest.mark.parametrize("batch", [1, 2, 3, 4096])
@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_the_writer_writes_what_json_dumps_writes(
    batch: int, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace_module, "_BATCH", batch)
    events = [{"name": f'layer é{n} "q"', "ts": n / 3, "args": {"ids": [n, n + 1]}} for n in range(count)]
    other = {"source": "ü.json", "flows": count}
    out = io.StringIO()
    write_trace(out, iter(events), lambda: other)
    document = {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other}
    assert out.getvalue() == json.dumps(document, separators=(",", ":"))


def test_other_data_is_asked_for_once_every_event_is_written() -> None:
    trace = TraceEvents(analyze(SAMPLE))
    out = io.StringIO()
    write_trace(out, trace.events(), lambda: dict(trace.other))
    assert (
        json.loads(out.getvalue())["otherData"]["flows"]
        == chrome_trace(analyze(SAMPLE))["otherData"]["flows"]
    )
