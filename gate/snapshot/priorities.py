"""The priority expander's ConfigMap -> :class:`~gate.model.autoscaling.Priorities`.

Upstream cluster-autoscaler-1.34.5, expander/priority/priority.go: the ConfigMap
``cluster-autoscaler-priority-expander`` (``PriorityConfigMapName``, line 37) in
cluster-autoscaler's namespace (kube-system, where fitgate reads its status too), key
``priorities`` (``ConfigMapKey``, line 39), is YAML unmarshalled into ``map[int][]string``
(line 97), each string compiled by Go's regexp (line 104). A ConfigMap without the key
(line 67), with it empty (line 92), whose YAML does not unmarshal into that map, or with a
regular expression that does not compile is ignored: ``BestOptions`` then returns every
option (lines 125-126) and the next expander of the chain decides.

Go's regular expressions are RE2's, not Python's, and the file is untrusted: a regular
expression is evaluated here only when it keeps to what both read alike and that matches in
time linear in practice (literal characters, ``.``, classes without POSIX names, ``^``,
``$``, alternation, groups and quantifiers, never one quantifier on a group); any other is
named as :attr:`~gate.model.autoscaling.Priorities.unjudged`, and which groups the expander
would choose is left open.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gate.inputs.manifests import bounded_yaml
from gate.model.autoscaling import Priorities

PRIORITY_NAME = "cluster-autoscaler-priority-expander"
PRIORITIES_KEY = "priorities"
_INT64 = 1 << 63
MAX_PATTERN = 256
"""A longer regular expression is not evaluated (a group id is a few dozen characters)."""

_LITERAL = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_/:@=,%~#!<>&;'\" "
)
_ESCAPED = frozenset(".*+?()[]{}|^$\\-/")
_QUANTIFIERS = frozenset("*+?")


def is_priority_config(obj: Mapping[str, Any]) -> bool:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return meta.get("namespace") == "kube-system" and meta.get("name") == PRIORITY_NAME


def priorities_of(obj: Mapping[str, Any]) -> Priorities:
    """The ConfigMap as the priority expander reads it (module doc)."""
    data = obj.get("data")
    text = data.get(PRIORITIES_KEY) if isinstance(data, Mapping) else None
    if not isinstance(text, str):
        return Priorities(problem=f"it has no {PRIORITIES_KEY} key")
    if text == "":
        return Priorities(problem=f"its {PRIORITIES_KEY} key is empty")
    try:
        config = bounded_yaml(text)
    except ValueError as exc:
        return Priorities(problem=f"its {PRIORITIES_KEY} are not YAML: {exc}")
    if config is None:  # yaml.v2 leaves the map empty: no group is matched
        return Priorities()
    if not isinstance(config, Mapping):
        return Priorities(problem=f"its {PRIORITIES_KEY} are not a map of priorities")
    tiers: list[tuple[int, tuple[str, ...]]] = []
    unjudged = None
    for priority, patterns in config.items():
        if type(priority) is not int or not -_INT64 <= priority < _INT64:
            shown = str(priority)[:40]
            return Priorities(problem=f"the priority {shown!r} is not an integer")
        if patterns is None:
            continue
        if not isinstance(patterns, list):
            return Priorities(problem=f"priority {priority}: not a list of regular expressions")
        for pattern in patterns:
            if not isinstance(pattern, str):
                unjudged = unjudged or f"priority {priority}: {str(pattern)[:40]!r}"
            elif not evaluated(pattern):
                unjudged = unjudged or f"priority {priority}: {pattern[:60]!r}"
        tiers.append((priority, tuple(p for p in patterns if isinstance(p, str))))
    tiers.sort(key=lambda tier: -tier[0])
    return Priorities(tuple(tiers), unjudged=unjudged)


def evaluated(pattern: str) -> bool:
    """Whether ``pattern`` keeps to what RE2 and Python read alike (module doc)."""
    if len(pattern) > MAX_PATTERN:
        return False
    position, after_group = 0, False
    previous_quantified = False
    while position < len(pattern):
        char = pattern[position]
        if char in _QUANTIFIERS:
            lazy = char == "?" and previous_quantified
            if after_group or (previous_quantified and not lazy):
                return False
            previous_quantified, after_group = not lazy, False
            position += 1
            continue
        previous_quantified = after_group = False
        if char == "\\":
            following = pattern[position + 1 : position + 2]
            if following not in _ESCAPED and following not in ("d", "w"):
                return False
            position += 2
        elif char == "[":
            end = _class_end(pattern, position)
            if end < 0:
                return False
            position = end + 1
        elif char == "(":
            if pattern[position + 1 : position + 2] == "?":
                return False
            position += 1
        elif char == ")":
            after_group = True
            position += 1
        elif char in _LITERAL or char in ".^$|":
            position += 1
        else:
            return False
    try:
        re.compile(pattern, re.ASCII)
    except re.error:
        return False
    return True


def _class_end(pattern: str, start: int) -> int:
    """The index of the ``]`` closing the class opened at ``start``, or -1 when the class
    uses what RE2 and Python read otherwise (a POSIX name, a leading ``]``)."""
    position = start + 1
    if pattern[position : position + 1] == "^":
        position += 1
    if pattern[position : position + 1] in ("]", ""):
        return -1
    while position < len(pattern):
        char = pattern[position]
        if char == "]":
            return position
        if char == "[":
            return -1
        if char == "\\":
            following = pattern[position + 1 : position + 2]
            if following not in _ESCAPED and following not in ("d", "w"):
                return -1
            position += 2
        elif char in _LITERAL or char == ".":
            position += 1
        else:
            return -1
    return -1
