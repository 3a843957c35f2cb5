"""Objects kept as their JSON texts read as the objects ``json.loads`` decodes from them: a
mapping of texts is the dict of those objects, and a search that passes texts over finds
what a search of every object finds."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.model import encoded
from gate.model.encoded import EncodedObjects, compact, decoded, deferred, holding, with_objects


def _same(left: Any, right: Any) -> bool:
    """Equal, and alike in every type, float sign and key order (``==`` takes 1 for 1.0)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    return bool(left == right)


_NUMBER = st.from_regex(r"\A-?(0|[1-9][0-9]{0,40})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,3})?\Z")
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
_OBJECTS = st.dictionaries(st.text(max_size=6), _VALUES, max_size=5)


def _texts(value: Any) -> list[bytes]:
    """The ways a writer may spell ``value``: escaped or not, spaced or not, indented."""
    return [
        json.dumps(value).encode(),
        json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(),
        json.dumps(value, indent=4).encode(),
    ]


@given(_OBJECTS)
def test_a_text_decodes_to_what_json_loads_decodes(value: dict[str, Any]) -> None:
    for text in _texts(value):
        kept = deferred(text)
        read = decoded(kept) if isinstance(kept, bytes) else kept
        assert _same(read, json.loads(text))
        assert _same(decoded(compact(text)), json.loads(text))


@given(st.lists(_NUMBER, min_size=1, max_size=5))
def test_numbers_as_written_decode_as_json_loads_decodes_them(numbers: list[str]) -> None:
    text = ('{"n": [' + ", ".join(numbers) + "]}").encode()
    assert _same(decoded(text), json.loads(text))


def _nested(depth: int) -> bytes:
    return b'{"a": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(b'{"size": 1e400, "tiny": -1e-400}', id="a number past a float's range"),
        pytest.param(b'{"name": "\xed\xa0\x80"}', id="a surrogate spelled in UTF-8"),
        pytest.param(b'{"a": 1, "b": 2, "a": 3}', id="a repeated key"),
        pytest.param(b'{"n": 123456789012345678901234567890}', id="an integer past 64 bits"),
    ],
)
def test_what_msgspec_refuses_is_decoded_as_json_loads_decodes_it(text: bytes) -> None:
    assert deferred(text) == text
    assert _same(decoded(text), json.loads(text))


def test_a_deeply_nested_text_is_decoded_at_once() -> None:
    assert deferred(_nested(99)) == _nested(99)
    assert _same(deferred(_nested(101)), json.loads(_nested(101)))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(b'{"name": "\xff"}', id="a text that is not UTF-8"),
        pytest.param(b'{"n": ' + b"7" * 5000 + b"}", id="an integer past Python's digit limit"),
    ],
)
def test_a_text_json_loads_refuses_is_refused_when_read(text: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        deferred(text)


def test_an_integer_under_the_digit_limit_is_kept_as_text() -> None:
    text = b'{"n": ' + b"7" * (sys.get_int_max_str_digits() - 1) + b"}"
    assert deferred(text) == text
    assert _same(decoded(text), json.loads(text))


_KEYS = st.text(alphabet="abcde", min_size=1, max_size=2)


def _encoded(objects: Mapping[str, Any]) -> EncodedObjects[str]:
    return EncodedObjects({k: deferred(json.dumps(v).encode()) for k, v in objects.items()})


_SMALL = st.dictionaries(st.text(max_size=3), _SCALARS, max_size=3)


@given(
    st.dictionaries(_KEYS, _SMALL, max_size=6),
    st.lists(st.dictionaries(_KEYS, _SMALL, max_size=3), max_size=3),
)
def test_a_mapping_of_texts_reads_as_the_dict_of_their_objects(
    objects: dict[str, Any], changes: list[dict[str, Any]]
) -> None:
    kept: Mapping[str, Any] = _encoded(objects)
    plain: Mapping[str, Any] = objects
    for changed in changes:
        kept, plain = with_objects(kept, changed), with_objects(plain, changed)
        assert isinstance(kept, EncodedObjects)
    assert list(kept) == list(plain)
    assert len(kept) == len(plain)
    assert all(_same(kept[k], plain[k]) for k in plain)
    for key in ("a", "ab", "zz"):
        assert (key in kept) == (key in plain)
        assert kept.get(key, "none") == plain.get(key, "none")
    assert kept == plain
    with pytest.raises(KeyError):
        kept["zz"]


def test_the_objects_read_last_are_kept_decoded_and_the_oldest_let_go() -> None:
    objects = {str(i): {"i": i} for i in range(encoded.RECENT + 5)}
    kept = _encoded(objects)
    first = kept["0"]
    assert [kept[k] for k in objects] == list(objects.values())
    last = str(encoded.RECENT + 4)
    assert kept[last] is kept[last]
    assert kept["0"] is not first  # let go, and decoded again
    assert kept["0"] == first


def _holds(value: Any, wanted: str) -> bool:
    if isinstance(value, str):
        return value == wanted
    if isinstance(value, dict):
        return any(_holds(v, wanted) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, wanted) for v in value)
    return False


_WORDS = st.sampled_from(["Available", "Bound", "data-0", "é", 'a"b', "", "\\"])


@given(
    st.dictionaries(
        _KEYS,
        st.dictionaries(st.sampled_from(["phase", "name", "x"]), _WORDS | _VALUES, max_size=3),
        max_size=6,
    ),
    st.lists(_WORDS, min_size=1, max_size=2),
    st.booleans(),
)
def test_a_search_passes_over_only_objects_that_hold_none_of_its_strings(
    objects: dict[str, Any], wanted: list[str], ascii_only: bool
) -> None:
    kept = EncodedObjects(
        {k: json.dumps(v, ensure_ascii=ascii_only).encode() for k, v in objects.items()}
    )
    found = list(holding(kept, *wanted))
    assert found == [v for v in objects.values() if v in found]  # in order
    assert [v for v in objects.values() if any(_holds(v, w) for w in wanted)] == [
        v for v in found if any(_holds(v, w) for w in wanted)
    ]
    assert list(holding(objects, *wanted)) == list(objects.values())


def test_a_search_for_nothing_reads_only_what_it_cannot_pass_over() -> None:
    kept = EncodedObjects({"a": b'{"phase": "Bound"}', "b": b'{"name": "caf\\u00e9"}'})
    assert list(holding(kept)) == [{"name": "caf\u00e9"}]  # escaped: it may spell anything


def test_a_search_reads_the_changed_objects_whatever_their_text_held() -> None:
    kept = EncodedObjects({"a": b'{"phase": "Bound"}', "b": b'{"phase": "Bound"}'})
    changed = with_objects(kept, {"b": {"phase": "Available"}, "c": {"phase": "Available"}})
    assert list(holding(changed, "Available")) == [{"phase": "Available"}] * 2


def test_two_views_of_one_snapshots_texts_compare_without_decoding_them() -> None:
    kept = EncodedObjects({"a": b'{"x": 1e400}', "b": b"not decoded"})
    assert kept == kept.with_changed({})
    assert kept.with_changed({"c": {}}) == kept.with_changed({"c": {}})
    with pytest.raises(ValueError):  # another mapping: every object is decoded to compare
        _ = kept == {"a": {"x": math.inf}, "b": {}}
