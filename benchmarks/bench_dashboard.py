"""Dashboard speed: figure building, page payload and first view in headless Chromium.

Run: python benchmarks/bench_dashboard.py [--cores 16] [--workloads 800]

Measures (1) the largest real fixture, (2) a synthetic IR with 16 cores and 100k+ tensor
lifetimes (benchmarks/many_tensors.py), (3) an IR with 10,983 findings (benchmarks/many_findings.py)
and (4) a 100 MB `irtools synth` IR on 64 cores: analysis time, figure build time, JSON payload of
the first view, and in the browser the time from selecting the file in the picker until the
timeline and both maps are drawn, and until the first page of its findings is in the table, cold
(loading, analysis and checking included) and warm (the file analyzed and checked already).
Needs /usr/bin/chromium and chromedriver (as the browser tests do).

`--goals` measures issue 18's dashboard goals instead (benchmarks/dashboard_goals.py): the cold
first view of a raw 8x8 67 MB and a 16 MB `irtools synth` file served by `irtools serve`, from server
start until the timeline and the L2 panel are drawn; zoom, core, timing-model and file switches warm;
the server's peak RSS; as ratios to the gc-off JSON parse of the same file. `--before DIR` measures
an older checkout in the same run, `--screenshots DIR` keeps the views, `--profile DIR` records each
server with py-spy (all threads). Run it under the heavy-run lock.

`--mesh` measures the mesh view instead, on the 100 MB 64-core `irtools synth` IR (or `--mesh-file`):
building it (routing every transfer and timing it, the tiles, the figure) cold and for a cycles
window, against a raw `json.loads` of the same file, and in the browser the time from selecting the
file until the mesh is drawn and from a zoom of the timeline until the mesh shows that window.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: the benchmarks package beside irtools

from benchmarks.browser import chromium, free_port
from benchmarks.trees import compiled

SAMPLE = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
FIXTURE = (
    ROOT.parent / "shared" / "fixtures" / "gemini" / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json"
)


def build_figures(path: Path) -> dict[str, float]:
    from dashboards.data import load_entry
    from dashboards.views import first_view

    t0 = time.perf_counter()
    entry = load_entry(path, path.name)
    a = entry.analysis
    a.tables()
    t1 = time.perf_counter()
    core = next(iter(a.index.cores))
    figs = first_view(a)
    t2 = time.perf_counter()
    payload = sum(len(f.to_json()) for f in figs)
    return {
        "findings": len(entry.findings),
        "tensors": len(a.tensors),
        "core0_tensors": int((a.tensors.core_id == core).sum()),
        "workloads": len(a.timeline) // 2,
        "load_analyze_s": t1 - t0,
        "figures_s": t2 - t1,
        "payload_mb": payload / 1e6,
    }


_DRAWN = (
    "return ['timeline', 'l2-map', 'wl0-map'].every(id => {"
    "const g = document.querySelector('#' + id + ' .js-plotly-plot');"
    "return !!(g && g.data && g.data.length > 0 && g.querySelector('.main-svg') && g.data !== (window.__old || {})[id]); });"
)
_REMEMBER = (
    "window.__old = {}; for (const id of ['timeline', 'l2-map', 'wl0-map']) "
    "{ window.__old[id] = document.querySelector('#' + id + ' .js-plotly-plot').data; }"
)


def _findings_shown(total: int) -> str:
    """JS: the findings table shows the first page of `total` findings."""
    return (
        "const n = document.querySelector('#findings-page-note');"
        f"return !!(n && n.textContent.startsWith('rows 1-') && n.textContent.includes(' of {total:,} ('));"
    )


@contextmanager
def served_page(path: Path) -> Iterator[tuple[Any, int]]:
    """`irtools serve` on a folder holding the small sample and a copy of `path` (b_target.json), and a
    headless Chromium driver once the server listens: (driver, port)."""
    with tempfile.TemporaryDirectory() as served:
        # Copies: the dashboard refuses symlinks that lead out of the served directory.
        shutil.copy(SAMPLE, Path(served) / "a_sample.json")
        shutil.copy(path, Path(served) / "b_target.json")
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "irtools", "serve", served, "--port", str(port)],
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        driver = chromium()
        try:
            for _ in range(600):  # a minute: a busy machine starts Python slowly
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            yield driver, port
        finally:
            driver.quit()
            server.terminate()
            server.wait()


def first_view(path: Path, findings: int) -> tuple[float, list[float], list[float | None]]:
    """Seconds until the timeline and both maps are drawn (and until the first page of the file's
    `findings` is in the table; None for a file without findings, whose empty table looks like the
    sample's): opening the page on the small sample, selecting `path` in the file picker (cold:
    loading included), and selecting it again after the sample (warm: loaded, analyzed and checked,
    as when `irtools serve FILE` has loaded it in the background)."""
    from selenium.webdriver.common.by import By

    with served_page(path) as (driver, port):
        start = time.perf_counter()
        driver.get(f"http://127.0.0.1:{port}/")
        _until(driver, _DRAWN, start)
        page = time.perf_counter() - start
        seconds: list[float] = []
        table: list[float | None] = []
        for name in ("b_target", "a_sample", "b_target"):
            driver.execute_script(_REMEMBER)
            driver.find_element(By.ID, "file-select").click()
            driver.find_element(By.CSS_SELECTOR, ".dash-dropdown-search").send_keys(name)
            option = driver.find_element(By.CSS_SELECTOR, ".dash-dropdown-option")
            start = time.perf_counter()
            option.click()
            _until(driver, _DRAWN, start)
            seconds.append(time.perf_counter() - start)
            if name == "b_target" and findings:
                _until(driver, _findings_shown(findings), start)
                table.append(time.perf_counter() - start)
            elif name == "b_target":
                table.append(None)
        return page, [seconds[0], seconds[2]], table


def _until(driver: object, script: str, start: float, *args: object) -> None:
    while not driver.execute_script(script, *args):  # type: ignore[attr-defined]
        if time.perf_counter() - start > 300:
            raise TimeoutError("not drawn within 300 s")
        time.sleep(0.02)


_MESH_DRAWN = (
    "const g = document.querySelector('#mesh .js-plotly-plot');"
    "return !!(g && g.data && g.data.some(t => t.name === 'tiles') && g._fullLayout"
    " && g._fullLayout.title.text.includes(arguments[0]));"
)


def mesh_build(path: Path) -> dict[str, float]:
    """Seconds to build the mesh view in Python (cold: routing included; then for a window), the raw
    json.loads of the file as the yardstick, and the figure's JSON size."""
    import json

    from dashboards.data import load_entry
    from dashboards.mesh import mesh_view

    t0 = time.perf_counter()
    json.loads(path.read_bytes())
    parse = time.perf_counter() - t0
    a = load_entry(path, path.name).analysis
    a.timeline  # noqa: B018 - the timeline is the page's first figure: not the mesh's cost
    t1 = time.perf_counter()
    fig = mesh_view(a)
    t2 = time.perf_counter()
    end = float(a.timeline["end"].max())
    mesh_view(a, window=(end * 0.4, end * 0.6))
    t3 = time.perf_counter()
    return {
        "cores": len(a.index.cores),
        "workloads": len(a.timeline) // 2,
        "links": len(a.noc_link_table),
        "parse_s": parse,
        "cold_s": t2 - t1,
        "window_s": t3 - t2,
        "payload_kb": len(fig.to_json()) / 1e3,
    }


def mesh_draw(path: Path) -> tuple[float, float]:
    """Browser seconds: selecting the file until its mesh is drawn (cold: loading included), and a
    zoom of the timeline until the mesh shows that window."""
    from selenium.webdriver.common.by import By

    with served_page(path) as (driver, port):
        driver.get(f"http://127.0.0.1:{port}/")
        _until(driver, _MESH_DRAWN, time.perf_counter(), "Mesh 2x2")
        driver.find_element(By.ID, "file-select").click()
        driver.find_element(By.CSS_SELECTOR, ".dash-dropdown-search").send_keys("b_target")
        option = driver.find_element(By.CSS_SELECTOR, ".dash-dropdown-option")
        start = time.perf_counter()
        option.click()
        _until(driver, _MESH_DRAWN, start, "Mesh 8x8")
        selected = time.perf_counter() - start
        _until(driver, _DRAWN.replace("'l2-map', 'wl0-map'", "'timeline'"), start)
        start = time.perf_counter()
        driver.execute_script(
            "Plotly.relayout(document.querySelector('#timeline .js-plotly-plot'),"
            " {'xaxis.range[0]': 100000, 'xaxis.range[1]': 300000});"
        )
        _until(driver, _MESH_DRAWN, start, "cycles 100,000-300,000")
        return selected, time.perf_counter() - start


def bench_mesh(path: Path | None) -> int:
    print(
        "| IR | MB | cores | workloads | links | json.loads s | mesh cold s | mesh cold / json.loads "
        "| mesh for a window s | figure KB | selection -> mesh drawn s | timeline zoom -> mesh redrawn s |"
    )
    print("| --- " * 12 + "|")
    with tempfile.TemporaryDirectory() as tmp:
        if path is None:
            from benchmarks.bench_scale import write_synth

            path = Path(tmp) / "synth_100MB.json"
            write_synth(path, 100)
        m = mesh_build(path)
        selected, zoomed = mesh_draw(path)
        print(
            f"| {path.name} | {path.stat().st_size / 1e6:.1f} | {m['cores']:.0f} | {m['workloads']:,.0f} "
            f"| {m['links']:.0f} | {m['parse_s']:.2f} | {m['cold_s']:.2f} | {m['cold_s'] / m['parse_s']:.1f}x "
            f"| {m['window_s']:.2f} | {m['payload_kb']:.0f} | {selected:.1f} | {zoomed:.1f} |",
            flush=True,
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cores", type=int, default=16)
    parser.add_argument("--workloads", type=int, default=800, help="workloads per core in the synthetic IR")
    parser.add_argument(
        "--no-100mb", action="store_true", help="skip the 100 MB `irtools synth` IR (64 cores; 15 s to write)"
    )
    parser.add_argument("--mesh", action="store_true", help="measure the mesh view only (see above)")
    parser.add_argument("--mesh-file", type=Path, help="with --mesh: this IR instead of the 100 MB synth one")
    parser.add_argument("--goals", action="store_true", help="measure issue 18's dashboard goals (see above)")
    parser.add_argument(
        "--keep",
        type=Path,
        default=Path("/tmp/irtools-dashboard-goals"),
        help="with --goals: write (and reuse) the synth files here (default: %(default)s)",
    )
    parser.add_argument(
        "--files",
        type=Path,
        nargs=2,
        metavar=("LARGE", "SMALL"),
        help="with --goals: these two IRs instead of the synth ones",
    )
    parser.add_argument("--before", type=Path, metavar="DIR", help="with --goals: also this older checkout")
    parser.add_argument("--runs", type=int, default=1, help="with --goals: sessions per file and tree")
    parser.add_argument("--screenshots", type=Path, metavar="DIR", help="with --goals: keep the views as PNG")
    parser.add_argument("--profile", type=Path, metavar="DIR", help="with --goals: py-spy each server")
    args = parser.parse_args()
    if args.goals:
        from benchmarks.dashboard_goals import measure, synth_files

        files = {p.name: p.resolve() for p in args.files} if args.files else synth_files(args.keep)
        trees = compiled(({"before": args.before.resolve()} if args.before else {}) | {"after": ROOT})
        for folder in (args.screenshots, args.profile):
            if folder:
                folder.mkdir(parents=True, exist_ok=True)
        measure(files, trees, args.runs, args.screenshots, args.profile)
        return 0
    if args.mesh:
        return bench_mesh(args.mesh_file)
    from benchmarks.bench_scale import write_synth
    from benchmarks.many_findings import write_many_findings
    from benchmarks.many_tensors import write_many_tensors

    print(
        "| IR | MB | workloads | tensors (core 0) | findings | load+analyze s | figures s "
        "| first-view payload MB | page open on the small sample s | selection -> drawn, cold s "
        "| selection -> drawn, warm s | selection -> findings table, cold s "
        "| selection -> findings table, warm s |"
    )
    print("| --- " * 13 + "|")
    with tempfile.TemporaryDirectory() as tmp:
        synthetic = Path(tmp) / "many_tensors.json"
        write_many_tensors(synthetic, args.cores, args.workloads)
        flawed = Path(tmp) / "many_findings.json"
        write_many_findings(flawed)
        irs = [
            ("resnet50 fixture", FIXTURE),
            (f"synthetic {args.cores} cores", synthetic),
            ("10,983 findings", flawed),
        ]
        if not args.no_100mb:
            large = Path(tmp) / "synth_100MB.json"
            write_synth(large, 100)  # the 100 MB IR of bench_scale.py
            irs.append(("irtools synth 64 cores", large))
        for label, path in irs:
            if not path.exists():
                print(f"| {label} | missing " + "| " * 11 + "|")
                continue
            m = build_figures(path)
            page, (cold, warm), table = first_view(path, int(m["findings"]))
            tables = " | ".join("-" if t is None else f"{t:.1f}" for t in table)
            print(
                f"| {label} | {path.stat().st_size / 1e6:.1f} | {m['workloads']:,} | {m['tensors']:,} ({m['core0_tensors']:,}) "
                f"| {m['findings']:,} | {m['load_analyze_s']:.2f} | {m['figures_s']:.2f} | {m['payload_mb']:.2f} "
                f"| {page:.1f} | {cold:.1f} | {warm:.1f} | {tables} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
