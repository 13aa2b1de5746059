"""Writing the tables to a directory (atomically, file by file) and reading them back with their dtypes."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pandas as pd

from irtools.analysis.measured_tables import MEASURED_TABLES
from irtools.analysis.tables import TABLES
from irtools.atomic import write_atomic
from irtools.csv_out import FORMULA_STARTS, spreadsheet_safe, write_csv

__all__ = ["FORMATS", "FORMULA_STARTS", "read_table", "spreadsheet_safe", "write_csv", "write_tables"]

FORMATS = ("csv", "parquet")


def parquet_available() -> bool:
    """Whether pyarrow is installed: `--format parquet` needs it."""
    return importlib.util.find_spec("pyarrow") is not None


def write_tables(
    tables: dict[str, pd.DataFrame],
    out_dir: str | os.PathLike[str],
    fmt: str = "csv",
    progress: Callable[[str], None] | None = None,
    excel_safe: bool = False,
) -> list[Path]:
    """Write each table to out_dir/<name>.<fmt>; each file appears whole or not at all.

    `excel_safe` writes CSV text cells through `spreadsheet_safe` (Parquet is never changed).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    if fmt == "parquet" and not parquet_available():
        raise ValueError("--format parquet needs pyarrow: pip install pyarrow")
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in tables.items():
        path = directory / f"{name}.{fmt}"
        if progress:
            progress(path.name)
        if fmt == "csv":
            write_csv(frame, path, excel_safe=excel_safe)
        else:
            write_atomic(path, partial(_write_parquet, frame))
        written.append(path)
    return written


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    frame.to_parquet(path, index=False)


def read_table(path: str | os.PathLike[str], name: str | None = None) -> pd.DataFrame:
    """Read a table written by `write_tables`, with its documented dtypes (name from the file stem)."""
    p = Path(path)
    spec = {**TABLES, **MEASURED_TABLES}[name or p.stem]
    if p.suffix == ".parquet":
        return pd.read_parquet(p)
    # Only empty cells are missing: a layer named "NA" or "null" stays a name.
    return pd.read_csv(p, dtype=spec.dtypes, keep_default_na=False, na_values=[""])
