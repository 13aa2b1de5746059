"""Errors the CLI turns into one line and an exit code (kept free of heavy imports for start-up)."""

from __future__ import annotations


class AnalysisError(ValueError):
    """The file could not be read as an IR at all, so there is nothing to analyze."""


class UsageError(Exception):
    """A mistake in how irtools was called (exit code 2)."""
