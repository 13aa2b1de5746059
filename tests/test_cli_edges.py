"""What a new user runs into first: ports, pipes, files that are not IRs, empty directories, odd numbers.

Each test here failed before its fix (issue 11): a traceback, a message that named the wrong file,
or an exit code that let a mistake pass in CI.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, RunCli

MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


def _irtools(*argv: str | Path, **streams: Any) -> subprocess.CompletedProcess[str]:
    streams = streams or {"capture_output": True}
    return subprocess.run(
        [sys.executable, "-m", "irtools", *map(str, argv)],
        check=False,
        text=True,
        timeout=120,
        cwd=ROOT,
        **streams,
    )


# --- serve: the address is tried before "serving" is printed ---------------------------------------


@pytest.mark.parametrize("port", ["70000", "0", "-1"])
def test_serve_port_out_of_range_is_a_usage_error(run_cli: RunCli, port: str) -> None:
    code, out, err = run_cli("serve", ROOT / "sample_ir", "--port", port)
    assert code == 2
    assert "--port" in err and "Traceback" not in err and "serving" not in out + err


def test_serve_port_in_use_is_one_error_line_not_serving() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _irtools("serve", "sample_ir", "--port", port)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"irtools serve: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


def test_serve_unknown_host_is_one_error_line_without_the_exposure_warning() -> None:
    proc = _irtools("serve", "sample_ir", "--host", "no-such-host.invalid", "--port", "8123")
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "irtools serve: error: cannot listen on no-such-host.invalid"
    )


# --- a reader that closes the pipe early is normal ------------------------------------------------


@pytest.mark.parametrize("command", [["rules"], ["tables"], ["schema"], ["validate", "sample_ir"]])
def test_closed_stdout_ends_quietly(command: list[str]) -> None:
    # `irtools rules | head -1`: stdout closed before the output is written (head already exited).
    reader = subprocess.Popen([sys.executable, "-c", "pass"], stdin=subprocess.PIPE)
    reader.wait()
    assert reader.stdin is not None
    proc = _irtools(*command, stdout=reader.stdin, stderr=subprocess.PIPE)
    reader.stdin.close()
    assert proc.stderr == ""  # no "Broken pipe", no traceback, no "Exception ignored"
    assert proc.returncode == 141  # as a shell reports a program ended by SIGPIPE


# --- JSON that is not a Scheduler IR -------------------------------------------------------------


def _not_irs(tmp_path: Path, run_cli: RunCli) -> list[Path]:
    trace = tmp_path / "trace.json"
    assert run_cli("export-trace", MESH, "-o", trace).code == 0
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    return [trace, ROOT / "schemas" / "gemini-scheduler-ir.schema.json", empty]


def test_json_that_is_not_an_ir_is_one_clear_finding(run_cli: RunCli, tmp_path: Path) -> None:
    paths = _not_irs(tmp_path, run_cli)
    code, out, _ = run_cli("validate", "--format", "json", *paths)
    assert code == 1
    for report in json.loads(out)["files"]:
        [finding] = report["findings"]  # not 13 unknown keys and 10 missing ones
        assert finding["code"] == "GIR101" and finding["pointer"] == ""
        assert finding["message"].startswith("not a Scheduler IR: no DRAM section")


def test_analyze_refuses_json_that_is_not_an_ir(run_cli: RunCli, tmp_path: Path) -> None:
    for path in _not_irs(tmp_path, run_cli):
        out_dir = tmp_path / f"out-{path.stem}"
        code, _, err = run_cli("analyze", path, "--out", out_dir)
        assert code == 1, path
        assert "not a Scheduler IR" in err
        assert not out_dir.exists()  # no 11 empty tables


def test_summarize_counts_json_that_is_not_an_ir_as_not_analyzed(run_cli: RunCli, tmp_path: Path) -> None:
    paths = _not_irs(tmp_path, run_cli)
    code, out, _ = run_cli("summarize", MESH, *paths, "-o", tmp_path / "sweep.csv")
    assert code == 0
    assert "4 files, 1 analyzed" in out


def test_the_dashboard_says_a_trace_is_not_an_ir(run_cli: RunCli, tmp_path: Path) -> None:
    from dashboards.data import load_entry
    from irtools.errors import AnalysisError

    trace = _not_irs(tmp_path, run_cli)[0]
    with pytest.raises(AnalysisError, match="not a Scheduler IR"):
        load_entry(trace, "trace.json")


# --- a directory with nothing to check -----------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "summarize"])
def test_empty_directory_is_a_usage_error_unless_allowed(
    run_cli: RunCli, tmp_path: Path, command: str
) -> None:
    empty = tmp_path / "typo"
    empty.mkdir()
    extra = ["-o", str(tmp_path / "s.csv")] if command == "summarize" else []
    code, _, err = run_cli(command, empty, *extra)
    assert code == 2 and "no *.json file" in err and str(empty) in err
    assert run_cli(command, "--allow-empty", empty, *extra).code == 0


# --- --severity and the notes a rule writes at info -------------------------------------------------


def test_severity_override_leaves_dialect_notes_as_notes(run_cli: RunCli, fixtures_dir: Path) -> None:
    # The real Gemini files use extension keys (start_send, wl1_buffer): GIR103 info notes, not problems.
    code, out, _ = run_cli("validate", "--severity", "GIR103=error", fixtures_dir / "gemini")
    assert code == 0
    assert out.rstrip().endswith("3 files checked: 0 errors, 0 warnings, 11 info")


def test_severity_override_still_promotes_the_rules_own_findings(run_cli: RunCli) -> None:
    unknown_key = ROOT / "sample_ir" / "invalid" / "GIR103-unknown-key.json"
    code, out, _ = run_cli("validate", "--severity", "GIR103=error", unknown_key)
    assert code == 1 and "GIR103 error unknown key 'adress'" in out


# --- numbers that parse but mean nothing ------------------------------------------------------------


@pytest.mark.parametrize("clock", ["inf", "-inf", "nan", "0", "-5"])
def test_export_trace_refuses_a_clock_that_is_not_finite_and_positive(
    run_cli: RunCli, tmp_path: Path, clock: str
) -> None:
    target = tmp_path / "t.json"
    code, _, err = run_cli("export-trace", MESH, "-o", target, "--clock-mhz", clock)
    assert code == 2 and "--clock-mhz" in err
    assert not target.exists()


# --- a write into a missing directory names the file asked for ----------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["validate", str(MESH), "-o"],
        ["report", str(MESH), "-o"],
        ["export-trace", str(MESH), "-o"],
        ["schema", "-o"],
    ],
)
def test_write_into_missing_directory_names_the_target(
    run_cli: RunCli, tmp_path: Path, command: list[str]
) -> None:
    target = tmp_path / "missing" / "out.file"
    code, _, err = run_cli(*command, target)
    assert code == 2
    assert f"No such file or directory: '{target}'" in err
    assert ".tmp" not in err
