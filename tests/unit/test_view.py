"""Every dialect's models offer the one vocabulary the rules read (irtools.model.view), in the same units,
and a fact a dialect lacks is absent, never None in a field typed as required."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from irtools.dialects.alloc.models import AllocBufferEntry
from irtools.dialects.documented import BufferEntry, SchedulerIR, Workload
from irtools.dialects.raw.models import RawBufferEntry, RawWorkload
from irtools.loading.fast_types import is_model, model_of
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.model.view import (
    BufferView,
    DramInView,
    DramOutView,
    IfmapView,
    OfmapView,
    PartialIR,
    WorkloadView,
)

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
RAW = FIXTURES / "gemini-raw" / "resnet_2x2_b1_ir.json"
ALLOC = FIXTURES / "gemini-alloc" / "resnet_2x2_b1_alloc.json"
DOCUMENTED = FIXTURES / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"


def _members(protocol: type) -> list[str]:
    return [name for name in dir(protocol) if isinstance(getattr(protocol, name, None), property)]


def _index(path: Path) -> IRIndex:
    return IRIndex(load_ir(path))


@pytest.mark.parametrize("path", [DOCUMENTED, RAW, ALLOC], ids=["documented", "raw", "alloc"])
def test_every_dialect_offers_the_shared_vocabulary(path: Path) -> None:
    index = _index(path)
    ir = index.ir
    for ref in index.workloads():
        wl = ref.workload
        for name in _members(WorkloadView):
            getattr(wl, name)  # raises AttributeError if a dialect lacks a shared name
        for protocol, items in (
            (IfmapView, wl.ifmap),
            (OfmapView, wl.ofmap),
            (BufferView, wl.buffer),
        ):
            for item in items:
                for name in _members(protocol):
                    getattr(item, name)
                assert len(item.lower) == 4 and len(item.upper) == 4
    for protocol, entries in ((DramInView, ir.dram.in_), (DramOutView, ir.dram.out)):
        for entry in entries:
            for name in _members(protocol):
                getattr(entry, name)


def test_raw_entries_give_bytes_and_four_coordinates_over_what_the_file_says() -> None:
    document = json.loads(RAW.read_bytes())
    index = _index(RAW)
    core = next(iter(index.cores))
    ref = next(r for r in index.cores[core] if any(b.type == "weight" for b in r.workload.buffer))
    raw = index.raw(ref)
    written = document[str(core)][ref.position]
    i = next(i for i, b in enumerate(raw.buffer) if b.type == "weight")
    entry, as_written = raw.buffer[i], written["buffer"][i]
    # A weight's bound in the raw file is its output channel: [K, 0, 0, 0] in the shared vocabulary.
    assert isinstance(as_written["lower"], int)
    assert entry.lower == [as_written["lower"], 0, 0, 0]
    assert entry.lower_as_written == as_written["lower"]
    assert entry.layer_name == as_written["layer"]
    assert raw.ofmap_size == -(-written["ofmap_size"] // 8)
    assert raw.ofmap[0].size == written["ofmap"][0]["size"] // 8
    assert raw.ifmap == [raw.waits]


def test_facts_a_dialect_lacks_are_absent_not_none() -> None:
    raw = _index(RAW)
    ref = next(raw.workloads())
    entry = raw.raw(ref).buffer[0]
    assert (model_of(entry) or type(entry)) is RawBufferEntry  # the model, or the decoder's Struct of it
    for name in ("address", "tensor_id", "align", "bitwidth", "newly_added"):
        assert not hasattr(entry, name), name
    with pytest.raises(TypeError, match="raw files hold no L2 addresses"):
        raw.placed(ref)
    with pytest.raises(TypeError, match="raw files hold no documented workloads"):
        raw.documented(ref)
    documented = _index(DOCUMENTED)
    with pytest.raises(TypeError, match="documented files hold no raw workloads"):
        documented.raw(next(documented.workloads()))


def test_allocated_entries_are_placed_in_bytes_and_numbered() -> None:
    document = json.loads(ALLOC.read_bytes())
    index = _index(ALLOC)
    core = next(iter(index.cores))
    refs = index.cores[core]
    placed = index.placed(refs[1])
    written = document[str(core)][1]["buffer"]
    assert all((model_of(e) or type(e)) is AllocBufferEntry for e in placed)
    assert [e.address for e in placed] == [b["address"] * 1024 for b in written]
    assert [e.size for e in placed] == [b["block"] * 1024 for b in written]
    assert all(e.tensor_id >= 0 for ref in refs for e in index.placed(ref))


def test_no_required_field_of_a_loaded_model_holds_none() -> None:
    """The documented models of a real file hold what their types say (None only where Optional)."""
    index = _index(DOCUMENTED)
    ir = index.ir
    assert isinstance(ir, SchedulerIR)
    fields = BufferEntry.__pydantic_fields__  # type: ignore[attr-defined]
    required = [name for name, info in fields.items() if info.is_required()]
    assert {"tensor_id", "address", "size", "align", "bitwidth"} <= set(required)
    for ref in index.workloads():
        assert is_model(ref.workload, Workload)
        for entry in ref.workload.buffer:
            for name in required:
                assert getattr(entry, name) is not None, name


def test_a_broken_top_level_loads_as_a_partial_ir_with_none_only_where_it_broke() -> None:
    document: dict[str, Any] = json.loads(RAW.read_bytes())
    document["xlen"] = -2
    loaded = load_ir(json.dumps(document).encode(), "broken.json")
    assert isinstance(loaded.ir, PartialIR)
    assert loaded.ir.xlen is None and loaded.ir.ylen == document["ylen"]
    assert all(is_model(w, RawWorkload) for ws in loaded.ir.cores.values() for w in ws)
    assert any(f.code == "GIR101" and f.pointer == "/xlen" for f in loaded.findings)
