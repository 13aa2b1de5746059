"""GIR305's documented screen flags only what its check can report: an entry without sources is not
compared (the check skips it), so a file whose entries list transfer ids without sources sends no
workload to the check. A screen that flagged them would lose no finding but would make every such file
pay for the object-by-object check (the mutation draw of session 40 found no test saying so)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.rules.l2.source_union import source_union_rows
from irtools.validate import check_loaded

SAMPLE = Path("sample_ir/valid/mesh2x2_conv_b1_c4_bw16_stschedule.json")


def _flagged_and_found(document: dict[str, Any]) -> tuple[list[int] | None, list[str]]:
    loaded = load_ir(json.dumps(document).encode(), "sample.json")
    found = [f.pointer for f in check_loaded(loaded, RunOptions()) if f.code == "GIR305"]
    return source_union_rows(IRIndex(loaded, RunOptions())), found


def test_entries_with_ids_and_no_sources_are_neither_flagged_nor_found() -> None:
    """Every entry's sources removed, its transfer ids kept: no GIR305 finding, and nothing screened in."""
    document = json.loads(SAMPLE.read_text())
    for workloads in (v for v in document.values() if isinstance(v, list)):
        for workload in workloads:
            for entry in workload.get("buffer", []):
                entry.pop("source", None)
    assert _flagged_and_found(document) == ([], [])


def test_an_entry_whose_ids_differ_from_its_sources_is_flagged_and_found() -> None:
    """The same sample's first entry naming a transfer its one source does not bring: flagged, and found."""
    document = json.loads(SAMPLE.read_text())
    entry = document["0"][0]["buffer"][0]
    entry["transfer_id"] = [*entry["transfer_id"], 999]
    flagged, found = _flagged_and_found(document)
    assert flagged == [0]
    assert found == ["/0/0/buffer/0"]
