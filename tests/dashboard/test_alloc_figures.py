"""Figures for alloc-dialect files: the documented L2 address map, against the L2 size the user gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards.views import core_maps
from irtools.analysis import analyze
from irtools.analysis.analysis import AnalysisOptions

ALLOC_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "gemini-alloc"


@pytest.mark.skipif(not ALLOC_DIR.is_dir(), reason="../shared/fixtures not present")
def test_alloc_map_draws_tensors_at_their_addresses_and_the_given_end() -> None:
    # resnet 2x2 at 512 KB: core 2's addresses reach 788 blocks, past the end line.
    a = analyze(ALLOC_DIR / "resnet_2x2_b1_alloc.json", AnalysisOptions(l2_size=512 * 1024))
    fig, wl0 = core_maps(a, 2)
    assert not [t for t in fig.data if getattr(t, "stackgroup", None)]  # rectangles, not block-count areas
    ends = [s for s in fig.layout.shapes if s.y0 == s.y1 == 512 * 1024]
    assert ends, "the user's L2 size is drawn as the buffer end"
    tensors = a.tensors[a.tensors.core_id == 2]
    assert int((tensors.address + tensors["size"]).max()) == 788 * 1024
    assert not tensors.wraps.any() and not tensors.overlaps.any()
    assert tensors.problem.notna().sum() > 0  # the ones past 512 KiB say so
    assert wl0 is None  # the dialect has no WL0: no panel rather than an empty one saying so
