"""The dialects `irtools synth` writes, each as a form of the one synthesis: how the documented IR becomes a
file of the dialect, how defects are injected into it, and what the command says of it.

The generator and injectors of a dialect live here in irtools/synth/ (documented: build.py and inject.py;
raw.py; alloc.py), not in the dialect's folder: they take their expected messages from the rules
(irtools.rules), which read the dialects, so a dialect folder holding them would import its own readers.
A dialect without a form here is read by every command but not offered by `irtools synth --dialect`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from irtools.dialects import ALLOC, DOCUMENTED, RAW, Dialect
from irtools.synth.alloc import inject_alloc, to_alloc
from irtools.synth.build import Stats
from irtools.synth.inject import Injection, inject
from irtools.synth.raw import inject_raw, to_raw

Doc = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SynthForm:
    """One dialect as `irtools synth --dialect NAME` writes it."""

    dialect: Dialect
    convert: Callable[[Doc], Doc]
    """The synthesized documented IR -> a file of this dialect (the same network, schedule and seed)."""
    inject: Callable[[Doc, list[str], int], Injection]
    """One defect per rule code, with the findings `irtools validate` must report."""
    summary: Callable[[Stats, int], str]
    """The line `irtools synth` prints about the file's L2 (from the stats and the ring regions asked)."""
    help: str
    """What --dialect NAME writes and which codes --inject takes (the command's help)."""
    notes: Callable[[int], list[str]] = lambda ring_regions: []
    """What `irtools validate` will say of the file beyond the injected findings, for these ring regions."""


def _documented_summary(s: Stats, ring_regions: int) -> str:
    return (
        f"  L2: {s.l2_tensors:,} tensors in {ring_regions} ring region(s), {s.wrapped_tensors:,} wrapping "
        f"around their region's end, {s.reused_tensors:,} ifmaps read in place; WL0: {s.wl0_entries:,} entries"
    )


def _ring_note(ring_regions: int) -> list[str]:
    if ring_regions <= 1:
        return []
    return [
        "  note: with 2+ ring regions, `irtools validate` reports one GIR303 info finding (the [start, end) reading)"
    ]


FORMS: dict[str, SynthForm] = {
    form.dialect.name: form
    for form in (
        SynthForm(
            DOCUMENTED,
            lambda doc: doc,
            inject,
            _documented_summary,
            "documented (the default): the format document's IR",
            _ring_note,
        ),
        SynthForm(
            RAW,
            to_raw,
            inject_raw,
            lambda s, rings: (
                "  raw dialect: cores keyed by Gemini's mesh ids, L2 as 1 KiB block counts, no addresses or WL0"
            ),
            "raw: the Gemini scheduler's own IR before address allocation (mesh-id cores, block counts, "
            "no addresses), from the same generator and seed; --inject takes GIR201, GIR203, GIR204, GIR502",
        ),
        SynthForm(
            ALLOC,
            lambda doc: to_alloc(to_raw(doc)),
            inject_alloc,
            lambda s, rings: (
                "  alloc dialect: the raw IR with L2 addresses in 1 KiB blocks (first fit per core), no WL0"
            ),
            "alloc: that raw IR after an allocator like SET's (address in 1 KiB blocks, start_loading); "
            "--inject also takes GIR301 (recorded with the --l2-size to validate with) and GIR302",
        ),
    )
}
"""The dialects `irtools synth` writes, by name, in the order --dialect offers them."""
