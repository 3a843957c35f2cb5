"""A Kubernetes list response, decoded one item at a time.

``json.loads`` of a page builds every object of 500 pods (~20 MB of small objects) before
the first can be looked at; by then the first pod has left the CPU caches, and reducing the
page to the fields fitgate keeps then costs about as much again as decoding it. Here the
page is walked as a manifest file's List is (:func:`gate.inputs.jsonwalk.walk_object`, the
standard library's C decoder behind ``json.loads``): each element of ``items`` is handed
to ``keep`` the moment it is decoded, and it is freed before the next one is read. The
reduced items are all that stays; the benchmark (benchmarks/live_read.py) measures the
difference.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gate.inputs.jsonwalk import STREAMED, skip_space, walk_object


class NotAList(ValueError):
    """The text is not a JSON object, or its ``items`` is not an array."""


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
        start = skip_space(text, 0)
        if not text.startswith("{", start):
            raise NotAList(f"expected '{{' at character {start}")
        members, end = walk_object(text, start, lambda: lambda item, offset: keep(item))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotAList(str(exc)) from None
    if skip_space(text, end) != len(text):
        raise NotAList(f"extra data at character {end}")
    items = members.pop("items", None)
    if items is not None and items is not STREAMED:  # present, and not an array
        raise NotAList("items is not an array")
    return members
