"""The settings table: each setting's TOML key, its flag, the commands that take it and its value check."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from irtools.cpus import cpus
from irtools.findings import Severity
from irtools.limits import DEFAULT_MAX_MB, MEMORY_PER_BYTE
from irtools.rules.registry import RULES

# --- value checks: a TOML value (or a parsed flag) -> the value irtools uses ------------------------------


class InvalidValue(Exception):
    """A setting's value of the wrong kind; the message says what was expected."""


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidValue(f"expected a positive integer, got {value!r}")
    return value


AUTO_JOBS = "auto"
"""`jobs = "auto"` / `--jobs auto`: one process per CPU this process may run on (as flake8 takes it)."""


def _jobs(value: Any) -> int:
    if isinstance(value, str) and value.strip().lower() == AUTO_JOBS:
        return cpus()
    try:
        return _positive_int(value)
    except InvalidValue:
        raise InvalidValue(f'expected a positive integer or "{AUTO_JOBS}", got {value!r}') from None


def _code(value: Any) -> str:
    if not isinstance(value, str) or not any(code.startswith(value.strip().upper()) for code in RULES):
        raise InvalidValue(f"unknown rule code or prefix {value!r} (see `irtools rules`)")
    return value.strip().upper()


def _codes(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise InvalidValue(f"expected a list of rule codes or prefixes, got {value!r}")
    return [_code(item) for item in value]


def _severities(value: Any) -> dict[str, Severity]:
    if not isinstance(value, dict):
        raise InvalidValue(f'expected a table of CODE = "error"|"warning"|"info", got {value!r}')
    levels: dict[str, Severity] = {}
    for code, level in value.items():
        if code.upper() not in RULES:
            raise InvalidValue(f"unknown rule code {code!r} (see `irtools rules`)")
        try:
            levels[code.upper()] = Severity(str(level).lower())
        except ValueError:
            raise InvalidValue(f"{code}: unknown severity {level!r} (error, warning or info)") from None
    return levels


def _per_file_ignores(value: Any) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise InvalidValue(f'expected a table of "glob" = [codes], got {value!r}')
    return {str(pattern): _codes(codes) for pattern, codes in value.items()}


def _format(value: Any) -> str:
    from irtools.report import REPORTERS

    if value not in REPORTERS:
        raise InvalidValue(f"expected one of {', '.join(sorted(REPORTERS))}, got {value!r}")
    return str(value)


def _path(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidValue(f"expected a file path, got {value!r}")
    return value


@dataclass(frozen=True)
class Setting:
    """One setting: a TOML key, the flag that sets it, the commands that take it, and its value check."""

    key: str
    flag: str
    help: str
    commands: frozenset[str]
    check: Callable[[Any], Any]
    default: Any = None
    per_file: bool = True
    """False: one value for the whole run (the report, the pool), taken from the run's configuration."""
    relative_path: bool = False
    """A path in a configuration file is relative to that file's directory."""
    metavar: str | None = None

    @property
    def dest(self) -> str:
        """The argparse attribute of this key (`wl0-size` -> `wl0_size`)."""
        return self.key.replace("-", "_")


_READERS = frozenset({"validate", "analyze", "export-trace", "summarize", "serve", "report"})
_FIGURES = frozenset({"validate", "analyze", "serve", "report"})
_VALIDATE = frozenset({"validate"})

SETTINGS: dict[str, Setting] = {
    s.key: s
    for s in (
        Setting(
            "select",
            "--select",
            "comma-separated codes or prefixes (GIR3) to enable (default: every code); on the command "
            "line it replaces the configuration's select and ignore",
            _VALIDATE,
            _codes,
            ["GIR"],
            metavar="CODES",
        ),
        Setting(
            "ignore",
            "--ignore",
            "codes or prefixes to disable (added to the configuration's)",
            _VALIDATE,
            _codes,
            [],
            metavar="CODES",
        ),
        Setting(
            "severity",
            "--severity",
            "override a rule's severity (error, warning or info); repeatable",
            _VALIDATE,
            _severities,
            {},
            metavar="CODE=LEVEL",
        ),
        Setting(
            "per-file-ignores",
            "--per-file-ignores",
            "codes to disable in files matching a glob relative to the configuration's directory "
            "(`legacy/**=GIR305,GIR307`; added to the configuration's); repeatable",
            _VALIDATE,
            _per_file_ignores,
            {},
            metavar="GLOB=CODES",
        ),
        Setting(
            "wl0-size",
            "--wl0-size",
            "WL0 capacity in bytes: enables GIR402; free space in the WL0 tables and maps",
            _FIGURES,
            _positive_int,
            metavar="BYTES",
        ),
        Setting(
            "l2-size",
            "--l2-size",
            "L2 size in bytes for files that record none (raw, alloc): enables GIR301 there; l2_blocks' "
            "capacity and the L2 maps' end",
            _FIGURES,
            _positive_int,
            metavar="BYTES",
        ),
        Setting(
            "addr-align",
            "--addr-align",
            "L2 address alignment in bytes: enables GIR308",
            _VALIDATE,
            _positive_int,
            metavar="BYTES",
        ),
        Setting(
            "max-mb",
            "--max-mb",
            f"refuse IR files larger than this, unread (default {DEFAULT_MAX_MB}; checking needs about "
            f"{MEMORY_PER_BYTE}x the file size in memory)",
            _READERS,
            _positive_int,
            DEFAULT_MAX_MB,
            per_file=False,
            metavar="MB",
        ),
        Setting(
            "jobs",
            "--jobs",
            f"check N files in parallel, or one large file's cores in two processes ({AUTO_JOBS}: one process per CPU)",
            frozenset({"validate"}),
            _jobs,
            1,
            per_file=False,
            metavar="N",
        ),
        Setting(
            "format", "--format", "output format (default: text)", _VALIDATE, _format, "text", per_file=False
        ),
        Setting(
            "output",
            "--output",
            "write the report to FILE (atomically) instead of stdout",
            _VALIDATE,
            _path,
            per_file=False,
            relative_path=True,
            metavar="FILE",
        ),
        Setting(
            "baseline",
            "--baseline",
            "report only findings that are not in this baseline file (see --write-baseline)",
            _VALIDATE,
            _path,
            per_file=False,
            relative_path=True,
            metavar="FILE",
        ),
    )
}
SHORT_FLAGS = {"jobs": "-j", "output": "-o"}


def _severity_flag(text: str) -> dict[str, Severity]:
    code, sep, level = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected CODE=error|warning|info, got {text!r}")
    try:
        return _severities({code.strip(): level.strip()})
    except InvalidValue as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _per_file_flag(text: str) -> dict[str, list[str]]:
    pattern, sep, codes = text.rpartition("=")
    if not sep or not pattern:
        raise argparse.ArgumentTypeError(f"expected GLOB=CODES, got {text!r}")
    try:
        return _per_file_ignores({pattern: [c for c in codes.split(",") if c.strip()]})
    except InvalidValue as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _codes_flag(text: str) -> list[str]:
    try:
        return _codes([c for c in text.split(",") if c.strip()])
    except InvalidValue as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _int_flag(text: str) -> int:
    try:
        return _positive_int(int(text, 0))
    except (ValueError, InvalidValue):
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None


def _jobs_flag(text: str) -> int:
    try:
        return _jobs(text if text.strip().lower() == AUTO_JOBS else int(text, 0))
    except (ValueError, InvalidValue):
        raise argparse.ArgumentTypeError(
            f'expected a positive integer or "{AUTO_JOBS}", got {text!r}'
        ) from None


def add_settings(parser: argparse.ArgumentParser, command: str) -> None:
    """Add the flags of every setting `command` takes. Unset flags stay None: the resolution below
    tells a value given on the command line from one a configuration file or the default supplies."""
    for setting in SETTINGS.values():
        if command not in setting.commands:
            continue
        flags = [setting.flag] + ([SHORT_FLAGS[setting.key]] if setting.key in SHORT_FLAGS else [])
        kwargs: dict[str, Any] = {"dest": setting.dest, "metavar": setting.metavar, "default": None}
        shown_default = f" (default {setting.default})" if setting.default not in (None, [], {}) else ""
        help_text = setting.help if "default" in setting.help else setting.help + shown_default
        if setting.key in ("select", "ignore"):
            kwargs |= {"type": _codes_flag, "action": "extend"}
        elif setting.key == "severity":
            kwargs |= {"type": _severity_flag, "action": "append"}
        elif setting.key == "per-file-ignores":
            kwargs |= {"type": _per_file_flag, "action": "append"}
        elif setting.check is _positive_int:
            kwargs["type"] = _int_flag
        elif setting.check is _jobs:
            kwargs["type"] = _jobs_flag
        elif setting.key == "format":
            from irtools.report import REPORTERS

            kwargs |= {"choices": sorted(REPORTERS), "metavar": None}
        parser.add_argument(*flags, help=help_text, **kwargs)
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="use this configuration file (irtools.toml, or a pyproject.toml with [tool.irtools]) "
        "for every file instead of the nearest one",
    )
    parser.add_argument(
        "--isolated", action="store_true", help="ignore every configuration file (defaults and flags only)"
    )


def cli_value(setting: Setting, raw: Any) -> Any:
    """The value of a flag as parsed: repeated --severity / --per-file-ignores merged into one table."""
    if setting.key in ("severity", "per-file-ignores"):
        merged: dict[str, Any] = {}
        for part in raw:
            merged.update(part)
        return merged
    return raw
