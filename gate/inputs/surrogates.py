"""Lone UTF-16 surrogates, which JSON's ``\\u`` escapes can spell and UTF-8 cannot hold.

``"\\udc80"`` is valid JSON; Python's decoder keeps it as a lone surrogate, which no report
can then be written with. Go's ``encoding/json`` (the API server, kubectl) decodes each
one as U+FFFD, the replacement character, and so does fitgate, so that a name reads here
as the cluster would store it.
"""

from __future__ import annotations

import re
from typing import Any

_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_TEXT_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE = re.compile("[\ud800-\udfff]")


def may_hold_surrogates(text: bytes | str) -> bool:
    """Whether JSON text spells any surrogate (paired ones are harmless, but rare)."""
    if isinstance(text, str):
        return _TEXT_ESCAPE.search(text) is not None
    return _ESCAPE.search(text) is not None


def replace_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings and keys replaced by U+FFFD.

    The walk keeps its own stack, so a value nested as deep as a decoder allows (the
    C decoder stops near the interpreter's recursion limit; this walk runs below the
    caller's frames) is repaired like a flat one. Keys and items keep their order.
    """
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    pending: list[tuple[Any, Any]] = []
    root = _shell(value, pending)
    while pending:
        source, target = pending.pop()
        if isinstance(source, dict):
            for key, item in source.items():
                key = _LONE.sub("\ufffd", key) if isinstance(key, str) else key
                target[key] = _shell(item, pending)
        else:
            target.extend(_shell(item, pending) for item in source)
    return root


def _shell(value: Any, pending: list[tuple[Any, Any]]) -> Any:
    """A repaired string, or an empty copy of a dict or list queued to be filled, or the
    value itself."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, dict):
        copy: dict[Any, Any] = {}
        pending.append((value, copy))
        return copy
    if isinstance(value, list):
        items: list[Any] = []
        pending.append((value, items))
        return items
    return value
