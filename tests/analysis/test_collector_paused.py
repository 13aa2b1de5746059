"""The commands that load a whole file and keep working on it do so with the cyclic collector paused.

A loaded 70-100 MB file is millions of lists the collector tracks. Resumed right after the load, its
first passes moved every one of them through its young generations (0.06-0.1 s of `irtools analyze`
on the stand-ins, a sixth of a sweep row's time); the models are acyclic, so pausing it loses nothing.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest

import irtools.analysis
from irtools.cli import analyze as analyze_command
from irtools.options import RunOptions
from irtools.sweep import row as sweep_row
from tests.conftest import ROOT

SAMPLE = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


def _noting(seen: list[tuple[str, bool]], name: str, function: Any) -> Any:
    """`function`, noting under `name` whether the collector runs when it is called and when it returns."""

    def noted(*args: Any, **kwargs: Any) -> Any:
        seen.append((f"{name} called", gc.isenabled()))
        result = function(*args, **kwargs)
        seen.append((f"{name} returned", gc.isenabled()))
        return result

    return noted


def test_analyze_freezes_what_it_loaded_before_the_collector_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool]] = []
    monkeypatch.setattr(irtools.analysis, "analyze", _noting(seen, "analyze", irtools.analysis.analyze))
    monkeypatch.setattr(gc, "freeze", _noting(seen, "freeze", gc.freeze))
    assert gc.isenabled()
    analysis = analyze_command._analysis(str(SAMPLE), str(SAMPLE), RunOptions())
    assert analysis.index.rows and gc.isenabled()
    assert seen == [
        ("analyze called", False),
        ("analyze returned", False),
        ("freeze called", False),
        ("freeze returned", False),
    ]


def test_a_sweep_row_loads_checks_and_summarizes_with_the_collector_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, bool]] = []
    # The row's file is analyzed as it is read (irtools.analysis.as_read), then checked, then summarized.
    for name in ("analyze_as_read", "check_as_read", "summarize"):
        monkeypatch.setattr(sweep_row, name, _noting(seen, name, getattr(sweep_row, name)))
    row, _ = sweep_row.summarize_with_findings(str(SAMPLE))
    assert row["status"] == "ok" and gc.isenabled()
    assert [name for name, _ in seen] == [
        f"{name} {when}"
        for name in ("analyze_as_read", "check_as_read", "summarize")
        for when in ("called", "returned")
    ]
    assert not any(enabled for _, enabled in seen)
