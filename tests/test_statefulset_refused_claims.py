"""A StatefulSet whose claim the API server refuses (ValidatePersistentVolumeClaim) starts
no copy from there on: the controller creates a copy's claims before its pod, and a claim
it fails to create stops that pod.

Upstream: ``pkg/controller/statefulset/stateful_pod_control.go`` (``CreateStatefulPod``:
``createMissingPersistentVolumeClaims`` first, its error returned before the pod is
created; ``recordClaimEvent``: ``create Claim <claim> for Pod <pod> in StatefulSet <set>
failed error: <err>``), ``stateful_set_control.go`` (``runForAll``: an OrderedReady set
stops at the first copy that fails)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Document, Location, Verdict, WorkloadResult
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot, container

NODES = [api_node(f"n{i}", cpu="8", memory="32Gi") for i in range(3)]
FAST = {
    "metadata": {
        "name": "fast",
        "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
    },
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
GOOD = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}
NO_STORAGE = {"accessModes": ["ReadWriteOnce"]}
NO_MODES = {"resources": {"requests": {"storage": "10Gi"}}}
NO_STORAGE_ERROR = "spec.resources[storage]: Required value"
NO_MODES_ERROR = "spec.accessModes: Required value: at least 1 access mode is required"


def _statefulset(replicas: int, *templates: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "web"},
        "spec": {
            "replicas": replicas,
            "serviceName": "web",
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [container("web", requests={"cpu": "100m"})]},
            },
            "volumeClaimTemplates": [
                {"metadata": {"name": name}, "spec": spec} for name, spec in templates
            ],
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


def _quota(hard: dict[str, str], used: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "q", "namespace": "web"},
        "spec": {"hard": hard},
        "status": {"hard": hard, "used": used},
    }


def _run(
    manifest: dict[str, Any], claims: list[str], quotas: list[dict[str, Any]]
) -> WorkloadResult:
    recorded = [_claim(name) for name in claims]
    storage: dict[str, Any] = {
        "persistentVolumes": [{"metadata": {"name": f"pv-{c}"}, "spec": {}} for c in claims],
        "persistentVolumeClaims": recorded,
        "storageClasses": [FAST],
    }
    document = cluster_snapshot(NODES, [], **storage)
    document["resourceQuotas"] = quotas
    snapshot = build_snapshot(document, "s.json")
    results = check([Document(Location("m.yaml", 1), manifest)], snapshot, RunOptions()).results
    return results[0]


def _failed(claim: str, pod: str, error: str) -> str:
    return (
        f"create Claim {claim} for Pod {pod} in StatefulSet web failed error: "
        f'PersistentVolumeClaim "{claim}" is invalid: {error}'
    )


ONE_POD = _quota({"pods": "1"}, {"pods": "0"})
PODS = _quota({"pods": "10"}, {"pods": "0"})

# (id, the StatefulSet, the claims the cluster holds, its namespace's quotas, the verdict,
#  the copies created, the message)
REFUSED: list[
    tuple[str, dict[str, Any], list[str], list[dict[str, Any]], Verdict, int | None, str | None]
] = [
    (
        "a template without a storage request starts no copy",
        _statefulset(3, ("data", NO_STORAGE)),
        [],
        [],
        Verdict.NO,
        None,
        _failed("data-web-0", "web-0", NO_STORAGE_ERROR),
    ),
    (
        "a template without access modes starts no copy",
        _statefulset(2, ("data", NO_MODES)),
        [],
        [],
        Verdict.NO,
        None,
        _failed("data-web-0", "web-0", NO_MODES_ERROR),
    ),
    (
        "copies whose claims the cluster holds start, the first to create one stops",
        _statefulset(3, ("data", NO_STORAGE)),
        ["data-web-0", "data-web-1"],
        [],
        Verdict.PARTIAL,
        None,
        _failed("data-web-2", "web-2", NO_STORAGE_ERROR),
    ),
    (
        "of two templates the refused one names the claim, whatever its place",
        _statefulset(2, ("data", GOOD), ("logs", NO_MODES)),
        [],
        [],
        Verdict.NO,
        None,
        _failed("logs-web-0", "web-0", NO_MODES_ERROR),
    ),
    (
        "a quota counting the pods counts the copies created before the refused claim",
        _statefulset(3, ("data", NO_STORAGE)),
        ["data-web-0"],
        [PODS],
        Verdict.PARTIAL,
        1,
        _failed("data-web-1", "web-1", NO_STORAGE_ERROR),
    ),
    (
        "a quota refusing an earlier copy's pod speaks first",
        _statefulset(3, ("data", NO_STORAGE)),
        ["data-web-0", "data-web-1"],
        [ONE_POD],
        Verdict.PARTIAL,
        1,
        'pods "web-1" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, '
        "limited: pods=1",
    ),
    (
        "a template the API server takes starts every copy",
        _statefulset(3, ("data", GOOD)),
        [],
        [],
        Verdict.YES,
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("manifest", "claims", "quotas", "verdict", "created", "message"),
    [pytest.param(*row[1:], id=row[0]) for row in REFUSED],
)
def test_a_refused_claim_stops_the_statefulset_there(
    manifest: dict[str, Any],
    claims: list[str],
    quotas: list[dict[str, Any]],
    verdict: Verdict,
    created: int | None,
    message: str | None,
) -> None:
    result = _run(manifest, claims, quotas)
    assert result.verdict is verdict, result.message
    if message is not None:
        assert result.message == message
    assert (None if result.quota is None else result.quota.created) == created
