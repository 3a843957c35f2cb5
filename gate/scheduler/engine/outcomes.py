"""Per-node outcomes as the sets of nodes that share one, shared between workloads.

A report lists every node for every workload: 2,000 workloads on 5,000 nodes are ten
million outcomes, far too many to build one by one. A workload's rejections are a few
disjoint sets of nodes, so its outcomes are kept as those sets
(:class:`~gate.model.NodeOutcomes`): the outcome a rejection shows is built once, and
workloads whose sets are the same share one value, whose views reports derive once.
"""

from __future__ import annotations

from gate.model import Code, NodeOutcome, NodeOutcomes, NodeView, Taint
from gate.scheduler.framework.runtime import Groups, Rejection

Fields = tuple[tuple[str, ...], Taint | None, str, Code | None]
"""What a rejection shows of itself on a node: rejections differing only in what the pod
asks (NodeResourcesFit's shortfall) show the same outcome."""


def outcome(node: str, rejection: Rejection | None) -> NodeOutcome:
    """One node's outcome: the rejection it got, or a fit."""
    if rejection is None:
        return NodeOutcome(node, ())
    return NodeOutcome(node, rejection.reasons, rejection.taint, rejection.plugin, rejection.code)


class OutcomeTables:
    """Builds and shares the outcomes of one snapshot's nodes.

    Each outcome a rejection shows gets a number, in the order first seen; a workload's
    sets are keyed by those numbers and their bitsets, so workloads alike share one
    :class:`~gate.model.NodeOutcomes`.
    """

    def __init__(self, nodes: tuple[NodeView, ...]) -> None:
        self._names = tuple(n.name for n in nodes)
        self._shown: dict[Fields, tuple[int, NodeOutcome]] = {}
        self._shared: dict[tuple[tuple[int, int], ...], NodeOutcomes] = {}

    def _numbered(self, rejection: Rejection) -> tuple[int, NodeOutcome]:
        fields = (rejection.reasons, rejection.taint, rejection.plugin, rejection.code)
        found = self._shown.get(fields)
        if found is None:
            found = self._shown[fields] = (len(self._shown), outcome("", rejection))
        return found

    def outcomes(self, groups: Groups) -> NodeOutcomes:
        """Every node's outcome: its group's rejection, or a fit where it is in none."""
        merged: dict[int, int] = {}
        shown: dict[int, NodeOutcome] = {}
        for rejection, bits in groups.items():
            if bits:
                number, shown[number] = self._numbered(rejection)
                merged[number] = merged.get(number, 0) | bits
        key = tuple(sorted(merged.items()))
        shared = self._shared.get(key)
        if shared is None:
            sets = tuple((shown[number], bits) for number, bits in key)
            shared = self._shared[key] = NodeOutcomes(self._names, sets)
        return shared
