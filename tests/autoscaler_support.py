"""Running the scale-up decision on a recorded cluster, as the autoscaler tests do."""

from __future__ import annotations

from typing import Any

from gate.k8s.version import dialect_for
from gate.model.autoscaling import AutoscalingConfig
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, decide
from gate.scheduler.autoscaling.clusterautoscaler.groups import Groups, node_groups
from gate.scheduler.autoscaling.clusterautoscaler.limits import Headroom
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import prepare
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot, container

VERSION = "v1.34.9"
"""The Kubernetes that cluster-autoscaler 1.34.5 vendors."""
AKS_USER = "aks-user-12345678-vmss"
AKS_GPU = "aks-gpu-12345678-vmss"


def aks_node(name: str, pool: str = "user", **more: Any) -> dict[str, Any]:
    labels = {"kubernetes.azure.com/agentpool": pool, "kubernetes.io/hostname": name}
    return api_node(name, labels={**labels, **more.pop("labels", {})}, **more)


def owned_pod(name: str, node: str, kind: str, cpu: str, memory: str = "0") -> dict[str, Any]:
    """A running pod of ``node`` owned by a DaemonSet, or by the Node (a mirror pod)."""
    requests = {"cpu": cpu, "memory": memory}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "kube-system",
            "ownerReferences": [{"kind": kind, "name": name if kind == "DaemonSet" else node}],
        },
        "spec": {"nodeName": node, "containers": [container(requests=requests)]},
        "status": {"phase": "Running"},
    }


class Run:
    """One snapshot's groups, and its workloads decided in order against shared headroom."""

    def __init__(
        self,
        nodes: list[dict[str, Any]],
        autoscaling: list[dict[str, Any]],
        pods: list[dict[str, Any]] | None = None,
        config: AutoscalingConfig | None = None,
        storage: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        arrays: dict[str, list[dict[str, Any]]] = dict(storage or {})
        for obj in autoscaling:
            key = {"ConfigMap": "configMaps", "DaemonSet": "daemonSets"}.get(obj["kind"])
            arrays.setdefault(key or obj["kind"][0].lower() + obj["kind"][1:] + "s", []).append(obj)
        snapshot = build_snapshot(
            cluster_snapshot(nodes, pods, server_version=VERSION, **arrays), "s.json"
        )
        assert snapshot.autoscaling is not None
        self.cluster = Cluster.of(snapshot)
        self.dialect = dialect_for(VERSION)
        self.groups: Groups = node_groups(
            snapshot.autoscaling, config or AutoscalingConfig(), self.cluster, self.dialect
        )
        self.used = Headroom()

    def decide(
        self, spec: dict[str, Any], copies: int, labels: dict[str, str] | None = None
    ) -> Decision:
        profile = pod_profile(spec, "default", labels or {})
        cycle = prepare(profile, self.cluster)
        return decide(cycle, profile, copies, self.groups, self.used, self.dialect)


def spec(cpu: str = "100m", memory: str = "128Mi", **more: Any) -> dict[str, Any]:
    return {"containers": [container(requests={"cpu": cpu, "memory": memory})], **more}
