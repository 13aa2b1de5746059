"""The pre-commit hook definition, checked the way check-jsonschema checks its own: by parsing it."""

from __future__ import annotations

import argparse
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from irtools.cli.main import build_parser

yaml = pytest.importorskip("yaml")

HOOKS_FILE = Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml"


@pytest.fixture(scope="module")
def hooks() -> list[dict[str, Any]]:
    loaded = yaml.safe_load(HOOKS_FILE.read_text(encoding="utf-8"))
    assert isinstance(loaded, list), "pre-commit expects a list of hook definitions"
    return loaded


def test_one_validate_hook(hooks: list[dict[str, Any]]) -> None:
    assert [hook["id"] for hook in hooks] == ["irtools-validate"]
    [hook] = hooks
    assert hook["name"] == "irtools validate"
    assert hook["entry"] == "irtools validate"
    assert hook["language"] == "python"
    assert hook["types"] == ["json"]
    assert isinstance(hook["description"], str) and hook["description"].strip()


def test_only_keys_pre_commit_knows(hooks: list[dict[str, Any]]) -> None:
    known = {
        "id",
        "name",
        "entry",
        "language",
        "alias",
        "log_file",
        "files",
        "exclude",
        "types",
        "types_or",
        "exclude_types",
        "always_run",
        "fail_fast",
        "verbose",
        "pass_filenames",
        "require_serial",
        "description",
        "language_version",
        "minimum_pre_commit_version",
        "args",
        "stages",
        "additional_dependencies",
    }
    for hook in hooks:
        assert set(hook) <= known


def test_entry_subcommand_exists_and_takes_file_names(hooks: list[dict[str, Any]]) -> None:
    [hook] = hooks
    program, *arguments = shlex.split(hook["entry"])
    assert program == "irtools"  # the console script in pyproject.toml
    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert arguments[0] in subparsers.choices
    # pre-commit appends the staged file names to the entry; the subcommand must accept them.
    args = build_parser().parse_args([*arguments, "a.json", "dir/b.json"])
    assert args.command == "validate" and args.paths == ["a.json", "dir/b.json"]
    assert hook.get("pass_filenames", True) is True


def test_console_script_is_declared() -> None:
    # `language: python` installs the package and runs the entry; it must be the project's console script.
    pyproject = tomllib.loads((HOOKS_FILE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["scripts"]["irtools"] == "irtools.cli.entry:run"
