"""Real Gemini schedules to measure on: a local Gemini build run on a fixed set of input lines.

The stand-ins `irtools synth` writes are not Gemini's files: on the real 64-core ResNet-50 schedule the
parse alone peaks at 3.5x the file, on the synth stand-in of the same size at 7x, and validate's own
ratios differ as much. This writes real ones, of every size up to 60 MB, in about 15 s.

Gemini (SET-Scheduling-Project/GEMINI-HPCA2024) builds its IR (`SchNode::IR_gen`) but its `main` does not
write it. Build it with that one addition: in `src/main.cpp`, where `DP_search` has returned a scheme,
write `scheme->schtree_spm->IR_gen()` with jsoncpp's `Json::StyledWriter` to the file the environment
variable GEMINI_IR names; then `make release`. Nothing of Gemini is kept in this repository.

Run: python benchmarks/gemini_corpus.py --gemini GEMINI_DIR --out DIR [--only NAME ...]
then: python benchmarks/bench_speed.py --sizes "" --files DIR/*.json

Each schedule is written as DIR/NAME.json beside the scheduler's printout, DIR/NAME.stdout.txt (its cost
line and per-layer figures: what the `noc` timing model is held against). A run repeats its schedule byte
for byte (checked on the 2x2 and 4x4 runs, a day apart).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = {
    # Gemini's input line: tech, mode, network, xlen, ylen, stride, batch, rounds, cost function, cuts,
    # package, IO, NoP GB/s, DRAM type, DRAM bw, NoC bw, MAC dim, L2 KB, TOPS (the fixtures' README).
    "resnet50_2x2_b1": "7 0 2 2 2 1 1 1 0 1 1 SI UCIe 128 LPDDR5 1024000 16 512 512 4096",
    "resnet50_4x4_b4": "7 0 2 4 4 2 4 5 1 1 1 SI UCIe 128 LPDDR5 1024000 16 512 2048 16384",
    "googlenet_4x4_b8": "7 0 3 4 4 2 8 2 0 1 1 SI UCIe 128 LPDDR5 1024000 16 512 1024 16384",
    "resnet50_8x8_b8": "7 0 2 8 8 2 8 2 1 1 1 SI UCIe 128 LPDDR5 1024000 32 512 2048 65536",
}
"""Name -> input line; the 8x8 one is a 64-core schedule of 61 MB."""


def run(gemini: Path, name: str, line: str, out: Path, timeout: float) -> str:
    """Write out/NAME.json and its printout; a line saying what was written, or why not."""
    schedule, printout = out / f"{name}.json", out / f"{name}.stdout.txt"
    with tempfile.TemporaryDirectory() as scratch:
        points = Path(scratch) / "points.txt"  # where Gemini appends its design-space row
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [str(gemini / "build" / "stschedule"), str(points)],
                input=line + "\n",
                capture_output=True,
                text=True,
                cwd=gemini,  # it reads its cost tables from there
                env={**os.environ, "GEMINI_IR": str(schedule)},
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"{name}: no schedule written: Gemini ran over {timeout:g} s (--timeout)"
        seconds = time.perf_counter() - started
    printout.write_text(done.stdout)
    if done.returncode != 0 or not schedule.is_file():
        return f"{name}: no schedule written (exit {done.returncode}); see {printout}"
    return f"{name}: {schedule} ({schedule.stat().st_size / 1e6:.1f} MB) in {seconds:.1f} s"


def main() -> int:
    # The whole docstring: it says how to build the Gemini that --gemini names.
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gemini", type=Path, required=True, help="a Gemini build that writes $GEMINI_IR")
    parser.add_argument("--out", type=Path, required=True, help="folder for the schedules and printouts")
    parser.add_argument("--only", nargs="*", choices=sorted(RUNS), help="these runs only (default: all)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    args = parser.parse_args()
    executable = args.gemini / "build" / "stschedule"
    if not executable.is_file():
        print(f"{executable} not found: build Gemini first (see --help)", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or RUNS:
        print(run(args.gemini.resolve(), name, RUNS[name], args.out.resolve(), args.timeout), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
