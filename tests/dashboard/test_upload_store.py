"""Uploads are bounded in total bytes: the least recently used go first, with their analysis."""

from __future__ import annotations

import base64
import gc
import shutil
from pathlib import Path

import psutil
import pytest

from dashboards.app import create_app
from dashboards.data import AccessError, FileStore
from dashboards.upload_store import UploadStore, default_store_bytes
from tests.conftest import RunCli
from tests.dashboard.dash_client import DashClient

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
MB = 10**6


def data_url(data: bytes) -> str:
    return "data:application/json;base64," + base64.b64encode(data).decode()


def distinct_ir(i: int, size: int) -> bytes:
    """The sample IR padded with i + size spaces: a distinct upload of about `size` bytes, quick to analyze."""
    return MESH.read_bytes() + b" " * (size + i)


@pytest.fixture
def served(tmp_path: Path) -> Path:
    shutil.copy(MESH, tmp_path / "mesh.json")
    return tmp_path


def test_least_recently_used_go_first_and_same_bytes_are_one_upload() -> None:
    dropped: list[str] = []
    store = UploadStore(300, on_evict=dropped.append)
    a, b = store.add("a.json", b"a" * 100), store.add("b.json", b"b" * 100)
    assert store.add("again.json", b"a" * 100) == a and len(store) == 2  # same bytes: stored once
    store.get(a)  # a is now the most recently used
    c = store.add("c.json", b"c" * 150)
    assert dropped == [b] and b not in store and {a, c} <= set(store._uploads)
    assert store.total_bytes == 250
    with pytest.raises(KeyError):
        store.get(b)


def test_an_evicted_upload_takes_its_analysis_and_asks_to_be_uploaded_again(served: Path) -> None:
    store = FileStore(served, 5 * MB, max_upload_store_bytes=5 * MB)
    first = store.add_upload("first.json", data_url(distinct_ir(0, 2 * MB)))
    assert store.get(first).analysis.makespan("sequential") == 60192
    second = store.add_upload("second.json", data_url(distinct_ir(1, 2 * MB)))
    store.get(second)
    store.add_upload("third.json", data_url(distinct_ir(2, 2 * MB)))  # 6 MB > 5 MB: first goes
    assert (first,) not in store._cache and (second,) in store._cache
    with pytest.raises(AccessError, match="no longer available.*upload it again"):
        store.get(first)


def test_an_upload_larger_than_the_store_is_refused_with_the_option_to_change(served: Path) -> None:
    store = FileStore(served, 10 * MB, max_upload_store_bytes=1 * MB)
    with pytest.raises(AccessError, match=r"keeps 1 MB of uploads \(irtools serve --max-upload-store-mb\)"):
        store.add_upload("big.json", data_url(distinct_ir(0, 2 * MB)))


def test_the_default_bound_fits_the_machine() -> None:
    memory = psutil.virtual_memory().total
    assert default_store_bytes(200 * MB) == max(memory // 16, 200 * MB)
    assert default_store_bytes(memory) == memory  # one upload at the limit always fits


def test_soak_hundreds_of_distinct_uploads_through_the_callbacks_stay_bounded(served: Path) -> None:
    """200 distinct 1 MB uploads, each analyzed, as a browser sends them: unbounded, they held 200 MB."""
    bound = 16 * MB
    app = create_app(served, max_upload_bytes=2 * MB, max_upload_store_bytes=bound)
    client = DashClient(app.server.test_client())
    process = psutil.Process()
    keys, rss = [], []
    for i in range(200):
        upload = {"upload.contents": data_url(distinct_ir(i, MB))}
        chosen = client.call("current.data", upload, {"upload.filename": f"u{i}.json"})
        key = chosen["current"]["data"]
        header = client.call("status.children", {"shown.data": key, "model.value": "dependency"})
        assert f"u{i}.json: 4 cores, 5 workloads" in str(header)
        keys.append(key)
        if i in (19, 199):  # the store is full after about 16 uploads: measure from there
            gc.collect()
            rss.append(process.memory_info().rss)
    store = app.store  # type: ignore[attr-defined]
    assert len(set(keys)) == 200
    assert store.uploads.total_bytes <= bound and len(store.uploads) == 15
    assert all(k[0] in store.uploads for k in store._cache if k[0].startswith("upload:"))
    growth = rss[1] - rss[0]
    print(f"RSS after 20 uploads {rss[0] / MB:.0f} MB, after 200 {rss[1] / MB:.0f} MB")
    assert growth < 60 * MB, f"resident memory grew by {growth / MB:.0f} MB over 180 uploads of 1 MB"
    # The first upload is gone: picking it again says so instead of showing nothing.
    header = client.call("status.children", {"shown.data": keys[0], "model.value": "dependency"})
    assert "upload it again" in str(header)


def test_a_store_smaller_than_one_upload_is_a_usage_error(run_cli: RunCli, served: Path) -> None:
    code, _, err = run_cli("serve", served, "--max-upload-mb", "300", "--max-upload-store-mb", "100")
    assert code == 2 and "--max-upload-store-mb 100 is less than --max-upload-mb 300" in err
