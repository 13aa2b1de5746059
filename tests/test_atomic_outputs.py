"""Every file irtools writes appears whole or not at all: an interrupted run leaves the old file intact.

Each command runs in a subprocess whose `os.replace` (the commit step of every write) is replaced
by a SIGKILL or a Ctrl-C, so the interruption lands at the worst moment: the new content is
complete in a temp file and the old file is about to be replaced.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from irtools.analysis.writing import BEFORE_SUMMARY

ROOT = Path(__file__).resolve().parent.parent
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"

WRAPPER = """
import os, signal, sys
from irtools.cli.main import main
def interrupt(src, dst):
    if sys.argv[1] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise KeyboardInterrupt
os.replace = interrupt
sys.exit(main(sys.argv[2:]))
"""

# (command line with OUT for the target, the file that must survive)
COMMANDS = {
    "validate": (["validate", str(MESH), "--format", "json", "-o", "{out}/report.json"], "report.json"),
    # analyze's first file written (the kill lands on its commit).
    "analyze": (["analyze", str(MESH), "--out", "{out}"], f"{BEFORE_SUMMARY[0]}.csv"),
    "export-trace": (["export-trace", str(MESH), "-o", "{out}/trace.json"], "trace.json"),
    "report": (["report", str(MESH), "-o", "{out}/report.html"], "report.html"),
    "summarize": (["summarize", str(MESH), "-o", "{out}/sweep.csv"], "sweep.csv"),
    "schema": (["schema", "-o", "{out}/schema.json"], "schema.json"),
    "synth": (["synth", "--layers", "4", "-o", "{out}/synth.json"], "synth.json"),
}


def _run(how: str, argv: list[str], out: Path) -> subprocess.CompletedProcess[str]:
    args = [a.format(out=out) for a in argv]
    return subprocess.run(
        [sys.executable, "-c", WRAPPER, how, *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_killed_while_committing_leaves_the_old_file(command: str, tmp_path: Path) -> None:
    argv, target = COMMANDS[command]
    (tmp_path / target).write_text("OLD")
    done = _run("kill", argv, tmp_path)
    assert done.returncode == -signal.SIGKILL
    assert (tmp_path / target).read_text() == "OLD"
    # What a kill can leave: the finished new content in a hidden temp file beside the target (and
    # beside its companion: summarize's findings table, sweep.findings.csv).
    stem = target.split(".")[0]
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != target]
    assert all(name.startswith(f".{stem}.") and name.endswith(".tmp") for name in leftovers), leftovers


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_interrupted_run_cleans_up_and_says_so(command: str, tmp_path: Path) -> None:
    argv, target = COMMANDS[command]
    (tmp_path / target).write_text("OLD")
    done = _run("ctrl-c", argv, tmp_path)
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / target).read_text() == "OLD"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target]  # no temp file left behind


def test_analyze_writes_only_inside_its_directory(tmp_path: Path) -> None:
    out = tmp_path / "tables"
    done = subprocess.run(
        [sys.executable, "-m", "irtools", "analyze", str(MESH), "--out", str(out)],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["tables"]
    assert all(p.suffix == ".csv" for p in out.iterdir())
