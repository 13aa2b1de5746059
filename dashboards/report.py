"""`irtools report`: one self-contained HTML file with the dashboard's figures and the findings."""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.io as pio

from dashboards.data import FINDING_COLUMNS, Entry, load_entry
from dashboards.measured import load_measured
from dashboards.measured_report import report_section
from dashboards.mesh import mesh_view
from dashboards.timeline import ARROWS_BY_DEFAULT, plural, timeline_figure
from dashboards.views import core_maps
from irtools.analysis import Analysis
from irtools.analysis.link_cost import ranked_links
from irtools.analysis.noc import NocModel
from irtools.analysis.selection import cores_that_matter, cores_under
from irtools.analysis.summary import models_agree, summarize
from irtools.analysis.tiles import mesh_shape
from irtools.analysis.units import format_bytes
from irtools.atomic import write_text_atomic
from irtools.loading.dropping import FieldDropped

MAX_FINDING_ROWS = 5000

_STYLE = """
body { font-family: sans-serif; margin: 16px 24px; color: #222; max-width: 1500px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
table.findings { width: 100%; }
tr.error td { background: #fde2e1; } tr.warning td { background: #fff4d6; } tr.info td { background: #eef3fb; }
.maps { display: grid; grid-template-columns: 3fr 2fr; gap: 12px; } .maps > div { min-width: 0; }
nav ul { columns: 4 12em; margin: 4px 0; } nav li { font-size: 13px; }
.bar { display: inline-block; width: 80px; height: 7px; background: #e5e5e5; vertical-align: middle; }
.bar > span { display: block; height: 100%; background: #4C78A8; }
td.num { text-align: right; } tr.bottleneck td { font-weight: 600; }
"""


def build_report(
    path: str | Path | bytes,
    max_cores: int = 16,
    max_bytes: int | None = None,
    wl0_size: int | None = None,
    trace: str | Path | None = None,
    noc: NocModel | None = None,
    l2_size: int | None = None,
    name: str | None = None,
) -> tuple[str, str]:
    """The report's HTML and a one-line description of what it holds (with `trace`, the measured part).
    `path` may be a stream's bytes, read whole, `name` saying what they were (`-`).

    With `noc`, a timeline under the noc model (the scheduler's latency) follows the dependency one."""
    shown = name or str(path)
    title = shown if isinstance(path, bytes) else Path(path).name
    entry = load_entry(path, shown, wl0_size, max_bytes, l2_size=l2_size, noc=noc)
    try:
        return _page(entry, title, max_cores, trace)
    except FieldDropped:
        # A section read what the streamed load let go (none should, as no dashboard view does): the
        # page is built again from the file read whole, as the dashboard draws such a view.
        entry.read_whole()
        return _page(entry, title, max_cores, trace)


def _page(entry: Entry, name: str, max_cores: int, trace: str | Path | None) -> tuple[str, str]:
    a = entry.analysis
    first = True

    def figure(fig: object) -> str:
        nonlocal first
        out: str = pio.to_html(
            fig, full_html=False, include_plotlyjs=first, config={"displaylogo": False, "responsive": True}
        )
        first = False
        return out

    sections: list[tuple[str, str, str]] = []  # (anchor, heading, body)
    sections.append(("summary", "Summary", _summary(a)))
    # Transfer arrows only make sense where consumers wait for producers; thousands hide the bars.
    arrows = a.core_transfers if len(a.core_transfers) <= ARROWS_BY_DEFAULT else None
    dependency = timeline_figure(
        a.timeline, "dependency", core_transfers=arrows, zoomable=False, wait_cycles=a.wait_cycles
    )
    if models_agree(a):
        note = "<p>Both timing models give the same schedule (no core waits for another): one timeline.</p>"
        sections.append(("timeline", "Timeline", note + figure(dependency)))
    else:
        sections.append(("timeline-dependency", "Timeline (dependency model)", figure(dependency)))
        sequential = timeline_figure(a.timeline, "sequential", zoomable=False)
        sections.append(("timeline-sequential", "Timeline (sequential model)", figure(sequential)))
    if a.noc_model is not None:
        noc = timeline_figure(
            a.timeline, "noc", core_transfers=arrows, zoomable=False, wait_cycles=a.wait_cycles
        )
        title = f"Timeline (noc model, {a.noc_model.bandwidth} B/cycle per link)"
        sections.append(("timeline-noc", title, figure(noc)))
    if mesh_shape(a.index) is not None:
        sections.append(("mesh", "Mesh and NoC links", figure(mesh_view(a)) + _busiest_links(a)))
    s = summarize(a, links=False)
    busy = cores_under(a.cores, "dependency").set_index("core_id")["busy"].astype(int).to_dict()
    chosen = cores_that_matter(busy, s.peak_l2, max_cores)
    skipped = len(a.index.cores) - len(chosen)
    intro = (
        f"<p>Occupancy maps of {len(chosen)} of {len(a.index.cores)} cores: the busiest and those with the "
        f"highest L2 peaks, in turn; the other {skipped} are left out (--max-cores).</p>"
        if skipped
        else ""
    )
    for n, (core, why) in enumerate(chosen):
        l2, wl0 = core_maps(a, core)
        head = intro if n == 0 else ""
        if wl0 is None:  # the dialect has no WL0: no panel saying so on every core
            body = f"{head}<div>{figure(l2)}</div>"
            title = f"{a.core_label(core).capitalize()}: L2 occupancy"
        else:
            body = f'{head}<div class="maps"><div>{figure(l2)}</div><div>{figure(wl0)}</div></div>'
            title = f"{a.core_label(core).capitalize()}: L2 and WL0 occupancy"
        sections.append((f"core-{core}", title + (f" ({why})" if why else ""), body))
    measured = load_measured(a, trace) if trace else None
    if measured is not None:
        title = f"Estimated vs measured: {Path(measured.trace.path).name}"
        sections.append(("measured", title, report_section(measured, figure)))
    elif trace:
        empty = f"<p>{html.escape(str(trace))} holds no instruction: nothing measured to compare.</p>"
        sections.append(("measured", "Estimated vs measured", empty))
    findings = entry.findings
    findings_body = _findings(findings)
    sections.append(("findings", f"Findings ({len(findings):,})", findings_body))
    toc = "".join(f'<li><a href="#{anchor}">{html.escape(title)}</a></li>' for anchor, title, _ in sections)
    body = f"<h1>irtools report: {html.escape(name)}</h1><nav><ul>{toc}</ul></nav>" + "".join(
        f'<h2 id="{anchor}">{html.escape(title)}</h2>{part}' for anchor, title, part in sections
    )
    page = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>irtools report: {html.escape(name)}</title>'
        f"<style>{_STYLE}</style></head><body>{body}</body></html>\n"
    )
    joined = f", measured trace {Path(trace).name}" if measured is not None and trace else ""
    return page, f"{len(a.index.cores)} cores, {len(chosen)} occupancy maps, {len(findings)} findings{joined}"


def _summary(a: Analysis) -> str:
    """The headline numbers, and per core its busy share of each model's makespan and peak L2:
    a table, which wraps no line however many cores."""
    s = summarize(a)
    size = format_bytes(s.buffersize) if s.buffersize else "size unknown"
    lines = [f"{plural(s.cores, 'core')}, {plural(s.workloads, 'workload')}, L2 {size}"]
    for model, value in s.makespan.items():
        lines.append(
            f"makespan ({model}): "
            + (
                f"{value:,} cycles"
                if value is not None
                else f"none ({s.unscheduled} workloads unschedulable)"
            )
        )
    lines.append(
        f"DRAM: read {format_bytes(s.dram_read_weight + s.dram_read_fmap)} "
        f"(weight {format_bytes(s.dram_read_weight)}, fmap {format_bytes(s.dram_read_fmap)}), "
        f"write {format_bytes(s.dram_write)}"
    )
    bottleneck = s.balance.bottleneck if s.balance else None
    if s.balance is not None and s.balance.cores > 1:
        lines.append(s.balance.text(a.core_label(s.balance.busiest)))
    head = "<tr><th>core</th>" + "".join(f"<th>busy ({m})</th>" for m in a.models) + "<th>peak L2</th></tr>"
    rows = []
    for core in a.index.cores:
        cells = []
        for model in a.models:
            row = a.cores[(a.cores["model"] == model) & (a.cores["core_id"] == core)]
            share = float(row["utilization"].iloc[0]) if len(row) else float("nan")
            cells.append(
                "<td>n/a</td>"
                if math.isnan(share)
                else f'<td><span class="bar"><span style="width:{min(share, 1) * 100:.0f}%"></span></span> '
                f"{share:.0%}</td>"
            )
        peak = s.peak_l2.get(core)
        peak_text = "n/a" if peak is None else format_bytes(peak)
        if peak is not None and s.buffersize:
            peak_text += f" ({peak / s.buffersize:.0%})"
        mark = ' class="bottleneck"' if core == bottleneck else ""
        label = html.escape(a.core_label(core)) + (" (bottleneck)" if core == bottleneck else "")
        rows.append(f'<tr{mark}><td>{label}</td>{"".join(cells)}<td class="num">{peak_text}</td></tr>')
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return f"<ul>{items}</ul><table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def _busiest_links(a: Analysis, count: int = 10) -> str:
    """The links that cost most (NoC cycles added, with --noc-bw) or carry most bytes, as a table (all of
    them: `irtools analyze` writes noc_links). No busy column without a NoC bandwidth: it would be empty."""
    links, rank_by = ranked_links(a.noc_link_table, a.link_costs("noc") if a.noc_model else None)
    if links.empty:
        return "<p>No NoC traffic.</p>"
    cost = rank_by == "cycles added"
    names = ("link", *(("NoC cycles added", "layers bound") if cost else ()), "bytes", "core to core")
    names += ("DRAM read", "DRAM write", "transfers", *(("busy",) if cost else ()))
    head = "".join(f"<th>{h}</th>" for h in names)

    def row(r: Any) -> str:
        numbers = (r.added_cycles, r.bound_layers) if cost else ()
        numbers += (r.bytes, r.core_bytes, r.dram_read_bytes, r.dram_write_bytes, r.transfers)
        cells = "".join(f'<td class="num">{int(v):,}</td>' for v in numbers)
        busy = f'<td class="num">{r.busy_share:.0%}</td>' if cost else ""
        return f"<tr><td>{html.escape(str(r.link))}</td>{cells}{busy}</tr>"

    shown = min(count, len(links))
    what = (
        f"the {shown} costliest of {len(links)} directed links by the NoC cycles they add at "
        f"{a.options.noc_bw} B/cycle (busy: share of the dependency makespan)"
        if cost
        else f"the {shown} busiest of {len(links)} directed links by bytes (--noc-bw ranks them by the NoC cycles they add)"
    )
    rows = "".join(row(r) for r in links.head(count).itertuples())
    return f"<p>{what[0].upper() + what[1:]}.</p><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _findings(findings: pd.DataFrame) -> str:
    if findings.empty:
        return "<p>No findings: the checker reports nothing for this file.</p>"
    rows = "".join(
        f'<tr class="{html.escape(str(r.severity))}">'
        + "".join(f"<td>{_cell(getattr(r, c))}</td>" for c in FINDING_COLUMNS)
        + "</tr>"
        for r in findings.head(MAX_FINDING_ROWS).itertuples()
    )
    more = (
        f"<p>{len(findings) - MAX_FINDING_ROWS:,} more findings not shown (irtools validate lists them all).</p>"
        if len(findings) > MAX_FINDING_ROWS
        else ""
    )
    head = "".join(f"<th>{c}</th>" for c in FINDING_COLUMNS)
    return f'<table class="findings"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{more}'


def _cell(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return html.escape(str(value))


def write_report(
    path: str | Path | bytes,
    output: str | Path,
    max_cores: int = 16,
    max_bytes: int | None = None,
    wl0_size: int | None = None,
    trace: str | Path | None = None,
    noc: NocModel | None = None,
    l2_size: int | None = None,
    name: str | None = None,
) -> str:
    """Write the static HTML report of one IR (figures, summary table, findings) and say what it holds."""
    page, summary = build_report(path, max_cores, max_bytes, wl0_size, trace, noc, l2_size, name)
    write_text_atomic(output, page)
    return summary
