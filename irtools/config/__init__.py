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

from irtools.config.files import ConfigError, ConfigFile, find_config, read_config
from irtools.config.globs import glob_match, relative_path
from irtools.config.resolve import (
    COMMAND_LINE,
    DEFAULT,
    Resolved,
    Settings,
    apply,
    make_run_options,
    run_options,
    show_settings,
)
from irtools.config.settings import SETTINGS, Setting, add_settings

__all__ = [
    "COMMAND_LINE",
    "DEFAULT",
    "SETTINGS",
    "ConfigError",
    "ConfigFile",
    "Resolved",
    "Setting",
    "Settings",
    "add_settings",
    "apply",
    "find_config",
    "glob_match",
    "make_run_options",
    "read_config",
    "relative_path",
    "run_options",
    "show_settings",
]
