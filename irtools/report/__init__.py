"""Reporters: one class per output format, chosen by name with `--format`."""

from __future__ import annotations

from irtools.report.base import Reporter
from irtools.report.github import GithubReporter
from irtools.report.gitlab import GitlabReporter
from irtools.report.json_report import JsonReporter
from irtools.report.junit import JunitReporter
from irtools.report.sarif import SarifReporter
from irtools.report.text import TextReporter

REPORTERS: dict[str, type[Reporter]] = {
    "text": TextReporter,
    "json": JsonReporter,
    "github": GithubReporter,
    "gitlab": GitlabReporter,
    "sarif": SarifReporter,
    "junit": JunitReporter,
}

__all__ = [
    "REPORTERS",
    "GithubReporter",
    "GitlabReporter",
    "JsonReporter",
    "JunitReporter",
    "Reporter",
    "SarifReporter",
    "TextReporter",
]
