"""Paths relative to a project root, and the globs of per-file-ignores."""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path, PurePosixPath


def relative_path(path: str | Path, root: Path) -> str:
    """`path` relative to `root`, with forward slashes (`../x.json` for a file outside it)."""
    return PurePosixPath(Path(os.path.relpath(Path(path).resolve(), root.resolve())).as_posix()).as_posix()


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-like: `*` and `?` stay within one path segment, `**` spans segments, `[...]` a class."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(pattern: str, relative: str) -> bool:
    """Whether a per-file-ignores glob matches a path relative to the configuration's directory. A pattern
    without `/` matches the file name in any directory (`*.raw.json`), as in .gitignore; `!` negates."""
    negate = pattern.startswith("!")
    pattern = pattern[1:] if negate else pattern
    pattern = pattern.removeprefix("./")
    target = relative if "/" in pattern else relative.rsplit("/", 1)[-1]
    matched = bool(_glob_regex(pattern).match(target))
    if not matched and pattern.endswith("/"):
        matched = relative.startswith(pattern)
    return matched != negate
