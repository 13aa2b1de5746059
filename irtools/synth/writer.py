"""Write a generated IR and its sidecars atomically: a reader never sees half a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from irtools.atomic import write_text_atomic
from irtools.findings import Finding
from irtools.report.json_report import finding_to_json
from irtools.rules.context import CheckOptions

EXPECTED_SUFFIX = ".expected.json"
OPTIONS_SUFFIX = ".options.expected.json"
"""Ends like the expected-findings sidecar, so `irtools validate DIR` skips it too."""


def ir_text(document: dict[str, Any], indent: int | None = None) -> str:
    """The IR as JSON: compact by default (json's C encoder is several times faster than indenting)."""
    if indent is None:
        return json.dumps(document, separators=(",", ":")) + "\n"
    return json.dumps(document, indent=indent) + "\n"


def sidecar(path: str | Path, suffix: str = EXPECTED_SUFFIX) -> Path:
    """`x.json` -> `x.expected.json` (sample_ir's golden naming); other names get the suffix appended."""
    target = Path(path)
    stem = target.name.removesuffix(".json")
    return target.with_name(stem + suffix)


def validate_args(options: CheckOptions) -> list[str]:
    """The `irtools validate` flags that switch on the opt-in rules an injection needs."""
    args = []
    if options.addr_align:
        args += ["--addr-align", str(options.addr_align)]
    if options.wl0_size:
        args += ["--wl0-size", str(options.wl0_size)]
    if options.l2_size:
        args += ["--l2-size", str(options.l2_size)]
    return args


def write_ir(path: str | Path, document: dict[str, Any], indent: int | None = None) -> int:
    """Write the IR atomically; returns its size in bytes."""
    text = ir_text(document, indent)
    write_text_atomic(path, text)
    return len(text.encode())


def write_expected(path: str | Path, findings: list[Finding], options: CheckOptions) -> list[Path]:
    """Write the expected findings beside the IR (golden format), and the validate options they need."""
    expected = sidecar(path)
    write_text_atomic(expected, json.dumps([finding_to_json(f) for f in findings], indent=2) + "\n")
    written = [expected]
    args = validate_args(options)
    if args:
        recorded = {
            "addr_align": options.addr_align,
            "wl0_size": options.wl0_size,
            "l2_size": options.l2_size,
            "validate_args": args,
        }
        write_text_atomic(sidecar(path, OPTIONS_SUFFIX), json.dumps(recorded, indent=2) + "\n")
        written.append(sidecar(path, OPTIONS_SUFFIX))
    return written
