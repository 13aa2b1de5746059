"""GIR305 source-union: a buffer entry's transfer ids or range differ from the union of its sources."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from itertools import compress, repeat
from operator import attrgetter

import numpy as np

from irtools import pointer as jp
from irtools.dialects.base import Capability
from irtools.dialects.raw.models import RawBufferEntry, RawSource
from irtools.findings import Finding, Severity
from irtools.loading.boxes import Bools, Group, Ints, coords, flagged_rows, grouped_min_max, tensor_columns
from irtools.loading.index import IRIndex
from irtools.loading.sets import member
from irtools.rules.context import CheckContext, id_list
from irtools.rules.l2.common import loc
from irtools.rules.raw import raw_workloads
from irtools.rules.registry import rule, variant
from irtools.rules.screens import box_columns


def source_ids_message(transfer_ids: Sequence[int], source_ids: Sequence[int]) -> str:
    """GIR305's message for an entry whose transfer ids are not its sources' ids."""
    return f"transfer_id [{id_list(transfer_ids, ', ')}] differs from the sources' ids [{id_list(source_ids, ', ')}]"


def source_box_message(
    lower: Sequence[int], upper: Sequence[int], box_lower: Sequence[int], box_upper: Sequence[int]
) -> str:
    """GIR305's message for an entry whose range is not its sources' bounding box."""
    return f"range {list(lower)}..{list(upper)} differs from the sources' bounding box {list(box_lower)}..{list(box_upper)}"


def source_union_rows(ir: IRIndex) -> list[int] | None:
    """GIR305's screen: workloads with an entry whose transfer ids or range differ from its sources' union."""
    cols = tensor_columns(ir)
    buffers, sources = cols.buffers, cols.sources
    own, bounds = box_columns(buffers), box_columns(sources)
    if own is None or bounds is None:
        return None
    count = len(buffers)
    has_source = np.bincount(sources.row, minlength=count) > 0
    low, _ = grouped_min_max(bounds[0], sources.row, count)
    _, high = grouped_min_max(bounds[1], sources.row, count)
    boxed = has_source & ((low != own[0]).any(axis=1) | (high != own[1]).any(axis=1))
    differ = _ids_differ(buffers, sources, none_as_empty=False)
    if differ is None:
        return None
    return flagged_rows([buffers.row[boxed | differ]])


def _ids_differ(buffers: Group, sources: Group, none_as_empty: bool) -> Bools | None:
    """Per entry with sources: whether its distinct transfer ids differ from its sources' (an entry
    without a `transfer_id` list is compared as empty with `none_as_empty`, else not compared);
    None when the ids do not fit the comparison's int64 keys."""
    sent, listed = sources.ints("transfer_id"), buffers.lists("transfer_id")
    if sent is None or listed is None:
        return None
    count = len(buffers)
    compared = np.bincount(sources.row, minlength=count) > 0
    if not none_as_empty:
        compared &= buffers.equals("transfer_id", None, negate=True)
    owner, tid = listed
    keep, kept = compared[owner], compared[sources.row]
    differ = np.zeros(count, dtype=bool)
    span = int(max(tid.max(initial=0), sent.max(initial=0))) + 1
    if count * span >= 2**62:
        return None
    # An (entry, id) pair of the lists is not among the sources', or the converse.
    held, brought = owner[keep] * span + tid[keep], sources.row[kept] * span + sent[kept]
    differ[held[~member(held, brought)] // span] = True
    differ[brought[~member(brought, held)] // span] = True
    return differ


@rule("GIR305", "source-union", Severity.WARNING, screen=source_union_rows, per_core=True)
def source_union(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """A buffer entry's transfer ids or range differ from the union of its sources.

    The format document defines an entry's `transfer_id` list as the union of its sources'
    ids and its lower/upper as the bounding box of its sources' ranges.
    Why: the assembler finds a tensor's producers through its sources; a mismatch means part
    of the tensor is never fetched or is fetched from the wrong producer.
    Example: `/0/9/buffer/2: GIR305 warning transfer_id [56, 57] differs from the sources' ids [56]`
    On the raw dialect, sources give their range in the producer's frame and their place in the
    consumer's channels as `channel`; the box is compared in the consumer's frame, and an input
    entry with no source at all is reported.
    Fix: rebuild the entry from its sources.
    """
    for ref in ir.workloads():
        for i, entry in enumerate(ref.workload.buffer):
            if not entry.source:
                continue
            ptr = jp.extend(ref.pointer, "buffer", i)
            ids = sorted({s.transfer_id for s in entry.source})
            if entry.transfer_id is not None and sorted(set(entry.transfer_id)) != ids:
                yield ctx.finding(
                    "GIR305",
                    source_ids_message(entry.transfer_id, ids),
                    ptr,
                    **loc(ref, entry),
                )
            if len(entry.source) == 1:
                lower, upper = entry.source[0].lower, entry.source[0].upper
            else:
                lower = [min(s.lower[d] for s in entry.source) for d in range(4)]
                upper = [max(s.upper[d] for s in entry.source) for d in range(4)]
            if (lower, upper) != (entry.lower, entry.upper):
                yield ctx.finding(
                    "GIR305",
                    source_box_message(entry.lower, entry.upper, lower, upper),
                    ptr,
                    **loc(ref, entry),
                )


def _consumer_box(source: RawSource) -> tuple[list[int], list[int]] | None:
    """A source's box in the consumer's frame: its `channel` range replaces C (concatenations)."""
    lower, upper = source.lower_as_written, source.upper_as_written
    if not isinstance(lower, list) or not isinstance(upper, list):
        return None
    if source.channel is None:
        return lower, upper
    return [lower[0], source.channel[0], *lower[2:]], [upper[0], source.channel[1], *upper[2:]]


def _bounding_box(entry: RawBufferEntry) -> tuple[list[int], list[int]] | None:
    """The sources' bounding box in the consumer's frame; None for channel bounds and 3-D boxes."""
    assert entry.source
    lower, upper = entry.lower_as_written, entry.upper_as_written
    if not (isinstance(lower, list) and len(lower) == 4 and isinstance(upper, list)):
        return None
    if len(entry.source) == 1:
        return _consumer_box(entry.source[0])
    boxes = []
    for s in entry.source:
        box = _consumer_box(s)
        if box is None:
            return None
        boxes.append(box)
    lower = [min(b[0][d] for b in boxes) for d in range(4)]
    upper = [max(b[1][d] for b in boxes) for d in range(4)]
    return lower, upper


def raw_source_union_rows(ir: IRIndex) -> list[int] | None:
    """GIR305's screen on the raw dialect: workloads with an input entry that has no source, or whose
    ids or consumer-frame box may differ from its sources' (`_bounding_box`; a box that is not four
    coordinates on every side is left to the check wherever the check compares it)."""
    cols = tensor_columns(ir)
    buffers, sources = cols.buffers, cols.sources
    entry_low, entry_high = buffers.bounds("lower_as_written"), buffers.bounds("upper_as_written")
    source_low, source_high = sources.bounds("lower_as_written"), sources.bounds("upper_as_written")
    channels = _channels(sources)
    ids = _ids_differ(buffers, sources, none_as_empty=True)
    if entry_low is None or entry_high is None or source_low is None or source_high is None:
        return None
    if channels is None or ids is None:
        return None
    count = len(buffers)
    per_entry = np.bincount(sources.row, minlength=count)

    def every_source(flags: Bools) -> Bools:
        held: Bools = np.bincount(sources.row, weights=flags, minlength=count) == per_entry
        return held

    # The check compares a box only for an entry with a 4-list lower and a list upper, with a source,
    # all of whose sources give lists.
    compared = (entry_low[0] == 4) & (entry_high[0] >= 0) & (per_entry > 0)
    compared &= every_source((source_low[0] >= 0) & (source_high[0] >= 0))
    exact = (entry_high[0] == 4) & every_source((source_low[0] == 4) & (source_high[0] == 4) & channels[0])
    box_low, _ = grouped_min_max(source_low[1], sources.row, count)
    _, box_high = grouped_min_max(source_high[1], sources.row, count)
    # In the consumer's frame, C is the source's `channel` range where it gives one (no copy of the boxes).
    has_channel, channel = channels[1], channels[2]
    placed_low = np.where(has_channel, channel[:, 0], source_low[1][:, 1])[:, None]
    placed_high = np.where(has_channel, channel[:, 1], source_high[1][:, 1])[:, None]
    box_low[:, 1] = grouped_min_max(placed_low, sources.row, count)[0][:, 0]
    box_high[:, 1] = grouped_min_max(placed_high, sources.row, count)[1][:, 0]
    differs = (box_low != entry_low[1]).any(axis=1) | (box_high != entry_high[1]).any(axis=1)
    inputs = buffers.equals("type", "ofmap", negate=True)
    flagged = inputs & ((per_entry == 0) | ids | (compared & (~exact | differs)))
    return flagged_rows([buffers.row[flagged]])


def _channels(sources: Group) -> tuple[Bools, Bools, Ints] | None:
    """Per source: whether `channel` is None or a 2-list (the check reads [0] and [1] of it), whether it
    is set, and its two numbers (0 where unset)."""
    values = list(map(attrgetter("channel"), sources.objects))
    has = np.fromiter(map(operator.is_not, values, repeat(None)), bool, len(values))
    shape = coords(list(compress(values, has)))
    if shape is None:
        return None
    length, first = shape
    clean = np.ones(len(values), dtype=bool)
    clean[has] = length == 2
    numbers = np.zeros((len(values), 2), dtype=np.int64)
    numbers[has] = first[:, :2]
    return clean, has, numbers


@variant("GIR305", needs={Capability.SOURCE_CHANNELS}, screen=raw_source_union_rows, per_core=True)
def raw_source_union(ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
    """GIR305 on the raw dialect: ids and range of each ifmap/weight entry against its sources.

    Sources give their range in the producer's frame and, with `channel`, where their channels
    land in the consumer's ifmap: the bounding box is taken in the consumer's frame. An input
    entry with no source at all is reported: nothing brings its data.
    """
    for core_id, _, pointer, wl in raw_workloads(ir):
        for i, entry in enumerate(wl.buffer):
            if entry.type == "ofmap":
                continue
            problems = []
            lower, upper = entry.lower_as_written, entry.upper_as_written
            if not entry.source:
                own = sorted(set(entry.transfer_id or ()))
                # Say what the entry does carry: an entry with ids but no source names transfers nothing sends.
                carries = (
                    f"transfer_id [{id_list(own, ', ')}] but no source"
                    if own
                    else "no source and no transfer id"
                )
                problems.append(
                    f"{entry.type} entry of layer {entry.layer!r} has {carries}: nothing brings {lower}..{upper}"
                )
            else:
                ids = sorted({s.transfer_id for s in entry.source})
                own = sorted(set(entry.transfer_id or ()))
                if own != ids:
                    problems.append(
                        f"transfer_id [{id_list(own, ', ')}] differs from the sources' ids [{id_list(ids, ', ')}]"
                    )
                box = _bounding_box(entry)
                if box is not None and box != (lower, upper):
                    problems.append(
                        f"range {lower}..{upper} differs from the sources' bounding box "
                        f"{box[0]}..{box[1]} (channels placed by `channel`)"
                    )
            for message in problems:  # the pointer is built only for a finding: most entries have none
                ptr = jp.extend(pointer, "buffer", i)
                yield ctx.finding("GIR305", message, ptr, core_id=core_id, workload_id=wl.workload_id)
