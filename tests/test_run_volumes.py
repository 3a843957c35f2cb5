"""The PersistentVolumes among a run's own manifests: a chart's local volume shipped beside
its WaitForFirstConsumer claim is bound where its node affinity allows, as the volume
controller leaves a new volume (``pv_controller.go`` ``syncVolume``) and the scheduler's
binder then matches it."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.claims import created_claim, created_volume, prebound, run_volumes, synced_volume
from gate.k8s.validation import persistent_volume_problems
from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot

HOSTNAME = "kubernetes.io/hostname"
LOCAL_CLASS = {
    "metadata": {"name": "local"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}
NO_VOLUME = "node(s) didn't find available persistent volumes to bind"
PRE_BOUND = {"namespace": "web", "name": "data"}


def _volume(name: str = "pv-a", node: str = "n-a", **spec: Any) -> dict[str, Any]:
    affinity = {"key": HOSTNAME, "operator": "In", "values": [node]}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "storageClassName": "local",
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteOnce"],
            "local": {"path": "/mnt/disks/a"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [affinity]}]}},
            **spec,
        },
    }


def _claim(name: str = "data") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "web"},
        "spec": {
            "storageClassName": "local",
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "5Gi"}},
        },
    }


def _deployment(claim: str = "data") -> dict[str, Any]:
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


def _run(manifests: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> Any:
    nodes = [api_node(n, labels={HOSTNAME: n}) for n in ("n-a", "n-b")]
    storage: dict[str, Any] = {
        "persistentVolumes": recorded,
        "persistentVolumeClaims": [],
        "storageClasses": [LOCAL_CLASS],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    documents = [Document(Location("m.yaml", 1 + 40 * i), b) for i, b in enumerate(manifests)]
    (result,) = [
        r for r in check(documents, snapshot, RunOptions()).results if r.kind == "Deployment"
    ]
    return result


def _recorded(node: str) -> dict[str, Any]:
    volume = _volume(node=node)
    volume["spec"]["persistentVolumeReclaimPolicy"] = "Retain"
    return {**volume, "status": {"phase": "Available"}}


CASES = [
    pytest.param(
        [_volume(), _claim(), _deployment()],
        [],
        ("n-a",),
        id="a shipped local volume beside its waiting claim holds the pod to its node",
    ),
    pytest.param(
        [_volume(claimRef={"namespace": "web", "name": "data"}), _claim(), _deployment()],
        [],
        ("n-a",),
        id="a shipped volume pre-bound to the shipped claim is bound to it",
    ),
    pytest.param(
        [_volume(claimRef={"namespace": "web", "name": "other"}), _claim(), _deployment()],
        [],
        (),
        id="a shipped volume pre-bound to another claim is not taken",
    ),
    pytest.param(
        [_volume(node="n-a"), _claim(), _deployment()],
        [_recorded("n-b")],
        ("n-b",),
        id="a shipped volume the cluster already holds stays as recorded",
    ),
    pytest.param(
        [_claim(), _deployment()],
        [],
        (),
        id="without the shipped volume the claim finds none",
    ),
    pytest.param(
        [_volume(node="n-z", claimRef=PRE_BOUND), _claim(), _deployment()],
        [],
        (),
        id="a claim the controller bound to a volume of no node's is held to that volume",
    ),
    pytest.param(
        [_volume(node="n-z"), _claim(), _deployment()],
        [],
        (),
        id="a volume of no node's the claim would match is not bound before its pod",
    ),
]
AFFINITY_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
REASONS = [NO_VOLUME, NO_VOLUME, NO_VOLUME, NO_VOLUME, NO_VOLUME, AFFINITY_CONFLICT, NO_VOLUME]


@pytest.mark.parametrize(
    ("manifests", "recorded", "fits", "reason"),
    [
        pytest.param(*case.values, reason, id=case.id)
        for case, reason in zip(CASES, REASONS, strict=True)
    ],
)
def test_a_shipped_volume_is_judged_as_the_controller_leaves_it(
    manifests: list[dict[str, Any]],
    recorded: list[dict[str, Any]],
    fits: tuple[str, ...],
    reason: str,
) -> None:
    result = _run(manifests, recorded)
    assert result.fits == fits
    if fits:
        assert (result.verdict, result.message) == (Verdict.YES, None)
    else:
        assert result.verdict is Verdict.NO
        assert f"2 {reason}" in (result.message or "")


def test_a_prebound_waiting_claim_is_bound_by_the_controller() -> None:
    """syncUnboundClaim binds a claim waiting for its first consumer to a volume pre-bound to
    it (FindMatchingVolume without a node returns a pre-bound volume before it skips delayed
    claims); a volume too small for it, or pre-bound to another claim, is not taken."""
    claim = created_claim(_claim(), {"local": LOCAL_CLASS})
    pre = {"namespace": "web", "name": "data"}
    volumes = {
        "small": synced_volume(
            created_volume(_volume("small", claimRef=pre, capacity={"storage": "1Gi"})), {}
        ),
        "other": synced_volume(created_volume(_volume("other", claimRef={**pre, "name": "x"})), {}),
        "pv-a": synced_volume(created_volume(_volume(claimRef=pre)), {}),
    }
    bound, taken = prebound({("web", "data"): claim}, volumes, {"local": LOCAL_CLASS})
    assert list(taken) == ["pv-a"] and taken["pv-a"]["status"]["phase"] == "Bound"
    bound_claim = bound["web", "data"]
    assert bound_claim["spec"]["volumeName"] == "pv-a"
    assert bound_claim["metadata"]["annotations"] == {
        "pv.kubernetes.io/bound-by-controller": "yes",
        "pv.kubernetes.io/bind-completed": "yes",
    }
    immediate = {"local": {**LOCAL_CLASS, "volumeBindingMode": "Immediate"}}
    assert prebound({("web", "data"): claim}, volumes, immediate) == ({}, {})


def test_a_created_volume_carries_the_api_server_s_defaults() -> None:
    """SetDefaults_PersistentVolume: reclaim policy Retain, volume mode Filesystem, phase
    Pending before the controller's sync; a volume belongs to no namespace."""
    body = _volume()
    body["metadata"] = {"name": "pv-a", "namespace": "web", "uid": "u"}
    body["status"] = {"phase": "Bound"}
    created = created_volume(body)
    assert created["metadata"] == {"name": "pv-a"}
    assert created["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert created["spec"]["volumeMode"] == "Filesystem"
    assert created["status"] == {"phase": "Pending"}
    kept = created_volume(_volume(persistentVolumeReclaimPolicy="Delete", volumeMode="Block"))
    assert kept["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    assert kept["spec"]["volumeMode"] == "Block"


def _claim_of(uid: str, volume_name: str = "") -> dict[str, Any]:
    return {
        "metadata": {"name": "data", "namespace": "web", "uid": uid},
        "spec": {"volumeName": volume_name},
    }


BOUND_BY_CONTROLLER = {"pv.kubernetes.io/bound-by-controller": "yes"}
REF = {"namespace": "web", "name": "data", "uid": "u1"}
SYNCS = [
    pytest.param(None, {}, {}, "Available", None, id="a volume naming no claim is Available"),
    pytest.param(
        {"namespace": "web", "name": "data"},
        {},
        {},
        "Available",
        {"namespace": "web", "name": "data"},
        id="a volume pre-bound by name alone is Available to that claim",
    ),
    pytest.param(REF, {}, {}, "Released", REF, id="a volume naming a missing claim is Released"),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u2")},
        {},
        "Released",
        REF,
        id="a volume naming a claim of another uid is Released",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1", "pv-a")},
        {},
        "Bound",
        REF,
        id="a volume naming the claim bound to it is Bound",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1")},
        {},
        "Pending",
        REF,
        id="a volume naming an unbound claim waits for the claim's sync",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1", "pv-b")},
        {},
        "Available",
        {"namespace": "web", "name": "data"},
        id="a volume a user bound to a claim bound elsewhere stays pre-bound to it",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1", "pv-b")},
        BOUND_BY_CONTROLLER,
        "Available",
        None,
        id="a volume the controller bound to a claim bound elsewhere is freed",
    ),
]


@pytest.mark.parametrize(("ref", "claims", "notes", "phase", "kept_ref"), SYNCS)
def test_the_controller_s_first_sync_sets_the_phase(
    ref: dict[str, Any] | None,
    claims: dict[tuple[str, str], Any],
    notes: dict[str, str],
    phase: str,
    kept_ref: dict[str, Any] | None,
) -> None:
    body = _volume() if ref is None else _volume(claimRef=ref)
    body["metadata"]["annotations"] = notes
    synced = synced_volume(created_volume(body), claims)
    assert synced["status"]["phase"] == phase
    assert synced["spec"].get("claimRef") == kept_ref
    assert "pv.kubernetes.io/bound-by-controller" not in synced["metadata"].get("annotations", {})


def _spec_without(key: str) -> dict[str, Any]:
    volume = _volume()
    del volume["spec"][key]
    return volume


REFUSED = [
    pytest.param(_volume(), [], id="a local volume with node affinity is taken"),
    pytest.param(
        _spec_without("nodeAffinity"),
        ["spec.nodeAffinity: Required value: Local volume requires node affinity"],
        id="a local volume without node affinity is refused",
    ),
    pytest.param(
        _spec_without("accessModes"),
        ["spec.accessModes: Required value"],
        id="a volume without access modes is refused",
    ),
    pytest.param(
        _volume(capacity={"storage": "0"}),
        ['spec.capacity[storage]: Invalid value: "0": must be greater than zero'],
        id="a volume of no capacity is refused",
    ),
    pytest.param(
        _volume(persistentVolumeReclaimPolicy="Keep"),
        [
            'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: '
            '"Delete", "Recycle", "Retain"'
        ],
        id="an unknown reclaim policy is refused",
    ),
    pytest.param(
        _volume(local={"path": "/mnt/../etc"}),
        ["spec.local.path: Invalid value: \"/mnt/../etc\": must not contain '..'"],
        id="a local path that steps back is refused",
    ),
    pytest.param(
        _volume(hostPath={"path": "/mnt"}),
        ["spec.local: Forbidden: may not specify more than 1 volume type"],
        id="a second source is refused in upstream's order (host path before local)",
    ),
    pytest.param(
        _volume(nodeAffinity={"required": {"nodeSelectorTerms": []}}),
        [
            "spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least "
            "one node selector term"
        ],
        id="a node affinity of no terms is refused",
    ),
    pytest.param(
        _volume(volumeMode="Raw"),
        ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"'],
        id="an unknown volume mode is refused",
    ),
]


@pytest.mark.parametrize(("body", "problems"), REFUSED)
def test_a_volume_the_api_server_refuses_is_never_created(
    body: dict[str, Any], problems: list[str]
) -> None:
    """ValidatePersistentVolume (pkg/apis/core/validation/validation.go): the errors it gives,
    and a refused volume is not among the run's."""
    assert persistent_volume_problems(body) == problems
    shipped = run_volumes(set(), [body], {})
    assert bool(shipped) is not bool(problems)
