"""What reports derive from a workload's per-node outcomes, derived once per outcomes.

The engine hands one value of per-node outcomes to every workload that behaves alike on
every node (a few hundred for thousands of workloads), kept as the sets of nodes that share
one outcome (:class:`~gate.model.NodeOutcomes`), and several reports show the same views
of it: the nodes that fit, the reasons grouped, the headline. Every view is derived from
those sets, a few per workload, never node by node; outcomes read back from a report (a
tuple) are put in sets once. Hashing 5,000 outcomes costs as much as deriving the view, so
a view is kept by the outcomes' identity, and they are held so that identity is not reused
while the views live. What several writers lay out of the whole run (the comment's and
the step summary's rows) is kept the same way, by the report's identity, and what they
say of one workload (its headline) by the result's. A :class:`Views` lives as long as the
writers that share it (one run's reports): it needs no bound, since the report holds every
outcome anyway.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from gate.model import NodeOutcome, NodeOutcomes, Report, WorkloadResult

Outcomes = Sequence[NodeOutcome]
View = TypeVar("View")
Subject = TypeVar("Subject")


class Views:
    """Views of per-node outcomes, each derived once per (view, outcomes).

    >>> views, calls = Views(), []
    >>> def count(nodes: NodeOutcomes) -> int:
    ...     calls.append(nodes)
    ...     return len(nodes)
    >>> nodes = (NodeOutcome("a", ()),)
    >>> views.of(count, nodes), views.of(count, nodes), len(calls)
    (1, 1, 1)
    """

    __slots__ = ("_derived", "_held", "_reports", "_results")

    def __init__(self) -> None:
        self._held: dict[int, tuple[Outcomes, NodeOutcomes]] = {}
        self._derived: dict[tuple[Callable[[NodeOutcomes], Any], int], Any] = {}
        self._reports: dict[tuple[Callable[[Report, Views], Any], int], tuple[Report, Any]] = {}
        self._results: dict[
            tuple[Callable[[WorkloadResult, Views], Any], int], tuple[WorkloadResult, Any]
        ] = {}

    def of(self, derive: Callable[[NodeOutcomes], View], nodes: Outcomes) -> View:
        """``derive`` of these very ``nodes`` as sets, computed the first time they are
        asked for."""
        key = (derive, id(nodes))
        if key in self._derived:
            return cast(View, self._derived[key])
        held = self._held.get(id(nodes))
        if held is None:
            held = self._held[id(nodes)] = (nodes, NodeOutcomes.of(nodes))
        value = self._derived[key] = derive(held[1])
        return value

    def of_report(self, derive: Callable[[Report, Views], View], report: Report) -> View:
        """``derive(report, self)``, computed the first time this very ``report`` is asked
        for: what several writers show of the whole run (the comment and the step summary
        lay out the same rows)."""
        return self._once(self._reports, derive, report)

    def of_result(
        self, derive: Callable[[WorkloadResult, Views], View], result: WorkloadResult
    ) -> View:
        """``derive(result, self)``, computed the first time this very ``result`` is asked
        for: what several writers say of one workload (its headline)."""
        return self._once(self._results, derive, result)

    def _once(
        self,
        table: dict[tuple[Callable[[Subject, Views], Any], int], tuple[Subject, Any]],
        derive: Callable[[Subject, Views], View],
        subject: Subject,
    ) -> View:
        """``derive(subject, self)`` kept in ``table`` by the subject's identity, the
        subject held so that identity is not reused while the value lives."""
        key = (derive, id(subject))
        if key in table:
            return cast(View, table[key][1])
        value = derive(subject, self)
        table[key] = (subject, value)
        return value


def fitting_count(nodes: NodeOutcomes) -> int:
    """How many nodes the pod fits (no reasons)."""
    return nodes.fitting.bit_count()


def fitting_nodes(nodes: NodeOutcomes) -> tuple[str, ...]:
    """The names of the nodes the pod fits (no reasons), in node order."""
    return nodes.nodes_in(nodes.fitting)
