"""Keyword builders for Karpenter's objects as ``kubectl get -o json`` lists them (shapes
from kubernetes-sigs/karpenter v1.8.3 pkg/apis/v1/nodepool.go and nodeclaim.go,
aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go, Azure/karpenter-provider-azure
pkg/apis/v1beta1/aksnodeclass.go)."""

from __future__ import annotations

from typing import Any

READY = ("Ready", "ValidationSucceeded", "NodeClassReady")


def conditions(**statuses: str) -> list[dict[str, Any]]:
    return [
        {
            "type": kind,
            "status": status,
            "reason": kind,
            "lastTransitionTime": "2026-08-16T10:00:00Z",
        }
        for kind, status in statuses.items()
    ]


def requirement(
    key: str, operator: str, *values: str, min_values: int | None = None
) -> dict[str, Any]:
    found: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        found["values"] = list(values)
    if min_values is not None:
        found["minValues"] = min_values
    return found


def node_pool(
    name: str,
    *requirements: dict[str, Any],
    weight: int | None = None,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, Any]] | None = None,
    startup_taints: list[dict[str, Any]] | None = None,
    limits: dict[str, Any] | None = None,
    ready: dict[str, str] | None = None,
    node_class: str = "default",
    **spec: Any,
) -> dict[str, Any]:
    template_spec: dict[str, Any] = {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": node_class},
        "requirements": list(requirements),
        "expireAfter": "720h",
    }
    if taints is not None:
        template_spec["taints"] = taints
    if startup_taints is not None:
        template_spec["startupTaints"] = startup_taints
    body: dict[str, Any] = {
        "template": {"metadata": {"labels": labels or {}}, "spec": template_spec},
        "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "1m"},
        **spec,
    }
    if weight is not None:
        body["weight"] = weight
    if limits is not None:
        body["limits"] = limits
    statuses = dict.fromkeys(READY, "True") if ready is None else ready
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name, "annotations": {"karpenter.sh/nodepool-hash": "123"}},
        "spec": body,
        "status": {"conditions": conditions(**statuses), "resources": {"cpu": "8", "nodes": "2"}},
    }


def node_claim(
    name: str,
    pool: str,
    node: str = "",
    *,
    labels: dict[str, str] | None = None,
    capacity: dict[str, Any] | None = None,
    allocatable: dict[str, Any] | None = None,
    taints: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    status: dict[str, Any] = {"providerID": f"aws:///us-east-1a/i-{name}", "imageID": "ami-1"}
    if node:
        status["nodeName"] = node
    if capacity is not None:
        status["capacity"] = capacity
    if allocatable is not None:
        status["allocatable"] = allocatable
    spec: dict[str, Any] = {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
        "requirements": [requirement("karpenter.sh/nodepool", "In", pool)],
    }
    if taints is not None:
        spec["taints"] = taints
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {"name": name, "labels": {"karpenter.sh/nodepool": pool, **(labels or {})}},
        "spec": spec,
        "status": status,
    }


def ec2_node_class(name: str = "default", ready: str = "True", **kubelet: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "role": "KarpenterNodeRole-prod",
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "prod"}}],
        "userData": "secret-bootstrap",
    }
    if kubelet:
        spec["kubelet"] = kubelet
    return {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": name},
        "spec": spec,
        "status": {"conditions": conditions(Ready=ready)},
    }


def aks_node_class(
    name: str = "default", max_pods: int | None = None, version: str = "v1beta1"
) -> dict[str, Any]:
    spec: dict[str, Any] = {"imageFamily": "AzureLinux", "osDiskSizeGB": 128}
    if max_pods is not None:
        spec["maxPods"] = max_pods
    return {
        "apiVersion": f"karpenter.azure.com/{version}",
        "kind": "AKSNodeClass",
        "metadata": {"name": name},
        "spec": spec,
        "status": {"conditions": conditions(Ready="True")},
    }
