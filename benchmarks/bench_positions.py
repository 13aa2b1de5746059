"""What line and column numbers cost: validate on a clean file (no findings: no scan at all) and on the
same file with injected defects (one extra scan of the text, along the findings' pointers).

Run: python benchmarks/bench_positions.py [--size 10|100] [--keep DIR]

Each timing is the best of three fresh processes, reported beside a raw `json.loads` of the same bytes
timed in the same way. To compare with another checkout, run this file from outside this one (the
timed processes put the current directory first on sys.path) with that checkout on PYTHONPATH:
`cd /tmp && PYTHONPATH=../main python path/to/bench_positions.py --keep DIR` (a checkout without
irtools/positions.py reports validate only).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SYNTH = {
    10: ["--mesh", "4x4", "--layers", "200", "--batch", "6"],
    100: ["--mesh", "8x8", "--layers", "400", "--batch", "8"],
}
DEFECTS = "GIR201,GIR203,GIR302,GIR307,GIR501"

_TIMER = """
import json, sys, time
path, what = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
start = time.perf_counter()
if what == 'json':
    json.loads(data)
    print(json.dumps({'seconds': time.perf_counter() - start}))
elif what == 'validate':
    from irtools.validate import validate_file
    report = validate_file(path)
    print(json.dumps({'seconds': time.perf_counter() - start, 'findings': len(report.findings),
                      'located': sum(f.line is not None for f in report.findings)}))
else:
    from dataclasses import replace
    from irtools.validate import validate_file
    from irtools.positions import with_positions
    bare = [replace(f, line=None, column=None) for f in validate_file(path).findings if f.code != 'GIR100']
    start = time.perf_counter()
    with_positions(path, bare)
    print(json.dumps({'seconds': time.perf_counter() - start}))
"""


def best(path: Path, what: str, runs: int = 3) -> dict[str, float]:
    results = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", _TIMER, str(path), what], check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return min(results, key=lambda r: r["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, choices=sorted(SYNTH), default=100)
    parser.add_argument("--keep", type=Path, help="write the IRs here (and reuse them) instead of a temp dir")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench_positions_"))
    folder.mkdir(parents=True, exist_ok=True)
    clean, broken = folder / f"clean_{args.size}.json", folder / f"defects_{args.size}.json"
    for path, extra in ((clean, []), (broken, ["--inject", DEFECTS])):
        if not path.exists():
            subprocess.run(
                [sys.executable, "-m", "irtools", "synth", "-o", str(path), *SYNTH[args.size], *extra],
                check=True,
                capture_output=True,
            )
    try:
        import irtools.positions  # noqa: F401

        has_positions = True
    except ImportError:
        has_positions = False
    print(
        "| file | MB | findings | located | json.loads s | validate s | validate / json.loads | scan s | scan / json.loads |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in (clean, broken):
        parse = best(path, "json")["seconds"]
        checked = best(path, "validate")
        scan = best(path, "scan")["seconds"] if has_positions and checked["findings"] else 0.0
        print(
            f"| {path.name} | {path.stat().st_size / 1e6:.1f} | {checked['findings']} | {checked.get('located', '-')} "
            f"| {parse:.2f} | {checked['seconds']:.2f} | {checked['seconds'] / parse:.2f}x | {scan:.2f} "
            f"| {scan / parse:.2f}x |"
        )


if __name__ == "__main__":
    main()
