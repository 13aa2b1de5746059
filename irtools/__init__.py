"""irtools: validate, analyze and visualize Gemini Scheduler IR files."""

from __future__ import annotations

__version__ = "0.1.0"

from irtools.loading.load import LoadedIR, load_ir
from irtools.validate import validate_paths

__all__ = ["LoadedIR", "__version__", "load_ir", "validate_paths"]
