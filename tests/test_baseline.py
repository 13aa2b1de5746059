"""Baselines and fingerprints: stable across reformatting and checkouts, suppressing only what they list,
counting what disappeared; --statistics and --exit-zero."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from irtools.fingerprint import normalized_message

SAMPLES = Path(__file__).resolve().parent.parent / "sample_ir/invalid"


def fingerprints(run_cli: Any, *args: Any) -> list[tuple[str, str, str, str]]:
    _, out, _ = run_cli("validate", "--format", "json", *args)
    return [
        (Path(f["path"]).name, finding["code"], finding["pointer"], finding["fingerprint"])
        for f in json.loads(out)["files"]
        for finding in f["findings"]
    ]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "repo/schedules").mkdir(parents=True)
    (tmp_path / "repo/irtools.toml").write_text('baseline = "irtools-baseline.json"\n')
    for name in ("GIR302-buffer-overlap", "GIR201-dangling-transfer"):
        shutil.copy(SAMPLES / f"{name}.json", tmp_path / f"repo/schedules/{name}.json")
    return tmp_path / "repo"


def test_fingerprints_survive_reformatting_and_another_checkout(
    run_cli: Any, repo: Path, tmp_path: Path
) -> None:
    (repo / "irtools.toml").write_text("")  # the project root: paths are relative to it
    before = fingerprints(run_cli, repo / "schedules")
    for path in (repo / "schedules").glob("*.json"):  # minified, CRLF: every line number moves
        path.write_text(json.dumps(json.loads(path.read_text())).replace(",", ",\r\n"))
    moved = shutil.move(repo, tmp_path / "elsewhere")
    after = fingerprints(run_cli, Path(moved) / "schedules")
    assert len(before) == 8 and after == before
    assert len({f[3] for f in after}) == len(after)


def test_numbers_that_measure_are_masked() -> None:
    assert normalized_message("size 618240 differs from 1 x roundup(3, 8) = 0x10f00 (5 more uses)") == (
        "size # differs from # x roundup(#, #) = # (# more uses)"
    )


def test_baseline_suppresses_known_findings_and_catches_new_ones(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    code, out, err = run_cli("validate", "--write-baseline", "irtools-baseline.json", "schedules")
    assert code == 0 and out == "" and "wrote 8 findings (2 files) to irtools-baseline.json" in err
    entries = json.loads((repo / "irtools-baseline.json").read_text())["findings"]
    assert {e["path"] for e in entries} == {
        "schedules/GIR201-dangling-transfer.json",
        "schedules/GIR302-buffer-overlap.json",
    }
    code, out, err = run_cli("validate", "schedules")
    assert code == 0 and out == "2 files checked: 0 errors, 0 warnings, 0 info\n"
    assert "8 known findings not shown" in err and "no longer" not in err

    # A new defect in a baselined file fails; the old ones stay hidden.
    shutil.copy(SAMPLES / "GIR202-duplicate-producer.json", repo / "schedules/GIR201-dangling-transfer.json")
    code, out, err = run_cli("validate", "schedules")
    assert code == 1 and "GIR202 error" in out and "GIR302" not in out
    assert "baselined findings no longer occur (prune with --write-baseline" in err

    # pre-commit passes only staged files: the other file's entries are not "gone".
    code, out, err = run_cli("validate", "schedules/GIR302-buffer-overlap.json")
    assert code == 0 and "no longer" not in err


def test_baseline_counts_deleted_files_as_gone(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    run_cli("validate", "--write-baseline", "irtools-baseline.json", "schedules")
    (repo / "schedules/GIR201-dangling-transfer.json").unlink()
    code, _, err = run_cli("validate", "schedules")
    assert code == 0 and "3 known findings not shown; 5 baselined findings no longer occur" in err


def test_bad_baseline_is_a_usage_error(run_cli: Any, repo: Path) -> None:
    code, _, err = run_cli("validate", repo / "schedules")
    assert code == 2 and "no such file (create it with --write-baseline" in err
    (repo / "irtools-baseline.json").write_text('{"version": 7}')
    code, _, err = run_cli("validate", repo / "schedules")
    assert code == 2 and "not an irtools baseline" in err


def test_sarif_carries_the_same_fingerprints(run_cli: Any, repo: Path) -> None:
    prints = {f[3] for f in fingerprints(run_cli, "--isolated", repo / "schedules")}
    _, out, _ = run_cli("validate", "--isolated", "--format", "sarif", repo / "schedules")
    results = json.loads(out)["runs"][0]["results"]
    assert {r["partialFingerprints"]["irtoolsFinding/v1"] for r in results} == prints
    _, out, _ = run_cli("validate", "--isolated", "--format", "gitlab", repo / "schedules")
    assert {i["fingerprint"] for i in json.loads(out)} == prints


def test_statistics_and_exit_zero(run_cli: Any, repo: Path) -> None:
    code, out, _ = run_cli("validate", "--isolated", "--statistics", repo / "schedules")
    assert code == 1
    rows = out.splitlines()
    assert rows[-1] == "8 findings in 2 files"
    assert [r.split() for r in rows[:-1]] == [
        ["2", "GIR103", "info", "unknown-or-extension-key"],
        ["2", "GIR303", "info", "ring-config"],
        ["2", "GIR306", "warning", "cur-wl-ifmap"],
        ["1", "GIR201", "error", "dangling-transfer"],
        ["1", "GIR302", "error", "buffer-overlap"],
    ]
    _, out, _ = run_cli("validate", "--isolated", "--statistics", "--format", "json", repo / "schedules")
    assert {"code": "GIR302", "name": "buffer-overlap", "severity": "error", "count": 1} in json.loads(out)
    code, _, err = run_cli("validate", "--isolated", "--statistics", "--format", "sarif", repo / "schedules")
    assert code == 2 and "--statistics prints text or json" in err
    assert run_cli("validate", "--isolated", "--exit-zero", repo / "schedules")[0] == 0
    assert run_cli("validate", "--isolated", "--exit-zero", repo / "nowhere")[0] == 2
