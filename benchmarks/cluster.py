"""Nodes and pods as the API server returns them (``kubectl get nodes,pods -A -o json``).

A node carries what real ones carry: ~20 labels, annotations, taints for its pool, five
conditions, addresses, node info and a list of cached images (the bulk of its ~11 KB). A
pod carries metadata with owner references, containers with env, ports, probes, mounts
and resources, the projected service-account volume, tolerations, and a status with
conditions and container statuses (4-8 KB). DaemonSet pods are pinned by ``matchFields``.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterator
from typing import Any

from benchmarks import storage
from benchmarks.catalog import (
    DAEMONSETS,
    NAMESPACES,
    POOLS,
    REGION,
    SYSTEM_NAMESPACES,
    ZONES,
    App,
    Pool,
    env_list,
    namespace_labels,
    probe,
)

STAMP = "2026-08-16T09:12:44Z"


def node_pools(count: int) -> list[Pool]:
    """Each node's pool, in a fixed interleaving so every size has every pool."""
    pools: list[Pool] = []
    for pool in POOLS:
        pools += [pool] * max(1, round(pool.share * count))
    pools = pools[:count] + [POOLS[1]] * max(0, count - len(pools))
    random.Random(7).shuffle(pools)
    return pools


def node_name(pool: Pool, index: int) -> str:
    return f"aks-{pool.name}-{index // 1000:02d}{index:06d}-vmss{index:06x}"


def _labels(pool: Pool, name: str, index: int) -> dict[str, str]:
    zone = ZONES[index % len(ZONES)]
    labels = {
        "agentpool": pool.name,
        "beta.kubernetes.io/arch": pool.arch,
        "beta.kubernetes.io/instance-type": pool.vm_size,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": REGION,
        "failure-domain.beta.kubernetes.io/zone": f"{REGION}-{zone}",
        "kubernetes.azure.com/agentpool": pool.name,
        "kubernetes.azure.com/cluster": "MC_platform_prod_westeurope",
        "kubernetes.azure.com/mode": pool.mode,
        "kubernetes.azure.com/node-image-version": "AKSUbuntu-2204gen2containerd-202608.05.0",
        "kubernetes.azure.com/os-sku": "Ubuntu",
        "kubernetes.azure.com/role": "agent",
        "kubernetes.io/arch": pool.arch,
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": pool.vm_size,
        "storageprofile": "managed",
        "storagetier": "Premium_LRS",
        "topology.disk.csi.azure.com/zone": f"{REGION}-{zone}",
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": f"{REGION}-{zone}",
    }
    if pool.name == "spot":
        labels["kubernetes.azure.com/scalesetpriority"] = "spot"
    if pool.gpus:
        labels["accelerator"] = "nvidia"
    return labels


def _resources(pool: Pool) -> tuple[dict[str, str], dict[str, str]]:
    allocatable = {
        "cpu": f"{pool.cpu_millis}m",
        "ephemeral-storage": "119703055367",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{pool.memory_kib}Ki",
        "pods": "110",
    }
    capacity = dict(allocatable, cpu=str(-(-pool.cpu_millis // 1000)), pods="110")
    capacity["memory"] = f"{pool.memory_kib + 4_000_000}Ki"
    capacity["ephemeral-storage"] = "129886128Ki"
    if pool.gpus:
        allocatable["nvidia.com/gpu"] = capacity["nvidia.com/gpu"] = str(pool.gpus)
    return allocatable, capacity


def _conditions(ready: bool) -> list[dict[str, str]]:
    rows = [
        (
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        (
            "Ready",
            "True" if ready else "Unknown",
            "KubeletReady" if ready else "NodeStatusUnknown",
            "kubelet is posting ready status" if ready else "Kubelet stopped posting node status.",
        ),
    ]
    return [
        {
            "lastHeartbeatTime": STAMP,
            "lastTransitionTime": STAMP,
            "message": message,
            "reason": reason,
            "status": status,
            "type": kind,
        }
        for kind, status, reason, message in rows
    ]


def _images(rng: random.Random, count: int) -> list[dict[str, Any]]:
    images = []
    for i in range(count):
        repo = f"registry.example.com/team-{rng.randrange(40)}/service-{i}"
        digest = f"{rng.getrandbits(128):032x}{rng.getrandbits(128):032x}"
        images.append(
            {
                "names": [f"{repo}@sha256:{digest}", f"{repo}:v{rng.randrange(9)}.{i}.0"],
                "sizeBytes": rng.randrange(10_000_000, 900_000_000),
            }
        )
    return images


def node(rng: random.Random, pool: Pool, index: int) -> dict[str, Any]:
    name = node_name(pool, index)
    taints = [{"effect": e, "key": k, "value": v} for k, v, e in pool.taints]
    spec: dict[str, Any] = {
        "podCIDR": f"10.{index // 250 % 250}.{index % 250}.0/24",
        "podCIDRs": [f"10.{index // 250 % 250}.{index % 250}.0/24"],
        "providerID": f"azure:///subscriptions/0000/resourceGroups/mc/providers/vmss/{name}",
    }
    ready = index % 211 != 5
    if index % 97 == 3:  # cordoned for maintenance
        spec["unschedulable"] = True
        taints.append(
            {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "timeAdded": STAMP}
        )
    if not ready:
        taints.append(
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "timeAdded": STAMP}
        )
    if taints:
        spec["taints"] = taints
    allocatable, capacity = _resources(pool)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "csi.volume.kubernetes.io/nodeid": f'{{"disk.csi.azure.com":"{name}"}}',
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": STAMP,
            "labels": _labels(pool, name, index),
            "name": name,
            "resourceVersion": str(1_000_000 + index),
            "uid": f"{rng.getrandbits(128):032x}",
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": name, "type": "Hostname"},
                {"address": f"10.224.{index // 250}.{index % 250}", "type": "InternalIP"},
            ],
            "allocatable": allocatable,
            "capacity": capacity,
            "conditions": _conditions(ready),
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": _images(rng, 36),
            "nodeInfo": {
                "architecture": pool.arch,
                "bootID": f"{rng.getrandbits(128):032x}",
                "containerRuntimeVersion": "containerd://1.7.27-1",
                "kernelVersion": "5.15.0-1089-azure",
                "kubeProxyVersion": "",
                "kubeletVersion": "v1.33.4",
                "machineID": f"{rng.getrandbits(128):032x}",
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.5 LTS",
                "systemUUID": f"{rng.getrandbits(128):032x}",
            },
        },
    }


def _container(rng: random.Random, app: App, index: int, pod_name: str) -> dict[str, Any]:
    port = 8080 + index
    container: dict[str, Any] = {
        "env": env_list(rng, app, rng.randrange(3, 10)),
        "image": app.image,
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": probe(port, "/healthz"),
        "name": app.name if index == 0 else f"{app.name}-helper-{index}",
        "ports": [{"containerPort": port, "name": "http", "protocol": "TCP"}],
        "readinessProbe": probe(port, "/ready"),
        "resources": {},
        "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                "name": f"kube-api-access-{pod_name[-5:]}",
                "readOnly": True,
            },
            {"mountPath": "/etc/config", "name": "config"},
        ],
    }
    if index == 0 and app.host_port:
        container["ports"][0].update(containerPort=app.host_port, hostPort=app.host_port)
    requests = app.requests() if index == 0 else {"cpu": "10m", "memory": "32Mi"}
    if requests:
        limits = {"memory": requests["memory"]} if "memory" in requests else {}
        container["resources"] = {"limits": limits, "requests": requests}
    return container


def _owner(app: App) -> dict[str, Any]:
    """The pod's controller: a Deployment's pods belong to its current ReplicaSet."""
    kind = {"Deployment": "ReplicaSet", "CronJob": "Job"}.get(app.kind, app.kind)
    api = "batch/v1" if kind == "Job" else "apps/v1"
    name = f"{app.name}-{app.template_hash}" if kind in ("ReplicaSet", "Job") else app.name
    return {
        "apiVersion": api,
        "blockOwnerDeletion": True,
        "controller": True,
        "kind": kind,
        "name": name,
        "uid": f"{app.template_hash}-0000-4000-8000-{app.template_hash}00",
    }


def _pod_labels(app: App) -> dict[str, str]:
    labels = app.labels()
    if app.kind == "Deployment":
        labels["pod-template-hash"] = app.template_hash
    elif app.kind in ("DaemonSet", "StatefulSet"):
        labels["controller-revision-hash"] = app.template_hash
    return labels


def namespaces() -> Iterator[dict[str, Any]]:
    """Every namespace of the cluster, as the API returns it."""
    for serial, name in enumerate((*SYSTEM_NAMESPACES, *NAMESPACES)):
        yield {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "creationTimestamp": STAMP,
                "labels": namespace_labels(name),
                "name": name,
                "resourceVersion": str(900 + serial),
                "uid": f"{zlib.crc32(name.encode()):08x}-0000-4000-8000-000000000000",
            },
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"},
        }


def _pinning(node: str) -> dict[str, Any]:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
        }
    }


def _tolerations(daemon: bool) -> list[dict[str, Any]]:
    keys = ("not-ready", "unreachable") + (
        ("disk-pressure", "memory-pressure", "pid-pressure", "unschedulable") if daemon else ()
    )
    return [
        {
            "effect": "NoExecute" if k in ("not-ready", "unreachable") else "NoSchedule",
            "key": f"node.kubernetes.io/{k}",
            "operator": "Exists",
            **({} if daemon else {"tolerationSeconds": 300}),
        }
        for k in keys
    ]


def pod(
    rng: random.Random, app: App, node: str | None, serial: int, ordinal: int | None = None
) -> dict[str, Any]:
    """A pod of ``app``; a StatefulSet's is its copy ``ordinal``, mounting its claim."""
    name = f"{app.name}-{serial:05x}-{rng.getrandbits(20):05x}"
    if ordinal is not None:
        name = f"{app.name}-{ordinal}"
    daemon = app.kind == "DaemonSet"
    containers = [_container(rng, app, i, name) for i in range(app.containers)]
    spec: dict[str, Any] = {
        "containers": containers,
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 2000001000 if daemon else 0,
        "restartPolicy": "OnFailure" if app.kind in ("Job", "CronJob") else "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {"fsGroup": 2000, "runAsNonRoot": True},
        "serviceAccountName": app.name,
        "terminationGracePeriodSeconds": 30,
        "tolerations": _tolerations(daemon),
        "volumes": [
            {"configMap": {"defaultMode": 420, "name": f"{app.name}-config"}, "name": "config"},
            {
                "name": f"kube-api-access-{name[-5:]}",
                "projected": {
                    "defaultMode": 420,
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                        {
                            "configMap": {
                                "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                "name": "kube-root-ca.crt",
                            }
                        },
                    ],
                },
            },
        ],
    }
    if ordinal is not None:
        storage.mount_claim(spec, app, ordinal)
    if node is not None:
        spec["nodeName"] = node
    if daemon and node is not None:
        spec["affinity"] = _pinning(node)
    if app.affinity():
        spec["affinity"] = app.affinity()
    if app.spread_constraints():
        spec["topologySpreadConstraints"] = app.spread_constraints()
    if app.sidecar:
        sidecar = _container(rng, app, 9, name)
        sidecar.update(name="mesh-proxy", restartPolicy="Always")
        spec["initContainers"] = [sidecar]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": STAMP,
            "generateName": f"{app.name}-",
            "labels": _pod_labels(app),
            "name": name,
            "namespace": app.namespace,
            "ownerReferences": [_owner(app)],
            "resourceVersion": str(5_000_000 + serial),
            "uid": f"{rng.getrandbits(128):032x}",
        },
        "spec": spec,
        "status": _pod_status(rng, app, containers, node, serial),
    }


def _pod_status(
    rng: random.Random, app: App, containers: list[dict[str, Any]], node: str | None, serial: int
) -> dict[str, Any]:
    phase = "Pending" if node is None else "Running"
    if app.kind in ("Job", "CronJob") and serial % 3 == 0:
        phase = "Succeeded"
    elif serial % 151 == 7:
        phase = "Failed"
    return {
        "conditions": [
            {"lastProbeTime": None, "lastTransitionTime": STAMP, "status": "True", "type": t}
            for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
        ],
        "containerStatuses": [
            {
                "containerID": f"containerd://{rng.getrandbits(128):032x}",
                "image": c["image"],
                "imageID": f"{c['image']}@sha256:{rng.getrandbits(128):032x}",
                "lastState": {},
                "name": c["name"],
                "ready": True,
                "restartCount": serial % 4,
                "started": True,
                "state": {"running": {"startedAt": STAMP}},
            }
            for c in containers
        ],
        "hostIP": f"10.224.{serial % 250}.{serial % 199}",
        "phase": phase,
        "podIP": f"10.{serial // 65536 % 250}.{serial // 256 % 256}.{serial % 256}",
        "qosClass": "Burstable",
        "startTime": STAMP,
    }


def pods(
    rng: random.Random,
    apps: list[App],
    nodes: list[str],
    total: int,
    volumes: list[dict[str, Any]] | None = None,
) -> Iterator[dict[str, Any]]:
    """``total`` pods: one of each DaemonSet per node, the rest spread over the apps and
    the nodes; a few are unbound (Pending) or bound to a node that no longer exists. A
    StatefulSet's pods are its ordinals, each with its claim and volume added to
    ``volumes`` (:mod:`benchmarks.storage`)."""
    serial = 0
    ordinals: dict[str, int] = {}
    position = {name: i for i, name in enumerate(nodes)}
    for node_name_ in nodes:
        for daemon in DAEMONSETS:
            if serial < total:
                yield pod(rng, daemon, node_name_, serial)
                serial += 1
    while serial < total:
        app = apps[serial % len(apps)]
        target: str | None = nodes[rng.randrange(len(nodes))]
        if serial % 211 == 13:
            target = None
        elif serial % 307 == 11:
            target = "aks-general-deleted-vmss0000ff"
        ordinal = None
        if app.kind == "StatefulSet":
            ordinal = ordinals[app.name] = ordinals.get(app.name, -1) + 1
            if volumes is not None:
                where = position.get(target or "", ordinal)
                zone = storage.zone_of(where, ZONES)
                volumes += storage.claim_and_volume(app, ordinal, zone, serial)
        yield pod(rng, app, target, serial, ordinal)
        serial += 1
