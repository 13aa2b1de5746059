"""Validate, analyze and dashboard-figure time and memory, as ratios to a raw JSON parse, on large IRs.

Run: python benchmarks/bench_scale.py [--sizes 1,10,100] [--source synth|tiled] [--dialect raw]

The IRs come from `irtools synth` (about 1, 10 and 100 MB on 4, 16 and 64 cores) or, with
--source tiled, from the real ResNet-50 schedule copied over the cores. With --dialect raw, the
same synth settings are written in Gemini's IR before address allocation (about a quarter of the
bytes: no addresses, tiles or WL0).
`figures` is the time to build the dashboard's first view (timeline, core 0's L2 and WL0 maps)
from the analysis tables, and the JSON payload it sends to the browser.

Each measurement runs in a fresh process so peak RSS is its own. Reported as ratios against
a raw `json.loads` of the same bytes in the same run; absolute times depend on the machine.
`analyze` is the time to build every analysis table from the loaded IR (load not included);
its ratio is against the parse because loading is shared with validate. Peak RSS (whole process,
interpreter included) is reported for validate and analyze, which read the file from its path
as the CLI does.
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
# validate and analyze read the file themselves, as `irtools validate/analyze FILE` do: peak RSS is theirs.
data = open(path, "rb").read() if mode.startswith("json") or mode == "figures" else None
if mode == "validate":
    import irtools.validate  # imports are not part of the measurement (nor pandas in its peak RSS)
elif mode in ("analyze", "figures"):
    import irtools.analysis
    if mode == "figures":
        import dashboards.views
t0 = time.perf_counter()
if mode == "json":
    json.loads(data)
elif mode == "json-nogc":
    gc.disable(); json.loads(data); gc.enable()
elif mode == "validate":
    from irtools.loading.load import load_ir
    from irtools.validate import check_loaded
    t1 = time.perf_counter()
    loaded = load_ir(path)
    t_load = time.perf_counter() - t1
    findings = check_loaded(loaded)
    print(json.dumps({"load": t_load, "findings": len(findings)}), file=sys.stderr)
elif mode == "analyze":
    from irtools.analysis import Analysis
    from irtools.loading.load import load_ir
    loaded = load_ir(path)
    t0 = time.perf_counter()
    tables = Analysis(loaded).tables()
    print(json.dumps({"rows": sum(len(t) for t in tables.values())}), file=sys.stderr)
elif mode == "figures":
    # The dashboard's first view from the analysis tables: timeline and core 0's L2 and WL0 maps.
    from irtools.analysis import Analysis
    from irtools.loading.load import load_ir
    from dashboards.views import first_view
    a = Analysis(load_ir(data, path))
    a.tables()
    t0 = time.perf_counter()
    figs = first_view(a)
    payload = sum(len(f.to_json()) for f in figs)
    print(json.dumps({"payload": payload}), file=sys.stderr)
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


SYNTH = {
    1: ["--mesh", "2x2", "--layers", "100", "--batch", "2"],
    10: ["--mesh", "4x4", "--layers", "200", "--batch", "6"],
    100: ["--mesh", "8x8", "--layers", "400", "--batch", "8"],
}
"""`irtools synth` settings giving about 1, 10 and 100 MB with 4, 16 and 64 cores."""


def write_synth(path: Path, size: int, dialect: str = "documented") -> tuple[int, int]:
    """Write the synth IR of about `size` MB (documented dialect) to `path`; returns its bytes and cores."""
    cmd = [sys.executable, "-m", "irtools", "synth", "-o", str(path), *SYNTH[size], "--dialect", dialect]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    mesh = SYNTH[size][1].split("x")
    return path.stat().st_size, int(mesh[0]) * int(mesh[1])


def _tiled(path: Path, size: int, cores: int) -> tuple[int, int]:
    from benchmarks.scale import write_scaled

    return write_scaled(str(SOURCE), str(path), size, cores), cores


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default="1,10,100", help="target sizes in MB: 1, 10 and/or 100 (default all)"
    )
    parser.add_argument(
        "--source",
        choices=("synth", "tiled"),
        default="synth",
        help="synth: `irtools synth` IRs (default); tiled: the real ResNet-50 schedule copied over cores",
    )
    parser.add_argument(
        "--dialect",
        choices=("documented", "raw"),
        default="documented",
        help="raw: synth files in Gemini's IR before address allocation (irtools synth --dialect raw)",
    )
    args = parser.parse_args()
    if args.source == "tiled" and not SOURCE.exists():
        print(f"needs {SOURCE}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        "| file MB | cores | json.loads s | validate s | validate / json.loads | validate / json.loads (gc off) "
        "| load share | validate peak RSS / file size | findings | analyze s | analyze / json.loads "
        "| analyze peak RSS / file size | figures s | figures / json.loads | figure payload MB |"
    )
    print("| --- " * 15 + "|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = Path(tmp) / f"{args.source}_{size}MB.json"
            nbytes, cores = (
                write_synth(path, size, args.dialect)
                if args.source == "synth"
                else _tiled(path, size, {1: 4, 10: 16, 100: 64}[size])
            )
            raw = measure(path, "json")
            raw_nogc = measure(path, "json-nogc")
            full = measure(path, "validate")
            ana = measure(path, "analyze")
            fig = measure(path, "figures")
            print(
                f"| {nbytes / 1e6:.1f} | {cores} | {raw['seconds']:.2f} | {full['seconds']:.2f} "
                f"| {full['seconds'] / raw['seconds']:.1f}x | {full['seconds'] / raw_nogc['seconds']:.1f}x "
                f"| {full['load'] / full['seconds']:.0%} | {full['peak_rss'] / nbytes:.1f}x | {full['findings']:.0f} "
                f"| {ana['seconds']:.2f} | {ana['seconds'] / raw['seconds']:.2f}x | {ana['peak_rss'] / nbytes:.1f}x "
                f"| {fig['seconds']:.2f} | {fig['seconds'] / raw['seconds']:.2f}x | {fig['payload'] / 1e6:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
