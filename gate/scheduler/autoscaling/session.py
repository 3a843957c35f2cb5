"""One run's autoscalers: the snapshot's cluster-autoscaler node groups and Karpenter
NodePools once, and the headroom its workloads share in input order. What the engine calls
after today's placement, with a workload's prepared pod and the number of copies no
existing node took: the node groups first (:meth:`Autoscaling.decide`), then the NodePools
for what they leave (:meth:`Autoscaling.provision`), as the issue of a cluster running both
orders them.

cluster-autoscaler-1.34.5: DaemonSet pods never trigger a scale-up
(core/podlistprocessor/filter_out_daemon_sets.go), nor do pods whose priority is below
``--expendable-pods-priority-cutoff`` (filter_out_expendable.go), which CA drops without an
event. A status last written more than three minutes before the snapshot was taken, or a
CA still ``Initializing``, makes what the status says uncertain: the run says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from gate.k8s.version import Dialect
from gate.model import NodeView, Snapshot
from gate.model.autoscaling import INITIALIZING, AutoscalingConfig
from gate.model.karpenter import NODEPOOL_LABEL
from gate.scheduler.autoscaling.clusterautoscaler.matching import PROVIDER_LABELS
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState

if TYPE_CHECKING:
    from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision
    from gate.scheduler.autoscaling.clusterautoscaler.groups import Groups
    from gate.scheduler.autoscaling.clusterautoscaler.limits import Headroom
    from gate.scheduler.autoscaling.karpenter import PoolDecision, Provisioner

STALE_AFTER = timedelta(minutes=3)
AUTOSCALED_LABELS = (*PROVIDER_LABELS, NODEPOOL_LABEL)
"""Labels of nodes that an autoscaler may add more of."""
RECORD_HINT = (
    "nodes look autoscaled ({label}); record the autoscaler state "
    "(fitgate snapshot --autoscaling) to judge scale-ups"
)
CONFIGURED_ONLY = (
    "autoscaling.groups are configured, but the snapshot recorded no cluster-autoscaler status "
    "to size them: record it (fitgate snapshot --autoscaling) to judge scale-ups"
)
NAP_WARNING = (
    "GKE node auto-provisioning ({pools}) is not judged: pools it would create are not modelled"
)
EXPENDABLE = "priority {priority} is below --expendable-pods-priority-cutoff {cutoff}"


def autoscaled_hint(nodes: tuple[NodeView, ...]) -> str | None:
    """The hint for a snapshot without autoscaler state whose nodes carry a pool label."""
    for node in nodes:
        for label in AUTOSCALED_LABELS:
            if label in node.labels:
                return RECORD_HINT.format(label=label)
    return None


def _pool_nodes(nodes: tuple[NodeView, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in nodes:
        pool = node.labels.get(NODEPOOL_LABEL)
        if pool is not None:
            counts[pool] = counts.get(pool, 0) + 1
    return counts


def _nap_pools(nodes: tuple[NodeView, ...]) -> list[str]:
    pools = {n.labels.get("cloud.google.com/gke-nodepool", "") for n in nodes}
    return sorted(p for p in pools if p.startswith("nap-"))


def _no_headroom() -> Headroom:
    # Imported here: a run whose snapshot recorded no autoscaler never simulates one.
    from gate.scheduler.autoscaling.clusterautoscaler.limits import Headroom

    return Headroom()


@dataclass(slots=True)
class Autoscaling:
    """The run's node groups (None: no cluster-autoscaler recorded) and NodePools (None:
    no Karpenter recorded), the headroom used so far, and what the run must say of them
    (``notes``); ``uncertain``: the CA status is stale or CA is still initializing;
    ``transient_fails``: blockers that may pass count as blockers (``transient: fail``)."""

    groups: Groups | None
    dialect: Dialect
    provisioner: Provisioner | None = None
    used: Headroom = field(default_factory=_no_headroom)
    notes: tuple[str, ...] = ()
    uncertain: bool = False
    transient_fails: bool = False
    pool_nodes: dict[str, int] = field(default_factory=dict)
    """Each NodePool's nodes: the snapshot's, then what the run's workloads added."""

    @classmethod
    def of(
        cls, snapshot: Snapshot, config: AutoscalingConfig, cluster: Cluster, dialect: Dialect
    ) -> Autoscaling | None:
        """The run's autoscalers, or None when the snapshot recorded neither a node group
        (no status ConfigMap, no autoscaled MachineDeployment: DaemonSets alone scale
        nothing) nor a NodePool."""
        state = snapshot.autoscaling
        if state is None:
            return None
        # Imported here: a run whose snapshot recorded no autoscaler never simulates one.
        from gate.scheduler.autoscaling.clusterautoscaler.groups import node_groups
        from gate.scheduler.autoscaling.karpenter import Provisioner

        provisioner = None
        if state.karpenter is not None:
            provisioner = Provisioner.of(
                state.karpenter, config.catalog, state.daemon_sets, snapshot.nodes
            )
        if state.status is None and not state.machine_deployments:
            if provisioner is None:
                return None
            return cls(
                None,
                dialect,
                provisioner,
                notes=provisioner.notes,
                pool_nodes=_pool_nodes(snapshot.nodes),
            )
        groups = node_groups(state, config, cluster, dialect)
        notes = list(groups.warnings)
        uncertain = groups.autoscaler == INITIALIZING
        if uncertain:
            notes.append("cluster-autoscaler is still initializing: its status may change")
        taken, updated = snapshot.info.taken, groups.updated
        if taken is not None and updated is not None and taken - updated > STALE_AFTER:
            minutes = int((taken - updated).total_seconds() // 60)
            notes.append(
                f"the cluster-autoscaler status was written {minutes} minutes before the "
                "snapshot: what it says of the groups may have changed"
            )
            uncertain = True
        pools = _nap_pools(snapshot.nodes)
        if pools:
            notes.append(NAP_WARNING.format(pools=", ".join(pools)))
        if provisioner is not None:
            notes.extend(provisioner.notes)
        return cls(
            groups,
            dialect,
            provisioner,
            notes=tuple(notes),
            uncertain=uncertain,
            transient_fails=config.transient_fails,
            pool_nodes=_pool_nodes(snapshot.nodes),
        )

    def decide(
        self,
        kind: str,
        cycle: CycleState,
        pod: PodProfile,
        left: int,
    ) -> Decision | None:
        """Where the node groups put the ``left`` copies of the workload's pod that no
        existing node takes; None when CA would not consider them (none left, a
        DaemonSet, no node group recorded)."""
        if left <= 0 or kind == "DaemonSet" or self.groups is None:
            return None
        # Imported here: a run whose snapshot recorded no autoscaler never simulates one.
        from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, decide

        priority = pod.priority
        cutoff = self.groups.flags.expendable_cutoff
        if priority is not None and priority < cutoff:
            return Decision(left, unjudged=EXPENDABLE.format(priority=priority, cutoff=cutoff))
        return decide(cycle, pod, left, self.groups, self.used, self.dialect)

    def provision(
        self,
        kind: str,
        cycle: CycleState,
        pod: PodProfile,
        left: int,
        zones: Mapping[str, int] | None = None,
        *,
        cluster: Cluster,
    ) -> PoolDecision | None:
        """Where Karpenter's NodePools put the ``left`` copies no node and no node group
        takes; None when Karpenter would not consider them (none left, a DaemonSet's pods:
        pkg/utils/pod/scheduling.go ``IsProvisionable``, no NodePool recorded).
        ``cluster``: the one ``cycle`` was prepared in."""
        if left <= 0 or kind == "DaemonSet" or self.provisioner is None:
            return None
        return self.provisioner.decide(cycle, pod, left, zones, cluster=cluster)

    def pool_size(self, pool: str) -> int:
        """The nodes a NodePool has now: the snapshot's and the run's earlier additions."""
        return self.pool_nodes.get(pool, 0)

    def grow_pool(self, pool: str, nodes: int) -> None:
        self.pool_nodes[pool] = self.pool_size(pool) + nodes
