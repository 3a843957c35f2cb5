"""A JSON object walked member by member, its ``items`` elements handed over one at a time
(gate.inputs.jsonwalk): the members and elements equal ``json.loads``'s, each element with
the offset it starts at, and a syntax error worded as ``json.loads`` words it, at the same
offset."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.inputs.jsonwalk import STREAMED, skip_space, walk_object

Walked = tuple[dict[str, Any], int, list[list[tuple[Any, int]]]]


def _walk(text: str, offset: int = 0) -> Walked:
    """The members, the end, and the elements of each ``items`` array started, in order."""
    started: list[list[tuple[Any, int]]] = []

    def start() -> Any:
        started.append([])
        return lambda item, at: started[-1].append((item, at))

    members, end = walk_object(text, offset, start)
    return members, end, started


WALKS: list[tuple[str, str, int, Walked]] = [
    ("an empty object has no member", "{}", 0, ({}, 2, [])),
    ("space inside an empty object is skipped", "{ \n }", 0, ({}, 5, [])),
    (
        "an items array goes element by element, each at its offset",
        '{"kind": "List", "items": [1, {"a": 2}]}',
        0,
        ({"kind": "List", "items": STREAMED}, 40, [[(1, 27), ({"a": 2}, 30)]]),
    ),
    (
        "an empty items array starts and hands over nothing",
        '{"items": []}',
        0,
        ({"items": STREAMED}, 13, [[]]),
    ),
    (
        "items that is not an array is an ordinary member",
        '{"items": {"a": [1]}}',
        0,
        ({"items": {"a": [1]}}, 21, []),
    ),
    (
        "an items array inside another member is decoded with it",
        '{"spec": {"items": [1]}}',
        0,
        ({"spec": {"items": [1]}}, 24, []),
    ),
    (
        "a repeated items array starts again",
        '{"items": [1], "items": [2]}',
        0,
        ({"items": STREAMED}, 28, [[(1, 11)], [(2, 25)]]),
    ),
    (
        "a repeated member keeps its last value",
        '{"a": 1, "a": 2}',
        0,
        ({"a": 2}, 16, []),
    ),
    (
        "the object may start past the text's beginning, and end before its end",
        'xx{"a": 1} trailing',
        2,
        ({"a": 1}, 10, []),
    ),
]


@pytest.mark.parametrize(
    ("text", "offset", "expected"), [c[1:] for c in WALKS], ids=[c[0] for c in WALKS]
)
def test_walk_object(text: str, offset: int, expected: Walked) -> None:
    assert _walk(text, offset) == expected


BROKEN: list[tuple[str, str, tuple[str, int]]] = [
    ("a member without its colon", '{"a" 1}', ("Expecting ':' delimiter", 5)),
    (
        "a member name without quotes",
        "{a: 1}",
        ("Expecting property name enclosed in double quotes", 1),
    ),
    ("members without a comma", '{"a": 1 "b": 2}', ("Expecting ',' delimiter", 8)),
    ("elements without a comma", '{"items": [1 2]}', ("Expecting ',' delimiter", 13)),
    ("a trailing comma among elements", '{"items": [1,]}', ("Expecting value", 13)),
    (
        "a trailing comma among members",
        '{"a": 1,}',
        ("Expecting property name enclosed in double quotes", 8),
    ),
    ("an unclosed array inside a member", '{"a": [1,]}', ("Expecting value", 9)),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_a_syntax_error_is_worded_as_json_loads_words_it(
    text: str, expected: tuple[str, int]
) -> None:
    with pytest.raises(json.JSONDecodeError) as walked:
        _walk(text)
    with pytest.raises(json.JSONDecodeError) as loaded:
        json.loads(text)
    assert (walked.value.msg, walked.value.pos) == (loaded.value.msg, loaded.value.pos) == expected


def test_skip_space_skips_json_whitespace_only() -> None:
    assert [skip_space(" \t\n\rx", 0), skip_space("x  ", 1), skip_space("\u00a0x", 0)] == [4, 3, 0]


SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(
    members=st.dictionaries(st.text(max_size=4).filter(lambda k: k != "items"), VALUES, max_size=4),
    items=st.none() | st.lists(VALUES, max_size=4),
    indent=st.none() | st.integers(0, 2),
)
def test_members_and_elements_equal_json_loads(
    members: dict[str, Any], items: list[Any] | None, indent: int | None
) -> None:
    document = {**members, **({} if items is None else {"items": items})}
    text = json.dumps(document, indent=indent)
    walked, end, started = _walk(text)
    assert end == len(text)
    expected = {
        k: (STREAMED if k == "items" and items is not None else v)
        for k, v in json.loads(text).items()
    }
    assert walked == expected
    if items is None:
        assert started == []
    else:
        assert [item for item, _ in started[0]] == items
        assert all(_decoded_at(text, at) == item for item, at in started[0])


def _decoded_at(text: str, offset: int) -> Any:
    return json.JSONDecoder().raw_decode(text, offset)[0]
