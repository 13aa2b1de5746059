"""docs/ci.md run as written: its irtools.toml, its console sessions (output compared), and every irtools
command of its GitHub Actions, GitLab CI and pre-commit snippets, on the layout it describes built in a
temporary directory."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_ir"
DOC_REPO = "/home/me/repo"
"""Where docs/ci.md's sessions ran: the temporary layout's path reads as this in the compared output."""


def ci_section() -> str:
    """docs/ci.md: the configuration, baseline and CI set-ups a repository of schedules copies."""
    return (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", ci_section(), flags=re.DOTALL)


def sessions() -> list[tuple[str, list[str]]]:
    """(command, output lines) of each `$ irtools ...` in the console blocks."""
    found: list[tuple[str, list[str]]] = []
    for block in blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            else:
                found[-1][1].append(line)
    return found


def irtools_args(command: str) -> list[str]:
    """The arguments after `irtools` in a shell command (comments and `cp ... &&` left out)."""
    command = command.split(" #")[0].split("&&")[-1].strip()
    words = shlex.split(command)
    assert words[0] == "irtools", command
    return words[1:]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """docs/ci.md's layout: its irtools.toml at the root, three schedules, one of them legacy."""
    [config] = blocks("toml")
    (tmp_path / "irtools.toml").write_text(config)
    (tmp_path / "schedules/legacy").mkdir(parents=True)
    shutil.copy(SAMPLES / "valid/mesh2x2_conv_b1_c4_bw16_stschedule.json", tmp_path / "schedules")
    shutil.copy(
        SAMPLES / "invalid/GIR305-source-union.json", tmp_path / "schedules/legacy/conv_b1_stschedule.json"
    )
    shutil.copy(
        SAMPLES / "invalid/GIR302-buffer-overlap.json", tmp_path / "schedules/resnet_b1_stschedule.json"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def add_new_schedule(repo: Path) -> None:
    """docs/ci.md's "schedule with a defect": a dangling transfer (GIR201)."""
    shutil.copy(SAMPLES / "invalid/GIR201-dangling-transfer.json", repo / "schedules/vgg_b1_stschedule.json")


def test_console_sessions_print_what_the_doc_shows(run_cli: Any, repo: Path) -> None:
    ran = 0
    for command, shown in sessions():
        if "vgg_b1" in command:
            add_new_schedule(repo)
        code, out, err = run_cli(*irtools_args(command))
        # Settings are aligned to their longest line, which holds the (temporary) path: compare unaligned.
        lines = [
            re.sub(r" +#", "  #", line) for line in (out + err).replace(str(repo), DOC_REPO).splitlines()
        ]
        expected = [re.sub(r" +#", "  #", line) for line in shown if line != "…"]
        if "…" in shown:  # an excerpt: its lines appear in this order
            assert code == 1
            assert [line for line in lines if line in expected] == expected, command
        else:
            assert lines == expected, command
        ran += 1
    assert ran == 5


def test_ci_snippets_run(run_cli: Any, repo: Path) -> None:
    github, gitlab, precommit = (yaml.safe_load(b) for b in blocks("yaml"))
    run_cli("validate", "--write-baseline", "irtools-baseline.json", "schedules/")
    add_new_schedule(repo)

    steps = github["jobs"]["validate"]["steps"]
    commands = [s["run"] for s in steps if "run" in s and s["run"].startswith("irtools ")]
    annotate, sarif = (irtools_args(c) for c in commands)
    code, out, _ = run_cli(*annotate)
    # Only the new schedule's findings, each at its line: GIR201 at the ifmap entry reading transfer 77.
    assert code == 1
    assert all("vgg_b1" in line for line in out.splitlines()[:-1])
    assert (
        "::error file=schedules/vgg_b1_stschedule.json,line=347,col=5,title=GIR201 dangling-transfer::" in out
    )
    assert run_cli(*sarif)[0] == 0
    assert json.loads((repo / "irtools.sarif").read_text())["runs"][0]["results"]
    assert [s["with"]["sarif_file"] for s in steps if "upload-sarif" in s.get("uses", "")] == [
        "irtools.sarif"
    ]

    script = [c for c in gitlab["irtools"]["script"] if c.startswith("irtools ")]
    report_step, gate = (irtools_args(c) for c in script)
    assert run_cli(*report_step)[0] == 0
    issues = json.loads((repo / gitlab["irtools"]["artifacts"]["reports"]["codequality"]).read_text())
    assert {i["location"]["path"] for i in issues} == {"schedules/vgg_b1_stschedule.json"}
    assert run_cli(*gate)[0] == 1

    [hook] = [h for r in precommit["repos"] for h in r["hooks"]]
    [shipped] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == shipped["id"]
    entry = shlex.split(shipped["entry"])[1:]
    staged = sorted(
        str(p.relative_to(repo))
        for p in repo.rglob("*.json")
        if re.search(hook["files"], str(p.relative_to(repo)))
    )
    assert "irtools-baseline.json" not in staged and len(staged) == 4
    assert run_cli(*entry, *staged)[0] == 1  # the new schedule is staged
    old = [p for p in staged if "vgg_b1" not in p]
    code, _, err = run_cli(*entry, *old)
    assert code == 0 and "no longer" not in err


def test_legacy_file_ignores_gir305_only_there(run_cli: Any, repo: Path) -> None:
    run_cli("validate", "--write-baseline", "irtools-baseline.json", "schedules/")
    baselined = json.loads((repo / "irtools-baseline.json").read_text())["findings"]
    assert "schedules/legacy/conv_b1_stschedule.json" in {e["path"] for e in baselined}
    assert "GIR305" not in {e["code"] for e in baselined}
    shutil.copy(repo / "schedules/legacy/conv_b1_stschedule.json", repo / "schedules/conv_b2_stschedule.json")
    code, out, _ = run_cli("validate", "--format", "json", "schedules/")
    found = {(Path(f["path"]).name, x["code"]) for f in json.loads(out)["files"] for x in f["findings"]}
    assert ("conv_b2_stschedule.json", "GIR305") in found and code == 0


def test_configuration_found_from_a_subdirectory(
    run_cli: Any, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "schedules/legacy")
    code, out, _ = run_cli("validate", "--show-settings", "conv_b1_stschedule.json")
    assert code == 0 and f"# configuration: {repo / 'irtools.toml'}" in out
    assert f'baseline = "{repo / "irtools-baseline.json"}"' in out
