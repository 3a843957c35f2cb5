"""The snapshot's nodes indexed by what the filters read, so that one pod is filtered per
class of nodes.

Real nodes are all different: each carries its own ``kubernetes.io/hostname`` and its own
free resources. But each filter reads only part of a node, and there few nodes differ:
cordon (one flag), taints (a few pools), the labels a selector names, used host ports.
Sets of nodes are Python integers used as bitsets (bit i = node i); :meth:`NodeIndex.classes`
groups the nodes by the part one plugin reads, so that the plugin runs once per class on a
representative node and its verdict reaches all the class's nodes in one ``&``
(:func:`gate.scheduler.framework.runtime.filter_groups`).

Resources are thresholds, not classes: the nodes with less than ``w`` millicores free are a
prefix of the nodes sorted by free cpu, and every prefix's bitset is built once per
resource.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import reduce
from operator import or_

from gate.k8s.resources import PODS
from gate.model import NodeView

Classes = tuple[tuple[int, int], ...]
"""(bitset, representative index) per class of nodes."""


def free(node: NodeView, resource: str) -> int:
    """What the node has left of ``resource``; for ``pods``, slots left by the pods bound to
    it (fitsRequest counts pods, not their ``pods`` requests)."""
    used = node.pod_count if resource == PODS else node.requested.get(resource, 0)
    return node.allocatable.get(resource, 0) - used


def _classes(nodes: Iterable[NodeView], key: Callable[[NodeView], Hashable]) -> Classes:
    """(bitset, representative index) per distinct value of ``key(node)``."""
    found: dict[Hashable, list[int]] = {}
    for index, node in enumerate(nodes):
        entry = found.setdefault(key(node), [0, index])
        entry[0] |= 1 << index
    return tuple((bits, rep) for bits, rep in found.values())


def taints_of(node: NodeView) -> Hashable:
    """What TaintToleration reads of a node (and PodTopologySpread's nodeTaintsPolicy)."""
    return node.taints


def lowest(bits: int) -> int:
    """The index of the first node of a nonempty set."""
    return (bits & -bits).bit_length() - 1


@dataclass(frozen=True, slots=True)
class _Threshold:
    """Amounts of one resource, sorted, and the bitset of each prefix of the nodes in that
    order. A prefix's bitset is kept at every :data:`_STRIDE`-th length only and the rest
    is made up when asked: kept whole, 5,000 nodes' prefixes hold 1.7 MB a resource."""

    amounts: tuple[int, ...]
    order: tuple[int, ...]
    every: tuple[int, ...]

    @classmethod
    def of(cls, amounts: list[int]) -> _Threshold:
        order = sorted(range(len(amounts)), key=amounts.__getitem__)
        every, bits = [0], 0
        for count, index in enumerate(order, 1):
            bits |= 1 << index
            if count % _STRIDE == 0:
                every.append(bits)
        return cls(tuple(amounts[i] for i in order), tuple(order), tuple(every))

    def prefix(self, count: int) -> int:
        """The nodes with the ``count`` smallest amounts."""
        start = count - count % _STRIDE
        bits = self.every[start // _STRIDE]
        for index in self.order[start:count]:
            bits |= 1 << index
        return bits

    def below(self, wanted: int) -> int:
        """The nodes with less than ``wanted``."""
        return self.prefix(bisect_left(self.amounts, wanted))


_STRIDE = 16


@dataclass(frozen=True, slots=True)
class NodeIndex:
    nodes: tuple[NodeView, ...]
    everyone: int
    addon: int
    _classes: dict[Callable[[NodeView], Hashable], Classes] = field(default_factory=dict)
    _labels: dict[str, dict[str, int]] = field(default_factory=dict)
    _with_label: dict[str, int] = field(default_factory=dict)
    _free: dict[str, _Threshold] = field(default_factory=dict)
    _allocatable: dict[str, _Threshold] = field(default_factory=dict)

    @classmethod
    def of(cls, nodes: Iterable[NodeView]) -> NodeIndex:
        nodes = tuple(nodes)
        addon = 0
        for index, node in enumerate(nodes):
            addon |= 1 << index if node.is_addon_node else 0
        return cls(nodes=nodes, everyone=(1 << len(nodes)) - 1, addon=addon)

    def classes(self, reads: Callable[[NodeView], Hashable]) -> Classes:
        """The nodes by the part ``reads`` gives of them, built at its first use."""
        found = self._classes.get(reads)
        if found is None:
            found = self._classes[reads] = _classes(self.nodes, reads)
        return found

    @property
    def taint_classes(self) -> Classes:
        return self.classes(taints_of)

    def label_values(self, key: str) -> Mapping[str, int]:
        """The nodes by their value of label ``key`` (nodes without it are absent). Built
        for the keys some pod asks about: every node carries dozens, pods ask of a few."""
        values = self._labels.get(key)
        if values is None:
            values = self._labels[key] = {}
            for index, node in enumerate(self.nodes):
                if key in node.labels:
                    value = node.labels[key]
                    values[value] = values.get(value, 0) | 1 << index
        return values

    def with_label(self, key: str) -> int:
        """The nodes that carry label ``key``, whatever its value. Kept: the inter-pod
        plugins ask it of the same few topology keys for every pod, and a hostname key has
        a value, and a bitset to join, per node."""
        bits = self._with_label.get(key)
        if bits is None:
            bits = self._with_label[key] = reduce(or_, self.label_values(key).values(), 0)
        return bits

    def short_of(self, resource: str, wanted: int) -> int:
        """The nodes with less than ``wanted`` of ``resource`` free (see :func:`free`)."""
        threshold = self._free.get(resource)
        if threshold is None:
            amounts = [free(n, resource) for n in self.nodes]
            threshold = self._free[resource] = _Threshold.of(amounts)
        return threshold.below(wanted)

    def largest_free(self, resource: str, among: int) -> int | None:
        """The largest free amount of ``resource`` among the nodes of ``among`` (None for
        no node): the shortest prefix of the nodes sorted by free amount that holds them
        all ends at it, found by bisection over the prefixes' bitsets."""
        if not among:
            return None
        self.short_of(resource, 0)
        threshold = self._free[resource]
        low, high = 1, len(threshold.amounts)
        while low < high:
            middle = (low + high) // 2
            if among & ~threshold.prefix(middle):
                low = middle + 1
            else:
                high = middle
        return threshold.amounts[low - 1]

    def smaller_than(self, resource: str, wanted: int) -> int:
        """The nodes whose allocatable ``resource`` is less than ``wanted``."""
        threshold = self._allocatable.get(resource)
        if threshold is None:
            amounts = [n.allocatable.get(resource, 0) for n in self.nodes]
            threshold = self._allocatable[resource] = _Threshold.of(amounts)
        return threshold.below(wanted)

    def label_parts(self, keys: Iterable[str], among: int) -> list[int]:
        """``among`` split by the nodes' values of ``keys`` (absent is a value too)."""
        parts = [among] if among else []
        for key in sorted(set(keys)):
            values = self.label_values(key)
            absent = self.everyone
            split = []
            for bits in values.values():
                absent &= ~bits
                split += [p & bits for p in parts if p & bits]
            parts = split + [p & absent for p in parts if p & absent]
        return parts
