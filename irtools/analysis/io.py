"""Writing the tables to a directory (atomically, file by file) and reading them back with their dtypes."""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pandas as pd

from irtools.analysis.tables import TABLES
from irtools.atomic import write_atomic

FORMATS = ("csv", "parquet")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection")."""
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def parquet_available() -> bool:
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
        if excel_safe and fmt == "csv":
            frame = spreadsheet_safe(frame)
        write_atomic(path, partial(_WRITERS[fmt], frame))
        written.append(path)
    return written


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with every text cell a spreadsheet would run as a formula made plain text.

    OWASP's defence against CSV injection: a `'` before text starting with `=`, `+`, `-`, `@`, tab
    or carriage return (a layer named `=HYPERLINK(...)` would otherwise be a live link in Excel or
    LibreOffice). Numbers are never changed, nor text that is a plain number (`-1`), which a
    spreadsheet reads as that number. Returns `frame` itself when no cell needs it.
    """
    safe: dict[object, pd.Series] = {}
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_string_dtype(column.dtype) and column.dtype != object:
            risky = column.str.startswith(FORMULA_STARTS, na=False) & ~column.str.fullmatch(_NUMBER, na=False)
        elif column.dtype == object:  # mixed cells: only the strings among them
            risky = column.map(_is_formula).astype(bool)
        else:
            continue
        if risky.any():
            safe[name] = column.mask(risky, "'" + column[risky].astype(str))
    if not safe:
        return frame
    frame = frame.copy()
    for name, column in safe.items():
        frame[name] = column
    return frame


def _is_formula(value: object) -> bool:
    return isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value)


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write one table as CSV, atomically."""
    write_atomic(path, partial(_write_csv, frame))


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    frame.to_csv(path, index=False, lineterminator="\n")


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    frame.to_parquet(path, index=False)


_WRITERS = {"csv": _write_csv, "parquet": _write_parquet}


def read_table(path: str | os.PathLike[str], name: str | None = None) -> pd.DataFrame:
    """Read a table written by `write_tables`, with its documented dtypes (name from the file stem)."""
    p = Path(path)
    from irtools.trace.tables import MEASURED_TABLES  # late: irtools.trace builds on this package

    spec = {**TABLES, **MEASURED_TABLES}[name or p.stem]
    if p.suffix == ".parquet":
        return pd.read_parquet(p)
    # Only empty cells are missing: a layer named "NA" or "null" stays a name.
    return pd.read_csv(p, dtype=spec.dtypes, keep_default_na=False, na_values=[""])
