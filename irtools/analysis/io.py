"""Writing the tables to a directory (atomically, file by file) and reading them back with their dtypes."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pandas as pd

from irtools.analysis.measured_tables import MEASURED_TABLES
from irtools.analysis.tables import TABLES
from irtools.atomic import write_atomic
from irtools.csv_out import FORMULA_STARTS, spreadsheet_safe, write_csv, write_csv_parts

__all__ = [
    "FORMATS",
    "FORMULA_STARTS",
    "read_table",
    "spreadsheet_safe",
    "write_csv",
    "write_table",
    "write_tables",
]

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
    _check_format(fmt)
    return [
        write_table(name, iter([frame]), out_dir, fmt, progress, excel_safe) for name, frame in tables.items()
    ]


def write_table(
    name: str,
    parts: Iterator[pd.DataFrame],
    out_dir: str | os.PathLike[str],
    fmt: str = "csv",
    progress: Callable[[str], None] | None = None,
    excel_safe: bool = False,
) -> Path:
    """Write one table, given as parts whose rows one after the other are the table's
    (`Analysis.table_parts`), to out_dir/<name>.<fmt>, whole or not at all; each CSV part let go before
    the next is made (Parquet takes the parts joined)."""
    _check_format(fmt)
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.{fmt}"
    if progress:
        progress(path.name)
    if fmt == "csv":
        write_csv_parts(parts, path, excel_safe=excel_safe)
    else:
        frames = list(parts)
        frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        write_atomic(path, partial(_write_parquet, frame))
    return path


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    if fmt == "parquet" and not parquet_available():
        raise ValueError("--format parquet needs pyarrow: pip install pyarrow")


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
