"""GIR308 and GIR402 run only when the user gives the hardware parameter."""

from __future__ import annotations

from pathlib import Path

from irtools.rules.context import CheckOptions
from irtools.validate import validate_file

VALID = (
    Path(__file__).resolve().parents[2] / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
)


def codes(options: CheckOptions) -> list[tuple[str, str]]:
    return [
        (f.code, f.pointer)
        for f in validate_file(str(VALID), options).findings
        if f.code in ("GIR308", "GIR402")
    ]


def test_opt_in_rules_are_silent_by_default() -> None:
    assert codes(CheckOptions()) == []


def test_addr_align_flags_addresses_not_multiple_of_it() -> None:
    # Every L2 address in the sample is a multiple of 8 KiB except core 0's wrapping ifmap at 0x7f000.
    found = codes(CheckOptions(addr_align=8 * 1024))
    assert found == [("GIR308", "/0/0/buffer/0/address")]


def test_wl0_size_flags_weights_past_the_end() -> None:
    # Core 2/3 hold a 2304-byte weight at WL0 address 0; cores 0/1 a 448-byte one.
    found = codes(CheckOptions(wl0_size=1024))
    assert found == [("GIR402", "/2/0/wl0_buffer/0"), ("GIR402", "/3/0/wl0_buffer/0")]
    assert codes(CheckOptions(wl0_size=2304)) == []
