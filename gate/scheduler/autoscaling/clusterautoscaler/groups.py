"""The snapshot's node groups: status groups, their members and their templates.

Groups come from the ``cluster-autoscaler-status`` ConfigMap (else from Cluster API
MachineDeployments); members are matched by the provider's label and the group's name
(AKS ``aks-<pool>-<digits>-vmss`` and ``kubernetes.azure.com/agentpool`` or the legacy
``agentpool``; EKS ``eks-<nodegroup>-<uuid>`` and ``eks.amazonaws.com/nodegroup``; eksctl's
``alpha.eksctl.io/nodegroup-name``; GKE's per-zone MIG ``gke-...-<hash>-grp``, whose nodes are
named ``gke-...-<hash>-<suffix>`` and carry ``cloud.google.com/gke-nodepool``), or by the
configured ``match`` label, which overrides them. What matches nothing is named in a
warning, never guessed. Each group's template is built as :mod:`.templates` says, in CA's
order (processors/nodeinfosprovider/mixed_nodeinfos_processor.go, cluster-autoscaler-1.34.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from gate.k8s.version import Dialect
from gate.model import ExistingPod, NodeView
from gate.model.autoscaling import (
    AutoscalingConfig,
    AutoscalingState,
    ConfiguredGroup,
    Flags,
    Limits,
    Priorities,
    StatusGroup,
)
from gate.scheduler.autoscaling.clusterautoscaler.matching import PROVIDER_LABELS, Index
from gate.scheduler.autoscaling.clusterautoscaler.templates import (
    Template,
    from_configured,
    from_member,
    is_ready,
    is_usable,
)
from gate.scheduler.framework.cluster import Cluster


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """A node group: its status, its members (node names) and its template (None: CA has
    no node info for it)."""

    status: StatusGroup
    members: tuple[str, ...]
    template: Template | None

    @property
    def id(self) -> str:
        return self.status.name


@dataclass(frozen=True, slots=True)
class Groups:
    """Every node group in status order, the nodes in none, the limits and flags in force,
    the status's time and CA's own status, the Ready nodes and all nodes, and the warnings:
    unmatched groups and nodes, groups without a template, DaemonSets too big for a fresh
    node."""

    groups: tuple[NodeGroup, ...]
    ungrouped: tuple[NodeView, ...]
    limits: Limits
    flags: Flags
    ready_nodes: int
    node_count: int
    updated: datetime | None = None
    autoscaler: str = ""
    warnings: tuple[str, ...] = ()
    priorities: Priorities | None = None
    """The priority expander's ConfigMap as recorded (None: not in the snapshot)."""

    @property
    def counted(self) -> int:
        """The nodes CA counts against ``--max-nodes-total``: the Ready ones (static_autoscaler.go
        scales up with those alone) and those its groups are still bringing up, each group's
        target less its registered members (orchestrator.go ``len(nodes)+len(upcomingNodes)``,
        clusterstate.go ``GetUpcomingNodes``)."""
        upcoming = sum(max(g.status.target - len(g.members), 0) for g in self.groups)
        return self.ready_nodes + upcoming

    @property
    def limited(self) -> bool:
        """Whether a cpu or memory limit is in force: a maximum of 0 sets none
        (core/scaleup/resource/manager.go ``ResourcesLeft`` keeps a limit only when its
        ``max > 0``), and without one a group with no node info is only skipped as not
        ready, where with one it fails the whole scale-up first."""
        return _limited(self.limits)


def _limited(limits: Limits) -> bool:
    return limits.cores[1] > 0 or limits.memory[1] > 0


def _status_groups(state: AutoscalingState) -> tuple[StatusGroup, ...]:
    if state.status is not None:
        return state.status.groups
    return tuple(
        StatusGroup(m.group, "Healthy", m.replicas, m.min_size, m.max_size)
        for m in state.machine_deployments
    )


def _members(
    status: StatusGroup, configured: ConfiguredGroup | None, index: Index
) -> list[NodeView]:
    if configured is not None and configured.match is not None:
        return index.labelled(*configured.match)
    return index.candidates(status.name)


@dataclass(slots=True)
class _Builder:
    state: AutoscalingState
    config: AutoscalingConfig
    cluster: Cluster
    dialect: Dialect
    flags: Flags
    pods: Mapping[str, list[ExistingPod]]
    warnings: list[str]

    def template(self, status: StatusGroup, members: list[NodeView]) -> Template | None:
        """CA's order: a usable member; the group's own template (configured, else a
        MachineDeployment's annotations); a Ready member cordoned or being deleted."""
        ds = self.state.daemon_sets
        usable = [m for m in members if is_usable(m, self.flags)]
        if usable:
            pods = self.pods.get(usable[0].name, [])
            return from_member(
                status.name, usable[0], pods, ds, self.flags, self.cluster, self.dialect
            )
        configured = {g.id: g for g in self.config.groups}.get(status.name)
        if configured is not None and configured.template is not None:
            return from_configured(
                status.name,
                configured.template,
                ds,
                self.flags,
                self.cluster,
                self.dialect,
                ".fitgate.yaml",
            )
        for machines in self.state.machine_deployments:
            if machines.group == status.name and machines.template is not None:
                return from_configured(
                    status.name,
                    machines.template,
                    ds,
                    self.flags,
                    self.cluster,
                    self.dialect,
                    "MachineDeployment annotations",
                )
        ready = [m for m in members if is_ready(m, self.flags)]
        if ready:
            pods = self.pods.get(ready[0].name, [])
            return from_member(
                status.name, ready[0], pods, ds, self.flags, self.cluster, self.dialect
            )
        return None


def node_groups(
    state: AutoscalingState, config: AutoscalingConfig, cluster: Cluster, dialect: Dialect
) -> Groups:
    """The snapshot's node groups, their members and templates (module doc)."""
    nodes = cluster.snapshot.nodes
    flags = state.flags or Flags(limits=config.limits or Limits())
    configured = {g.id: g for g in config.groups}
    warnings: list[str] = []
    claimed: dict[str, str] = {}
    found: list[tuple[StatusGroup, list[NodeView]]] = []
    index = Index(nodes, (g.match[0] for g in config.groups if g.match is not None))
    for status in _status_groups(state):
        members = []
        for node in _members(status, configured.get(status.name), index):
            if node.name in claimed:
                warnings.append(
                    f"node {node.name} matches node groups {claimed[node.name]} and {status.name}: "
                    f"counted in {claimed[node.name]}"
                )
                continue
            claimed[node.name] = status.name
            members.append(node)
        found.append((status, members))
    wanted = {n.name for m in found for n in m[1]}
    pods: dict[str, list[ExistingPod]] = {}
    for pod in cluster.snapshot.pods:
        if pod.node in wanted:
            pods.setdefault(pod.node, []).append(pod)
    builder = _Builder(state, config, cluster, dialect, flags, pods, warnings)
    groups = []
    for status, members in found:
        template = builder.template(status, members)
        groups.append(NodeGroup(status, tuple(n.name for n in members), template))
        warnings += _group_warnings(status, members, template, _limited(flags.limits))
        warnings += _larger_than_members(status, members, configured.get(status.name))
    for group_id in sorted(set(configured) - {g.id for g in groups}):
        warnings.append(f"configured node group {group_id} is not in the autoscaler's status")
    ungrouped = tuple(n for n in nodes if n.name not in claimed)
    stray = [n.name for n in ungrouped if any(k in n.labels for k in PROVIDER_LABELS)]
    if stray:
        shown = ", ".join(stray[:3]) + (f" and {len(stray) - 3} more" if len(stray) > 3 else "")
        warnings.append(f"{len(stray)} node(s) of an autoscaled pool match no node group: {shown}")
    return Groups(
        groups=tuple(groups),
        ungrouped=ungrouped,
        limits=flags.limits,
        flags=flags,
        ready_nodes=sum(is_ready(n, flags) for n in nodes),
        node_count=len(nodes),
        updated=state.status.updated if state.status else None,
        autoscaler=state.status.autoscaler if state.status else "",
        warnings=(*warnings, *priority_warnings(flags, state.priorities)),
        priorities=state.priorities,
    )


PRIORITY_CONFIG = "the ConfigMap kube-system/cluster-autoscaler-priority-expander"


def priority_warnings(flags: Flags, priorities: Priorities | None) -> list[str]:
    """What the run says of the priority expander's ConfigMap when ``--expander`` names it:
    not recorded, ignored as cluster-autoscaler ignores it, or holding a regular
    expression fitgate does not evaluate."""
    if "priority" not in flags.expander:
        return []
    if priorities is None:
        return [
            f"--expander priority: {PRIORITY_CONFIG} is not in the snapshot (fitgate snapshot "
            "--autoscaling records it): every group the expander may choose is named"
        ]
    if priorities.problem is not None:
        return [
            f"--expander priority: cluster-autoscaler ignores {PRIORITY_CONFIG}: "
            f"{priorities.problem}; the priority expander keeps every group and the next "
            "expander decides"
        ]
    if priorities.unjudged is not None:
        return [
            f"--expander priority: {PRIORITY_CONFIG} holds a regular expression fitgate does "
            f"not evaluate ({priorities.unjudged}): every group the expander may choose is named"
        ]
    return []


def _larger_than_members(
    status: StatusGroup, members: list[NodeView], configured: ConfiguredGroup | None
) -> list[str]:
    """A configured template (``.fitgate.yaml``, which a pull request may change) larger in
    cpu or memory than every node the group has: named, since a fresh node is judged as it
    says, not as the group's own nodes are."""
    template = configured.template if configured is not None else None
    if template is None or not members:
        return []
    larger = [
        resource
        for resource in ("cpu", "memory")
        if template.allocatable.get(resource, 0)
        > max(m.allocatable.get(resource, 0) for m in members)
    ]
    if not larger:
        return []
    return [
        f"node group {status.name}: the configured template's allocatable "
        f"{' and '.join(larger)} is larger than any of its {len(members)} node(s) has: a fresh "
        "node is judged as .fitgate.yaml says (autoscaling.groups[].template)"
    ]


def _group_warnings(
    status: StatusGroup, members: list[NodeView], template: Template | None, limited: bool
) -> list[str]:
    said = []
    if status.target > 0 and not members:
        said.append(
            f"node group {status.name}: no node of the snapshot matches it "
            f"(target {status.target}); set autoscaling.groups[].match"
        )
    if template is None:
        outcome = (
            f"fails its scale-up with `failed to find template node for node group {status.name}`"
            " (nodes are upcoming)"
            if status.target > len(members)
            else f"fails its scale-up with `No node info for: {status.name}`"
            if limited
            else "skips it as not ready for scale-up (no cpu or memory limit is set)"
        )
        said.append(
            f"node group {status.name}: no template (no Ready member, none configured): "
            f"cluster-autoscaler {outcome}"
        )
    elif template.too_big:
        said.append(
            f"node group {status.name}: DaemonSet(s) {', '.join(template.too_big)} do not fit "
            "a fresh node"
        )
    return said
