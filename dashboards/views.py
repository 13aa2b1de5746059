"""What the dashboard and the report show together: a core's two maps, and the first view of a file."""

from __future__ import annotations

import plotly.graph_objects as go

from dashboards.blocks import blocks_figure
from dashboards.figures import Focus, empty_figure, occupancy_figure
from dashboards.timeline import timeline_figure
from irtools.analysis import Analysis


def core_maps(analysis: Analysis, core_id: int, focus: Focus | None = None) -> tuple[go.Figure, go.Figure]:
    """The L2 and WL0 occupancy maps of one core, with its ring regions (as the dashboard shows them)."""
    a = analysis
    if a.loaded.raw is not None:  # no addresses to draw rectangles with: blocks held over time
        blocks = blocks_figure(
            a.l2_blocks, core_id=core_id, core_label=a.core_label(core_id), capacity_kib=a.l2_capacity_kib
        )
        return blocks, empty_figure("no WL0 snapshot in this file (Gemini's IR before address allocation)")
    regions = a.l2_regions[a.l2_regions["core_id"] == core_id][["region_start", "region_end"]]
    bounds = sorted(set(zip(regions["region_start"].tolist(), regions["region_end"].tolist())))
    l2 = occupancy_figure(
        a.tensors, a.l2_occupancy, core_id=core_id, capacity=a.buffersize, regions=bounds, focus=focus
    )
    wl0 = occupancy_figure(
        a.wl0_tensors, a.wl0_occupancy, core_id=core_id, capacity=a.options.wl0_size, kind="WL0", focus=focus
    )
    return l2, wl0


def first_view(analysis: Analysis) -> list[go.Figure]:
    """What the dashboard draws on opening a file: the dependency timeline and the first core's maps."""
    timeline = timeline_figure(analysis.timeline, "dependency", core_transfers=analysis.core_transfers)
    first_core = next(iter(analysis.index.cores), None)
    return [timeline, *(core_maps(analysis, first_core) if first_core is not None else ())]
