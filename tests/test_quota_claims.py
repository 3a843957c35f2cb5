"""A StatefulSet's new claims against its namespace's ResourceQuotas, and a running
Deployment's new ReplicaSet against ``count/replicasets.apps``.

Upstream: ``pkg/quota/v1/evaluator/core/persistent_volume_claims.go`` (what a claim is
charged, the quotas it matches), ``pkg/controller/statefulset/stateful_pod_control.go``
(``CreateStatefulPod``: the copy's claims before its pod; ``createPersistentVolumeClaims``:
an existing claim is used as it is), ``stateful_set_control.go`` (``runForAll``,
``slowStartBatch``), ``pkg/controller/deployment/sync.go`` (``getNewReplicaSet``) and
``deployment_controller.go`` (``syncDeployment``: a paused Deployment creates no
ReplicaSet)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from gate.k8s.podnames import controller_object
from gate.k8s.quota import ResourceQuota, ScopeRequirement
from gate.k8s.quotaclaims import claim_quota_matches, claim_usage
from gate.k8s.quotaledger import quotas_of
from gate.model import Document, Location, Verdict, WorkloadResult
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container

NODES = [api_node(f"n{i}", cpu="8", memory="32Gi") for i in range(3)]
FAST = {
    "metadata": {
        "name": "fast",
        "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
    },
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
SLOW = {**FAST, "metadata": {"name": "slow"}}


def _quota(hard: dict[str, str], used: dict[str, str], name: str = "q") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": "web"},
        "spec": {"hard": hard},
        "status": {"hard": hard, "used": used},
    }


def _statefulset(
    replicas: int, name: str = "web", storage_class: str | None = None, **spec: Any
) -> dict[str, Any]:
    claim_spec: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "10Gi"}},
    }
    if storage_class is not None:
        claim_spec["storageClassName"] = storage_class
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": "web"},
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container(name, requests={"cpu": "100m"})]},
            },
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": claim_spec}],
            **spec,
        },
    }


def _claim(name: str) -> dict[str, Any]:
    """A claim the cluster holds, bound."""
    return {
        "metadata": {
            "name": name,
            "namespace": "web",
            "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
        },
        "spec": {"storageClassName": "fast", "volumeName": f"pv-{name}"},
    }


def _run(
    manifests: list[dict[str, Any]],
    quotas: list[dict[str, Any]],
    claims: list[dict[str, Any]] | None = None,
    pods: list[dict[str, Any]] | None = None,
) -> list[WorkloadResult]:
    storage: dict[str, Any] = {
        "persistentVolumes": [
            {"metadata": {"name": f"pv-{c['metadata']['name']}"}, "spec": {}} for c in claims or []
        ],
        "persistentVolumeClaims": claims or [],
        "storageClasses": [FAST, SLOW],
    }
    document = cluster_snapshot(NODES, pods or [], **storage)
    document["resourceQuotas"] = quotas
    snapshot = build_snapshot(document, "s.json")
    documents = [Document(Location("m.yaml", 1 + 60 * i), b) for i, b in enumerate(manifests)]
    return list(check(documents, snapshot, RunOptions()).results)


def _refused(claim: str, error: str) -> str:
    return f'persistentvolumeclaims "{claim}" is forbidden: exceeded quota: q, {error}'


STORAGE_25 = _quota({"requests.storage": "25Gi"}, {"requests.storage": "0"})
ONE_CLAIM = _quota({"persistentvolumeclaims": "1"}, {"persistentvolumeclaims": "0"})
PVC_ONE = "requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, "
PVC_ONE += "limited: persistentvolumeclaims=1"
PARALLEL = {"podManagementPolicy": "Parallel"}

# (id, the StatefulSet, its namespace's quotas, the claims the cluster holds,
#  the verdict, the copies created, the message)
CLAIMED: list[
    tuple[str, dict[str, Any], list[dict[str, Any]], list[str], Verdict, int, str | None]
] = [
    (
        "a claim over requests.storage stops its copy with the API server's refusal",
        _statefulset(3),
        [STORAGE_25],
        [],
        Verdict.PARTIAL,
        2,
        _refused(
            "data-web-2",
            "requested: requests.storage=10Gi, used: requests.storage=20Gi, "
            "limited: requests.storage=25Gi",
        ),
    ),
    (
        "a claim over the persistentvolumeclaims count stops its copy",
        _statefulset(3),
        [ONE_CLAIM],
        [],
        Verdict.PARTIAL,
        1,
        _refused("data-web-1", PVC_ONE),
    ),
    (
        "a full count/persistentvolumeclaims creates no copy",
        _statefulset(2),
        [_quota({"count/persistentvolumeclaims": "4"}, {"count/persistentvolumeclaims": "4"})],
        [],
        Verdict.NO,
        0,
        _refused(
            "data-web-0",
            "requested: count/persistentvolumeclaims=1, used: count/persistentvolumeclaims=4, "
            "limited: count/persistentvolumeclaims=4",
        ),
    ),
    (
        # the DefaultStorageClass admission plugin gives the claim its class first
        "a claim naming no class is charged to the default class's share",
        _statefulset(3),
        [
            _quota(
                {"fast.storageclass.storage.k8s.io/requests.storage": "15Gi"},
                {"fast.storageclass.storage.k8s.io/requests.storage": "0"},
            )
        ],
        [],
        Verdict.PARTIAL,
        1,
        _refused(
            "data-web-1",
            "requested: fast.storageclass.storage.k8s.io/requests.storage=10Gi, "
            "used: fast.storageclass.storage.k8s.io/requests.storage=10Gi, "
            "limited: fast.storageclass.storage.k8s.io/requests.storage=15Gi",
        ),
    ),
    (
        "a claim's class counts under its own name only",
        _statefulset(3, storage_class="slow"),
        [
            _quota(
                {"fast.storageclass.storage.k8s.io/persistentvolumeclaims": "0"},
                {"fast.storageclass.storage.k8s.io/persistentvolumeclaims": "0"},
            )
        ],
        [],
        Verdict.YES,
        3,
        None,
    ),
    (
        "a claim the cluster holds is used as it is and charged nothing",
        _statefulset(3),
        [_quota({"requests.storage": "15Gi"}, {"requests.storage": "0"})],
        ["data-web-0", "data-web-1"],
        Verdict.YES,
        3,
        None,
    ),
    (
        "under OrderedReady the copies after a refused claim wait",
        _statefulset(3),
        [ONE_CLAIM],
        ["data-web-2"],
        Verdict.PARTIAL,
        1,
        _refused("data-web-1", PVC_ONE),
    ),
    (
        "under Parallel a later copy of the refused one's batch is created with its claim",
        _statefulset(3, **PARALLEL),
        [ONE_CLAIM],
        ["data-web-2"],
        Verdict.PARTIAL,
        2,
        _refused("data-web-1", PVC_ONE),
    ),
    (
        "under Parallel the batches after the one with a refused claim are not tried",
        _statefulset(5, **PARALLEL),
        [ONE_CLAIM],
        ["data-web-3", "data-web-4"],
        Verdict.PARTIAL,
        1,
        _refused("data-web-1", PVC_ONE),
    ),
    (
        "a quota the controller has not counted claims under refuses every claim",
        _statefulset(1),
        [_quota({"requests.storage": "25Gi"}, {})],
        [],
        Verdict.NO,
        0,
        'persistentvolumeclaims "data-web-0" is forbidden: status unknown for quota: q, '
        "resources: requests.storage",
    ),
]


@pytest.mark.parametrize(
    ("statefulset", "quotas", "held", "verdict", "created", "message"),
    [c[1:] for c in CLAIMED],
    ids=[c[0] for c in CLAIMED],
)
def test_a_stateful_set_s_new_claims_are_charged_before_each_copy(
    statefulset: dict[str, Any],
    quotas: list[dict[str, Any]],
    held: list[str],
    verdict: Verdict,
    created: int,
    message: str | None,
) -> None:
    [result] = _run([statefulset], quotas, [_claim(name) for name in held])
    assert (result.verdict, result.message) == (verdict, message)
    assert result.quota is not None
    assert (result.quota.created, result.quota.message) == (created, message)


def test_the_run_s_later_workloads_meet_the_claims_earlier_ones_took() -> None:
    quota = _quota({"requests.storage": "30Gi"}, {"requests.storage": "0"})
    first, second = _run([_statefulset(2), _statefulset(2, name="db")], [quota])
    assert first.verdict is Verdict.YES
    assert (second.verdict, second.message) == (
        Verdict.PARTIAL,
        _refused(
            "data-db-1",
            "requested: requests.storage=10Gi, used: requests.storage=30Gi, "
            "limited: requests.storage=30Gi",
        ),
    )


def test_a_copy_s_claims_are_created_before_its_pod_is_refused() -> None:
    """The claims of the copy whose pod the quota refuses are created all the same: the
    next StatefulSet meets them."""
    pods = _quota({"pods": "1"}, {"pods": "0"}, name="pods")
    claims = _quota({"persistentvolumeclaims": "2"}, {"persistentvolumeclaims": "0"})
    first, second = _run([_statefulset(3), _statefulset(2, name="db")], [pods, claims])
    assert (first.verdict, first.message) == (
        Verdict.PARTIAL,
        'pods "web-1" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, '
        "limited: pods=1",
    )
    assert second.message == _refused(
        "data-db-0",
        "requested: persistentvolumeclaims=1, used: persistentvolumeclaims=2, "
        "limited: persistentvolumeclaims=2",
    )


def test_a_copy_s_other_claims_are_created_beside_a_refused_one() -> None:
    """createPersistentVolumeClaims tries every claim of the copy and returns their errors
    together: the copy's claims the quota admits are created, and stay charged."""
    statefulset = _statefulset(2)
    logs_spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    logs = {"metadata": {"name": "logs"}, "spec": logs_spec}
    statefulset["spec"]["volumeClaimTemplates"].append(logs)
    quota = _quota({"requests.storage": "15Gi"}, {"requests.storage": "0"})
    first, second = _run([statefulset, _statefulset(1, name="db")], [quota])
    assert (first.verdict, first.message) == (
        Verdict.PARTIAL,
        _refused(
            "data-web-1",
            "requested: requests.storage=10Gi, used: requests.storage=11Gi, "
            "limited: requests.storage=15Gi",
        ),
    )
    assert second.message == _refused(
        "data-db-0",
        "requested: requests.storage=10Gi, used: requests.storage=12Gi, "
        "limited: requests.storage=15Gi",
    )


def _claim_spec(**spec: Any) -> dict[str, Any]:
    return {"spec": {"resources": {"requests": {"storage": "1Gi"}}, **spec}}


# (id, what the claim is charged, the claim)
USAGES: list[tuple[str, dict[str, str], dict[str, Any]]] = [
    (
        "a claim without a class is charged the claim and its storage",
        {"persistentvolumeclaims": "1", "count/persistentvolumeclaims": "1"}
        | {"requests.storage": "1Gi"},
        _claim_spec(),
    ),
    (
        "a claim of a class is charged both again under the class's names",
        {
            "persistentvolumeclaims": "1",
            "count/persistentvolumeclaims": "1",
            "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
            "requests.storage": "1Gi",
            "gold.storageclass.storage.k8s.io/requests.storage": "1Gi",
        },
        _claim_spec(storageClassName="gold"),
    ),
    (
        # storagehelpers.GetPersistentVolumeClaimClass reads the beta annotation first
        "the beta class annotation stands before storageClassName",
        {
            "persistentvolumeclaims": "1",
            "count/persistentvolumeclaims": "1",
            "beta.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
        },
        {
            "metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "beta"}},
            "spec": {"storageClassName": "gold"},
        },
    ),
    (
        # getStorageUsage: RoundUp(0), https://issue.k8s.io/94313
        "a storage request is charged rounded up to whole bytes",
        {
            "persistentvolumeclaims": "1",
            "count/persistentvolumeclaims": "1",
            "requests.storage": "2",
        },
        {"spec": {"resources": {"requests": {"storage": "1500m"}}}},
    ),
]


@pytest.mark.parametrize(("usage", "claim"), [c[1:] for c in USAGES], ids=[c[0] for c in USAGES])
def test_a_claim_is_charged_as_the_claim_evaluator_measures_it(
    usage: dict[str, str], claim: dict[str, Any]
) -> None:
    assert {name: str(amount) for name, amount in claim_usage(claim).items()} == usage


def _scoped(*scopes: ScopeRequirement) -> ResourceQuota:
    [quota] = quotas_of([_quota({"persistentvolumeclaims": "5"}, {"persistentvolumeclaims": "0"})])
    return replace(quota, scopes=scopes)


VAC = "VolumeAttributesClass"
# (id, the quota's scopes, the claim's spec, whether the quota counts the claim)
SCOPES: list[tuple[str, tuple[ScopeRequirement, ...], dict[str, Any], bool]] = [
    ("a quota without scopes counts every claim", (), {}, True),
    (
        "a VolumeAttributesClass In scope counts a claim asking for that class",
        (ScopeRequirement(VAC, "In", ("gold",)),),
        {"volumeAttributesClassName": "gold"},
        True,
    ),
    (
        "a VolumeAttributesClass In scope leaves out a claim asking for none",
        (ScopeRequirement(VAC, "In", ("gold",)),),
        {},
        False,
    ),
    (
        "a VolumeAttributesClass NotIn scope counts a claim asking for none",
        (ScopeRequirement(VAC, "NotIn", ("gold",)),),
        {},
        True,
    ),
    ("an Exists scope leaves out a claim asking for none", (ScopeRequirement(VAC),), {}, False),
    (
        "a pod's scope matches no claim",
        (ScopeRequirement("NotTerminating"),),
        {"volumeAttributesClassName": "gold"},
        False,
    ),
]


@pytest.mark.parametrize(
    ("scopes", "spec", "matches"), [c[1:] for c in SCOPES], ids=[c[0] for c in SCOPES]
)
def test_a_claim_meets_a_quota_s_scopes_as_the_claim_evaluator_matches_them(
    scopes: tuple[ScopeRequirement, ...], spec: dict[str, Any], matches: bool
) -> None:
    assert claim_quota_matches(_scoped(*scopes), {"spec": spec}) is matches


def _deployment(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "web"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [container(name, requests={"cpu": "1"})]},
            },
            **spec,
        },
    }


def _running(index: int) -> dict[str, Any]:
    """A pod of Deployment ``web``'s current ReplicaSet, running on n0."""
    pod = api_pod(f"web-5d8f7c-{index}", "n0", namespace="web", containers=[container()])
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web-5d8f7c"}]
    pod["metadata"]["labels"] = {"app": "web", "pod-template-hash": "5d8f7c"}
    return pod


def _replica_sets(hard: str, used: str) -> dict[str, Any]:
    return _quota({"count/replicasets.apps": hard}, {"count/replicasets.apps": used})


def _new_replica_set(manifest: dict[str, Any]) -> str:
    template = json.dumps(manifest["spec"]["template"]["spec"], sort_keys=True, default=str)
    made = controller_object("Deployment", manifest["metadata"]["name"], template)
    assert made is not None
    return made[1]


FULL = (
    "exceeded quota: q, requested: count/replicasets.apps=1, used: count/replicasets.apps=3, "
    "limited: count/replicasets.apps=3"
)
# (id, the Deployment, its pods running, the verdict, whether its ReplicaSet is refused)
ROLLOUTS: list[tuple[str, dict[str, Any], bool, Verdict, bool]] = [
    (
        "a running Deployment's rollout over count/replicasets.apps never starts",
        _deployment(),
        True,
        Verdict.NO,
        True,
    ),
    (
        "a paused running Deployment creates no ReplicaSet",
        _deployment(paused=True),
        True,
        Verdict.YES,
        False,
    ),
    (
        "a new paused Deployment creates no ReplicaSet",
        _deployment(paused=True),
        False,
        Verdict.YES,
        False,
    ),
    ("a new Deployment's ReplicaSet is refused", _deployment(), False, Verdict.NO, True),
]


@pytest.mark.parametrize(
    ("manifest", "running", "verdict", "refused"),
    [c[1:] for c in ROLLOUTS],
    ids=[c[0] for c in ROLLOUTS],
)
def test_a_deployment_s_new_replica_set_meets_count_replicasets(
    manifest: dict[str, Any], running: bool, verdict: Verdict, refused: bool
) -> None:
    pods = [_running(i) for i in range(2)] if running else []
    [result] = _run([manifest], [_replica_sets("3", "3")], pods=pods)
    message = f'replicasets.apps "{_new_replica_set(manifest)}" is forbidden: {FULL}'
    assert (result.verdict, result.message) == (verdict, message if refused else None)


def test_a_rollout_s_replica_set_is_charged_for_the_run_s_later_workloads() -> None:
    later = _deployment("api")
    first, second = _run(
        [_deployment(), later], [_replica_sets("3", "2")], pods=[_running(i) for i in range(2)]
    )
    assert first.verdict is Verdict.YES
    assert (second.verdict, second.message) == (
        Verdict.NO,
        f'replicasets.apps "{_new_replica_set(later)}" is forbidden: {FULL}',
    )
