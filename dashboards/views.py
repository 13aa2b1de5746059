"""What the dashboard and the report show together: a core's two maps, and the first view of a file."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboards.blocks import blocks_figure
from dashboards.figures import Focus, occupancy_figure
from dashboards.timeline import ARROWS_BY_DEFAULT, timeline_figure
from irtools.analysis import Analysis
from irtools.analysis.selection import of_core
from irtools.analysis.spans import with_cycles
from irtools.dialects.base import Capability


def core_maps(
    analysis: Analysis,
    core_id: int,
    focus: Focus | None = None,
    *,
    model: str = "dependency",
    cycles: bool = True,
    window: tuple[float, float] | None = None,
) -> tuple[go.Figure, go.Figure | None]:
    """The L2 and WL0 occupancy maps of one core, with its ring regions (as the dashboard shows them);
    no WL0 map (None) for a file whose dialect has no WL0 snapshot, rather than an empty panel saying so.

    With `cycles`, x is the cycles of `model` (the timeline's axis), `window` the range shown;
    otherwise the workload position on the core.
    """
    a = analysis
    if not a.index.has(
        Capability.L2_ADDRESSES
    ):  # no addresses to draw rectangles with: blocks held over time
        held = of_core(a.l2_blocks, core_id)
        makespan = a.timeline.loc[a.timeline["model"] == model, "end"].max()
        blocks = blocks_figure(
            with_cycles(held, of_core(a.timeline, core_id), model, "position", "position")
            if cycles
            else held,
            core_id=core_id,
            core_label=a.core_label(core_id),
            capacity_kib=a.l2_capacity_kib,
            cycles=model if cycles else None,
            window=window,
            x_extent=None if pd.isna(makespan) else float(makespan),
        )
        return blocks, None
    regions = of_core(a.l2_regions, core_id)[["region_start", "region_end"]]
    bounds = sorted(set(zip(regions["region_start"].tolist(), regions["region_end"].tolist())))
    tensors, l2, wl0_tensors, wl0 = a.tensors, a.l2_occupancy, a.wl0_tensors, a.wl0_occupancy
    if cycles:
        mine = of_core(a.timeline, core_id)
        tensors = with_cycles(of_core(tensors, core_id), mine, model)
        wl0_tensors = with_cycles(of_core(wl0_tensors, core_id), mine, model)
        l2 = with_cycles(of_core(l2, core_id), mine, model, "position", "position")
        wl0 = with_cycles(of_core(wl0, core_id), mine, model, "position", "position")
    makespan = a.timeline.loc[a.timeline["model"] == model, "end"].max()
    options = {
        "core_id": core_id,
        "focus": focus,
        "cycles": cycles,
        "window": window,
        "x_extent": None if pd.isna(makespan) else float(makespan),
    }
    extent = a.wl0_tensors["address"] + a.wl0_tensors["size"]
    wl0_top = int(extent.max()) if len(extent) else None  # all cores' maps on one scale
    l2_map = occupancy_figure(tensors, l2, capacity=a.buffersize, regions=bounds, **options)  # type: ignore[arg-type]
    if not a.index.has(Capability.WL0):
        return l2_map, None
    return (
        l2_map,
        occupancy_figure(
            wl0_tensors,
            wl0,
            capacity=a.options.wl0_size,
            kind="WL0",
            axis_top=wl0_top,
            **options,  # type: ignore[arg-type]
        ),
    )


def first_view(analysis: Analysis) -> list[go.Figure]:
    """What the dashboard draws on opening a file: the dependency timeline and the first core's maps."""
    timeline = timeline_figure(
        analysis.timeline,
        "dependency",
        core_transfers=analysis.core_transfers if len(analysis.core_transfers) <= ARROWS_BY_DEFAULT else None,
        wait_cycles=analysis.wait_cycles,
    )
    first_core = next(iter(analysis.index.cores), None)
    maps = core_maps(analysis, first_core) if first_core is not None else ()
    return [timeline, *(m for m in maps if m is not None)]
