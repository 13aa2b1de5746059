"""The speed goals of the columnar core, as ratios to a gc-off JSON parse of the same file in the same run.

Run: python benchmarks/bench_speed.py [--dialects documented,raw,alloc] [--sizes 5,25,100] [--runs 3]
     [--keep DIR] [--before DIR]

With --before DIR (a checkout of the old core: `git archive main | tar -x -C DIR`), every file is
measured with both cores in the same run, against the same parse measurement: a "before" and an
"after" row per file.

For each dialect and size it writes an `irtools synth` file (8x8 mesh, 140 layers, the batch chosen
for the size; kept in --keep DIR and reused if already there) and reports, per file:

- validate / parse: whole-process `irtools validate FILE --format json` against the whole-process
  gc-off parse `python -c "import gc,json,sys; gc.disable(); json.loads(open(sys.argv[1],'rb').read())"
  FILE`, both with this interpreter, each the minimum of --runs runs (interpreter start and imports
  included on both sides, as a user meets them);
- validate --jobs 2 / parse, in wall time: since session 61 a file of 16 MB or more has its later cores
  checked by a forked child (irtools/forked_cores.py; the CPU time counts both processes, the peak RSS
  the larger one); an older tree checks one file in one process whatever --jobs says;
- validate peak RSS / file size (the validate process's own maximum resident set);
- analyze / parse: whole-process `irtools analyze FILE --out DIR` (every table written as CSV; since
  issue 28 noc_links only with --noc-links, measured beside it: before issue 28 every analyze routed it);
- the same ratios in CPU time (user + system of the process): on a shared machine wall time
  varies by 2x from run to run, CPU time far less;
- the per-stage split of one in-process validate, in CPU time, with the collector paused as
  validate_file pauses it now (so the old core's split leaves out its collector passes, which
  the whole-process figures include): read (bytes from disk), parse (the JSON members, as the
  models' loader parses them: the in-process reference), load (load_ir without the read: before
  issue 28 the parse and the models, since then the typed decoder), index, each rule, report (the
  JSON report rendered), and all rules together as a ratio to the parse.

Goals (issue 18): validate <= 2x, all rules <= 1x, validate RSS <= 2x the file, analyze <= 3x.
The machine is shared: run it under the heavy-run lock and read ratios, not seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the benchmarks package beside irtools

from benchmarks.trees import compiled

PARSE = "import gc,json,sys; gc.disable(); json.loads(open(sys.argv[1],'rb').read())"
"""The reference: the issue's gc-off parse, byte for byte."""

BATCH = {"documented": 1.0, "raw": 1.95, "alloc": 1.9}
"""Batch samples per 5 MB at 8x8 and 140 layers (documented: 5.0 MB per sample, raw 2.6, alloc 2.65)."""

STAGES = r"""
import gc, io, json, sys, time
from pathlib import Path
t = time.process_time  # CPU time: steadier than wall time on a shared machine
path = sys.argv[1]
import irtools.validate
from irtools.findings import FileReport, Report
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.reader import gc_paused, read_members, read_bytes
from irtools.report.json_report import JsonReporter
from irtools.rules import RULES
from irtools.rules.context import CheckContext, CheckOptions
stages = {}
t0 = t(); data = Path(path).read_bytes(); stages["read"] = t() - t0
# The JSON members alone, as the loader reads them (one top-level member at a time).
t0 = t()
with gc_paused():
    members = read_members(data)
    if members is None:
        read_bytes(data)
    else:
        for _ in members:
            pass
stages["parse"] = t() - t0
del data, members
# As validate_file: the collector paused from loading to the findings (before issue 18 it was not).
gc.disable()
t0 = t(); loaded = load_ir(path); load = t() - t0
# Loading as validate does it (since issue 28 the typed decoder, no JSON parse first): read excluded.
stages["load"] = load - stages["read"]
t0 = t(); index = IRIndex(loaded); stages["index"] = t() - t0
ctx = CheckContext(CheckOptions())
findings = list(loaded.findings)
rules = {}
with gc_paused():
    for entry in RULES.values():
        # The form of each rule the file's capabilities allow (irtools.dialects), as check_loaded runs it.
        form = entry.form_for(index.capabilities)
        if form is None:
            continue
        t0 = t()
        try:
            findings.extend(map(loaded.to_file, form.run(index, ctx)))
        except Exception as exc:
            print(f"{entry.code} crashed: {exc}", file=sys.stderr)
        rules[entry.code] = t() - t0
t0 = t(); JsonReporter().render(Report([FileReport(path, findings)]), io.StringIO()); stages["report"] = t() - t0
print(json.dumps({"stages": stages, "rules": rules, "findings": len(findings)}))
"""


def _timed(cmd: list[str], runs: int, tree: Path = ROOT) -> tuple[float, float, int]:
    """Minimum wall time and minimum CPU time (user + system) of `runs` runs of `cmd`, and the
    largest peak RSS (bytes) of one run. CPU time is the steadier figure on a shared machine."""
    best, cpu, rss = float("inf"), float("inf"), 0
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, usage.ru_utime + usage.ru_stime)
        rss = max(rss, usage.ru_maxrss * 1024)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):  # 1: the file has error findings, still a full validate
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise SystemExit(f"{' '.join(cmd)} exited {code}: {err[-2000:]}")
    return best, cpu, rss


def synth_file(directory: Path, dialect: str, size: int) -> Path:
    """The `irtools synth` file of about `size` MB in `dialect`, written once into `directory`."""
    path = directory / f"{dialect}_{size}MB.json"
    if not path.exists():
        batch = max(1, round(size / 5 * BATCH[dialect]))
        cmd = [sys.executable, "-m", "irtools", "synth", "-o", str(path), "--mesh", "8x8", "--layers", "140"]
        cmd += ["--batch", str(batch), "--seed", "3", "--dialect", dialect]
        subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return path


def measure(path: Path, runs: int, trees: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """Every figure of one file, per source tree (label -> tree), against one parse measurement.

    Each command runs with its tree as working directory, so `python -m irtools` imports that
    tree's irtools: an older checkout given with --before is measured in the same run.
    """
    py = sys.executable
    parse, parse_cpu, parse_rss = _timed([py, "-c", PARSE, str(path)], runs)
    figures: dict[str, dict[str, Any]] = {}
    for label, tree in trees.items():
        validate, validate_cpu, rss = _timed(
            [py, "-m", "irtools", "validate", str(path), "--format", "json"], runs, tree
        )
        two = _timed(
            [py, "-m", "irtools", "validate", str(path), "--format", "json", "--jobs", "2"], runs, tree
        )
        with tempfile.TemporaryDirectory() as out:
            cmd = [py, "-m", "irtools", "analyze", str(path), "--out", out]
            analyze, analyze_cpu, analyze_rss = _timed(cmd, runs, tree)
        # With the routed NoC traffic (noc_links): a tree from before issue 28 routed it on every analyze.
        links = (analyze, analyze_cpu, analyze_rss)
        if (
            "--noc-links"
            in subprocess.run(
                [py, "-m", "irtools", "analyze", "--help"],
                check=False,
                cwd=tree,
                capture_output=True,
                text=True,
            ).stdout
        ):
            with tempfile.TemporaryDirectory() as out:
                cmd = [py, "-m", "irtools", "analyze", str(path), "--out", out, "--noc-links"]
                links = _timed(cmd, runs, tree)
        split = subprocess.run(
            [py, "-c", STAGES, str(path)], cwd=tree, capture_output=True, text=True, check=True
        )
        figures[label] = {
            "bytes": path.stat().st_size,
            "parse": parse,
            "parse_cpu": parse_cpu,
            "parse_rss": parse_rss,
            "validate": validate,
            "validate_cpu": validate_cpu,
            "rss": rss,
            "jobs2": two[0],
            "jobs2_cpu": two[1],
            "jobs2_rss": two[2],
            "analyze": analyze,
            "analyze_cpu": analyze_cpu,
            "analyze_rss": analyze_rss,
            "links": links[0],
            "links_cpu": links[1],
            "links_rss": links[2],
            **json.loads(split.stdout),
        }
    return figures


def row(name: str, m: dict[str, Any]) -> str:
    """One table row: wall-time ratios (min of the runs), then the same ratios in CPU time."""
    size, parse, cpu = m["bytes"], m["parse"], m["parse_cpu"]
    split = " ".join(f"{k} {v / cpu:.2f}" for k, v in m["stages"].items())
    top = sorted(m["rules"].items(), key=lambda kv: -kv[1])[:4]
    hot = ", ".join(f"{code} {v / cpu:.2f}" for code, v in top)
    return (
        f"| {name} | {size / 1e6:.1f} | {parse:.2f} | {m['validate'] / parse:.2f}x "
        f"| {m['validate_cpu'] / cpu:.2f}x | {m['jobs2'] / parse:.2f}x, CPU {m['jobs2_cpu'] / cpu:.2f}x, RSS "
        f"{m['jobs2_rss'] / size:.2f}x | {sum(m['rules'].values()) / cpu:.2f}x | {m['rss'] / size:.2f}x "
        f"| {m['parse_rss'] / size:.2f}x | {m['analyze'] / parse:.2f}x | {m['analyze_cpu'] / cpu:.2f}x "
        f"| {m['analyze_rss'] / size:.2f}x | {m['links_cpu'] / cpu:.2f}x | {m['links_rss'] / size:.2f}x "
        f"| {m['findings']} | {split} | {hot} |"
    )


HEADER = (
    "| file | core | MB | gc-off parse s | validate / parse | validate / parse, CPU "
    "| validate --jobs 2 / parse (wall; CPU, RSS / file) | all rules / parse, CPU "
    "| validate RSS / file | parse RSS / file | analyze / parse | analyze / parse, CPU | analyze RSS / file "
    "| analyze with noc_links / parse, CPU | its RSS / file "
    "| findings | stages / parse, CPU | costliest rules / parse, CPU |\n" + "| --- " * 18 + "|"
)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dialects", default="documented,raw,alloc", help="comma-separated synth dialects")
    parser.add_argument("--sizes", default="5,25,100", help="comma-separated target sizes in MB")
    parser.add_argument("--runs", type=int, default=3, help="whole-process runs per measurement (min taken)")
    parser.add_argument("--keep", metavar="DIR", help="write (and reuse) the synth files here")
    parser.add_argument("--files", nargs="*", default=[], help="also measure these IR files")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE as JSON")
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="a checkout of the old core (e.g. `git archive main | tar -x -C DIR`), measured in the same run",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(args.keep or tmp)
        directory.mkdir(parents=True, exist_ok=True)
        targets = [
            (f"synth {d} {s} MB", synth_file(directory, d, int(s)))
            for d in args.dialects.split(",")
            if d
            for s in args.sizes.split(",")
            if s  # --sizes "" (or --dialects ""): only the --files
        ]
        targets += [(Path(f).name, Path(f)) for f in args.files]
        print(HEADER, flush=True)
        trees = compiled(({"before": Path(args.before).resolve()} if args.before else {}) | {"after": ROOT})
        results = {}
        for name, path in targets:
            results[name] = measure(path, args.runs, trees)
            for label, figures in results[name].items():
                print(row(f"{name} | {label}", figures), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
