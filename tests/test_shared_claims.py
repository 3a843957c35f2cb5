"""Copies that share one claim waiting for its first consumer: the first copy binds it to
an Available volume (VolumeBinding's Reserve, ``AssumePodVolumes`` in
pkg/scheduler/framework/plugins/volumebinding/binder.go), and every copy after it meets the
claim bound, held to that volume's nodes (``checkBoundClaims``)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.workloads import Unevaluated, extract_all
from gate.model import Document, Location, Verdict, Workload
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot
from tests.volume_support import HOST, LOCAL_CLASS, local_volume

LOCAL = LOCAL_CLASS
PROVISIONED = {
    "metadata": {"name": "provisioned"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
AFFINITY = "node(s) didn't match PersistentVolume's node affinity"
NOT_FOUND = "node(s) didn't find available persistent volumes to bind"
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"


def _claim(storage_class: str, volume: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "accessModes": ["ReadWriteMany"],
        "storageClassName": storage_class,
        "resources": {"requests": {"storage": "1Gi"}},
    }
    notes = {}
    if volume:
        spec["volumeName"] = volume
        notes = {"pv.kubernetes.io/bind-completed": "yes"}
    meta = {"name": "shared", "namespace": "web", "annotations": notes}
    return {"metadata": meta, "spec": spec}


def _workload(kind: str, copies: int, cpu: str) -> dict[str, Any]:
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": "shared"}}
    pod: dict[str, Any] = {"containers": [container], "volumes": [volume]}
    if kind == "Job":
        pod["restartPolicy"] = "Never"
    template = {"metadata": {"labels": {"app": "web"}}, "spec": pod}
    if kind == "Job":
        spec = {"parallelism": copies, "completions": copies, "template": template}
        return {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "web", "namespace": "web"},
            "spec": spec,
        }
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "web", "namespace": "web"},
        "spec": {
            "replicas": copies,
            "selector": {"matchLabels": {"app": "web"}},
            "template": template,
        },
    }


def _run(workload: dict[str, Any], claim: dict[str, Any]) -> Any:
    nodes = [api_node(n, cpu="1", labels={HOST: n}) for n in ("n-a", "n-b")]
    storage: dict[str, Any] = {
        "persistentVolumes": [
            local_volume("pv-a", "n-a", access="ReadWriteMany"),
            local_volume("pv-b", "n-b", access="ReadWriteMany"),
        ],
        "persistentVolumeClaims": [claim],
        "storageClasses": [LOCAL, PROVISIONED],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    report = check([Document(Location("w.yaml", 1), workload)], snapshot, RunOptions())
    (result,) = report.results
    return result


HELD = (
    "0/2 nodes are available: 1 Insufficient cpu, 1 " + AFFINITY + ". no new claims to "
    f"deallocate, preemption: 0/2 nodes are available: 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}."
)

CASES = [
    pytest.param(
        _workload("Deployment", 2, "600m"),
        _claim("local"),
        (Verdict.PARTIAL, 1, HELD),
        id="the second copy is held to the node whose volume the first bound and finds no room",
    ),
    pytest.param(
        _workload("Deployment", 2, "300m"),
        _claim("local"),
        (Verdict.YES, 2, None),
        id="copies that fit the node whose volume the first bound all start there",
    ),
    pytest.param(
        _workload("Job", 2, "600m"),
        _claim("local"),
        (Verdict.PARTIAL, 1, HELD),
        id="a job's pods created at once are held to the first one's volume too",
    ),
    pytest.param(
        _workload("Deployment", 2, "600m"),
        _claim("local", volume="pv-a"),
        (Verdict.PARTIAL, 1, HELD),
        id="a claim the first copy binds reads as one bound from the start",
    ),
    pytest.param(
        _workload("Deployment", 2, "600m"),
        _claim("provisioned"),
        (Verdict.YES, 2, None),
        id="a claim to provision holds no copy to the first one's node",
    ),
]


@pytest.mark.parametrize(("workload", "claim", "expected"), CASES)
def test_copies_sharing_a_waiting_claim_meet_it_bound_after_the_first(
    workload: dict[str, Any], claim: dict[str, Any], expected: tuple[Verdict, int, str | None]
) -> None:
    result = _run(workload, claim)
    assert (result.verdict, result.placement.fit, result.message) == expected


# fitgate's own bound (gate.k8s.claims.FOLLOWED_COPIES): a claim object a copy and a walk
# over the copies, for a count the API server accepts up to 2,147,483,647
MOST = 2_147_483_647
_CLAIM_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def _own_claims(kind: str, copies: int) -> dict[str, Any]:
    workload = _workload(kind, copies, "100m")
    if kind == "StatefulSet":
        workload["spec"]["serviceName"] = "web"
        template = {"metadata": {"name": "data"}, "spec": _CLAIM_SPEC}
        workload["spec"]["volumeClaimTemplates"] = [template]
        del workload["spec"]["template"]["spec"]["volumes"]
    else:
        ephemeral = {"volumeClaimTemplate": {"spec": _CLAIM_SPEC}}
        workload["spec"]["template"]["spec"]["volumes"] = [{"name": "data", "ephemeral": ephemeral}]
    return workload


@pytest.mark.parametrize(
    ("kind", "copies", "refused"),
    [
        pytest.param("StatefulSet", MOST, True, id="a statefulset past the bound is an error"),
        pytest.param("Deployment", MOST, True, id="ephemeral volumes past the bound are an error"),
        pytest.param("StatefulSet", 10_001, True, id="one copy past the bound is an error"),
        pytest.param("StatefulSet", 10_000, False, id="copies at the bound are judged"),
        pytest.param("Deployment", 10_000, False, id="ephemeral volumes at the bound are judged"),
    ],
)
def test_copies_with_claims_of_their_own_past_the_bound_are_not_judged(
    kind: str, copies: int, refused: bool
) -> None:
    (found,) = extract_all(iter([Document(Location("w.yaml", 1), _own_claims(kind, copies))]))
    if refused:
        assert isinstance(found, Unevaluated)
        assert (found.verdict, found.reason) == (
            Verdict.ERROR,
            f"{copies:,} copies with claims of their own: fitgate creates and follows the "
            "claims of at most 10,000 copies, so it cannot judge these",
        )
    else:
        assert isinstance(found, Workload)


def test_copies_past_the_bound_that_share_a_claim_are_counted_alike_and_said_so() -> None:
    result = _run(_workload("Deployment", MOST, "600m"), _claim("local"))
    assert (result.verdict, result.placement.fit) == (Verdict.PARTIAL, 2)
    assert any("more than the 10,000 fitgate follows one by one" in w.text for w in result.warnings)
