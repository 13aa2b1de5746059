"""One defective entry gives one finding, however many ids it lists (reports stay linear in the file)."""

from __future__ import annotations

import json
from typing import Any

from irtools.loading.load import load_ir
from irtools.validate import check_loaded


def test_many_dangling_related_ids_are_one_finding(minimal_ir: dict[str, Any]) -> None:
    # The fuzz campaign's slowest input: 100,000 dangling related_ifmap ids made 100,000 findings.
    minimal_ir["-1"]["out"][0]["related_ifmap"] = list(range(1000, 6000))
    findings = [f for f in check_loaded(load_ir(json.dumps(minimal_ir).encode())) if f.code == "GIR206"]
    assert len(findings) == 1
    f = findings[0]
    assert f.pointer == "/-1/out/0/related_ifmap/0"
    assert "names 5000 ids that are not DRAM in transfers: 1000,1001," in f.message
    assert f.message.endswith("(4984 more)")


def test_one_dangling_related_id_reads_as_before(minimal_ir: dict[str, Any]) -> None:
    minimal_ir["-1"]["in"][0]["related_ofmap"] = [0, 73]  # 0 is the weight's DRAM out transfer
    findings = [f for f in check_loaded(load_ir(json.dumps(minimal_ir).encode())) if f.code == "GIR206"]
    assert [(f.pointer, f.message) for f in findings] == [
        ("/-1/in/0/related_ofmap/1", "related_ofmap 73 is not a DRAM out transfer")
    ]
