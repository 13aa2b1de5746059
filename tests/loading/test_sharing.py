"""The typed decoder's Structs share equal coordinates and strings as the models' validators make them
share: on Gemini files that is a third of the loaded file's memory."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import msgspec
import pytest

from irtools.loading import decoder
from irtools.loading.load import load_ir
from irtools.loading.sharing import PLANS
from tests.loading.test_decoder import DOCS


def _values(root: Any) -> tuple[list[Any], list[Any]]:
    """Every coordinate list and every string the sharing plans name, found by walking the Structs."""
    coordinates: list[Any] = []
    strings: list[Any] = []
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, (list, tuple)):
            pending.extend(node)
        elif isinstance(node, dict):
            pending.extend(node.values())
        elif isinstance(node, msgspec.Struct):
            plan = PLANS[type(node)]
            coordinates += [v for v in map(node.__getattribute__, plan.coordinates) if type(v) is list]
            strings += [v for v in map(node.__getattribute__, plan.strings) if type(v) is str]
            pending += [getattr(node, name) for name in plan.nested]
    return coordinates, strings


@pytest.mark.parametrize("dialect", sorted(DOCS))
def test_equal_coordinates_are_one_list_and_equal_names_one_string(dialect: str) -> None:
    with mock.patch.object(decoder, "enabled", return_value=True):
        loaded = load_ir(json.dumps(DOCS[dialect]).encode(), "x.json")
    assert loaded.ir is not None
    cores = list(loaded.ir.cores.values())
    assert type(cores[0][0]).__module__ == "irtools.loading.fast_types"  # the typed decoder read it
    coordinates, strings = _values(cores)
    assert len(coordinates) > 3 * len({tuple(c) for c in coordinates})  # the synth file repeats them
    assert len({id(c) for c in coordinates}) == len({tuple(c) for c in coordinates})
    assert len({id(s) for s in strings}) == len(set(strings))


def test_the_plans_name_what_the_models_share() -> None:
    """A raw source's bounds (a list, or an int for a weight's channels) and its layer; a raw workload's
    own tensors and entries reached through their fields."""
    with mock.patch.object(decoder, "enabled", return_value=True):
        load_ir(json.dumps(DOCS["raw"]).encode(), "x.json")
    plans = {kind.__name__: plan for kind, plan in PLANS.items()}
    assert plans["RawSource"].coordinates == ["lower_as_written", "upper_as_written"]
    assert plans["RawSource"].strings == ["layer_name"]
    assert plans["RawBufferEntry"].strings == ["layer"]
    assert set(plans["RawWorkload"].nested) == {"waits", "buffer_as_read", "ofmap", "weight"}
