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
    """``value`` with every lone surrogate in its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {replace_lone_surrogates(k): replace_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_lone_surrogates(v) for v in value]
    return value
