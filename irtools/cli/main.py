"""Command-line interface: argument parsing, object assembly and exit codes; no domain logic."""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from irtools import __version__
from irtools.atomic import write_text_atomic
from irtools.cli import analyze, serve, sweep, synth
from irtools.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    add_allow_empty,
    file_progress,
    large_file_note,
)
from irtools.config import add_settings
from irtools.errors import AnalysisError
from irtools.options import RunOptions
from irtools.report import REPORTERS
from irtools.rules import RULES
from irtools.rules.registry import UsageError


def build_parser() -> argparse.ArgumentParser:
    """The `irtools` argument parser with all subcommands."""
    parser = argparse.ArgumentParser(
        prog="irtools",
        description="Validate, analyze and visualize Gemini Scheduler IR files.",
    )
    parser.add_argument("--version", action="version", version=f"irtools {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    val = sub.add_parser(
        "validate",
        help="check IR files against the schema and the semantic rules",
        description="Check IR files. Exit 0: no error-severity finding; 1: at least one; 2: usage error. "
        "Settings also come from the nearest irtools.toml (or [tool.irtools] in pyproject.toml) above each "
        "file; flags win over it (--show-settings shows what applies).",
    )
    val.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="IR files, directories (every *.json below), - for standard input, or a pipe",
    )
    add_settings(val, "validate")
    add_allow_empty(val)
    val.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="record every finding of this run in FILE (atomically) and exit 0; later runs with "
        "--baseline FILE report only new ones",
    )
    val.add_argument(
        "--statistics", action="store_true", help="print the number of findings per code and severity"
    )
    val.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are error-severity findings"
    )
    val.add_argument(
        "--show-settings",
        action="store_true",
        help="print the settings each PATH is checked with, and where each comes from; check nothing",
    )

    from irtools.dialects import DIALECTS

    # The registered dialects (asked most specific first; offered in the order they were declared).
    with_schema = [d for d in reversed(DIALECTS) if d.schema is not None]
    sch = sub.add_parser("schema", help="print the JSON Schema (Draft 2020-12) of the Scheduler IR")
    sch.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    sch.add_argument(
        "--dialect",
        choices=[d.name for d in with_schema],
        default="documented",
        help="; ".join(f"{d.name}: {d.title}" for d in with_schema if d.name != "documented"),
    )

    rul = sub.add_parser("rules", help="list the rules, or show one rule's documentation")
    rul.add_argument("code", nargs="?", help="a rule code, e.g. GIR302")
    rul.add_argument(
        "--markdown", action="store_true", help="print the full catalogue as Markdown (docs/rules.md)"
    )
    analyze.add_parsers(sub)
    serve.add_parsers(sub)
    synth.add_parsers(sub)
    sweep.add_parsers(sub)
    return parser


def _emit(text: str, output: str | None) -> None:
    if output:
        write_text_atomic(output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def run_validate(args: argparse.Namespace) -> int:
    """`irtools validate`: glue over irtools.validate, irtools.config and irtools.baseline."""
    from irtools import baseline
    from irtools.config import Settings
    from irtools.validate import validate_paths

    settings = Settings(args, "validate")
    if args.show_settings:
        from irtools.config import show_settings

        sys.stdout.write("\n".join(show_settings(settings, path) for path in args.paths))
        return EXIT_OK
    run = settings.for_run(args.paths)
    if args.statistics and run["format"] not in ("text", "json"):
        raise UsageError(f"--statistics prints text or json, not {run['format']}")
    roots: dict[str, Path] = {}

    max_bytes = run["max-mb"] * 10**6

    def file_settings(path: str) -> tuple[RunOptions, frozenset[str]]:
        resolved = settings.for_file(path)
        roots[path] = resolved.root
        return dataclasses.replace(resolved.run_options(), max_bytes=max_bytes), resolved.enabled()

    report = validate_paths(
        args.paths,
        jobs=run["jobs"],
        progress=file_progress("checked"),
        starting=large_file_note("checked"),
        max_bytes=max_bytes,
        allow_empty=args.allow_empty,
        per_file=file_settings,
    )
    report = baseline.fingerprinted(report, roots)
    if args.write_baseline:
        written = baseline.write(args.write_baseline, report, roots)
        print(f"irtools validate: wrote {written} to {args.write_baseline}", file=sys.stderr)
        return EXIT_OK
    if run["baseline"]:
        shown = os.path.relpath(run["baseline"])
        shown = run["baseline"] if shown.startswith("..") else shown  # as the user would type it
        report, outcome = baseline.apply(run["baseline"], report, roots, run.root, shown)
        print(f"irtools validate: {outcome}", file=sys.stderr)
    buffer = io.StringIO()
    if args.statistics:
        from irtools.report.statistics import render_statistics

        render_statistics(report, buffer, as_json=run["format"] == "json")
    else:
        REPORTERS[run["format"]]().render(report, buffer)
    _emit(buffer.getvalue(), run["output"])
    return EXIT_FINDINGS if report.errors and not args.exit_zero else EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    """`irtools schema`."""
    from irtools.dialects import BY_NAME
    from irtools.dialects.schema import schema_text

    _emit(schema_text(BY_NAME[args.dialect]), args.output)
    return EXIT_OK


def run_rules(args: argparse.Namespace) -> int:
    """`irtools rules [CODE]`."""
    if args.markdown:
        from irtools.rules.docs import rules_markdown

        sys.stdout.write(rules_markdown())
        return EXIT_OK
    if args.code:
        code = args.code.upper()
        if code not in RULES:
            raise UsageError(f"unknown rule code {args.code!r} (see `irtools rules`)")
        from irtools.rules.docs import rule_page

        sys.stdout.write(rule_page(code))
        return EXIT_OK
    width = max(len(r.name) for r in RULES.values())
    for entry in sorted(RULES.values(), key=lambda r: r.code):
        print(f"{entry.code}  {entry.name:<{width}}  {entry.severity.value:<7}  {entry.summary}")
    return EXIT_OK


COMMANDS = {
    "validate": run_validate,
    "schema": run_schema,
    "rules": run_rules,
    **analyze.COMMANDS,
    **serve.COMMANDS,
    **synth.COMMANDS,
    **sweep.COMMANDS,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `irtools` console script; returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            # Keys in a file may hold lone surrogates (valid JSON escapes) that no encoding can print.
            stream.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
    try:
        if args.command != "validate" and hasattr(args, "isolated"):
            from irtools.config import apply

            # Commands that read one path take their settings from the configuration nearest to it.
            apply(args, args.command, getattr(args, "path", None) or args.paths[0])
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"irtools {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except AnalysisError as exc:  # the file is not an IR at all
        print(f"irtools {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    except BrokenPipeError:
        # The reader went away (`irtools rules | head -1`): normal in a pipeline, so no message.
        # stdout now points at /dev/null so that the interpreter's last flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        print(f"irtools {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("irtools: interrupted", file=sys.stderr)
        return 130
