"""The `irtools` process: the package imports nothing heavy, and the command line runs with what it
imported frozen out of the collector's sight (irtools.cli.entry)."""

from __future__ import annotations

import os
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


def _threads_after_numpy(environment: dict[str, str]) -> str:
    code = (
        "import os, sys, types\n"
        "from irtools.cli import entry\n"
        "def main():\n"
        "    import numpy\n"
        "    print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))\n"
        "    return 0\n"
        "sys.modules['irtools.cli.main'] = types.SimpleNamespace(main=main)  # numpy not loaded before run\n"
        "entry.run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_command_line_starts_no_blas_threads_unless_the_user_asks() -> None:
    # numpy's OpenBLAS starts a thread per core as it loads, CPU every command paid for no linear algebra.
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _threads_after_numpy(environment) == "1 1"  # the main thread only
    assert _threads_after_numpy({**environment, "OPENBLAS_NUM_THREADS": "2"}).startswith("2 ")
