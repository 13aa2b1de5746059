"""Configuration files: found upward from each checked file (the nearest wins), overridden by --config,
ignored with --isolated, checked strictly, and shown with --show-settings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from irtools.config import SETTINGS, glob_match

GIR302 = Path(__file__).resolve().parent.parent / "sample_ir/invalid/GIR302-buffer-overlap.json"
GIR307 = Path(__file__).resolve().parent.parent / "sample_ir/invalid/GIR307-size-mismatch.json"


def codes(out: str) -> list[tuple[str, str, str]]:
    """(file name, code, severity) of each finding in a JSON report."""
    report = json.loads(out)
    return [
        (Path(f["path"]).name, finding["code"], finding["severity"])
        for f in report["files"]
        for finding in f["findings"]
    ]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """repo/pyproject.toml ([tool.irtools]), repo/a/x.json, repo/a/sub/irtools.toml and repo/a/sub/y.json."""
    (tmp_path / "a/sub").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.irtools]\nignore = ["GIR303"]\n')
    (tmp_path / "a/x.json").write_bytes(GIR302.read_bytes())
    (tmp_path / "a/sub/y.json").write_bytes(GIR302.read_bytes())
    (tmp_path / "a/sub/irtools.toml").write_text('select = ["GIR302"]\nseverity = {GIR302 = "warning"}\n')
    return tmp_path


def test_nearest_configuration_wins_per_file(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    code, out, _ = run_cli("validate", "--format", "json", "a")
    found = codes(out)
    # x.json: the pyproject's table (GIR303 off, the rest on); y.json: its own irtools.toml only.
    assert ("x.json", "GIR302", "error") in found and ("x.json", "GIR303", "info") not in found
    assert [c for c in found if c[0] == "y.json"] == [("y.json", "GIR302", "warning")]
    assert code == 1


def test_pyproject_without_table_is_skipped(run_cli: Any, repo: Path) -> None:
    (repo / "a/pyproject.toml").write_text('[project]\nname = "inner"\n')
    _, out, _ = run_cli("validate", "--format", "json", repo / "a/x.json")
    assert ("x.json", "GIR303", "info") not in codes(out)  # the outer table still applies


def test_irtools_toml_before_pyproject_in_one_directory(run_cli: Any, repo: Path) -> None:
    (repo / "irtools.toml").write_text("select = ['GIR501']\n")
    code, out, _ = run_cli("validate", "--format", "json", repo / "a/x.json")
    assert codes(out) == [] and code == 0


def test_config_flag_and_isolated(run_cli: Any, repo: Path) -> None:
    other = repo / "other.toml"
    other.write_text('ignore = ["GIR3"]\n')
    _, out, _ = run_cli("validate", "--format", "json", "--config", other, repo / "a")
    assert not [c for c in codes(out) if c[1].startswith("GIR3")]
    _, out, _ = run_cli("validate", "--format", "json", "--isolated", repo / "a/sub/y.json")
    assert ("y.json", "GIR303", "info") in codes(out)
    code, _, err = run_cli("validate", "--config", other, "--isolated", repo / "a")
    assert code == 2 and "exclude each other" in err
    code, _, err = run_cli("validate", "--config", repo / "missing.toml", repo / "a")
    assert code == 2 and "missing.toml: no such file" in err


def test_command_line_over_file(run_cli: Any, repo: Path) -> None:
    y = repo / "a/sub/y.json"
    # --select restarts the selection (ruff's rule); --severity merges over the file's table.
    _, out, _ = run_cli("validate", "--format", "json", "--select", "GIR303", y)
    assert codes(out) == [("y.json", "GIR303", "info")]
    _, out, _ = run_cli("validate", "--format", "json", "--severity", "GIR302=info", y)
    assert codes(out) == [("y.json", "GIR302", "info")]
    # --ignore alone adds to the file's selection, and --show-settings says so.
    _, out, _ = run_cli("validate", "--format", "json", "--ignore", "GIR302", y)
    assert codes(out) == []
    x = repo / "a/x.json"
    _, out, _ = run_cli(
        "validate", "--show-settings", "--ignore", "GIR305", "--per-file-ignores", "a/**=GIR501", x
    )
    [ignore] = [line for line in out.splitlines() if line.startswith("ignore = ")]
    assert ignore.startswith('ignore = ["GIR303", "GIR305"] ')
    assert ignore.endswith(f"# {repo / 'pyproject.toml'} and the command line")
    assert "# per-file-ignores 'a/**' matches it: GIR501" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("selct = ['GIR3']\n", "unknown key 'selct'"),
        ("jobs = 0\n", 'jobs: expected a positive integer or "auto", got 0'),
        ("jobs = 'all'\n", "jobs: expected a positive integer or \"auto\", got 'all'"),
        ("wl0-size = true\n", "wl0-size: expected a positive integer, got True"),
        ("ignore = 'GIR3'\n", "ignore: expected a list of rule codes"),
        ("ignore = ['XYZ']\n", "unknown rule code or prefix 'XYZ'"),
        ("severity = {GIR302 = 'fatal'}\n", "unknown severity 'fatal'"),
        ("format = 'pdf'\n", "format: expected one of"),
        ("select = [\n", "not valid TOML"),
    ],
)
def test_bad_configuration_is_a_usage_error_naming_file_and_key(
    run_cli: Any, tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "irtools.toml").write_text(text)
    (tmp_path / "x.json").write_bytes(GIR302.read_bytes())
    code, out, err = run_cli("validate", tmp_path / "x.json")
    assert code == 2 and out == ""
    assert f"{tmp_path / 'irtools.toml'}" in err and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_unknown_key_in_pyproject_names_the_table(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.irtools]\nl2_size = 5\n")
    (tmp_path / "x.json").write_bytes(GIR302.read_bytes())
    code, _, err = run_cli("validate", tmp_path / "x.json")
    assert code == 2 and f"[tool.irtools] in {tmp_path / 'pyproject.toml'}: unknown key 'l2_size'" in err


def test_show_settings_names_each_source(run_cli: Any, repo: Path) -> None:
    code, out, _ = run_cli(
        "validate", "--show-settings", "--jobs", "2", repo / "a/x.json", repo / "a/sub/y.json"
    )
    assert code == 0
    x, y = out.split("# settings for ")[1:]
    assert f"# configuration: {repo / 'pyproject.toml'}" in x
    assert any(
        line.startswith('ignore = ["GIR303"]') and line.endswith(str(repo / "pyproject.toml"))
        for line in x.splitlines()
    )
    assert any(line.startswith("jobs = 2") and line.endswith("# command line") for line in x.splitlines())
    assert any(line.startswith("max-mb = 1024") and line.endswith("# default") for line in x.splitlines())
    assert any(line.startswith('severity = {"GIR302" = "warning"}') for line in y.splitlines())
    assert "# 1 of" in y and "codes enabled for this file" in y


def test_jobs_auto_is_one_process_per_cpu_this_process_may_use(run_cli: Any, repo: Path) -> None:
    """As flake8 takes `--jobs auto`: the CPUs of this process's affinity (a CI container's share)."""
    (repo / "irtools.toml").write_text('jobs = "auto"\n')
    code, out, _ = run_cli("validate", "--show-settings", repo / "a/x.json")
    assert code == 0
    assert any(
        line.startswith(f"jobs = {len(os.sched_getaffinity(0))} ")
        and line.endswith(str(repo / "irtools.toml"))
        for line in out.splitlines()
    )


def test_per_file_ignores(run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "pyproject.toml").write_text(
        '[tool.irtools]\nper-file-ignores = {"a/*.json" = ["GIR302", "GIR303"]}\n'
    )
    (repo / "a/sub/irtools.toml").unlink()
    _, out, _ = run_cli("validate", "--format", "json", repo / "a")
    # a/*.json matches a/x.json only: * stays within one directory.
    assert not [c for c in codes(out) if c[0] == "x.json" and c[1] in ("GIR302", "GIR303")]
    assert ("y.json", "GIR302", "error") in codes(out)
    _, out, _ = run_cli("validate", "--show-settings", repo / "a/x.json")
    assert "# per-file-ignores 'a/*.json' matches it: GIR302, GIR303" in out


@pytest.mark.parametrize(
    ("pattern", "path", "matched"),
    [
        ("legacy/**", "legacy/a.json", True),
        ("legacy/**", "legacy/deep/a.json", True),
        ("legacy/**", "new/legacy/a.json", False),
        ("**/legacy/*.json", "new/legacy/a.json", True),
        ("**/legacy/*.json", "legacy/a.json", True),
        ("*.raw.json", "deep/x.raw.json", True),
        ("a/*.json", "a/b/c.json", False),
        ("a/?.json", "a/b.json", True),
        ("a/[!x].json", "a/x.json", False),
        ("!legacy/**", "other/a.json", True),
        ("./legacy/", "legacy/a.json", True),
    ],
)
def test_glob_semantics(pattern: str, path: str, matched: bool) -> None:
    assert glob_match(pattern, path) is matched


def test_other_commands_read_shared_settings(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "irtools.toml").write_text("wl0-size = 4096\n")
    ir = tmp_path / "x.json"
    ir.write_bytes(GIR302.read_bytes())
    code, _, _ = run_cli("analyze", ir, "--out", tmp_path / "out", "--json")
    assert code == 0
    from irtools.analysis.io import read_table

    wl0 = read_table(str(tmp_path / "out/wl0_occupancy.csv"))
    assert wl0["free_bytes"].notna().all() and (wl0["free_bytes"] <= 4096).all()  # the size from the file
    assert run_cli("analyze", ir, "--out", tmp_path / "out", "--isolated")[0] == 0
    assert read_table(str(tmp_path / "out/wl0_occupancy.csv"))["free_bytes"].isna().all()
    # A key that the command does not take is not an error: the file serves every command.
    (tmp_path / "irtools.toml").write_text("addr-align = 64\nformat = 'sarif'\n")
    assert run_cli("analyze", ir, "--out", tmp_path / "out")[0] == 0


def test_every_setting_has_a_flag_on_each_command_that_takes_it() -> None:
    from irtools.cli.main import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    for setting in SETTINGS.values():
        for command in setting.commands:
            flags = {f for a in subparsers.choices[command]._actions for f in a.option_strings}  # type: ignore[attr-defined]
            assert setting.flag in flags, (command, setting.key)


def test_rules_page_settings_work_as_printed(run_cli: Any, tmp_path: Path) -> None:
    """Each line `irtools rules GIR302` suggests is accepted: as a key in irtools.toml and as flags."""
    import shlex

    _, page, _ = run_cli("rules", "GIR302")
    suggested = [line.strip() for line in page.splitlines() if line.startswith("  ")]
    assert len(suggested) == 3
    (tmp_path / "legacy").mkdir()
    ir = tmp_path / "legacy/x.json"
    ir.write_bytes(GIR302.read_bytes())
    for line in suggested:
        key, flags = line.split("  ", 1)
        (tmp_path / "irtools.toml").write_text(key + "\n")
        _, out, _ = run_cli("validate", "--format", "json", ir)
        assert ("x.json", "GIR302", "error") not in codes(out), key
        (tmp_path / "irtools.toml").write_text("")
        _, out, _ = run_cli("validate", "--format", "json", *shlex.split(flags.strip()), ir)
        assert ("x.json", "GIR302", "error") not in codes(out), flags


def test_l2_size_from_the_file_reaches_validate(run_cli: Any, fixtures_dir: Path, tmp_path: Path) -> None:
    """The SET allocator's resnet_2x2_b1 file: cores 2 and 6 reach 788 and 784 blocks, past a 512 KB L2."""
    ir = tmp_path / "resnet_2x2_b1_alloc.json"
    ir.write_bytes((fixtures_dir / "gemini-alloc/resnet_2x2_b1_alloc.json").read_bytes())
    (tmp_path / "irtools.toml").write_text("l2-size = 524288\n")
    _, out, _ = run_cli("validate", "--format", "json", ir)
    assert ("resnet_2x2_b1_alloc.json", "GIR301", "error") in codes(out)
    _, out, _ = run_cli("validate", "--format", "json", "--isolated", ir)
    assert ("resnet_2x2_b1_alloc.json", "GIR301", "error") not in codes(out)
    _, out, _ = run_cli("validate", "--show-settings", ir)
    assert any(line.startswith("l2-size = 524288 ") for line in out.splitlines())
