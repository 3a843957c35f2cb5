"""Nodes and pods shaped as the API server returns them: everything a recording must drop
(env, annotations, images, managedFields, volumes, probes) next to what it must keep.

``secret`` is planted in every place a recording must never copy, so a test can assert it
appears nowhere in the file. A pod is about 5 KB of JSON, a node about 4 KB.
"""

from __future__ import annotations

from typing import Any

STAMP = "2026-08-16T09:12:44Z"


def _managed_fields(manager: str, secret: str) -> list[dict[str, Any]]:
    fields = {
        "f:metadata": {"f:annotations": {f"f:note-{secret}": {}}, "f:labels": {".": {}}},
        "f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:env": {".": {}}}}},
        "f:status": {"f:conditions": {'k:{"type":"Ready"}': {".": {}, "f:status": {}}}},
    }
    return [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": fields,
            "manager": manager,
            "operation": "Update",
            "time": STAMP,
        }
    ]


def realistic_node(index: int, secret: str = "none", *, system: bool = False) -> dict[str, Any]:
    name = f"aks-{'system' if system else 'user'}-{index:06d}"
    node: dict[str, Any] = {
        "metadata": {
            "name": name,
            "uid": f"0000-{index:08d}",
            "resourceVersion": str(1000 + index),
            "creationTimestamp": STAMP,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "Standard_D8s_v5",
                "topology.kubernetes.io/zone": f"westeurope-{index % 3 + 1}",
                "agentpool": "system" if system else "user",
            },
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                "example.com/bootstrap-token": secret,
            },
            "managedFields": _managed_fields("kubelet", secret),
        },
        "spec": {
            "podCIDR": f"10.244.{index % 250}.0/24",
            "providerID": f"azure:///subscriptions/{secret}/virtualMachines/{index}",
        },
        "status": {
            "allocatable": {"cpu": "7820m", "memory": "28892272Ki", "pods": "110"},
            "capacity": {"cpu": "8", "memory": "32864896Ki", "pods": "110"},
            "addresses": [{"address": name, "type": "Hostname"}],
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok"}
            ],
            "images": [
                {"names": [f"registry.example.com/{secret}/agent@sha256:{i:064d}"], "sizeBytes": i}
                for i in range(12)
            ],
            "nodeInfo": {"kubeletVersion": "v1.33.4", "osImage": "Ubuntu 22.04.5 LTS"},
        },
    }
    if system:
        taint = {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}
        node["spec"]["taints"] = [{**taint, "timeAdded": STAMP}]
    return node


def _container(name: str, secret: str, cpu: str, memory: str) -> dict[str, Any]:
    probe = {
        "httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
        "periodSeconds": 10,
        "timeoutSeconds": 1,
        "failureThreshold": 3,
        "successThreshold": 1,
    }
    return {
        "name": name,
        "image": f"registry.example.com/team/{name}:{secret}",
        "command": ["/bin/server", f"--api-key={secret}"],
        "env": [{"name": f"VAR_{i}", "value": f"value-{i}-{secret}"} for i in range(8)]
        + [{"name": "DB_PASSWORD", "value": secret}],
        "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
        "resources": {
            "requests": {"cpu": cpu, "memory": memory},
            "limits": {"memory": memory},
        },
        "livenessProbe": probe,
        "readinessProbe": probe,
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/app"},
            {"name": "kube-api-access", "mountPath": "/var/run/secrets", "readOnly": True},
        ],
        "terminationMessagePath": "/dev/termination-log",
        "imagePullPolicy": "IfNotPresent",
    }


def _affinity(secret: str) -> dict[str, Any]:
    """A required hostname anti-affinity and preferred terms (kept), beside a node affinity
    (never read of a pod already on a node, so dropped) that holds the secret."""
    web = {"matchLabels": {"app": "web"}}
    zone = "topology.kubernetes.io/zone"
    near = {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": zone}
    apart = {"labelSelector": web, "topologyKey": zone}
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    return {
        "nodeAffinity": {
            required: {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": secret, "operator": "DoesNotExist"}]}
                ]
            }
        },
        "podAffinity": {preferred: [{"weight": 10, "podAffinityTerm": near}]},
        "podAntiAffinity": {
            required: [
                {
                    "labelSelector": {
                        **web,
                        "matchExpressions": [
                            {"key": "tier", "operator": "NotIn", "values": ["batch"]}
                        ],
                    },
                    "topologyKey": "kubernetes.io/hostname",
                    "matchLabelKeys": ["pod-template-hash"],
                }
            ],
            preferred: [{"weight": 50, "podAffinityTerm": apart}],
        },
    }


def realistic_namespace(name: str, secret: str = "none") -> dict[str, Any]:
    return {
        "metadata": {
            "name": name,
            "uid": f"ns-{secret}",
            "resourceVersion": "77",
            "creationTimestamp": STAMP,
            "labels": {"kubernetes.io/metadata.name": name, "team": "payments"},
            "annotations": {"example.com/owner-token": secret},
            "managedFields": _managed_fields("kubectl", secret),
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def realistic_pod(
    index: int, node: str | None, secret: str = "none", *, phase: str = "Running"
) -> dict[str, Any]:
    name = f"web-{index:07d}"
    spec: dict[str, Any] = {
        "containers": [
            _container("app", secret, "250m", "256Mi"),
            _container("metrics", secret, "10m", "32Mi"),
        ],
        "initContainers": [
            {
                "name": "mesh-proxy",
                "image": f"registry.example.com/mesh:{secret}",
                "restartPolicy": "Always",
                "env": [{"name": "MESH_TOKEN", "value": secret}],
                "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
            }
        ],
        "volumes": [
            {"name": "config", "configMap": {"name": f"web-config-{secret}"}},
            {"name": "creds", "secret": {"secretName": f"web-{secret}"}},
        ],
        "serviceAccountName": "web",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}
        ],
        "schedulerName": "default-scheduler",
        "dnsPolicy": "ClusterFirst",
        "affinity": _affinity(secret),
    }
    if node is not None:
        spec["nodeName"] = node
    return {
        "metadata": {
            "name": name,
            "namespace": f"team-{index % 40:02d}",
            "uid": f"uid-{index:012d}",
            "resourceVersion": str(5000 + index),
            "creationTimestamp": STAMP,
            "generateName": "web-",
            "labels": {"app": "web", "pod-template-hash": "6d4cf56db6", "team": "payments"},
            "annotations": {
                "kubectl.kubernetes.io/restartedAt": STAMP,
                "vault.example.com/secret": secret,
            },
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web-6d4cf56db6",
                    "uid": f"rs-{secret}",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": _managed_fields("kube-controller-manager", secret),
        },
        "spec": spec,
        "status": {
            "phase": phase,
            "podIP": f"10.244.{index % 250}.{index % 200 + 2}",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": STAMP}],
            "containerStatuses": [
                {
                    "name": "app",
                    "image": f"registry.example.com/team/app:{secret}",
                    "imageID": f"sha256:{secret}",
                    "ready": True,
                    "restartCount": 0,
                    "state": {"running": {"startedAt": STAMP}},
                }
            ],
        },
    }
