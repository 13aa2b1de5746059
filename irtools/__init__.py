"""irtools: validate, analyze and visualize Gemini Scheduler IR files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from irtools.loading.load import LoadedIR, load_ir
    from irtools.validate import validate_paths

__all__ = ["LoadedIR", "__version__", "load_ir", "validate_paths"]

# The package itself imports nothing heavy: `python -m irtools` and the console script import the
# command line with the collector paused (irtools.cli.entry), which they cannot do once this has run.
_LAZY = {
    "LoadedIR": "irtools.loading.load",
    "load_ir": "irtools.loading.load",
    "validate_paths": "irtools.validate",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'irtools' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
