"""Reading the untyped trees YAML and JSON decode to, where a field of the wrong type reads
as empty (what a template's shape check has not refused is read this way: a ``resources``
that is a string, say, requests nothing).

>>> mapping({"cpu": "1"}), mapping("1"), as_list([1]), as_list({"a": 1})
({'cpu': '1'}, {}, [1], [])
>>> at({"spec": {"suspend": True}}, ("spec", "suspend")), at({"spec": "x"}, ("spec", "suspend"))
(True, None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def mapping(value: object) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one; never a copy."""
    # A dict first: the decoders give dicts, and asking the ABC costs a Python-level call.
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    """``value`` when it is a list, else an empty one; never a copy."""
    return value if isinstance(value, list) else []


def at(tree: object, path: Iterable[str]) -> object:
    """The value at ``path`` in ``tree``: None where a step is no mapping or lacks the key."""
    for key in path:
        # A dict first: asking the Mapping ABC costs a Python-level call, and every workload
        # is asked for every site's path.
        if type(tree) is not dict and not isinstance(tree, Mapping):
            return None
        tree = tree.get(key)
    return tree
