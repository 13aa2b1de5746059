"""The sweep table of one directory, as the dashboard and the report show it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from irtools.options import RunOptions
from irtools.sweep.cache import ResultCache, default_cache_dir
from irtools.sweep.engine import collect
from irtools.sweep.manifest import read_manifest
from irtools.sweep.work import WorkOptions

MANIFEST = "manifest.csv"
"""A manifest in the directory itself is joined (the layout of fixtures/gemini-sweep)."""


def directory_table(root: str | Path, max_bytes: int | None = None, jobs: int = 1) -> pd.DataFrame:
    """Every IR under `root`, one row each (per manifest run), with the result cache; paths relative
    to `root`."""
    folder = Path(root)
    options = WorkOptions(RunOptions(max_bytes=max_bytes))
    manifest_path = folder / MANIFEST
    manifest = read_manifest(manifest_path) if manifest_path.is_file() else None
    cache = ResultCache(default_cache_dir(), options.result_options())
    table = collect([str(folder)], options, jobs, allow_empty=True, cache=cache, manifest=manifest).rows
    table["path"] = [_relative(p, folder) for p in table["path"]]
    return table


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path
