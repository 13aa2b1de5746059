"""`irtools report DIR` (or a table from `irtools summarize`): the sweep page as one HTML file.

The same scatter (any numeric column against any other, coloured by a third, with the Pareto front)
and the same table (click a heading to sort, type to filter) with no server: the figure is redrawn in
the browser from the table's data and the Pareto fronts of every pair of columns, computed here. A
click on a point outlines its row in the table.
"""

from __future__ import annotations

import html
import json
from itertools import permutations
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.io as pio

from dashboards.sweep_figure import default_axes, numeric_columns, shown_columns, sweep_scatter
from irtools.sweep.pareto import pareto_front

_STYLE = """
body { font-family: sans-serif; margin: 16px 24px; color: #222; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: left; white-space: nowrap; }
th { background: #f3f3f3; cursor: pointer; position: sticky; top: 0; }
tr.picked td { outline: 2px solid #d62728; background: #fff0f0; }
.controls { display: flex; gap: 12px; align-items: center; font-size: 13px; flex-wrap: wrap; }
.scroll { max-height: 640px; overflow: auto; border: 1px solid #ddd; }
"""

_SCRIPT = """
const data = JSON.parse(document.getElementById('sweep-data').textContent);
const plot = document.querySelector('#sweep-figure .plotly-graph-div');
const pick = id => document.getElementById(id);
function redraw() {
  const x = pick('x').value, y = pick('y').value, c = pick('color').value;
  const rows = data.rows.map((_, i) => i).filter(i => data.cols[x][i] !== null && data.cols[y][i] !== null);
  const front = data.fronts[x + '|' + y] || [];
  const marker = {size: 10, line: {width: 1, color: '#333'}};
  if (c) Object.assign(marker, {color: rows.map(i => data.cols[c][i]), colorscale: 'Viridis', showscale: true,
                                colorbar: {title: {text: c}}});
  Plotly.react(plot, [
    Object.assign({}, plot.data[0], {x: rows.map(i => data.cols[x][i]), y: rows.map(i => data.cols[y][i]),
      text: rows.map(i => data.names[i]), customdata: rows, marker: marker,
      hovertemplate: '%{text}<br>' + x + '=%{x}<br>' + y + '=%{y}' + (c ? '<br>' + c + '=%{marker.color}' : '')
        + '<extra></extra>'}),
    Object.assign({}, plot.data[1], {x: front.map(i => data.cols[x][i]), y: front.map(i => data.cols[y][i])}),
  ], Object.assign(plot.layout, {xaxis: Object.assign(plot.layout.xaxis, {title: {text: x}}),
                                 yaxis: Object.assign(plot.layout.yaxis, {title: {text: y}})}));
}
['x', 'y', 'color'].forEach(id => pick(id).addEventListener('change', redraw));
plot.on('plotly_click', ev => {
  const i = ev.points[0].customdata;
  document.querySelectorAll('tr.picked').forEach(r => r.classList.remove('picked'));
  const row = document.querySelector('tr[data-row="' + i + '"]');
  if (row) { row.classList.add('picked'); row.scrollIntoView({block: 'center'}); }
});
const body = document.querySelector('#sweep-table tbody');
document.querySelectorAll('#sweep-table th').forEach((th, col) => th.addEventListener('click', () => {
  const up = th.dataset.dir !== 'up'; th.dataset.dir = up ? 'up' : 'down';
  const key = r => { const t = r.children[col].textContent; const n = parseFloat(t);
                     return t === '' ? null : (isNaN(n) || String(n) !== t.trim() ? t : n); };
  const rows = Array.from(body.rows).sort((a, b) => {
    const p = key(a), q = key(b);
    if (p === null || q === null) return (p === null) - (q === null);
    return (p < q ? -1 : p > q ? 1 : 0) * (up ? 1 : -1);
  });
  rows.forEach(r => body.appendChild(r));
}));
redraw();
pick('filter').addEventListener('input', ev => {
  const words = ev.target.value.toLowerCase().split(/\\s+/).filter(Boolean);
  Array.from(body.rows).forEach(r => { const t = r.textContent.toLowerCase();
    r.style.display = words.every(w => t.includes(w)) ? '' : 'none'; });
});
"""


def read_sweep_table(path: str | Path) -> pd.DataFrame:
    """A table written by `irtools summarize` (CSV or Parquet)."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        return pd.read_parquet(p)
    return pd.read_csv(p, keep_default_na=False, na_values=[""])


def build_sweep_report(table: pd.DataFrame, title: str) -> str:
    """The sweep report's HTML."""
    table = table.reset_index(drop=True)
    columns = shown_columns(table)
    numeric = numeric_columns(table[columns])
    x, y, color = default_axes(table[columns])
    figure = pio.to_html(
        sweep_scatter(table, x, y, color),
        full_html=False,
        include_plotlyjs=True,
        div_id="sweep-plot",
        config={"displaylogo": False, "responsive": True},
    )
    data = {
        "rows": list(range(len(table))),
        "names": [str(p).rsplit("/", 1)[-1] for p in table["path"]],
        "cols": {c: _values(table[c]) for c in numeric},
        "fronts": {
            f"{a}|{b}": [table.index.get_loc(i) for i in pareto_front(table, a, b)]
            for a, b in permutations(numeric, 2)
        },
    }
    ok = int((table["status"] == "ok").sum()) if "status" in table else len(table)

    def select(name: str, chosen: str | None, blank: bool = False) -> str:
        options = ['<option value="">(none)</option>'] if blank else []
        options += [
            f'<option value="{html.escape(c)}"{" selected" if c == chosen else ""}>{html.escape(c)}</option>'
            for c in numeric
        ]
        return f'<select id="{name}">{"".join(options)}</select>'

    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        f'<tr data-row="{i}">' + "".join(f"<td>{_cell(row[c])}</td>" for c in columns) + "</tr>"
        for i, (_, row) in enumerate(table.iterrows())
    )
    # "</" cannot close the script element from inside the JSON: strings from the table are escaped.
    payload = json.dumps(data, allow_nan=False).replace("</", "<\\/")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>irtools sweep: {html.escape(title)}</title>
<style>{_STYLE}</style></head><body>
<h1>Sweep: {html.escape(title)}</h1>
<p>{len(table)} rows ({ok} analyzed). Choose the axes; the red line joins the Pareto front (runs no other run
beats on both axes, both minimized). Click a point to find its row; click a heading to sort, type to filter.</p>
<div class="controls">x {select("x", x)} y {select("y", y)} colour {select("color", color, blank=True)}</div>
<div id="sweep-figure">{figure}</div>
<div class="controls"><input id="filter" placeholder="filter rows (words)" size="40"></div>
<div class="scroll"><table id="sweep-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>
<script type="application/json" id="sweep-data">{payload}</script>
<script>{_SCRIPT}</script>
</body></html>
"""


def _values(series: pd.Series) -> list[Any]:
    return [None if pd.isna(v) else (int(v) if float(v).is_integer() else float(v)) for v in series]


def _cell(value: Any) -> str:
    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else html.escape(str(value))


def write_sweep_report(path: str | Path, output: str | Path, max_bytes: int | None = None) -> str:
    """Write the report of a directory (computed with the result cache) or of a summarize table."""
    from irtools.atomic import write_text_atomic
    from irtools.sweep.directory import directory_table

    source = Path(path)
    table = directory_table(source, max_bytes) if source.is_dir() else read_sweep_table(source)
    write_text_atomic(output, build_sweep_report(table, source.name))
    return f"sweep of {len(table)} rows, {len(numeric_columns(table))} numeric columns"
