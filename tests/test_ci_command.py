"""CI runs the README's test command: the same pytest options, the `ci` hypothesis profile, its seed in the header."""

from __future__ import annotations

import importlib
import os
import shlex
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
CI_ONLY = ["-p", "no:cacheprovider"]
"""What .ci/run adds to the README's options: a fresh clone keeps no pytest cache."""


def _pytest_options(command: str) -> list[str]:
    words = shlex.split(command)
    start = max(i for i, w in enumerate(words) if w == "pytest") + 1
    return words[start:]


def readme_options() -> list[str]:
    """The pytest options of the README's install-and-test command."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    [line] = [line for line in text.splitlines() if line.startswith("$ ") and "-m pytest" in line]
    return _pytest_options(line.split("&&")[-1])


def ci_options() -> list[str]:
    """The pytest options of .ci/run's gate: its one pytest run whose status is kept (the informational runs
    after it, such as the property tests on a fresh seed, are the argument of an `if`)."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    [line] = [line for line in lines if "-m pytest" in line and not line.lstrip().startswith(("#", "if "))]
    return _pytest_options(line)


def test_ci_runs_the_readme_test_command() -> None:
    assert readme_options() == ["--hypothesis-profile=ci", "-n", "2"]
    assert ci_options() == CI_ONLY + readme_options()


def test_the_ci_profile_and_its_seed_are_in_the_header() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    env.pop("HYPOTHESIS_PROFILE", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *CI_ONLY,
            *readme_options(),
            "--collect-only",
            "tests/unit/test_core_numbering.py",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    header = proc.stdout.split("collected")[0]
    assert "hypothesis profile 'ci': seed 0, max_examples 100, deadline None" in header, proc.stdout


def test_importing_the_conftest_again_keeps_the_runs_profile() -> None:
    """Test modules import tests/conftest.py a second time (`from tests.conftest import ROOT`): that must
    not switch the run's hypothesis profile (a load at import once turned a `ci` run into `dev` halfway)."""
    import tests.conftest as shared

    before = settings.get_current_profile_name()
    settings.load_profile("fuzz")
    try:
        importlib.reload(shared)
        assert settings.get_current_profile_name() == "fuzz"
    finally:
        settings.load_profile(before)
