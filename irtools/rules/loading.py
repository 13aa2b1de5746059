"""GIR100-GIR103 in the rule catalogue: the file is not JSON, does not fit the schema, repeats keys, or uses unknown keys.

The loader finds them (irtools.loading.reader: GIR100, GIR102; irtools.loading.schema_errors: GIR101;
irtools.dialects.keys: GIR103); they are registered here so that selection, docs and SARIF treat them
like every other rule.
"""

from __future__ import annotations

from irtools.findings import Severity
from irtools.rules.registry import register

register(
    "GIR100",
    "invalid-json",
    Severity.ERROR,
    """The file is not a UTF-8 JSON document.

    Why: RFC 8259 requires UTF-8 and finite numbers; an empty, truncated, binary, UTF-16 or
    NaN-bearing file cannot be read by the assembler. A UTF-8 byte order mark is only a warning.
    Example: `file.json:3:17: GIR100 error invalid JSON: Expecting ',' delimiter`
    Fix: regenerate the file; check that the writer finished (truncation) and writes UTF-8; a compressed
    file (gzip, xz, zstd, bzip2, zip: the finding says which) is decompressed first.
    """,
)
register(
    "GIR101",
    "schema",
    Severity.ERROR,
    """A value does not fit the Scheduler IR schema.

    Why: a boolean, string or fraction where an integer belongs, a coordinate that is not 4
    integers, a negative size or a missing key make the file unreadable for the assembler;
    Pydantic models and the JSON Schema agree on what is allowed, and nothing is coerced.
    Example: `/0/0/buffer/1/address: GIR101 error expected an integer, got boolean true`
    Fix: correct the writer; `irtools schema` prints the schema with each key's meaning.
    """,
)
register(
    "GIR102",
    "duplicate-key",
    Severity.ERROR,
    """One JSON object holds the same key twice.

    Why: JSON readers disagree on which value wins (Python keeps the last, others the first),
    so two tools can read two different schedules from one file.
    Example: `/0/3/buffer/0/address: GIR102 error key 'address' appears 2 times in one object`
    Fix: make the writer emit each key once.
    """,
)
register(
    "GIR103",
    "unknown-or-extension-key",
    Severity.WARNING,
    """A key the format document does not describe.

    Why: keys real Gemini files use but the document omits (extension keys: `wl1_buffer`, `start_send`,
    `ifmap_lower2`/`ifmap_upper2`) are read and reported as info; any other unknown key is a
    warning, since it is often a typo of a documented key whose value is then missing. Unknown
    keys are reported once per object kind (with a count) and otherwise ignored. A file in the
    raw dialect (Gemini's IR before address allocation) is said to be so in one info finding, with
    a second naming the rules that need what it lacks, and is checked against its own models.
    Example: `/0/0/ofmap/0/destination/0/id: GIR103 warning unknown key 'id' in CoreDestination`
    Fix: rename typos; ignore with `--ignore GIR103` for files from other writers.
    """,
)


register(
    "GIR104",
    "omitted-key",
    Severity.INFO,
    """The scheduler left out a key it writes only when it has something to say, and what that means.

    Gemini's SchNode::IR_gen writes a workload's `buffer` only when its L2 snapshot holds something,
    and an ifmap's `transfer_id` only when some producer's range meets it; the models read the
    omission as an empty list, and this finding says so once per kind of key (with a count).
    Why: a file the real scheduler writes must load; an omission is not a schema error, but a reader
    should know that an empty snapshot or an ifmap without transfers came from the file as written.
    Example: `/5/3: GIR104 info key 'buffer' left out in RawWorkload: IR_gen writes no buffer when nothing is held in L2 before the workload; read as an empty snapshot`
    Fix: nothing to fix in the file; it is a note (`--ignore GIR104` hides it).
    """,
)
