"""What the dashboard serves: IR files under one directory (never outside it) and uploads, analyzed once."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import gc
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from dashboards.noc_choice import NocRuns, manifest_cut, noc_runs, split_key
from dashboards.upload_store import EVICTED, UPLOAD_PREFIX, UploadStore, default_store_bytes
from irtools.analysis import Analysis, AnalysisError, analyze
from irtools.analysis.as_read import analyze_as_read, check_as_read
from irtools.analysis.chiplets import ChipletCut
from irtools.analysis.noc import NocModel
from irtools.dialects import Capability
from irtools.findings import Finding, Severity
from irtools.gemini import GEMINI_FREQUENCY
from irtools.limits import size_problem
from irtools.loading.boxes import release_tensor_columns
from irtools.loading.load import load_ir
from irtools.loading.reader import gc_paused
from irtools.options import RunOptions
from irtools.streaming import CoreChecks, FieldDropped
from irtools.validate import check_file

if TYPE_CHECKING:
    import plotly.graph_objects as go

FINDING_COLUMNS = ["severity", "code", "core_id", "workload_id", "transfer_id", "message", "pointer"]
FIRST_VIEW_FIGURES = frozenset({"timeline", "maps"})
"""The figures of a file's first view: the timeline and the core's maps (`Entry.sent`)."""
FREEZE_FROM_BYTES = 8 * 10**6
"""Files from this size have their objects frozen out of the collector's sight (load_entry)."""
Stage = Callable[[str], None] | None
"""Told what loading a file does now (`reading and parsing the JSON`...), for the page's loading note."""
MAX_FAILED = 16
"""Files that failed to load whose error is kept (FileStore._failed)."""
FIRST_VIEW_WAIT = 5.0
"""Seconds the later work on a file (its check, the mesh's routing) waits for its first view at most."""
FIGURES_KEPT = 4
"""Figures kept per file (`Entry.figure`): a 64-core file's aggregated timeline takes 0.2-0.35 s to
build and 2 MB to keep; switching back to a timing model or range just shown sends it again at once."""


class AccessError(ValueError):
    """A path outside the served directory, a missing file, or an upload over the limit."""


class Entry:
    """One IR as the dashboard shows it: its analysis now, the checker's findings when first asked.

    Checking a large file takes seconds; the timeline and maps need only the analysis, so they
    do not wait for it.
    """

    def __init__(
        self,
        name: str,
        analysis: Analysis,
        path: Path | None = None,
        stamp: tuple[int, int] | None = None,
        checks: CoreChecks | None = None,
    ) -> None:
        self.name = name
        self.analysis = analysis
        self.path = path
        """The file read, when it was read from one (read again where its check or a view needs what was
        dropped as it was read)."""
        self.stamp = stamp
        """(size, modification time in ns) of that file before it was read."""
        self._checks = checks
        """The per-core checks run as the file was read, its snapshots dropped since (until its check)."""
        self._findings: pd.DataFrame | None = None
        self._lock = threading.Lock()
        self._whole_lock = threading.Lock()
        self.frozen = False
        """Whether its objects were frozen (load_entry): dropping it needs `collect_dropped`."""
        self._first_view = threading.Event()
        self._sent_under: dict[str, set[str]] = {}
        self._views: dict[str, threading.Event] = {}
        self._views_lock = threading.Lock()
        self._figures: OrderedDict[Hashable, dict[str, Any]] = OrderedDict()
        self._figures_lock = threading.Lock()

    def prepare_first_view(self, stage: Stage = None) -> Entry:
        """Compute the tables the first view draws from (timeline, transfers, layers, cores, the L2
        panel's), so its figures are built in a blink once the entry is handed out."""
        a = self.analysis
        if stage:
            stage(f"timing the schedule of {len(a.index.cores)} cores and building the tables")
        with gc_paused():
            try:
                a.timeline, a.core_transfers, a.layers, a.cores  # noqa: B018 - cached on first access
                if a.index.has(Capability.L2_ADDRESSES):
                    a.tensors, a.wl0_tensors  # noqa: B018
                else:
                    a.l2_blocks  # noqa: B018
            except Exception:  # noqa: BLE001, S110 - the figure drawn from that table reports it, as before
                pass
            if self.frozen:
                with _FROZEN:
                    gc.freeze()  # as load_entry: the new tables' objects out of the collector's sight
        return self

    def sent(self, figure: str, model: str) -> None:
        """The dashboard sent the browser this figure of the file (one of FIRST_VIEW_FIGURES), drawn
        under timing model `model`; the first model whose figures are all sent is the first view."""
        with self._views_lock:
            under = self._sent_under.setdefault(model, set())
            under.add(figure)
            if under >= FIRST_VIEW_FIGURES:
                self._view(model).set()
                self._first_view.set()

    def _view(self, model: str) -> threading.Event:
        return self._views.setdefault(model, threading.Event())

    def after_view(self, model: str) -> None:
        """`after_first_view` for the view under timing model `model`: wait (FIRST_VIEW_WAIT seconds at
        most) until its timeline and maps are sent. After a switch to a model not drawn yet, its mesh,
        counters and link heat (seconds of routing and sums on a large file, new for each model) held
        the interpreter while the user waited for the timeline."""
        with self._views_lock:
            view = self._view(model)
        view.wait(FIRST_VIEW_WAIT)

    def figure(self, key: Hashable, build: Callable[[], go.Figure]) -> dict[str, Any]:
        """The figure `build` makes for `key` (what it depends on besides this file), as the dict Dash
        sends; the last FIGURES_KEPT are kept. Dash would turn a Plotly figure into that dict on every
        send, deep-copying its arrays; the file's analysis never changes, so neither does the figure."""
        with self._figures_lock:
            if key in self._figures:
                self._figures.move_to_end(key)
                return self._figures[key]
        figure: dict[str, Any] = build().to_plotly_json()
        with self._figures_lock:
            self._figures[key] = figure
            while len(self._figures) > FIGURES_KEPT:
                self._figures.popitem(last=False)
        return figure

    def after_first_view(self) -> None:
        """Wait (FIRST_VIEW_WAIT seconds at most) until the first view's figures are sent: the
        interpreter runs one thread at a time, so work that is not on screen yet (the check, the mesh)
        would otherwise slow the first view down by as much as it costs."""
        self._first_view.wait(FIRST_VIEW_WAIT)

    @property
    def findings(self) -> pd.DataFrame:
        """The checker's findings for this file as the dashboard's table (computed on first use)."""
        with self._lock:
            if self._findings is None:
                # Apart from the whole-schedule builds: the warm-up's routed-run sums and the rules' columns,
                # held side by side, made the server's peak.
                # In the file's order, as `irtools validate` reports them, whichever way they were found.
                findings = sorted(self.analysis.apart(self._check), key=Finding.sort_key)
                release_tensor_columns(self.analysis.index)  # the rules' alone: no view reads them
                self._findings = findings_frame(findings)
            return self._findings

    def _check(self) -> list[Finding]:
        """Every rule's findings: on the analysis's own objects, or, where its snapshots were dropped as it
        was read, from the per-core checks run meanwhile and the other steps run now (as `irtools validate`
        runs them), the file read again when one of those needs a dropped snapshot."""
        checks, self._checks = self._checks, None
        try:
            return check_as_read(self.analysis, checks)
        except FieldDropped:  # a step needs a dropped snapshot: read the file again, as validate does
            if self.path is None:
                raise  # never: an upload is kept whole
        if _stamp(self.path) == self.stamp:
            findings = check_file(str(self.path), self.analysis.options)
            if _stamp(self.path) == self.stamp:  # not rewritten while it was checked either
                return findings
        return [Finding("GIR100", Severity.ERROR, CHANGED)]

    def read_whole(self) -> None:
        """Read the file again and keep all of it: a view read what was dropped as it was read (the wait
        cycles of a deadlocked file walk the tensors). AnalysisError (`CHANGED`) when the file on disk is no
        longer the one shown: its objects would not be the ones the other views and the findings show."""
        with self._whole_lock:  # two views that failed at once read it once
            if not self.analysis.snapshots_dropped or self.path is None:
                return
            sys.stderr.write(
                f"irtools: {self.name}: a view needs what was dropped as it was read: read whole\n"
            )
            if _stamp(self.path) != self.stamp:
                raise AnalysisError(CHANGED)
            with gc_paused():
                whole = analyze(self.path, self.analysis.options, name=self.name)
                whole.l2_occupancy, whole.l2_blocks  # noqa: B018 - as load_entry
            if _stamp(self.path) != self.stamp:  # rewritten while it was read
                raise AnalysisError(CHANGED)
            self.analysis = whole
            self.prepare_first_view()  # freezes the new objects, as load_entry did the old


CHANGED = "the file changed on disk after it was shown: pick it again to see and check what it holds now"
"""Why a file's findings are missing when its check would read another file than the one shown."""


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


def findings_frame(findings: list[Finding]) -> pd.DataFrame:
    """Findings as the dashboard's table: FINDING_COLUMNS, the ids as nullable Int64."""
    frame = pd.DataFrame([f.to_row() for f in findings], columns=FINDING_COLUMNS)
    return frame.astype({"core_id": "Int64", "workload_id": "Int64", "transfer_id": "Int64"})


def filter_findings(
    findings: pd.DataFrame, severities: list[str] | None, codes: list[str] | None, cores: list[int] | None
) -> pd.DataFrame:
    """The findings matching every non-empty filter, each row with its index in `findings` as `id`."""
    shown = findings.assign(id=range(len(findings)))
    if severities:
        shown = shown[shown["severity"].isin(severities)]
    if codes:
        shown = shown[shown["code"].isin(codes)]
    if cores:
        shown = shown[shown["core_id"].isin(cores)]
    return shown.astype(object).where(shown.notna(), None)  # JSON-ready: missing ids become null


def load_entry(
    source: str | Path | bytes,
    name: str,
    wl0_size: int | None = None,
    max_bytes: int | None = None,
    noc: NocModel | None = None,
    l2_size: int | None = None,
    options: RunOptions | None = None,
    stage: Stage = None,
) -> Entry:
    """Load (a path or bytes) and wrap an IR; AnalysisError with the reason when it is not an IR at all
    (or a file over `max_bytes`). `noc` adds the noc timing model. `options`, when given, is the run's
    whole options and replaces `wl0_size`, `l2_size` and `noc` (its `max_bytes` is not used here: the
    store checks sizes itself)."""
    options = options or store_options(wl0_size, l2_size, noc)
    # A large IR is millions of objects that live as long as the entry: collector passes over them
    # while the index and the tables are built, and later, cost seconds (3 s of a 67 MB file's first
    # view), so they are frozen out of its sight; `collect_dropped` frees them with the entry.
    path = None if isinstance(source, bytes) else Path(source)
    with gc_paused():
        if stage:
            stage(
                "reading and parsing the JSON"
                if path is None
                else "reading the JSON, tabulating and checking each core"
            )
        stamp, checks = None, None
        if path is None:
            analysis = Analysis(load_ir(source, name, max_bytes), options)
        else:
            stamp = _stamp(path)
            # The snapshots dropped core by core as they are read, their tables built and the per-core rules
            # run meanwhile: they were half of what the server held of a large file.
            analysis, checks = analyze_as_read(path, options, max_bytes, for_views=True, name=name)
        # The L2 tables the header reads first: sizes near 2**63 (AnalysisError) refuse the file here,
        # where the page shows why, instead of failing in every figure's callback.
        analysis.l2_occupancy, analysis.l2_blocks  # noqa: B018
        entry = Entry(name, analysis, path, stamp, checks)
        entry.frozen = _size(source) >= FREEZE_FROM_BYTES
        if entry.frozen:
            with _FROZEN:
                gc.freeze()
    return entry


def store_options(
    wl0_size: int | None = None,
    l2_size: int | None = None,
    noc: NocModel | None = None,
    max_bytes: int | None = None,
) -> RunOptions:
    """The RunOptions of a dashboard made without one (tests, embedding): from its separate arguments."""
    if noc is None:
        return RunOptions(wl0_size=wl0_size, l2_size=l2_size, max_bytes=max_bytes)
    return RunOptions(
        wl0_size=wl0_size,
        l2_size=l2_size,
        noc_bw=noc.bandwidth,
        noc_frequency=noc.frequency,
        max_bytes=max_bytes,
    )


def _size(source: str | Path | bytes) -> int:
    try:
        return len(source) if isinstance(source, bytes) else Path(source).stat().st_size
    except OSError:
        return 0


_FROZEN = threading.Lock()


def collect_dropped() -> threading.Thread:
    """An entry left the cache: its objects were frozen with everything else alive (load_entry), and
    those in reference cycles would stay for good. Thaw everything, collect, freeze what survives;
    in the background (a full pass over a large file's objects takes a second)."""

    def run() -> None:
        with _FROZEN:
            gc.unfreeze()
            gc.collect()
            gc.freeze()

    thread = threading.Thread(target=run, name="irtools collect", daemon=True)
    thread.start()
    return thread


class FileStore:
    """IR files under `root` and uploaded IRs, each analyzed on first use and kept in a small LRU.

    Uploads are kept up to `max_upload_store_bytes` in all (default: a sixteenth of the machine's
    memory); the least recently used go first, with their analysis.
    """

    def __init__(
        self,
        root: str | Path,
        max_upload_bytes: int,
        cache_size: int = 4,
        max_file_bytes: int | None = None,
        wl0_size: int | None = None,
        noc: NocModel | None = None,
        l2_size: int | None = None,
        max_upload_store_bytes: int | None = None,
        options: RunOptions | None = None,
    ) -> None:
        self.options = options or store_options(wl0_size, l2_size, noc, max_file_bytes)
        """The run's options for every file served (`options`, else made from the separate arguments)."""
        self.noc = (
            NocModel(self.options.noc_bw, self.options.noc_frequency, self.options.dram_bw)
            if self.options.noc_bw is not None
            else None
        )
        """The NoC of the noc timing model for every file served, or None."""
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise AccessError(f"{root} is not a directory")
        self.max_upload_bytes = max_upload_bytes
        self.max_file_bytes = self.options.max_bytes
        self.wl0_size = self.options.wl0_size
        self.l2_size = self.options.l2_size
        self._cache: OrderedDict[tuple[object, ...], Entry] = OrderedDict()
        self.uploads = UploadStore(
            max_upload_store_bytes or default_store_bytes(max_upload_bytes), on_evict=self._forget
        )
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._building: dict[tuple[object, ...], threading.Lock] = {}
        self._failed: OrderedDict[tuple[object, ...], Exception] = OrderedDict()
        """Files that could not be loaded, with why (the last few): asking again says so at once."""
        self._starting: set[str] = set()
        self._stages: dict[str, tuple[str, float]] = {}
        """key -> (what loading it does now, when loading began) while it loads."""

    def files(self) -> list[str]:
        """*.json under the root (golden *.expected.json left out), as sorted relative paths."""
        found = []
        for path in self.root.rglob("*.json"):
            if path.name.endswith(".expected.json"):
                continue
            relative = path.relative_to(self.root).as_posix()
            try:
                self.resolve(relative)
            except AccessError:
                continue  # a symlink leading outside the root
            found.append(relative)
        return sorted(set(found))

    def resolve(self, relative: str) -> Path:
        """The file `relative` names inside the root; AccessError for anything else."""
        if not relative or "\x00" in relative:
            raise AccessError("no file named")
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root):
            raise AccessError(f"{relative!r} is outside the served directory")
        if not path.is_file():
            raise AccessError(f"{relative!r} is not a file in the served directory")
        return path

    def add_upload(self, filename: str, contents: str) -> str:
        """Keep an uploaded file (a dcc.Upload data URL); returns the key to `get` it by."""
        _, _, b64 = contents.partition(",")
        if len(b64) * 3 // 4 > self.max_upload_bytes:
            raise AccessError(
                f"{filename} is {len(b64) * 3 / 4 / 1e6:.1f} MB; the upload limit is "
                f"{self.max_upload_bytes / 1e6:.0f} MB (irtools serve --max-upload-mb). "
                "Put large files in the served directory instead."
            )
        try:
            data = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            raise AccessError(f"{filename}: the upload is not valid base64 data") from None
        if len(data) > self.uploads.max_bytes:
            raise AccessError(
                f"{filename} is {len(data) / 1e6:.1f} MB; the server keeps "
                f"{self.uploads.max_bytes / 1e6:.0f} MB of uploads (irtools serve --max-upload-store-mb)"
            )
        return self.uploads.add(filename, data)

    def find(self, key: str | None) -> Entry | None:
        """The entry for `key`, or None when there is none or it cannot be read or analyzed (figures
        then draw empty: the file's error is shown once, by the callback that loads it)."""
        if not key:
            return None
        try:
            return self.get(key)
        except (AccessError, AnalysisError, OSError):
            return None

    def get(self, key: str) -> Entry:
        """The entry for a relative path or an upload key, analyzing it if needed."""
        if key.startswith(UPLOAD_PREFIX):
            upload = split_key(key)[0]
            try:
                name, data = self.uploads.get(upload)
            except KeyError:
                raise AccessError(EVICTED) from None
            noc = self.noc_model(key)
            entry = self._cached(
                (key,),
                lambda: load_entry(data, name, options=self._options_at(noc)).prepare_first_view(),
            )
            if upload not in self.uploads:  # dropped while it was analyzed: keep no analysis of it
                self._forget(key)
            return entry
        cache_key = self._cache_key(key)
        base, _, size, noc = cache_key
        problem = size_problem(size, self.max_file_bytes)
        if problem:
            raise AccessError(f"{base}: {problem} (irtools serve --max-mb)")
        return self._cached(cache_key, lambda: self._load(key, self.resolve(base), size, noc))

    def _cache_key(self, key: str) -> tuple[Any, ...]:
        """What an analysis of `key` is kept under: the upload, or the file as it is now and its NoC:
        (relative path, mtime, size in bytes, NocModel or None)."""
        if key.startswith(UPLOAD_PREFIX):
            return (key,)
        base, _ = split_key(key)
        stat = self.resolve(base).stat()
        return (base, stat.st_mtime_ns, stat.st_size, self.noc_model(key))

    def _options_at(self, noc: NocModel | None) -> RunOptions:
        """The run's options with the NoC a page chose for a file (its manifest run's, else --noc-bw)."""
        if noc is None:
            return dataclasses.replace(self.options, noc_bw=None)
        return dataclasses.replace(self.options, noc_bw=noc.bandwidth, noc_frequency=noc.frequency)

    def noc_runs(self, key: str | None) -> NocRuns:
        """The NoC bandwidths the file of `key` can be timed at (its manifest runs', else --noc-bw)."""
        base, _ = split_key(key or "")
        served = self.noc.bandwidth if self.noc else None
        if not base or base.startswith(UPLOAD_PREFIX):
            return noc_runs(None, served)
        try:
            return noc_runs(self.resolve(base), served)
        except AccessError:
            return noc_runs(None, served)

    def chiplets(self, key: str | None) -> ChipletCut | None:
        """The chiplet cut of the file of `key` from its folder's manifest.csv (None: none known)."""
        base, _ = split_key(key or "")
        entry = self.find(key)
        if entry is None or not base or base.startswith(UPLOAD_PREFIX):
            return None
        ir = entry.analysis.index.ir
        try:
            return manifest_cut(self.resolve(base), ir.xlen, ir.ylen)
        except AccessError:
            return None

    def noc_model(self, key: str) -> NocModel | None:
        """The NoC `key` is timed at: the page's choice (its suffix), else the file's default run."""
        _, chosen = split_key(key)
        bandwidth = chosen or self.noc_runs(key).default
        frequency = self.noc.frequency if self.noc else GEMINI_FREQUENCY
        return None if bandwidth is None else NocModel(bandwidth, frequency)

    def _load(self, key: str, path: Path, size: int, noc: NocModel | None) -> Entry:
        started = time.monotonic()

        def stage(what: str) -> None:
            self._stages[key] = (f"{what} ({size / 1e6:,.1f} MB)", started)

        try:
            base, _ = split_key(key)
            entry = load_entry(path, base, options=self._options_at(noc), stage=stage)
            return entry.prepare_first_view(stage)
        finally:
            self._stages.pop(key, None)

    def read_whole(self) -> None:
        """Read again whole every kept file whose snapshots were dropped as it was read (`Entry.read_whole`)."""
        with self._lock:
            entries = list(self._cache.values())
        for entry in entries:
            entry.read_whole()

    def ready(self, key: str | None) -> bool:
        """Whether `key` is analyzed and cached (showing it waits for nothing)."""
        if not key:
            return False
        try:
            cache_key = self._cache_key(key)
        except (AccessError, OSError):
            return True  # nothing to wait for: showing it reports the problem
        with self._lock:
            return cache_key in self._cache or cache_key in self._failed

    def start(self, key: str) -> None:
        """Begin loading `key` in the background unless it is ready or already loading.

        The page asks for nothing that needs the file until it is ready: a callback waiting for it
        would hold one of the browser's six connections to the server, and the loading note's poll
        queues behind six of them.
        """
        if self.ready(key):
            return
        with self._lock:
            if key in self._starting:
                return
            self._starting.add(key)

        def run() -> None:
            try:
                self.get(key)
            except Exception:  # noqa: BLE001, S110 - kept by _cached; showing the file reports it
                pass
            finally:
                with self._lock:
                    self._starting.discard(key)

        threading.Thread(target=run, name=f"irtools load {key}", daemon=True).start()

    def size(self, key: str) -> int | None:
        """The file's size in bytes, or None for an upload or a file that cannot be read."""
        try:
            return None if key.startswith(UPLOAD_PREFIX) else self.resolve(split_key(key)[0]).stat().st_size
        except (AccessError, OSError):
            return None

    def loading(self, key: str | None) -> tuple[str, float] | None:
        """(what loading `key` does now, seconds since it began) while it loads; None when it does not."""
        now = self._stages.get(key or "")
        return None if now is None else (now[0], time.monotonic() - now[1])

    def warm(self, key: str) -> threading.Thread:
        """Load, analyze and check `key` in the background, so showing it does not wait for that.

        Problems are left for the moment the file is shown, which reports them.
        """

        def run() -> None:
            try:
                entry = self.get(key)
                entry.after_first_view()
                entry.analysis.build_tables(links=True)  # the mesh view draws the routed links
                entry.findings  # noqa: B018 - computed and cached on first access
            except Exception:  # noqa: BLE001, S110 - showing the file reports it
                pass

        thread = threading.Thread(target=run, name=f"irtools warm {key}", daemon=True)
        thread.start()
        return thread

    def _forget(self, upload: str) -> None:
        """Drop the analysis of an upload the upload store dropped."""
        with self._lock:
            dropped = self._cache.pop((upload,), None)
        if dropped is not None and dropped.frozen:
            del dropped  # no reference left here when the collector looks
            collect_dropped()

    def _cached(self, cache_key: tuple[object, ...], build: Callable[[], Entry]) -> Entry:
        # Several callbacks ask for the same file at once: one builds it, the others wait for it.
        with self._lock:
            if cache_key in self._cache:
                self._cache.move_to_end(cache_key)
                return self._cache[cache_key]
            if cache_key in self._failed:
                raise self._failed[cache_key]
            building = self._building.setdefault(cache_key, threading.Lock())
        with building:
            with self._lock:
                if cache_key in self._cache:
                    return self._cache[cache_key]
                if cache_key in self._failed:
                    raise self._failed[cache_key]
            try:
                entry = build()
            except Exception as exc:
                with self._lock:
                    # MemoryError too: the loading poll would otherwise start the same load again and again.
                    self._failed[cache_key] = exc
                    self._building.pop(cache_key, None)
                    while len(self._failed) > MAX_FAILED:
                        self._failed.popitem(last=False)
                raise
            with self._lock:
                self._cache[cache_key] = entry
                self._building.pop(cache_key, None)
                frozen = False
                while len(self._cache) > self._cache_size:
                    frozen |= self._cache.popitem(last=False)[1].frozen
            if frozen:
                collect_dropped()
        return entry
