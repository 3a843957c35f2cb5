"""Uncoupled copies placed without scores, on clusters where the scheduler scores a share.

Past 100 nodes the scheduler scores only ``numFeasibleNodesToFind`` of the feasible nodes
from a rotating start (schedule_one.go), so which node takes a copy is not knowable from a
snapshot. Copies nothing couples fill the nodes evenly in node order: their count does not
depend on it (docs/scheduler-rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice

from gate.model import NodeView
from gate.scheduler.copyrules import (
    CopyRules,
    Ledger,
    Placement,
    capacity,
    set_bits,
)


def filled(
    wanted: int, nodes: Sequence[NodeView], rules: CopyRules, fitting: int, ledger: Ledger | None
) -> Placement:
    """Uncoupled copies on a cluster where the scheduler scores only a share of the
    feasible nodes from a rotating start (more than 100 nodes): which node takes a copy is
    not knowable there, and the count does not depend on it. The copies fill the nodes
    evenly in node order (:func:`fill_order`), asking only the nodes they reach."""
    copies: dict[int, int] = {}

    def capacity_of(position: int) -> int:
        return capacity(nodes[position], rules, ledger)

    for position in islice(fill_order(set_bits(fitting), capacity_of), wanted):
        copies[position] = copies.get(position, 0) + 1
    return Placement(wanted=wanted, fit=sum(copies.values()), copies=dict(sorted(copies.items())))


def fill_order(candidates: Iterable[int], capacity_of: Callable[[int], int]) -> Iterator[int]:
    """The nodes copies go to, one copy per item: one each in node order, then a second
    each to nodes that hold two, and so on. Lazy: a node's capacity is asked for only when
    the copies reach it, so counting ten copies over five thousand candidates looks at ten
    nodes."""
    opened: list[tuple[int, int]] = []
    for index in candidates:
        cap = capacity_of(index)
        if cap > 0:
            opened.append((index, cap))
            yield index
    level = 2
    while opened:
        opened = [(index, cap) for index, cap in opened if cap >= level]
        for index, _ in opened:
            yield index
        level += 1
