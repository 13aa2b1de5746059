"""The README, the front page, as a newcomer meets it: each `$ irtools ...` session it shows prints what it
shows, and every link of the README and the manual under docs/ leads to a file and heading that exist."""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def readme_sessions() -> list[tuple[str, list[str]]]:
    """(irtools arguments, output lines) of each `$ irtools ...` line of the README's console blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL):
        current: list[str] | None = None
        for line in block.splitlines():
            if line.startswith("$ "):
                command = line[2:].split("   #")[0].split("&&")[-1].strip()
                current = None
                if command.startswith("irtools "):
                    current = []
                    found.append((command, current))
            elif current is not None:
                current.append(line)
    return found


SESSIONS = readme_sessions()
RUNNABLE = [(c, shown) for c, shown in SESSIONS if shlex.split(c)[1] != "serve"]
"""Every session but `serve`, which runs until stopped (tests/dashboard start it)."""


def test_the_readme_shows_the_three_jobs_on_the_bundled_samples() -> None:
    commands = [shlex.split(command)[1] for command, _ in SESSIONS]
    assert commands.count("validate") == 2 and "analyze" in commands and "report" in commands, commands


@pytest.mark.parametrize(("command", "shown"), RUNNABLE, ids=[c[:60] for c, _ in RUNNABLE])
def test_readme_session_prints_what_it_shows(
    command: str, shown: list[str], run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run where the README's relative paths hold, without writing into the checkout: the samples are
    # linked into a temporary folder, and out/ and report.html land there.
    (tmp_path / "sample_ir").symlink_to(ROOT / "sample_ir")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*shlex.split(command)[1:])
    expected_code = 1 if any(" error " in line for line in shown) else 0
    assert code == expected_code, err
    assert (out + err).splitlines() == shown


def test_readme_python_prints_what_its_comments_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """The front page's Python block, run line by line: each `expression   # value` gives that value."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    monkeypatch.chdir(ROOT)  # its paths are relative to the checkout; it writes nothing
    names: dict[str, Any] = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  # ")  # an inline comment, as ruff formats it
        if not comment:
            exec(code, names)  # noqa: S102 - the README's own example
            continue
        value = eval(code, names)
        if comment == "pandas DataFrame":
            assert type(value).__name__ == "DataFrame", code
        else:  # the comment is the value as a Python literal
            assert value == ast.literal_eval(comment), (code, value, comment)
        checked += 1
    assert checked == 2


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {_slug(m) for m in re.findall(r"^#+ (.*)$", text, flags=re.MULTILINE)}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_link_leads_somewhere(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.is_relative_to(ROOT):
            continue  # the shared folder beside the project (format documents), not part of a clone
        missing_anchor = bool(anchor) and file.suffix == ".md" and anchor not in _anchors(file)
        if not file.exists() or missing_anchor:
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


def test_the_readme_stays_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines: move the manual's part to docs/"
