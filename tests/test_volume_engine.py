"""The volume plugins through the engine: the FitError a claim's volume gives, the
PreFilter's own message, the cause's family and field, and a snapshot without storage
objects keeping today's verdict."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Family, Verdict
from tests.builders import api_node, cluster_snapshot
from tests.engine_support import NO_STATE, NOT_HELPFUL, evaluate, pod_spec, preempting

ZONE = "topology.kubernetes.io/zone"
CRITICAL = [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}]


def _pv(name: str, zone: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
    return {
        "metadata": {"name": name, "labels": {ZONE: zone}},
        "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [term]}}},
    }


def _claim(name: str, **spec: Any) -> dict[str, Any]:
    notes = {"pv.kubernetes.io/bind-completed": "yes"} if spec.get("volumeName") else {}
    return {"metadata": {"name": name, "namespace": "db", "annotations": notes}, "spec": spec}


NODES = [
    *(api_node(f"user-{z}", labels={ZONE: z}) for z in ("westeurope-2", "westeurope-3")),
    api_node("user-2b", labels={ZONE: "westeurope-2"}),
    *(
        api_node(f"system-{z}", labels={ZONE: z}, taints=CRITICAL)
        for z in ("westeurope-1", "westeurope-2", "westeurope-3")
    ),
]
STORAGE: dict[str, Any] = {
    "persistentVolumes": [_pv("pv-data", "westeurope-1")],
    "persistentVolumeClaims": [
        _claim("data-db-0", volumeName="pv-data", storageClassName="managed-csi"),
        _claim("fresh", storageClassName="managed-csi"),
        _claim("waiting", storageClassName="late"),
    ],
    "storageClasses": [
        {"metadata": {"name": "managed-csi"}, "provisioner": "disk.csi.azure.com"},
        {
            "metadata": {"name": "late"},
            "provisioner": "disk.csi.azure.com",
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": [
                {"matchLabelExpressions": [{"key": ZONE, "values": ["westeurope-3"]}]}
            ],
        },
    ],
}


def _mounting(claim: str) -> dict[str, Any]:
    return pod_spec(
        cpu="100m",
        volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
    )


MESSAGES = [
    pytest.param(
        "data-db-0",
        "0/6 nodes are available: 3 node(s) didn't match PersistentVolume's node affinity, "
        "3 node(s) had untolerated taint {CriticalAddonsOnly: true}."
        # every node refuses for the volume's zone or a taint: preemption cannot help
        + preempting(6, (6, NOT_HELPFUL)),
        id="a bound volume in a zone with only system nodes leaves the pod pending",
    ),
    pytest.param(
        "missing",
        '0/6 nodes are available: persistentvolumeclaim "missing" not found.' + NO_STATE,
        id="a missing claim is the PreFilter's message alone",
    ),
    pytest.param(
        "fresh",
        "0/6 nodes are available: pod has unbound immediate PersistentVolumeClaims." + NO_STATE,
        id="an unbound immediate claim is the PreFilter's message alone",
    ),
    pytest.param(
        "waiting",
        None,
        id="a waiting claim is provisioned where the class allows",
    ),
]


@pytest.mark.parametrize(("claim", "message"), MESSAGES)
def test_the_scheduler_message(claim: str, message: str | None) -> None:
    result = evaluate(cluster_snapshot(NODES, **STORAGE), _mounting(claim), namespace="db")
    assert result.message == message
    assert (result.verdict is Verdict.NO) is (message is not None)


def test_a_waiting_claim_fits_only_in_the_allowed_zone() -> None:
    result = evaluate(cluster_snapshot(NODES, **STORAGE), _mounting("waiting"), namespace="db")
    fitting = [o.node for o in result.nodes if not o.reasons]
    assert fitting == ["user-westeurope-3"]


def test_the_cause_is_storage_and_points_at_the_claim() -> None:
    result = evaluate(cluster_snapshot(NODES, **STORAGE), _mounting("data-db-0"), namespace="db")
    assert result.cause is not None
    assert result.cause.family is Family.STORAGE
    assert result.cause.plugin == "VolumeBinding"


def test_without_storage_objects_the_verdict_is_todays_with_a_warning() -> None:
    result = evaluate(cluster_snapshot(NODES), _mounting("data-db-0"), namespace="db")
    assert result.verdict is Verdict.YES
    assert any("kubectl get nodes,pods,pv,pvc" in w.text for w in result.warnings)


def test_a_name_conflict_ends_the_prefilters_before_a_missing_claim() -> None:
    """framework/runtime/framework.go RunPreFilterPlugins returns at the first
    UnschedulableAndUnresolvable status, in the profile's order: NodeAffinity's
    errReasonConflict comes before VolumeRestrictions' missing claim, and every node gets
    NodeAffinity's status (schedule_one.go SetAbsentNodesStatus)."""
    pins = [{"key": "metadata.name", "operator": "In", "values": [name]} for name in "ab"]
    required = {"nodeSelectorTerms": [{"matchFields": pins}]}
    spec = {
        **_mounting("missing"),
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}},
    }
    result = evaluate(cluster_snapshot(NODES, **STORAGE), spec, namespace="db")
    assert result.message == "0/6 nodes are available: pod affinity terms conflict." + NO_STATE
    assert {(o.plugin, o.reasons) for o in result.nodes} == {
        ("NodeAffinity", ("pod affinity terms conflict",))
    }
