"""The noc timing model's cost next to the dependency model's, on a large 64-core IR, as ratios.

Run: python benchmarks/bench_noc.py [--mesh 8x8] [--layers 400] [--batch 8] [--dialect raw|documented]

Writes an `irtools synth` IR (default: the 8x8-mesh, ~100 MB documented settings of bench_scale.py),
then in one fresh process: parses it with `json.loads` (the yardstick), loads it, and times the
dependency schedule and the noc schedule (routing every transfer as runs of links, link loads per
layer step summed from the runs, NoC times, the stretched dependency schedule). Ratios are against
`json.loads` of the same bytes and against the dependency model, in the same run; absolute times depend
on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = r"""
import json, sys, time
path = sys.argv[1]
data = open(path, "rb").read()
t0 = time.perf_counter(); json.loads(data); parse = time.perf_counter() - t0
del data
from irtools.analysis.noc import NocModel, noc_runs, noc_schedule, noc_times
from irtools.analysis.timeline import dependency
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
index = IRIndex(load_ir(path))
t0 = time.perf_counter(); dep = dependency(index); t_dep = time.perf_counter() - t0
t0 = time.perf_counter(); runs = noc_runs(index); t_runs = time.perf_counter() - t0
t0 = time.perf_counter(); times = noc_times(index, NocModel(8), runs); t_times = time.perf_counter() - t0
t0 = time.perf_counter(); noc = noc_schedule(index, NocModel(8), times); t_sched = time.perf_counter() - t0
print(json.dumps({
    "parse": parse, "dependency": t_dep, "noc_runs": t_runs, "noc_times": t_times, "noc_schedule": t_sched,
    "runs": sum(len(r.step) for r in runs), "steps": len(times), "workloads": len(dep.nodes),
    "makespan_dependency": dep.makespan, "makespan_noc": noc.makespan,
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mesh", default="8x8")
    parser.add_argument("--layers", default="400")
    parser.add_argument("--batch", default="8")
    parser.add_argument("--dialect", choices=("raw", "documented"), default="documented")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "noc_bench.json"
        cmd = [sys.executable, "-m", "irtools", "synth", "-o", str(path), "--mesh", args.mesh]
        cmd += ["--layers", args.layers, "--batch", args.batch, "--dialect", args.dialect]
        subprocess.run(cmd, check=True, capture_output=True)
        size = path.stat().st_size
        out = subprocess.run(
            [sys.executable, "-c", PROBE, str(path)], check=True, capture_output=True, text=True
        )
    r = json.loads(out.stdout)
    noc = r["noc_runs"] + r["noc_times"] + r["noc_schedule"]
    print(
        f"{args.dialect} synth IR, mesh {args.mesh}, {size / 1e6:.0f} MB, {r['workloads']:,} workloads, "
        f"{r['steps']:,} layer steps, {r['runs']:,} routed runs"
    )
    print("| step | seconds | / json.loads | / dependency |")
    print("|---|---|---|---|")
    for name in ("parse", "dependency", "noc_runs", "noc_times", "noc_schedule"):
        t = r[name]
        print(f"| {name} | {t:.2f} | {t / r['parse']:.2f} | {t / r['dependency']:.2f} |")
    print(f"| noc model in all | {noc:.2f} | {noc / r['parse']:.2f} | {noc / r['dependency']:.2f} |")
    print(f"makespan: dependency {r['makespan_dependency']:,}, noc at 8 B/cycle {r['makespan_noc']:,}")


if __name__ == "__main__":
    main()
