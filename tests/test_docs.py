"""Generated documents stay in sync with the code."""

from __future__ import annotations

from pathlib import Path

from irtools.rules.docs import rules_markdown

ROOT = Path(__file__).resolve().parent.parent


def test_rules_markdown_is_current() -> None:
    committed = (ROOT / "docs" / "rules.md").read_text()
    assert committed == rules_markdown(), "regenerate with: irtools rules --markdown > docs/rules.md"


def test_every_rule_doc_says_why_and_how_to_fix() -> None:
    from irtools.rules import RULES

    for entry in RULES.values():
        assert "Why:" in entry.doc, entry.code
        assert "Fix:" in entry.doc, entry.code


def test_tables_markdown_is_current() -> None:
    from irtools.catalogue import tables_markdown

    committed = (ROOT / "docs" / "tables.md").read_text()
    assert committed == tables_markdown(), "regenerate with: irtools tables --markdown > docs/tables.md"
