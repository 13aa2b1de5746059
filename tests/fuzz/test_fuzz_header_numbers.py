"""Header numbers set huge, negative and zero, in every dialect: validate, analyze, report and serve
answer each with findings or one refusal, never a traceback, and in memory bounded by the file."""

from __future__ import annotations

import base64
import itertools
import json
import random
from pathlib import Path

import pytest

from dashboards.app import create_app
from irtools.analysis import TABLES, AnalysisError, analyze
from tests.conftest import RunCli
from tests.dashboard.dash_client import DashClient
from tests.fuzz import mutators as M
from tests.fuzz.header_numbers import (
    SIZES,
    TARGETS,
    dialect_bases,
    header_mutant,
    random_header_mutant,
)

BASES = dialect_bases()
TABLE_VALUES = (0, -1, -(2**63), 1000, 10**5, 2**53 + 1, 2**63 - 1, 2**64)
"""Zero, negative, just past int64, and huge: each class of VALUES once (the campaign draws them all)."""
CASES = [(dialect, target, value) for dialect in BASES for target in TARGETS for value in TABLE_VALUES]


def _analyzes_or_refuses(data: bytes) -> str:
    """ "tables" when every table was computed with its columns, else the one-line refusal."""
    try:
        analysis = analyze(data)
        frames = {name: analysis.table(name) for name in TABLES}
    except AnalysisError as exc:
        assert "\n" not in str(exc)
        return str(exc)
    for name, frame in frames.items():
        assert list(frame.columns) == [c.name for c in TABLES[name].columns], name
    return "tables"


@pytest.mark.parametrize(("dialect", "target", "value"), CASES)
def test_validate_and_analyze_answer_every_header_number(dialect: str, target: str, value: int) -> None:
    data = header_mutant(BASES[dialect], {target: value})
    findings = M.check_bytes(data)
    assert M.contract_violations(findings) == []
    codes = {f.code for f in findings if f.severity.value == "error"}
    answer = _analyzes_or_refuses(data)
    if target in ("xlen", "ylen") and 10**4 < value < 2**63:
        # A mesh of so many positions is never plausible for these few cores: GIR506, refused.
        assert "GIR506" in codes and "GIR506" in answer, (codes, answer)
    if target in ("xlen", "ylen", "top_batch_cut") and not 1 <= value < 2**63:
        assert "GIR101" in codes  # a positive 64-bit integer: a schema error, the rest still checked


@pytest.mark.parametrize("dialect", list(BASES))
@pytest.mark.parametrize(
    ("target", "value"), [("ylen", 2**53 + 1), ("xlen", 10**5), ("ylen", 0), (SIZES, 2**63 - 1)]
)
def test_report_writes_or_refuses_in_one_line(
    run_cli: RunCli, tmp_path: Path, dialect: str, target: str, value: int
) -> None:
    path = tmp_path / f"{dialect}.json"
    path.write_bytes(header_mutant(BASES[dialect], {target: value}))
    code, _, err = run_cli("report", path, "-o", tmp_path / "report.html")
    assert code in (0, 1) and "Traceback" not in err, err
    assert (code == 0) == (tmp_path / "report.html").exists()
    if code == 1:
        assert len(err.strip().splitlines()) == 1 and "cannot be analyzed" in err


def test_serve_answers_a_huge_mesh_upload_with_its_reason(tmp_path: Path) -> None:
    client = DashClient(create_app(tmp_path).server.test_client())
    for (dialect, base), (target, value, code) in itertools.product(
        BASES.items(), [("ylen", 2**53 + 1, "GIR506"), (SIZES, 2**63 - 1, "64 bits")]
    ):
        data = header_mutant(base, {target: value})
        contents = "data:application/json;base64," + base64.b64encode(data).decode()
        chosen = client.call(
            "current.data", {"upload.contents": contents}, {"upload.filename": f"{dialect}.json"}
        )
        key = chosen["current"]["data"]
        status = client.call("status.children", {"shown.data": key, "model.value": "dependency"})
        if dialect == "npu-simulator" and target == SIZES:
            continue  # its sizes are booleans and strings where numbers belong (GIR101): nothing to add up
        assert code in json.dumps(status), (dialect, target)
        state = {"table-name.value": "noc_links", "shown.data": key}
        assert not client.call("download.data", {"download-button.n_clicks": 1}, state)


@pytest.mark.parametrize("seed", range(40))
def test_random_header_mutants_validate_and_analyze(seed: int) -> None:
    rng = random.Random(seed)
    dialect = rng.choice(sorted(BASES))
    data, log = random_header_mutant(BASES[dialect], rng)
    assert M.contract_violations(M.check_bytes(data)) == [], log
    _analyzes_or_refuses(data)
