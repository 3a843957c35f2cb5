"""The storage objects of a benchmark cluster: each StatefulSet pod mounts its own claim
(``data-<statefulset>-<ordinal>``, as the controller names it), bound to a zonal Azure Disk
in its node's zone; every node has a CSINode with the disk driver's attach limit, and the
cluster the AKS default StorageClass. With about one pod in ten a StatefulSet's, the
large case holds 15,600 claims and as many volumes."""

from __future__ import annotations

from typing import Any

from benchmarks.catalog import REGION, App

DRIVER = "disk.csi.azure.com"
CLASS = "managed-csi"
ATTACH_LIMIT = 16  # a Standard_D4s_v5's data disks
ZONE = "topology.kubernetes.io/zone"


def claim_name(app: App, ordinal: int) -> str:
    return f"data-{app.name}-{ordinal}"


def mount_claim(spec: dict[str, Any], app: App, ordinal: int) -> None:
    """The pod's ``data`` volume, first, as the StatefulSet controller writes it."""
    claim = {"claimName": claim_name(app, ordinal)}
    spec["volumes"] = [{"name": "data", "persistentVolumeClaim": claim}, *spec["volumes"]]


def claim_and_volume(app: App, ordinal: int, zone: str, serial: int) -> list[dict[str, Any]]:
    """The pod's bound claim and its Azure Disk, pinned to ``zone``."""
    claim = claim_name(app, ordinal)
    volume = f"pvc-{serial:08x}-0000-4000-8000-{app.template_hash}0000"
    disk = (
        f"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/mc_platform"
        f"/providers/Microsoft.Compute/disks/{volume}"
    )
    affinity = {"key": ZONE, "operator": "In", "values": [zone]}
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "annotations": {
                    "pv.kubernetes.io/bind-completed": "yes",
                    "pv.kubernetes.io/bound-by-controller": "yes",
                    "volume.kubernetes.io/storage-provisioner": DRIVER,
                },
                "labels": app.labels(),
                "name": claim,
                "namespace": app.namespace,
            },
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "20Gi"}},
                "storageClassName": CLASS,
                "volumeMode": "Filesystem",
                "volumeName": volume,
            },
            "status": {"accessModes": ["ReadWriteOnce"], "phase": "Bound"},
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": volume},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "capacity": {"storage": "20Gi"},
                "claimRef": {"name": claim, "namespace": app.namespace},
                "csi": {"driver": DRIVER, "volumeHandle": disk},
                "nodeAffinity": {
                    "required": {"nodeSelectorTerms": [{"matchExpressions": [affinity]}]}
                },
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": CLASS,
                "volumeMode": "Filesystem",
            },
            "status": {"phase": "Bound"},
        },
    ]


def csi_node(name: str) -> dict[str, Any]:
    driver = {"allocatable": {"count": ATTACH_LIMIT}, "name": DRIVER, "nodeID": name}
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": name},
        "spec": {"drivers": [driver]},
    }


def storage_class() -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
            "name": CLASS,
        },
        "provisioner": DRIVER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowVolumeExpansion": True,
        "parameters": {"skuname": "StandardSSD_LRS"},
    }


def zone_of(index: int, zones: tuple[str, ...]) -> str:
    return f"{REGION}-{zones[index % len(zones)]}"
