"""A JSON object walked member by member by the standard library's C decoder, with the
elements of its ``items`` array handed over one at a time.

A manifest file holding a ``List`` needs its top-level ``items`` array element by element:
each item keeps its own line. Every other member, and each
element, is decoded by ``json.JSONDecoder.raw_decode`` in one call; a syntax error is a
``json.JSONDecodeError`` worded as ``json.loads`` words it, at the same offset.

(Snapshot files are walked by :mod:`gate.snapshot.jsonstream` instead: they can be larger
than memory should hold, so they are read from a window of bytes and decoded by msgspec in
batches; a page of an API list is decoded by msgspec whole, see :mod:`gate.live.pages`.)

>>> kept = []
>>> members, end = walk_object('{"kind": "List", "items": [1, {"a": 2}]}', 0,
...                            lambda: lambda item, offset: kept.append((item, offset)))
>>> members["items"] is STREAMED, members["kind"], kept, end
(True, 'List', [(1, 27), ({'a': 2}, 30)], 40)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Streamed:
    def __repr__(self) -> str:
        return "STREAMED"


STREAMED = _Streamed()
"""The value an ``items`` array leaves among the members: its elements went to the caller."""

OnItem = Callable[[Any, int], object]
"""Called with each element of an ``items`` array and the offset where it starts."""


def skip_space(text: str, offset: int) -> int:
    match = _SPACE.match(text, offset)
    return match.end() if match else offset


def walk_object(
    text: str, offset: int, start_items: Callable[[], OnItem]
) -> tuple[dict[str, Any], int]:
    """The object starting at ``offset`` (a ``{``): its members, and where it ends. An
    ``items`` member that is an array is :data:`STREAMED`: ``start_items()`` is called
    when it starts (a repeated name starts again: the last one wins, as for any member)
    and gives the function each element goes to, in order."""
    body: dict[str, Any] = {}
    offset = skip_space(text, offset + 1)
    if text.startswith("}", offset):
        return body, offset + 1
    while True:
        key, offset = _key(text, offset)
        if key == "items" and text.startswith("[", offset):
            offset = _array(text, offset, start_items())
            body[key] = STREAMED
        else:
            body[key], offset = _DECODER.raw_decode(text, offset)
        offset, closed = _after_member(text, offset, "}")
        if closed:
            return body, offset


def _key(text: str, offset: int) -> tuple[str, int]:
    """A member's name and the offset of its value."""
    if not text.startswith('"', offset):
        raise json.JSONDecodeError(
            "Expecting property name enclosed in double quotes", text, offset
        )
    key, offset = _DECODER.raw_decode(text, offset)
    offset = skip_space(text, offset)
    if not text.startswith(":", offset):
        raise json.JSONDecodeError("Expecting ':' delimiter", text, offset)
    return str(key), skip_space(text, offset + 1)


def _array(text: str, offset: int, on_item: OnItem) -> int:
    """Each element of the array at ``offset`` to ``on_item``; where the array ends."""
    offset = skip_space(text, offset + 1)
    if text.startswith("]", offset):
        return offset + 1
    while True:
        value, end = _DECODER.raw_decode(text, offset)
        on_item(value, offset)
        offset, closed = _after_member(text, end, "]")
        if closed:
            return offset


def _after_member(text: str, offset: int, closer: str) -> tuple[int, bool]:
    """Past the ``,`` (and the space after it) or the closing bracket that follows a
    member, and whether it was the closing bracket."""
    offset = skip_space(text, offset)
    if text.startswith(closer, offset):
        return offset + 1, True
    if text.startswith(",", offset):
        return skip_space(text, offset + 1), False
    raise json.JSONDecodeError("Expecting ',' delimiter", text, offset)
