"""Karpenter's volume topology (volumetopology.go, v1.8): a copy whose claim is bound to a
zonal volume is launched only in that zone, and an unbound WaitForFirstConsumer claim only
where its class's first allowed topology term allows."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model.karpenter import NodePool, Requirement
from gate.scheduler.autoscaling.karpenter.volumetopology import volume_requirements
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import prepare
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot
from tests.karpenter_support import ZONE, Run, karpenter_node, spec

BOUND = {"pv.kubernetes.io/bind-completed": "yes"}


def _storage(zone: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
    topology = [{"matchLabelExpressions": [{"key": ZONE, "values": [zone]}]}]
    return {
        "persistentVolumes": [
            {
                "metadata": {"name": "pv"},
                "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}},
            }
        ],
        "persistentVolumeClaims": [
            {
                "metadata": {"name": "bound", "namespace": "default", "annotations": BOUND},
                "spec": {"volumeName": "pv"},
            },
            {
                "metadata": {"name": "waiting", "namespace": "default"},
                "spec": {"storageClassName": "late"},
            },
        ],
        "storageClasses": [
            {
                "metadata": {"name": "late"},
                "provisioner": "ebs.csi.aws.com",
                "volumeBindingMode": "WaitForFirstConsumer",
                "allowedTopologies": topology,
            }
        ],
    }


POOL_A = NodePool("a", requirements=(Requirement(ZONE, "In", ("zone-a",)),))
CASES = [
    pytest.param("bound", "zone-a", 2, id="a volume in the pool's zone: launched there"),
    pytest.param("bound", "zone-b", 0, id="a volume in another zone: the pool cannot launch it"),
    pytest.param("waiting", "zone-a", 2, id="a class allowing the pool's zone: launched there"),
    pytest.param("waiting", "zone-b", 0, id="a class allowing only another zone: not launched"),
]


@pytest.mark.parametrize(("claim", "zone", "placed"), CASES)
def test_a_volume_pins_the_node_claims(claim: str, zone: str, placed: int) -> None:
    run = Run((POOL_A,), storage=_storage(zone))
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
    assert run.decide(spec(volumes=[volume]), 2).placed == placed


HOST = "kubernetes.io/hostname"


def _expression(key: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


def _volume(source: dict[str, Any], *terms: list[dict[str, Any]]) -> dict[str, Any]:
    """A volume of ``source`` (its kind and fields) whose node affinity has ``terms``."""
    spec: dict[str, Any] = dict(source)
    if terms:
        selector = [{"matchExpressions": t} for t in terms]
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": selector}}
    return {"metadata": {"name": "pv"}, "spec": spec}


def _class(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {
        "metadata": {"name": "late"},
        "provisioner": "ebs.csi.aws.com",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    if terms:
        found["allowedTopologies"] = [
            {"matchLabelExpressions": [{"key": e["key"], "values": e["values"]} for e in t]}
            for t in terms
        ]
    return found


CSI = {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}
LOCAL = {"local": {"path": "/mnt/disk"}}
HOST_PATH = {"hostPath": {"path": "/data"}}

# volumetopology.go at v1.8.3 (tag v1.8.3 of sigs.k8s.io/karpenter): getRequirements reads a
# claim naming a volume by the volume's first node selector term (its matchExpressions; a
# local or hostPath volume's hostname requirement left out), an unbound claim by its class's
# first allowedTopologies term, each key In its values
REQUIREMENT_CASES = [
    pytest.param(
        "bound",
        _volume(CSI, [_expression(ZONE, "zone-a")], [_expression(ZONE, "zone-b")]),
        _class(),
        ["topology.kubernetes.io/zone In [zone-a]"],
        id="a bound volume's first node selector term alone is read",
    ),
    pytest.param(
        "bound",
        _volume(LOCAL, [_expression(HOST, "node-1"), _expression(ZONE, "zone-a")]),
        _class(),
        ["topology.kubernetes.io/zone In [zone-a]"],
        id="a local volume's hostname is left out and its zone kept",
    ),
    pytest.param(
        "bound",
        _volume(HOST_PATH, [_expression(HOST, "node-1")]),
        _class(),
        [],
        id="a hostPath volume pinned by hostname alone adds nothing",
    ),
    pytest.param(
        "bound",
        _volume(CSI, [_expression(HOST, "node-1")]),
        _class(),
        ["kubernetes.io/hostname In [node-1]"],
        id="a hostname is kept for a volume neither local nor hostPath",
    ),
    pytest.param(
        "bound",
        _volume(CSI),
        _class(),
        [],
        id="a bound volume without node affinity adds nothing",
    ),
    pytest.param(
        "waiting",
        _volume(CSI),
        _class([_expression(ZONE, "zone-b", "zone-c")], [_expression(ZONE, "zone-a")]),
        ["topology.kubernetes.io/zone In [zone-b zone-c]"],
        id="an unbound claim reads its class's first allowed topology term as In",
    ),
    pytest.param(
        "waiting",
        _volume(CSI),
        _class(),
        [],
        id="an unbound claim of a class allowing every topology adds nothing",
    ),
]


@pytest.mark.parametrize(("claim", "volume", "storage_class", "expected"), REQUIREMENT_CASES)
def test_the_requirements_a_volume_adds(
    claim: str, volume: dict[str, Any], storage_class: dict[str, Any], expected: list[str]
) -> None:
    storage = {
        **_storage("zone-a"),
        "persistentVolumes": [volume],
        "storageClasses": [storage_class],
    }
    snapshot = build_snapshot(cluster_snapshot([api_node("n")], **storage), "s.json")
    mounted = {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
    profile = pod_profile({"containers": [{"name": "c"}], "volumes": [mounted]})
    cycle = prepare(profile, Cluster.of(snapshot))
    assert [str(r) for r in volume_requirements(cycle)] == expected


def _filler(name: str, node: str) -> dict[str, Any]:
    return api_pod(
        name, node, containers=[{"name": "c", "resources": {"requests": {"cpu": "3800m"}}}]
    )


SPREAD = {
    "maxSkew": 1,
    "topologyKey": ZONE,
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "db"}},
}


# v1.8.3 Inject adds the volume's requirements to the pod's node affinity, so topologygroup.go
# domainMinCount takes the minimum over the volume's zones alone (podDomains): zone-a, with one
# matching pod, takes a second though the empty zone-b would make the skew 2 for
# kube-scheduler. v1.9 (#2780) keeps the volume's requirements out of podDomains: none then.
def test_a_volume_zone_narrows_the_spreads_minimum_in_v1_8() -> None:
    running = api_pod("old", "n-a")
    running["metadata"]["labels"] = {"app": "db"}
    nodes = [karpenter_node("n-a", "p", "zone-a"), karpenter_node("n-b", "p", "zone-b")]
    pods = [running, _filler("fill-a", "n-a"), _filler("fill-b", "n-b")]
    pool = NodePool("p", requirements=(Requirement(ZONE, "In", ("zone-a", "zone-b")),))
    run = Run((pool,), nodes=nodes, pods=pods, storage=_storage("zone-a"))
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": "bound"}}
    pod = spec(volumes=[volume], topologySpreadConstraints=[SPREAD])
    assert run.decide(pod, 1, labels={"app": "db"}).placed == 1


def _claims_to_validate() -> dict[str, Any]:
    """Claims ValidatePersistentVolumeClaims refuses (v1.8.3), and one it takes."""
    volume = {"metadata": {"name": "pv"}, "spec": {"csi": {"driver": "ebs.csi.aws.com"}}}
    claims = [
        ("fresh", {}, {"storageClassName": "now"}, {}),
        ("no-class", {}, {"storageClassName": ""}, {}),
        ("unnoted", {}, {"volumeName": "pv", "storageClassName": "late"}, {}),
        ("lost", BOUND, {"volumeName": "gone"}, {"phase": "Lost"}),
        ("volume-gone", BOUND, {"volumeName": "gone"}, {}),
        ("beta", {"volume.beta.kubernetes.io/storage-class": "late"}, {}, {}),
        ("waiting", {}, {"storageClassName": "late"}, {}),
    ]
    return {
        "persistentVolumes": [volume],
        "persistentVolumeClaims": [
            {
                "metadata": {"name": name, "namespace": "default", "annotations": notes},
                "spec": claim_spec,
                "status": status,
            }
            for name, notes, claim_spec, status in claims
        ]
        + [
            {
                "metadata": {
                    "name": "deleting",
                    "namespace": "default",
                    "deletionTimestamp": "2025-01-01T00:00:00Z",
                },
                "spec": {"storageClassName": "late"},
            }
        ],
        "storageClasses": [
            _class(),
            {"metadata": {"name": "now"}, "provisioner": "ebs.csi.aws.com"},
        ],
    }


IMMEDIATE = "ignoring pod, pod has unbound immediate PersistentVolumeClaims"

# provisioner.go Validate -> volumetopology.go ValidatePersistentVolumeClaims (v1.8.3): a pod
# it refuses is ignored ("ignoring pod, ..."), no NodeClaim is launched for it
VALIDATION_CASES = [
    pytest.param(
        "missing",
        'ignoring pod, persistentvolumeclaim "missing" not found',
        id="a claim not found: ignored",
    ),
    pytest.param(
        "deleting",
        'ignoring pod, persistentvolumeclaim "deleting" is being deleted',
        id="a claim being deleted: ignored",
    ),
    pytest.param(
        "lost",
        'ignoring pod, persistentvolumeclaim "lost" bound to non-existent persistentvolume "gone"',
        id="a Lost claim: ignored",
    ),
    pytest.param(
        "volume-gone",
        'ignoring pod, persistentvolume "gone" not found',
        id="a claim naming a volume not found: ignored",
    ),
    pytest.param(
        "unnoted", IMMEDIATE, id="a claim naming a volume without bind-completed: ignored"
    ),
    pytest.param("fresh", IMMEDIATE, id="an unbound claim of an Immediate class: ignored"),
    pytest.param("no-class", IMMEDIATE, id="an unbound claim of no class: ignored"),
    pytest.param(
        "beta",
        'ignoring pod, persistentvolumeclaim "beta": unbound pvc must define a storage class',
        id="an unbound claim naming its class by the beta annotation alone: ignored",
    ),
    pytest.param("waiting", "", id="an unbound claim of a WaitForFirstConsumer class: launched"),
]


@pytest.mark.parametrize(("claim", "ignored"), VALIDATION_CASES)
def test_karpenter_ignores_a_pod_whose_claims_it_cannot_validate(claim: str, ignored: str) -> None:
    run = Run((POOL_A,), storage=_claims_to_validate())
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
    decision = run.decide(spec(volumes=[volume]), 2)
    assert (decision.placed, decision.unjudged) == (0 if ignored else 2, ignored)


def test_an_unbound_claims_topology_comes_from_the_class_its_spec_names() -> None:
    """The scheduler reads the beta annotation's class first; Karpenter only the spec's."""
    annotated = {**_class(), "metadata": {"name": "annotated"}}
    annotated["allowedTopologies"] = [{"matchLabelExpressions": [_expression(ZONE, "zone-b")]}]
    claim = {
        "metadata": {
            "name": "waiting",
            "namespace": "default",
            "annotations": {"volume.beta.kubernetes.io/storage-class": "annotated"},
        },
        "spec": {"storageClassName": "late"},
    }
    storage = {
        **_storage("zone-a"),
        "persistentVolumeClaims": [claim],
        "storageClasses": [_class([_expression(ZONE, "zone-a")]), annotated],
    }
    snapshot = build_snapshot(cluster_snapshot([api_node("n")], **storage), "s.json")
    mounted = {"name": "data", "persistentVolumeClaim": {"claimName": "waiting"}}
    profile = pod_profile({"containers": [{"name": "c"}], "volumes": [mounted]})
    cycle = prepare(profile, Cluster.of(snapshot))
    assert [str(r) for r in volume_requirements(cycle)] == [f"{ZONE} In [zone-a]"]
