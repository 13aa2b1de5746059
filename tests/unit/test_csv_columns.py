"""The column-at-a-time CSV writer (irtools.csv_out) writes exactly what the csv module's writer does.

Every CSV `analyze` writes goes through it, so a changed digit, quote or empty cell would reach every
user's files and diffs: it is held to the pandas path (`to_csv`, with our "\\r" rule) on every table of
real files of each dialect and on generated tables of every column kind it formats.
"""

from __future__ import annotations

import builtins
import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irtools import csv_out
from irtools.analysis import analyze
from irtools.csv_out import _write_columnwise, _write_with_pandas, csv_text

pytest.importorskip("pyarrow")

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
REAL = [
    FIXTURES / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json",
    FIXTURES / "gemini-alloc" / "resnet_4x4_b4_ff1_ss2_rr50_alloc.json",
    FIXTURES / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json",
]


def _pandas_text(frame: pd.DataFrame, header: bool = True) -> str:
    out = io.StringIO()
    _write_with_pandas(frame, out, header)
    return out.getvalue()


def _columnwise_csv(frame: pd.DataFrame, header: bool) -> str | None:
    out = io.StringIO()
    return out.getvalue() if _write_columnwise(frame, out, header) else None


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures not present")
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.parent.name)
def test_every_table_of_a_real_file_is_written_as_pandas_writes_it(path: Path) -> None:
    tables = analyze(path).tables()
    written = 0
    for name, frame in tables.items():
        text = _columnwise_csv(frame, header=True)
        if text is not None:
            written += 1
            assert text == _pandas_text(frame), name
    assert written == len(tables)  # no table of `analyze` falls back to the slower writer


TEXT = st.text(alphabet=st.sampled_from(list("ab ,\"\r\n\t'=é€\x00;") + ["\U0001f600"]), max_size=6)

NAME = st.text(alphabet=st.sampled_from(list('ab ,"\n=é')), max_size=4)
"""Column names: irtools' own; the pandas path quotes a "\\r" in a cell but not in a name (ours does)."""


@st.composite
def frames(draw: Any) -> pd.DataFrame:
    rows = draw(st.integers(0, 6))
    kinds = draw(
        st.lists(st.sampled_from(["int", "uint", "bool", "float", "Int64", "str"]), min_size=2, max_size=5)
    )
    columns: dict[str, Any] = {}
    for i, kind in enumerate(kinds):
        if kind == "int":
            values: Any = np.array(
                draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=rows, max_size=rows)), np.int64
            )
        elif kind == "uint":
            values = np.array(
                draw(st.lists(st.integers(0, 2**64 - 1), min_size=rows, max_size=rows)), np.uint64
            )
        elif kind == "bool":
            values = np.array(draw(st.lists(st.booleans(), min_size=rows, max_size=rows)), bool)
        elif kind == "float":
            values = np.array(draw(st.lists(st.floats(width=64), min_size=rows, max_size=rows)), np.float64)
        elif kind == "Int64":
            values = pd.array(
                draw(st.lists(st.none() | st.integers(-(2**63), 2**63 - 1), min_size=rows, max_size=rows)),
                "Int64",
            )
        else:
            values = pd.array(draw(st.lists(st.none() | TEXT, min_size=rows, max_size=rows)), "str")
        columns[draw(NAME) + str(i)] = values
    return pd.DataFrame(columns)


@settings(max_examples=300)
@given(frames(), st.booleans(), st.sampled_from([1, 2, 1 << 16]))
def test_generated_tables_are_written_as_pandas_writes_them(
    frame: pd.DataFrame, header: bool, chunk_rows: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(csv_out, "CHUNK_ROWS", chunk_rows)  # rows formatted at a time: one, two, all
        assert _columnwise_csv(frame, header) == _pandas_text(frame, header)


def test_a_table_joined_from_several_frames_is_written_as_pandas_writes_it() -> None:
    """pd.concat leaves Arrow-backed strings in chunks (analyze joins its cores' snapshot tables so)."""
    parts = [pd.DataFrame({"n": [i, i + 1], "name": pd.array([f"l{i}", 'a,"b"'], "str")}) for i in range(3)]
    frame = pd.concat(parts, ignore_index=True)
    assert _columnwise_csv(frame, True) == _pandas_text(frame, True)


def test_a_single_column_and_other_kinds_are_left_to_pandas() -> None:
    assert _columnwise_csv(pd.DataFrame({"a": [1, 2]}), True) is None  # its empty field is quoted: ""
    dates = pd.DataFrame({"a": [1], "when": pd.to_datetime(["2026-11-26"])})
    assert _columnwise_csv(dates, True) is None
    texts = pd.DataFrame({"a": [1], "b": pd.Series(["x"], dtype=object)})  # object columns may hold anything
    assert _columnwise_csv(texts, True) is None


def test_without_pyarrow_the_same_text_comes_from_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pd.DataFrame({"n": [1, 2], "name": pd.array(['a,"b"', None], "str")})
    expected = csv_text(frame)
    real_import = builtins.__import__

    def no_pyarrow(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    assert _columnwise_csv(frame, True) is None
    assert csv_text(frame) == expected == 'n,name\n1,"a,""b"""\n2,\n'
