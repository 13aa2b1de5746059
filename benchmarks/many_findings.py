"""An IR with over 10,000 findings, to load the dashboard's findings table.

`irtools synth` on a 4x4 mesh (200 layers, batch 4: 2,192 workloads, 6,040 L2 entries), with
every L2 entry moved past the end of the buffer, one 64-byte slot after the other: each entry is
a GIR301, and the entries that now share addresses with another add GIR302s and GIR304s
(10,983 findings in all).
"""

from __future__ import annotations

from pathlib import Path

from irtools.synth.build import SynthOptions, synthesize
from irtools.synth.writer import write_ir


def write_many_findings(path: Path, layers: int = 200, batch: int = 4) -> int:
    """Write the IR to `path`; returns the number of L2 entries moved out of bounds."""
    document = synthesize(SynthOptions(xlen=4, ylen=4, layers=layers, batch=batch)).document
    moved = 0
    for key, workloads in document.items():
        if not key.isdigit():
            continue  # "-1" is DRAM; the rest are scalars
        for workload in workloads:
            for entry in workload["buffer"]:
                entry["address"] = document["buffersize"] + 64 * moved
                moved += 1
    write_ir(path, document)
    return moved
