"""The timeline's ifmap_transfers and ofmap_transfers columns, from the transfer columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irtools.analysis import analyze
from irtools.analysis.schedule_tables import _transfer_lists_reference, transfer_lists
from tests.conftest import FIXTURES

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ir" / "valid"


def _expected(path: Path) -> dict[tuple[int, int], tuple[str | None, str | None]]:
    """Per (core, workload id), straight from the JSON: the distinct ids read (ifmap and weight) and the
    ofmaps' ids, each ascending and joined by ";"."""
    out = {}
    for key, workloads in json.loads(path.read_text()).items():
        if not key.isdigit():
            continue
        for w in workloads:
            reads = {t for i in w["ifmap"] for t in i["transfer_id"]} | set(
                (w.get("weight") or {}).get("transfer_id", ())
            )
            made = [o["transfer_id"] for o in w["ofmap"]]
            out[int(key), w["workload_id"]] = (
                ";".join(map(str, sorted(reads))) or None,
                ";".join(map(str, sorted(set(made)))) or None,
            )
    return out


def test_the_columns_say_what_the_file_says(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "mesh2x2_conv_b1_c4_bw16_stschedule.json").read_text())
    first = doc["0"][0]
    # An id listed twice, and read both as ifmap and as weight: each workload's ids once, ascending.
    first["ifmap"][0]["transfer_id"] = [7, 0, 7]
    first["weight"]["transfer_id"] = [0, 2]
    path = tmp_path / "repeated.json"
    path.write_text(json.dumps(doc))
    a = analyze(path)
    rows = a.timeline[a.timeline["model"] == "dependency"]
    got = {
        (int(r.core_id), int(r.workload_id)): (r.ifmap_transfers, r.ofmap_transfers)
        for r in rows.itertuples()
    }
    assert got == _expected(path) and got[0, 0][0] == "0;2;7"
    assert any(";" in reads for reads, _ in got.values() if reads)  # several ids read: the join is tested


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures not present")
def test_fast_and_reference_agree_on_real_files_of_every_dialect() -> None:
    files = [
        FIXTURES / "gemini-raw" / "resnet_2x2_b1_ir.json",
        FIXTURES / "gemini-alloc" / "bert_2x2_b1_alloc.json",
        *sorted((FIXTURES / "gemini").glob("*.json"))[:2],
    ]
    for path in files:
        index = analyze(path).index
        fast, reference = transfer_lists(index), _transfer_lists_reference(index)
        assert [list(c) for c in fast] == [list(c) for c in reference], path.name
