"""Cluster API MachineDeployments -> :class:`~gate.model.autoscaling.MachineDeployment`.

Upstream cloudprovider/clusterapi (cluster-autoscaler-1.34.5): a MachineDeployment is a
node group when it carries both size annotations (clusterapi_utils.go
``nodeGroupMinSizeAnnotationKey`` / ``...MaxSize...``); its id is
``<Kind>/<namespace>/<name>`` (clusterapi_unstructured.go ``ID``); from zero, its template
comes from the ``capacity.cluster-autoscaler.kubernetes.io/*`` annotations (README.md
"Scale from zero support": ``labels: "k1=v1,k2=v2"``, ``taints: "k=v:NoSchedule,..."``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.errors import QuantityError, SnapshotError
from gate.k8s.matching import TAINT_EFFECTS
from gate.k8s.quantity import scheduler_amount
from gate.model import Taint
from gate.model.autoscaling import MachineDeployment, NodeTemplate

MIN_SIZE = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
MAX_SIZE = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
CAPACITY = "capacity.cluster-autoscaler.kubernetes.io/"
_RESOURCES = {"cpu": "cpu", "memory": "memory", "ephemeral-disk": "ephemeral-storage"}


def _size(annotations: Mapping[str, Any], key: str, where: str) -> int:
    value = annotations.get(key)
    try:
        size = int(str(value))
    except ValueError:
        raise SnapshotError(
            f"{where}: metadata.annotations[{key}]: not an integer: {value!r}"
        ) from None
    if size < 0:
        raise SnapshotError(f"{where}: metadata.annotations[{key}]: negative: {value!r}")
    return size


def parse_taints(text: str, where: str) -> tuple[Taint, ...]:
    """``k1=v1:NoSchedule,k2:NoExecute`` as the clusterapi provider reads it."""
    taints = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        pair, colon, effect = item.rpartition(":")
        if not colon or effect not in TAINT_EFFECTS:
            raise SnapshotError(f"{where}: taint {item!r}: not key=value:Effect")
        key, _, value = pair.partition("=")
        taints.append(Taint(key=key, value=value, effect=effect))
    return tuple(taints)


def parse_labels(text: str, where: str) -> dict[str, str]:
    """``k1=v1,k2=v2``."""
    labels = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise SnapshotError(f"{where}: label {item!r}: not key=value")
        labels[key] = value
    return labels


def _template(annotations: Mapping[str, Any], where: str) -> NodeTemplate | None:
    if CAPACITY + "cpu" not in annotations or CAPACITY + "memory" not in annotations:
        return None
    amounts: dict[str, int] = {}
    try:
        for name, resource in _RESOURCES.items():
            if CAPACITY + name in annotations:
                amounts[resource] = scheduler_amount(resource, annotations[CAPACITY + name])
        amounts["pods"] = int(str(annotations.get(CAPACITY + "maxPods", "110")))
        gpus = annotations.get(CAPACITY + "gpu-count")
        if gpus is not None:
            amounts["nvidia.com/gpu"] = int(str(gpus))
    except (QuantityError, ValueError) as exc:
        raise SnapshotError(f"{where}: metadata.annotations[{CAPACITY}*]: {exc}") from None
    return NodeTemplate(
        labels=parse_labels(str(annotations.get(CAPACITY + "labels", "")), where),
        taints=parse_taints(str(annotations.get(CAPACITY + "taints", "")), where),
        allocatable=amounts,
        capacity=amounts,
    )


def machine_deployment(obj: Mapping[str, Any]) -> MachineDeployment | None:
    """The node group a MachineDeployment is, or None when it is not autoscaled."""
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    annotations = meta.get("annotations")
    annotations = annotations if isinstance(annotations, Mapping) else {}
    if MIN_SIZE not in annotations or MAX_SIZE not in annotations:
        return None
    namespace, name = str(meta.get("namespace") or "default"), str(meta.get("name") or "")
    where = f'MachineDeployment "{namespace}/{name}"'
    spec = obj.get("spec")
    replicas = spec.get("replicas") if isinstance(spec, Mapping) else None
    return MachineDeployment(
        group=f"MachineDeployment/{namespace}/{name}",
        min_size=_size(annotations, MIN_SIZE, where),
        max_size=_size(annotations, MAX_SIZE, where),
        replicas=0 if replicas is None else _replicas(replicas, where),
        template=_template(annotations, where),
    )


def _replicas(value: object, where: str) -> int:
    """``spec.replicas`` as the CRD holds it: an int32 from 0 (cluster.x-k8s.io/v1beta1
    MachineDeploymentSpec ``Replicas *int32``; a string or a negative count never gets
    past the API server)."""
    if isinstance(value, bool) or not isinstance(value, int):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
        raise SnapshotError(f"{where}: spec.replicas: not an integer: {shown}")
    if not 0 <= value <= 2**31 - 1:
        raise SnapshotError(f"{where}: spec.replicas: {value} is not from 0 to 2147483647")
    return value
