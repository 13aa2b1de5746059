"""The `irtools` process: the package imports nothing heavy, and the command line runs with what it
imported frozen out of the collector's sight (irtools.cli.entry)."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.conftest import ROOT


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def test_importing_the_package_imports_none_of_its_modules() -> None:
    done = _python(
        "import sys, irtools; print(sorted(m for m in sys.modules if m.startswith(('irtools.', 'numpy'))))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_packages_functions_are_there_when_asked_for() -> None:
    done = _python(
        "import irtools; print(irtools.load_ir.__module__, irtools.validate_paths.__name__, irtools.LoadedIR.__name__)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["irtools.loading.load", "validate_paths", "LoadedIR"]
    missing = _python("import irtools; irtools.nothing")
    assert "module 'irtools' has no attribute 'nothing'" in missing.stderr


def test_the_command_line_runs_with_the_collector_on_and_its_modules_frozen() -> None:
    code = (
        "import gc, sys\n"
        "from irtools.cli import entry\n"
        "import irtools.cli.main as cli\n"
        "cli.main = lambda: print(gc.isenabled(), gc.get_freeze_count()) or 3\n"
        "entry.run()\n"
    )
    done = _python(code)
    assert done.returncode == 3, done.stderr
    enabled, frozen = done.stdout.split()
    assert enabled == "True" and int(frozen) > 10_000  # the modules' objects, not a handful


def test_the_console_script_and_python_m_run_the_same_entry() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"irtools": "irtools.cli.entry:run"}
    done = subprocess.run(
        [sys.executable, "-m", "irtools", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("irtools ")
