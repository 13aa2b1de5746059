"""GIR101 from Pydantic errors: each error as a finding with a pointer into the file as written."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.model.base import CORES_FIELD

MAX_SCHEMA_FINDINGS = 1000
"""Beyond this many GIR101 findings in one file, the rest are summarized in one finding."""

_JSON_TYPES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
_EXPECTED = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "string_type": "a string",
    "bool_type": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dataclass_type": "an object",
    "none_required": "null",
    "finite_number": "a finite number",
}


def describe_value(value: Any) -> str:
    """A JSON type name plus a short rendering of the value."""
    kind = next((name for t, name in _JSON_TYPES.items() if type(value) is t), type(value).__name__)
    if value is None:
        return "null"
    if isinstance(value, dict | list):
        return f"{kind} of {len(value)} item{'s' if len(value) != 1 else ''}"
    text = (
        "null" if value is None else "true" if value is True else "false" if value is False else repr(value)
    )
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{kind} {text}"


def error_pointer(raw: Any, loc: tuple[int | str, ...]) -> tuple[str, str | None]:
    """Map a Pydantic location onto the file: (pointer, missing key or None).

    Union tags and the models' internal core field are not in the file, so a token is kept
    only when it names something that exists at that point of the raw document.
    """
    tokens, _, missing = _follow(raw, loc)
    return jp.join(*tokens), missing


def _follow(raw: Any, loc: tuple[int | str, ...]) -> tuple[list[str | int], Any, str | None]:
    """(tokens that exist in the file, the value they lead to, missing last key or None)."""
    tokens: list[str | int] = []
    node = raw
    loc = tuple(t for t in loc if t != CORES_FIELD)
    for position, token in enumerate(loc):
        if isinstance(node, dict) and isinstance(token, str):
            if token in node:
                tokens.append(token)
                node = node[token]
            elif position == len(loc) - 1:
                return tokens, node, token
        elif isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
            tokens.append(token)
            node = node[token]
    return tokens, node, None


DETAILED_ERRORS = 10 * MAX_SCHEMA_FINDINGS
"""Up to this many errors, `ValidationError.errors()` is used as is."""


def first_errors(exc: ValidationError, raw: Any, limit: int) -> tuple[list[ErrorDetails], int]:
    """At least the first `limit` errors (all of them when there are few), and the total count.

    `exc.errors()` builds a dict of about 1 KB per error, and a file of a few MB whose big lists hold
    the wrong type has millions of errors. Past DETAILED_ERRORS, only the errors shown are decoded,
    from `exc.json()` without inputs; each input is read back from `raw` at the error's location.
    """
    total = exc.error_count()
    if total <= DETAILED_ERRORS:
        return exc.errors(include_url=False), total
    text = exc.json(include_url=False, include_input=False)
    decoder = json.JSONDecoder()
    errors: list[ErrorDetails] = []
    position = 1  # past "[": the items are written without spaces, separated by ","
    while len(errors) < min(total, limit):
        item, position = decoder.raw_decode(text, position)
        position += 1
        item["loc"] = tuple(item["loc"])
        item["input"] = value = _follow(raw, item["loc"])[1]
        if item["type"] == "string_unicode" and isinstance(value, dict):
            item["input"] = next((k for k in value if not _utf8(k)), value)  # the key is the input
        errors.append(item)
    return errors, total


def schema_message(error: ErrorDetails, missing_key: str | None) -> str:
    """A message naming what was expected and what the file holds."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    got = describe_value(error["input"])
    if kind == "missing":
        return f"missing required key {missing_key or error['loc'][-1]!r}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {got}"
    if kind == "literal_error":
        return f"expected {ctx.get('expected')}, got {got}"
    if kind in ("too_short", "too_long"):
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        return f"expected an array of {bound} items, got {ctx.get('actual_length')}"
    if kind == "greater_than_equal":
        return f"expected a value >= {ctx.get('ge')}, got {got}"
    if kind == "less_than_equal":
        return f"expected a value <= {ctx.get('le')}, got {got}"
    if kind == "union_tag_invalid":
        return f"expected {ctx.get('discriminator')} to be one of {ctx.get('expected_tags')}, got {ctx.get('tag')!r}"
    if kind == "union_tag_not_found":
        return f"missing required key {ctx.get('discriminator')}"
    return f"{error['msg']}, got {got}"


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


class SchemaErrors:
    """GIR101 findings for the validation errors of a file's parts; the first MAX_SCHEMA_FINDINGS are shown."""

    def __init__(self) -> None:
        self._shown: dict[str, list[Finding]] = {}
        self._count = 0
        self._total = 0

    def add(self, exc: ValidationError, raw: Any, part: str = "") -> None:
        """The errors of validating `raw`, a value whose error locations are pointers into the file."""
        room = MAX_SCHEMA_FINDINGS - self._count
        errors, total = first_errors(exc, raw, room)
        self._total += total
        shown = self._shown.setdefault(part, [])
        for error in errors[:room]:
            pointer, missing = error_pointer(raw, tuple(error["loc"]))
            shown.append(
                Finding(
                    "GIR101", Severity.ERROR, schema_message(error, missing), pointer, **_location(pointer)
                )
            )
        self._count += min(room, len(errors))

    def findings(self, order: Iterable[str] = ("",)) -> list[Finding]:
        """The findings shown, parts in `order`, and one finding counting the others."""
        findings = [f for part in order for f in self._shown.get(part, ())]
        hidden = self._total - len(findings)
        if hidden > 0:
            findings.append(Finding("GIR101", Severity.ERROR, f"{hidden} more schema errors not shown", ""))
        return findings


def _location(pointer: str) -> dict[str, Any]:
    tokens = jp.split(pointer)
    if len(tokens) >= 2 and tokens[0].isdigit() and tokens[1].isdigit():
        return {"core_id": int(tokens[0])}
    return {}
