"""Rendered manifests of a platform monorepo: every workload kind fitgate reads, with
tolerations, node selectors, required and preferred affinities, DaemonSets that tolerate
every taint and carry topology spread constraints, some without requests,
beside the Services and ConfigMaps a chart renders, Helm ``# Source:`` comments, a
``kind: List``, one broken document and one skipped by annotation."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from benchmarks.catalog import DAEMONSETS, App, env_list, probe

Doc = dict[str, Any]

# (share of workloads, how the pod template is placed); shares are cumulative weights.
PLACEMENTS: tuple[tuple[int, str], ...] = (
    (48, "anywhere"),
    (8, "spot"),
    (4, "batch"),
    (4, "gpu"),
    (5, "arm"),
    (6, "memory-affinity"),
    (5, "zone-preferred"),
    (3, "system-addon"),
    (3, "too-big"),
    (4, "no-requests"),
    (3, "missing-pool"),
)


def _template(rng: random.Random, app: App, placement: str) -> Doc:
    resources: Doc = {}
    requests = app.requests()
    if placement == "too-big":
        requests = {"cpu": "48", "memory": "300Gi"}
    if placement == "gpu":
        requests = {**requests, "nvidia.com/gpu": "1"}
    if requests and placement != "no-requests":
        limits = {k: v for k, v in requests.items() if k != "cpu"}
        resources = {"requests": requests, "limits": limits}
    container: Doc = {
        "name": app.name,
        "image": app.image,
        "ports": [{"name": "http", "containerPort": 8080}],
        "env": env_list(rng, app, rng.randrange(3, 9)),
        "resources": resources,
        "livenessProbe": probe(8080, "/healthz"),
        "readinessProbe": probe(8080, "/ready"),
        "volumeMounts": [{"name": "config", "mountPath": "/etc/config"}],
    }
    if app.host_port:
        container["ports"] = [
            {"name": "metrics", "containerPort": app.host_port, "hostPort": app.host_port}
        ]
    spec: Doc = {
        "serviceAccountName": app.name,
        "containers": [container],
        "volumes": [{"name": "config", "configMap": {"name": f"{app.name}-config"}}],
    }
    _place(spec, placement)
    if app.affinity():
        spec["affinity"] = {**spec.get("affinity", {}), **app.affinity()}
    if app.spread_constraints():
        spec["topologySpreadConstraints"] = app.spread_constraints()
    if app.sidecar:
        spec["initContainers"] = [
            {
                "name": "mesh-proxy",
                "image": "registry.example.com/mesh:1.24",
                "restartPolicy": "Always",
                "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
            }
        ]
    return {"metadata": {"labels": app.labels()}, "spec": spec}


def _place(spec: Doc, placement: str) -> None:
    def toleration(key: str, value: str | None = None) -> Doc:
        if value is None:
            return {"key": key, "operator": "Exists", "effect": "NoSchedule"}
        return {"key": key, "operator": "Equal", "value": value, "effect": "NoSchedule"}

    def required(key: str, *values: str) -> Doc:
        expression = {"key": key, "operator": "In", "values": list(values)}
        terms = [{"matchExpressions": [expression]}]
        return {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
            }
        }

    if placement == "spot":
        spec["tolerations"] = [toleration("kubernetes.azure.com/scalesetpriority", "spot")]
        spec["nodeSelector"] = {"kubernetes.azure.com/scalesetpriority": "spot"}
    elif placement == "batch":
        spec["tolerations"] = [toleration("workload", "batch")]
        spec["nodeSelector"] = {"agentpool": "batch"}
    elif placement == "gpu":
        spec["tolerations"] = [toleration("nvidia.com/gpu")]
        spec["nodeSelector"] = {"accelerator": "nvidia"}
    elif placement == "arm":
        spec["nodeSelector"] = {"kubernetes.io/arch": "arm64"}
    elif placement == "memory-affinity":
        spec["affinity"] = required("agentpool", "memory", "large")
    elif placement == "zone-preferred":
        term = {
            "matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["westeurope-1"]}
            ]
        }
        preferred = [{"weight": 50, "preference": term}]
        spec["affinity"] = {
            "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}
        }
    elif placement == "everywhere":  # a node agent tolerates every taint
        spec["tolerations"] = [{"operator": "Exists"}]
    elif placement == "system-addon":
        spec["tolerations"] = [toleration("CriticalAddonsOnly")]
        spec["nodeSelector"] = {"kubernetes.azure.com/mode": "system"}
    elif placement == "missing-pool":
        spec["nodeSelector"] = {"agentpool": "highmem-retired"}


def workload(rng: random.Random, app: App, placement: str) -> Doc:
    template = _template(rng, app, placement)
    metadata = {
        "name": app.name,
        "namespace": app.namespace,
        "labels": {"app.kubernetes.io/name": app.name, "app.kubernetes.io/managed-by": "Helm"},
    }
    kind = app.kind
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": kind, "metadata": metadata, "spec": template["spec"]}
    if kind == "PodTemplate":
        return {"apiVersion": "v1", "kind": kind, "metadata": metadata, "template": template}
    selector = app.selector()
    spec: Doc = {"selector": selector, "template": template}
    api = "apps/v1"
    if kind in ("Deployment", "ReplicaSet", "StatefulSet"):
        spec["replicas"] = rng.choice((1, 2, 3, 3, 6))
    if kind == "StatefulSet":
        spec["serviceName"] = app.name
        spec["volumeClaimTemplates"] = [
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "20Gi"}},
                },
            }
        ]
    if kind == "ReplicationController":
        api, spec = "v1", {"replicas": 2, "selector": selector["matchLabels"], "template": template}
    if kind == "Job":
        api = "batch/v1"
        template["spec"]["restartPolicy"] = "OnFailure"
        spec = {"parallelism": 2, "backoffLimit": 4, "template": template}
    if kind == "CronJob":
        api = "batch/v1"
        template["spec"]["restartPolicy"] = "OnFailure"
        spec = {"schedule": "*/30 * * * *", "jobTemplate": {"spec": {"template": template}}}
    return {"apiVersion": api, "kind": kind, "metadata": metadata, "spec": spec}


def companions(app: App) -> list[Doc]:
    """What a chart renders beside the workload: counted as other documents."""
    meta = {"name": app.name, "namespace": app.namespace}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {**meta, "name": f"{app.name}-config"},
            "data": {"LOG_LEVEL": "info", "FEATURES": "a,b,c"},
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": meta,
            "spec": {
                "selector": {"app": app.name},
                "ports": [{"name": "http", "port": 80, "targetPort": 8080}],
            },
        },
    ]


def workloads(rng: random.Random, apps: list[App], count: int) -> Iterator[tuple[App, Doc]]:
    """``count`` workloads: the running applications first, then DaemonSets, then the
    rarer kinds, each placed by a draw from ``PLACEMENTS``."""
    weights = [w for w, _ in PLACEMENTS]
    names = [p for _, p in PLACEMENTS]
    rare = ("Pod", "PodTemplate", "ReplicationController")
    for index in range(count):
        app = apps[index % len(apps)]
        if index % 50 == 7:
            base = DAEMONSETS[index // 50 % len(DAEMONSETS)]
            app = App(
                f"{base.name}-{index}",
                base.namespace,
                "DaemonSet",
                base.image,
                "500m" if index % 100 == 7 else base.cpu,
                base.memory,
                1,
                None,
                False,
                base.host_port if index % 100 == 57 else None,
                spread="daemon-spread" if index // 50 % 2 == 0 else None,
            )
        elif index % 40 == 11:
            app = replace(
                app, name=f"{app.name}-{index}", kind=rare[index % 3], containers=1, sidecar=False
            )
        elif index >= len(apps):
            app = replace(app, name=f"{app.name}-v{index // len(apps)}")
        placement = rng.choices(names, weights)[0]
        if app.kind == "DaemonSet":
            placement = "everywhere" if app.spread == "daemon-spread" else "anywhere"
        yield app, workload(rng, app, placement)
