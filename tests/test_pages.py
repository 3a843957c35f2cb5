"""A page of an API list decodes straight into the recording's structs: its items and its
continue token, or one line saying which item does not fit, and why."""

from __future__ import annotations

import json

import msgspec
import pytest

from gate.live.objects import Namespace, Pod
from gate.live.pages import NotAPage, PageDecoder
from tests.cluster_objects import realistic_pod

NAMESPACES = PageDecoder(Namespace)


def names(items: list[Namespace]) -> list[str | None]:
    return [item.metadata.name for item in items]


@pytest.mark.parametrize(
    ("text", "items", "token"),
    [
        ('{"kind":"NamespaceList","metadata":{"continue":"abc"},"items":[{"metadata":{"name":"a"}}]}',
         ["a"], "abc"),
        ('{"items":[{"metadata":{"name":"a"}}],"metadata":{"resourceVersion":"7"},"kind":"List"}',
         ["a"], None),
        (' \n{ "kind" : "List" ,\n "items" : [ \n {"metadata": {"name": "é"}} , {} \n ] \n} \n',
         ["é", None], None),
        ('{"kind": "NamespaceList", "metadata": {"continue": ""}, "items": []}', [], ""),
        ('{"kind": "NamespaceList", "items": null, "metadata": null}', [], None),
        ('{"kind": "NamespaceList"}', [], None),
        ("{}", [], None),
    ],
    ids=[
        "compact API answer with a continue token",
        "items before metadata",
        "whitespace everywhere, non-ASCII text and an empty item",
        "no items and an empty token (the last page)",
        "items and metadata null (Go's nil)",
        "items absent",
        "empty object",
    ],
)  # fmt: skip
def test_a_page_gives_its_items_and_its_continue_token(
    text: str, items: list[str | None], token: str | None
) -> None:
    decoded, continued = NAMESPACES.decode(text.encode())
    assert (names(decoded), continued) == (items, token)


def test_a_pod_keeps_only_what_the_recording_keeps() -> None:
    page = json.dumps({"kind": "PodList", "items": [realistic_pod(7, "n", "s3cr3t")]})
    (pod,), _ = PageDecoder(Pod).decode(page.encode())
    assert b"s3cr3t" not in msgspec.json.encode(pod)
    assert [c.name for c in pod.spec.containers or ()] == ["app", "metrics"]
    assert pod.spec.containers and pod.spec.containers[0].ports == []  # no host port


@pytest.mark.parametrize(
    ("text", "before", "says"),
    [
        ('{"items": [{}, {"metadata": {"name": "x", "labels": 1}}]}', 0,
         'item 2 ("x"): Expected `object | null`, got `int` - at `$.metadata.labels`'),
        ('{"items": [{"metadata": []}]}', 500,
         "item 501: Expected `object`, got `array` - at `$.metadata`"),
        ('{"items": [{"metadata": {"name": "x"}},]}', 0,
         "the answer is not JSON: JSON is malformed: trailing comma in array (byte 39)"),
        ('{"items": [{"metadata": {"name": "x"}}]', 0,
         "the answer is not JSON: Input data was truncated"),
        ('{"items": []} {}', 0,
         "the answer is not JSON: JSON is malformed: trailing characters (byte 15)"),
        ('{"items": "none"}', 0,
         "the answer is not a list: Expected `array | null`, got `str` - at `$.items`"),
        ("[1, 2]", 0, "the answer is not a list: Expected `object`, got `array`"),
        ("", 0, "the answer is not JSON: Input data was truncated"),
        ('{"items": [' + "[" * 100_000 + "]" * 100_000 + "]}", 0,
         "the answer is nested too deeply to be read"),
    ],
    ids=[
        "an item of the wrong shape, named",
        "an item of a later page, counted in the list",
        "trailing comma",
        "truncated",
        "extra data after the object",
        "items is a string",
        "not an object",
        "empty body",
        "nested past the decoder's depth",
    ],
)  # fmt: skip
def test_what_is_no_page_is_one_line_saying_why(text: str, before: int, says: str) -> None:
    with pytest.raises(NotAPage) as refused:
        NAMESPACES.decode(text.encode())
    assert refused.value.where(before) == says
