"""A template's generic ephemeral volumes, judged as the claims the ephemeral volume
controller creates for each copy (``<pod>-<volume>``, component-helpers
``ephemeral.VolumeClaimName``; ``pkg/controller/volume/ephemeral/controller.go``
``handleVolume``): a new claim per copy and per volume, as a claim shipped in the run is
created (its template's spec, the default class when it names none, unbound), read by
VolumeBinding (``podHasPVCs``, ``GetPodVolumeClaims``) and NodeVolumeLimits
(``filterAttachableVolumes``), the copies counted one by one with their own claims."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.claims import ephemeral_claims, owned_by, pod_uid
from gate.k8s.warnings import NOT_JUDGED
from gate.model import Document, Location, Verdict, Workload
from gate.run import RunOptions, check, extracted
from gate.scheduler.framework.pods import copy_name
from gate.scheduler.plugins.volumebinding.binder import VOLUME_BINDING, pre_filter
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot
from tests.volume_support import HOST, LOCAL_CLASS, claim, local_volume, storage, storage_class

ZONE = "topology.kubernetes.io/zone"
DRIVER = "disk.csi.azure.com"
DEFAULT = {"storageclass.kubernetes.io/is-default-class": "true"}
ZONAL = {
    "metadata": {"name": "zonal", "annotations": DEFAULT},
    "provisioner": DRIVER,
    "volumeBindingMode": "WaitForFirstConsumer",
    "allowedTopologies": [{"matchLabelExpressions": [{"key": ZONE, "values": ["z1"]}]}],
}
IMMEDIATE = {"metadata": {"name": "now"}, "provisioner": DRIVER}
LOCAL = LOCAL_CLASS
NOT_BOUND = "node(s) didn't find available persistent volumes to bind"
EXCEED = "node(s) exceed max volume count"
UNBOUND = "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"
PREEMPTION = (
    " no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption "
    "victims found for incoming pod, 1 Preemption is not helpful for scheduling."
)


def _deployment(replicas: int, storage_class_name: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
    }
    if storage_class_name is not None:
        spec["storageClassName"] = storage_class_name
    template = {"metadata": {"labels": {"tier": "scratch"}}, "spec": spec}
    volume = {"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}}
    requests = {"cpu": "1500m", "memory": "1Mi"}
    container = {"name": "app", "image": "a", "resources": {"requests": requests}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "w"}},
            "template": {
                "metadata": {"labels": {"app": "w"}},
                "spec": {"containers": [container], "volumes": [volume]},
            },
        },
    }


def _copy(deployment: dict[str, Any], position: int) -> str:
    """The name the run gives the Deployment's copy at ``position`` (its ReplicaSet's
    template hash and the random part are stand-ins, :mod:`gate.k8s.podnames`)."""
    documents = [Document(Location("m.yaml", 1), deployment)]
    (workload,) = [w for w in extracted(documents) if isinstance(w, Workload)]
    return copy_name(workload, position)


def _csi_node(node: str, count: int) -> dict[str, Any]:
    driver = {"name": DRIVER, "nodeID": node, "allocatable": {"count": count}}
    return {"metadata": {"name": node}, "spec": {"drivers": [driver]}}


def _run(deployment: dict[str, Any], **recorded: Any) -> Any:
    """The Deployment judged on two 4-cpu nodes (two copies each), n1 in z1, n2 in z2."""
    nodes = [api_node(n, labels={ZONE: z, HOST: n}) for n, z in (("n1", "z1"), ("n2", "z2"))]
    objects: dict[str, Any] = {
        "persistentVolumes": [],
        "persistentVolumeClaims": [],
        "storageClasses": [ZONAL, IMMEDIATE, LOCAL],
        **recorded,
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **objects), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), deployment)], snapshot, RunOptions()).results
    return result


ZONED, SPARE = _deployment(3), _deployment(2)
LIMITED = {"csiNodes": [_csi_node("n1", 1), _csi_node("n2", 8)]}
LOCALS, SECOND_LOCAL = _deployment(2, "local"), _copy(_deployment(2, "local"), 1)
CASES = [
    pytest.param(
        ZONED,
        {"csiNodes": [_csi_node("n1", 8), _csi_node("n2", 8)]},
        (
            Verdict.PARTIAL,
            2,
            f"0/2 nodes are available: 1 Insufficient cpu, 1 {NOT_BOUND}.{PREEMPTION}",
        ),
        id="volumebinding checkVolumeProvisions: a WaitForFirstConsumer class provisioning "
        "in one zone holds every copy there",
    ),
    pytest.param(
        _deployment(3, "now"),
        {"csiNodes": [_csi_node("n1", 8), _csi_node("n2", 8)]},
        (Verdict.NO, 0, UNBOUND),
        id="volumebinding GetPodVolumeClaims: a new claim of an Immediate class is unbound",
    ),
    pytest.param(
        SPARE,
        LIMITED,
        (
            Verdict.PARTIAL,
            1,
            f"{_copy(SPARE, 1)} (claims {_copy(SPARE, 1)}-scratch): 0/2 nodes are available: "
            f"1 {NOT_BOUND}, 1 {EXCEED}.",
        ),
        id="nodevolumelimits filterAttachableVolumes: two copies' claims on one node count "
        "against its attach limit",
    ),
    pytest.param(
        LOCALS,
        {
            "csiNodes": [_csi_node("n1", 8), _csi_node("n2", 8)],
            "persistentVolumes": [local_volume("pv-a", "n1")],
        },
        (
            Verdict.PARTIAL,
            1,
            f"{SECOND_LOCAL} (claims {SECOND_LOCAL}-scratch): 0/2 nodes are available: "
            f"2 {NOT_BOUND}.",
        ),
        id="volumebinding AssumePodVolumes: the local volume one copy's claim binds is gone "
        "for the next copy's",
    ),
    pytest.param(
        _deployment(3, "gone"),
        {"csiNodes": [_csi_node("n1", 8), _csi_node("n2", 8)]},
        (Verdict.NO, 0, UNBOUND),
        id="volume IsDelayBindingMode: a claim of a class that does not exist binds at once",
    ),
    pytest.param(
        _deployment(3),
        {"csiNodes": [_csi_node("n1", 8)], "storageClasses": [IMMEDIATE]},
        (Verdict.NO, 0, UNBOUND),
        id="storageclass setdefault: with no default class a claim naming none has none",
    ),
]


@pytest.mark.parametrize(("deployment", "recorded", "expected"), CASES)
def test_each_copy_is_judged_with_its_own_new_claims(
    deployment: dict[str, Any], recorded: dict[str, Any], expected: tuple[Verdict, int, str]
) -> None:
    result = _run(deployment, **recorded)
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.message) == expected
    assert not [w for w in result.warnings if "ephemeral" in w.text]


def test_an_immediate_claim_is_said_to_be_bound_first_in_a_live_cluster() -> None:
    """The claim the controller creates is as new as a run's own claim of that class."""
    deployment = _deployment(1, "now")
    result = _run(deployment, csiNodes=[_csi_node("n1", 8)])
    claim_name = f"{_copy(deployment, 0)}-scratch"
    assert [w.text.split(":")[0] for w in result.warnings] == [
        f'claim "{claim_name}" is new, of an Immediate StorageClass (or of none)'
    ]


def test_a_claim_the_cluster_holds_under_the_copys_name_is_not_its_own() -> None:
    """ephemeral.VolumeIsForPod: the controller leaves an existing claim of that name, and
    the pod does not own it."""
    deployment = _deployment(1)
    first = _copy(deployment, 0)
    recorded = claim(f"{first}-scratch", namespace="web", storageClassName="zonal")
    result = _run(deployment, persistentVolumeClaims=[recorded])
    expected = (
        f"0/2 nodes are available: PVC web/{first}-scratch was not created for pod "
        f"web/{first} (pod is not owner). not found"
    )
    assert (result.verdict, result.message) == (Verdict.NO, expected)


def test_without_the_claims_recorded_an_ephemeral_volume_is_not_checked() -> None:
    nodes = [api_node("n1", labels={ZONE: "z1"})]
    snapshot = build_snapshot(cluster_snapshot(nodes), "s.json")
    report = check([Document(Location("m.yaml", 1), _deployment(1))], snapshot, RunOptions())
    (result,) = report.results
    assert result.verdict is Verdict.YES
    assert NOT_JUDGED.format(kinds="ephemeral") in [w.text for w in result.warnings]


def test_the_controller_makes_each_pods_claim_from_the_template() -> None:
    """controller.go handleVolume: the template's labels and annotations, its spec, the pod
    as controlling owner; the default class where it names none (created_claim)."""
    template = {
        "metadata": {"labels": {"a": "1"}, "annotations": {"b": "2"}},
        "spec": {"accessModes": ["ReadWriteOnce"]},
    }
    spec = {"volumes": [{"name": "v", "ephemeral": {"volumeClaimTemplate": template}}]}
    made = ephemeral_claims("web", "p-1", spec, set(), {"zonal": ZONAL})
    owner = {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": "p-1",
        "uid": pod_uid("web", "p-1"),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    assert made == {
        ("web", "p-1-v"): {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "p-1-v",
                "namespace": "web",
                "labels": {"a": "1"},
                "annotations": {"b": "2"},
                "ownerReferences": [owner],
            },
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "zonal"},
        }
    }
    assert owned_by(made["web", "p-1-v"], "web", "p-1")
    assert not owned_by(made["web", "p-1-v"], "web", "p-2")


def test_copies_never_share_a_claim() -> None:
    spec = {"volumes": [{"name": n, "ephemeral": {"volumeClaimTemplate": {}}} for n in "ab"]}
    names = [key for pod in ("p-1", "p-2") for key in ephemeral_claims("ns", pod, spec, set(), {})]
    assert names == [("ns", "p-1-a"), ("ns", "p-1-b"), ("ns", "p-2-a"), ("ns", "p-2-b")]


def test_a_claim_not_created_yet_is_awaited() -> None:
    """volume_binding.go podHasPVCs: a generic ephemeral volume's missing claim."""
    state = pre_filter("default", ("p-v",), storage(storage_class("s")), ("p-v",), "p")
    assert state.refusal is not None
    assert (state.refusal.plugin, state.refusal.reasons) == (
        VOLUME_BINDING,
        ('waiting for ephemeral volume controller to create the persistentvolumeclaim "p-v"',),
    )


def test_a_copy_whose_claim_the_quota_refuses_never_schedules() -> None:
    """controller.go handleVolume creates a pod's claim after the pod: the quota charges
    it then (persistent_volume_claims.go Usage), and a refused claim leaves its pod created
    but unschedulable, so the count stops at the first such copy."""
    deployment = _deployment(3)
    nodes = [api_node("n1", labels={ZONE: "z1"})]
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "q", "namespace": "web"},
        "spec": {"hard": {"requests.storage": "2Gi"}},
        "status": {"hard": {"requests.storage": "2Gi"}, "used": {"requests.storage": "0"}},
    }
    objects: dict[str, Any] = {
        "persistentVolumes": [],
        "persistentVolumeClaims": [],
        "storageClasses": [ZONAL],
    }
    document = cluster_snapshot(nodes, **objects)
    document["resourceQuotas"] = [quota]
    snapshot = build_snapshot(document, "s.json")
    report = check([Document(Location("m.yaml", 1), deployment)], snapshot, RunOptions())
    (result,) = report.results
    assert result.placement is not None and result.quota is not None
    expected = (
        f'persistentvolumeclaims "{_copy(deployment, 2)}-scratch" is forbidden: exceeded '
        "quota: q, requested: requests.storage=1Gi, used: requests.storage=2Gi, limited: "
        "requests.storage=2Gi"
    )
    assert (result.verdict, result.placement.fit, result.message) == (
        Verdict.PARTIAL,
        2,
        expected,
    )
    assert (result.quota.created, result.quota.quota) == (2, "q")


@settings(max_examples=15, deadline=None)
@given(replicas=st.integers(1, 5), limit=st.integers(1, 4))
def test_one_node_takes_as_many_copies_as_its_attach_limit(replicas: int, limit: int) -> None:
    """csi.go filterAttachableVolumes: every copy's claim is new and its own, so a node
    with room for all of them takes no more than its driver's count."""
    deployment = _deployment(replicas)
    deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1m"
    result = _run(deployment, csiNodes=[_csi_node("n1", limit), _csi_node("n2", 0)])
    assert result.placement is not None
    assert result.placement.fit == min(replicas, limit)
