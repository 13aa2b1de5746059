"""Issue 18's dashboard goals in real headless Chromium: cold first view, warm actions, server RSS.

Run through `python benchmarks/bench_dashboard.py --goals` (see its --help). Per file kind it starts
`irtools serve DIR --open BIG` (DIR holds the large file and the smaller one) with the browser
already up, and measures

- cold: from starting the server process until the timeline AND the L2 panel of the first core are
  drawn (their SVG titles and traces are in the page: Plotly has rendered them);
- warm, each from the user's action until every figure it changes is redrawn: a zoom of the
  timeline (into 2% of the makespan, where bars replace the busy map; the maps follow) and its
  reset, a core switch (the core picker: both maps), a timing-model switch (the model radio:
  timeline and maps) and a file switch between the two files once both are loaded;
- the server's peak RSS (VmHWM) over the largest file it has open;

before each warm action the server is left to settle (idle for half a second): what it computes after
a view is drawn (the check, the mesh, the other tables) is not the next action's cost. Every figure is given in seconds and as a ratio to the gc-off JSON
parse of the same file in the same run (bench_speed.PARSE).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_speed import PARSE, _timed
from benchmarks.browser import chromium, free_port

ROOT = Path(__file__).resolve().parent.parent
WAIT = 300.0
"""Seconds a step may take before the benchmark gives up."""

_STATE = """
const out = {};
for (const id of ['timeline', 'l2-map']) {
  const g = document.querySelector('#' + id + ' .js-plotly-plot');
  if (!g || !g._fullLayout) { out[id] = null; continue; }
  const title = g.querySelector('.gtitle');
  const xt = g._fullLayout.xaxis && g._fullLayout.xaxis.title;
  out[id] = {
    title: title ? title.textContent : '',
    xtitle: xt ? (xt.text || '') : '',
    range: g._fullLayout.xaxis ? g._fullLayout.xaxis.range.map(Number) : null,
    drawn: g.querySelectorAll('.trace, .hm, .imagelayer image').length,
    fresh: g.layout !== (window.__bench || {})[id],
  };
}
const s = document.querySelector('#status');
out.status = s ? s.textContent : '';
return out;
"""
_MARK = """
window.__bench = {};
for (const id of ['timeline', 'l2-map']) {
  const g = document.querySelector('#' + id + ' .js-plotly-plot');
  window.__bench[id] = g ? g.layout : null;
}
"""


class Page:
    """One dashboard session: the server process (from `tree`) and the browser on it."""

    def __init__(self, driver: Any, served: Path, big: str, tree: Path, profile: Path | None) -> None:
        self.driver = driver
        self.port = free_port()
        cmd = [sys.executable, "-m", "irtools", "serve", str(served), "--open", big, "--port", str(self.port)]
        self.start = time.perf_counter()
        self.server = subprocess.Popen(cmd, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.spy: subprocess.Popen[bytes] | None = None
        self.server_cpu: list[tuple[float, float]] = []
        """(until drawn, until idle) server CPU seconds of each `act`, in order."""
        if profile is not None:
            self.record(profile)

    def record(self, profile: Path) -> None:
        """py-spy samples the server (every thread: the callbacks run in werkzeug's) into `profile`
        until `stop_recording`."""
        self.stop_recording()
        spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        self.spy = subprocess.Popen(
            [
                spy,
                "record",
                "--pid",
                str(self.server.pid),
                "--rate",
                "100",
                "--format",
                "raw",
                "--threads",
                "--nonblocking",
                "--output",
                str(profile),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def stop_recording(self) -> None:
        if self.spy is not None:
            self.spy.send_signal(signal.SIGINT)  # py-spy writes its profile on Ctrl-C
            self.spy.wait(timeout=120)
            self.spy = None

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.driver.execute_script(_STATE)
        return state

    def until(self, done: Any, start: float) -> float:
        """Seconds from `start` until `done(state)` holds."""
        while True:
            state = self.state()
            if done(state):
                return time.perf_counter() - start
            if time.perf_counter() - start > WAIT:
                raise TimeoutError(f"not drawn within {WAIT:.0f} s: {state}")
            if self.server.poll() is not None:
                raise RuntimeError(f"the server exited: {self.server.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            time.sleep(0.01)

    def open(self) -> float:
        """Cold: server start until the first file's timeline and L2 panel are drawn."""
        for _ in range(6000):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.01)
        self.driver.get(f"http://127.0.0.1:{self.port}/")
        return self.until(lambda s: _drawn(s, "dependency"), self.start)

    def cpu(self) -> float:
        """CPU seconds the server has used (user + system)."""
        fields = Path(f"/proc/{self.server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def settle(self) -> None:
        """Wait until the server is idle (under 5% of a core for half a second): what it does after
        a view is drawn (the check, the mesh, the other tables) is not the next action's cost."""
        start, last = time.perf_counter(), self.cpu()
        while time.perf_counter() - start < WAIT:
            time.sleep(0.5)
            now = self.cpu()
            if now - last < 0.025:
                return
            last = now

    def act(self, action: Any, done: Any) -> float:
        """Seconds from `action()` (the user's click or zoom) until `done(state)` holds, the figures it
        changes redrawn (their layout objects replaced, so a stale figure never counts). The server's
        CPU seconds until then, and until it is idle again (the mesh and the other views that follow
        the action), go to `server_cpu`: the goals count server time, which the browser's drawing,
        sharing the machine's two cores, does not inflate as it does the wall time."""
        self.settle()
        self.driver.execute_script(_MARK)
        before = self.cpu()
        start = time.perf_counter()
        action()
        took = self.until(done, start)
        drawn = self.cpu() - before
        self.settle()
        self.server_cpu.append((drawn, self.cpu() - before))
        return took

    def pick(self, control: str, text: str) -> Any:
        """The click on the option of dropdown `control` whose label contains `text` (search typed
        before: only the click is timed)."""
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.ID, control).click()
        self.driver.find_element(
            By.CSS_SELECTOR, f"#{control} .dash-dropdown-search, .dash-dropdown-search"
        ).send_keys(text)
        for _ in range(500):
            options = [
                o
                for o in self.driver.find_elements(By.CSS_SELECTOR, ".dash-dropdown-option")
                if text in o.text
            ]
            if options:
                return options[0].click
            time.sleep(0.01)
        raise TimeoutError(f"no option {text!r} in #{control}")

    def zoom(self, lo: float | None, hi: float | None) -> None:
        update = (
            "{'xaxis.autorange': true}"
            if lo is None
            else f"{{'xaxis.range[0]': {lo}, 'xaxis.range[1]': {hi}}}"
        )
        self.driver.execute_script(
            f"Plotly.relayout(document.querySelector('#timeline .js-plotly-plot'), {update});"
        )

    def screenshot(self, path: Path) -> None:
        """The timeline and the L2 panel, each as drawn (element screenshots: the page scrolls)."""
        from selenium.webdriver.common.by import By

        for graph in ("timeline", "l2-map"):
            element = self.driver.find_element(By.ID, graph)
            self.driver.execute_script("arguments[0].scrollIntoView();", element)
            element.screenshot(str(path.with_name(f"{path.stem}_{graph}.png")))

    def peak_rss(self) -> int:
        """The server's peak resident set (VmHWM), bytes."""
        for line in Path(f"/proc/{self.server.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return 0

    def close(self) -> None:
        self.stop_recording()
        self.server.terminate()
        self.server.wait()


def _drawn(s: dict[str, Any], model: str, fresh: tuple[str, ...] = ()) -> bool:
    t, m = s.get("timeline"), s.get("l2-map")
    if not t or not m or not t["drawn"] or not m["drawn"]:
        return False
    if f"({model})" not in t["title"] or "makespan" not in t["title"] or not m["title"].startswith("L2"):
        return False
    return all(s[g]["fresh"] for g in fresh)


def _window_shown(lo: float, hi: float) -> Any:
    def done(s: dict[str, Any]) -> bool:
        t, m = s.get("timeline"), s.get("l2-map")
        if not t or not m or not t["fresh"] or not m["fresh"]:
            return False
        return all(abs(a - b) <= 1 for g in (t, m) for a, b in zip(g["range"], (lo, hi), strict=True))

    return done


def _reset_shown(timeline_end: float, map_end: float) -> Any:
    """Both figures redrawn over the whole schedule: the timeline to where its autorange ends (it pads
    past the makespan), the L2 panel to the makespan (it stops there)."""

    def done(s: dict[str, Any]) -> bool:
        t, m = s.get("timeline"), s.get("l2-map")
        return bool(
            t
            and m
            and t["fresh"]
            and m["fresh"]
            and t["range"][1] >= timeline_end
            and m["range"][1] >= map_end
        )

    return done


def session(
    served: Path, big: str, small: str, tree: Path, shots: Path | None, profile: Path | None
) -> dict[str, Any]:
    """One server from `tree` on `served`: the cold first view of `big`, then the warm actions."""
    driver = chromium()
    try:
        driver.get("about:blank")  # the browser is up before the clock starts
        page = Page(driver, served, big, tree, profile)
        try:
            figures: dict[str, Any] = {"cold": page.open(), "cold_cpu": page.cpu()}
            if profile is not None:
                page.record(profile.with_name(profile.stem + "_warm.txt"))
            if shots:
                page.screenshot(shots / "1_cold.png")
            makespan = float(
                page.driver.execute_script(
                    "return document.querySelector('#timeline .js-plotly-plot')._fullLayout.xaxis.range[1];"
                )
            )
            map_end = float(
                page.driver.execute_script(
                    "return document.querySelector('#l2-map .js-plotly-plot')._fullLayout.xaxis.range[1];"
                )
            )
            figures["zoom"], figures["reset"] = [], []
            figures["zoom_cpu"], figures["core_cpu"] = [], []
            for k in range(3):
                lo = makespan * (0.3 + 0.1 * k)
                hi = lo + makespan * 0.02
                figures["zoom"].append(
                    page.act(lambda lo=lo, hi=hi: page.zoom(lo, hi), _window_shown(lo, hi))
                )
                figures["zoom_cpu"].append(page.server_cpu[-1])
                if shots and k == 0:
                    page.screenshot(shots / "2_zoom.png")
                figures["reset"].append(
                    page.act(lambda: page.zoom(None, None), _reset_shown(makespan * 0.99, map_end * 0.99))
                )
            figures["core"] = []
            labels = page.driver.execute_script(
                "return Array.from(document.querySelectorAll('#timeline .js-plotly-plot .ytick text')).map(t => t.textContent);"
            )
            for label in (labels[len(labels) // 2], labels[1], labels[-1]):
                click = page.pick("core", label)
                figures["core"].append(
                    page.act(
                        click,
                        lambda s, label=label: bool(
                            s["l2-map"]
                            and s["l2-map"]["fresh"]
                            and s["l2-map"]["drawn"]
                            and f"on {label}" in s["l2-map"]["title"]
                        ),
                    )
                )
                figures["core_cpu"].append(page.server_cpu[-1])
                if shots and not figures.get("_core_shot"):
                    page.screenshot(shots / "3_core.png")
                    figures["_core_shot"] = True
            figures.pop("_core_shot", None)
            figures["model"] = []
            for model in ("sequential", "dependency", "sequential", "dependency"):
                click = page.driver.find_element("css selector", f"#model input[value='{model}']").click
                figures["model"].append(
                    page.act(
                        click,
                        lambda s, model=model: (
                            _drawn(s, model, ("timeline", "l2-map")) and model in s["l2-map"]["xtitle"]
                        ),
                    )
                )
                if shots and model == "sequential" and len(figures["model"]) == 1:
                    page.screenshot(shots / "4_model.png")
            click = page.pick("file-select", Path(small).stem)
            figures["file_first"] = page.act(
                click, lambda s: small in s["status"] and _drawn(s, "dependency", ("timeline", "l2-map"))
            )
            figures["file"] = []
            for name in (big, small, big, small):
                click = page.pick("file-select", Path(name).stem)
                figures["file"].append(
                    page.act(
                        click,
                        lambda s, name=name: (
                            name in s["status"] and _drawn(s, "dependency", ("timeline", "l2-map"))
                        ),
                    )
                )
            if shots:
                page.screenshot(shots / "5_file.png")
            figures["rss"] = page.peak_rss()
        finally:
            page.close()
    finally:
        driver.quit()
    return figures


def measure(
    files: dict[str, Path], trees: dict[str, Path], runs: int, shots: Path | None, profile: Path | None
) -> None:
    """Print the table: per file kind (name -> path, the first the large one) and tree."""
    timed = {name: _timed([sys.executable, "-c", PARSE, str(p)], max(runs, 3)) for name, p in files.items()}
    parse = {name: t[0] for name, t in timed.items()}
    parse_cpu = {name: t[1] for name, t in timed.items()}
    print(
        "gc-off parse s (CPU s), min of 3: "
        + ", ".join(f"{n} {t[0]:.2f} ({t[1]:.2f})" for n, t in timed.items()),
        flush=True,
    )
    print(
        "| file opened | tree | MB | parse s | cold s (/ parse) | server CPU s until drawn (/ parse CPU) "
        "| zoom s (/ parse) | zoom server CPU s, drawn / idle | zoom reset s | core switch s "
        "| core switch server CPU s, drawn / idle "
        "| model switch s | file switch, first s | file switch, warm s | server peak RSS MB (/ largest file) |"
    )
    print("| --- " * 15 + "|", flush=True)
    names = list(files)
    largest = max(p.stat().st_size for p in files.values())
    for big in names:
        small = next(n for n in names if n != big)
        with tempfile.TemporaryDirectory() as tmp:
            served = Path(tmp)
            for name, path in files.items():
                os.link(path, served / name) if _same_fs(path, served) else shutil.copy(path, served / name)
            for label, tree in trees.items():
                for run in range(runs):
                    here = shots / f"{Path(big).stem}_{label}" if shots and run == 0 else None
                    if here:
                        here.mkdir(parents=True, exist_ok=True)
                    spy = profile / f"{Path(big).stem}_{label}_cold.txt" if profile and run == 0 else None
                    f = session(served, big, small, tree, here, spy)
                    p = parse[big]
                    med = {k: statistics.median(f[k]) for k in ("zoom", "reset", "core", "model", "file")}
                    print(
                        f"| {big} | {label} | {files[big].stat().st_size / 1e6:.1f} | {p:.2f} "
                        f"| {f['cold']:.2f} ({f['cold'] / p:.1f}x) | {f['cold_cpu']:.2f} ({f['cold_cpu'] / parse_cpu[big]:.1f}x) "
                        f"| {med['zoom']:.3f} ({med['zoom'] / p:.2f}x) | {_cpu(f['zoom_cpu'])} "
                        f"| {med['reset']:.3f} | {med['core']:.3f} | {_cpu(f['core_cpu'])} "
                        f"| {med['model']:.3f} | {f['file_first']:.2f} "
                        f"| {med['file']:.3f} (max {max(f['file']):.3f}) | {f['rss'] / 1e6:.0f} ({f['rss'] / largest:.1f}x) |",
                        flush=True,
                    )


def _cpu(spent: list[tuple[float, float]]) -> str:
    """The medians of (until drawn, until idle) server CPU seconds."""
    return " / ".join(f"{statistics.median(part):.2f}" for part in zip(*spent, strict=True))


def _same_fs(a: Path, b: Path) -> bool:
    return a.stat().st_dev == b.stat().st_dev


def synth_files(directory: Path) -> dict[str, Path]:
    """The issue's two kinds: a raw 8x8 file of about 67 MB (the real Gemini one's size) and a 16 MB one."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, batch in (("raw_8x8_67MB.json", 26), ("raw_8x8_16MB.json", 6)):
        path = directory / name
        if not path.exists():
            cmd = [
                sys.executable,
                "-m",
                "irtools",
                "synth",
                "-o",
                str(path),
                "--mesh",
                "8x8",
                "--layers",
                "140",
            ]
            cmd += ["--batch", str(batch), "--seed", "3", "--dialect", "raw"]
            subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        files[name] = path
    return files
