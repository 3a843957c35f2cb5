"""Keyword builders for the cluster-autoscaler's objects, as ``kubectl get -o json`` lists
them (shapes from cluster-autoscaler-1.34.5: clusterstate/api/types.go, config/flags/flags.go,
cloudprovider/clusterapi/README.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def status_group(
    name: str,
    *,
    target: int,
    max_size: int,
    min_size: int = 0,
    health: str = "Healthy",
    scale_up: str = "NoActivity",
    ready: int | None = None,
    backoff: str = "",
) -> dict[str, Any]:
    """One ``nodeGroups[]`` entry of the YAML status (CA ≥ 1.30)."""
    group: dict[str, Any] = {
        "name": name,
        "health": {
            "status": health,
            "nodeCounts": {
                "registered": {"total": target, "ready": target if ready is None else ready}
            },
            "cloudProviderTarget": target,
            "minSize": min_size,
            "maxSize": max_size,
        },
        "scaleUp": {"status": scale_up},
    }
    if backoff:
        group["scaleUp"]["backoffInfo"] = {"errorCode": backoff, "errorMessage": "quota"}
    return group


def status_configmap(
    *groups: dict[str, Any], time: str = "2026-08-16 10:00:00 +0000 UTC"
) -> dict[str, Any]:
    body = {"time": time, "autoscalerStatus": "Running", "nodeGroups": list(groups)}
    return configmap_of(yaml.safe_dump(body, sort_keys=False), time)


def configmap_of(status: str, time: str = "2026-08-16 10:00:00 +0000 UTC") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "namespace": "kube-system",
            "name": "cluster-autoscaler-status",
            "annotations": {"cluster-autoscaler.kubernetes.io/last-updated": time},
        },
        "data": {"status": status},
    }


TEXT_STATUS = (Path(__file__).parent / "data" / "ca-status-1.29.txt").read_text()
"""The plain text of CA ≤ 1.29 (clusterstate/api/utils.go ``GetReadableString`` at
cluster-autoscaler-1.29.0, the time line from clusterstate/utils/status.go)."""


def daemonset(name: str, cpu: str = "100m", memory: str = "64Mi", **spec: Any) -> dict[str, Any]:
    requests = {"cpu": cpu, "memory": memory}
    pod = {"containers": [{"name": name, "resources": {"requests": requests}}], **spec}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"namespace": "kube-system", "name": name},
        "spec": {"template": {"spec": pod}},
    }


def autoscaler_deployment(
    *args: str, image: str = "registry.k8s.io/autoscaling/cluster-autoscaler:v1.34.5"
) -> dict[str, Any]:
    container = {
        "name": "cluster-autoscaler",
        "image": image,
        "command": ["./cluster-autoscaler", *args],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"namespace": "kube-system", "name": "cluster-autoscaler"},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }


def machine_deployment(name: str, replicas: int, **annotations: str) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "MachineDeployment",
        "metadata": {"namespace": "capi", "name": name, "annotations": annotations},
        "spec": {"replicas": replicas},
    }
