"""Every semantic finding on the real fixtures, checked by hand against the JSON and pinned here."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from irtools.findings import Severity
from irtools.validate import validate_file

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
pytestmark = pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures not present")
GEMINI = sorted((FIXTURES / "gemini").glob("*.json")) if FIXTURES.is_dir() else []
SLICE = FIXTURES / "npu-simulator" / "ir_ramulator2_dram_test_slice.json"


@pytest.mark.parametrize("path", GEMINI, ids=lambda p: p.name.split(".")[0] + p.name.split("_")[-3])
def test_real_gemini_files_are_clean(path: Path) -> None:
    """The real Gemini schedules pass every semantic rule: no transfer, buffer, WL0 or schedule finding.

    Checked by hand: all transfer ids resolve, all 900 fmap sizes follow the alignment formula,
    no two live L2 tensors overlap, and the only ofmap ranges outside their workload box
    (resnet50 workloads 67-72) are workload-relative, which GIR505 accepts.
    """
    report = validate_file(str(path))
    semantic = [f for f in report.findings if f.code[:4] in ("GIR2", "GIR3", "GIR4", "GIR5")]
    assert semantic == []
    assert report.errors == 0 and report.warnings == 0


@pytest.mark.parametrize("path", GEMINI, ids=lambda p: p.name.split(".")[0] + p.name.split("_")[-3])
def test_opt_in_rules_on_real_files(path: Path) -> None:
    """WL0 peaks at 18,816 bytes and some WL0 addresses are only 32-byte aligned (WL0 is not GIR308's concern);
    every L2 address in these files is a multiple of 64, so --addr-align 64 stays quiet."""
    from irtools.rules.context import CheckOptions

    report = validate_file(str(path), CheckOptions(wl0_size=19 * 1024, addr_align=64))
    assert [f.code for f in report.findings if f.code in ("GIR308", "GIR402")] == []
    tight = validate_file(str(path), CheckOptions(wl0_size=8 * 1024))
    assert any(f.code == "GIR402" for f in tight.findings)


@pytest.mark.skipif(not SLICE.exists(), reason="npu-simulator fixture not present")
def test_npu_simulator_slice_findings() -> None:
    report = validate_file(str(SLICE))
    semantic = Counter(f.code for f in report.findings if f.code[:4] in ("GIR2", "GIR3", "GIR4", "GIR5"))
    assert semantic == {"GIR203": 14, "GIR307": 12, "GIR201": 1}
    by_code = {c: [f for f in report.findings if f.code == c] for c in semantic}
    # The file is a slice: ofmaps name core 0 workload 29 and core 1 workload 35 (pool1), which are not in it.
    assert {f.message.split(" of transfer")[0] for f in by_code["GIR203"]} == {
        "destination core 0 workload 29",
        "destination core 1 workload 35",
    }
    # Core 1's ifmap transfer 3 has no DRAM out entry at all (out ids are 0, 1, 2, 36, ...); its 6 workloads use it.
    (dangling,) = by_code["GIR201"]
    assert (dangling.pointer, dangling.transfer_id) == ("/1/0/ifmap/0", 3)
    assert "(5 more uses)" in dangling.message
    # ifmap /0/0/ifmap/0 covers [0,0,0,0]..[0,2,223,38] = 1 x roundup(3,8) x 224 x 39 = 69888 bytes, but says 618240
    # (the size of the whole DRAM tensor); every ifmap of the slice repeats that.
    assert all(f.pointer.endswith("/ifmap/0/size") for f in by_code["GIR307"])
    assert any(
        "size 618240 differs from 1 x roundup(3, 8) x 224 x 39 x 8/8 = 69888" in f.message
        for f in by_code["GIR307"]
    )
    # Transfers produced by DRAM out entries that failed the schema (scalar lower/upper) are not called dangling.
    assert not any(f.transfer_id in (0, 1, 2) for f in by_code["GIR201"])
    assert all(f.severity is Severity.ERROR for f in by_code["GIR203"])
