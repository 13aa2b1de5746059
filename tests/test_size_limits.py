"""--max-mb: files over the limit are refused unread, with the reason, by every command that reads IRs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboards.data import AccessError, FileStore
from irtools.limits import size_problem
from tests.conftest import RunCli, WriteIR

ROOT = Path(__file__).resolve().parent.parent
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


@pytest.fixture
def big(write_ir: WriteIR) -> Path:
    """The 2x2 sample padded with whitespace to just over 1 MB (1,000,000 bytes)."""
    text = json.dumps(json.loads(MESH.read_text()))
    return write_ir((text + " " * (1_000_001 - len(text))).encode(), "big.json")


def test_the_message_says_how_big_the_limit_and_the_memory(big: Path) -> None:
    assert size_problem(1_000_000, 1_000_000) is None
    problem = size_problem(big.stat().st_size, 1_000_000) or ""
    assert "file is 1 MB, over the 1 MB limit" in problem and "--max-mb" in problem


def test_validate_reports_gir100_and_exits_1(run_cli: RunCli, big: Path) -> None:
    code, out, _ = run_cli("validate", big, "--max-mb", "1")
    assert code == 1 and "GIR100" in out and "over the 1 MB limit" in out
    code, _, _ = run_cli("validate", big, "--max-mb", "2")
    assert code == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "{big}", "--out", "{tmp}/t", "--max-mb", "1"],
        ["export-trace", "{big}", "-o", "{tmp}/t.json", "--max-mb", "1"],
        ["report", "{big}", "-o", "{tmp}/r.html", "--max-mb", "1"],
    ],
)
def test_analysis_commands_refuse_with_exit_1(
    run_cli: RunCli, big: Path, tmp_path: Path, argv: list[str]
) -> None:
    code, _, err = run_cli(*[a.format(big=big, tmp=tmp_path) for a in argv])
    assert code == 1 and "over the 1 MB limit" in err and "Traceback" not in err
    assert not any(p.name in ("t", "t.json", "r.html") for p in tmp_path.iterdir())


def test_summarize_counts_an_oversized_file_as_unanalyzed(run_cli: RunCli, big: Path, tmp_path: Path) -> None:
    code, out, _ = run_cli("summarize", big, "-o", tmp_path / "s.csv", "--max-mb", "1")
    assert code == 0 and "1 files, 0 analyzed" in out


def test_dashboard_refuses_oversized_files(big: Path) -> None:
    store = FileStore(big.parent, 10**6, max_file_bytes=1_000_000)
    with pytest.raises(AccessError, match="irtools serve --max-mb"):
        store.get("big.json")
