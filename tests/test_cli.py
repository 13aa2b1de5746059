"""The `irtools` command line: exit codes, bad inputs as findings (never tracebacks), output contracts."""

from __future__ import annotations

import bz2
import codecs
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from irtools.dialects import DOCUMENTED
from irtools.dialects.schema import build_schema
from irtools.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
INT64_MAX = 2**63 - 1


def validate_json(run_cli: Any, *args: str | Path) -> tuple[int, dict[str, Any]]:
    """Run `irtools validate --format json ARGS`; return the exit code and the parsed report."""
    code, out, err = run_cli("validate", "--format", "json", *args)
    assert "Traceback" not in err
    return code, json.loads(out)


def findings_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    """All findings of a one-file JSON report."""
    assert len(report["files"]) == 1, report
    return report["files"][0]["findings"]


def codes(report: dict[str, Any]) -> set[tuple[str, str]]:
    """(code, severity) pairs of a one-file JSON report."""
    return {(f["code"], f["severity"]) for f in findings_of(report)}


def text_lines(out: str) -> list[str]:
    """Finding lines of the text reporter (the last line is the summary)."""
    lines = out.splitlines()
    assert lines and " checked: " in lines[-1], out
    return lines[:-1]


# --- exit codes -----------------------------------------------------------------------------------


def test_valid_file_exits_0_with_no_findings(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    path = write_ir(minimal_ir)
    code, out, err = run_cli("validate", path)
    assert code == 0
    assert text_lines(out) == []
    assert out.splitlines()[-1] == "1 file checked: 0 errors, 0 warnings, 0 info"
    assert err == ""


def test_schema_error_exits_1(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    minimal_ir["0"][0]["buffer"][0]["address"] = "0x0"
    path = write_ir(minimal_ir)
    code, out, _ = run_cli("validate", path)
    assert code == 1
    # path:line:column of the "address" key in the file as written, then the pointer after the message.
    [line] = [t for t in text_lines(out) if "GIR101 error" in t]
    assert line.endswith(": GIR101 error expected an integer, got string '0x0' (at /0/0/buffer/0/address)")
    number = int(line.removeprefix(f"{path}:").split(":")[0])
    assert '"address": "0x0"' in Path(path).read_text().splitlines()[number - 1]


def test_warnings_alone_exit_0(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    minimal_ir["0"][0]["bufer"] = []  # a typo'd key: GIR103 warning, not an error
    code, report = validate_json(run_cli, write_ir(minimal_ir))
    assert code == 0
    assert codes(report) == {("GIR103", "warning")}
    assert report["summary"] == {"files": 1, "errors": 0, "warnings": 1}


def test_missing_path_exits_2_naming_the_path(run_cli: Any, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-ir.json"
    code, out, err = run_cli("validate", missing)
    assert code == 2
    assert out == ""
    assert str(missing) in err
    assert "no such file or directory" in err


def test_missing_path_among_good_ones_still_exits_2(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    good = write_ir(minimal_ir)
    code, _, err = run_cli("validate", good, good.with_name("gone.json"))
    assert code == 2
    assert "gone.json" in err


@pytest.mark.parametrize("flag", ["--select", "--ignore"])
def test_unknown_rule_code_exits_2_naming_the_flag(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], flag: str
) -> None:
    code, out, err = run_cli("validate", flag, "GIR999", write_ir(minimal_ir))
    assert code == 2
    assert out == ""
    assert flag in err and "GIR999" in err


def test_unknown_severity_override_exits_2(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    code, _, err = run_cli("validate", "--severity", "GIR103=fatal", write_ir(minimal_ir))
    assert code == 2
    assert "--severity" in err


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_must_be_positive(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], jobs: str) -> None:
    code, out, err = run_cli("validate", "--jobs", jobs, write_ir(minimal_ir))
    assert code == 2
    assert out == ""
    assert "--jobs" in err and "positive integer" in err


def test_jobs_does_not_change_output(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    write_ir(minimal_ir, "a.json")
    minimal_ir["0"][0]["buffer"][1]["address"] = True
    write_ir(minimal_ir, "b.json")
    directory = write_ir(b"", "c.json").parent
    serial = run_cli("validate", "--format", "json", directory)
    parallel = run_cli("validate", "--format", "json", "--jobs", "3", directory)
    auto = run_cli("validate", "--format", "json", "--jobs", "auto", directory)
    assert serial.code == parallel.code == auto.code == 1
    assert serial.out == parallel.out == auto.out


# --- bad inputs: GIR100 findings with a location, exit 1, never a traceback ----------------------------


def gir100(code: int, out: str, err: str, path: Path) -> list[str]:
    """Check the run failed with exactly GIR100 errors; return those lines."""
    assert code == 1
    assert "Traceback" not in err
    lines = text_lines(out)
    assert lines, out
    assert all(" GIR100 error " in line for line in lines), lines
    assert all(line.startswith(f"{path}:") for line in lines)
    return lines


def test_empty_file(run_cli: Any, write_ir: Any) -> None:
    path = write_ir(b"")
    lines = gir100(*run_cli("validate", path), path)
    assert lines == [f"{path}:1:1: GIR100 error file is empty"]


def test_whitespace_only_file(run_cli: Any, write_ir: Any) -> None:
    path = write_ir(b" \n\t\r\n  ")
    lines = gir100(*run_cli("validate", path), path)
    assert lines == [f"{path}:1:1: GIR100 error file holds only whitespace"]


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        # cut off after a key: the value is missing at the very end of line 3
        ('{\n  "buffersize": 1024,\n  "xlen": ', 3, 11, "Expecting value"),
        # cut off inside a list
        ('{\n  "-1": {"in": [1,\n    2', 3, 6, "Expecting ',' delimiter"),
        # a forgotten comma between two keys
        ('{\n "xlen": 1\n "ylen": 1\n}', 3, 2, "Expecting ',' delimiter"),
    ],
)
def test_truncated_json_reports_line_and_column(
    run_cli: Any, write_ir: Any, text: str, line: int, column: int, message: str
) -> None:
    path = write_ir(text.encode())
    lines = gir100(*run_cli("validate", path), path)
    assert lines == [f"{path}:{line}:{column}: GIR100 error invalid JSON: {message}"]


def test_truncated_real_sized_ir(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    text = json.dumps(minimal_ir, indent=1)
    path = write_ir(text[: len(text) // 2].encode())
    lines = gir100(*run_cli("validate", path), path)
    assert len(lines) == 1
    assert ": GIR100 error invalid JSON: " in lines[0]


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (bytes(range(256)) * 4, "UTF-16/UTF-32"),  # starts with NUL bytes
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "invalid UTF-8 byte 0x89 at byte offset 0"),
        (gzip.compress(b'{"0": []}'), "file is gzip-compressed: decompress it first (gunzip)"),
        (lzma.compress(b'{"0": []}'), "file is xz-compressed: decompress it first (unxz)"),
        (bz2.compress(b'{"0": []}'), "file is bzip2-compressed: decompress it first (bunzip2)"),
    ],
    ids=["all-bytes", "png", "gzip", "xz", "bzip2"],
)
def test_binary_file(run_cli: Any, write_ir: Any, data: bytes, fragment: str) -> None:
    path = write_ir(data)
    lines = gir100(*run_cli("validate", path), path)
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}:1:")
    assert fragment in lines[0]


@pytest.mark.parametrize(
    ("encoding", "bom", "fragment"),
    [
        ("utf-16-le", codecs.BOM_UTF16_LE, "file is UTF-16-encoded"),
        ("utf-16-be", codecs.BOM_UTF16_BE, "file is UTF-16-encoded"),
        ("utf-16-le", b"", "UTF-16/UTF-32-encoded (NUL bytes)"),
        ("utf-16-be", b"", "UTF-16/UTF-32-encoded (NUL bytes)"),
        ("utf-32-le", codecs.BOM_UTF32_LE, "file is UTF-32-encoded"),
        ("utf-32-be", codecs.BOM_UTF32_BE, "file is UTF-32-encoded"),
        ("utf-32-le", b"", "UTF-16/UTF-32-encoded (NUL bytes)"),
    ],
    ids=["utf16le-bom", "utf16be-bom", "utf16le", "utf16be", "utf32le-bom", "utf32be-bom", "utf32le"],
)
def test_wide_encodings_are_rejected(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], encoding: str, bom: bytes, fragment: str
) -> None:
    # The content is a valid IR: only the encoding is wrong, and RFC 8259 requires UTF-8.
    path = write_ir(bom + json.dumps(minimal_ir).encode(encoding))
    lines = gir100(*run_cli("validate", path), path)
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}:1:1: GIR100 error ")
    assert fragment in lines[0]
    assert "RFC 8259 requires UTF-8" in lines[0]


def test_invalid_utf8_byte_reports_its_position(run_cli: Any, write_ir: Any) -> None:
    data = b'{\n  "layer_name": "conv\xff1"\n}'
    path = write_ir(data)
    lines = gir100(*run_cli("validate", path), path)
    offset = data.index(b"\xff")
    assert lines == [f"{path}:2:22: GIR100 error invalid UTF-8 byte 0xff at byte offset {offset}"]


def test_top_level_array_is_a_schema_error_on_the_whole_document(run_cli: Any, write_ir: Any) -> None:
    code, report = validate_json(run_cli, write_ir([{"-1": {}}]))
    assert code == 1
    [finding] = findings_of(report)
    assert (finding["code"], finding["severity"], finding["pointer"]) == ("GIR101", "error", "")
    assert finding["message"] == "expected an object, got array of 1 item"


@pytest.mark.parametrize("data", [b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000])
def test_deep_nesting(run_cli: Any, write_ir: Any, data: bytes) -> None:
    path = write_ir(data)
    lines = gir100(*run_cli("validate", path), path)
    assert len(lines) == 1
    assert "nesting too deep" in lines[0]


def test_integer_beyond_int64_is_a_schema_error(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    minimal_ir["0"][0]["buffer"][0]["size"] = 10**30
    code, report = validate_json(run_cli, write_ir(minimal_ir))
    assert code == 1
    errors = [f for f in findings_of(report) if f["severity"] == "error"]
    assert [(f["code"], f["pointer"], f["core_id"]) for f in errors] == [("GIR101", "/0/0/buffer/0/size", 0)]
    assert errors[0]["message"] == f"expected a value <= {INT64_MAX}, got integer {10**30}"


@pytest.mark.parametrize(
    ("text", "line", "column", "constant"),
    [
        ('{\n  "buffersize": NaN\n}', 2, 17, "NaN"),
        ('{"xlen": 1, "ylen": Infinity}', 1, 21, "Infinity"),
        ('{"xlen": 1,\n "ylen": -Infinity}', 2, 10, "-Infinity"),
        # the first NaN is inside a string and is not the culprit
        ('{"note": "NaN Infinity",\n "x": [1, NaN]}', 2, 11, "NaN"),
    ],
)
def test_non_finite_numbers(
    run_cli: Any, write_ir: Any, text: str, line: int, column: int, constant: str
) -> None:
    path = write_ir(text.encode())
    lines = gir100(*run_cli("validate", path), path)
    assert lines == [
        f"{path}:{line}:{column}: GIR100 error {constant} is not a JSON number (RFC 8259 allows only finite numbers)"
    ]


def test_duplicate_key_is_gir102_at_its_pointer(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    text = json.dumps(minimal_ir)
    assert text.count('"address": 1024') == 1
    text = text.replace('"address": 1024', '"address": 1024, "address": 4096')
    code, report = validate_json(run_cli, write_ir(text.encode()))
    assert code == 1
    dups = [f for f in findings_of(report) if f["code"] == "GIR102"]
    assert [(f["severity"], f["pointer"]) for f in dups] == [("error", "/0/0/buffer/1/address")]
    assert "'address' appears 2 times" in dups[0]["message"]


def test_duplicate_top_level_key(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    text = json.dumps(minimal_ir)
    text = text[:-1] + ', "xlen": 2}'
    code, report = validate_json(run_cli, write_ir(text.encode()))
    assert code == 1
    assert [f["pointer"] for f in findings_of(report) if f["code"] == "GIR102"] == ["/xlen"]


def test_utf8_bom_on_valid_ir_is_only_a_warning(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    path = write_ir(codecs.BOM_UTF8 + json.dumps(minimal_ir).encode())
    code, out, _ = run_cli("validate", path)
    assert code == 0
    assert text_lines(out) == [f"{path}:1:1: GIR100 warning UTF-8 byte order mark at the start of the file"]


def test_utf8_bom_does_not_hide_the_rest(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    minimal_ir["0"][0]["buffer"][0]["address"] = True
    path = write_ir(codecs.BOM_UTF8 + json.dumps(minimal_ir).encode())
    code, report = validate_json(run_cli, path)
    assert code == 1
    assert {("GIR100", "warning"), ("GIR101", "error")} <= codes(report)
    assert report["files"][0]["warnings"] == 1


# --- strict typing --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "got"),
    [
        (True, "boolean true"),
        (False, "boolean false"),
        ("123", "string '123'"),
        (1.5, "number 1.5"),
        (1.0, "number 1.0"),
        ([0], "array of 1 item"),
    ],
    ids=["true", "false", "string", "fraction", "integral-float", "array"],
)
def test_integer_field_accepts_only_json_integers(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], value: Any, got: str
) -> None:
    minimal_ir["0"][0]["buffer"][1]["address"] = value
    code, report = validate_json(run_cli, write_ir(minimal_ir))
    assert code == 1
    errors = [f for f in findings_of(report) if f["severity"] == "error"]
    assert [(f["code"], f["pointer"]) for f in errors] == [("GIR101", "/0/0/buffer/1/address")]
    assert errors[0]["message"] == f"expected an integer, got {got}"
    assert errors[0]["core_id"] == 0


def test_null_in_integer_field_is_named_once(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    minimal_ir["0"][0]["buffer"][1]["address"] = None
    _, report = validate_json(run_cli, write_ir(minimal_ir))
    [error] = [f for f in findings_of(report) if f["severity"] == "error"]
    assert error["message"] == "expected an integer, got null"


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("lower", [0, 0, 0], "expected an array of 4 items, got 3"),
        ("upper", [0, 7, 9, 9, 0], "expected an array of 4 items, got 5"),
        ("size", -1, "expected a value >= 0, got integer -1"),
        ("address", -4096, "expected a value >= 0, got integer -4096"),
        ("align", 0, "expected a value >= 1, got integer 0"),
    ],
)
def test_shape_and_range_errors(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], where: str, value: Any, message: str
) -> None:
    minimal_ir["0"][0]["buffer"][0][where] = value
    code, report = validate_json(run_cli, write_ir(minimal_ir))
    assert code == 1
    errors = [f for f in findings_of(report) if f["severity"] == "error"]
    assert [(f["code"], f["pointer"], f["message"]) for f in errors] == [
        ("GIR101", f"/0/0/buffer/0/{where}", message)
    ]


def test_every_bad_value_is_reported_not_only_the_first(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    minimal_ir["0"][0]["buffer"][0]["address"] = True
    minimal_ir["0"][0]["buffer"][1]["address"] = False
    minimal_ir["-1"]["out"][0]["lower"] = 0
    _, report = validate_json(run_cli, write_ir(minimal_ir))
    assert sorted(f["pointer"] for f in findings_of(report) if f["severity"] == "error") == [
        "/-1/out/0/lower",
        "/0/0/buffer/0/address",
        "/0/0/buffer/1/address",
    ]


# --- the JSON report contract ----------------------------------------------------------------------------


def test_json_report_contract(run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]) -> None:
    good = write_ir(minimal_ir, "a-good.json")
    minimal_ir["0"][0]["buffer"][0]["address"] = True
    minimal_ir["0"][0]["buffer"][0]["colour"] = "red"
    bad = write_ir(minimal_ir, "b-bad.json")
    code, report = validate_json(run_cli, good, bad)
    assert code == 1

    assert set(report) == {"version", "files", "summary"}
    assert report["version"] == 1
    assert [f["path"] for f in report["files"]] == [str(good), str(bad)]
    for file_report in report["files"]:
        assert set(file_report) == {"path", "errors", "warnings", "findings"}
        for finding in file_report["findings"]:
            assert set(finding) == {
                "code",
                "severity",
                "message",
                "pointer",
                "core_id",
                "workload_id",
                "transfer_id",
                "line",
                "column",
                "fingerprint",
            }
            assert finding["severity"] in {"error", "warning", "info"}
            assert isinstance(finding["pointer"], str)
            for key in ("core_id", "workload_id", "transfer_id"):
                assert finding[key] is None or isinstance(finding[key], int)
    assert report["files"][0]["findings"] == []
    assert (report["files"][0]["errors"], report["files"][0]["warnings"]) == (0, 0)

    bad_findings = report["files"][1]["findings"]
    assert report["files"][1]["errors"] == sum(f["severity"] == "error" for f in bad_findings) == 1
    assert report["files"][1]["warnings"] == sum(f["severity"] == "warning" for f in bad_findings)
    located = {"line": 169, "column": 6}  # the "address" key, in the file written with indent=1
    assert {
        "code": "GIR101",
        "severity": "error",
        "message": "expected an integer, got boolean true",
        "pointer": "/0/0/buffer/0/address",
        "core_id": 0,
        "workload_id": None,
        "transfer_id": None,
    } | located in [{k: v for k, v in f.items() if k != "fingerprint"} for f in bad_findings]
    assert Path(bad).read_text().splitlines()[168][5:].startswith('"address": true')
    assert report["summary"] == {
        "files": 2,
        "errors": report["files"][1]["errors"],
        "warnings": report["files"][1]["warnings"],
    }


def test_json_report_for_unparsable_file(run_cli: Any, write_ir: Any) -> None:
    code, report = validate_json(run_cli, write_ir(b"{"))
    assert code == 1
    [finding] = findings_of(report)
    assert finding["code"] == "GIR100" and finding["pointer"] == ""
    assert finding["core_id"] is finding["workload_id"] is finding["transfer_id"] is None


# --- selection and severity ----------------------------------------------------------------------------


@pytest.fixture
def mixed_ir(write_ir: Any, minimal_ir: dict[str, Any]) -> Path:
    """An IR with a GIR101 error, a GIR103 warning and a GIR504 error (lower > upper)."""
    wl = minimal_ir["0"][0]
    wl["buffer"][0]["address"] = True  # GIR101
    wl["ifmap"][0]["colour"] = "red"  # GIR103
    wl["tile_padding_tblr"] = [1, 1, 1, 1]
    wl["workload"] = [[0, 16, 0, 0], [0, 15, 7, 7]]  # GIR504
    return write_ir(minimal_ir)


def test_mixed_ir_has_all_three_codes(run_cli: Any, mixed_ir: Path) -> None:
    _, report = validate_json(run_cli, mixed_ir)
    assert {"GIR101", "GIR103", "GIR504"} <= {f["code"] for f in findings_of(report)}


def test_select_prefix_and_ignore_code(run_cli: Any, mixed_ir: Path) -> None:
    code, report = validate_json(run_cli, "--select", "GIR1", "--ignore", "GIR103", mixed_ir)
    assert code == 1
    assert {f["code"] for f in findings_of(report)} == {"GIR101"}


def test_select_accepts_comma_lists_and_repeats(run_cli: Any, mixed_ir: Path) -> None:
    code, report = validate_json(run_cli, "--select", "GIR103,GIR5", "--select", "GIR100", mixed_ir)
    assert code == 1  # GIR504 is an error
    assert {f["code"] for f in findings_of(report)} == {"GIR103", "GIR504"}


def test_ignoring_every_error_exits_0(run_cli: Any, mixed_ir: Path) -> None:
    code, report = validate_json(run_cli, "--ignore", "GIR101,GIR504", mixed_ir)
    assert code == 0
    assert {f["code"] for f in findings_of(report)} == {"GIR103"}
    assert report["summary"]["errors"] == 0


def test_severity_override_changes_severity_and_exit_code(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    minimal_ir["0"][0]["ifmap"][0]["colour"] = "red"
    path = write_ir(minimal_ir)
    assert run_cli("validate", path).code == 0
    code, report = validate_json(run_cli, "--severity", "GIR103=error", path)
    assert code == 1
    assert codes(report) == {("GIR103", "error")}
    assert report["summary"] == {"files": 1, "errors": 1, "warnings": 0}


def test_severity_override_can_downgrade_errors(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    minimal_ir["0"][0]["buffer"][0]["address"] = True
    code, report = validate_json(run_cli, "--severity", "gir101=warning", write_ir(minimal_ir))
    assert code == 0
    assert {f["severity"] for f in findings_of(report) if f["code"] == "GIR101"} <= {"warning", "info"}


# --- output file, discovery ------------------------------------------------------------------------------


def test_output_file_receives_the_report(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], tmp_path: Path
) -> None:
    minimal_ir["0"][0]["buffer"][0]["address"] = True
    path = write_ir(minimal_ir)
    target = tmp_path / "report.json"
    code, out, _ = run_cli("validate", "--format", "json", "-o", target, path)
    assert code == 1
    assert out == ""
    report = json.loads(target.read_text(encoding="utf-8"))
    assert report["summary"]["errors"] == 1
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left behind


def test_output_file_replaces_an_old_report(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "report.txt"
    target.write_text("stale\n" * 1000, encoding="utf-8")
    code, _, _ = run_cli("validate", "-o", target, write_ir(minimal_ir))
    assert code == 0
    assert target.read_text(encoding="utf-8") == "1 file checked: 0 errors, 0 warnings, 0 info\n"


def test_output_into_missing_directory_exits_2(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], tmp_path: Path
) -> None:
    code, _, err = run_cli("validate", "-o", tmp_path / "nope" / "r.txt", write_ir(minimal_ir))
    assert code == 2
    assert "Traceback" not in err and "nope" in err


def test_directories_are_searched_recursively_skipping_sidecars(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any], tmp_path: Path
) -> None:
    write_ir(minimal_ir, "top.json")
    write_ir(minimal_ir, "deep/er/nested.json")
    write_ir([{"code": "GIR101"}], "deep/er/nested.expected.json")  # a sidecar, not an IR
    write_ir(b"not json", "deep/notes.txt")  # not *.json
    code, report = validate_json(run_cli, tmp_path)
    assert code == 0
    assert [f["path"] for f in report["files"]] == [
        str(tmp_path / "deep" / "er" / "nested.json"),
        str(tmp_path / "top.json"),
    ]


def test_same_file_given_twice_is_checked_once(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    path = write_ir(minimal_ir)
    _, report = validate_json(run_cli, path, path, path.parent)
    assert report["summary"]["files"] == 1


# --- rules and schema subcommands ------------------------------------------------------------------------


def test_rules_lists_every_code(run_cli: Any) -> None:
    code, out, _ = run_cli("rules")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert listed == sorted(RULES)
    for line in out.splitlines():
        entry = RULES[line.split()[0]]
        assert entry.name in line and entry.summary in line


def test_rules_code_prints_its_documentation(run_cli: Any) -> None:
    code, out, _ = run_cli("rules", "gir101")
    assert code == 0
    assert out.startswith("GIR101 schema (error by default, loading and schema)")
    assert RULES["GIR101"].doc in out
    assert "Why:" in out


def test_rules_unknown_code_exits_2(run_cli: Any) -> None:
    code, out, err = run_cli("rules", "GIR999")
    assert code == 2
    assert out == ""
    assert "GIR999" in err


def test_schema_prints_build_schema(run_cli: Any) -> None:
    code, out, _ = run_cli("schema")
    assert code == 0
    assert json.loads(out) == build_schema(DOCUMENTED)


def test_schema_output_file(run_cli: Any, tmp_path: Path) -> None:
    target = tmp_path / "ir.schema.json"
    code, out, _ = run_cli("schema", "-o", target)
    assert (code, out) == (0, "")
    assert json.loads(target.read_text(encoding="utf-8")) == build_schema(DOCUMENTED)


def test_no_subcommand_is_a_usage_error(run_cli: Any) -> None:
    code, _, err = run_cli()
    assert code == 2
    assert "usage:" in err


def test_python_dash_m_help() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "irtools", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: irtools")
    for command in ("validate", "schema", "rules"):
        assert command in proc.stdout
    assert proc.stderr == ""


def test_lone_surrogate_duplicate_key_is_reported_not_a_crash(run_cli: Any, write_ir: Any) -> None:
    # Pure-ASCII, valid JSON: the escapes decode to an unpaired surrogate, which UTF-8 cannot encode.
    path = write_ir(b'{"\\ud800": 1, "\\ud800": 2}')
    code, out, _ = run_cli("validate", path)
    assert code == 1
    assert " GIR102 error " in out


def test_unknown_key_that_looks_like_a_digit_is_reported_not_a_crash(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    minimal_ir["²"] = 1
    code, out, _ = run_cli("validate", write_ir(minimal_ir))
    assert code == 0
    assert " GIR103 warning unknown key '²'" in out


def test_dram_section_must_be_named_minus_one(
    run_cli: Any, write_ir: Any, minimal_ir: dict[str, Any]
) -> None:
    minimal_ir["dram"] = minimal_ir.pop("-1")
    code, report = validate_json(run_cli, "--select", "GIR1", write_ir(minimal_ir))
    assert code == 1
    assert ("", "missing required key '-1'") in {(f["pointer"], f["message"]) for f in findings_of(report)}
