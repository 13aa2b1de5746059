"""A bottleneck only when one core is measurably busier; many cores summarized as min / median / max."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from irtools.analysis import analyze
from irtools.analysis.balance import balance, spread_text
from irtools.analysis.summary import summarize

RAW_4X4 = (
    Path(__file__).resolve().parents[3] / "shared/fixtures/gemini-raw/resnet_4x4_b4_ff1_ss2_rr50_ir.json"
)


def _cores(busy: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"model": "dependency", "core_id": range(len(busy)), "busy": busy})


def test_equal_cores_are_balanced_and_one_busier_core_is_the_bottleneck() -> None:
    even = balance(_cores([100, 100, 101, 100]))
    assert even is not None and even.bottleneck is None and even.busiest == 2
    assert even.text("core 2").startswith("balanced: the busiest core, core 2, is busy 1% more")
    uneven = balance(_cores([100, 100, 130, 100]))
    assert uneven is not None and uneven.bottleneck == 2 and round(uneven.margin, 2) == 0.30
    assert balance(_cores([50])).bottleneck is None  # type: ignore[union-attr]


def test_many_cores_print_min_median_max_and_the_top_three() -> None:
    values = {c: 1000 + c for c in range(64)}
    text = spread_text(values, {}, lambda v: f"{v} B")
    assert (
        text == "min 1000 B, median 1031 B, max 1063 B over 64 cores (top: 63 1063 B, 62 1062 B, 61 1061 B)"
    )
    assert spread_text({0: 5, 1: 6}, {0: "a", 1: "b"}, str) == "a: 5, b: 6"


def test_real_4x4_schedule_is_balanced_within_a_tenth_of_a_percent() -> None:
    # 16 cores busy 1,542,981 .. 1,557,533 cycles (median 1,556,765): none stands out.
    s = summarize(analyze(RAW_4X4))
    assert s.balance is not None and s.balance.bottleneck is None
    assert (s.balance.busy_min, s.balance.busy_max) == (1_542_981, 1_557_533)
    text = s.render()
    assert "busy per core: min 1,542,981, median 1,556,765, max 1,557,533 cycles; balanced" in text
    assert "peak L2 per core: min 604 KiB, median 604 KiB, max 612 KiB over 16 cores" in text
