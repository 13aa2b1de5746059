"""Each CI output format read by its consumer's schema or parser, and the annotations' lines read back
from the files: on the real npu-simulator fixture and on the GIR204 sample."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from irtools import pointer as jp

ROOT = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = json.loads((ROOT / "tests/schemas/sarif-2.1.0-excerpt.schema.json").read_text())
GIR204 = ROOT / "sample_ir/invalid/GIR204-causality.json"
NPU = "npu-simulator/ir_ramulator2_dram_test_slice.json"
ANNOTATION = re.compile(r"::(error|warning|notice) file=([^,]*),line=(\d+),col=(\d+),title=([^:]*)::(.*)")


def _unescape(data: str) -> str:
    return (
        data.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def _deepest(doc: Any, pointer: str) -> str:
    """The longest prefix of `pointer` that resolves in `doc` (a missing key names its object)."""
    tokens = jp.split(pointer)
    for n in range(len(tokens), -1, -1):
        candidate = jp.join(*tokens[:n])
        try:
            jp.resolve(doc, candidate)
        except (KeyError, IndexError, ValueError, TypeError):
            continue
        return candidate
    return ""


def assert_points_at(text: str, line: int, column: int, pointer: str) -> None:
    """The line (and column) hold what `pointer` names: its key for an object member, else its value."""
    doc = json.loads(text)
    named = _deepest(doc, pointer)
    lines = text.splitlines(keepends=True)
    offset = sum(len(part) for part in lines[: line - 1]) + column - 1
    tokens = jp.split(named)
    parent = jp.resolve(doc, jp.join(*tokens[:-1])) if tokens else None
    if isinstance(parent, dict):
        key, _ = json.decoder.scanstring(text, offset + 1)  # type: ignore[attr-defined]
        assert key == tokens[-1], f"line {line} holds key {key!r}, not {tokens[-1]!r} of {pointer}"
        assert json.dumps(key) in lines[line - 1]
    else:
        value, _ = json.JSONDecoder().raw_decode(text, offset)
        assert value == jp.resolve(doc, named), f"line {line} does not start {pointer}"


def annotations(out: str) -> list[tuple[str, int, int, str]]:
    """(file, line, column, pointer) of each GitHub workflow command."""
    found = []
    for text in out.splitlines():
        match = ANNOTATION.fullmatch(text)
        if match:
            data = _unescape(match.group(6))
            pointer = data.rsplit(" (at ", 1)[1][:-1] if data.endswith(")") and " (at " in data else ""
            found.append((match.group(2), int(match.group(3)), int(match.group(4)), pointer))
    return found


def test_every_npu_simulator_annotation_points_at_its_line(run_cli: Any, fixtures_dir: Path) -> None:
    path = fixtures_dir / NPU
    code, out, _ = run_cli("validate", "--isolated", "--format", "github", path)
    assert code == 1
    found = annotations(out)
    # 282 findings on 6,331 lines; before, every one of them sat on line 1.
    assert len(found) == len(out.splitlines()) - 1 > 250
    assert len({line for _, line, _, _ in found}) > 200
    text = path.read_text(encoding="utf-8")
    for _, line, column, pointer in found:
        assert_points_at(text, line, column, pointer)


def test_gir204_sample_annotations(run_cli: Any) -> None:
    code, out, _ = run_cli("validate", "--isolated", "--format", "github", GIR204)
    found = annotations(out)
    assert code == 1 and len(found) == 11
    text = GIR204.read_text(encoding="utf-8")
    for _, line, column, pointer in found:
        assert_points_at(text, line, column, pointer)
    # The causality finding itself: /2/0/ifmap/0, the ifmap entry reading transfer 12.
    [causality] = [a for a in out.splitlines() if "title=GIR204" in a]
    line = int(re.search(r"line=(\d+)", causality).group(1))  # type: ignore[union-attr]
    entry = text.splitlines()[line - 1 : line + 11]
    assert entry[0].strip() == "{" and entry[-2:] == ['     "transfer_id": [', "      12"]


@pytest.fixture
def npu_and_samples(fixtures_dir: Path) -> list[Path]:
    return [fixtures_dir / NPU, *sorted((ROOT / "sample_ir/invalid").glob("GIR*[0-9]-*[a-z].json"))]


def test_sarif_passes_the_sarif_2_1_0_schema(run_cli: Any, npu_and_samples: list[Path]) -> None:
    code, out, _ = run_cli("validate", "--isolated", "--format", "sarif", *npu_and_samples)
    assert code == 1
    log = json.loads(out)
    jsonschema.Draft7Validator.check_schema(SARIF_SCHEMA)
    errors = list(jsonschema.Draft7Validator(SARIF_SCHEMA).iter_errors(log))
    assert errors == [], errors[:3]
    results = log["runs"][0]["results"]
    assert len(results) > 300
    prints = [r["partialFingerprints"]["irtoolsFinding/v1"] for r in results]
    assert len(set(prints)) == len(prints)
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results]
    assert sum(line > 1 for line in lines) > 0.9 * len(lines)


GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def test_gitlab_code_quality_fields(run_cli: Any, npu_and_samples: list[Path]) -> None:
    code, out, _ = run_cli("validate", "--isolated", "--format", "gitlab", *npu_and_samples)
    assert code == 1
    issues = json.loads(out)
    assert isinstance(issues, list) and len(issues) > 300
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert all(
            isinstance(issue[k], str) and issue[k] for k in ("description", "check_name", "fingerprint")
        )
        assert issue["severity"] in GITLAB_SEVERITIES
        assert set(issue["location"]) == {"path", "lines"}
        assert not issue["location"]["path"].startswith("./") and "\\" not in issue["location"]["path"]
        begin = issue["location"]["lines"]["begin"]
        assert isinstance(begin, int) and begin >= 1
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab drops issues with equal ones


def test_junit_parses(run_cli: Any, npu_and_samples: list[Path]) -> None:
    code, out, _ = run_cli("validate", "--isolated", "--format", "junit", *npu_and_samples)
    assert code == 1
    root = ET.fromstring(out.encode("utf-8"))
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(npu_and_samples) == int(suite.get("tests", "0"))
    failing = [c for c in cases if c.find("failure") is not None]
    assert len(failing) == int(suite.get("failures", "0")) > 0
    # Each failure lists its findings as path:line:column lines, like the text format.
    body = failing[0].findtext("failure") or ""
    assert re.match(r"\S+\.json:\d+:\d+: GIR\d{3} ", body)
