"""Every CSV irtools writes (analyze, summarize, trace tables, the dashboard's downloads) goes through here.

Two things the plain `DataFrame.to_csv` gets wrong for text taken from an IR file:
- Python's csv writer quotes a field only for the delimiter, the quote and the characters of its line
  terminator; we end lines with "\\n", so a bare "\\r" inside a layer name was written unquoted and
  spreadsheets (and pandas) started a new row there. Here every field with "\\r" or "\\n" is quoted,
  as RFC 4180 says, and the file keeps its "\\n" line ends.
- Spreadsheets run a cell starting with `=`, `+`, `-`, `@`, tab or CR as a formula (OWASP, "CSV
  Injection"): `spreadsheet_safe` (the `--excel-safe` option, and always for downloads) escapes them,
  also after a line break inside a field.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from irtools.atomic import write_atomic

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection")."""
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_FORMULA_AFTER_BREAK = re.compile(r"(?<=[\r\n])(?=[=+\-@\t\r])")
_PRIVATE_USE = range(0xE000, 0xF900)
"""Characters a sentinel is made of: Unicode's private use area, which no IR text needs."""


def _text_cells(column: pd.Series) -> pd.Series | None:
    """The column's cells as strings (non-strings as NaN), or None when the column holds no text."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.astype(object).where(column.notna())
    if column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
        return column
    return None


def _is_text(value: object) -> bool:
    return isinstance(value, str)


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with every text cell a spreadsheet would run as a formula made plain text.

    OWASP's defence against CSV injection: a `'` before text starting with `=`, `+`, `-`, `@`, tab
    or carriage return (a layer named `=HYPERLINK(...)` would otherwise be a live link in Excel or
    LibreOffice), and after a line break inside a cell followed by one of them (some spreadsheets
    start a new row there). Numbers are never changed, nor text that is a plain number (`-1`),
    which a spreadsheet reads as that number. Returns `frame` itself when no cell needs it.
    """
    safe: dict[object, pd.Series] = {}
    for name in frame.columns:
        cells = _text_cells(frame[name])
        if cells is None:
            continue
        text = cells.map(_is_text).astype(bool) if cells.dtype == object else cells.notna()
        if not text.any():
            continue
        strings = cells[text].astype(str)
        leading = strings.str.startswith(FORMULA_STARTS) & ~strings.str.fullmatch(_NUMBER)
        inner = strings.str.contains(_FORMULA_AFTER_BREAK)
        if not (leading.any() or inner.any()):
            continue
        fixed = strings.where(~inner, strings.str.replace(_FORMULA_AFTER_BREAK, "'", regex=True))
        fixed = fixed.where(~leading, "'" + fixed)
        column = cells.astype(object) if isinstance(frame[name].dtype, pd.CategoricalDtype) else cells
        safe[name] = column.mask(text, fixed.reindex(column.index))
    if not safe:
        return frame
    frame = frame.copy()
    for name, column in safe.items():
        frame[name] = column
    return frame


def csv_text(frame: pd.DataFrame, header: bool = True, excel_safe: bool = False) -> str:
    """The table as CSV text (lines end in "\\n", fields with a line break quoted)."""
    out = io.StringIO()
    write_csv_to(frame, out, header=header, excel_safe=excel_safe)
    return out.getvalue()


def write_csv_to(frame: pd.DataFrame, out: TextIO, header: bool = True, excel_safe: bool = False) -> None:
    """Write the table as CSV to an open text stream (opened with newline="")."""
    if excel_safe:
        frame = spreadsheet_safe(frame)
    if not _write_columnwise(frame, out, header):
        _write_with_pandas(frame, out, header)


def _write_with_pandas(frame: pd.DataFrame, out: TextIO, header: bool) -> None:
    marked, sentinel = _mark_carriage_returns(frame)
    if sentinel is None:
        frame.to_csv(out, index=False, header=header, lineterminator="\n")
        return
    # The csv writer quotes a field holding "\n": each "\r" is written as "\n" + a character no cell
    # holds, then put back; so exactly the fields with a line break are quoted.
    out.write(marked.to_csv(index=False, header=header, lineterminator="\n").replace(sentinel, "\r"))


CHUNK_ROWS = 1 << 14
"""Rows formatted at a time: the texts of one chunk are in memory at once, not the table's (a few MiB).
Each chunk costs a few Arrow calls per column: with 4,096 rows, the CSVs of a 79 MB allocated file took
0.35-0.40 s to format, 0.29-0.30 s with 16,384 (`Analysis.table_parts` hands parts of that size)."""


def _write_columnwise(frame: pd.DataFrame, out: TextIO, header: bool) -> bool:
    """Write what `to_csv` writes (with the "\\r" rule above), formatted a column at a time by Arrow's
    kernels; False, having written nothing, without pyarrow, for a table with a column of another kind or
    a single column (whose empty field the csv writer quotes).

    pandas' writer turns every cell into a Python object and passes rows to the csv module: about 0.7 s
    for the 10 MB tensors table of a 73 MB allocated file, the CSVs of one `analyze` about 1x the parse;
    this about a quarter. The same texts: integers by their digits, booleans as True and False, floats by
    numpy's shortest repr (as pandas does), missing values empty, text quoted (its quotes doubled) when it
    holds a comma, a quote or a line break. tests/unit/test_csv_columns.py holds it to the csv writer.
    """
    if frame.shape[1] < 2 or not all(map(_formattable, frame.dtypes)):
        return False
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return False
    if header:
        out.write(",".join(_quoted(str(name)) for name in frame.columns) + "\n")
    comma, newline = pa.scalar(",", pa.large_string()), pa.scalar("\n", pa.large_string())
    # malloc's pool, not Arrow's default (mimalloc): memory freed after a chunk goes back to where the
    # interpreter and numpy allocate, so analyze peaks no higher than with pandas' writer.
    pool = pa.system_memory_pool()
    for start in range(0, len(frame), CHUNK_ROWS):
        part = frame.iloc[start : start + CHUNK_ROWS]
        texts = [_cell_texts(part.iloc[:, i], pa, pc, pool) for i in range(part.shape[1])]
        rows = pc.binary_join_element_wise(*texts, comma, memory_pool=pool)
        chunk = pa.LargeListArray.from_arrays(pa.array([0, len(rows)], pa.int64()), rows, pool=pool)
        _write_text(out, pc.binary_join(chunk, newline, memory_pool=pool)[0].as_buffer())
        out.write("\n")
    return True


def _write_text(out: TextIO, text: Any) -> None:
    """Arrow's UTF-8 bytes `text` (a Buffer) written to `out`: straight to a file's byte stream, not made a
    Python string to be encoded again."""
    if isinstance(out, io.TextIOWrapper) and out.encoding.lower().replace("-", "") == "utf8":
        out.flush()
        out.buffer.write(memoryview(text))
    else:
        out.write(memoryview(text).tobytes().decode("utf-8"))


def _formattable(dtype: object) -> bool:
    if isinstance(dtype, np.dtype):
        return dtype.kind in "iubf"
    return isinstance(dtype, pd.Int64Dtype | pd.StringDtype)


def _cell_texts(column: pd.Series, pa: Any, pc: Any, pool: Any) -> Any:
    """The column's cells as the csv writer writes them, an Arrow string array (`_formattable` kinds)."""
    text, dtype = pa.large_string(), column.dtype
    if isinstance(dtype, np.dtype):
        values = column.to_numpy()
        if dtype.kind == "b":
            return pc.if_else(pa.array(values, memory_pool=pool), "True", "False", memory_pool=pool).cast(
                text
            )
        if dtype.kind == "f":
            texts = values.astype(str)  # numpy's repr, as pandas writes it: 1.0, 1e+20 (Arrow: 1, 1e20)
            texts[np.isnan(values)] = ""
            return pa.array(texts, text, memory_pool=pool)
        return pc.cast(pa.array(values, memory_pool=pool), text, memory_pool=pool)
    if isinstance(dtype, pd.Int64Dtype):
        numbers = pa.array(column, from_pandas=True, memory_pool=pool)
        return pc.coalesce(pc.cast(numbers, text, memory_pool=pool), "", memory_pool=pool)
    strings = pa.array(column, text, from_pandas=True, memory_pool=pool)
    if isinstance(strings, pa.ChunkedArray):  # Arrow-backed strings joined from several frames (pd.concat)
        strings = strings.combine_chunks(memory_pool=pool)
    texts = pc.coalesce(strings, "", memory_pool=pool)
    needs = pc.match_substring_regex(texts, _NEEDS_QUOTES.pattern, memory_pool=pool)
    if not pc.any(needs).as_py():
        return texts  # most columns: no quoted copy of every cell made to be thrown away
    quote, nothing = pa.scalar('"', text), pa.scalar("", text)
    doubled = pc.replace_substring(texts, '"', '""', memory_pool=pool)
    escaped = pc.binary_join_element_wise(quote, doubled, quote, nothing, memory_pool=pool)
    return pc.if_else(needs, escaped, texts, memory_pool=pool)


_NEEDS_QUOTES = re.compile(r'[,"\r\n]')
"""What makes the csv writer quote a field: the delimiter, the quote, a line break ("\\r" by our rule)."""


def _quoted(text: str) -> str:
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if _NEEDS_QUOTES.search(text) else text


def write_csv(
    frame: pd.DataFrame, path: str | os.PathLike[str], header: bool = True, excel_safe: bool = False
) -> None:
    """Write the table as a CSV file, atomically (whole or not at all)."""
    write_csv_parts(iter([frame]), path, header, excel_safe)


def write_csv_parts(
    parts: Iterator[pd.DataFrame], path: str | os.PathLike[str], header: bool = True, excel_safe: bool = False
) -> None:
    """Write a table given as parts (frames with its columns, their rows one after the other) as one CSV
    file, atomically; each part is let go before the next is asked for."""
    write_atomic(path, _writer(parts, header, excel_safe))


def _writer(parts: Iterator[pd.DataFrame], header: bool, excel_safe: bool) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        with open(path, "w", encoding="utf-8", newline="") as out:
            for at, part in enumerate(parts):
                write_csv_to(part, out, header=header and at == 0, excel_safe=excel_safe)
                del part

    return write


def _mark_carriage_returns(frame: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """The table with each "\\r" in a text cell replaced by a sentinel holding "\\n", and the sentinel."""
    columns = {}
    for name in frame.columns:
        cells = _text_cells(frame[name])
        if cells is None:
            continue
        try:  # vectorized; non-string cells of an object column give NaN
            has_cr = cells.str.contains("\r", regex=False, na=False).any()
        except AttributeError:  # an object column without a single string
            continue
        if has_cr:
            columns[name] = cells
    if not columns:
        return frame, None
    sentinel = _unused_character(frame)
    marked = frame.copy()
    for name, cells in columns.items():
        marked[name] = cells.map(lambda v: v.replace("\r", sentinel) if isinstance(v, str) else v)
    return marked, sentinel


def _unused_character(frame: pd.DataFrame) -> str:
    """ "\\n" + a private-use character that appears in no cell and no column name."""
    texts = [str(name) for name in frame.columns]
    for name in frame.columns:
        cells = _text_cells(frame[name])
        if cells is not None:
            texts.extend(v for v in cells if isinstance(v, str))
    used = set().union(*map(set, texts)) if texts else set()
    for code in _PRIVATE_USE:
        if chr(code) not in used:
            return "\n" + chr(code)
    raise ValueError("every private-use character appears in the table")  # 6,400 distinct ones: never
