"""Which trace belongs to an IR: `<stem>_sim.txt` for `<stem>_stschedule.json`.

Looked for beside the IR, then in a `zebu/` folder beside the IR's folder (the layout of the
Gemini repository and of the shared fixtures: gemini/X_stschedule.json, zebu/X_sim.txt). With a
`root`, only traces inside it count (the dashboard serves nothing outside its directory).
"""

from __future__ import annotations

import os
from pathlib import Path

IR_SUFFIXES = ("_stschedule.json", ".json")
TRACE_SUFFIX = "_sim.txt"


def trace_stem(ir_path: str | os.PathLike[str]) -> str:
    """The IR's file name without `_stschedule.json` (or `.json`)."""
    name = Path(ir_path).name
    for suffix in IR_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def discover_trace(
    ir_path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None
) -> Path | None:
    """The trace of this IR, if one sits where irtools looks for it."""
    ir = Path(ir_path)
    name = trace_stem(ir) + TRACE_SUFFIX
    fence = Path(root).resolve() if root is not None else None
    for candidate in (ir.parent / name, ir.parent.parent / "zebu" / name):
        if not candidate.is_file():
            continue
        if fence is not None and not candidate.resolve().is_relative_to(fence):
            continue
        return candidate
    return None
