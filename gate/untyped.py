"""Reading the untyped trees YAML and JSON decode to, where a field of the wrong type reads
as empty (what a template's shape check has not refused is read this way: a ``resources``
that is a string, say, requests nothing).

>>> mapping({"cpu": "1"}), mapping("1"), as_list([1]), as_list({"a": 1})
({'cpu': '1'}, {}, [1], [])
>>> is_mapping({}), is_mapping(None), is_mapping([])
(True, False, False)
>>> at({"spec": {"suspend": True}}, ("spec", "suspend")), at({"spec": "x"}, ("spec", "suspend"))
(True, None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard


def is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``value`` is a mapping."""
    # A dict first and None next: the decoders give dicts, a field left out reads as None,
    # and asking the Mapping ABC about either costs a Python-level call.
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


def mapping(value: object) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one; never a copy."""
    # :func:`is_mapping` written out: this is asked of nearly every field read.
    if type(value) is dict or (value is not None and isinstance(value, Mapping)):
        return value
    return {}


def as_list(value: object) -> list[Any]:
    """``value`` when it is a list, else an empty one; never a copy."""
    return value if isinstance(value, list) else []


def at(tree: object, path: Iterable[str]) -> object:
    """The value at ``path`` in ``tree``: None where a step is no mapping or lacks the key."""
    for key in path:
        # :func:`is_mapping` written out: every workload is asked for every site's path.
        if type(tree) is not dict and (tree is None or not isinstance(tree, Mapping)):
            return None
        tree = tree.get(key)
    return tree
