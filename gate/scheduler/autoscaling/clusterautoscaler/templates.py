"""A node group's template node, as cluster-autoscaler builds it (cluster-autoscaler-1.34.5).

From a member (simulator/node_info_utils.go ``SanitizedTemplateNodeInfoFromNodeInfo``): the
node renamed ``template-node-for-<group>``, its hostname label rewritten, the label
``cluster-autoscaler.kubernetes.io/template-node=true`` added, its taints sanitised
(utils/taints/taints.go ``SanitizeTaints``), and the member's DaemonSet and mirror pods kept
on it (``podsExpectedOnFreshNode``): its free room is the member's allocatable less their
requests. Missing DaemonSets are added only with ``--force-ds`` or for system-node-critical
pods. From a configured template (``SanitizedTemplateNodeInfoFromNodeGroup``, a group at
zero): the template plus every DaemonSet that would run on it (forced), then the beta
twins of its stable instance-type, region and zone labels (``UpdateDeprecatedLabels``). A
DaemonSet runs on the template when its node affinity and tolerations take it
(utils/daemonset/daemonset.go ``GetDaemonSetPodsForNode``, the DaemonSet controller's
``NodeShouldRunDaemonPod``), whether its pod fits the node's room or not: one that does not
leaves the fresh node overfull.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from gate.k8s.labels import (
    BETA_INSTANCE_TYPE,
    BETA_REGION,
    BETA_ZONE,
    HOSTNAME,
    INSTANCE_TYPE,
    REGION,
    TAINT_DISK_PRESSURE,
    TAINT_MEMORY_PRESSURE,
    TAINT_NETWORK_UNAVAILABLE,
    TAINT_NOT_READY,
    TAINT_PID_PRESSURE,
    TAINT_UNREACHABLE,
    TAINT_UNSCHEDULABLE,
    ZONE,
)
from gate.k8s.resources import pod_nonzero_amounts
from gate.k8s.version import Dialect
from gate.model import ExistingPod, HostPort, NodeView, Taint
from gate.model.autoscaling import DaemonSet, Flags, NodeTemplate
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import daemonset_tolerations, pod_profile
from gate.scheduler.plugins import nodeaffinity, tainttoleration
from gate.scheduler.plugins.noderesources import short_of, wanted_of

TEMPLATE_LABEL = "cluster-autoscaler.kubernetes.io/template-node"
"""node_info_utils.go: set on every template from 1.34.5."""
TO_BE_DELETED = "ToBeDeletedByClusterAutoscaler"
DELETION_CANDIDATE = "DeletionCandidateOfClusterAutoscaler"
NODE_CONDITION_TAINTS = frozenset(
    {
        TAINT_NOT_READY,
        TAINT_UNREACHABLE,
        TAINT_UNSCHEDULABLE,
        TAINT_MEMORY_PRESSURE,
        TAINT_DISK_PRESSURE,
        TAINT_NETWORK_UNAVAILABLE,
        TAINT_PID_PRESSURE,
        "node.cloudprovider.kubernetes.io/uninitialized",
        "node.cloudprovider.kubernetes.io/shutdown",
        "cloud.google.com/impending-node-termination",
        "NodeWithImpairedVolumes",
    }
)
"""utils/taints/taints.go ``NodeConditionTaints``."""
STARTUP_PREFIXES = (
    "ignore-taint.cluster-autoscaler.kubernetes.io/",
    "startup-taint.cluster-autoscaler.kubernetes.io/",
)
"""utils/taints/taints.go ``NewTaintConfig``: the prefixes of startup taints."""


IGNORED_PREFIXES = (*STARTUP_PREFIXES, "status-taint.cluster-autoscaler.kubernetes.io/")
"""utils/taints/taints.go ``IgnoreTaintPrefix``, ``StartupTaintPrefix``, ``StatusTaintPrefix``."""
NOT_READY = frozenset(
    {TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_DISK_PRESSURE, TAINT_NETWORK_UNAVAILABLE}
)
"""How fitgate tells a node CA does not count as Ready (the snapshot keeps taints, not
conditions): the node lifecycle controller's taints of a node whose Ready condition is not
True (not-ready, unreachable), and the taints utils/kubernetes/ready.go
``GetNodeReadiness`` itself reads as not Ready (not-ready, disk-pressure,
network-unavailable)."""


def sanitized_taints(taints: Iterable[Taint], flags: Flags) -> tuple[Taint, ...]:
    """``SanitizeTaints``: CA's own taints, node-condition taints, and startup, status and
    ignore taints (by prefix or by ``--startup-taint`` / ``--status-taint`` key) dropped."""
    named = frozenset((*flags.startup_taints, *flags.status_taints))
    return tuple(
        t
        for t in taints
        if t.key not in (TO_BE_DELETED, DELETION_CANDIDATE)
        and t.key not in NODE_CONDITION_TAINTS
        and not t.key.startswith(IGNORED_PREFIXES)
        and t.key not in named
    )


def is_ready(node: NodeView, flags: Flags) -> bool:
    """Among the Ready nodes CA works with: not tainted NotReady, and holding no startup
    taint (static_autoscaler.go ``obtainNodeLists``, utils/taints/taints.go
    ``FilterOutNodesWithStartupTaints``; ``IsStartupTaint``: a ``--startup-taint`` or
    ``--ignore-taint`` key, or a startup prefix)."""
    return not any(
        t.key in NOT_READY or t.key in flags.startup_taints or t.key.startswith(STARTUP_PREFIXES)
        for t in node.taints
    )


def is_usable(node: NodeView, flags: Flags) -> bool:
    """A member CA takes its template from first: Ready, schedulable, not being deleted
    (mixed_nodeinfos_processor.go ``isNodeGoodTemplateCandidate``)."""
    deleting = any(t.key == TO_BE_DELETED for t in node.taints)
    return is_ready(node, flags) and not node.unschedulable and not deleting


@dataclass(frozen=True, slots=True)
class Template:
    """A group's template node and what CA counts of it against the cluster's limits
    (``cores`` whole, ``memory`` bytes); ``source`` says where it came from; ``too_big``:
    DaemonSets that would run on a fresh node but do not fit it (warned; on the node all the
    same)."""

    node: NodeView
    cores: int
    memory: int
    source: str
    too_big: tuple[str, ...] = ()
    millicores: int = 0
    """The capacity's cpu in millicores, as the least-waste expander weighs it (0: ``cores``
    whole, all a member's capacity keeps)."""


def _named(group: str, labels: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    name = f"template-node-for-{group}"
    return name, {**labels, HOSTNAME: name, TEMPLATE_LABEL: "true"}


def _add(total: dict[str, int], requests: Mapping[str, int]) -> None:
    for resource, amount in requests.items():
        total[resource] = total.get(resource, 0) + amount


def _kept(pod: ExistingPod) -> bool:
    """A DaemonSet or mirror pod (owned by its Node), not being deleted."""
    return not pod.terminating and any(kind in ("DaemonSet", "Node") for kind, _ in pod.owners)


def _runs_on(ds: DaemonSet, node: NodeView, cluster: Cluster, dialect: Dialect) -> bool:
    """daemonset.GetDaemonSetPodsForNode: its node affinity and selector take the node and its
    tolerations (completed as the DaemonSet controller completes them) cover its taints."""
    spec = {**ds.pod_spec, "tolerations": daemonset_tolerations(ds.pod_spec)}
    profile = pod_profile(spec, ds.namespace, pinned=True)
    for plugin in (tainttoleration.PLUGIN, nodeaffinity.PLUGIN):
        if plugin.check(plugin.prepare(profile, cluster), node, dialect) is not None:
            return False
    return True


def _with_daemon_sets(
    bare: NodeView,
    daemon_sets: Iterable[DaemonSet],
    cluster: Cluster,
    dialect: Dialect,
) -> tuple[NodeView, tuple[str, ...]]:
    requested, pods, too_big = dict(bare.requested), bare.pod_count, []
    ports = set(bare.used_ports)
    cpu, memory = bare.scored_requests
    fitting = replace(bare)
    for ds in daemon_sets:
        if not _runs_on(ds, bare, cluster, dialect):
            continue
        # Added whether it fits or not (module doc); one that does not is named, each judged
        # after those before it that fit.
        if short_of(wanted_of(ds.requests), fitting):
            too_big.append(f"{ds.namespace}/{ds.name}")
        else:
            taken = dict(fitting.requested)
            _add(taken, ds.requests)
            fitting = replace(fitting, requested=taken, pod_count=fitting.pod_count + 1)
        more = dict(requested)
        _add(more, ds.requests)
        requested, pods = more, pods + 1
        # the DaemonSet's pod sits on the template node: its host ports are taken there
        ports.update(pod_profile(ds.pod_spec, ds.namespace, pinned=True).wanted_ports)
        held = pod_nonzero_amounts(ds.pod_spec)  # its requests parsed: so do these
        cpu, memory = cpu + held[0], memory + held[1]
    view = NodeView(
        bare.name,
        bare.labels,
        bare.taints,
        bare.unschedulable,
        bare.allocatable,
        requested,
        pods,
        frozenset(ports),
        (cpu, memory),
    )
    return view, tuple(too_big)


def from_member(
    group: str,
    member: NodeView,
    pods: Iterable[ExistingPod],
    daemon_sets: Iterable[DaemonSet],
    flags: Flags,
    cluster: Cluster,
    dialect: Dialect,
) -> Template:
    """The template of ``group`` from ``member`` and its pods (those bound to it)."""
    name, labels = _named(group, member.labels)
    requested: dict[str, int] = {}
    ports: set[HostPort] = set()
    count, running = 0, set[tuple[str, str]]()
    cpu = memory = 0
    for pod in pods:
        if _kept(pod):
            _add(requested, pod.requests)
            held = pod.nonzero or (pod.requests.get("cpu", 0), pod.requests.get("memory", 0))
            cpu, memory = cpu + held[0], memory + held[1]
            ports.update(pod.ports)
            count += 1
            # a pod's owner is in its namespace: the pair names the DaemonSet as its UID does
            running.update((pod.namespace, n) for kind, n in pod.owners if kind == "DaemonSet")
    bare = NodeView(
        name,
        labels,
        sanitized_taints(member.taints, flags),
        member.unschedulable,
        member.allocatable,
        requested,
        count,
        frozenset(ports),
        (cpu, memory),
    )
    missing = [
        ds
        for ds in daemon_sets
        if (ds.namespace, ds.name) not in running and (flags.force_ds or ds.critical)
    ]
    view, too_big = _with_daemon_sets(bare, missing, cluster, dialect)
    cores, memory = node_capacity(member)
    return Template(view, cores, memory, f"member {member.name}", too_big)


def from_configured(
    group: str,
    template: NodeTemplate,
    daemon_sets: Iterable[DaemonSet],
    flags: Flags,
    cluster: Cluster,
    dialect: Dialect,
    source: str,
) -> Template:
    """The template of a group at zero: the configured node, every DaemonSet that would run
    on it added (node_info_utils.go forces them for a cloud template)."""
    name, labels = _named(group, template.labels)
    bare = NodeView(
        name,
        labels,
        sanitized_taints(template.taints, flags),
        False,
        dict(template.allocatable),
        {},
        0,
    )
    view, too_big = _with_daemon_sets(bare, daemon_sets, cluster, dialect)
    view = replace(view, labels=_with_deprecated(view.labels))
    counted = template.capacity or template.allocatable
    cores, memory = _counted(counted)
    return Template(view, cores, memory, source, too_big, counted.get("cpu", 0))


DEPRECATED_LABELS = ((INSTANCE_TYPE, BETA_INSTANCE_TYPE), (REGION, BETA_REGION), (ZONE, BETA_ZONE))
"""utils/labels/labels.go ``UpdateDeprecatedLabels``: each stable label's beta twin."""


def _with_deprecated(labels: Mapping[str, str]) -> dict[str, str]:
    """``UpdateDeprecatedLabels``, which ``SanitizedTemplateNodeInfoFromNodeGroup`` applies
    to a group's own template once its DaemonSets are chosen: the beta instance-type,
    region and zone labels set to the stable ones' values (a pod selecting a beta label
    matches a group at zero as it matches its nodes)."""
    beta = {old: labels[new] for new, old in DEPRECATED_LABELS if new in labels}
    return {**labels, **beta}


def node_capacity(node: NodeView) -> tuple[int, int]:
    """core/utils/utils.go ``GetNodeCoresAndMemory``: the node's capacity cpu in whole
    cores and memory in bytes, as the snapshot read them; a node that lists no capacity
    (a view built by hand) is counted at its allocatable."""
    return node.capacity if node.capacity is not None else _counted(node.allocatable)


def _counted(amounts: Mapping[str, int]) -> tuple[int, int]:
    """core/utils/utils.go ``GetNodeCoresAndMemory``: capacity cpu as whole cores (rounded
    up, as Quantity.Value does) and memory in bytes."""
    return -(-amounts.get("cpu", 0) // 1000), amounts.get("memory", 0)
