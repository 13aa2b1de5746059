"""Reading and joining ZeBu traces at ResNet-50 b64 size (~150k instructions), as ratios to reading the file.

Run: python benchmarks/bench_trace.py [--copies 1,20,200]

The shared ResNet-50 b1 trace (742 instructions) is repeated COPIES times, each copy shifted in
time and given its own workload ids, and the IR's core 0 workloads the same way (their L2/WL0
snapshots left out, which the join does not read), so 200 copies hold 148,400 instructions in
43 MB (the fixture's lines are long), beyond the 3.2 MB of the b64 trace. Measured in this process, best of three:
- `read`: the file's bytes decoded and split into lines (the floor for any reader);
- `parse`: the same rewritten into JSON and `json.loads`-ed line by line, without any check;
- `trace`: `read_trace` (strict checks, queue order and token replay included);
- `join`: `measure` plus every measured table and the summary, from an IR already analyzed;
- `figures`: the measured timeline and the slot bars (dashboards.measured), and their JSON size.
Linear means the time per instruction stays flat as the copies grow.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from irtools.trace.reader import _json_lines

ROOT = Path(__file__).resolve().parent.parent
STEM = "int8_resnet50.sim_quantized_b1_c1_bw16"
FIXTURES = ROOT.parent / "shared" / "fixtures"
_TIME = re.compile(r"'time': \[(\d+), (\d+)\]")
_WKL = re.compile(r"'wkl': (\d+)")
_IDX = re.compile(r"'inst_idx': (\d+)")


def tiled_trace(copies: int) -> tuple[str, int]:
    lines = (FIXTURES / "zebu" / f"{STEM}_sim.txt").read_text().splitlines()
    span = max(int(m[2]) for m in map(_TIME.search, lines) if m)
    out = []
    for k in range(copies):
        shift, base, wkl = k * span, k * len(lines), k * 88

        def times(m: re.Match[str], shift: int = shift) -> str:
            return f"'time': [{int(m[1]) + shift}, {int(m[2]) + shift}]"

        for line in lines:
            line = _WKL.sub(lambda m, wkl=wkl: f"'wkl': {int(m[1]) + wkl}", _TIME.sub(times, line))
            out.append(_IDX.sub(lambda m, base=base: f"'inst_idx': {int(m[1]) + base}", line))
    return "\n".join(out) + "\n", len(out)


def tiled_ir(copies: int) -> str:
    doc = json.loads((FIXTURES / "gemini" / f"{STEM}_stschedule.json").read_text())
    core = doc["0"]
    for w in core:
        w["buffer"], w["wl0_buffer"] = [], []
    doc["0"] = [{**w, "workload_id": w["workload_id"] + k * len(core)} for k in range(copies) for w in core]
    return json.dumps(doc)


def _parse_only(path: Path) -> int:
    """The floor of any reader of this format: rewrite to JSON and parse each line, keeping nothing."""
    count = 0
    for line in _json_lines(path.read_bytes().decode()):
        if line:
            json.loads(line)
            count += 1
    return count


def best(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", default="1,20,200")
    args = parser.parse_args()
    print(
        "| instructions | MB | read s | parse s | trace s | trace / read | trace / parse | join s "
        "| (trace + join) / parse | us per instruction | figures s | figure JSON MB |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for copies in map(int, args.copies.split(",")):
            print(row(copies, Path(tmp)))


def row(copies: int, tmp: Path) -> str:
    """One table row: COPIES copies of the trace and the IR, written to `tmp` and measured."""
    from dashboards.measured import measured_timeline_figure, slot_figure
    from irtools.analysis import analyze
    from irtools.trace import Measured, Trace, measure, read_trace

    text, count = tiled_trace(copies)
    trace_path, ir_path = tmp / "t_sim.txt", tmp / "t_stschedule.json"
    trace_path.write_text(text)
    ir_path.write_text(tiled_ir(copies))
    read_s, _ = best(lambda: trace_path.read_bytes().decode().split("\n"))
    parse_s, _ = best(lambda: _parse_only(trace_path))
    trace_s, trace = best(lambda: read_trace(trace_path))
    assert isinstance(trace, Trace) and not trace.findings, trace
    analysis = analyze(ir_path)
    analysis.timeline  # noqa: B018 - the IR's own analysis is not part of the join

    def join() -> Measured:
        m = measure(analysis, trace)
        m.tables()
        m.summary()
        return m

    join_s, measured = best(join)
    assert isinstance(measured, Measured)

    def figures() -> int:
        return sum(len(f.to_json()) for f in (measured_timeline_figure(measured), slot_figure(measured)))

    figures_s, payload = best(figures)
    assert isinstance(payload, int)
    return (
        f"| {count:,} | {len(text) / 1e6:.1f} | {read_s:.3f} | {parse_s:.2f} | {trace_s:.2f} "
        f"| {trace_s / read_s:.0f}x | {trace_s / parse_s:.2f}x | {join_s:.2f} | {(trace_s + join_s) / parse_s:.2f}x "
        f"| {(trace_s + join_s) / count * 1e6:.1f} | {figures_s:.2f} | {payload / 1e6:.2f} |"
    )


if __name__ == "__main__":
    main()
