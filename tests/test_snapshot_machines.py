"""Cluster API MachineDeployments read as node groups (gate.snapshot.machines), as
cluster-autoscaler-1.34.5's cloudprovider/clusterapi reads them: both size annotations make
a group (clusterapi_utils.go), its id is ``<Kind>/<namespace>/<name>``
(clusterapi_unstructured.go ``ID``), and from zero its template comes from the
``capacity.cluster-autoscaler.kubernetes.io/*`` annotations (README.md "Scale from zero
support")."""

from __future__ import annotations

from typing import Any

import pytest

from gate.errors import SnapshotError
from gate.model import Taint
from gate.model.autoscaling import MachineDeployment, NodeTemplate
from gate.snapshot.machines import machine_deployment, parse_labels, parse_taints

GI = 2**30
MIN = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
MAX = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
CAPACITY = "capacity.cluster-autoscaler.kubernetes.io/"
WHERE = 'MachineDeployment "capi/workers"'


def _md(annotations: dict[str, Any], replicas: Any = 2, **meta: Any) -> dict[str, Any]:
    metadata = {"namespace": "capi", "name": "workers", "annotations": annotations, **meta}
    return {"metadata": metadata, "spec": {"replicas": replicas}}


SIZES = {MIN: "1", MAX: "5"}
GPU_AMOUNTS = {
    "cpu": 500,
    "memory": GI,
    "ephemeral-storage": 20 * GI,
    "pods": 30,
    "nvidia.com/gpu": 2,
}

GROUPS: list[tuple[str, dict[str, Any], MachineDeployment | None]] = [
    ("without both size annotations it is no node group", _md({MIN: "1"}), None),
    (
        "both sizes make a group, named by kind, namespace and name",
        _md(SIZES),
        MachineDeployment("MachineDeployment/capi/workers", 1, 5, 2),
    ),
    (
        "a namespace left out is default",
        {"metadata": {"name": "w", "annotations": SIZES}},
        MachineDeployment("MachineDeployment/default/w", 1, 5, 0),
    ),
    (
        "cpu alone is no template",
        _md(SIZES | {CAPACITY + "cpu": "4"}),
        MachineDeployment("MachineDeployment/capi/workers", 1, 5, 2),
    ),
    (
        "cpu and memory make a template, with 110 pods unless maxPods says otherwise",
        _md(SIZES | {CAPACITY + "cpu": "4", CAPACITY + "memory": "16Gi"}),
        MachineDeployment(
            "MachineDeployment/capi/workers",
            1,
            5,
            2,
            NodeTemplate(
                allocatable={"cpu": 4000, "memory": 16 * GI, "pods": 110},
                capacity={"cpu": 4000, "memory": 16 * GI, "pods": 110},
            ),
        ),
    ),
    (
        "disk, maxPods, gpus, labels and taints complete the template",
        _md(
            SIZES
            | {
                CAPACITY + "cpu": "500m",
                CAPACITY + "memory": "1Gi",
                CAPACITY + "ephemeral-disk": "20Gi",
                CAPACITY + "maxPods": "30",
                CAPACITY + "gpu-count": "2",
                CAPACITY + "labels": "pool=gpu, zone=a",
                CAPACITY + "taints": "gpu=yes:NoSchedule",
            }
        ),
        MachineDeployment(
            "MachineDeployment/capi/workers",
            1,
            5,
            2,
            NodeTemplate(
                labels={"pool": "gpu", "zone": "a"},
                taints=(Taint("gpu", "yes", "NoSchedule"),),
                allocatable=GPU_AMOUNTS,
                capacity=GPU_AMOUNTS,
            ),
        ),
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [c[1:] for c in GROUPS], ids=[c[0] for c in GROUPS])
def test_machine_deployment(obj: dict[str, Any], expected: MachineDeployment | None) -> None:
    assert machine_deployment(obj) == expected


BAD: list[tuple[str, dict[str, Any], str]] = [
    (
        "a size that is not an integer",
        {MIN: "one", MAX: "5"},
        f"metadata.annotations[{MIN}]: not an integer: 'one'",
    ),
    ("a negative size", {MIN: "0", MAX: "-1"}, f"metadata.annotations[{MAX}]: negative: '-1'"),
    (
        "a capacity that is no quantity",
        SIZES | {CAPACITY + "cpu": "four", CAPACITY + "memory": "1Gi"},
        f"metadata.annotations[{CAPACITY}*]: ",
    ),
    (
        "a taint without its effect",
        SIZES | {CAPACITY + "cpu": "1", CAPACITY + "memory": "1Gi", CAPACITY + "taints": "a=b"},
        "taint 'a=b': not key=value:Effect",
    ),
    (
        "a label without its value",
        SIZES | {CAPACITY + "cpu": "1", CAPACITY + "memory": "1Gi", CAPACITY + "labels": "pool"},
        "label 'pool': not key=value",
    ),
]


@pytest.mark.parametrize(("annotations", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_what_cannot_be_read_is_one_line_naming_the_object(
    annotations: dict[str, Any], message: str
) -> None:
    with pytest.raises(SnapshotError) as raised:
        machine_deployment(_md(annotations))
    assert str(raised.value).startswith(f"{WHERE}: {message}")


TAINTS: list[tuple[str, str, tuple[Taint, ...]]] = [
    ("nothing is no taint", "", ()),
    (
        "key=value:Effect and key:Effect, spaces and empty items ignored",
        "a=b:NoSchedule, ,c:NoExecute",
        (Taint("a", "b", "NoSchedule"), Taint("c", "", "NoExecute")),
    ),
    (
        "a value may hold a colon",
        "a=b:c:PreferNoSchedule",
        (Taint("a", "b:c", "PreferNoSchedule"),),
    ),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in TAINTS], ids=[c[0] for c in TAINTS])
def test_parse_taints(text: str, expected: tuple[Taint, ...]) -> None:
    assert parse_taints(text, WHERE) == expected


def test_an_unknown_effect_is_refused() -> None:
    with pytest.raises(SnapshotError, match=r"taint 'a=b:Sometimes': not key=value:Effect$"):
        parse_taints("a=b:Sometimes", WHERE)


def test_parse_labels_keeps_an_empty_value_and_the_first_equals_sign() -> None:
    assert parse_labels("a=,b=c=d", WHERE) == {"a": "", "b": "c=d"}
    with pytest.raises(SnapshotError, match=r"label '=x': not key=value$"):
        parse_labels("=x", WHERE)


def test_replicas_that_are_not_an_integer_are_refused_naming_the_field() -> None:
    """The API server holds replicas as an int32: a recording with ``true`` is not one."""
    with pytest.raises(SnapshotError) as raised:
        machine_deployment(_md(SIZES, replicas=True))
    assert str(raised.value) == f"{WHERE}: spec.replicas: not an integer: True"
