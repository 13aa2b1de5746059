"""Long fuzz campaign for `irtools validate` (and `analyze`): python benchmarks/fuzz_campaign.py --count 100000 --seed 1

Generates COUNT inputs with the mutators the fuzz tests use (tests/fuzz/mutators.py): the bundled
samples, small slices of the real fixtures in ../shared/fixtures and, rarely, a whole fixture,
mutated at random JSON paths and serialized with occasional raw-text damage; a --header-share of
them instead get header numbers (xlen, ylen, top_batch_cut, buffersize, entry sizes) set huge,
negative or zero in a piece of each dialect (tests/fuzz/header_numbers.py). Each input goes
through load_ir + check_loaded in-process (alternately with the opt-in rules on), with --analyze
through every analysis table as well (a refusal, AnalysisError, is an answer), and, with
--render, through every reporter. It counts as a failure when it raises, reports GIR001 (a rule
crashed), breaks the finding contract (code, severity, pointer into the file as written), runs
longer than --hard-limit seconds (interrupted: a hang), or raises peak RSS by more than --mem-limit
MB. Inputs slower than --time-limit seconds are flagged and kept too.

Every failure and slow input is saved to --out (default: $TMPDIR/irtools-fuzz) as the input's
bytes plus a .txt with its index, base, mutation log and traceback; `--only INDEX` (same --seed)
regenerates and checks one input. Progress goes to stderr, the summary to stdout; exit status 1 if
any input failed.
"""

from __future__ import annotations

import argparse
import collections
import io
import random
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from irtools.findings import FileReport, Report
from irtools.report import REPORTERS
from tests.fuzz import mutators as M
from tests.fuzz.header_numbers import dialect_bases, random_header_mutant


class Hang(Exception):
    """Raised by the interval timer when one input runs past --hard-limit."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


@dataclass
class Base:
    name: str
    data: bytes
    weight: float


def bases(full_weight: float) -> list[Base]:
    """The samples and the fixture slices (half the inputs each), and the whole fixtures (rarely)."""
    out = [Base(p.relative_to(ROOT).as_posix(), M.base_bytes(p), 1.0) for p in M.sample_bases()]
    samples, slices = len(out), M.fixture_bases()
    for path, (start, count) in slices:
        name = f"{path.relative_to(M.FIXTURES).as_posix()}[{start}:{start + count}]"
        out.append(Base(name, M.base_bytes(path, (start, count)), samples / len(slices)))
    fixtures = sorted({path for path, _ in slices})
    total = sum(b.weight for b in out)
    for path in fixtures:
        weight = full_weight / (1 - full_weight) * total / len(fixtures)
        out.append(Base(path.relative_to(M.FIXTURES).as_posix(), M.base_bytes(path), weight))
    return out


def generate(
    all_bases: list[Base], seed: int, index: int, damage: float, header_share: float = 0.0
) -> tuple[Base, bytes, list[str]]:
    rng = random.Random(seed * 1_000_003 + index)
    if rng.random() < header_share:
        dialect, data = rng.choice(sorted(dialect_bases().items()))
        mutant, log = random_header_mutant(data, rng)
        return Base(f"header:{dialect}", data, 0.0), mutant, log
    base = rng.choices(all_bases, [b.weight for b in all_bases])[0]
    data, log = M.generate(base.data, rng, damage)
    return base, data, log


@dataclass
class Stats:
    ran: int = 0
    bytes_in: int = 0
    failures: collections.Counter[str] = field(default_factory=collections.Counter)
    raised: collections.Counter[str] = field(default_factory=collections.Counter)
    saved: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: dict[str, str] = field(default_factory=dict)
    slow: int = 0
    slowest: tuple[float, int, str] = (0.0, -1, "")
    findings: int = 0
    codes: collections.Counter[str] = field(default_factory=collections.Counter)
    analysis: collections.Counter[str] = field(default_factory=collections.Counter)
    headers: int = 0


def _signature(text: str) -> str:
    # Group failures that differ only in numbers, pointers or quoted values.
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    return re.sub(r"\d+", "N", text)[:160]


def analyze_all(data: bytes) -> bool:
    """Every analysis table of one input; False when the analysis refuses it (AnalysisError, one line)."""
    from irtools.analysis import TABLES, AnalysisError, analyze

    try:
        analysis = analyze(data)
        for name in TABLES:
            analysis.table(name)
    except AnalysisError as exc:
        if "\n" in str(exc):
            raise AssertionError(f"refusal of more than one line: {exc!r}") from None
        return False
    return True


def check_one(
    data: bytes,
    index: int,
    render: bool,
    analyze: bool = False,
    counts: collections.Counter[str] | None = None,
) -> tuple[list[str], str, set[str]]:
    """(contract problems, traceback if it raised, finding codes) for one input."""
    options = M.OPTIONS[index % 2]
    problems: list[str] = []
    try:
        if analyze and counts is not None:
            counts["analyzed" if analyze_all(data) else "refused"] += 1
        findings = M.check_bytes(data, options)
        problems += [
            p if p.startswith("GIR001:") else f"contract: {p}" for p in M.contract_violations(findings)
        ]
        problems += [f"location: {p}" for p in M.location_violations(data, findings)]
        if render:
            report = Report([FileReport("fuzz.json", list(findings))])
            for reporter in REPORTERS.values():
                reporter().render(report, io.StringIO())
    except Hang:
        raise
    except BaseException as exc:  # anything escaping is the failure being hunted
        if isinstance(exc, KeyboardInterrupt):
            raise
        problems.append(f"raised {type(exc).__name__}: {exc}"[:300])
        return problems, traceback.format_exc(), set()
    return problems, "", {f.code for f in findings}


def save(out: Path, kind: str, index: int, base: Base, data: bytes, log: list[str], detail: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{kind}-{index}.json"
    path.write_bytes(data)
    path.with_suffix(".txt").write_text(
        f"index {index}\nbase {base.name}\nmutations {log}\n\n{detail}\n", encoding="utf-8", errors="replace"
    )
    return path


def run(args: argparse.Namespace) -> int:
    all_bases = bases(args.full_weight)
    out = Path(args.out)
    stats = Stats()
    signal.signal(signal.SIGALRM, _alarm)
    started = time.perf_counter()
    checking = 0.0
    indices = [args.only] if args.only is not None else range(args.start, args.start + args.count)
    print(
        f"fuzz campaign: {len(indices)} inputs, seed {args.seed}, {len(all_bases)} bases, "
        f"reproducers in {out}",
        file=sys.stderr,
    )
    for index in indices:
        base, data, log = generate(all_bases, args.seed, index, args.damage, args.header_share)
        stats.headers += base.name.startswith("header:")
        rss_before = _peak_rss()
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, args.hard_limit)
        try:
            problems, detail, codes = check_one(data, index, args.render, args.analyze, stats.analysis)
        except Hang:
            problems, detail, codes = (
                [f"hang: still running after {args.hard_limit:g} s"],
                traceback.format_exc(),
                set(),
            )
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - t0
        checking += elapsed
        grown = _peak_rss() - rss_before
        if grown > args.mem_limit * 2**20:
            problems.append(f"memory: peak RSS grew by {grown / 2**20:.0f} MB on one input")
        stats.ran += 1
        stats.bytes_in += len(data)
        if elapsed > stats.slowest[0]:
            stats.slowest = (elapsed, index, f"{base.name} {len(data)} bytes {log}")
        stats.codes.update(codes)
        for problem in problems:
            # raised, GIR001, contract, location, hang or memory
            kind = re.split(r"[: ]", problem, maxsplit=1)[0]
            sig = _signature(problem)
            stats.failures[kind] += 1
            if kind == "raised":
                stats.raised[problem.split()[1].rstrip(":")] += 1
            if stats.saved[sig] < args.keep:
                stats.saved[sig] += 1
                path = save(out, kind.lower(), index, base, data, log, "\n".join(problems) + "\n\n" + detail)
                stats.examples.setdefault(sig, f"{problem[:200]}  [{path}]")
        if elapsed > args.time_limit:
            stats.slow += 1
            if not problems and stats.saved["slow"] < args.keep:
                stats.saved["slow"] += 1
                save(out, "slow", index, base, data, log, f"took {elapsed:.2f} s")
        if args.only is not None:
            print(
                f"input {index}: base {base.name}, {len(data)} bytes, {log}, {elapsed:.3f} s, {problems or 'ok'}"
            )
            if detail:
                print(detail)
        if stats.ran % args.progress == 0:
            wall = time.perf_counter() - started
            print(
                f"  {stats.ran}/{len(indices)}  {stats.ran / wall:.0f} inputs/s  "
                f"failures {sum(stats.failures.values())}  slow {stats.slow}  "
                f"peak RSS {_peak_rss() / 2**20:.0f} MB",
                file=sys.stderr,
                flush=True,
            )
    wall = time.perf_counter() - started
    summary(stats, wall, checking, out)
    return 1 if stats.failures else 0


def summary(stats: Stats, wall: float, checking: float, out: Path) -> None:
    slowest, index, what = stats.slowest
    failed = sum(stats.failures.values())
    lines = [
        "fuzz campaign summary",
        (
            f"  inputs run          {stats.ran} ({stats.bytes_in / 2**20:.1f} MB), "
            f"{stats.headers} of them header-number mutants"
        ),
        (
            f"  analyze             {stats.analysis['analyzed']} analyzed (every table), "
            f"{stats.analysis['refused']} refused in one line"
            if stats.analysis
            else "  analyze             not run (--analyze)"
        ),
        f"  failures            {failed}" + (f"  {dict(stats.failures)}" if failed else ""),
        f"    raised            {stats.failures['raised']}"
        + (f"  {dict(stats.raised)}" if stats.raised else ""),
        f"    GIR001            {stats.failures['GIR001']}",
        f"    contract          {stats.failures['contract']} (bad code, severity or pointer)",
        f"    location          {stats.failures['location']} (pointer not where the finding is)",
        f"    hangs             {stats.failures['hang']}",
        f"    memory blow-ups   {stats.failures['memory']}",
        f"  slow inputs (> limit) {stats.slow}",
        f"  slowest input       {slowest:.3f} s (index {index}: {what[:160]})",
        (
            f"  throughput          {stats.ran / wall:.0f} inputs/s overall, "
            f"{stats.ran / checking if checking else 0:.0f} inputs/s excluding generation, {wall:.0f} s wall"
        ),
        f"  peak RSS            {_peak_rss() / 2**20:.0f} MB",
        f"  rule codes reached  {len(stats.codes)}: {' '.join(sorted(stats.codes))}",
    ]
    if stats.examples:
        lines.append(f"  distinct failures   {len(stats.examples)} (reproducers in {out})")
        lines += [f"    {example}" for example in stats.examples.values()]
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="inputs to generate (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="campaign seed (default 1)")
    parser.add_argument("--start", type=int, default=0, help="first input index (to resume or shard)")
    parser.add_argument("--only", type=int, help="regenerate and check the input with this index only")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "irtools-fuzz"))
    parser.add_argument("--time-limit", type=float, default=5.0, help="flag inputs slower than this (s)")
    parser.add_argument("--hard-limit", type=float, default=60.0, help="interrupt an input after this (s)")
    parser.add_argument("--mem-limit", type=float, default=500.0, help="MB of peak RSS growth per input")
    parser.add_argument("--damage", type=float, default=0.25, help="share of inputs with raw-text damage")
    parser.add_argument("--full-weight", type=float, default=0.01, help="share of whole-fixture bases")
    parser.add_argument("--keep", type=int, default=3, help="reproducers kept per distinct failure")
    parser.add_argument("--progress", type=int, default=5000, help="report progress every N inputs")
    parser.add_argument("--no-render", dest="render", action="store_false", help="skip the reporters")
    parser.add_argument(
        "--analyze", action="store_true", help="also compute every analysis table of each input"
    )
    parser.add_argument(
        "--header-share", type=float, default=0.25, help="share of header-number mutants (default 0.25)"
    )
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
