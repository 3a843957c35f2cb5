"""The parts of a :class:`~gate.model.Snapshot` the typed reader builds: per-node totals of
the counted pods, node views, namespaces and the admission objects, and which pods count.

``gate.snapshot.stream`` decodes every snapshot's objects, a file's, a live read's, and
those ``gate.snapshot.load`` checked (the reference, with jsonschema's messages), and
builds the snapshot with these.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gate.model import AdmissionObjects, HostPort, NodeView, SnapshotInfo, Taint
from gate.snapshot.disruption import DISRUPTION_SECTIONS
from gate.snapshot.storage import STORAGE_SECTIONS

TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})
SECTIONS: Mapping[str, str] = {
    "nodes": "Node",
    "pods": "Pod",
    "namespaces": "Namespace",
    "limitRanges": "LimitRange",
    "runtimeClasses": "RuntimeClass",
}
"""A ClusterSnapshot's arrays of objects and the kind of their items, in the order the
recorder writes them (docs/reference.md, "Snapshot formats"); a kubectl List holds the same
kinds as items."""
AUTOSCALING_SECTIONS: Mapping[str, str] = {
    "configMaps": "ConfigMap",
    "daemonSets": "DaemonSet",
    "deployments": "Deployment",
    "machineDeployments": "MachineDeployment",
    "nodePools": "NodePool",
    "nodeClaims": "NodeClaim",
    "ec2NodeClasses": "EC2NodeClass",
    "aksNodeClasses": "AKSNodeClass",
}
"""The arrays ``fitgate snapshot --autoscaling`` adds, each optional, and their kinds: read
whole, as the admission objects are (``gate.snapshot.autoscaling``)."""
PRIORITY_SECTIONS: Mapping[str, str] = {"priorityClasses": "PriorityClass"}
"""The array ``fitgate snapshot`` adds when it may list PriorityClasses: read whole, as
the other admission objects are."""
QUOTA_SECTIONS: Mapping[str, str] = {"resourceQuotas": "ResourceQuota"}
"""The array ``fitgate snapshot`` adds when it may list ResourceQuotas (their spec and
``status.used``): read whole, as the other admission objects are."""
READ_SECTIONS: Mapping[str, str] = {
    **SECTIONS,
    **PRIORITY_SECTIONS,
    **QUOTA_SECTIONS,
    **AUTOSCALING_SECTIONS,
    **STORAGE_SECTIONS,
    **DISRUPTION_SECTIONS,
}
"""Every array of a ClusterSnapshot the readers read."""
_T = TypeVar("_T")


@dataclass(slots=True)
class NodeTotals:
    """The counted pods of one node, summed (see ``gate.snapshot.stream``'s ``by_node``):
    no object is kept per pod."""

    requested: dict[str, int] = field(default_factory=dict)
    pods: int = 0
    ports: set[HostPort] = field(default_factory=set)
    nonzero: tuple[int, int] = (0, 0)


@dataclass(slots=True)
class Interned:
    """One object per distinct value: the pods of one workload share their labels, owners
    and affinity terms, so 150,000 pods hold a few thousand maps, not 150,000. ``key`` is
    anything that is equal exactly when the values are (a JSON text, a tuple of items)."""

    values: dict[Hashable, Any] = field(default_factory=dict)

    def get(self, key: Hashable, make: Callable[[], _T]) -> _T:
        value: _T | None = self.values.get(key)
        if value is None:
            value = self.values[key] = make()
        return value


def taints(spec: Mapping[str, Any]) -> tuple[Taint, ...]:
    return tuple(
        Taint(key=t["key"], value=t.get("value") or "", effect=t["effect"])
        for t in spec.get("taints") or []
    )


def node_view(
    metadata: Mapping[str, Any],
    spec: Mapping[str, Any],
    allocatable: Mapping[str, int],
    totals: NodeTotals | None,
    capacity: tuple[int, int] | None = None,
    scale_set: str | None = None,
) -> NodeView:
    totals = totals or NodeTotals()
    return NodeView(
        name=metadata["name"],
        labels=dict(metadata.get("labels") or {}),
        taints=taints(spec),
        unschedulable=bool(spec.get("unschedulable")),
        allocatable=allocatable,
        requested=dict(totals.requested),
        pod_count=totals.pods,
        used_ports=frozenset(totals.ports),
        nonzero=totals.nonzero,
        capacity=capacity,
        scale_set=scale_set,
    )


def admission(
    limit_range_items: Iterable[Any],
    runtime_class_items: Iterable[Any],
    priority_class_items: Iterable[Any] | None = None,
    resource_quota_items: Iterable[Any] | None = None,
) -> AdmissionObjects:
    """LimitRanges by namespace, RuntimeClasses and PriorityClasses by name
    (``priority_class_items`` None: none recorded), ResourceQuotas as recorded
    (``resource_quota_items`` None: none recorded). The schema says nothing of their shape,
    so anything that is not shaped like one is passed over."""
    runtime_class_items = [rc for rc in runtime_class_items if isinstance(rc, Mapping)]
    priority_classes = {
        str(pc["metadata"]["name"]): pc
        for pc in priority_class_items or ()
        if isinstance(pc, Mapping) and _field(pc, "metadata").get("name") is not None
    }
    # By name, as the API server lists them, whatever order a file records: the first
    # LimitRange to default a request sets it (upstream's lister order is a map's).
    limit_range_items = sorted(
        limit_range_items, key=lambda i: str(_field(i, "metadata").get("name"))
    )
    limit_ranges: dict[str, list[Mapping[str, Any]]] = {}
    for item in limit_range_items:
        if isinstance(item, Mapping):
            namespace = _field(item, "metadata").get("namespace") or "default"
            limit_ranges.setdefault(str(namespace), []).append(item)
    runtime_classes = {
        str(rc["metadata"]["name"]): rc
        for rc in runtime_class_items
        if _field(rc, "metadata").get("name") is not None
    }
    return AdmissionObjects(
        limit_ranges={ns: tuple(items) for ns, items in limit_ranges.items()},
        runtime_classes=runtime_classes,
        has_runtime_classes=bool(runtime_class_items),
        priority_classes=priority_classes,
        has_priority_classes=priority_class_items is not None,
        resource_quotas=tuple(q for q in resource_quota_items or () if isinstance(q, Mapping)),
        has_resource_quotas=resource_quota_items is not None,
    )


def _field(obj: object, key: str) -> Mapping[str, Any]:
    value = obj.get(key) if isinstance(obj, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def snapshot_info(envelope: Mapping[str, Any], source: str, nodes: int, pods: int) -> SnapshotInfo:
    """Provenance: only fitgate's own recording says when and where it was taken."""
    own = envelope.get("kind") == "ClusterSnapshot"
    meta = envelope.get("source") if own else None
    meta = meta if isinstance(meta, Mapping) else {}
    return SnapshotInfo(
        source=source,
        captured_at=envelope.get("capturedAt") if own else None,
        context=meta.get("context"),
        server=meta.get("server"),
        server_version=meta.get("serverVersion"),
        nodes=nodes,
        pods=pods,
    )
