"""A file over the size limit is not read: one GIR100 finding says why, with the file's name and size."""

from __future__ import annotations

from pathlib import Path

import pytest

from irtools.findings import Severity
from irtools.limits import size_problem
from irtools.loading.load import load_ir

SAMPLE = (
    Path(__file__).resolve().parents[2] / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
)


def test_a_file_over_the_limit_gets_one_gir100_and_no_ir() -> None:
    size = SAMPLE.stat().st_size
    loaded = load_ir(SAMPLE, max_bytes=size - 1)
    assert loaded.path == str(SAMPLE) and loaded.ir is None and loaded.size_bytes == size
    assert [(f.code, f.severity, f.message) for f in loaded.findings] == [
        ("GIR100", Severity.ERROR, size_problem(size, size - 1))
    ]
    assert "over the 0 MB limit" in loaded.findings[0].message


def test_a_file_at_the_limit_is_read_under_the_name_given() -> None:
    size = SAMPLE.stat().st_size
    loaded = load_ir(SAMPLE, path="shown.json", max_bytes=size)
    assert loaded.path == "shown.json" and loaded.ir is not None and loaded.size_bytes == size
    assert not [f for f in loaded.findings if f.code == "GIR100"]


@pytest.mark.parametrize("limit", [None, 1])
def test_bytes_are_never_refused_by_size_and_keep_their_name(limit: int | None) -> None:
    data = SAMPLE.read_bytes()
    loaded = load_ir(data, path="upload.json", max_bytes=limit)  # the caller limits what it was sent
    assert loaded.path == "upload.json" and loaded.ir is not None and loaded.size_bytes == len(data)
    assert load_ir(data).path == "<bytes>"
