"""The item-by-item list decoder agrees with json.loads, and refuses what json.loads refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gate.live.jsonlist import NotAList, decode_list
from tests.cluster_objects import realistic_pod
from tests.live import aks_document


def decoded(data: bytes) -> tuple[dict[str, Any], list[Any]]:
    kept: list[Any] = []
    return decode_list(data, kept.append), kept


@pytest.mark.parametrize(
    "text",
    [
        '{"kind": "PodList", "metadata": {"continue": "abc"}, "items": [{"a": 1}, {"b": [2]}]}',
        '{"items":[{"a":1}],"metadata":{"resourceVersion":"7"},"kind":"NodeList"}',
        ' \n{ "kind" : "List" ,\n "items" : [ \n {"a": "é"} , {"b": null} \n ] \n} \n',
        '{"kind": "PodList", "items": []}',
        '{"kind": "PodList", "items": null}',
        '{"kind": "PodList"}',
        "{}",
        '{"metadata": {"items": [1, 2]}, "items": [[1], "x", 3, true]}',
    ],
    ids=[
        "compact API answer",
        "items before metadata",
        "whitespace everywhere and non-ASCII text",
        "no items",
        "items null (a Go nil slice)",
        "items absent",
        "empty object",
        "nested members named items are values, and elements of any type",
    ],
)
def test_decodes_as_json_loads_does(text: str) -> None:
    expected = json.loads(text)
    items = expected.pop("items", None) or []
    assert decoded(text.encode()) == (expected, items)


def test_real_lists_decode_identically() -> None:
    document = aks_document()
    for objects in (document["nodes"], document["pods"], [realistic_pod(i, "n") for i in range(9)]):
        data = json.dumps({"kind": "List", "metadata": {}, "items": objects}, indent=1).encode()
        assert decoded(data) == ({"kind": "List", "metadata": {}}, objects)


@pytest.mark.parametrize(
    "data",
    [
        b'{"items": [{"a": 1},]}',
        b'{"items": [{"a": 1}], }',
        b'{"items": [{"a": 1}]',
        b'{"items": [{"a": 1}]} {}',
        b'{"items": {"a": 1}}',
        b'{"items": "none"}',
        b"[1, 2]",
        b"<html>502 Bad Gateway</html>",
        b'{"items": [{"a": "\xff"}]}',
        b'{1: 2, "items": []}',
        b"",
    ],
    ids=[
        "trailing comma in items",
        "trailing comma in the object",
        "truncated",
        "extra data after the object",
        "items is an object",
        "items is a string",
        "not an object",
        "an HTML error page",
        "not UTF-8",
        "a member name that is not a string",
        "empty body",
    ],
)
def test_refuses_what_is_not_a_list(data: bytes) -> None:
    with pytest.raises(NotAList):
        decoded(data)
