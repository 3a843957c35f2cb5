"""Keyword builders for nodes, pods and snapshots in tests."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from gate.model import (
    ExistingPod,
    HostPort,
    NodeView,
    PreferringPod,
    Snapshot,
    SnapshotInfo,
    Taint,
)
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState
from gate.scheduler.plugins import prepare


def node(
    name: str = "node",
    *,
    cpu: int = 4000,
    memory: int = 8 * 2**30,
    pods: int = 110,
    labels: dict[str, str] | None = None,
    taints: tuple[Taint, ...] = (),
    unschedulable: bool = False,
    requested: dict[str, int] | None = None,
    pod_count: int = 0,
    extra: dict[str, int] | None = None,
    used_ports: frozenset[HostPort] = frozenset(),
) -> NodeView:
    """A node view with allocatable cpu in millicores and memory in bytes."""
    return NodeView(
        name=name,
        labels=labels or {},
        taints=taints,
        unschedulable=unschedulable,
        allocatable={"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})},
        requested=requested or {},
        pod_count=pod_count,
        used_ports=used_ports,
    )


def cluster(*nodes: NodeView) -> Cluster:
    """A snapshot of just these nodes, with no pods bound to them."""
    info = SnapshotInfo("test", None, None, None, None, len(nodes), 0)
    return Cluster.of(Snapshot(info=info, nodes=nodes))


def prepared(pod: PodProfile, *nodes: NodeView) -> CycleState:
    """Every filter plugin prepared for ``pod`` in a cluster of ``nodes``."""
    return prepare(pod, cluster(*nodes))


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> Taint:
    return Taint(key=key, value=value, effect=effect)


def container(
    name: str = "c",
    requests: dict[str, Any] | None = None,
    limits: dict[str, Any] | None = None,
    **more: Any,
) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "image": "busybox", "resources": resources, **more}


def api_node(
    name: str,
    *,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: str = "110",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
) -> dict[str, Any]:
    """A Node object as the API returns it."""
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }


def api_pod(
    name: str,
    node_name: str | None,
    *,
    namespace: str = "default",
    phase: str = "Running",
    containers: list[dict[str, Any]] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    """A Pod object as the API returns it."""
    body: dict[str, Any] = {"containers": containers or [container()], **spec}
    if node_name:
        body["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": body,
        "status": {"phase": phase},
    }


def cluster_snapshot(
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]] | None = None,
    *,
    server_version: str | None = "v1.33.4",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "capturedAt": "2026-08-16T10:00:00Z",
        "source": {
            "context": "test",
            "server": "https://test:6443",
            "serverVersion": server_version,
        },
        "nodes": nodes,
        "pods": pods or [],
        **extra,
    }


def existing_pod(
    node: str,
    labels: dict[str, str] | None = None,
    *,
    namespace: str = "default",
    name: str = "p",
    terminating: bool = False,
    anti_affinity: tuple[dict[str, Any], ...] = (),
    affinity: tuple[dict[str, Any], ...] = (),
    preferred: tuple[tuple[int, dict[str, Any]], ...] = (),
    preferred_anti: tuple[tuple[int, dict[str, Any]], ...] = (),
) -> ExistingPod:
    """A pod bound to ``node``, with its required (anti-)affinity terms as stored, and its
    preferred ones as ``(weight, term)`` (a :class:`PreferringPod` when it has some)."""
    pod = ExistingPod(
        namespace=namespace,
        name=name,
        node=node,
        labels=labels or {},
        terminating=terminating,
        affinity_terms=affinity,
        anti_affinity_terms=anti_affinity,
    )
    if not (preferred or preferred_anti):
        return pod
    return PreferringPod(
        **{f.name: getattr(pod, f.name) for f in fields(pod)},
        preferred_affinity_terms=preferred,
        preferred_anti_affinity_terms=preferred_anti,
    )


def pod_term(
    key: str,
    operator: str,
    values: list[str] | None = None,
    topology_key: str = "zone",
    **more: Any,
) -> dict[str, Any]:
    """A PodAffinityTerm selecting on one expression (upstream st.PodAffinityIn & co.)."""
    expression: dict[str, Any] = {"key": key, "operator": operator}
    if values is not None:
        expression["values"] = values
    return {
        "labelSelector": {"matchExpressions": [expression]},
        "topologyKey": topology_key,
        **more,
    }


def spread(
    max_skew: int,
    topology_key: str,
    selector: dict[str, Any] | None,
    when: str = "DoNotSchedule",
    **more: Any,
) -> dict[str, Any]:
    """A topologySpreadConstraint (upstream st.SpreadConstraint)."""
    constraint: dict[str, Any] = {
        "maxSkew": max_skew,
        "topologyKey": topology_key,
        "whenUnsatisfiable": when,
        **more,
    }
    if selector is not None:
        constraint["labelSelector"] = selector
    return constraint


def exists(*keys: str) -> dict[str, Any]:
    """A label selector requiring each key (upstream MakeLabelSelector().Exists(...))."""
    return {"matchExpressions": [{"key": k, "operator": "Exists"} for k in keys]}
