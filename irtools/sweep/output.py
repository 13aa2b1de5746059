"""Sweep tables written as results arrive: CSV rows or Parquet row groups appended to a temp file.

The temp file sits beside the target (`.NAME.*.tmp`). At the end it is sorted by path (so the output
does not depend on which worker finished first) and renamed over the target; after Ctrl-C it is closed
and renamed as it is: a valid CSV or Parquet file holding the rows done so far. A kill leaves the old
target untouched and the temp file beside it.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from irtools.atomic import write_atomic
from irtools.csv_out import write_csv_to

FLUSH_ROWS = 512
FLUSH_SECONDS = 2.0
PARQUET_SUFFIXES = (".parquet", ".pq")


def format_of(path: str | os.PathLike[str]) -> str:
    """The sweep table's format from the output's suffix: parquet for .parquet/.pq, else csv."""
    return "parquet" if Path(path).suffix.lower() in PARQUET_SUFFIXES else "csv"


def findings_path(output: str | os.PathLike[str]) -> Path:
    """Where the findings table goes by default: sweep.csv -> sweep.findings.csv."""
    out = Path(output)
    return out.with_name(f"{out.stem}.findings{out.suffix or '.csv'}")


class TableStream:
    """One table streamed to a temp file beside `target`, committed sorted or partial."""

    def __init__(
        self, target: str | os.PathLike[str], dtypes: dict[str, str], excel_safe: bool = False
    ) -> None:
        self.target = Path(target)
        self.fmt = format_of(self.target)
        self.dtypes = dtypes
        self.excel_safe = excel_safe
        """CSV text cells through `spreadsheet_safe` (file names, layer names: anything a file may hold)."""
        self.rows = 0
        self._buffer: list[dict[str, Any]] = []
        self._last_flush = time.monotonic()
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.target.name}.", suffix=".tmp", dir=self.target.parent)
        except OSError as exc:  # name the file the user asked for, not our temp file
            raise type(exc)(exc.errno, exc.strerror, str(self.target)) from None
        os.close(fd)
        self._tmp = Path(tmp)
        self._writer: Any = None  # pyarrow.parquet.ParquetWriter, opened on the first flush
        self._schema: Any = None
        if self.fmt == "csv":
            with open(self._tmp, "w", encoding="utf-8", newline="") as handle:
                write_csv_to(self._frame([]), handle)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            self._schema = pa.Schema.from_pandas(self._frame([]), preserve_index=False)
            self._writer = pq.ParquetWriter(self._tmp, self._schema)

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Add rows; flush them to the temp file every FLUSH_ROWS rows or FLUSH_SECONDS seconds."""
        self._buffer.extend(rows)
        self.rows += len(rows)
        if len(self._buffer) >= FLUSH_ROWS or time.monotonic() - self._last_flush > FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Append the buffered rows to the hidden temp file beside the target."""
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        frame, self._buffer = self._frame(self._buffer), []
        if self.fmt == "csv":
            with open(self._tmp, "a", encoding="utf-8", newline="") as handle:
                write_csv_to(frame, handle, header=False, excel_safe=self.excel_safe)
        else:
            import pyarrow as pa

            self._writer.write_table(pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False))

    def commit(self, sort: bool = True) -> None:
        """Move the table into place: sorted by path (a complete sweep), or as streamed (a partial one)."""
        try:
            self.flush()
            if self._writer is not None:
                self._writer.close()
                self._writer = None
            if sort:
                write_atomic(self.target, self._write_sorted)
            else:
                os.chmod(self._tmp, 0o666 & ~_umask())
                os.replace(self._tmp, self.target)
        finally:
            self._tmp.unlink(missing_ok=True)

    def abort(self) -> None:
        """Drop the temp file and keep the target as it was."""
        try:
            if self._writer is not None:
                self._writer.close()
        finally:
            self._tmp.unlink(missing_ok=True)

    def _write_sorted(self, path: Path) -> None:
        if self.fmt == "csv":
            frame = pd.read_csv(self._tmp, dtype=self.dtypes, keep_default_na=False, na_values=[""])
            with open(
                path, "w", encoding="utf-8", newline=""
            ) as handle:  # cells escaped as they were streamed
                write_csv_to(frame.sort_values("path", kind="stable"), handle)
        else:
            import pyarrow.parquet as pq

            table = pq.read_table(self._tmp)
            pq.write_table(table.take(_stable_order(table.column("path").to_pylist())), path)

    def _frame(self, rows: list[dict[str, Any]]) -> pd.DataFrame:
        return pd.DataFrame(
            {name: pd.Series([r.get(name) for r in rows], dtype=dtype) for name, dtype in self.dtypes.items()}
        )


def _stable_order(keys: list[str]) -> list[int]:
    return sorted(range(len(keys)), key=keys.__getitem__)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
