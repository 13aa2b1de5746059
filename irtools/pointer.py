"""RFC 6901 JSON pointers: escaping, joining, resolving, and ordering."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_INTEGER = re.compile(r"-?[0-9]+\Z")


def escape(token: str | int) -> str:
    """Escape one reference token (`~` -> `~0`, `/` -> `~1`)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo `escape`."""
    return token.replace("~1", "/").replace("~0", "~")


def join(*tokens: str | int) -> str:
    """Build a pointer from unescaped tokens; `join()` is the whole document."""
    return "".join("/" + escape(t) for t in tokens)


def extend(pointer: str, *tokens: str | int) -> str:
    """Append tokens to an existing pointer."""
    return pointer + join(*tokens)


def split(pointer: str) -> list[str]:
    """Split a pointer into unescaped tokens."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON pointer must start with '/': {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


def resolve(document: Any, pointer: str) -> Any:
    """Return the value `pointer` names inside `document` (raises KeyError/IndexError)."""
    node = document
    for token in split(pointer):
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def from_loc(loc: Iterable[str | int]) -> str:
    """Turn a Pydantic error location into a pointer."""
    return join(*loc)


def sort_key(pointer: str) -> tuple[tuple[int, int | str], ...]:
    """Order pointers with numeric segments compared as numbers (`/0/2` before `/0/10`)."""
    key: list[tuple[int, int | str]] = []
    for token in split(pointer):
        if _INTEGER.match(token):
            key.append((0, int(token)))
        else:
            key.append((1, token))
    return tuple(key)
