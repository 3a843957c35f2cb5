"""A run split into shards (``check --shard K/N``) and merged (``fitgate merge``) writes what
the unsharded run writes -- JSON, text, comment, step summary, JUnit and SARIF, exit code
and standard output -- for every filter plugin, DaemonSet targeting, every warning kind,
the autoscalers and an allowed add-on-only workload: the shards' JSON reports carry each
fact as a field of its own, and the merge reads nothing back from wording.

Each row builds its cluster and manifests, and states what the unsharded run must show
(the plugin and code of a group, a warning's kind), so that a row that stopped reaching its
plugin would fail rather than pass by comparing two empty reports."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.model import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    POD_TOPOLOGY_SPREAD,
    TAINT_TOLERATION,
    Code,
    WarningKind,
)
from tests.autoscaling_objects import status_configmap, status_group
from tests.builders import api_node, api_pod, cluster_snapshot, container, exists, pod_term, spread
from tests.conftest import ROOT
from tests.karpenter_objects import node_pool
from tests.report_schema import validate_report

NOW = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
ENV = {"GITHUB_ACTIONS": "true"}  # standard output carries the annotations too
OUTPUTS = ("json", "junit", "comment", "summary", "sarif")
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
UNSCHEDULABLE, UNRESOLVABLE = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
ADDON_TAINT = {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}
GPU_TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


def _node(name: str, zone: str, pool: str = "web", **more: Any) -> dict[str, Any]:
    return api_node(name, labels={HOSTNAME: name, ZONE: zone, "pool": pool}, **more)


PORT_80 = {"containerPort": 80, "hostPort": 80}
DATA = {"name": "data", "mountPath": "/data"}
CLAIM_SPEC = {
    "storageClassName": "wait",
    "accessModes": ["ReadWriteOnce"],
    "resources": {"requests": {"storage": "1Gi"}},
}
STORAGE_CLASS_WAIT = {
    "metadata": {"name": "wait"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def four_nodes(**changed: dict[str, Any]) -> list[dict[str, Any]]:
    """n0 and n1 in zone a, n2 and n3 in zone b, 4 cpu each; ``changed`` by node name."""
    zones = {"n0": "a", "n1": "a", "n2": "b", "n3": "b"}
    return [_node(name, zone, **changed.get(name, {})) for name, zone in zones.items()]


def template(app: str, cpu: str | None = "500m", **spec: Any) -> dict[str, Any]:
    requests = None if cpu is None else {"cpu": cpu, "memory": "64Mi"}
    containers = spec.pop("containers", [container("app", requests=requests)])
    return {"metadata": {"labels": {"app": app}}, "spec": {"containers": containers, **spec}}


def workload(
    kind: str, name: str, replicas: int | None = 2, cpu: str | None = "500m", **spec: Any
) -> dict[str, Any]:
    """A workload of ``kind`` whose pods are labelled ``app: name``."""
    body: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "app"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": template(name, cpu, **spec.pop("pod", {})),
            **spec,
        },
    }
    if replicas is not None:
        body["spec"]["replicas"] = replicas
    return body


def pod(name: str, cpu: str | None = "500m", **spec: Any) -> dict[str, Any]:
    shaped = template(name, cpu, **spec)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "app", **shaped["metadata"]},
        "spec": shaped["spec"],
    }


def running(
    name: str, node: str, labels: dict[str, str], cpu: str = "100m", **spec: Any
) -> dict[str, Any]:
    """A pod of the cluster, bound to ``node``."""
    more = {"ports": spec.pop("ports")} if "ports" in spec else {}
    containers = [container("c", requests={"cpu": cpu}, **more)]
    found = api_pod(name, node, namespace="app", containers=containers, **spec)
    found["metadata"]["labels"] = labels
    return found


def of_deployment(name: str, node: str, cpu: str, index: int) -> dict[str, Any]:
    """A running pod of Deployment ``name`` (through its ReplicaSet)."""
    labels = {"app": name, "pod-template-hash": "5d8f7c"}
    found = running(f"{name}-5d8f7c-{index}", node, labels, cpu)
    found["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": f"{name}-5d8f7c"}]
    return found


def ranked(found: dict[str, Any], priority: int) -> dict[str, Any]:
    """``found`` with the priority its class gave it."""
    found["spec"]["priority"] = priority
    return found


def autoscaler(kind: str, target: str, low: int, high: int) -> dict[str, Any]:
    if kind == "HorizontalPodAutoscaler":
        api, spec = "autoscaling/v2", {"minReplicas": low, "maxReplicas": high}
    else:
        api, spec = "keda.sh/v1alpha1", {"minReplicaCount": low, "maxReplicaCount": high}
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": f"{target}-scaler", "namespace": "app"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": target}, **spec},
    }


Shown = tuple[str, Code]


@dataclass(frozen=True)
class Case:
    """A run to split: its documents and cluster, and what the unsharded run must show."""

    documents: list[dict[str, Any]]
    nodes: list[dict[str, Any]] = field(default_factory=four_nodes)
    pods: list[dict[str, Any]] = field(default_factory=list)
    argv: tuple[str, ...] = ()
    config: str | None = None
    shown: frozenset[Shown] = frozenset()
    """Each (plugin, code) some outcome group must carry."""
    warned: frozenset[WarningKind] = frozenset()
    """Each kind some warning must be of."""
    says: str = ""
    """A sentence of the text report."""
    recorded: dict[str, Any] = field(default_factory=dict)
    """More arrays of the snapshot (the cluster-autoscaler's status ConfigMap)."""


CATALOG = str(ROOT / "fixtures" / "catalogs" / "instance-types.json")
NVIDIA_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
ANTI_AGENT = pod_term("app", "In", ["agent"], topology_key=HOSTNAME)


def aks_pool(max_size: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Four 4-cpu nodes of the AKS pool ``web``, and its status at 4 of ``max_size``."""
    pool = "kubernetes.azure.com/agentpool"
    nodes = [
        api_node(f"aks-web-{i}", labels={HOSTNAME: f"aks-web-{i}", pool: "web"}) for i in range(4)
    ]
    group = status_group("aks-web-12345678-vmss", target=4, max_size=max_size)
    return nodes, {"configMaps": [status_configmap(group)]}


CASES: dict[str, Case] = {
    "resources: short of cpu on a full node and on one too small for the pod": Case(
        [workload("Deployment", "api", replicas=4, cpu="3")],
        nodes=four_nodes(n0={"cpu": "2"}),
        pods=[running("busy", "n1", {"app": "busy"}, cpu="2")],
        shown=frozenset({(NODE_RESOURCES_FIT, UNRESOLVABLE), (NODE_RESOURCES_FIT, UNSCHEDULABLE)}),
    ),
    "ports: a host port taken on one node": Case(
        [
            workload(
                "Deployment",
                "proxy",
                replicas=4,
                pod={"containers": [container("p", {"cpu": "100m"}, ports=[PORT_80])]},
            )
        ],
        pods=[
            running("edge", "n1", {"app": "edge"}, ports=[{"containerPort": 80, "hostPort": 80}])
        ],
        shown=frozenset({(NODE_PORTS, UNSCHEDULABLE)}),
    ),
    "taints: every node tainted, each taint named in the reasons": Case(
        [workload("Deployment", "api")],
        nodes=four_nodes(
            n0={"taints": [GPU_TAINT]},
            n1={"taints": [GPU_TAINT]},
            n2={"taints": [ADDON_TAINT]},
            n3={"taints": [ADDON_TAINT]},
        ),
        shown=frozenset({(TAINT_TOLERATION, UNRESOLVABLE)}),
        says="dedicated=gpu:NoSchedule",
    ),
    "taints: two taints behind one generic reason (v1.35)": Case(
        [workload("Deployment", "api", replicas=4)],
        nodes=four_nodes(
            n0={"taints": [GPU_TAINT]},
            n1={"taints": [ADDON_TAINT]},
            n2={"taints": [GPU_TAINT]},
            n3={"taints": [ADDON_TAINT]},
        ),
        argv=("--scheduler-version", "v1.35.0"),
        shown=frozenset({(TAINT_TOLERATION, UNRESOLVABLE)}),
        says="CriticalAddonsOnly=true:NoSchedule",
    ),
    "node affinity: a selector only one node has": Case(
        [workload("Deployment", "train", replicas=2, pod={"nodeSelector": {"pool": "gpu"}})],
        nodes=four_nodes(n0={"pool": "gpu"}),
        shown=frozenset({(NODE_AFFINITY, UNRESOLVABLE)}),
    ),
    "node name: a pod bound by name": Case(
        [pod("pinned", nodeName="n2")],
        shown=frozenset({(NODE_NAME, UNRESOLVABLE)}),
        warned=frozenset({WarningKind.SCHEDULING}),
    ),
    "unschedulable: a cordoned node": Case(
        [workload("Deployment", "api", replicas=4)],
        nodes=four_nodes(n2={"unschedulable": True}),
        shown=frozenset({(NODE_UNSCHEDULABLE, UNRESOLVABLE)}),
    ),
    "pod topology spread: one zone already crowded": Case(
        [
            workload(
                "Deployment",
                "web",
                replicas=2,
                pod={"topologySpreadConstraints": [spread(1, ZONE, exists("app"))]},
            )
        ],
        pods=[running(f"old-{i}", f"n{i % 2}", {"app": "web"}) for i in range(3)],
        shown=frozenset({(POD_TOPOLOGY_SPREAD, UNSCHEDULABLE)}),
    ),
    "inter-pod affinity: the pod's anti-affinity against a pod already placed": Case(
        [
            workload(
                "Deployment",
                "api",
                replicas=4,
                pod={
                    "affinity": {
                        "podAntiAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": [
                                pod_term("app", "In", ["db"], topology_key=HOSTNAME)
                            ]
                        }
                    }
                },
            )
        ],
        pods=[running("db-0", "n3", {"app": "db"})],
        shown=frozenset({(INTER_POD_AFFINITY, UNSCHEDULABLE)}),
    ),
    "inter-pod affinity: affinity to pods that run nowhere": Case(
        [
            workload(
                "Deployment",
                "api",
                pod={
                    "affinity": {
                        "podAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": [
                                pod_term("app", "In", ["cache"], topology_key=ZONE)
                            ]
                        }
                    }
                },
            )
        ],
        pods=[running("db-0", "n3", {"app": "db"})],
        shown=frozenset({(INTER_POD_AFFINITY, UNRESOLVABLE)}),
    ),
    "DaemonSet targeting: kept off one of 4 nodes by an existing pod's anti-affinity": Case(
        [workload("DaemonSet", "agent", replicas=None, cpu="100m")],
        pods=[
            running(
                "guard",
                "n3",
                {"app": "guard"},
                affinity={
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [ANTI_AGENT]
                    }
                },
            )
        ],
        shown=frozenset({(INTER_POD_AFFINITY, UNSCHEDULABLE)}),
        says="no room on 1 of 4 targeted nodes",
    ),
    "DaemonSet targeting: a pool of 3 nodes, one too full": Case(
        [
            workload(
                "DaemonSet", "agent", replicas=None, cpu="1", pod={"nodeSelector": {"pool": "web"}}
            )
        ],
        nodes=four_nodes(n0={"pool": "gpu"}, n1={"cpu": "500m"}),
        shown=frozenset({(NODE_AFFINITY, UNRESOLVABLE), (NODE_RESOURCES_FIT, UNRESOLVABLE)}),
        says="no room on 1 of 3 targeted nodes",
    ),
    "warning zero-request: a container without requests": Case(
        [pod("bare", cpu=None)],
        warned=frozenset({WarningKind.ZERO_REQUEST}),
    ),
    "warning not-modelled: a claim fitgate does not bind": Case(
        [pod("db", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}])],
        warned=frozenset({WarningKind.NOT_MODELLED}),
    ),
    "warning admission: a RuntimeClass fitgate cannot apply": Case(
        [pod("sandboxed", runtimeClassName="kata")],
        warned=frozenset({WarningKind.ADMISSION}),
    ),
    "scheduling gates: a gated pod is judged as it will be once they are removed": Case(
        [pod("gated", schedulingGates=[{"name": "example.com/quota-check"}])],
        says="held by scheduling gate example.com/quota-check until it is removed; then: fits",
    ),
    "quota: the namespace's quota creates two pods of three": Case(
        [workload("Deployment", "api", replicas=3)],
        recorded={
            "resourceQuotas": [
                {
                    "apiVersion": "v1",
                    "kind": "ResourceQuota",
                    "metadata": {"name": "compute", "namespace": "app"},
                    "spec": {"hard": {"requests.cpu": "2"}},
                    "status": {"hard": {"requests.cpu": "2"}, "used": {"requests.cpu": "1"}},
                }
            ]
        },
        says="2 of 3 replicas fit; the 3rd: pods",
    ),
    "quota: the namespace's quota creates none of a Deployment's pods": Case(
        [workload("Deployment", "api", cpu="3"), workload("Deployment", "web", cpu="1")],
        recorded={
            "resourceQuotas": [
                {
                    "apiVersion": "v1",
                    "kind": "ResourceQuota",
                    "metadata": {"name": "compute", "namespace": "app"},
                    "spec": {"hard": {"requests.cpu": "2"}},
                    "status": {"hard": {"requests.cpu": "2"}, "used": {"requests.cpu": "0"}},
                }
            ]
        },
        says="is forbidden: exceeded quota: compute, requested: requests.cpu=3",
    ),
    "warning scheduling: a pod another scheduler places": Case(
        [pod("custom", schedulerName="volcano")],
        warned=frozenset({WarningKind.SCHEDULING}),
    ),
    "warning no-target: a DaemonSet that targets no node": Case(
        [workload("DaemonSet", "lost", replicas=None, pod={"nodeSelector": {"pool": "none"}})],
        warned=frozenset({WarningKind.NO_TARGET}),
    ),
    "warning rollout: a surge that cannot start": Case(
        [
            workload(
                "Deployment",
                "shop",
                replicas=3,
                cpu="3",
                strategy={"rollingUpdate": {"maxUnavailable": 1}},
            )
        ],
        nodes=four_nodes(n3={"unschedulable": True}),
        pods=[of_deployment("shop", f"n{i}", "3", i) for i in range(3)],
        warned=frozenset({WarningKind.ROLLOUT}),
    ),
    "a rollout that cannot start: maxUnavailable 0 and no room for its surge": Case(
        [workload("Deployment", "shop", replicas=3, cpu="3")],
        nodes=four_nodes(n3={"unschedulable": True}),
        pods=[of_deployment("shop", f"n{i}", "3", i) for i in range(3)],
    ),
    "warning lost-node: replicas pinned to one node": Case(
        [workload("Deployment", "cache", replicas=2, pod={"nodeSelector": {HOSTNAME: "n0"}})],
        warned=frozenset({WarningKind.LOST_NODE}),
    ),
    "autoscalers: an HPA and a KEDA ScaledObject": Case(
        [
            workload("Deployment", "api", replicas=None, cpu="1"),
            autoscaler("HorizontalPodAutoscaler", "api", 2, 30),
            workload("Deployment", "worker", replicas=None, cpu="1"),
            autoscaler("ScaledObject", "worker", 1, 40),
        ],
        says="the HPA's minimum of 2 replicas fit; room for 16 of its 30",
    ),
    "cluster-autoscaler: copies that fit only on new nodes of the pool": Case(
        [workload("Deployment", "api", replicas=6, cpu="3")],
        nodes=aks_pool(8)[0],
        recorded=aks_pool(8)[1],
        says="fits after scale-up: {aks-web-12345678-vmss 4->6 (max: 8)} (2 new nodes)",
    ),
    "cluster-autoscaler: full nodes today, copies only on new nodes, some blocked": Case(
        [workload("Deployment", "api", replicas=4, cpu="3")],
        nodes=aks_pool(6)[0],
        pods=[running(f"busy-{i}", f"aks-web-{i}", {"app": "busy"}, cpu="2") for i in range(4)],
        recorded=aks_pool(6)[1],
        says="2 of 4 replicas fit: 0 now, 2 after {aks-web-12345678-vmss 4->6 (max: 6)}; "
        "2 blocked: max node group size reached",
    ),
    "cluster-autoscaler: a run over its budget of new nodes": Case(
        [workload("Deployment", "api", replicas=6, cpu="3")],
        nodes=aks_pool(8)[0],
        recorded=aks_pool(8)[1],
        config="autoscaling:\n  maxNewNodes: 1\n",
        says="budget 1 (autoscaling.maxNewNodes) exceeded. Gate FAILED.",
    ),
    "cluster-autoscaler: copies beyond the pool's maximum": Case(
        [workload("Deployment", "api", replicas=8, cpu="3")],
        nodes=aks_pool(6)[0],
        recorded=aks_pool(6)[1],
        says="6 of 8 replicas fit: 4 now, 2 after {aks-web-12345678-vmss 4->6 (max: 6)}; "
        "2 blocked: max node group size reached",
    ),
    "Karpenter: copies a NodePool launches nodes for": Case(
        [workload("Deployment", "api", replicas=6, cpu="3")],
        recorded={"nodePools": [node_pool("default")]},
        argv=("--instance-types", CATALOG),
        says='fits after scale-up: NodePool "default" +',
    ),
    "Karpenter: copies no NodePool takes, each pool's refusal": Case(
        [workload("Deployment", "api", replicas=2, cpu="200")],
        recorded={"nodePools": [node_pool("default"), node_pool("gpu", taints=[NVIDIA_TAINT])]},
        argv=("--instance-types", CATALOG),
        says='nodepool "gpu": did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)',
    ),
    "together: two new Deployments, each fits alone, not both, in different shards": Case(
        [
            workload("Deployment", "api", replicas=4, cpu="3"),
            workload("Deployment", "worker", replicas=4, cpu="3"),
        ],
        says="fits alone; beside app/api, 0 of 4 replicas fit",
    ),
    "together: a new DaemonSet takes its room first, before a Deployment listed earlier": Case(
        [
            workload("Deployment", "web", replicas=4, cpu="3500m"),
            workload("DaemonSet", "agent", replicas=None, cpu="1"),
        ],
        says="fits alone; beside app/agent, 0 of 4 replicas fit",
    ),
    "together: the second of two new DaemonSets short of room on one node": Case(
        [
            workload("DaemonSet", "agent", replicas=None, cpu="2"),
            workload("DaemonSet", "exporter", replicas=None, cpu="1500m"),
        ],
        nodes=four_nodes(n1={"cpu": "3"}),
        shown=frozenset({(NODE_RESOURCES_FIT, UNSCHEDULABLE)}),
        says="beside app/agent, no room on 1 of 4 targeted nodes: 1 Insufficient cpu",
    ),
    "cluster-autoscaler: two Deployments that each need five of the pool's seven new nodes": Case(
        [
            workload("Deployment", "api", replicas=5, cpu="3"),
            workload("Deployment", "worker", replicas=5, cpu="3"),
        ],
        nodes=aks_pool(11)[0],
        pods=[running(f"busy-{i}", f"aks-web-{i}", {"app": "busy"}, cpu="2") for i in range(4)],
        recorded=aks_pool(11)[1],
        says="2 of 5 replicas fit: 0 now, 2 after {aks-web-12345678-vmss 9->11 (max: 11)}; "
        "3 blocked: max node group size reached",
    ),
    "a workload that fits only by evicting pods of lower priority": Case(
        [
            workload(
                "Deployment", "urgent", replicas=2, cpu="3", pod={"priorityClassName": "high"}
            ),
            workload("Deployment", "polite", replicas=1, cpu="3", pod={"priorityClassName": "low"}),
        ],
        pods=[ranked(of_deployment(f"filler{i}", f"n{i}", "2", 0), i) for i in range(4)],
        recorded={
            "priorityClasses": [
                {"metadata": {"name": "high"}, "value": 1000},
                {"metadata": {"name": "low"}, "value": 1, "preemptionPolicy": "Never"},
            ]
        },
        says="fits by evicting 2 pods of lower priority: app/filler1 (priority 1), app/filler0",
    ),
    "an earlier workload that evicts a pod for one copy leaves the NodePool's count": Case(
        [
            workload(
                "Deployment",
                "queue",
                replicas=3,
                cpu="100m",
                pod={
                    "priorityClassName": "high",
                    "containers": [container("q", {"cpu": "100m"}, ports=[PORT_80])],
                },
            ),
            workload("Deployment", "cache", replicas=4, cpu="3"),
        ],
        nodes=four_nodes(
            n2={"pool": "gpu", "taints": [GPU_TAINT]}, n3={"pool": "gpu", "taints": [GPU_TAINT]}
        ),
        pods=[running("edge", "n1", {"app": "edge"}, ports=[PORT_80])],
        recorded={
            "priorityClasses": [{"metadata": {"name": "high"}, "value": 1000}],
            "nodePools": [node_pool("default")],
        },
        argv=("--instance-types", CATALOG),
        says='fits after scale-up: NodePool "default" +1 node',
    ),
    "a StatefulSet whose claims wait for their node, beside a workload that took its room": Case(
        [
            workload("StatefulSet", "api", replicas=3, cpu="3"),
            workload(
                "StatefulSet",
                "db",
                replicas=1,
                pod={"containers": [container("db", {"cpu": "1500m"}, volumeMounts=[DATA])]},
                volumeClaimTemplates=[{"metadata": {"name": "data"}, "spec": CLAIM_SPEC}],
            ),
        ],
        nodes=four_nodes()[:1],
        recorded={
            "storageClasses": [STORAGE_CLASS_WAIT],
            "persistentVolumes": [],
            "persistentVolumeClaims": [],  # the claims are known: none is bound yet
        },
        says="fits alone; beside app/api, 0 of 1 replicas fit",
    ),
    "an add-on-only workload the configuration allows": Case(
        [
            workload(
                "Deployment",
                "system",
                cpu="3",
                pod={"tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]},
            )
        ],
        nodes=four_nodes(
            n0={"taints": [ADDON_TAINT]}, **{n: {"cpu": "2"} for n in ("n1", "n2", "n3")}
        ),
        config="allowAddonOnly:\n  - {name: system, reason: system pool by design}\n",
        says="1 ADDON_ONLY. Gate passed.",
    ),
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Streams(io.BytesIO(), out, err, env=ENV, now=NOW))
    return code, out.getvalue(), err.getvalue()


def report_files(directory: Path, tag: str) -> Iterator[str]:
    for kind in OUTPUTS:
        yield f"--{kind}={directory / f'{tag}.{kind}'}"


def written(directory: Path, tag: str) -> dict[str, str]:
    return {kind: (directory / f"{tag}.{kind}").read_text(encoding="utf-8") for kind in OUTPUTS}


def inputs(tmp_path: Path, case: Case) -> tuple[str, ...]:
    """The case's files, as the arguments of ``check``."""
    manifests = tmp_path / "manifests.yaml"
    manifests.write_text("\n---\n".join(map(json.dumps, case.documents)), encoding="utf-8")
    snapshot = tmp_path / "snapshot.json"
    recorded = cluster_snapshot(case.nodes, case.pods, **case.recorded)
    snapshot.write_text(json.dumps(recorded), encoding="utf-8")
    argv = (str(manifests), "--snapshot", str(snapshot), *case.argv)
    if case.config is None:
        return argv
    config = tmp_path / "fitgate.yaml"
    config.write_text(case.config, encoding="utf-8")
    return (*argv, "--config", str(config))


def sharded_and_merged(tmp_path: Path, argv: tuple[str, ...], count: int) -> tuple[int, str, str]:
    shards = []
    for index in range(1, count + 1):
        path = tmp_path / f"shard-{index}-of-{count}.json"
        code, _, err = run("check", *argv, "--shard", f"{index}/{count}", "--json", str(path))
        assert code in (0, 1), err
        validate_report(json.loads(path.read_text(encoding="utf-8")))
        shards.append(str(path))
    return run("merge", *reversed(shards), *report_files(tmp_path, f"merged-{count}"))


def whole_run_shows(report: dict[str, Any], case: Case) -> None:
    """The unsharded run reaches what the row is about."""
    groups = [g for w in report["workloads"] for g in w["outcomes"] if g["reasons"]]
    shown = {(g["plugin"], Code(g["code"])) for g in groups}
    assert case.shown <= shown, shown
    warned = {WarningKind(x["kind"]) for w in report["workloads"] for x in w["warnings"]}
    assert case.warned <= warned, warned


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_shards_merged_write_what_the_whole_run_writes(tmp_path: Path, case: Case) -> None:
    argv = inputs(tmp_path, case)
    whole = run("check", *argv, *report_files(tmp_path, "whole"))
    assert whole[0] in (0, 1), whole[2]
    report = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    validate_report(report)
    whole_run_shows(report, case)
    assert case.says in whole[1]
    for count in (1, 2):
        merged = sharded_and_merged(tmp_path, argv, count)
        assert merged == whole  # exit code, standard output (text, annotations), errors
        assert written(tmp_path, f"merged-{count}") == written(tmp_path, "whole")
