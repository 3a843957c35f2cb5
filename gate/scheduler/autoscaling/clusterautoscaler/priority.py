"""cluster-autoscaler's priority expander (``--expander priority``), upstream
cluster-autoscaler-1.34.5 expander/priority/priority.go, over the ConfigMap the snapshot
recorded (:mod:`gate.snapshot.priorities`)."""

from __future__ import annotations

import re

from gate.model.autoscaling import Priorities


def chosen(priorities: Priorities, ids: list[str]) -> list[str]:
    """The group ids the priority expander keeps of ``ids`` (priority.go ``BestOptions``,
    lines 129-160): those matched by the highest priority any of them matches, where that
    is at least -1 (``maxPrio`` starts there, line 129, and a lower one is skipped, line
    139); every id when none is (line 159). A regular expression matches anywhere in the
    id (``FindStringIndex``, line 170)."""
    matched = {
        group: [p for p, patterns in priorities.tiers if _matches(patterns, group)] for group in ids
    }
    top = max((p for found in matched.values() for p in found), default=None)
    if top is None or top < -1:
        return ids
    return [group for group in ids if top in matched[group]]


def _matches(patterns: tuple[str, ...], group: str) -> bool:
    return any(re.search(p, group, re.ASCII) is not None for p in patterns)
