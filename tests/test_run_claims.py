"""The PersistentVolumeClaims among a run's own manifests: a Deployment shipped with its
new claim is judged with it (as the API server stores it when created: unbound, of its
class or the default one), not refused for a claim the cluster does not hold yet."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.claims import created_claim, default_class, with_run_claims
from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot

ZONE = "topology.kubernetes.io/zone"
DEFAULT = {"storageclass.kubernetes.io/is-default-class": "true"}
CLASSES = [
    {
        "metadata": {"name": "managed-csi", "annotations": DEFAULT},
        "provisioner": "disk.csi.azure.com",
        "volumeBindingMode": "WaitForFirstConsumer",
    },
    {"metadata": {"name": "immediate"}, "provisioner": "disk.csi.azure.com"},
]
STORAGE: dict[str, Any] = {
    "persistentVolumes": [],
    "persistentVolumeClaims": [],
    "storageClasses": CLASSES,
}


def _claim(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "web"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            **spec,
        },
    }


def _deployment(claim: str) -> dict[str, Any]:
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
    container = {"name": "app", "image": "a", "resources": {"requests": {"cpu": "100m"}}}
    template = {
        "metadata": {"labels": {"app": "a"}},
        "spec": {"containers": [container], "volumes": [volume]},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "a", "namespace": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "a"}}, "template": template},
    }


def _run(*manifests: dict[str, Any]) -> Any:
    nodes = [api_node("n1", labels={ZONE: "z1"})]
    snapshot = build_snapshot(cluster_snapshot(nodes, **STORAGE), "s.json")
    documents = [Document(Location("m.yaml", 1 + 20 * i), b) for i, b in enumerate(manifests)]
    results = check(documents, snapshot, RunOptions()).results
    (result,) = [r for r in results if r.kind != "PersistentVolumeClaim"]
    return result


CASES = [
    pytest.param(
        [_deployment("data")],
        Verdict.NO,
        # a PreFilter refused it, so DynamicResources' PostFilter finds no state of its own
        '0/1 nodes are available: persistentvolumeclaim "data" not found. not found',
        id="a claim neither recorded nor shipped is missing",
    ),
    pytest.param(
        [_claim("data"), _deployment("data")],
        Verdict.YES,
        None,
        id="a claim shipped beside its Deployment gets the default class and waits for it",
    ),
    pytest.param(
        [{**_claim("data"), "spec": {"accessModes": ["ReadWriteOnce"]}}, _deployment("data")],
        Verdict.NO,
        '0/1 nodes are available: persistentvolumeclaim "data" not found. not found',
        id="a shipped claim the API server refuses (no storage request) is never created",
    ),
    pytest.param(
        [_claim("data", accessModes=[]), _deployment("data")],
        Verdict.NO,
        '0/1 nodes are available: persistentvolumeclaim "data" not found. not found',
        id="a shipped claim without access modes is never created",
    ),
    pytest.param(
        [_deployment("data"), _claim("data", storageClassName="immediate")],
        Verdict.NO,
        "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found",
        id="a shipped claim of an Immediate class is unbound when its pod is scheduled",
    ),
]


@pytest.mark.parametrize(("manifests", "verdict", "message"), CASES)
def test_a_run_claim_is_judged_as_created(
    manifests: list[dict[str, Any]], verdict: Verdict, message: str | None
) -> None:
    result = _run(*manifests)
    assert (result.verdict, result.message) == (verdict, message)


DEFAULTS = [
    pytest.param([], None, id="no default class: none"),
    pytest.param(
        [{"metadata": {"name": "b", "annotations": DEFAULT}}, {"metadata": {"name": "a"}}],
        "b",
        id="the class annotated default",
    ),
    pytest.param(
        [
            {
                "metadata": {
                    "name": "old",
                    "annotations": DEFAULT,
                    "creationTimestamp": "2025-01-01T00:00:00Z",
                }
            },
            {
                "metadata": {
                    "name": "new",
                    "annotations": DEFAULT,
                    "creationTimestamp": "2026-01-01T00:00:00Z",
                }
            },
        ],
        "new",
        id="of two defaults the newest",
    ),
    pytest.param(
        [
            {"metadata": {"name": "b", "annotations": DEFAULT}},
            {"metadata": {"name": "a", "annotations": DEFAULT}},
        ],
        "a",
        id="of two defaults created together the first by name",
    ),
]


@pytest.mark.parametrize(("classes", "expected"), DEFAULTS)
def test_the_default_class_is_the_admission_plugins(
    classes: list[dict[str, Any]], expected: str | None
) -> None:
    assert default_class({c["metadata"]["name"]: c for c in classes}) == expected


def test_a_created_claim_keeps_its_own_class_and_no_binder_note() -> None:
    body = _claim("c", storageClassName="")
    body["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    claim = created_claim(body, {"managed-csi": CLASSES[0]})
    assert claim["spec"]["storageClassName"] == ""
    assert claim["metadata"]["annotations"] == {}


def _replicas(count: int, deployment: dict[str, Any]) -> dict[str, Any]:
    deployment["spec"]["replicas"] = count
    return deployment


SHARED = [
    pytest.param(
        "ReadWriteOncePod",
        Verdict.PARTIAL,
        1,
        "0/1 nodes are available: 1 node(s) unavailable due to PersistentVolumeClaim with "
        "ReadWriteOncePod access mode already in-use by another pod.",
        [],
        id="a ReadWriteOncePod claim shared by the copies lets the first one only start",
    ),
    pytest.param(
        "ReadWriteOnce",
        Verdict.YES,
        3,
        None,
        [
            'claim "data" is ReadWriteOnce: copies on another node than the first cannot '
            "attach it, which no filter checks (kubelet's attach fails)"
        ],
        id="a ReadWriteOnce claim shared by the copies is said to fail beyond one node",
    ),
    pytest.param("ReadWriteMany", Verdict.YES, 3, None, [], id="a ReadWriteMany claim is shared"),
]


@pytest.mark.parametrize(("mode", "verdict", "fit", "message", "warnings"), SHARED)
def test_the_copies_of_a_workload_share_its_claims(
    mode: str, verdict: Verdict, fit: int, message: str | None, warnings: list[str]
) -> None:
    result = _run(_claim("data", accessModes=[mode]), _replicas(3, _deployment("data")))
    assert result.placement is not None
    assert (result.verdict, result.placement.fit, result.message) == (verdict, fit, message)
    assert [w.text for w in result.warnings if "claim" in w.text] == warnings


def _held(strategy: dict[str, Any] | None) -> Any:
    """A Deployment whose running pod mounts its ReadWriteOncePod claim, changed."""
    notes = {"pv.kubernetes.io/bind-completed": "yes"}
    claim = {
        "metadata": {"name": "data", "namespace": "web", "annotations": notes},
        "spec": {"volumeName": "pv", "accessModes": ["ReadWriteOncePod"]},
    }
    volume = {
        "metadata": {"name": "pv"},
        "spec": {"csi": {"driver": "disk.csi.azure.com", "volumeHandle": "pv"}},
    }
    running = api_pod(
        "a-5d8f7c9b4-bcdfg",
        "n1",
        namespace="web",
        volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
    )
    running["metadata"]["labels"] = {"app": "a", "pod-template-hash": "5d8f7c9b4"}
    running["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "a-5d8f7c9b4"}]
    storage = {**STORAGE, "persistentVolumes": [volume], "persistentVolumeClaims": [claim]}
    nodes = [api_node("n1", labels={ZONE: "z1"})]
    snapshot = build_snapshot(cluster_snapshot(nodes, [running], **storage), "s.json")
    deployment = _deployment("data")
    if strategy is not None:
        deployment["spec"]["strategy"] = strategy
    (result,) = check([Document(Location("m.yaml", 1), deployment)], snapshot, RunOptions()).results
    return result


STALLED = "the rollout cannot start: maxUnavailable 0 keeps its 1 running pod(s)"


@pytest.mark.parametrize(
    ("strategy", "verdict", "message"),
    [
        pytest.param(
            None,
            Verdict.NO,
            STALLED,
            id="a rolling update's new pod waits for the claim its old pod holds: it never starts",
        ),
        pytest.param(
            {"type": "Recreate"},
            Verdict.YES,
            None,
            id="a recreated pod finds the claim its old pod held free",
        ),
    ],
)
def test_a_read_write_once_pod_claim_is_freed_with_the_pod_that_held_it(
    strategy: dict[str, Any] | None, verdict: Verdict, message: str | None
) -> None:
    result = _held(strategy)
    assert result.verdict is verdict
    assert (result.message or "")[: len(message or "")] == (message or "")


BOUND_CLAIM = {
    "metadata": {
        "name": "data",
        "namespace": "web",
        "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
    },
    "spec": {"storageClassName": "immediate", "volumeName": "pv-data"},
    "status": {"phase": "Bound"},
}
BOUND_VOLUME = {
    "metadata": {"name": "pv-data"},
    "spec": {
        "storageClassName": "immediate",
        "capacity": {"storage": "1Gi"},
        "claimRef": {"name": "data", "namespace": "web"},
    },
    "status": {"phase": "Bound"},
}


def test_a_shipped_claim_the_cluster_holds_leaves_the_recorded_one_standing() -> None:
    """Creating a claim that exists is refused (AlreadyExists) and applying it changes no
    immutable field of its spec, so its pod meets the recorded, bound claim (as a
    StatefulSet's existing claim is used as it is)."""
    nodes = [api_node("n1", cpu="4", memory="8Gi")]
    storage = {
        **STORAGE,
        "persistentVolumes": [BOUND_VOLUME],
        "persistentVolumeClaims": [BOUND_CLAIM],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    documents = [
        Document(Location("m.yaml", 1 + 20 * i), b)
        for i, b in enumerate([_claim("data", storageClassName="immediate"), _deployment("data")])
    ]
    results = check(documents, snapshot, RunOptions()).results
    (result,) = [r for r in results if r.kind != "PersistentVolumeClaim"]
    assert (result.verdict, result.message) == (Verdict.YES, None)
    added = with_run_claims(snapshot.storage, [_claim("data", storageClassName="immediate")])
    assert added is not None and added.created == frozenset()


CREATED = [
    pytest.param(
        {"status": {"phase": "Lost"}},
        id="the status written in the manifest is reset (PrepareForCreate)",
    ),
    pytest.param(
        {"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}},
        id="a deletion timestamp written in the manifest is cleared (BeforeCreate)",
    ),
    pytest.param(
        {"metadata": {"deletionGracePeriodSeconds": 30}},
        id="a deletion grace period written in the manifest is cleared (BeforeCreate)",
    ),
    pytest.param(
        {"metadata": {"uid": "from-another-cluster"}},
        id="a uid written in the manifest is replaced by a new one (FillObjectMetaSystemFields)",
    ),
]


@pytest.mark.parametrize("written", CREATED)
def test_a_created_claim_keeps_nothing_the_api_server_sets_itself(
    written: dict[str, Any],
) -> None:
    body = _claim("c", storageClassName="managed-csi")
    body["metadata"].update(written.get("metadata", {}))
    body.update({k: v for k, v in written.items() if k != "metadata"})
    claim = created_claim(body, {"managed-csi": CLASSES[0]})
    assert "status" not in claim
    assert claim["metadata"] == {"name": "c", "namespace": "web", "annotations": {}}


def _storage_class(name: str, fields: dict[str, Any], default: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if default:
        metadata["annotations"] = DEFAULT
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": metadata,
        **fields,
    }


LOCAL: dict[str, Any] = {
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}
BIND_CONFLICT = (
    "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind."
    " no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not"
    " helpful for scheduling."
)
UNBOUND_IMMEDIATE = "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims."
SHIPPED_CLASSES = [
    pytest.param(
        [_storage_class("local", LOCAL), _claim("data", storageClassName="local")],
        Verdict.NO,
        BIND_CONFLICT,
        id="a claim of a class shipped beside it waits for its first consumer as the class says",
    ),
    pytest.param(
        [
            _storage_class(
                "fast",
                {
                    "provisioner": "disk.csi.azure.com",
                    "volumeBindingMode": "WaitForFirstConsumer",
                    "allowedTopologies": [
                        {"matchLabelExpressions": [{"key": ZONE, "values": ["z1"]}]}
                    ],
                },
            ),
            _claim("data", storageClassName="fast"),
        ],
        Verdict.YES,
        None,
        id="a claim of a shipped class that provisions in the node's zone fits",
    ),
    pytest.param(
        [
            _storage_class("plain", {"provisioner": "disk.csi.azure.com"}),
            _claim("data", storageClassName="plain"),
        ],
        Verdict.NO,
        UNBOUND_IMMEDIATE + " not found",
        id="a shipped class without a binding mode binds at once (the API server's default)",
    ),
    pytest.param(
        [_storage_class("local", LOCAL, default=True), _claim("data")],
        Verdict.NO,
        BIND_CONFLICT,
        id="a claim naming no class gets the shipped default, newer than the recorded one",
    ),
    pytest.param(
        [_storage_class("immediate", LOCAL), _claim("data", storageClassName="immediate")],
        Verdict.NO,
        UNBOUND_IMMEDIATE + " not found",
        id="a shipped class the cluster holds leaves the recorded one standing",
    ),
]


@pytest.mark.parametrize(("manifests", "verdict", "message"), SHIPPED_CLASSES)
def test_a_class_shipped_with_the_claims_is_read_as_created(
    manifests: list[dict[str, Any]], verdict: Verdict, message: str | None
) -> None:
    """A chart that ships its StorageClass beside its claim: the scheduler meets the class
    the API server stored (volume_binding.go GetPodVolumeClaims reads the claim's class
    through the lister; setdefault's GetDefaultClass picks the newest default class)."""
    result = _run(*manifests, _deployment("data"))
    assert (result.verdict, result.message) == (verdict, message)


def test_of_two_default_classes_a_shipped_one_is_the_newest() -> None:
    recorded = {
        "old": {
            "metadata": {
                "name": "old",
                "annotations": DEFAULT,
                "creationTimestamp": "2026-01-01T00:00:00Z",
            }
        }
    }
    shipped = {
        "b": _storage_class("b", {}, default=True),
        "a": _storage_class("a", {}, default=True),
    }
    # a creation time written in a shipped class's manifest is the server's to set
    shipped["b"]["metadata"]["creationTimestamp"] = "2027-01-01T00:00:00Z"
    assert default_class({**recorded, **shipped}, created=frozenset(shipped)) == "a"
    assert default_class(recorded, created=frozenset()) == "old"
