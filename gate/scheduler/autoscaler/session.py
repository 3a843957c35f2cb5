"""One run's autoscaler: the snapshot's node groups once, and the headroom its workloads
share in input order. What the engine calls after today's placement, with a workload's
prepared pod and the number of copies no existing node took (:meth:`Autoscaling.decide`).

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
from typing import Any

from gate.autoscaling import INITIALIZING, AutoscalingConfig
from gate.k8s.version import Dialect
from gate.model import NodeView, Snapshot
from gate.scheduler.autoscaler.decision import Decision, decide
from gate.scheduler.autoscaler.groups import Groups, node_groups
from gate.scheduler.autoscaler.limits import Headroom
from gate.scheduler.autoscaler.matching import PROVIDER_LABELS
from gate.scheduler.cluster import Cluster
from gate.scheduler.framework import CycleState
from gate.scheduler.profile import PodProfile

STALE_AFTER = timedelta(minutes=3)
AUTOSCALED_LABELS = (*PROVIDER_LABELS, "karpenter.sh/nodepool")
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


def _nap_pools(nodes: tuple[NodeView, ...]) -> list[str]:
    pools = {n.labels.get("cloud.google.com/gke-nodepool", "") for n in nodes}
    return sorted(p for p in pools if p.startswith("nap-"))


@dataclass(slots=True)
class Autoscaling:
    """The run's node groups, the headroom used so far, and what the run must say of them
    (``notes``); ``uncertain``: the status is stale or CA is still initializing;
    ``transient_fails``: blockers that may pass count as blockers (``transient: fail``)."""

    groups: Groups
    dialect: Dialect
    used: Headroom = field(default_factory=Headroom)
    notes: tuple[str, ...] = ()
    uncertain: bool = False
    transient_fails: bool = False

    @classmethod
    def of(
        cls, snapshot: Snapshot, config: AutoscalingConfig, cluster: Cluster, dialect: Dialect
    ) -> Autoscaling | None:
        """The run's autoscaler, or None when the snapshot recorded no node group (no
        status ConfigMap, no autoscaled MachineDeployment: DaemonSets alone scale nothing)."""
        state = snapshot.autoscaling
        if state is None or (state.status is None and not state.machine_deployments):
            return None
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
        return cls(
            groups,
            dialect,
            notes=tuple(notes),
            uncertain=uncertain,
            transient_fails=config.transient_fails,
        )

    def decide(
        self,
        kind: str,
        spec: Mapping[str, Any],
        cycle: CycleState,
        pod: PodProfile,
        left: int,
    ) -> Decision | None:
        """Where the ``left`` copies of the workload's pod go when no existing node takes
        them; None when CA would not consider them (none left, a DaemonSet)."""
        if left <= 0 or kind == "DaemonSet":
            return None
        priority = spec.get("priority")
        cutoff = self.groups.flags.expendable_cutoff
        if isinstance(priority, int) and not isinstance(priority, bool) and priority < cutoff:
            return Decision(left, unjudged=EXPENDABLE.format(priority=priority, cutoff=cutoff))
        return decide(cycle, pod, left, self.groups, self.used, self.dialect)
