"""A user's manifest of sweep runs (any columns, one row per run), joined to the IR files by file name.

A file may appear in several rows (runs that wrote the same IR, as in fixtures/gemini-noc), and a row
may name a file that does not exist (the scheduler found no schedule): it becomes a row saying so.
Where a column carries the scheduler's own cost line (`E:4.7e+09 T:7644420 Cost:7.6e+06`), its latency
`T` and energy `E` become columns beside the makespan computed from the IR.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from irtools.rules.registry import UsageError

NAME_KEYS = ("name", "file", "filename", "ir", "path")
"""Columns that may hold the IR's file name, in order of preference."""

LATENCY = re.compile(r"(?:^|\s)T:\s*(\d+)(?:\s|$)")
ENERGY = re.compile(r"(?:^|\s)E:\s*([0-9.]+(?:[eE][+-]?\d+)?)(?:\s|$)")


@dataclass(frozen=True)
class Manifest:
    """A user's table of scheduler runs, joined to the IR files by the file name in its `key` column."""

    frame: pd.DataFrame
    """The manifest as read (column dtypes inferred by pandas), in file order."""
    key: str
    """The column holding the file name."""
    cost_column: str | None
    """The column with the scheduler's cost line, if any."""
    folder: str = ""
    """The manifest's folder: a run without an IR is shown at the path it would have there."""

    @property
    def names(self) -> list[str]:
        """Each run's IR file name (the key column without its folder), in file order."""
        return [Path(str(v)).name for v in self.frame[self.key]]

    def rows_for(self, file_name: str) -> list[dict[str, Any]]:
        """The manifest rows naming this file, as dicts (missing cells None)."""
        hits = self.frame[[n == file_name for n in self.names]]
        return [_plain(r) for r in hits.to_dict("records")]

    def rows_for_all(self) -> list[dict[str, Any]]:
        """Every row, in file order."""
        return [_plain(r) for r in self.frame.to_dict("records")]

    def columns(self) -> list[str]:
        """The manifest's column names, in file order."""
        return list(self.frame.columns)

    def noc_bws(self, file_name: str, column: str = "noc_bw") -> tuple[int, ...]:
        """The NoC bandwidths of the runs that wrote this file (its `noc_bw` column), smallest first."""
        if column not in self.frame.columns:
            return ()
        runs = self.rows_for(file_name)
        return tuple(sorted({bw for run in runs if isinstance(bw := run.get(column), int) and bw > 0}))


def read_manifest(path: str | Path) -> Manifest:
    """Read a CSV manifest; UsageError (exit 2) when it cannot be read or names no files."""
    try:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    except FileNotFoundError:
        raise UsageError(f"--manifest: {path}: no such file") from None
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise UsageError(f"--manifest: {path}: cannot read it as CSV: {exc}") from None
    key = next((k for k in NAME_KEYS if k in frame.columns), None)
    if key is None:
        raise UsageError(
            f"--manifest: {path}: no column naming the IR file (one of: {', '.join(NAME_KEYS)}); "
            f"columns are {', '.join(map(str, frame.columns))}"
        )
    cost = next((c for c in frame.columns if any(LATENCY.search(str(v)) for v in frame[c])), None)
    return Manifest(frame, key, cost, os.path.dirname(str(path)))


def cost_columns(manifest_row: dict[str, Any], cost_column: str | None) -> dict[str, Any]:
    """scheduler_latency and scheduler_energy from the row's cost line (empty when it has none)."""
    line = str(manifest_row.get(cost_column) or "") if cost_column else ""
    latency, energy = LATENCY.search(line), ENERGY.search(line)
    return {
        "scheduler_latency": int(latency[1]) if latency else None,
        "scheduler_energy": float(energy[1]) if energy else None,
    }


def _plain(record: dict[Any, Any]) -> dict[str, Any]:
    """numpy scalars as Python values and NaN as None: JSON- and pickle-friendly."""
    out: dict[str, Any] = {}
    for k, v in record.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out[str(k)] = None
        else:
            out[str(k)] = v.item() if hasattr(v, "item") else v
    return out
