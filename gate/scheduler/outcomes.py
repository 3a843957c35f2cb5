"""Per-node outcomes in node order, assembled without a Python step per node.

A report lists every node for every workload: 2,000 workloads on 5,000 nodes are ten
million outcomes, far too many to build one by one. An outcome depends only on the node
and the rejection, and a workload's rejections are a few disjoint sets of nodes, so:
each (outcome, node) pair is built once, kept in the node's row of outcomes; the
number of each node's rejection is written into one byte per node with integer arithmetic
on the bitsets; and the tuple is gathered from the rows by one C-level ``map``. Workloads
with the same groups share the same tuple.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from itertools import repeat

from gate.model import Code, NodeOutcome, NodeView, Taint
from gate.scheduler.filters import Rejection
from gate.scheduler.plugins import Groups

# Byte b of a bitset -> eight bytes, the j-th being bit j of b (0 or 1).
_EXPAND = [bytes((b >> j) & 1 for j in range(8)) for b in range(256)]
_MAX_NUMBER = 255  # a rejection's number must fit in one byte


Fields = tuple[tuple[str, ...], Taint | None, str, Code | None]
"""A NodeOutcome's fields after the node: what a rejection shows of itself on a node."""
_FIT: Fields = ((), None, "", None)


def _fields(rejection: Rejection | None) -> Fields:
    if rejection is None:
        return _FIT
    return (rejection.reasons, rejection.taint, rejection.plugin, rejection.code)


def outcome(node: str, rejection: Rejection | None) -> NodeOutcome:
    """One node's outcome: the rejection it got, or a fit."""
    return NodeOutcome(node, *_fields(rejection))


def _spread(bits: int, count: int) -> bytes:
    """One byte per node, 1 where ``bits`` has the node."""
    packed = bits.to_bytes((count + 7) // 8, "little")
    return b"".join(map(_EXPAND.__getitem__, packed))[:count]


class OutcomeTables:
    """Builds and shares the outcome tuples of one snapshot's nodes.

    Each outcome seen (a rejection's fields, which rejections differing only in what the
    pod asks share) gets a number (a fit is 0) and every node a row: its outcome under each
    number, so a workload's tuple is one C-level gather of ``row[number]``.
    """

    def __init__(self, nodes: tuple[NodeView, ...]) -> None:
        self._names = [n.name for n in nodes]
        self._rows: list[list[NodeOutcome]] = [[] for _ in self._names]
        self._numbers: dict[Fields, int] = {}
        self._shared: dict[tuple[tuple[int, int], ...], tuple[NodeOutcome, ...]] = {}
        self._number(None)

    def _number(self, rejection: Rejection | None) -> int:
        fields = _fields(rejection)
        number = self._numbers.get(fields)
        if number is None:
            number = self._numbers[fields] = len(self._numbers)
            outcomes = map(NodeOutcome, self._names, *map(repeat, fields))
            deque(map(list.append, self._rows, outcomes), maxlen=0)
        return number

    def outcomes(self, groups: Groups) -> tuple[NodeOutcome, ...]:
        """Every node's outcome: its group's rejection, or a fit where it is in none."""
        key = tuple((self._number(rejection), bits) for rejection, bits in groups.items())
        shared = self._shared.get(key)
        if shared is None:
            shared = self._assemble(key)
            self._shared[key] = shared
        return shared

    def patched(
        self,
        base: tuple[NodeOutcome, ...],
        groups: Groups,
        changes: Mapping[int, Rejection | None],
    ) -> tuple[NodeOutcome, ...]:
        """:meth:`outcomes` of ``groups``, which are the groups of ``base`` with the nodes at
        ``changes`` moved to the rejection given there (None: a fit). Only those nodes are
        looked up: a workload's released pods change a few nodes of thousands."""
        key = tuple((self._number(rejection), bits) for rejection, bits in groups.items())
        shared = self._shared.get(key)
        if shared is None:
            listed = list(base)
            rows = self._rows
            for position, rejection in changes.items():
                listed[position] = rows[position][self._number(rejection)]
            shared = self._shared[key] = tuple(listed)
        return shared

    def _assemble(self, numbers: tuple[tuple[int, int], ...]) -> tuple[NodeOutcome, ...]:
        count = len(self._names)
        if count < 2 or max((number for number, _ in numbers), default=0) > _MAX_NUMBER:
            row_of = [0] * count
            for number, bits in numbers:
                for index in range(count):
                    if bits >> index & 1:
                        row_of[index] = number
            return tuple(map(list.__getitem__, self._rows, row_of))
        numbered = 0
        for number, bits in numbers:
            numbered += int.from_bytes(_spread(bits, count), "little") * number
        return tuple(map(list.__getitem__, self._rows, numbered.to_bytes(count, "little")))
