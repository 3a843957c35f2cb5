"""A small instance-type catalog and a run of Karpenter's provisioning decision on a
recorded cluster, as the Karpenter tests use them."""

from __future__ import annotations

from typing import Any

from gate.k8s.quantity import format_amount
from gate.model.autoscaling import DaemonSet
from gate.model.karpenter import (
    CAPACITY_TYPE_LABEL,
    Catalog,
    InstanceType,
    KarpenterState,
    NodePool,
    Offering,
)
from gate.scheduler.autoscaling.karpenter import PoolDecision, Provisioner
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import prepare
from gate.snapshot.load import build_snapshot
from tests.builders import cluster_snapshot, container

GI = 2**30
MI = 2**20
ZONE = "topology.kubernetes.io/zone"
ARCH = "kubernetes.io/arch"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
ZONES = ("zone-a", "zone-b")
KWOK_OVERHEAD = {"cpu": 100, "memory": 10 * MI}
"""kwok/cloudprovider/helpers.go: every KWOK type keeps 100m and 10Mi."""


def instance_type(
    name: str,
    cpu: int,
    memory_gi: int,
    arch: str = "amd64",
    zones: tuple[str, ...] = ZONES,
    spot: bool = True,
    extra: dict[str, int] | None = None,
) -> InstanceType:
    """A KWOK-like type: on-demand priced by its size, spot at 40% of it, in ``zones``."""
    price = cpu * 0.05 + memory_gi * 0.005
    offerings = [Offering(z, "on-demand", price) for z in zones]
    if spot:
        offerings += [Offering(z, "spot", round(price * 0.4, 4)) for z in zones]
    capacity = {"cpu": cpu * 1000, "memory": memory_gi * GI, "pods": 110, **(extra or {})}
    return InstanceType(
        name,
        {INSTANCE_TYPE: name, ARCH: arch},
        ("linux",),
        capacity,
        KWOK_OVERHEAD,
        tuple(offerings),
    )


CATALOG = Catalog(
    (
        instance_type("c-2x", 2, 4),
        instance_type("c-4x", 4, 8),
        instance_type("c-8x", 8, 16),
        instance_type("m-2x", 2, 8),
        instance_type("m-4x", 4, 16),
        instance_type("m-8x", 8, 32),
        instance_type("r-4x", 4, 32),
        instance_type("c-2x-arm", 2, 4, "arm64"),
        instance_type("c-4x-arm", 4, 8, "arm64"),
        instance_type("m-2x-arm", 2, 8, "arm64"),
        instance_type("m-4x-arm", 4, 16, "arm64", zones=("zone-a",)),
        instance_type("g-4x", 4, 16, spot=False, extra={"nvidia.com/gpu": 1}),
    ),
    "test catalog",
)
"""A dozen types over amd64 and arm64, two zones, on-demand and spot."""


def spec(cpu: str = "1", memory: str = "1Gi", **more: Any) -> dict[str, Any]:
    return {"containers": [container(requests={"cpu": cpu, "memory": memory})], **more}


def daemon_set(name: str, cpu: int, memory: int, **pod_spec: Any) -> DaemonSet:
    """A DaemonSet whose one container requests ``cpu`` millicores and ``memory`` bytes,
    written as :func:`~gate.k8s.quantity.format_amount` writes them (``100Mi``)."""
    written = {"cpu": format_amount("cpu", cpu), "memory": format_amount("memory", memory)}
    spec = {"containers": [container(requests=written)], **pod_spec}
    return DaemonSet("kube-system", name, spec, {"cpu": cpu, "memory": memory})


class Run:
    """One cluster's Karpenter, its workloads decided in order against shared limits."""

    def __init__(
        self,
        pools: tuple[NodePool, ...],
        nodes: list[dict[str, Any]] | None = None,
        pods: list[dict[str, Any]] | None = None,
        catalog: Catalog | None = CATALOG,
        daemon_sets: tuple[DaemonSet, ...] = (),
        state: KarpenterState | None = None,
        namespaces: list[dict[str, Any]] | None = None,
        storage: dict[str, Any] | None = None,
    ) -> None:
        extra: dict[str, Any] = {"namespaces": namespaces} if namespaces is not None else {}
        extra.update(storage or {})
        snapshot = build_snapshot(cluster_snapshot(nodes or [], pods, **extra), "s.json")
        self.cluster = Cluster.of(snapshot)
        provisioner = Provisioner.of(
            state or KarpenterState(pools), catalog, daemon_sets, snapshot.nodes
        )
        assert provisioner is not None
        self.provisioner = provisioner

    def decide(
        self, pod_spec: dict[str, Any], copies: int, labels: dict[str, str] | None = None
    ) -> PoolDecision:
        profile = pod_profile(pod_spec, "default", labels or {})
        cycle = prepare(profile, self.cluster)
        return self.provisioner.decide(cycle, profile, copies, cluster=self.cluster)


def karpenter_node(
    name: str, pool: str, zone: str, cpu: str = "4", memory: str = "8Gi", kind: str = "c-4x"
) -> dict[str, Any]:
    """A Node a NodePool launched, with its capacity."""
    labels = {
        "karpenter.sh/nodepool": pool,
        ZONE: zone,
        INSTANCE_TYPE: kind,
        ARCH: "amd64",
        "kubernetes.io/os": "linux",
        CAPACITY_TYPE_LABEL: "on-demand",
        "kubernetes.io/hostname": name,
    }
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {},
        "status": {
            "capacity": {"cpu": cpu, "memory": memory, "pods": "110"},
            "allocatable": {"cpu": "3900m", "memory": "7Gi", "pods": "110"},
        },
    }
