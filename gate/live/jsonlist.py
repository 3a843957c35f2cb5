"""A Kubernetes list response, decoded one item at a time.

``json.loads`` of a page builds every object of 500 pods (~20 MB of small objects) before
the first can be looked at; by then the first pod has left the CPU caches, and reducing the
page to the fields fitgate keeps then costs about as much again as decoding it. Here the
top-level object is walked with the standard library's own decoder (the C scanner behind
``json.loads``), each element of ``items`` is handed to ``keep`` the moment it is decoded,
and it is freed before the next one is read. The reduced items are all that stays; the
benchmark (benchmarks/live_read.py) measures the difference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")
_decode_value = json.JSONDecoder().raw_decode


class NotAList(ValueError):
    """The text is not a JSON object, or its ``items`` is not an array."""


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _expect(text: str, pos: int, char: str) -> int:
    if text[pos : pos + 1] != char:
        raise NotAList(f"expected {char!r} at character {pos}")
    return _skip(text, pos + 1)


def _items(text: str, pos: int, keep: Callable[[Any], object]) -> int:
    """Decode the array starting at ``pos`` element by element; return the position after it."""
    pos = _expect(text, pos, "[")
    if text[pos : pos + 1] == "]":
        return pos + 1
    while True:
        item, pos = _decode_value(text, pos)
        keep(item)
        pos = _skip(text, pos)
        if text[pos : pos + 1] == "]":
            return pos + 1
        pos = _expect(text, pos, ",")


def decode_list(data: bytes, keep: Callable[[Any], object]) -> dict[str, Any]:
    """Decode a ``{..., "items": [...]}`` response: every element of ``items`` goes to
    ``keep`` in order; the other members are returned (``items`` itself is not).

    >>> kept = []
    >>> decode_list(b'{"kind": "PodList", "items": [{"a": 1}, {"b": 2}]}', kept.append)
    {'kind': 'PodList'}
    >>> kept
    [{'a': 1}, {'b': 2}]
    """
    try:
        text = data.decode("utf-8")
        members: dict[str, Any] = {}
        pos = _expect(text, _skip(text, 0), "{")
        while text[pos : pos + 1] != "}":
            key, pos = _decode_value(text, pos)
            if not isinstance(key, str):
                raise NotAList(f"expected a member name at character {pos}")
            pos = _expect(text, _skip(text, pos), ":")
            if key == "items" and text[pos : pos + 1] == "[":
                pos = _items(text, pos, keep)
            else:
                members[key], pos = _decode_value(text, pos)
            pos = _skip(text, pos)
            if text[pos : pos + 1] == "}":
                break
            pos = _expect(text, pos, ",")
            if text[pos : pos + 1] == "}":
                raise NotAList(f"expected a member name at character {pos}")
        if _skip(text, pos + 1) != len(text):
            raise NotAList(f"extra data at character {pos + 1}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotAList(str(exc)) from None
    if members.get("items") is not None:  # present, and not an array
        raise NotAList("items is not an array")
    members.pop("items", None)
    return members
