"""GIR6xx: the measured ZeBu trace and its join to the IR.

These codes come from `irtools.trace` (`irtools analyze IR --trace TRACE`), not from checking an
IR alone, so they have no check function; each finding carries the trace's line number.
"""

from irtools.findings import Severity
from irtools.rules.registry import register

register(
    "GIR601",
    "trace-malformed-line",
    Severity.ERROR,
    """A trace line is not an instruction `[name, {location}, {inst_idx, time}, {parameters}]`.

    Why: a line the reader cannot take apart is an instruction missing from every measured number;
    the line number says where. Also reported: a trace that is not UTF-8, or holds no instruction,
    a `time` that ends before it starts (or past 2**53), a location without integer `slyr`, `wkl`
    and `tile`, an integer beyond int64.
    Fix: regenerate the trace, or repair the line (see ../shared/docs/ZeBu_Trace_Format.md).
    """,
)
register(
    "GIR602",
    "trace-unknown-instruction",
    Severity.ERROR,
    """An instruction class or a Prev_Insts/Next_Insts queue name is not one irtools knows.

    Why: the class (the name up to its first `_`) decides the hardware queue: ct -> CT, lda and ldw
    -> LD, lw -> LW, pe -> PE, vp -> VP, dt -> DT, sta -> ST. An unknown one cannot be placed in a
    queue or paired with its tokens, so it is left out.
    Fix: a new instruction set needs its class added to `irtools.trace.reader.CLASS_QUEUE`.
    """,
)
register(
    "GIR603",
    "trace-queue-order",
    Severity.ERROR,
    """An instruction starts before the previous instruction of its queue ended.

    Why: each queue (CT, LD, LW, PE, VP, DT, ST) runs its instructions in program order, one at a
    time; time going backwards in a queue means a corrupted or re-ordered trace, and every wait
    measured from it is wrong.
    Fix: check how the trace was captured or merged; lines must be in program order.
    """,
)
register(
    "GIR604",
    "trace-token-dependency",
    Severity.ERROR,
    """An instruction starts before the producer it depends on ended.

    Why: `Prev_Insts`/`Next_Insts` name classes, read as token queues: the k-th instruction of class
    P listing C in `Next_Insts` feeds the k-th instruction of class C listing P in `Prev_Insts`. A
    consumer that starts before its producer ended read data that was not there yet.
    Fix: the hardware (or the emulator's trace writer) broke a dependency; compare the two lines.
    """,
)
register(
    "GIR605",
    "trace-unmatched-token",
    Severity.WARNING,
    """A consumer waits for a token nobody sent, or tokens are sent that nobody consumes.

    Why: producers and consumers of each class pair must balance; an unmatched one usually means a
    truncated trace or a missing line, and the dependency check cannot pair the rest correctly.
    Fix: check that the trace is complete (it ends with `ct_ed`).
    """,
)
register(
    "GIR611",
    "trace-unknown-workload",
    Severity.ERROR,
    """Trace instructions name a `wkl` that is not a workload_id on core 0 of the IR.

    Why: `wkl` is the IR's workload_id on core "0"; instructions of an unknown workload cannot be
    compared with any estimate, so the trace was probably measured for another schedule. One finding
    per unknown `wkl`; when most of the trace's `wkl` ids are unknown (5 or more, over half), one
    finding says that the trace does not belong to this IR instead of a line per workload.
    Fix: pass the trace of this IR (`--trace`), or regenerate one of them.
    """,
)
register(
    "GIR612",
    "trace-unmeasured-workload",
    Severity.WARNING,
    """A workload on core 0 of the IR has no compute instruction (PE, VP, DT) in the trace.

    Why: the workload has an estimate but no measurement, so it drops out of the comparison and
    its time is hidden inside its neighbour's gap.
    Fix: check that the trace belongs to this IR and is complete.
    """,
)
register(
    "GIR613",
    "trace-tile-mismatch",
    Severity.WARNING,
    """A workload's measured compute tiles differ from the tiles of its `tile_info`.

    Why: `tile` is k of the IR's `tile_num_k`; each tile runs once on the hardware. A missing,
    extra or repeated tile means the trace and the schedule disagree on how the workload was cut.
    Fix: check that the trace belongs to this IR.
    """,
)
register(
    "GIR614",
    "trace-other-cores",
    Severity.INFO,
    """The IR has cores besides core 0; the trace measures core 0 only.

    Why: a ZeBu trace runs one core's program and its `wkl` are core 0's workload ids, so workloads
    of the other cores are not compared.
    Fix: nothing to fix; join each core's trace separately when there are several.
    """,
)
