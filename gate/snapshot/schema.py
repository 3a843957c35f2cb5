"""The snapshot schema (``gate/schemas/snapshot.schema.json``): the one statement of a
snapshot's envelope and of the types of every field the checks read.

The reference reader validates whole objects against it with jsonschema; the typed reader
checks its envelope against the very same rules (:func:`envelope_ok`), and its structs are
held to the same field types by a test (tests/test_snapshot_description.py).

>>> layout_of({"kind": "ClusterSnapshot"}), layout_of({"kind": "PodList"})
('clusterSnapshot', 'list')
>>> envelope_ok({"apiVersion": "fitgate/v1", "kind": "ClusterSnapshot", "nodes": [],
...              "pods": [], "capturedAt": None})
True
>>> envelope_ok({"apiVersion": "fitgate/v1", "kind": "ClusterSnapshot", "nodes": [],
...              "pods": None})
False
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from gate import shipped_text

LAYOUTS = ("clusterSnapshot", "list")  # the schema's top-level oneOf, in its order
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "null": (type(None),),
    "object": (dict,),
    "array": (list,),
    "boolean": (bool,),
}


@cache
def schema() -> dict[str, Any]:
    text = shipped_text("schemas/snapshot.schema.json")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def layout_of(document: object) -> str | None:
    """The layout the document's ``kind`` claims, so that a violation is reported against
    that layout's fields (``pods`` missing) rather than as a mismatch with the other."""
    kind = document.get("kind") if isinstance(document, Mapping) else None
    if kind == "ClusterSnapshot":
        return "clusterSnapshot"
    if isinstance(kind, str) and kind.endswith("List"):
        return "list"
    return None


def envelope_ok(members: Mapping[str, Any]) -> bool:
    """Whether the top-level members satisfy their layout's rules. An array member may be
    given as any list: its elements are checked object by object, not here."""
    layout = layout_of(members)
    if layout is None:
        return False
    return _matches(members, schema()["oneOf"][LAYOUTS.index(layout)])


def _matches(value: Any, rule: Mapping[str, Any]) -> bool:
    """The part of JSON Schema the envelope uses: type, const, pattern, required and the
    properties of an object."""
    if "const" in rule and value != rule["const"]:
        return False
    types = rule.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else types
        if not any(isinstance(value, _TYPES[name]) for name in names):
            return False
    if "pattern" in rule and not re.search(rule["pattern"], value):
        return False
    if isinstance(value, dict):
        if any(name not in value for name in rule.get("required", ())):
            return False
        properties = rule.get("properties", {})
        return all(_matches(value[k], r) for k, r in properties.items() if k in value)
    return True
