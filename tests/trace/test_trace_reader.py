"""The ZeBu trace reader: the real traces read clean, and each kind of damage is a GIR60x finding on its line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from irtools.trace import parse_trace, read_trace
from irtools.trace.reader import QUEUES

STEMS = [
    "int8_resnet34.sim_quantized_b1_c1_bw16",
    "int8_resnet34.sim_quantized_b4_c1_bw16",
    "int8_resnet50.sim_quantized_b1_c1_bw16",
]
R50 = "int8_resnet50.sim_quantized_b1_c1_bw16"


def _trace_path(fixtures_dir: Path, stem: str) -> Path:
    return fixtures_dir / "zebu" / f"{stem}_sim.txt"


def _lines(fixtures_dir: Path, stem: str = R50) -> list[str]:
    return _trace_path(fixtures_dir, stem).read_text().split("\n")


def _codes(lines: list[str]) -> list[tuple[str, int | None]]:
    return [(f.code, f.line) for f in parse_trace("\n".join(lines).encode()).findings]


def _set_time(line: str, start: int, end: int) -> str:
    return re.sub(r"'time': \[\d+, \d+\]", f"'time': [{start}, {end}]", line)


def _time(line: str) -> tuple[int, int]:
    match = re.search(r"'time': \[(\d+), (\d+)\]", line)
    assert match
    return int(match[1]), int(match[2])


@pytest.mark.parametrize("stem", STEMS)
def test_real_traces_read_whole_with_no_finding(fixtures_dir: Path, stem: str) -> None:
    # Every line is an instruction; queues never run backwards and, read as token queues, every
    # consumer starts after its producer ended: zero findings, as the issue established.
    path = _trace_path(fixtures_dir, stem)
    trace = read_trace(path)
    assert trace.findings == []
    assert len(trace.instructions) == len(path.read_text().splitlines())
    assert set(QUEUES) - {"DT"} <= {i.queue for i in trace.instructions} <= set(QUEUES)  # b4 has no DT
    # The hardware model replays exactly: every start is the later of the queue predecessor's end
    # and the token producers' ends, so `waited_on` always names an instruction ending at that start.
    for ins in trace.instructions:
        if ins.waited_on is not None:
            assert trace.instructions[ins.waited_on].end == ins.start, ins.line


def test_literal_reading_of_prev_insts_would_give_false_violations(fixtures_dir: Path) -> None:
    # Why token queues: read literally ("wait for the last P instruction so far"), the same file
    # has dozens of instructions starting before "their" producer ended.
    trace = read_trace(_trace_path(fixtures_dir, R50))
    last_end: dict[str, int] = {}
    literal = 0
    for ins in trace.instructions:
        literal += sum(1 for p in ins.prev if p in last_end and ins.start < last_end[p])
        last_end[ins.queue] = ins.end
    assert literal == 36
    assert not trace.findings


def test_bytes_of_data_moves(fixtures_dir: Path) -> None:
    trace = read_trace(_trace_path(fixtures_dir, R50))
    by_line = {i.line: i for i in trace.instructions}
    # The FP16 input (its lda_cfg says DF FP16), and INT8 weights.
    assert by_line[7].name == "lda_mov" and by_line[7].size_bytes == 3 * 224 * 224 * 2
    assert by_line[500].name == "ldw_mov" and by_line[500].size_bytes == 512 * 512 * 3 * 3
    assert by_line[500].queue == "LD" and by_line[500].duration == 138_328
    assert all(i.size_bytes is None for i in trace.instructions if i.queue in ("PE", "VP", "CT"))


def test_swapped_times_in_a_queue_are_found_with_their_line(fixtures_dir: Path) -> None:
    lines = _lines(fixtures_dir)
    # Lines 30 (lw_cfg) and 31 (lw_mov) follow each other in the LW queue; swap their times.
    assert lines[29].startswith("[lw_cfg") and lines[30].startswith("[lw_mov")
    first, second = _time(lines[29]), _time(lines[30])
    lines[29], lines[30] = _set_time(lines[29], *second), _set_time(lines[30], *first)
    found = parse_trace("\n".join(lines).encode()).findings
    # Line 31 now starts before line 30 ended, and before its VP producer (vp_pool, line 29) ended.
    assert [(f.code, f.line) for f in found] == [("GIR603", 31), ("GIR604", 31)]
    assert "before the previous LW instruction lw_cfg (line 30) ended at 176668" in found[0].message
    assert "its VP producer vp_pool (line 29) ended at 176290" in found[1].message


def test_a_consumer_started_early_is_a_token_violation_on_its_line(fixtures_dir: Path) -> None:
    lines = _lines(fixtures_dir)
    # Line 35: pe_conv of workload 3 starts at 176,668, when its LW producer (lw_mov, line 31) ends.
    assert lines[34].startswith("[pe_conv") and _time(lines[34]) == (176_668, 184_209)
    assert _time(lines[30]) == (176_290, 176_668)
    lines[34] = _set_time(lines[34], 176_600, 184_141)
    found = parse_trace("\n".join(lines).encode()).findings
    assert [(f.code, f.line) for f in found] == [("GIR604", 35)]
    assert "its LW producer lw_mov (line 31) ended at 176668" in found[0].message
    assert found[0].workload_id == 3


def test_malformed_lines_are_reported_and_the_rest_still_read(fixtures_dir: Path) -> None:
    lines = _lines(fixtures_dir)
    lines[5] = lines[5][:40]  # line 6, a configuration line cut short
    lines[8] = _set_time(lines[8], 30, 20)  # line 9 ends before it starts
    lines[9] = lines[9].replace("'wkl': 0", "'wkl': 'zero'")  # line 10
    lines[10] = lines[10].replace("'inst_idx'", "'idx'")  # line 11
    trace = parse_trace("\n".join(lines).encode())
    assert [(f.code, f.line) for f in trace.findings] == [
        ("GIR601", 6),
        ("GIR601", 9),
        ("GIR601", 10),
        ("GIR601", 11),
    ]
    assert len(trace.instructions) == len([x for x in lines if x]) - 4


def test_unknown_class_and_queue_names(fixtures_dir: Path) -> None:
    lines = _lines(fixtures_dir)
    lines[7] = lines[7].replace("[vp_cfg_gcs,", "[xyz_cfg_gcs,")  # line 8
    lines[6] = lines[6].replace("'Next_Insts': ['VP', 'LW']", "'Next_Insts': ['VP', 'LW', 'QQ']")  # line 7
    assert _codes(lines) == [("GIR602", 7), ("GIR602", 8)]


def test_a_truncated_trace_leaves_tokens_unconsumed(fixtures_dir: Path) -> None:
    lines = _lines(fixtures_dir)[:400]
    found = parse_trace("\n".join(lines).encode()).findings
    assert found and {f.code for f in found} == {"GIR605"}
    assert all("never consumed" in f.message for f in found)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the trace holds no instruction"),
        (b"\xff\xfe[ct_st]\n", "not UTF-8"),
        (b"{'a': 1}\n", "expected [name"),
        (b"hello\n", "not an instruction"),
    ],
)
def test_garbage_is_a_finding_not_a_traceback(data: bytes, message: str) -> None:
    trace = parse_trace(data)
    assert trace.instructions == []
    assert trace.findings and trace.findings[0].code == "GIR601"
    assert message in trace.findings[0].message
