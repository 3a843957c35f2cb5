"""Small generated clusters and manifests, for the properties that a run's answer does not
depend on how the gate is run (tests/test_invariance.py): 2-8 nodes in zones, some tainted
or labelled for a pool; a few running pods, some holding a host port; PriorityClasses,
ResourceQuotas and LimitRanges of the workloads' namespace; a storage class whose claims
wait for their first consumer, with CSINodes bounding the volumes a node attaches; and
Karpenter NodePools; then 2-10 workloads of several kinds, whose pods request cpu, spread
over zones, keep off each other's nodes, take a host port, mount claims, rank by priority
and tolerate the taint. Workloads share a ``tier`` label, so that one's copies change what
another's constraints count."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.autoscaling_objects import status_configmap, status_group
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.conftest import ROOT
from tests.karpenter_objects import node_pool

NAMESPACE = "app"
AGENT_POOL = "kubernetes.azure.com/agentpool"
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
GPU_TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
TOLERATE_GPU = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
TIERS = ("front", "back")
CPUS = ("100m", "250m", "500m", "1", "1500m", "2", "3")
DRIVER = "disk.csi.azure.com"
CATALOG = str(ROOT / "fixtures" / "catalogs" / "instance-types.json")
PORT = {"containerPort": 8080, "hostPort": 8080}
WAIT = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "wait"},
    "provisioner": DRIVER,
    "volumeBindingMode": "WaitForFirstConsumer",
}
WORKLOAD_NAMES = ("api", "web", "db", "cache", "queue", "agent", "batch", "edge", "logs", "mq")


@dataclass(frozen=True)
class Run:
    """A cluster as a recording's arrays, the run's documents in file order, and the
    arguments that ``check`` needs for them."""

    recorded: dict[str, list[dict[str, Any]]]
    documents: tuple[dict[str, Any], ...]
    argv: tuple[str, ...]

    def recording(self) -> dict[str, Any]:
        nodes, pods = self.recorded["nodes"], self.recorded["pods"]
        more: dict[str, Any] = {
            k: v for k, v in self.recorded.items() if k not in ("nodes", "pods")
        }
        return cluster_snapshot(nodes, pods, **more)

    def listed(self) -> dict[str, Any]:
        """The same cluster as ``kubectl get ... -A -o json`` writes it: one List of every
        object, each naming its kind."""
        items = [item for array in self.recorded.values() for item in array]
        return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}


def shuffled(document: dict[str, Any], seed: int) -> dict[str, Any]:
    """``document`` with each of its arrays of objects (a recording's, a List's items) in
    another order."""
    shuffle = random.Random(seed).shuffle
    copied: dict[str, Any] = json.loads(json.dumps(document))
    for value in copied.values():
        if isinstance(value, list):
            shuffle(value)
    return copied


@st.composite
def _node(draw: st.DrawFn, name: str) -> dict[str, Any]:
    tainted = draw(st.integers(0, 4)) == 0
    labels = {
        HOSTNAME: name,
        ZONE: draw(st.sampled_from(("a", "b", "c"))),
        "pool": "gpu" if tainted else draw(st.sampled_from(("web", "web", "batch"))),
    }
    return api_node(
        name,
        cpu=draw(st.sampled_from(("2", "4", "4", "8"))),
        labels=labels,
        taints=[GPU_TAINT] if tainted else None,
    )


@st.composite
def _running(draw: st.DrawFn, index: int, nodes: list[str]) -> dict[str, Any]:
    more: dict[str, Any] = {"ports": [PORT]} if draw(st.integers(0, 3)) == 0 else {}
    requests = {"cpu": draw(st.sampled_from(CPUS[:5]))}
    found = api_pod(
        f"old-{index}",
        draw(st.sampled_from(nodes)),
        namespace=NAMESPACE,
        containers=[container("c", requests=requests, **more)],
        priority=draw(st.sampled_from((0, 0, 5, 500))),
    )
    app = draw(st.sampled_from(("old", "old", "web", "db")))
    found["metadata"]["labels"] = {"tier": draw(st.sampled_from(TIERS)), "app": app}
    if app != "old":  # a running copy of a workload the manifests may change
        found["metadata"]["labels"]["pod-template-hash"] = "5d8f7c"
        found["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": f"{app}-5d8f7c"}]
    if draw(st.booleans()):
        found["status"]["startTime"] = f"2026-08-1{draw(st.integers(0, 5))}T10:00:00Z"
    return found


def _budget(name: str, tier: str, allowed: int) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"selector": {"matchLabels": {"tier": tier}}},
        "status": {"disruptionsAllowed": allowed},
    }


def quota(name: str, cpu: str, used: str) -> dict[str, Any]:
    hard = {"requests.cpu": cpu}
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"hard": hard},
        "status": {"hard": hard, "used": {"requests.cpu": used}},
    }


def limit_range(name: str, cpu: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": cpu}}]},
    }


def priority_class(name: str, value: int, **more: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **more,
    }


@st.composite
def _storage(draw: st.DrawFn, nodes: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The storage class claims wait under, a volume bound to a recorded claim in one zone,
    and a CSINode per node bounding what its driver attaches."""
    zone = nodes[0]["metadata"]["labels"][ZONE]
    notes = {"pv.kubernetes.io/bind-completed": "yes"}
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-db-0", "namespace": NAMESPACE, "annotations": notes},
        "spec": {"volumeName": "pv-0", "storageClassName": "wait"},
    }
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "pv-0", "labels": {ZONE: zone}},
        "spec": {},
    }
    csi_nodes = [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": n["metadata"]["name"]},
            "spec": {
                "drivers": [{"name": DRIVER, "allocatable": {"count": draw(st.integers(1, 3))}}]
            },
        }
        for n in nodes
    ]
    return {
        "storageClasses": [WAIT],
        "persistentVolumes": [volume],
        "persistentVolumeClaims": [claim],
        "csiNodes": csi_nodes,
    }


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, list[dict[str, Any]]]:
    """A recording's arrays: nodes named so that their order by name is not their order
    of generation, and at least two running pods (so that a file can be cut between two)."""
    count = draw(st.integers(2, 8))
    names = draw(st.permutations([f"n{i}" for i in range(count)]))
    nodes = [draw(_node(name)) for name in names]
    pods = [draw(_running(i, list(names))) for i in range(draw(st.integers(2, 5)))]
    recorded: dict[str, list[dict[str, Any]]] = {"nodes": nodes, "pods": pods}
    recorded["priorityClasses"] = [
        priority_class("high", 1000),
        priority_class("low", 1, preemptionPolicy="Never"),
    ]
    recorded["resourceQuotas"] = [
        quota(name, str(draw(st.integers(4, 24))), draw(st.sampled_from(("0", "1", "2"))))
        for name in draw(st.sampled_from(((), ("compute",), ("compute", "burst"))))
    ]
    recorded["limitRanges"] = [
        limit_range(name, cpu)
        for name, cpu in draw(
            st.sampled_from(((), (("defaults", "200m"),), (("defaults", "200m"), ("more", "1"))))
        )
    ]
    recorded["podDisruptionBudgets"] = [
        _budget(name, tier, draw(st.integers(0, 1)))
        for name, tier in draw(
            st.sampled_from(((), (("fronts", "front"),), (("all", "front"), ("backs", "back"))))
        )
    ]
    # An empty array is left out: a List cannot tell a kind listed and found empty from
    # one not listed, as a recording tells them (quotas unknown, or none).
    recorded = {key: objects for key, objects in recorded.items() if objects}
    if draw(st.booleans()):
        recorded.update(draw(_storage(nodes)))
    if draw(st.booleans()):
        weights = draw(st.sampled_from(((None, None), (10, None), (5, 5))))
        recorded["nodePools"] = [
            node_pool("default", weight=weights[0]),
            node_pool("spare", weight=weights[1], limits={"cpu": "16"}),
        ]
    elif draw(st.booleans()):
        recorded["configMaps"] = [draw(_node_groups(nodes))]
    return recorded


@st.composite
def _node_groups(draw: st.DrawFn, nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """cluster-autoscaler's status: each pool of ``nodes`` an AKS node group (the nodes
    labelled for it) that may grow by up to three nodes."""
    pools: dict[str, int] = {}
    for node in nodes:
        labels = node["metadata"]["labels"]
        labels[AGENT_POOL] = labels["pool"]
        pools[labels["pool"]] = pools.get(labels["pool"], 0) + 1
    groups = [
        status_group(
            f"aks-{pool}-12345678-vmss", target=count, max_size=count + draw(st.integers(0, 3))
        )
        for pool, count in sorted(pools.items())
    ]
    return status_configmap(*groups)


@st.composite
def _pod_spec(draw: st.DrawFn, name: str, tier: str, volumes: bool) -> dict[str, Any]:
    own = {"matchLabels": {"tier": tier}}
    more: dict[str, Any] = {"ports": [PORT]} if draw(st.integers(0, 4)) == 0 else {}
    cpu = draw(st.sampled_from((None, *CPUS)))
    requests = None if cpu is None else {"cpu": cpu, "memory": "64Mi"}
    spec: dict[str, Any] = {"containers": [container("app", requests=requests, **more)]}
    if draw(st.integers(0, 2)) == 0:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": own}
        ]  # fmt: skip
    if draw(st.integers(0, 3)) == 0:
        term = {"labelSelector": own, "topologyKey": HOSTNAME}
        spec["affinity"] = {
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
        }
    if draw(st.integers(0, 3)) == 0:
        spec["priorityClassName"] = draw(st.sampled_from(("high", "low")))
    if draw(st.integers(0, 4)) == 0:
        spec["tolerations"] = [TOLERATE_GPU]
    if draw(st.integers(0, 5)) == 0:
        spec["nodeSelector"] = {"pool": draw(st.sampled_from(("web", "batch", "gpu")))}
    if volumes and draw(st.booleans()):
        spec["volumes"] = [{"name": "scratch", "persistentVolumeClaim": {"claimName": "scratch"}}]
    return {"metadata": {"labels": {"app": name, "tier": tier}}, "spec": spec}


@st.composite
def _workload(draw: st.DrawFn, name: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(("Deployment", "Deployment", "StatefulSet", "DaemonSet", "Job")))
    tier = draw(st.sampled_from(TIERS))
    template = draw(_pod_spec(name, tier, volumes=False))
    spec: dict[str, Any] = {"template": template}
    if kind != "Job":
        spec["selector"] = {"matchLabels": {"app": name}}
    if kind == "Job":
        template["spec"]["restartPolicy"] = "Never"
        spec["parallelism"] = draw(st.integers(1, 4))
    elif kind != "DaemonSet":
        spec["replicas"] = draw(st.integers(1, 5))
    if kind == "StatefulSet" and draw(st.booleans()):
        claim = {
            "metadata": {"name": "data"},
            "spec": {
                "storageClassName": "wait",
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
            },
        }
        spec["volumeClaimTemplates"] = [claim]
        template["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    api = "batch/v1" if kind == "Job" else "apps/v1"
    metadata = {"name": name, "namespace": NAMESPACE}
    return {"apiVersion": api, "kind": kind, "metadata": metadata, "spec": spec}


@st.composite
def manifests(draw: st.DrawFn) -> tuple[dict[str, Any], ...]:
    names = draw(st.lists(st.sampled_from(WORKLOAD_NAMES), min_size=2, max_size=10, unique=True))
    return tuple(draw(_workload(name)) for name in names)


@st.composite
def runs(draw: st.DrawFn) -> Run:
    recorded = draw(clusters())
    argv: tuple[str, ...] = ()
    if "nodePools" in recorded:
        argv = ("--instance-types", CATALOG)
    return Run(recorded, draw(manifests()), argv)


def write_documents(
    path: Path, documents: tuple[dict[str, Any], ...] | list[dict[str, Any]]
) -> str:
    path.write_text("\n---\n".join(map(json.dumps, documents)) + "\n", encoding="utf-8")
    return str(path)
