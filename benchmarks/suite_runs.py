"""Run the test suite N times in a row and report, per run, its pytest summary, wall time and peak memory.

    python benchmarks/suite_runs.py --runs 10 --lock /tmp/irtools-heavy.lock -- \\
        python -m pytest -p no:cacheprovider --hypothesis-profile=ci --ignore=tests/browser

Issue 34's done-when: repeated runs give the same test count and result, each with peak memory under
4 GB. `/usr/bin/time -v` gives the largest single process's max RSS only; the suite starts children
(`irtools` subprocesses, servers, browsers), so this samples the whole process tree's RSS (every
0.2 s, summed over the tree from /proc: shared pages counted once per process, an overestimate) and
reports both. With --lock, each run takes that file's lock (flock) and releases it afterwards, so
other heavy work queues between runs. One JSON line per run goes to stdout, a table to stderr.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

_SUMMARY = re.compile(r"^=+ (.*) in [\d.]+s(?: \([\d:]+\))? =+$|^(\d+ (?:passed|failed).*) in [\d.]+s")
_MAX_RSS = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def tree_rss(root: int) -> int:
    """Bytes of resident memory of `root` and all its descendants now."""
    tree, total, todo = _children(), 0, [root]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, ()))
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
        except (OSError, IndexError, ValueError):
            continue
    return total


def run_once(command: list[str], log: Path, nice: int) -> dict[str, object]:
    """One run under /usr/bin/time -v at `nice`: summary line, exit code, wall seconds, peak memory."""
    with log.open("w") as out:
        start = time.monotonic()
        proc = subprocess.Popen(
            ["nice", "-n", str(nice), "/usr/bin/time", "-v", *command], stdout=out, stderr=subprocess.STDOUT
        )
        peak = 0
        while proc.poll() is None:
            peak = max(peak, tree_rss(proc.pid))
            time.sleep(0.2)
        wall = time.monotonic() - start
    text = log.read_text(errors="replace")
    summaries = [
        m.group(1) or m.group(2) for line in text.splitlines() if (m := _SUMMARY.match(line.strip()))
    ]
    largest = _MAX_RSS.search(text)
    return {
        "exit": proc.returncode,
        "summary": summaries[-1] if summaries else None,
        "wall_s": round(wall, 1),
        "peak_tree_rss_mb": round(peak / 2**20),
        "largest_process_max_rss_mb": round(int(largest.group(1)) / 1024) if largest else None,
        "log": str(log),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the command --runs times, one at a time; exit 1 unless every run gave the same summary and exit 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--lock", type=Path, help="flock this file for each run (released between runs)")
    parser.add_argument("--nice", type=int, default=10)
    parser.add_argument("--logs", type=Path, default=Path("/tmp/irtools-suite-runs"))
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    args.logs.mkdir(parents=True, exist_ok=True)
    results = []
    for n in range(1, args.runs + 1):
        lock = args.lock.open("a") if args.lock else None
        if lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            result = {
                "run": n,
                "started": time.strftime("%H:%M:%S"),
                **run_once(args.command, args.logs / f"run{n}.log", args.nice),
            }
        finally:
            if lock:
                lock.close()  # releases the lock: other heavy work may run before the next run
        results.append(result)
        print(json.dumps(result), flush=True)
        print(
            f"run {n}: {result['summary']} (exit {result['exit']}), {result['wall_s']} s, "
            f"peak tree RSS {result['peak_tree_rss_mb']} MB, largest process {result['largest_process_max_rss_mb']} MB",
            file=sys.stderr,
            flush=True,
        )
    same = len({(r["summary"], r["exit"]) for r in results}) == 1
    return 0 if same and results[0]["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
