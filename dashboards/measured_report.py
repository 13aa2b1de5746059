"""The report's part on a measured trace: summary, both figures, the longest waits, rollups, findings."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboards.measured import CAVEAT, measured_timeline_figure, slot_figure
from irtools.trace import Measured


def report_section(measured: Measured, figure: Callable[[go.Figure], str]) -> str:
    """The report's part on the trace: summary, both figures, the longest waits, rollups, findings."""
    waits = measured.workloads.sort_values("gap", ascending=False, kind="stable").head(10)
    wait_rows = [
        [
            r.workload_id,
            r.layer_name,
            r.layer_type,
            r.time,
            r.gap,
            r.slot,
            r.dma_queues,
            r.dma_bytes,
            r.critical_wait,
        ]
        for r in waits.itertuples()
        if r.gap == r.gap  # measured workloads only (NaN otherwise)
    ]
    types = measured.layer_types
    queues = measured.queues
    findings = [[f.line, f.code, f.severity.value, f.workload_id, f.message] for f in measured.findings[:200]]
    return (
        f"<p>{html.escape(CAVEAT)}</p>"
        f"<pre>{html.escape(measured.summary().render())}</pre>"
        f"{figure(measured_timeline_figure(measured, zoomable=False))}{figure(slot_figure(measured))}"
        "<h3>Longest waits</h3>"
        + _table(
            [
                "workload_id",
                "layer",
                "type",
                "estimate",
                "gap",
                "slot",
                "DMA active",
                "bytes moved",
                "held by",
            ],
            wait_rows,
        )
        + "<h3>Per layer type</h3>"
        + _table(list(types.columns), types.itertuples(index=False))
        + "<h3>Per hardware queue</h3>"
        + _table(list(queues.columns), queues.itertuples(index=False))
        + f"<h3>Trace findings ({len(measured.findings)})</h3>"
        + (
            _table(["line", "code", "severity", "workload_id", "message"], findings)
            if findings
            else "<p>None.</p>"
        )
    )


def _table(head: list[str], rows: Any) -> str:
    def cell(value: object) -> str:
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
            return ""
        if isinstance(value, float):
            return f"{value:,.3f}"
        if isinstance(value, (int, np.integer)):
            return f"{int(value):,}"
        return html.escape(str(value))

    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"
