"""Per-node outcomes in node order, assembled without a Python step per node.

A report lists every node for every workload: 2,000 workloads on 5,000 nodes are ten
million outcomes, far too many to build one by one. An outcome depends only on the node
and the rejection, and a workload's rejections are a few disjoint sets of nodes, so:
each (rejection, node) outcome is built once, in a table per rejection; a workload's
group of each node is written into one byte per node with integer arithmetic on the
bitsets; and the tuple is gathered from the tables by C-level ``itemgetter``/``map``.
Workloads with the same groups share the same tuple.
"""

from __future__ import annotations

from itertools import repeat
from operator import itemgetter

from gate.filters import Rejection
from gate.model import NodeOutcome, NodeView
from gate.nodeindex import Groups

# Byte b of a bitset -> eight bytes, the j-th being bit j of b (0 or 1).
_EXPAND = [bytes((b >> j) & 1 for j in range(8)) for b in range(256)]
_MAX_GROUPS = 255  # a group number must fit in one byte


def _spread(bits: int, count: int) -> bytes:
    """One byte per node, 1 where ``bits`` has the node."""
    packed = bits.to_bytes((count + 7) // 8, "little")
    return b"".join(map(_EXPAND.__getitem__, packed))[:count]


class OutcomeTables:
    """Builds and shares the outcome tuples of one snapshot's nodes."""

    def __init__(self, nodes: tuple[NodeView, ...]) -> None:
        self._names = [n.name for n in nodes]
        self._tables: dict[Rejection | None, list[NodeOutcome]] = {}
        self._shared: dict[tuple[tuple[Rejection, int], ...], tuple[NodeOutcome, ...]] = {}

    def _table(self, rejection: Rejection | None) -> list[NodeOutcome]:
        table = self._tables.get(rejection)
        if table is None:
            reasons, taint = (rejection.reasons, rejection.taint) if rejection else ((), None)
            table = list(map(NodeOutcome, self._names, repeat(reasons), repeat(taint)))
            self._tables[rejection] = table
        return table

    def outcomes(self, groups: Groups) -> tuple[NodeOutcome, ...]:
        """Every node's outcome: its group's rejection, or a fit where it is in none."""
        key = tuple(groups.items())
        shared = self._shared.get(key)
        if shared is None:
            shared = self._assemble(groups)
            self._shared[key] = shared
        return shared

    def _assemble(self, groups: Groups) -> tuple[NodeOutcome, ...]:
        count = len(self._names)
        tables = [self._table(None)]
        if count < 2 or len(groups) > _MAX_GROUPS:
            rows = [tables[0]] * count
            for rejection, bits in groups.items():
                table = self._table(rejection)
                for index in range(count):
                    if bits >> index & 1:
                        rows[index] = table
            return tuple(map(list.__getitem__, rows, range(count)))
        numbered = 0
        for number, (rejection, bits) in enumerate(groups.items(), start=1):
            numbered += int.from_bytes(_spread(bits, count), "little") * number
            tables.append(self._table(rejection))
        group_of = numbered.to_bytes(count, "little")
        rows = itemgetter(*group_of)(tables)
        return tuple(map(list.__getitem__, rows, range(count)))
