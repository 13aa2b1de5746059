"""RFC 6901 pointers: escaping, joining, splitting, resolving, and the report's numeric sort order."""

from __future__ import annotations

from typing import Any

import pytest

from irtools import pointer as jp

# The examples of RFC 6901 section 5, with their pointers.
RFC_DOC: dict[str, Any] = {
    "foo": ["bar", "baz"],
    "": 0,
    "a/b": 1,
    "c%d": 2,
    "e^f": 3,
    "g|h": 4,
    "i\\j": 5,
    'k"l': 6,
    " ": 7,
    "m~n": 8,
}
RFC_EXAMPLES = [
    ("", RFC_DOC),
    ("/foo", ["bar", "baz"]),
    ("/foo/0", "bar"),
    ("/", 0),
    ("/a~1b", 1),
    ("/c%d", 2),
    ("/e^f", 3),
    ("/g|h", 4),
    ("/i\\j", 5),
    ('/k"l', 6),
    ("/ ", 7),
    ("/m~0n", 8),
]


@pytest.mark.parametrize(("pointer", "value"), RFC_EXAMPLES, ids=[p or "<root>" for p, _ in RFC_EXAMPLES])
def test_resolve_rfc6901_examples(pointer: str, value: Any) -> None:
    assert jp.resolve(RFC_DOC, pointer) == value


@pytest.mark.parametrize(
    ("token", "escaped"),
    [
        ("plain", "plain"),
        ("a/b", "a~1b"),
        ("m~n", "m~0n"),
        ("~1", "~01"),  # a literal "~1" must not turn into "/" on the way back
        ("/~", "~1~0"),
        ("~/", "~0~1"),
        ("~~//", "~0~0~1~1"),
        ("", ""),
        (12, "12"),
        (-1, "-1"),
    ],
)
def test_escape_and_unescape(token: str | int, escaped: str) -> None:
    assert jp.escape(token) == escaped
    assert jp.unescape(escaped) == str(token)


def test_unescape_applies_tilde_one_before_tilde_zero() -> None:
    # RFC 6901 section 4: "~01" is "~1", not "/".
    assert jp.unescape("~01") == "~1"
    assert jp.unescape("~0~1") == "~/"


def test_join_builds_report_pointers() -> None:
    assert jp.join() == ""
    assert jp.join("0", 12, "buffer", 3) == "/0/12/buffer/3"
    assert jp.join("-1", "out", 0, "destination", 1) == "/-1/out/0/destination/1"
    assert jp.join("tile_info", "a/b~c") == "/tile_info/a~1b~0c"
    assert jp.join("") == "/"  # the empty key, not the whole document


def test_extend_appends_escaped_tokens() -> None:
    assert jp.extend("", "0") == "/0"
    assert jp.extend("/0/3", "buffer", 0, "address") == "/0/3/buffer/0/address"
    assert jp.extend("/x", "y/z") == "/x/y~1z"
    assert jp.extend("/x") == "/x"


@pytest.mark.parametrize(
    "tokens",
    [
        [],
        ["0"],
        ["-1", "in", "3"],
        [""],
        ["", ""],
        ["a/b", "m~n", "~1", "~0", "/", "~"],
        ["tile_info", "tile_num_0", "ifmap_lower2"],
        ["é", "卷积", " ", "a b"],
    ],
)
def test_split_join_round_trip(tokens: list[str]) -> None:
    pointer = jp.join(*tokens)
    assert jp.split(pointer) == tokens
    assert jp.join(*jp.split(pointer)) == pointer


@pytest.mark.parametrize("pointer", ["0", "a/b", "~1"])
def test_split_rejects_pointers_without_leading_slash(pointer: str) -> None:
    with pytest.raises(ValueError, match="must start with '/'"):
        jp.split(pointer)


def test_resolve_round_trips_through_awkward_keys() -> None:
    doc = {"a/b": {"m~n": [{"~1": "x", "/": "y", "": "z"}]}}
    for key, value in (("~1", "x"), ("/", "y"), ("", "z")):
        assert jp.resolve(doc, jp.join("a/b", "m~n", 0, key)) == value


def test_resolve_on_an_ir_shaped_document() -> None:
    doc = {"-1": {"out": [{"transfer_id": 7}]}, "0": [{"buffer": [{}, {"address": 4096}]}]}
    assert jp.resolve(doc, "/0/0/buffer/1/address") == 4096
    assert jp.resolve(doc, "/-1/out/0/transfer_id") == 7


@pytest.mark.parametrize(
    ("pointer", "error"),
    [("/missing", KeyError), ("/0/9", IndexError), ("/-1/x", KeyError)],
)
def test_resolve_raises_for_absent_paths(pointer: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        jp.resolve({"0": [1], "-1": {}}, pointer)


def test_from_loc_converts_pydantic_locations() -> None:
    assert jp.from_loc(("0", 3, "buffer", 1, "address")) == "/0/3/buffer/1/address"
    assert jp.from_loc(("tile_info", "a/b")) == "/tile_info/a~1b"
    assert jp.from_loc(()) == ""


# --- sort order ------------------------------------------------------------------------------------------


def test_numeric_segments_sort_as_numbers() -> None:
    given = [
        "/buffersize",
        "/10",
        "/0/10",
        "/0/2/buffer/10",
        "/2",
        "/0/2",
        "/0/2/buffer/9",
        "/-1/out/3",
        "",
        "/-1/in/12",
        "/-1/in/2",
    ]
    assert sorted(given, key=jp.sort_key) == [
        "",  # the whole document first
        "/-1/in/2",  # key "-1" (DRAM) before core "0"
        "/-1/in/12",
        "/-1/out/3",
        "/0/2",  # a parent before its children
        "/0/2/buffer/9",
        "/0/2/buffer/10",
        "/0/10",
        "/2",
        "/10",
        "/buffersize",  # names after numbers
    ]


def test_names_sort_alphabetically_after_numbers() -> None:
    given = ["/0/0/weight", "/0/0/buffer", "/0/0/3", "/0/0/ifmap"]
    assert sorted(given, key=jp.sort_key) == ["/0/0/3", "/0/0/buffer", "/0/0/ifmap", "/0/0/weight"]


def test_sort_key_unescapes_before_comparing() -> None:
    # "a~1b" is the key "a/b"; it is one token, not two.
    assert jp.sort_key("/a~1b") == ((1, "a/b"),)
    assert jp.sort_key("/0/-1") == ((0, 0), (0, -1))


@pytest.mark.parametrize("key", ["²", "--1", "-²"])
def test_sort_key_accepts_any_key(key: str) -> None:
    # A finding's pointer can hold any key a file uses (GIR103); sorting the report must not crash.
    ordered = sorted([jp.join(key), "/a", "/0"], key=jp.sort_key)
    assert ordered.index("/0") < ordered.index("/a")
