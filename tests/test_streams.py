"""`-` (standard input) and pipes (`<(gunzip -c ir.json.gz)`) for validate, analyze and export-trace: what the
file itself gives, read once.

A stream cannot be read again, so its bytes are kept: validate checks it core by core from them (and reads
them again when a whole-file step needs a dropped field) and places its lines in them; analyze and
export-trace analyze them whole.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from irtools.analysis import analyze, writing
from irtools.loading.discover import is_stream
from irtools.loading.dropping import FieldDropped
from tests.conftest import RunCli

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures"
SAMPLES = sorted(p for p in (ROOT / "sample_ir").rglob("*.json") if not p.name.endswith(".expected.json"))
REAL = [
    FIXTURES / "gemini-raw" / "resnet_2x2_b1_ir.json",
    FIXTURES / "gemini-alloc" / "resnet_2x2_b1_alloc.json",
]


def _findings(out: str) -> list[dict[str, object]]:
    (report,) = json.loads(out)["files"]
    return [{k: v for k, v in f.items() if k != "fingerprint"} for f in report["findings"]]


Feed = Callable[[bytes], None]
MakePipe = Callable[[bytes], Path]


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Feed:
    """Standard input holding the bytes given."""

    def give(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    return give


@pytest.mark.parametrize("path", [*SAMPLES, *REAL], ids=lambda p: p.name)
def test_standard_input_gets_the_files_findings(
    path: Path, run_cli: RunCli, stdin: Feed, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run_cli("validate", path, "--format", "json")
    stdin(path.read_bytes())
    monkeypatch.chdir(path.parent)  # the configuration beside a file is the working directory's for a stream
    streamed_code, streamed_out, streamed_err = run_cli("validate", "-", "--format", "json")
    assert (streamed_code, _findings(streamed_out)) == (code, _findings(out)), streamed_err
    assert json.loads(streamed_out)["files"][0]["path"] == "-"


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[MakePipe]:
    """A named pipe fed `data` by a thread, as bash's `<(...)` feeds /dev/fd/63."""
    writers: list[threading.Thread] = []

    def make(data: bytes) -> Path:
        fifo = tmp_path / f"pipe{len(writers)}"
        os.mkfifo(fifo)

        def feed() -> None:
            with open(fifo, "wb") as handle:
                handle.write(data)

        writers.append(threading.Thread(target=feed, daemon=True))
        writers[-1].start()
        return fifo

    yield make
    for writer in writers:
        writer.join(timeout=10)


def test_a_pipe_gets_the_files_findings_and_the_working_directorys_configuration(
    run_cli: RunCli, pipe: MakePipe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = ROOT / "sample_ir" / "invalid" / "GIR201-dangling-transfer.json"
    _, out, _ = run_cli("validate", sample, "--format", "json")
    fifo = pipe(sample.read_bytes())
    assert is_stream(str(fifo))
    code, streamed, err = run_cli("validate", fifo, "--format", "json")
    assert code == 1 and _findings(streamed) == _findings(out), err
    # A pipe's path (/dev/fd/63) is no project: the working directory's configuration applies to it.
    project = tmp_path / "project"
    project.mkdir()
    (project / "irtools.toml").write_text('ignore = ["GIR201"]\n')
    monkeypatch.chdir(project)
    code, streamed, err = run_cli("validate", pipe(sample.read_bytes()), "--format", "json")
    assert code == 0, err
    assert "GIR201" not in {f["code"] for f in _findings(streamed)}


def test_a_stream_over_the_limit_is_refused_with_gir100(run_cli: RunCli, stdin: Feed) -> None:
    stdin(b" " * 1_500_000 + b"{}")
    code, out, _ = run_cli("validate", "-", "--max-mb", "1", "--format", "json")
    (finding,) = _findings(out)
    assert code == 1 and finding["code"] == "GIR100"
    assert "over the 1 MB limit" in str(finding["message"]) and "--max-mb" in str(finding["message"])


def test_standard_input_twice_is_a_usage_error(run_cli: RunCli) -> None:
    code, _, err = run_cli("validate", "-", "-")
    assert code == 2 and "standard input given twice" in err


def test_jobs_check_standard_input_in_this_process_and_keep_the_order(run_cli: RunCli, stdin: Feed) -> None:
    files = sorted((ROOT / "sample_ir" / "invalid").glob("GIR20[12]-*[!d].json"))
    stdin(files[0].read_bytes())
    code, out, err = run_cli("validate", "-", *files, "--jobs", "2", "--format", "json")
    assert code == 1, err
    reports = json.loads(out)["files"]
    assert [r["path"] for r in reports] == ["-", *map(str, files)]

    def unplaced(report: dict[str, list[dict[str, object]]]) -> list[dict[str, object]]:
        return [{k: v for k, v in f.items() if k != "fingerprint"} for f in report["findings"]]

    assert unplaced(reports[0]) == unplaced(reports[1])  # stdin held the first file


def test_analyze_of_standard_input_writes_the_files_tables(
    run_cli: RunCli, stdin: Feed, tmp_path: Path
) -> None:
    path = REAL[1]
    code, summary, err = run_cli("analyze", path, "-o", tmp_path / "file", "--json")
    assert code == 0, err
    stdin(path.read_bytes())
    code, streamed, err = run_cli("analyze", "-", "-o", tmp_path / "stdin", "--json")
    assert code == 0, err
    tables = sorted(p.name for p in (tmp_path / "file").iterdir())
    assert tables == sorted(p.name for p in (tmp_path / "stdin").iterdir()) and "timeline.csv" in tables
    for name in tables:
        assert (tmp_path / "stdin" / name).read_bytes() == (tmp_path / "file" / name).read_bytes(), name
    assert {**json.loads(streamed), "path": None} == {**json.loads(summary), "path": None}


def test_export_trace_of_a_pipe_is_the_files_trace(run_cli: RunCli, pipe: MakePipe, tmp_path: Path) -> None:
    path = REAL[0]
    code, _, err = run_cli("export-trace", path, "-o", tmp_path / "file.json")
    assert code == 0, err
    fifo = pipe(path.read_bytes())
    code, _, err = run_cli("export-trace", fifo, "-o", tmp_path / "pipe.json")
    assert code == 0, err
    from_file, from_pipe = (json.loads((tmp_path / n).read_text()) for n in ("file.json", "pipe.json"))
    assert from_pipe["traceEvents"][1:] == from_file["traceEvents"][1:]  # [0] names the process: the path
    assert from_pipe["otherData"] == {**from_file["otherData"], "source": str(fifo)}


def test_analyze_of_a_stream_over_the_limit_says_so(run_cli: RunCli, stdin: Feed, tmp_path: Path) -> None:
    stdin(b" " * 1_500_000 + b"{}")
    code, _, err = run_cli("analyze", "-", "-o", tmp_path / "t", "--max-mb", "1")
    assert code == 1 and "input is over the 1 MB limit" in err
    assert not (tmp_path / "t").exists()


def test_analyze_of_a_stream_drops_its_snapshots_and_reads_its_bytes_again_when_a_table_needs_them(
    run_cli: RunCli, stdin: Feed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream's bytes are analyzed as a file is (each core's snapshots dropped as it is read); a table that
    reads a dropped field sends the command back to the same bytes, since standard input cannot be read
    again."""
    path = REAL[1]
    assert analyze(path.read_bytes(), keep_snapshots=False).snapshots_dropped
    code, _, err = run_cli("analyze", path, "-o", tmp_path / "file")
    assert code == 0, err
    write = writing.write_analysis
    calls: list[bool] = []

    def dropping_once(analysis: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(analysis.snapshots_dropped)
        if len(calls) == 1:
            raise FieldDropped("a table read a dropped snapshot")
        return write(analysis, *args, **kwargs)

    monkeypatch.setattr(writing, "write_analysis", dropping_once)
    stdin(path.read_bytes())
    code, _, err = run_cli("analyze", "-", "-o", tmp_path / "stdin")
    assert code == 0, err
    assert calls == [True, False] and "reading it again whole" in err
    for table in (tmp_path / "file").iterdir():
        assert (tmp_path / "stdin" / table.name).read_bytes() == table.read_bytes(), table.name


def test_report_of_standard_input_is_the_files_page(run_cli: RunCli, stdin: Feed, tmp_path: Path) -> None:
    path = REAL[0]
    code, out, err = run_cli("report", path, "-o", tmp_path / "file.html")
    assert code == 0, err
    stdin(path.read_bytes())
    code, streamed, err = run_cli("report", "-", "-o", tmp_path / "stdin.html")
    assert code == 0, err
    assert streamed.replace(str(tmp_path / "stdin.html"), "") == out.replace(str(tmp_path / "file.html"), "")

    def page(name: str) -> str:  # plotly's div ids are random; the title names the file
        text = (tmp_path / name).read_text()
        text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", text)
        return text.replace(f"irtools report: {path.name}<", "irtools report: -<")

    assert page("stdin.html") == page("file.html")
