"""Resolution: command line over configuration file over defaults, per checked file and for the run;
and what --show-settings prints."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irtools.config.files import ConfigFile, find_config, read_config
from irtools.config.globs import glob_match, relative_path
from irtools.config.settings import SETTINGS, cli_value
from irtools.findings import Severity
from irtools.gemini import GEMINI_FREQUENCY
from irtools.loading.discover import is_stream
from irtools.options import RunOptions
from irtools.rules.registry import RULES, UsageError, resolve_selection

DEFAULT = "default"
COMMAND_LINE = "command line"


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

    def run_options(self, args: argparse.Namespace | None = None) -> RunOptions:
        """The run's options from these settings (and the command's NoC flags in `args`)."""
        return make_run_options(self.values, args)

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
            key: cli_value(s, getattr(args, s.dest))
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
        """The configuration file that applies to a path: --config's, none with --isolated, else the
        nearest above it."""
        if self.isolated:
            return None
        # A stream's path (`-`, /dev/fd/63) says nothing of the project it comes from: the working directory's.
        if isinstance(path, str) and is_stream(path):
            path = Path.cwd()
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
        both = f"{config.path} and the command line" if config else COMMAND_LINE
        file_values = config.values if config else {}
        # Tables merge key by key over the file's; an --ignore without --select adds to the file's.
        for key in ("severity", "per-file-ignores"):
            if key in values and key in file_values and key in self.cli:
                values[key], sources[key] = file_values[key] | self.cli[key], both
        if "ignore" in self.cli and "select" not in self.cli and file_values.get("ignore"):
            values["ignore"], sources["ignore"] = file_values["ignore"] + self.cli["ignore"], both
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


def make_run_options(values: Mapping[str, Any], args: argparse.Namespace | None = None) -> RunOptions:
    """The one RunOptions of a command: resolved setting values (keys as in SETTINGS) and the NoC flags
    (--noc-bw, --noc-frequency, --dram-bw, --dram-type, --noc-links) of the commands that take them."""
    max_mb = values.get("max-mb")
    return RunOptions(
        l2_size=values.get("l2-size"),
        wl0_size=values.get("wl0-size"),
        addr_align=values.get("addr-align"),
        noc_bw=getattr(args, "noc_bw", None),
        noc_frequency=getattr(args, "noc_frequency", None) or GEMINI_FREQUENCY,
        dram_bw=getattr(args, "dram_bw", None),
        dram_type=getattr(args, "dram_type", None),
        noc_links=bool(getattr(args, "noc_links", False)),
        max_bytes=int(max_mb) * 10**6 if max_mb else None,
        severities=dict(values.get("severity") or {}),
    )


def run_options(args: argparse.Namespace) -> RunOptions:
    """The RunOptions of a command that reads one path, from `args` once `apply` filled in its settings."""
    values = {key: getattr(args, s.dest) for key, s in SETTINGS.items() if hasattr(args, s.dest)}
    return make_run_options(values, args)


def apply(args: argparse.Namespace, command: str, path: str) -> Resolved:
    """Fill `args` with the settings for `path`, for commands that read one path (analyze, serve, report)."""
    settings = Settings(args, command)
    resolved = settings.for_path(path)
    for key, value in resolved.values.items():
        setattr(args, SETTINGS[key].dest, value)
    return resolved


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
