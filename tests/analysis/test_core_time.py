"""Where each core's time goes under the noc model: computing apart from stalled on the NoC (issue 29: 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from irtools.analysis import analyze
from irtools.analysis.core_time import core_time_split
from irtools.options import RunOptions

VGG = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"
pytestmark = pytest.mark.skipif(not VGG.is_file(), reason="../shared/fixtures not present")


@pytest.fixture(scope="module")
def vgg_at_8():  # type: ignore[no-untyped-def]
    return analyze(VGG, RunOptions(noc_bw=8))


def test_compute_plus_stall_is_the_cores_tables_busy_and_compute_is_the_irs_time(vgg_at_8) -> None:  # type: ignore[no-untyped-def]
    a = vgg_at_8
    cores = list(a.index.cores)
    split = core_time_split(a.timeline, "noc", cores).set_index("core_id")
    busy = a.cores[a.cores["model"] == "noc"].set_index("core_id")["busy"]
    assert (split["compute"] + split["noc_stall"]).round().astype(int).to_dict() == busy.to_dict()
    # Every core runs all 21 layers: its compute is layer_cost's compute_time, 1,843,751 of T = 1,941,778.
    assert split["compute"].eq(1_843_751).all() and busy.eq(1_941_778).all()
    assert split.loc[1, "compute_share"] == pytest.approx(0.9495, abs=1e-4)
    assert split.loc[1, "noc_stall_share"] == pytest.approx(0.0505, abs=1e-4)


def test_other_models_have_no_stall_and_a_window_cuts_the_time(vgg_at_8) -> None:  # type: ignore[no-untyped-def]
    a = vgg_at_8
    cores = list(a.index.cores)
    assert not core_time_split(a.timeline, "dependency", cores)["noc_stall"].any()
    # conv1 on core 1: computes 0-10,855, then stalls on the NoC until 38,596 (bound by DRAM W1->DRAM W2).
    window = core_time_split(a.timeline, "noc", [1], window=(10_000.0, 20_000.0)).iloc[0]
    assert (window["compute"], window["noc_stall"]) == (855, 9_145)
    assert window["compute_share"] + window["noc_stall_share"] == pytest.approx(1.0)
