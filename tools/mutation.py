"""Mutation testing of the rules, loaders, NoC model and reporters with mutmut; prints the score.

    python tools/mutation.py                       # every configured path ([tool.mutmut] in pyproject.toml)
    python tools/mutation.py --path rules --path report
    python tools/mutation.py --path rules --max-seconds 170 --tests tests/mutants tests/rules
    python tools/mutation.py --score-only          # the score of what earlier runs checked
    python tools/mutation.py --path loading --fresh-map   # after moving code: map the tests again

mutmut copies the project into ./mutants, makes each mutant a switchable copy of its function and,
per mutant, runs only the selected tests that reached that function. Results are kept in ./mutants,
so a second run checks only what changed or was not checked yet. How to read a survivor:
docs/mutation-testing.md.

Two things this wrapper adds to plain `mutmut run`:
- the rules' own bodies are mutated: mutmut leaves decorated functions alone (a decorator may have
  side effects when the copies are defined), and every rule is decorated (`@rule`, `@variant`,
  `@also`, `@fast_path`). Here, for those four decorators only, the trampoline keeps the decorators and the
  copies (original and mutants) are plain functions, so a rule is registered once.
- the tests find the real fixtures: they look for ../shared beside the project, and the copy in
  ./mutants looks beside itself, so a link `shared` -> ../shared is made in the project (ignored by git).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import signal
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

PATHS = {
    "rules": "irtools.rules.*",
    "loading": "irtools.loading.*",
    "noc": "irtools.analysis.noc.*",
    "routing": "irtools.analysis.routing.*",
    "report": "irtools.report.*",
}
"""Each configured path (pyproject.toml [tool.mutmut] only_mutate) as a glob of mutmut's mutant names."""

OUR_DECORATORS = {"rule", "variant", "also", "fast_path"}
"""Decorators whose functions are mutated all the same: they register or wrap, once, at import."""

KILLED = {1, 3, 36, -24, 24, 152, 255, 37}
"""mutmut's exit codes of a mutant the tests noticed: a failure, a pytest error, a timeout, a type error."""
SURVIVED = {0}
NO_TESTS = {5, 33}
"""No selected test reached the mutated function: counted as survived (nothing would notice it)."""


def _ours(decorator: Any) -> bool:
    import libcst as cst

    node = decorator.decorator
    if isinstance(node, cst.Call):
        node = node.func
    return isinstance(node, cst.Name) and node.value in OUR_DECORATORS


def _mutate_rule_functions() -> None:
    """Let mutmut mutate functions decorated only with OUR_DECORATORS (see the module docstring)."""
    from mutmut.mutation import file_mutation as fm

    skip = fm.MutationVisitor._skip_node_and_children
    arrange = fm.function_trampoline_arrangement

    def skip_unless_ours(self: Any, node: Any) -> bool:
        import libcst as cst

        if isinstance(node, cst.FunctionDef) and node.decorators and all(map(_ours, node.decorators)):
            if node.name.value in fm.NEVER_MUTATE_FUNCTION_NAMES:
                return True
            lines = self._ignored_node_lines
            position = self.get_metadata(fm.PositionProvider, node, None)
            return bool(position and position.start.line in lines)  # `# pragma: no mutate` still holds
        return bool(skip(self, node))

    def plain_copies(function: Any, mutants: Any, class_name: str | None) -> Any:
        declarations, nodes, assignments, names = arrange(function, mutants, class_name)
        if function.decorators and all(map(_ours, function.decorators)):
            nodes = [nodes[0], *(n.with_changes(decorators=[]) for n in nodes[1:])]
        return declarations, nodes, assignments, names

    fm.MutationVisitor._skip_node_and_children = skip_unless_ours  # type: ignore[method-assign]
    fm.function_trampoline_arrangement = plain_copies


def _link_shared() -> None:
    """The copy in ./mutants looks for the fixtures at ./shared: point it at ../shared."""
    link, shared = ROOT / "shared", ROOT.parent / "shared"
    if shared.is_dir() and not link.exists() and not link.is_symlink():
        link.symlink_to(shared, target_is_directory=True)


def _forget_unmutated(only: list[str]) -> None:
    """Drop the plain copies in ./mutants of files to mutate now: mutmut keeps a copy whose mtime is
    newer than its source, so a file copied unmutated by a run with another --only stays unmutated."""
    for copy in (ROOT / "mutants" / "irtools").rglob("*.py"):
        source = copy.relative_to(ROOT / "mutants").as_posix()
        if any(fnmatch.fnmatch(source, p) for p in only) and not copy.with_name(copy.name + ".meta").exists():
            copy.unlink()


def _results() -> dict[str, int | None]:
    """Mutant name -> mutmut's exit code (None: not checked yet), from the .meta files in ./mutants."""
    codes: dict[str, int | None] = {}
    for meta in (ROOT / "mutants" / "irtools").rglob("*.py.meta"):
        codes.update(json.loads(meta.read_text()).get("exit_code_by_key", {}))
    return codes


def score(paths: list[str], show: int, only: list[str] | None = None) -> float | None:
    """Print the score of each path and in all (killed / checked), and the first `show` survivors;
    with `only`, of those mutants alone (a --sample draw)."""
    codes = _results()
    if only is not None:
        codes = {name: codes.get(name) for name in only}
    total: Counter[str] = Counter()
    survivors: list[str] = []
    print(f"{'path':10} {'killed':>7} {'survived':>9} {'no tests':>9} {'unchecked':>10} {'score':>7}")
    for name in paths:
        count: Counter[str] = Counter()
        for mutant, code in sorted(codes.items()):
            if not fnmatch.fnmatch(mutant, PATHS[name]):
                continue
            kind = (
                "unchecked"
                if code is None
                else "killed"
                if code in KILLED
                else "survived"
                if code in SURVIVED
                else "no tests"
                if code in NO_TESTS
                else "unchecked"  # skipped, interrupted, a crash of the runner itself
            )
            count[kind] += 1
            if kind in ("survived", "no tests"):
                survivors.append(f"{mutant} ({kind})")
        total += count
        print(_row(name, count))
    print(_row("all", total))
    for mutant in survivors[:show]:
        print(f"  survived: {mutant}")
    if len(survivors) > show:
        print(f"  ... and {len(survivors) - show} more: `mutmut results` lists them, `mutmut show NAME` one")
    checked = total["killed"] + total["survived"] + total["no tests"]
    return total["killed"] / checked if checked else None


def _row(name: str, count: Counter[str]) -> str:
    checked = count["killed"] + count["survived"] + count["no tests"]
    ratio = f"{100 * count['killed'] / checked:6.1f}%" if checked else "     -"
    return (
        f"{name:10} {count['killed']:7} {count['survived']:9} {count['no tests']:9} "
        f"{count['unchecked']:10} {ratio:>7}"
    )


def _sample(patterns: list[str], size: int, seed: int, jobs: int) -> list[str]:
    """`size` mutant names drawn at random (by `seed`) among those matching `patterns`; generates the
    mutants first if needed. The same seed on the same source draws the same mutants."""
    import random

    from mutmut.__main__ import create_mutants
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths

    Path("mutants").mkdir(exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    setup_source_paths()
    create_mutants(jobs)
    names = sorted(n for n in _results() if any(fnmatch.fnmatch(n, p) for p in patterns))
    return sorted(random.Random(seed).sample(names, min(size, len(names))))


STATS = ROOT / "mutants" / "mutmut-stats.json"
"""mutmut's map of which test reaches which function; later runs add only new tests to it."""


def run(
    paths: list[str],
    tests: list[str] | None,
    only: list[str] | None,
    jobs: int,
    max_seconds: float | None,
    sample: int | None = None,
    seed: int = 0,
    mutants: list[str] | None = None,
    fresh_map: bool = False,
) -> list[str] | None:
    """`mutmut run` on the mutants of `paths`, in this process; stopped (results kept) after max_seconds."""
    os.chdir(ROOT)
    if fresh_map:
        STATS.unlink(missing_ok=True)  # code moved since the map was made reads "no tests" otherwise
    _link_shared()
    _mutate_rule_functions()
    from mutmut import configuration

    config = configuration.config()
    if tests:
        config.pytest_add_cli_args_test_selection = tests
    if only:
        config.only_mutate = only
    _forget_unmutated(config.only_mutate)
    # A shell starts background jobs with SIGINT ignored, and Python keeps it so: take it back.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if max_seconds:
        # mutmut stops on Ctrl-C and keeps what it checked: send ourselves one when the time is up.
        timer = threading.Timer(max_seconds, os.kill, (os.getpid(), signal.SIGINT))
        timer.daemon = True
        timer.start()
    import click
    from mutmut.__main__ import cli

    names = [PATHS[p] for p in paths]
    if mutants:
        names = mutants
    elif sample:
        names = _sample(names, sample, seed, jobs)
    try:
        cli(["run", "--max-children", str(jobs), *names], standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort):
        print("time is up: the score below is of the mutants checked so far")
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    return names if sample or mutants else None


def main(argv: list[str] | None = None) -> int:
    """Run (unless --score-only) and print the score; exit 0 whatever the score."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", action="append", choices=sorted(PATHS), help="default: every path")
    parser.add_argument("--tests", nargs="+", help="test paths to run (default: pyproject's selection)")
    parser.add_argument(
        "--only", nargs="+", help="source files to mutate, as globs (default: pyproject's only_mutate)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants checked at once (default 1)")
    parser.add_argument("--max-seconds", type=float, help="stop after this long, keeping what was checked")
    parser.add_argument("--sample", type=int, help="check this many mutants drawn at random (see --seed)")
    parser.add_argument("--seed", type=int, default=0, help="the draw of --sample (default 0)")
    parser.add_argument(
        "--mutants", nargs="+", help="check these mutants again (names from `mutmut results`)"
    )
    parser.add_argument(
        "--fresh-map",
        action="store_true",
        help="map every test to the functions it reaches again (after moving code: see docs/mutation-testing.md)",
    )
    parser.add_argument("--score-only", action="store_true", help="print the score of earlier runs")
    parser.add_argument("--show", type=int, default=20, help="survivors to list (default 20)")
    args = parser.parse_args(argv)
    paths = args.path or list(PATHS)
    drawn = None
    if not args.score_only:
        drawn = run(
            paths,
            args.tests,
            args.only,
            args.jobs,
            args.max_seconds,
            args.sample,
            args.seed,
            args.mutants,
            args.fresh_map,
        )
    result = score(paths, args.show, drawn)
    print("mutation score:", "no mutant checked" if result is None else f"{100 * result:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
