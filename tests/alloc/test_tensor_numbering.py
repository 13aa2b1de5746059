"""The allocator's tensor numbering (irtools.dialects.alloc.dialect.number_tensors): an entry identical to
one of the previous snapshot, but for the two keys the allocator wrote (`address`, `start_loading`), is
the same tensor; any other difference, down to one field of one source, makes a new tensor."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest
from pydantic import TypeAdapter

from irtools.dialects.alloc.dialect import number_tensors
from irtools.dialects.alloc.models import AllocBufferEntry
from irtools.loading.fast_types import struct_for

SOURCE = {
    "type": "core",
    "id": 6,
    "transfer_id": 11,
    "size": 256,
    "lower": [0, 0, 0, 0],
    "upper": [0, 3, 1, 1],
}
IFMAP = {
    "type": "ifmap",
    "layer": "conv2",
    "block": 1,
    "lower": [0, 0, 0, 0],
    "upper": [0, 3, 1, 1],
    "workload_id": 4,
    "source": [dict(SOURCE, layer_name="conv1", channel=[0, 3])],
    "transfer_id": [11],
    "address": 3,
    "start_loading": True,
}
WEIGHT = {
    "type": "weight",
    "layer": "conv2",
    "block": 2,
    "lower": 0,
    "upper": 7,
    "source": [dict(SOURCE, type="DRAM", id=0, transfer_id=12, lower=0, upper=7)],
    "transfer_id": [[12]],
    "address": 5,
    "start_loading": True,
}


def _changed(entry: dict[str, Any], **changes: Any) -> dict[str, Any]:
    changed = copy.deepcopy(entry)
    changed.update(changes)
    return changed


def _source_changed(entry: dict[str, Any], **changes: Any) -> dict[str, Any]:
    changed = copy.deepcopy(entry)
    changed["source"][0].update(changes)
    return changed


def _numbers(snapshots: list[list[dict[str, Any]]], read: str) -> list[list[int]]:
    """The tensor numbers of one core's snapshots, its entries read as the decoder's Structs or the models."""

    def entry(data: dict[str, Any]) -> Any:
        if read == "msgspec":
            return msgspec.json.decode(json.dumps(data), type=struct_for(AllocBufferEntry))
        return TypeAdapter(AllocBufferEntry).validate_python(data)

    workloads = [
        SimpleNamespace(workload_id=i, layer_name="conv2", buffer=[entry(e) for e in snap])
        for i, snap in enumerate(snapshots)
    ]
    number_tensors(SimpleNamespace(cores={"1": workloads}, dram=SimpleNamespace(in_=[])))  # type: ignore[arg-type]
    return [[e.tensor_id for e in w.buffer] for w in workloads]


@pytest.mark.parametrize("read", ["msgspec", "models"])
def test_only_the_allocators_keys_may_differ_within_one_tensor(read: str) -> None:
    snapshots = [
        [IFMAP, WEIGHT],
        # moved and no longer loading: still the same two tensors
        [_changed(IFMAP, address=9, start_loading=False), _changed(WEIGHT, address=0)],
        # one field of one source differs (its channel), and a weight bound written as a box, not as K
        [_source_changed(IFMAP, channel=[0, 4]), _changed(WEIGHT, lower=[0, 0, 0, 0])],
        # the weight's ids written flat, not nested; the ifmap as two snapshots ago is not the previous one
        [_changed(WEIGHT, transfer_id=[12]), IFMAP],
    ]
    assert _numbers(snapshots, read) == [[0, 1], [0, 1], [2, 3], [4, 5]]


@pytest.mark.parametrize("read", ["msgspec", "models"])
def test_equal_entries_in_one_snapshot_are_one_tensor(read: str) -> None:
    # The parser keys one snapshot's entries by the entry: a repeated entry is the same tensor.
    assert _numbers([[IFMAP, _changed(IFMAP, address=1), WEIGHT]], read) == [[0, 0, 1]]


@pytest.mark.parametrize("read", ["msgspec", "models"])
def test_a_source_key_written_null_or_left_out_is_the_same_tensor(read: str) -> None:
    # Both read as None (the models' default), in the decoded Structs as in the models, so the entries
    # compare equal whether the file wrote the key or not.
    bare = copy.deepcopy(IFMAP)
    del bare["source"][0]["layer_name"], bare["source"][0]["channel"]
    written_null = _source_changed(bare, layer_name=None, channel=None)
    renamed = _source_changed(bare, layer_name="conv0")
    assert _numbers([[bare], [written_null], [renamed]], read) == [[0], [0], [1]]
