"""The snapshot's nodes indexed per filter, so that one pod is filtered per class of nodes.

Real nodes are all different: each carries its own ``kubernetes.io/hostname`` and its own
free resources. But each filter reads only part of a node, and there few nodes differ:
cordon (one flag), taints (a few pools), the labels a selector names, used host ports.
So each filter runs once per class of *its* part, on a representative node, with the
filter functions of :mod:`gate.scheduler.filters` themselves; sets of nodes are Python integers used
as bitsets (bit i = node i), and a class's verdict reaches all its nodes in one ``&``.

Resources are thresholds, not classes: the nodes with less than ``w`` millicores free are a
prefix of the nodes sorted by free cpu, and every prefix's bitset is built once per
resource. NodeResourcesFit is mirrored here, in its order, reason by reason (see
``node_resources_fit``; property tests hold the two to the same answers).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field

from gate.k8s.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from gate.k8s.version import Dialect
from gate.model import NodeView
from gate.scheduler.filters import (
    REASON_TOO_MANY_PODS,
    PodProfile,
    Rejection,
    node_affinity,
    node_ports,
    node_unschedulable,
    taint_toleration,
)

Groups = dict[Rejection, int]
"""Disjoint sets of nodes (bitsets) by the rejection they share; fitting nodes are absent."""


def _classes(
    nodes: Iterable[NodeView], key: Callable[[NodeView], Hashable]
) -> list[tuple[int, int]]:
    """(bitset, representative index) per distinct value of ``key(node)``."""
    found: dict[Hashable, list[int]] = {}
    for index, node in enumerate(nodes):
        entry = found.setdefault(key(node), [0, index])
        entry[0] |= 1 << index
    return [(bits, rep) for bits, rep in found.values()]


def _lowest(bits: int) -> int:
    return (bits & -bits).bit_length() - 1


@dataclass(frozen=True, slots=True)
class _Threshold:
    """Free amounts of one resource, sorted, and the bitset of each prefix."""

    free: tuple[int, ...]
    prefixes: tuple[int, ...]

    @classmethod
    def of(cls, nodes: tuple[NodeView, ...], resource: str) -> _Threshold:
        free = [n.allocatable.get(resource, 0) - n.requested.get(resource, 0) for n in nodes]
        order = sorted(range(len(nodes)), key=free.__getitem__)
        prefixes = [0]
        for index in order:
            prefixes.append(prefixes[-1] | 1 << index)
        return cls(tuple(free[i] for i in order), tuple(prefixes))

    def short_of(self, wanted: int) -> int:
        """The nodes with less than ``wanted`` free: ``wanted > free`` fails the filter."""
        return self.prefixes[bisect_left(self.free, wanted)]


@dataclass(frozen=True, slots=True)
class NodeIndex:
    nodes: tuple[NodeView, ...]
    everyone: int
    unschedulable: int
    addon: int
    too_many_pods: int
    taint_classes: tuple[tuple[int, int], ...]
    port_classes: tuple[tuple[int, int], ...]
    _labels: dict[str, dict[str, int]] = field(default_factory=dict)
    _thresholds: dict[str, _Threshold] = field(default_factory=dict)

    @classmethod
    def of(cls, nodes: Iterable[NodeView]) -> NodeIndex:
        nodes = tuple(nodes)
        unschedulable = addon = too_many = 0
        for index, node in enumerate(nodes):
            bit = 1 << index
            unschedulable |= bit if node.unschedulable else 0
            addon |= bit if node.is_addon_node else 0
            too_many |= bit if node.pod_count + 1 > node.allocatable.get(PODS, 0) else 0
        return cls(
            nodes=nodes,
            everyone=(1 << len(nodes)) - 1,
            unschedulable=unschedulable,
            addon=addon,
            too_many_pods=too_many,
            taint_classes=tuple(_classes(nodes, lambda n: n.taints)),
            port_classes=tuple(_classes(nodes, lambda n: n.used_ports)),
        )

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

    def short_of(self, resource: str, wanted: int) -> int:
        if resource not in self._thresholds:
            self._thresholds[resource] = _Threshold.of(self.nodes, resource)
        return self._thresholds[resource].short_of(wanted)

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


def filter_groups(
    index: NodeIndex, pod: PodProfile, dialect: Dialect, label_keys: Iterable[str]
) -> Groups:
    """Every node's first rejection, as kube-scheduler's filters give it, for a pod whose
    answer does not depend on node names. ``label_keys`` are every label key the pod's
    nodeSelector and required affinity read."""
    groups: Groups = {}
    remaining = index.everyone

    def reject(bits: int, rejection: Rejection | None) -> None:
        nonlocal remaining
        bits &= remaining
        if rejection is not None and bits:
            groups[rejection] = groups.get(rejection, 0) | bits
            remaining &= ~bits

    nodes = index.nodes
    if index.unschedulable:
        rep = nodes[_lowest(index.unschedulable)]
        reject(index.unschedulable, node_unschedulable(pod, rep, dialect))
    for bits, rep_index in index.taint_classes:
        reject(bits, taint_toleration(pod, nodes[rep_index], dialect))
    if pod.node_selector or pod.affinity_terms is not None:
        for part in index.label_parts(label_keys, remaining):
            reject(part, node_affinity(pod, nodes[_lowest(part)], dialect))
    if pod.wanted_ports:
        for bits, rep_index in index.port_classes:
            reject(bits, node_ports(pod, nodes[rep_index], dialect))
    for bits, reasons in _resource_parts(index, pod, dialect, remaining):
        reject(bits, Rejection(reasons) if reasons else None)
    return groups


def _resource_parts(
    index: NodeIndex, pod: PodProfile, dialect: Dialect, among: int
) -> list[tuple[int, tuple[str, ...]]]:
    """NodeResourcesFit over ``among``: nodes split by the reasons they would give."""
    failing: list[tuple[int, str]] = [(index.too_many_pods, REASON_TOO_MANY_PODS)]
    requests = pod.requests
    for resource in (CPU, MEMORY, EPHEMERAL_STORAGE):
        wanted = requests.get(resource, 0)
        if wanted > 0:
            failing.append((index.short_of(resource, wanted), f"Insufficient {resource}"))
    scalars = sorted(r for r in requests if r not in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS))
    for resource in scalars:
        wanted = requests[resource]
        if wanted > 0:
            failing.append((index.short_of(resource, wanted), f"Insufficient {resource}"))
    parts: list[tuple[int, tuple[str, ...]]] = [(among, ())]
    for bits, reason in failing:
        split = []
        for part, reasons in parts:
            if part & bits:
                split.append((part & bits, (*reasons, reason)))
            if part & ~bits:
                split.append((part & ~bits, reasons))
        parts = split
    return parts
