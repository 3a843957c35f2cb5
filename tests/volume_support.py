"""Storage objects and pods with claims for the volume plugins' tests, and one plugin's
PreFilter and Filter run on one node as upstream's tables run them."""

from __future__ import annotations

from typing import Any

from gate.k8s.version import Dialect, dialect_for
from gate.model import NodeView, Snapshot, SnapshotInfo
from gate.model.storage import STORAGE_KINDS, StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Plugin, Rejection
from gate.snapshot.storage import storage_objects

DIALECT: Dialect = dialect_for("v1.34.1")
NAMESPACE = "default"


def claim(name: str, namespace: str = NAMESPACE, **spec: Any) -> dict[str, Any]:
    """A PersistentVolumeClaim; ``bound=True`` among ``spec`` adds the bind-completed note."""
    notes = {"pv.kubernetes.io/bind-completed": "yes"} if spec.pop("bound", False) else {}
    more = spec.pop("meta", {})
    status = spec.pop("status", None)
    obj: dict[str, Any] = {
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace, "annotations": notes, **more},
        "spec": spec,
    }
    return obj if status is None else {**obj, "status": status}


def volume(name: str, labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    status = spec.pop("status", None)
    obj: dict[str, Any] = {
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
    }
    return obj if status is None else {**obj, "status": status}


def storage_class(name: str, **fields: Any) -> dict[str, Any]:
    return {"kind": "StorageClass", "metadata": {"name": name}, **fields}


def storage(*objects: dict[str, Any]) -> StorageObjects:
    """The objects as a snapshot that listed every storage kind holds them."""
    by_kind: dict[str, list[Any]] = {kind: [] for kind in STORAGE_KINDS}
    for obj in objects:
        by_kind[obj["kind"]].append(obj)
    built = storage_objects(by_kind)
    assert built is not None
    return built


def with_claims(*names: str) -> dict[str, Any]:
    """A pod spec mounting these claims."""
    return {
        "containers": [{"name": "c", "image": "i"}],
        "volumes": [
            {"name": f"v{i}", "persistentVolumeClaim": {"claimName": name}}
            for i, name in enumerate(names)
        ],
    }


def cluster_of(objects: StorageObjects | None, *nodes: NodeView) -> Cluster:
    info = SnapshotInfo("test", None, None, None, None, len(nodes), 0)
    return Cluster.of(Snapshot(info=info, nodes=nodes, storage=objects))


def run_plugin(
    plugin: Plugin[Any],
    spec: dict[str, Any],
    objects: StorageObjects,
    node: NodeView,
    namespace: str = NAMESPACE,
) -> tuple[Rejection | None, Rejection | None]:
    """The plugin's PreFilter rejection and its Filter's answer for the node."""
    state = plugin.prepare(pod_profile(spec, namespace), cluster_of(objects, node))
    return plugin.refuses(state), plugin.check(state, node, DIALECT)


HOST = "kubernetes.io/hostname"
LOCAL_CLASS: dict[str, Any] = {
    "metadata": {"name": "local"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}
"""A class of local volumes, bound where their first consumer lands."""


def local_volume(
    name: str, node: str, size: str = "10Gi", access: str = "ReadWriteOnce"
) -> dict[str, Any]:
    """An Available local volume of the class ``local`` on ``node``."""
    term = {"matchExpressions": [{"key": HOST, "operator": "In", "values": [node]}]}
    return {
        "metadata": {"name": name},
        "spec": {
            "accessModes": [access],
            "capacity": {"storage": size},
            "local": {"path": f"/mnt/{name}"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
            "storageClassName": "local",
        },
        "status": {"phase": "Available"},
    }
