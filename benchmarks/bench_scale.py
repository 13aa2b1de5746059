"""Validate and analyze time and memory, as ratios to a raw JSON parse, on large IRs.

Run: python benchmarks/bench_scale.py [--sizes 1,10,100] [--cores 4,16,64]

Each measurement runs in a fresh process so peak RSS is its own. Reported as ratios against
a raw `json.loads` of the same bytes in the same run; absolute times depend on the machine.
`analyze` is the time to build every analysis table from the loaded IR (load not included);
its ratio is against the parse because loading is shared with validate.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (
    ROOT.parent / "shared" / "fixtures" / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"
)

PROBE = r"""
import gc, json, resource, sys, time
path, mode = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
if mode == "validate":
    import irtools.validate  # imports are not part of the measurement (nor pandas in its peak RSS)
elif mode == "analyze":
    import irtools.analysis
t0 = time.perf_counter()
if mode == "json":
    json.loads(data)
elif mode == "json-nogc":
    gc.disable(); json.loads(data); gc.enable()
elif mode == "validate":
    from irtools.loading.load import load_ir
    from irtools.validate import check_loaded
    t1 = time.perf_counter()
    loaded = load_ir(data, path)
    t_load = time.perf_counter() - t1
    findings = check_loaded(loaded)
    print(json.dumps({"load": t_load, "findings": len(findings)}), file=sys.stderr)
elif mode == "analyze":
    from irtools.analysis import Analysis
    from irtools.loading.load import load_ir
    loaded = load_ir(data, path)
    t0 = time.perf_counter()
    tables = Analysis(loaded).tables()
    print(json.dumps({"rows": sum(len(t) for t in tables.values())}), file=sys.stderr)
elapsed = time.perf_counter() - t0
print(json.dumps({"seconds": elapsed, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def measure(path: Path, mode: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), mode], capture_output=True, text=True, check=True, cwd=ROOT
    )
    result = json.loads(done.stdout)
    if done.stderr.strip():
        result.update(json.loads(done.stderr.strip().splitlines()[-1]))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1,10,100", help="target sizes in MB (default 1,10,100)")
    parser.add_argument("--cores", default="4,16,64", help="core counts, one per size")
    args = parser.parse_args()
    if not SOURCE.exists():
        print(f"needs {SOURCE}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from benchmarks.scale import write_scaled

    sizes = [float(s) for s in args.sizes.split(",")]
    cores = [int(c) for c in args.cores.split(",")]
    print(
        "| file MB | cores | json.loads s | validate s | validate / json.loads | validate / json.loads (gc off) "
        "| load share | peak RSS / file size | findings | analyze s | analyze / json.loads | table rows |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for size, n in zip(sizes, cores):
            path = Path(tmp) / f"scaled_{size:g}MB.json"
            nbytes = write_scaled(str(SOURCE), str(path), size, n)
            raw = measure(path, "json")
            raw_nogc = measure(path, "json-nogc")
            full = measure(path, "validate")
            ana = measure(path, "analyze")
            print(
                f"| {nbytes / 1e6:.1f} | {n} | {raw['seconds']:.2f} | {full['seconds']:.2f} "
                f"| {full['seconds'] / raw['seconds']:.1f}x | {full['seconds'] / raw_nogc['seconds']:.1f}x "
                f"| {full['load'] / full['seconds']:.0%} | {full['peak_rss'] / nbytes:.1f}x | {full['findings']:.0f} "
                f"| {ana['seconds']:.2f} | {ana['seconds'] / raw['seconds']:.2f}x | {ana['rows']:.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
