"""The instance-type catalog when a run is given none: the types already running in the
cluster, one per ``node.kubernetes.io/instance-type`` value (a
node's allocatable is the best offline proxy for its type). A type takes the labels of its
first node by name (``kubernetes.io/arch``, ``kubernetes.io/os``), its capacity where the
node lists one (cpu in whole cores, memory in bytes; the rest as allocatable), an overhead
of capacity less allocatable, and one offering per zone and capacity type its nodes run in
(price 0: no price is known, so types order by name); a node with no zone label gives an
offering in no zone.
"""

from __future__ import annotations

from collections.abc import Iterable

from gate.k8s.labels import ARCH, INSTANCE_TYPE, OS, ZONE
from gate.model import NodeView
from gate.model.karpenter import CAPACITY_TYPE_LABEL, Catalog, InstanceType, Offering

SOURCE = "the instance types running in the cluster"
NOTE = (
    "no instance-type catalog was given: NodePools are judged with the types running in "
    "the cluster ({types}), at their nodes' allocatable"
)
ON_DEMAND = "on-demand"
KINDS = {
    "aws": "EC2's describe-instance-types, built as karpenter-provider-aws v1.8 builds them",
    "azure": "az vm list-skus, built as karpenter-provider-azure v1.14 builds them",
    "": "KWOK's JSON",
}


def catalog_note(catalog: Catalog) -> str:
    """What the run says of the catalog it was given: the file, its kind, and what a
    provider's listing does not hold and is assumed."""
    kind = KINDS.get(catalog.provider, catalog.provider)
    assumed = f"; assumed: {'; '.join(catalog.assumed)}" if catalog.assumed else ""
    return f"NodePools are judged with the instance types of {catalog.source} ({kind}){assumed}"


def capacity_of(node: NodeView) -> dict[str, int]:
    """A node's capacity in scheduler units: its ``status.capacity`` cpu and memory where
    recorded, its allocatable for everything else."""
    amounts = dict(node.allocatable)
    if node.capacity is not None:
        cores, memory = node.capacity
        amounts["cpu"] = max(cores * 1000, amounts.get("cpu", 0))
        amounts["memory"] = max(memory, amounts.get("memory", 0))
    return amounts


def running_catalog(nodes: Iterable[NodeView]) -> Catalog:
    """The catalog of the types running on ``nodes`` (module doc)."""
    by_type: dict[str, list[NodeView]] = {}
    for node in sorted(nodes, key=lambda n: n.name):
        name = node.labels.get(INSTANCE_TYPE)
        if name:
            by_type.setdefault(name, []).append(node)
    types = []
    for name in sorted(by_type):
        members = by_type[name]
        first = members[0]
        capacity = capacity_of(first)
        overhead = {
            r: capacity[r] - first.allocatable.get(r, 0)
            for r in ("cpu", "memory")
            if capacity.get(r, 0) > first.allocatable.get(r, 0)
        }
        labels = {INSTANCE_TYPE: name}
        if ARCH in first.labels:
            labels[ARCH] = first.labels[ARCH]
        seen = sorted(
            {
                (n.labels.get(ZONE, ""), n.labels.get(CAPACITY_TYPE_LABEL, ON_DEMAND))
                for n in members
            }
        )
        offerings = tuple(Offering(zone, kind) for zone, kind in seen)
        types.append(
            InstanceType(
                name,
                labels,
                (first.labels.get(OS, "linux"),),
                capacity,
                overhead,
                offerings,
            )
        )
    return Catalog(tuple(types), SOURCE, from_cluster=True)
