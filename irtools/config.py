"""Settings from the command line and from configuration files in the repository, as ruff finds them.

One table, SETTINGS, declares every setting once: its TOML key, its command-line flag, the commands that
take it and how a value is checked. A configuration file is `irtools.toml` (keys at the top level) or a
`pyproject.toml` with a `[tool.irtools]` table; for each checked file the nearest one in the file's
directory or above it applies (irtools.toml before pyproject.toml in one directory). `--config FILE`
names one for every file, `--isolated` ignores them all. The command line wins over the file, the file
over the defaults. Settings that belong to the run rather than to a file (the report's format and
destination, jobs, the size guard, the baseline) come from `--config` or the file found from the current
directory, as ruff does (else from the one configuration all the checked paths share).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

from irtools.findings import Severity
from irtools.limits import DEFAULT_MAX_MB, MEMORY_PER_BYTE
from irtools.rules.context import CheckOptions
from irtools.rules.registry import RULES, UsageError, resolve_selection

CONFIG_NAMES = ("irtools.toml", "pyproject.toml")
DEFAULT = "default"
COMMAND_LINE = "command line"


class ConfigError(UsageError):
    """A configuration file that cannot be used: not TOML, an unknown key, a value of the wrong kind."""


# --- value checks: a TOML value (or a parsed flag) -> the value irtools uses ------------------------------


class InvalidValue(Exception):
    """A setting's value of the wrong kind; the message says what was expected."""


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidValue(f"expected a positive integer, got {value!r}")
    return value


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
            "comma-separated codes or prefixes (GIR3) to enable; on the command line it replaces the "
            "configuration's select and ignore",
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
            "(`legacy/**=GIR305,GIR307`); repeatable",
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
            "L2 size in bytes for files that do not record it (the raw dialect); l2_blocks' capacity",
            frozenset({"analyze"}),
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
            "check N files in parallel",
            frozenset({"validate", "summarize"}),
            _positive_int,
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


def _cli_value(setting: Setting, raw: Any) -> Any:
    """The value of a flag as parsed: repeated --severity / --per-file-ignores merged into one table."""
    if setting.key in ("severity", "per-file-ignores"):
        merged: dict[str, Any] = {}
        for part in raw:
            merged.update(part)
        return merged
    return raw


# --- configuration files ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigFile:
    """A configuration file's checked values; `root` (its directory) anchors its relative paths."""

    path: Path
    values: dict[str, Any]

    @property
    def root(self) -> Path:
        return self.path.parent


def _table(path: Path) -> dict[str, Any] | None:
    """The irtools table of a configuration file; None for a pyproject.toml without one."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if path.name != "pyproject.toml":
        return document
    table = document.get("tool", {}).get("irtools")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.irtools] must be a table")
    return table


def read_config(path: Path, required: bool = False) -> ConfigFile | None:
    """Check one configuration file. A pyproject.toml without [tool.irtools] is not one (None), unless
    `required` (named by --config), where that is an error."""
    path = path.resolve()
    table = _table(path)
    if table is None:
        if required:
            raise ConfigError(f"{path}: no [tool.irtools] table")
        return None
    values: dict[str, Any] = {}
    where = "[tool.irtools] in " if path.name == "pyproject.toml" else ""
    for key, raw in table.items():
        setting = SETTINGS.get(key)
        if setting is None:
            known = ", ".join(SETTINGS)
            raise ConfigError(f"{where}{path}: unknown key {key!r} (known keys: {known})")
        try:
            value = setting.check(raw)
        except InvalidValue as exc:
            raise ConfigError(f"{where}{path}: {key}: {exc}") from None
        if setting.relative_path:
            value = os.path.normpath(path.parent / value)
        values[key] = value
    return ConfigFile(path, values)


def find_config(path: str | Path, cache: dict[Path, ConfigFile | None] | None = None) -> ConfigFile | None:
    """The nearest configuration file for `path` (a file: from its directory; a directory: from itself).

    `cache` remembers each directory's answer for the files of one run (files share their ancestors).
    """
    target = Path(path).resolve()
    directory = target if target.is_dir() else target.parent
    cache = {} if cache is None else cache
    visited = []
    found: ConfigFile | None = None
    while True:
        if directory in cache:
            found = cache[directory]
            break
        visited.append(directory)
        found = next(
            (c for c in (read_config(directory / n) for n in CONFIG_NAMES if (directory / n).is_file()) if c),
            None,
        )
        if found is not None or directory.parent == directory:
            break
        directory = directory.parent
    for seen in visited:
        cache[seen] = found
    return found


# --- resolution -----------------------------------------------------------------------------------------


@dataclass
class Resolved:
    """Settings for one file (or for the run): each value and where it came from."""

    values: dict[str, Any]
    sources: dict[str, str]
    config: ConfigFile | None
    ignored_here: dict[str, list[str]] = field(default_factory=dict)
    """per-file-ignores patterns that match this file, with their codes."""
    selection: list[tuple[list[str] | None, list[str]]] = field(default_factory=list)
    """(select, ignore) layers, the configuration's first: see Settings._selection_layers."""

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    @property
    def root(self) -> Path:
        """The directory that paths in the baseline and per-file-ignores are relative to."""
        return self.config.root if self.config else Path.cwd()

    def check_options(self) -> CheckOptions:
        """The options of the checks that the settings parameterize."""
        return CheckOptions(
            wl0_size=self.values.get("wl0-size"),
            addr_align=self.values.get("addr-align"),
            severities=self.values.get("severity") or {},
        )

    def enabled(self) -> frozenset[str]:
        """Codes enabled for this file: the selection layers, then the per-file ignores that match it."""
        enabled = frozenset(RULES)
        for select, ignore in self.selection:
            if select is not None:
                enabled = resolve_selection(select, ignore)
            else:
                enabled &= resolve_selection(None, ignore)
        dropped = {code for codes in self.ignored_here.values() for code in codes}
        return frozenset(c for c in enabled if not any(c.startswith(d) for d in dropped))


class Settings:
    """Resolves settings for the files of one command: command line over configuration over defaults."""

    def __init__(self, args: argparse.Namespace, command: str) -> None:
        self.command = command
        self.cli = {
            key: _cli_value(s, getattr(args, s.dest))
            for key, s in SETTINGS.items()
            if command in s.commands and getattr(args, s.dest, None) is not None
        }
        self.isolated = bool(getattr(args, "isolated", False))
        named = getattr(args, "config", None)
        if named and self.isolated:
            raise UsageError("--config and --isolated exclude each other")
        if named and not Path(named).is_file():
            raise UsageError(f"--config: {named}: no such file")
        self.named = read_config(Path(named), required=True) if named else None
        self._found: dict[Path, ConfigFile | None] = {}

    def config_for(self, path: str | Path) -> ConfigFile | None:
        if self.isolated:
            return None
        return self.named or find_config(path, self._found)

    def _resolve(self, config: ConfigFile | None, keys: Iterable[str]) -> Resolved:
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for key in keys:
            setting = SETTINGS[key]
            if key in self.cli:
                values[key], sources[key] = self.cli[key], COMMAND_LINE
            elif config is not None and key in config.values:
                values[key], sources[key] = config.values[key], str(config.path)
            else:
                values[key], sources[key] = setting.default, DEFAULT
        if "severity" in values and config and "severity" in config.values and "severity" in self.cli:
            values["severity"] = config.values["severity"] | self.cli["severity"]
            sources["severity"] = f"{config.path} and the command line"
        resolved = Resolved(values, sources, config)
        if "select" in values:
            resolved.selection = self._selection_layers(config)
        return resolved

    def _selection_layers(self, config: ConfigFile | None) -> list[tuple[list[str] | None, list[str]]]:
        # As ruff: a --select on the command line starts over; an --ignore alone adds to the file's.
        file_values = config.values if config else {}
        layers: list[tuple[list[str] | None, list[str]]] = [
            (file_values.get("select", SETTINGS["select"].default), file_values.get("ignore", []))
        ]
        if "select" in self.cli or "ignore" in self.cli:
            layers.append((self.cli.get("select"), self.cli.get("ignore", [])))
        return layers

    def for_file(self, path: str) -> Resolved:
        """Settings for one checked file, per-file ignores matched against its path below the root."""
        keys = [k for k, s in SETTINGS.items() if self.command in s.commands and s.per_file]
        resolved = self._resolve(self.config_for(path), keys)
        patterns: Mapping[str, list[str]] = resolved.values.get("per-file-ignores", {})
        if patterns:
            relative = relative_path(path, resolved.root)
            resolved.ignored_here = {p: c for p, c in patterns.items() if glob_match(p, relative)}
        return resolved

    def for_run(self, paths: Iterable[str] = ()) -> Resolved:
        """Settings of the whole run: from --config, else the configuration found from the current
        directory, else the one configuration that every path in `paths` uses (if they share one)."""
        keys = [k for k, s in SETTINGS.items() if self.command in s.commands and not s.per_file]
        config = self.config_for(Path.cwd())
        if config is None and not self.isolated:
            shared = {id(c): c for c in (self.config_for(p) for p in paths)}
            config = next(iter(shared.values())) if len(shared) == 1 else None
        return self._resolve(config, keys)

    def for_path(self, path: str) -> Resolved:
        """Every setting `command` takes, for one path: what --show-settings prints."""
        resolved = self.for_file(path)
        run = self.for_run([path])
        resolved.values |= run.values
        resolved.sources |= run.sources
        return resolved


def apply(args: argparse.Namespace, command: str, path: str) -> Resolved:
    """Fill `args` with the settings for `path`, for commands that read one path (analyze, serve, report)."""
    settings = Settings(args, command)
    resolved = settings.for_path(path)
    for key, value in resolved.values.items():
        setattr(args, SETTINGS[key].dest, value)
    return resolved


# --- paths and globs --------------------------------------------------------------------------------------


def relative_path(path: str | Path, root: Path) -> str:
    """`path` relative to `root`, with forward slashes (`../x.json` for a file outside it)."""
    return PurePosixPath(Path(os.path.relpath(Path(path).resolve(), root.resolve())).as_posix()).as_posix()


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-like: `*` and `?` stay within one path segment, `**` spans segments, `[...]` a class."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(pattern: str, relative: str) -> bool:
    """Whether a per-file-ignores glob matches a path relative to the configuration's directory. A pattern
    without `/` matches the file name in any directory (`*.raw.json`), as in .gitignore; `!` negates."""
    negate = pattern.startswith("!")
    pattern = pattern[1:] if negate else pattern
    pattern = pattern.removeprefix("./")
    target = relative if "/" in pattern else relative.rsplit("/", 1)[-1]
    matched = bool(_glob_regex(pattern).match(target))
    if not matched and pattern.endswith("/"):
        matched = relative.startswith(pattern)
    return matched != negate


# --- --show-settings --------------------------------------------------------------------------------------


def _toml(value: Any) -> str:
    """A value written as TOML, so that the printed settings can be pasted into irtools.toml."""
    if isinstance(value, dict):
        items = ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items())
        return "{" + items + "}" if items else "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, Severity):
        return json.dumps(value.value)
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


def show_settings(settings: Settings, path: str) -> str:
    """What `validate --show-settings PATH` prints: each setting as TOML, with where it came from."""
    resolved = settings.for_path(path)
    config = resolved.config
    lines = [f"# settings for {path}"]
    if settings.isolated:
        lines.append("# configuration: none (--isolated)")
    elif config:
        lines.append(f"# configuration: {config.path} (relative paths from {config.root})")
    else:
        lines.append("# configuration: none found in this directory or above")
    rows = [
        (f"{key} = {_toml(value)}" if value is not None else f"# {key} (not set)", resolved.sources[key])
        for key, value in resolved.values.items()
    ]
    width = max(len(row) for row, _ in rows)
    lines += [f"{row:<{width}}  # {source}" for row, source in rows]
    enabled = resolved.enabled()
    off = sorted(set(RULES) - enabled)
    lines.append(
        f"# {len(enabled)} of {len(RULES)} codes enabled for this file"
        + (f"; off: {', '.join(off)}" if off else "")
    )
    for pattern, codes in resolved.ignored_here.items():
        lines.append(f"# per-file-ignores {pattern!r} matches it: {', '.join(codes)}")
    return "\n".join(lines) + "\n"
