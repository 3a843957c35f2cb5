"""What the counted pods mount, by node: the part of upstream's NodeInfo (its pods'
``spec.volumes``, ``PVCRefCounts``) that NodeVolumeLimits and VolumeRestrictions read.

Few pods mount a claim or an in-tree disk (``Snapshot.mounts`` lists only those), so the
index holds only them: built on the first question of a pod that mounts something, once
per run, and a view that leaves a workload's running pods out filters it rather than
reading the cluster's pods again.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gate.model.storage import Mount, Mounts
from gate.scheduler.framework.podindex import PodIndex

CLAIM = "persistentVolumeClaim"


@dataclass(frozen=True, slots=True)
class Mounting:
    """A counted pod that mounts something: its position among the indexed pods, its
    node's position, its namespace and name, and its mounts."""

    position: int
    node: int
    namespace: str
    name: str
    mounts: tuple[Mount, ...]


class VolumeUse:
    """The mounting pods of one view of the cluster's pods, by node, and the claims they
    use (upstream's ``StorageInfos().IsPVCUsedByPods``: a claim counts wherever the pod
    runs)."""

    def __init__(
        self,
        mounting: tuple[Mounting, ...],
        base: VolumeUse | None = None,
        changed: frozenset[int] = frozenset(),
    ) -> None:
        """The cluster's mounting pods, or (with ``base``) the pods a view of ``base``
        leaves out, which were on the nodes ``changed`` (:meth:`with_pods` then adds
        pods to those nodes)."""
        self.mounting = mounting
        self.base = base
        """The index this view leaves pods out of (None: the cluster's own)."""
        self.changed = changed
        """The nodes (positions) whose mounting pods this view has fewer of than ``base``."""
        self.memo: dict[str, object] = {}
        """What a plugin works out once of these pods (NodeVolumeLimits' counts by node)."""
        self.by_position: dict[int, Mounting] = {}
        """The mounting pods by position (the cluster's own index only)."""
        self._by_node: dict[int, tuple[Mounting, ...]] | None = None
        self._claims: Counter[tuple[str, str]] | None = None
        self._kept: dict[int, tuple[Mounting, ...]] = {}
        """A view's mounting pods on the nodes ``changed``, as asked for; its other nodes'
        are the base's."""
        self._removed = frozenset(p.position for p in mounting) if base is not None else frozenset()
        self.added: tuple[Mounting, ...] = ()
        """The pods of no snapshot this view adds (:meth:`with_pods`)."""
        if base is None:
            self.by_position = {pod.position: pod for pod in mounting}
            by_node: dict[int, list[Mounting]] = {}
            for pod in mounting:
                by_node.setdefault(pod.node, []).append(pod)
            self._by_node = {node: tuple(pods) for node, pods in by_node.items()}
            return
        # a view: the base's, less the pods it leaves out (``mounting`` holds those); the
        # whole maps are copied only when asked for, and a node's pods when it is asked of
        # (most views read a few nodes only, NodeVolumeLimits none: it takes the pods out)

    @property
    def by_node(self) -> dict[int, tuple[Mounting, ...]]:
        """The mounting pods by node (position), for the nodes holding some (or, in a view,
        that held some in its base)."""
        if self._by_node is None:
            assert self.base is not None
            for node in self.changed:
                self.on(node)
            self._by_node = {**self.base.by_node, **self._kept}
        return self._by_node

    @property
    def claims_in_use(self) -> Counter[tuple[str, str]]:
        """How many of these pods use each claim, by namespace and name."""
        if self._claims is None:
            if self.base is None:
                self._claims = Counter(c for pod in self.mounting for c in _claims_of(pod))
                return self._claims
            found = Counter(self.base.claims_in_use)
            for pod in self.mounting:
                found.subtract(_claims_of(pod))
            for pod in self.added:
                found.update(_claims_of(pod))
            self._claims = found
        return self._claims

    @classmethod
    def of(cls, pods: PodIndex, mounts: Mounts) -> VolumeUse:
        """The mounting pods among every pod ``pods`` indexes (a view's left-out pods too:
        :meth:`without` leaves them out)."""
        if not mounts:
            return cls(())
        found = []
        for position, pod in enumerate(pods.pods):
            mounted = mounts.get((pod.namespace, pod.name))
            if mounted is not None:
                found.append(
                    Mounting(position, pods.node_of[position], pod.namespace, pod.name, mounted)
                )
        return cls(tuple(found))

    def without(self, excluded: frozenset[int]) -> VolumeUse:
        """These pods less those at ``excluded``; this very index when none of them mounts."""
        assert self.base is None, "a view is taken of the cluster's own index"
        found = self.by_position.keys() & excluded
        if not found:
            return self
        removed = tuple(self.by_position[position] for position in sorted(found))
        return VolumeUse(removed, self, frozenset(pod.node for pod in removed))

    def with_pods(self, added: tuple[Mounting, ...]) -> VolumeUse:
        """These pods and ``added``, pods of no snapshot (copies a count placed): a view
        whose nodes ``changed`` are those the added pods are on."""
        view = VolumeUse((), self, frozenset(pod.node for pod in added))
        view.added = added
        for pod in added:
            view._kept[pod.node] = (*view.on(pod.node), pod)
        return view

    def on(self, node: int) -> tuple[Mounting, ...]:
        """The mounting pods on the node at position ``node``."""
        if self.base is None:
            assert self._by_node is not None
            return self._by_node.get(node, ())
        kept = self._kept.get(node)
        if kept is None:
            kept = self.base.on(node)
            if node in self.changed:
                removed = self._removed
                kept = self._kept[node] = tuple(p for p in kept if p.position not in removed)
        return kept


def _claims_of(pod: Mounting) -> list[tuple[str, str]]:
    return [(pod.namespace, m.disk) for m in pod.mounts if m.source == CLAIM]
