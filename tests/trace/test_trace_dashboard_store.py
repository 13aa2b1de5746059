"""Which trace the dashboard joins to a file: `--trace` for the file opened first, else one found inside
the served directory, never outside it."""

from __future__ import annotations

import shutil
from pathlib import Path

from dashboards.data import FileStore
from dashboards.measured_view import MeasuredStore
from tests.conftest import RunCli

STEM = "int8_resnet50.sim_quantized_b1_c1_bw16"


def _served(tmp_path: Path, fixtures_dir: Path) -> Path:
    root = tmp_path / "served"
    (root / "gemini").mkdir(parents=True)
    shutil.copy(fixtures_dir / "gemini" / f"{STEM}_stschedule.json", root / "gemini")
    return root


def test_found_inside_the_served_directory_only(tmp_path: Path, fixtures_dir: Path) -> None:
    root = _served(tmp_path, fixtures_dir)
    key = f"gemini/{STEM}_stschedule.json"
    # A trace in served/../zebu is outside the served directory: not used.
    (tmp_path / "zebu").mkdir()
    shutil.copy(fixtures_dir / "zebu" / f"{STEM}_sim.txt", tmp_path / "zebu")
    store = MeasuredStore(FileStore(root, 10**8), {})
    assert store.get(key) is None
    # Inside it (served/zebu), it is.
    (root / "zebu").mkdir()
    shutil.copy(fixtures_dir / "zebu" / f"{STEM}_sim.txt", root / "zebu")
    measured = store.get(key)
    assert measured is not None and measured.summary().measured_makespan == 2_545_655
    assert store.get(key) is measured  # cached
    assert store.get("upload:0123") is None and store.get(None) is None


def test_an_explicit_trace_for_the_opened_file(tmp_path: Path, fixtures_dir: Path) -> None:
    root = _served(tmp_path, fixtures_dir)
    key = f"gemini/{STEM}_stschedule.json"
    store = MeasuredStore(FileStore(root, 10**8), {key: fixtures_dir / "zebu" / f"{STEM}_sim.txt"})
    measured = store.get(key)
    assert measured is not None and len(measured.trace.instructions) == 742


def test_serve_refuses_a_missing_trace(run_cli: RunCli, tmp_path: Path) -> None:
    code, _, err = run_cli("serve", tmp_path, "--trace", tmp_path / "nope_sim.txt")
    assert code == 2 and "--trace" in err
