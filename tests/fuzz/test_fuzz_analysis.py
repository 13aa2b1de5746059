"""Bad input never breaks `analyze`, the trace export or the dashboard's loading and figures.

Same mutated inputs as the validate fuzzing: the analysis must either refuse the file with
AnalysisError (not an IR at all) or produce every table with its declared columns; the figure
builders must draw whatever the tables hold.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboards.data import load_entry
from dashboards.figures import occupancy_figure
from dashboards.timeline import timeline_figure
from irtools.analysis import TABLES, AnalysisError
from irtools.analysis.summary import summarize
from irtools.analysis.trace import chrome_trace
from tests.budget import examples
from tests.fuzz import mutators as M

SAMPLES = M.sample_bases()


def analyzes_or_refuses(data: bytes) -> None:
    try:
        entry = load_entry(data, "fuzz.json")
    except AnalysisError:
        return
    a = entry.analysis
    for name, frame in a.tables().items():
        assert list(frame.columns) == [c.name for c in TABLES[name].columns], name
    summarize(a).render()
    json.dumps(chrome_trace(a))
    for model in ("sequential", "dependency"):
        timeline_figure(a.timeline, model, core_transfers=a.core_transfers).to_json()
    for core in list(a.index.cores)[:2]:
        occupancy_figure(a.tensors, a.l2_occupancy, core_id=core, capacity=a.buffersize).to_json()
        occupancy_figure(a.wl0_tensors, a.wl0_occupancy, core_id=core, capacity=None, kind="WL0").to_json()


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(SAMPLES), st.randoms(use_true_random=False))
def test_mutated_samples_analyze(base: Path, rng: random.Random) -> None:
    data, _log = M.generate(M.base_bytes(base), rng, damage=0.1)
    analyzes_or_refuses(data)


@settings(
    max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_mutated_real_fixture_slices_analyze(fixtures_dir: Path, data: st.DataObject) -> None:
    path, window = data.draw(st.sampled_from(M.fixture_bases(fixtures_dir)))
    rng = data.draw(st.randoms(use_true_random=False))
    raw, _log = M.generate(M.base_bytes(path, window), rng, damage=0.05)
    analyzes_or_refuses(raw)


@settings(max_examples=examples(60), deadline=None)
@given(st.binary(max_size=500))
def test_arbitrary_bytes_are_refused_cleanly(data: bytes) -> None:
    analyzes_or_refuses(data)


def test_regression_a_core_with_no_tensors_draws_an_empty_map() -> None:
    # Every buffer entry of the core broke the schema: the map had no rows to split into segments.
    doc = json.loads((M.SAMPLE).read_text())
    for w in doc["0"]:
        for b in w["buffer"]:
            b["address"] = True
    entry = load_entry(json.dumps(doc).encode(), "x.json")
    a = entry.analysis
    fig = occupancy_figure(a.tensors, a.l2_occupancy, core_id=0, capacity=a.buffersize)
    assert not [t for t in fig.data if t.type == "bar"]


def test_regression_unknown_buffersize_is_said_not_divided_by() -> None:
    # buffersize broke the schema (a string), so the partial IR has none: summaries divided by None.
    doc = json.loads((M.SAMPLE).read_text())
    doc["buffersize"] = "1MB"
    a = load_entry(json.dumps(doc).encode(), "x.json").analysis
    assert a.buffersize is None
    assert "L2 size unknown" in summarize(a).render()
    assert a.layers.peak_l2_fraction.isna().all()
    # Occupancy is measured against the highest address in use instead.
    assert (a.l2_occupancy.free_bytes >= 0).all()


def test_regression_buffersize_past_int64_is_unknown_not_an_overflow() -> None:
    # Found by the fuzzer: GIR101 rejected a 10**300 buffersize, but the partial IR kept it and the
    # occupancy table overflowed int64 (OverflowError from pandas).
    doc = json.loads((M.SAMPLE).read_text())
    doc["buffersize"] = 10**300
    a = load_entry(json.dumps(doc).encode(), "x.json").analysis
    assert a.buffersize is None
    assert (a.l2_occupancy.free_bytes >= 0).all()
