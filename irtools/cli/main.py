"""Command-line interface: argument parsing, object assembly and exit codes; no domain logic."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence

from irtools import __version__
from irtools.atomic import write_text_atomic
from irtools.cli import analyze, serve, sweep, synth
from irtools.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    add_allow_empty,
    add_max_mb,
    file_progress,
    max_bytes,
    positive_int,
)
from irtools.errors import AnalysisError
from irtools.report import REPORTERS
from irtools.rules import RULES
from irtools.rules.context import CheckOptions
from irtools.rules.registry import UsageError, parse_severity_overrides


def _codes(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


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
        description="Check IR files. Exit 0: no error-severity finding; 1: at least one; 2: usage error.",
    )
    val.add_argument("paths", nargs="+", metavar="PATH", help="IR files, or directories (every *.json below)")
    val.add_argument(
        "--format", choices=sorted(REPORTERS), default="text", help="output format (default: text)"
    )
    val.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout"
    )
    val.add_argument(
        "--select",
        type=_codes,
        action="extend",
        metavar="CODES",
        help="comma-separated codes or prefixes (GIR3) to enable",
    )
    val.add_argument(
        "--ignore", type=_codes, action="extend", metavar="CODES", help="codes or prefixes to disable"
    )
    val.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="override a rule's severity (error, warning or info); repeatable",
    )
    val.add_argument("--wl0-size", type=positive_int, metavar="BYTES", help="WL0 capacity; enables GIR402")
    val.add_argument(
        "--addr-align", type=positive_int, metavar="BYTES", help="L2 address alignment; enables GIR308"
    )
    val.add_argument(
        "--l2-size",
        type=positive_int,
        metavar="BYTES",
        help="L2 size for files that record none (raw, alloc); enables GIR301 there",
    )
    val.add_argument(
        "--jobs", "-j", type=positive_int, default=1, metavar="N", help="check N files in parallel"
    )
    add_max_mb(val)
    add_allow_empty(val)

    sch = sub.add_parser("schema", help="print the JSON Schema (Draft 2020-12) of the Scheduler IR")
    sch.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    sch.add_argument(
        "--dialect",
        choices=("documented", "raw", "alloc"),
        default="documented",
        help="raw: the Gemini scheduler's own IR before address allocation; alloc: that IR after the SET "
        "allocator gave it L2 addresses",
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
    """`irtools validate`."""
    from irtools.validate import validate_paths

    options = CheckOptions(
        wl0_size=args.wl0_size,
        addr_align=args.addr_align,
        l2_size=args.l2_size,
        severities=parse_severity_overrides(args.severity),
    )
    report = validate_paths(
        args.paths,
        options,
        select=args.select,
        ignore=args.ignore,
        jobs=args.jobs,
        progress=file_progress("checked"),
        max_bytes=max_bytes(args),
        allow_empty=args.allow_empty,
    )
    buffer = io.StringIO()
    REPORTERS[args.format]().render(report, buffer)
    _emit(buffer.getvalue(), args.output)
    return EXIT_FINDINGS if report.errors else EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    """`irtools schema`."""
    import json

    from irtools.dialects import BY_NAME

    build = BY_NAME[args.dialect].schema
    assert build is not None  # every declared dialect has one
    _emit(json.dumps(build(), indent=2) + "\n", args.output)
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
        entry = RULES[code]
        print(f"{entry.code} {entry.name} ({entry.severity.value}, {entry.family})\n\n{entry.doc}")
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
