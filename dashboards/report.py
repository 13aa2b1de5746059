"""`irtools report`: one self-contained HTML file with the dashboard's figures and the findings."""

from __future__ import annotations

import html
import math
from pathlib import Path

import pandas as pd
import plotly.io as pio

from dashboards.data import FINDING_COLUMNS, load_entry
from dashboards.measured import load_measured
from dashboards.measured_report import report_section
from dashboards.timeline import timeline_figure
from dashboards.views import core_maps
from irtools.analysis.summary import summarize
from irtools.atomic import write_text_atomic

MAX_FINDING_ROWS = 5000

_STYLE = """
body { font-family: sans-serif; margin: 16px 24px; color: #222; max-width: 1500px; }
pre { background: #f6f6f6; padding: 10px; border-radius: 6px; }
table { border-collapse: collapse; font-size: 13px; width: 100%; }
th, td { border: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
tr.error td { background: #fde2e1; } tr.warning td { background: #fff4d6; } tr.info td { background: #eef3fb; }
.maps { display: grid; grid-template-columns: 3fr 2fr; gap: 12px; } .maps > div { min-width: 0; }
"""


def build_report(
    path: str | Path,
    max_cores: int = 16,
    max_bytes: int | None = None,
    wl0_size: int | None = None,
    trace: str | Path | None = None,
) -> tuple[str, str]:
    """The report's HTML and a one-line description of what it holds (with `trace`, the measured part)."""
    name = Path(path).name
    entry = load_entry(path, str(path), wl0_size, max_bytes)
    a = entry.analysis
    parts: list[str] = []
    first = True

    def figure(fig: object) -> str:
        nonlocal first
        out: str = pio.to_html(
            fig, full_html=False, include_plotlyjs=first, config={"displaylogo": False, "responsive": True}
        )
        first = False
        return out

    # Transfer arrows only make sense where consumers wait for producers.
    dependency = timeline_figure(a.timeline, "dependency", core_transfers=a.core_transfers, zoomable=False)
    parts.append(figure(dependency))
    parts.append(figure(timeline_figure(a.timeline, "sequential", zoomable=False)))
    cores = list(a.index.cores)[:max_cores]
    for core in cores:
        l2, wl0 = core_maps(a, core)
        parts.append(f'<div class="maps"><div>{figure(l2)}</div><div>{figure(wl0)}</div></div>')
    measured = load_measured(a, trace) if trace else None
    if measured is not None:
        parts.append(report_section(measured, figure))
    elif trace:
        parts.append(f"<p>{html.escape(str(trace))} holds no instruction: nothing measured to compare.</p>")
    skipped = len(a.index.cores) - len(cores)
    note = f"<p>Occupancy maps of {skipped} more cores left out (--max-cores).</p>" if skipped else ""
    findings = entry.findings
    rows = "".join(
        f'<tr class="{html.escape(str(r.severity))}">'
        + "".join(f"<td>{_cell(getattr(r, c))}</td>" for c in FINDING_COLUMNS)
        + "</tr>"
        for r in findings.head(MAX_FINDING_ROWS).itertuples()
    )
    more = (
        f"<p>{len(findings) - MAX_FINDING_ROWS} more findings not shown.</p>"
        if len(findings) > MAX_FINDING_ROWS
        else ""
    )
    head = "".join(f"<th>{c}</th>" for c in FINDING_COLUMNS)
    body = (
        f"<h1>irtools report: {html.escape(name)}</h1>"
        f"<pre>{html.escape(summarize(a).render())}</pre>"
        f"{''.join(parts)}{note}"
        f"<h2>Findings ({len(findings)})</h2><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{more}"
    )
    page = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>irtools report: {html.escape(name)}</title>'
        f"<style>{_STYLE}</style></head><body>{body}</body></html>\n"
    )
    joined = f", measured trace {Path(trace).name}" if measured is not None and trace else ""
    return page, f"{len(a.index.cores)} cores, {len(cores)} occupancy maps, {len(findings)} findings{joined}"


def _cell(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return html.escape(str(value))


def write_report(
    path: str | Path,
    output: str | Path,
    max_cores: int = 16,
    max_bytes: int | None = None,
    wl0_size: int | None = None,
    trace: str | Path | None = None,
) -> str:
    page, summary = build_report(path, max_cores, max_bytes, wl0_size, trace)
    write_text_atomic(output, page)
    return summary
