"""The dashboard serves only files under its directory, and uploads up to a limit."""

from __future__ import annotations

import base64
import gc
import shutil
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboards import data
from dashboards.data import AccessError, FileStore, filter_findings
from dashboards.wiring import wire
from irtools.analysis import Analysis, AnalysisError
from irtools.findings import Finding
from irtools.loading.boxes import tensor_columns
from irtools.loading.dropping import DROPPED
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.validate import check_loaded

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
FIXTURES = ROOT.parent / "shared" / "fixtures"
DANGLING = ROOT / "sample_ir" / "invalid" / "GIR201-dangling-transfer.json"
WITH_FINDINGS = [
    (FIXTURES / "gemini-raw" / "bert_2x2_b1_ir.json", True),  # GIR305 per core, GIR503 of the whole file
    # Schema errors (its cores are the models', which keep their snapshots), GIR201/203/307.
    (FIXTURES / "npu-simulator" / "ir_ramulator2_dram_test_slice.json", False),
    # GIR201's check reads the snapshots of what its screen flags: the file is read again to check it.
    (DANGLING, True),
]


@pytest.fixture
def served(tmp_path: Path) -> Path:
    root = tmp_path / "served"
    (root / "sub").mkdir(parents=True)
    shutil.copy(MESH, root / "sub" / "mesh.json")
    (root / "sub" / "mesh.expected.json").write_text("{}")
    (tmp_path / "secret.json").write_text('{"secret": 1}')
    (root / "link-out.json").symlink_to(tmp_path / "secret.json")
    (root / "link-in.json").symlink_to(root / "sub" / "mesh.json")
    return root


def test_lists_json_files_inside_only(served: Path) -> None:
    store = FileStore(served, 10**6)
    # The symlink leading outside is hidden; golden *.expected.json files are not IRs.
    assert store.files() == ["link-in.json", "sub/mesh.json"]


@pytest.mark.parametrize(
    "name", ["../secret.json", "sub/../../secret.json", "link-out.json", "/etc/passwd", "", "a\x00b"]
)
def test_paths_outside_or_odd_are_refused(served: Path, name: str) -> None:
    store = FileStore(served, 10**6)
    with pytest.raises(AccessError):
        store.resolve(name)
    with pytest.raises(AccessError):
        store.get(name)


def test_a_served_file_is_analyzed_once(served: Path) -> None:
    store = FileStore(served, 10**6)
    first = store.get("sub/mesh.json")
    assert store.get("sub/mesh.json") is first
    assert first.analysis.makespan("dependency") == 102192


def test_upload_limit_has_a_clear_message(served: Path) -> None:
    store = FileStore(served, 1000)
    data = MESH.read_bytes()
    contents = "data:application/json;base64," + base64.b64encode(data).decode()
    with pytest.raises(AccessError, match=r"upload limit is 0 MB \(irtools serve --max-upload-mb\)"):
        store.add_upload("big.json", contents)
    big = FileStore(served, len(data) + 10)
    key = big.add_upload("mesh.json", contents)
    assert big.get(key).analysis.makespan("sequential") == 60192


def test_bad_upload_data_is_refused(served: Path) -> None:
    with pytest.raises(AccessError, match="not valid base64"):
        FileStore(served, 10**6).add_upload("x.json", "data:application/json;base64,@@@")


def test_findings_filters(served: Path) -> None:
    shutil.copy(ROOT / "sample_ir" / "invalid" / "GIR302-buffer-overlap.json", served / "overlap.json")
    findings = FileStore(served, 10**6).get("overlap.json").findings
    errors = filter_findings(findings, ["error"], None, None)
    assert set(errors["code"]) == {"GIR302"} and set(errors["core_id"]) == {2}
    assert filter_findings(findings, None, ["GIR103"], [2]).empty  # GIR103 is not tied to a core
    assert len(filter_findings(findings, None, None, None)) == len(findings)


def test_the_check_lets_go_of_the_rules_tensor_columns(served: Path) -> None:
    """The entry's index lives as long as the file is open; the columns its check gathered (tens of MiB on
    a 64-core file) are the rules' alone, so they go once the findings are in."""
    entry = FileStore(served, 10**6).get("sub/mesh.json")
    before = tensor_columns(entry.analysis.index)
    assert tensor_columns(entry.analysis.index) is before  # kept while the index lives...
    findings = entry.findings
    assert tensor_columns(entry.analysis.index) is not before  # ...but not after the check
    assert set(findings["code"]) == {"GIR103", "GIR303"}  # the check saw the file: its two notes


def test_warm_loads_analyzes_and_checks_in_the_background(served: Path) -> None:
    store = FileStore(served, 10**6)
    with mock.patch("dashboards.data.load_entry", wraps=data.load_entry) as load:
        store.warm("sub/mesh.json").join(timeout=60)
        entry = store.get("sub/mesh.json")
    assert load.call_count == 1  # showing the file reuses what warming built
    assert "timeline" in vars(entry.analysis) and entry._findings is not None


def test_warm_of_a_refused_path_fails_quietly(served: Path) -> None:
    thread = FileStore(served, 10**6).warm("../secret.json")
    thread.join(timeout=60)
    assert not thread.is_alive()  # no exception escaped: showing the file reports the refusal


def test_an_entry_is_handed_out_with_its_first_views_tables(served: Path) -> None:
    analysis = FileStore(served, 10**6).get("sub/mesh.json").analysis
    assert {"timeline", "core_transfers", "layers", "cores", "_l2", "_wl0"} <= set(vars(analysis))


def test_the_later_work_waits_for_both_first_view_figures(served: Path) -> None:
    entry = FileStore(served, 10**6).get("sub/mesh.json")
    entry.sent("timeline", "dependency")
    assert not entry._first_view.is_set()  # the maps are not sent yet: the check would slow them
    entry.sent("maps", "dependency")
    assert entry._first_view.is_set()
    entry.after_first_view()  # returns at once now
    # A first view nobody draws (a warmed file, no browser yet) holds the later work back no longer
    # than FIRST_VIEW_WAIT.
    with mock.patch("dashboards.data.FIRST_VIEW_WAIT", 0.01):
        other = FileStore(served, 10**6).get("link-in.json")
        other.after_first_view()
    assert not other._first_view.is_set()


def test_what_follows_a_model_switch_waits_for_the_timeline_and_maps_under_that_model(served: Path) -> None:
    entry = FileStore(served, 10**6).get("sub/mesh.json")
    entry.sent("timeline", "dependency")
    entry.sent("maps", "dependency")
    entry.after_view("dependency")  # returns at once: drawn under it
    # The user switches to sequential: its mesh, counters and link heat (new routing sums) must not
    # hold the interpreter before the sequential timeline and maps are sent.
    done = threading.Event()
    waiting = threading.Thread(target=lambda: (entry.after_view("sequential"), done.set()))
    waiting.start()
    entry.sent("timeline", "sequential")
    assert not done.wait(0.2)  # the maps under it are not sent yet
    entry.sent("maps", "sequential")
    assert done.wait(5)
    waiting.join()


@pytest.fixture
def thawed() -> Iterator[None]:
    yield
    gc.unfreeze()  # the other tests' objects back in the collector's sight


@pytest.mark.usefixtures("thawed")
def test_a_large_file_is_frozen_and_freed_when_dropped(served: Path) -> None:
    with mock.patch("dashboards.data.FREEZE_FROM_BYTES", 1):
        store = FileStore(served, 10**6, cache_size=1)
        entry = store.get("sub/mesh.json")
        assert entry.frozen and gc.get_freeze_count() > 0
        # A cycle through the entry: the collector alone can free it, and frozen it cannot see it.
        entry.analysis.cycle = entry  # type: ignore[attr-defined]
        alive = weakref.ref(entry.analysis)
        del entry
        threads: list[threading.Thread] = []
        collect = data.collect_dropped
        with mock.patch("dashboards.data.collect_dropped", lambda: threads.append(collect())):
            store.get("link-in.json")  # the cache holds one: the first file is dropped
        assert len(threads) == 1
    threads[0].join(timeout=60)
    assert alive() is None


def test_a_small_file_is_left_to_the_collector(served: Path) -> None:
    entry = FileStore(served, 10**6).get("sub/mesh.json")
    assert not entry.frozen  # uploads of a few MB come and go: freezing each would cost more


def test_a_file_without_cores_opens_the_first_view_at_once(tmp_path: Path) -> None:
    """No core, no maps to wait for: its findings (all there is to see) are not held back."""
    from dashboards.app import create_app
    from tests.dashboard.dash_client import DashClient

    (tmp_path / "empty.json").write_text('{"xlen": 2, "ylen": 2, "-1": []}')
    app = create_app(tmp_path)
    client = DashClient(app.server.test_client())
    key = {"shown.data": "empty.json"}
    client.call("timeline.figure", {**key, "model.value": "dependency", "arrows.value": "auto"})
    client.call("l2-map.figure", {**key, "model.value": "dependency", "map-axis.value": "cycles"})
    assert app.store.get("empty.json")._first_view.is_set()  # type: ignore[attr-defined]
    found = client.call("findings-summary.children", key)
    assert "GIR101" in str(found["filter-code"]["options"])


def test_a_table_that_fails_fails_only_the_figure_drawn_from_it(served: Path) -> None:
    """Building the first view's tables ahead must not turn one table's error into the whole file's."""
    with mock.patch("irtools.analysis.analysis.layers_table", side_effect=ValueError("broken table")):
        entry = FileStore(served, 10**6).get("sub/mesh.json")
        assert "timeline" in vars(entry.analysis)  # the file is served, its timeline built
        with pytest.raises(ValueError, match="broken table"):
            entry.analysis.layers  # noqa: B018 - raised where it is used, as before


def test_start_loads_a_file_once_in_the_background(served: Path) -> None:
    store = FileStore(served, 10**6)
    with mock.patch("dashboards.data.load_entry", wraps=data.load_entry) as load:
        store.start("sub/mesh.json")
        store.start("sub/mesh.json")  # asked again while it loads (the page polls): not a second load
        _wait_ready(store, "sub/mesh.json")
        store.start("sub/mesh.json")
        entry = store.get("sub/mesh.json")
    assert load.call_count == 1 and entry.analysis.makespan("dependency") == 102192


def test_a_file_that_fails_to_load_is_ready_with_its_error(served: Path) -> None:
    (served / "broken.json").write_text('{"xlen": 2, ')
    store = FileStore(served, 10**6)
    with mock.patch("dashboards.data.load_entry", wraps=data.load_entry) as load:
        store.start("broken.json")
        _wait_ready(store, "broken.json")  # the page then shows the file, and with it the error
        for _ in range(2):
            with pytest.raises(data.AnalysisError, match="broken.json: .*invalid JSON"):
                store.get("broken.json")
    assert load.call_count == 1  # the error is kept: a 300 MB file is not parsed again to repeat it
    (served / "broken.json").write_text(MESH.read_text())  # mended: a new file to the store
    assert not store.ready("broken.json")
    assert store.get("broken.json").analysis.makespan("dependency") == 102192


def _wait_ready(store: FileStore, key: str) -> None:
    for _ in range(600):
        if store.ready(key):
            return
        threading.Event().wait(0.1)
    raise AssertionError(f"{key} not ready after 60 s")


def test_a_load_that_runs_out_of_memory_is_not_started_again_by_every_poll(served: Path) -> None:
    store = FileStore(served, 10**6)
    with mock.patch("dashboards.data.load_entry", side_effect=MemoryError) as load:
        store.start("sub/mesh.json")
        _wait_ready(store, "sub/mesh.json")
        store.start("sub/mesh.json")  # the next poll tick
        with pytest.raises(MemoryError):
            store.get("sub/mesh.json")
    assert load.call_count == 1


def test_a_figure_is_built_once_and_the_last_ones_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data, "FIGURES_KEPT", 2)
    entry = data.Entry("x.json", mock.Mock())
    built: list[str] = []

    def build(name: str) -> go.Figure:
        built.append(name)
        return go.Figure(layout={"title": name})

    first = entry.figure(("timeline", "noc"), lambda: build("noc"))
    assert entry.figure(("timeline", "noc"), lambda: build("again")) is first  # a switch back: not rebuilt
    entry.figure(("timeline", "sequential"), lambda: build("sequential"))
    entry.figure(("timeline", "dependency"), lambda: build("dependency"))  # the oldest, noc, is dropped
    entry.figure(("timeline", "noc"), lambda: build("noc"))
    assert built == ["noc", "sequential", "dependency", "noc"]


@pytest.mark.parametrize(("path", "dropped"), WITH_FINDINGS, ids=lambda p: getattr(p, "name", ""))
def test_a_served_files_snapshots_are_dropped_and_its_check_reads_it_again(
    served: Path, path: Path, dropped: bool
) -> None:
    """The store keeps a file's analysis without its snapshots; its findings are still every rule's on the
    whole file (read again core by core, as `irtools validate` reads it)."""
    shutil.copy(path, served / "ir.json")
    entry = FileStore(served, 10**7).get("ir.json")
    assert entry.analysis.snapshots_dropped
    rows = entry.analysis.index.rows
    assert any(getattr(ref.workload, "buffer", None) is DROPPED for ref in rows) is dropped
    whole = load_ir(served / "ir.json")
    found = check_loaded(whole, RunOptions(), Analysis(whole).index)
    expected = data.findings_frame(sorted(found, key=Finding.sort_key))  # in the file's order, as validate's
    assert len(expected) > 2
    pd.testing.assert_frame_equal(entry.findings, expected)


def test_a_file_changed_before_its_check_is_not_checked_as_the_one_shown(served: Path) -> None:
    """A file's check reads what was read to show it; where it must read the file again (a whole-file step
    needs a dropped snapshot) and the file changed meanwhile, one finding says so instead."""
    shutil.copy(DANGLING, served / "dangling.json")
    store = FileStore(served, 10**6)
    mesh, dangling = store.get("sub/mesh.json"), store.get("dangling.json")
    for name in ("sub/mesh.json", "dangling.json"):
        (served / name).write_text((served / name).read_text().replace("{", "{ ", 1))
    whole = load_ir(MESH)
    expected = data.findings_frame(sorted(check_loaded(whole, RunOptions()), key=Finding.sort_key))
    pd.testing.assert_frame_equal(mesh.findings, expected)
    assert dangling.findings[["code", "message"]].values.tolist() == [["GIR100", data.CHANGED]]


def test_a_view_that_reads_a_dropped_snapshot_is_drawn_from_the_file_read_whole(served: Path) -> None:
    """No view reads a snapshot once dropped; if one did, the store reads the file again whole and the view
    is drawn from it (the server's log says so), rather than failing."""
    store = FileStore(served, 10**6)
    entry = store.get("sub/mesh.json")
    assert entry.analysis.snapshots_dropped
    app = mock.Mock()

    def first_entry(bound: FileStore, trigger: object) -> int:
        return len(bound.get("sub/mesh.json").analysis.index.rows[0].workload.buffer)

    wire(app, first_entry, store)
    registered = app.callback.return_value.call_args.args[0]
    with mock.patch("dashboards.wiring.current_trigger"):
        assert registered() == len(load_ir(served / "sub" / "mesh.json").ir.cores["1"][0].buffer)
    assert store.get("sub/mesh.json") is entry and not entry.analysis.snapshots_dropped


def test_a_deadlocked_file_is_kept_whole_for_its_wait_cycles(served: Path) -> None:
    """The timeline marks a deadlocked file's wait cycles, found by walking its tensors: such a file is
    read again whole as it is loaded (the report reads it through the same load)."""
    shutil.copy(ROOT / "sample_ir" / "invalid" / "GIR502-deadlock.json", served / "deadlock.json")
    entry = FileStore(served, 10**6).get("deadlock.json")
    assert not entry.analysis.snapshots_dropped
    assert entry.analysis.wait_cycles
    assert "GIR502" in set(entry.findings["code"])
    assert FileStore(served, 10**6).get("sub/mesh.json").analysis.snapshots_dropped


def test_warm_builds_the_tables_without_their_positioned_copies(
    served: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Warming builds every table the views and downloads read (the routed links too) once, and keeps no
    copy with mesh positions: those, made for every table at once, raised the server's peak."""
    positioned: list[str] = []
    monkeypatch.setattr(Analysis, "table", lambda self, name: positioned.append(name))
    store = FileStore(served, 10**6)
    store.warm("sub/mesh.json").join(timeout=60)
    analysis = store.get("sub/mesh.json").analysis
    assert positioned == []
    assert {"timeline", "core_transfers", "dram_traffic", "layers"} <= set(vars(analysis))
    assert {"tensors", "l2_occupancy"} <= set(vars(analysis)["_l2"])  # the L2 tables, built together
    assert analysis._whole_schedule.get("dependency", lambda: pytest.fail("noc_links not built")) is not None


def test_a_view_of_a_file_changed_since_it_was_shown_is_not_drawn_from_the_new_file(served: Path) -> None:
    """Were a view to read a dropped snapshot after the file changed on disk, reading it whole would mix the
    new file's objects with the shown one's views and findings: the view gets the CHANGED error instead."""
    store = FileStore(served, 10**6)
    entry = store.get("sub/mesh.json")
    shown = entry.analysis
    (served / "sub" / "mesh.json").write_text(
        (served / "sub" / "mesh.json").read_text().replace("{", "{ ", 1)
    )
    with pytest.raises(AnalysisError, match="changed on disk"):
        entry.read_whole()
    assert entry.analysis is shown and entry.analysis.snapshots_dropped
