"""The source trees a benchmark measures, made ready to be timed as an installed irtools runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGES = ("irtools", "dashboards")


def compiled(trees: dict[str, Path]) -> dict[str, Path]:
    """`trees` (label -> source tree), their packages' bytecode written first.

    pip compiles a package's modules when it installs it, and Python caches them on first import;
    a machine with PYTHONDONTWRITEBYTECODE set (this one) does neither, so every timed process would
    compile all of irtools from source again: about 0.3 s of each command, which an installed
    irtools never pays. compileall writes the caches whatever that setting says, and Python reads
    them whatever it says."""
    for tree in trees.values():
        folders = [str(tree / p) for p in PACKAGES if (tree / p).is_dir()]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True)
    return trees
