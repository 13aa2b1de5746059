"""Progress on a terminal: the file counter, and the name of a large file while it is checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from irtools.cli import common
from irtools.cli.main import main

SAMPLE = (
    Path(__file__).resolve().parent.parent / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
)


def test_a_large_file_is_named_while_it_is_checked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(common, "show_progress", lambda: True)
    monkeypatch.setattr(common, "LARGE_FILE", SAMPLE.stat().st_size)  # "large" from the sample's size on
    assert main(["validate", str(SAMPLE), "--format", "json"]) == 0
    err = capsys.readouterr().err
    # Each line clears the one before (a shorter line must not keep the end of a longer one).
    assert err == f"\r\x1b[Kchecked 0/1 files; now {SAMPLE} (0 MB)…\r\x1b[Kchecked 1/1 files\n"


def test_a_small_file_and_a_pipe_get_only_the_counter_or_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(common, "show_progress", lambda: True)
    assert main(["validate", str(SAMPLE), "--format", "json"]) == 0
    assert capsys.readouterr().err == "\r\x1b[Kchecked 1/1 files\n"
    monkeypatch.setattr(common, "show_progress", lambda: False)  # not a terminal, or CI
    assert main(["validate", str(SAMPLE), "--format", "json"]) == 0
    assert capsys.readouterr().err == ""
