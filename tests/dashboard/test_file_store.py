"""The dashboard serves only files under its directory, and uploads up to a limit."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path
from unittest import mock

import pytest

from dashboards import data
from dashboards.data import AccessError, FileStore, filter_findings

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


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
