"""What a PreFilter reads besides the pod, built once per snapshot.

:class:`Cluster`: the snapshot (its nodes, existing pods and namespaces), its nodes
indexed as bitsets, and :class:`OtherPods`, what the PreFilters of the plugins that look
at other pods (PodTopologySpread, InterPodAffinity) share in one run: the node classes,
the existing pods (indexed on first use) and the namespaces' labels. A pod that asks
nothing of those plugins, in a cluster where no existing pod has a required anti-affinity
term, costs a look at a few fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from copy import copy
from dataclasses import dataclass, replace
from typing import overload

from gate.model import ExistingPod, HostPort, NodeView, Snapshot
from gate.model.cluster import UnfrozenNode
from gate.model.storage import Mounts
from gate.scheduler.framework.mounts import VolumeUse
from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.profile import PodProfile


class OtherPods:
    """What one run's inter-pod PreFilters share (module doc)."""

    def __init__(
        self,
        nodes: NodeIndex,
        pods: Iterable[ExistingPod],
        namespaces: Mapping[str, Mapping[str, str]] | None,
        mounts: Mounts | None = None,
    ) -> None:
        self.nodes = nodes
        self._source = pods
        self._index: PodIndex | None = None
        self.namespaces = namespaces
        self._positions: dict[str, int] | None = None
        self._mounts = mounts
        self._volume_use: VolumeUse | None = None
        self._every_use: list[VolumeUse] = []  # shared with every view, filled on first use
        self.memo: dict[str, object] = {}
        """What a plugin works out once per run of the cluster alone (shared with every
        view: none of it depends on the pods a view leaves out)."""

    @property
    def pods(self) -> PodIndex:
        if self._index is None:
            self._index = PodIndex(self._source, self.nodes.nodes)
        return self._index

    def without(self, excluded: Iterable[int]) -> OtherPods:
        """These pods less those at ``excluded`` (positions in :attr:`pods`)."""
        view = copy(self)
        view._index = self.pods.without(excluded)
        view._volume_use = None
        return view

    def mounting(self, use: VolumeUse) -> OtherPods:
        """These pods, whose mounts are ``use`` (these pods' own and those of copies a
        count placed, :meth:`VolumeUse.with_pods`)."""
        view = copy(self)
        view._volume_use = use
        return view

    @property
    def volume_use(self) -> VolumeUse:
        """What these pods mount, by node (:mod:`gate.scheduler.framework.mounts`)."""
        if self._volume_use is None:
            if not self._every_use:
                self._every_use.append(VolumeUse.of(self.pods, self._mounts or {}))
            self._volume_use = self._every_use[0].without(self.pods.excluded)
        return self._volume_use

    def position(self, node: NodeView) -> int:
        if self._positions is None:
            self._positions = {n.name: i for i, n in enumerate(self.nodes.nodes)}
        return self._positions[node.name]

    def relevant(self, pod: PodProfile) -> bool:
        """Whether the inter-pod filters can reject anything for ``pod``: it asks them
        something, or some existing pod has a required anti-affinity term."""
        asks = pod.spread or pod.pod_affinity or pod.pod_anti_affinity
        return bool(asks) or bool(self.pods.anti_affinity_terms())


@dataclass(frozen=True, slots=True)
class Cluster:
    """The snapshot, its node index, and its existing pods indexed for the inter-pod
    plugins (built at their first use, so that it too is built once)."""

    snapshot: Snapshot
    index: NodeIndex
    others: OtherPods

    @classmethod
    def of(cls, snapshot: Snapshot) -> Cluster:
        index = NodeIndex.of(snapshot.nodes)
        others = OtherPods(index, snapshot.pods, snapshot.namespaces, snapshot.mounts)
        return cls(snapshot, index, others)

    def without(self, excluded: Iterable[int]) -> Cluster:
        """The cluster less the existing pods at ``excluded`` (positions in
        ``others.pods``): what a workload's new pods meet once its old ones are gone."""
        return replace(self, others=self.others.without(excluded))


class ChangedNodes(Sequence[NodeView]):
    """Nodes of which some read otherwise than the snapshot's (pods given back, copies or
    evictions placed): a subclass says which, and what they read (:meth:`changed_at`)."""

    def __init__(self, nodes: Sequence[NodeView]) -> None:
        self._nodes = nodes

    def __len__(self) -> int:
        return len(self._nodes)

    @overload
    def __getitem__(self, position: int) -> NodeView: ...

    @overload
    def __getitem__(self, position: slice) -> Sequence[NodeView]: ...

    def __getitem__(self, position: int | slice) -> NodeView | Sequence[NodeView]:
        if isinstance(position, slice):
            return [self[i] for i in range(len(self))[position]]
        changed = self.changed_at(position)
        return self._nodes[position] if changed is None else changed

    def changed_at(self, position: int) -> NodeView | None:
        """The node at ``position`` as it reads here; None: as the snapshot's."""
        raise NotImplementedError


def node_without(node: NodeView, gone: Sequence[ExistingPod]) -> NodeView:
    """``node`` once the pods ``gone`` (bound to it) leave: their requests, pod slots, host
    ports and scored cpu and memory given back (NodeInfo.RemovePod)."""
    requested = dict(node.requested)
    ports = set(node.used_ports)
    cpu, memory = node.scored_requests
    for pod in gone:
        for resource, amount in pod.requests.items():
            requested[resource] = requested.get(resource, 0) - amount
        ports.difference_update(pod.ports)
        held = pod.nonzero or (pod.requests.get("cpu", 0), pod.requests.get("memory", 0))
        cpu, memory = cpu - held[0], memory - held[1]
    return with_pods(node, requested, node.pod_count - len(gone), frozenset(ports), (cpu, memory))


def with_pods(
    node: NodeView,
    requested: Mapping[str, int],
    pod_count: int,
    used_ports: frozenset[HostPort],
    nonzero: tuple[int, int],
) -> NodeView:
    """``node`` with other pods bound to it: what they request, their count, the host ports
    they use and their cpu and memory as the resource scores count them."""
    # Built whole, not by dataclasses.replace, which looks the fields up again each time:
    # a large run releases pods on some 24,000 nodes.
    return UnfrozenNode(
        node.name,
        node.labels,
        node.taints,
        node.unschedulable,
        node.allocatable,
        requested,
        pod_count,
        used_ports,
        nonzero,
        node.capacity,
        node.scale_set,
    ).frozen()
