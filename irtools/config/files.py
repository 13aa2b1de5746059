"""Configuration files: irtools.toml or [tool.irtools] in pyproject.toml, checked, and found upward."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irtools.config.settings import SETTINGS, InvalidValue
from irtools.rules.registry import UsageError

CONFIG_NAMES = ("irtools.toml", "pyproject.toml")


class ConfigError(UsageError):
    """A configuration file that cannot be used: not TOML, an unknown key, a value of the wrong kind."""


@dataclass(frozen=True)
class ConfigFile:
    """A configuration file's checked values; `root` (its directory) anchors its relative paths."""

    path: Path
    values: dict[str, Any]

    @property
    def root(self) -> Path:
        """The configuration file's directory, which its relative paths start from."""
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
