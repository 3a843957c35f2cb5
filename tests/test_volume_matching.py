"""FindMatchingVolume on a node (``k8s.io/component-helpers/storage/volume/pv_helpers.go``,
v1.34.1), the volume an unbound WaitForFirstConsumer claim binds: the rows of upstream's
``pkg/controller/volume/persistentvolume/index_test.go`` (TestFindingPreboundVolumes,
TestBestMatch, TestVolumeModeCheck, TestStorageObjectInUseProtectionFiltering,
TestFindMatchVolumeWithNode) the scheduler's path reaches."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.volumes import matching_volume, name_of

HOSTNAME = "kubernetes.io/hostname"
NODE = {HOSTNAME: "node-a"}


def _claim(**spec: Any) -> dict[str, Any]:
    meta = {"name": "data", "namespace": "web", "uid": "uid-data"}
    body = {"storageClassName": "local", "accessModes": ["ReadWriteOnce"], **spec}
    body.setdefault("resources", {"requests": {"storage": "10Gi"}})
    return {"metadata": meta, "spec": body}


def _volume(name: str, size: str = "10Gi", phase: str = "Available", **fields: Any) -> Any:
    meta: dict[str, Any] = {"name": name, **fields.pop("meta", {})}
    spec = {
        "storageClassName": "local",
        "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
        "capacity": {"storage": size},
        **fields,
    }
    return {"metadata": meta, "spec": spec, "status": {"phase": phase}}


def _on(node: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node]}]}
    return {"required": {"nodeSelectorTerms": [term]}}


REF = {"name": "data", "namespace": "web"}
ROWS = [
    pytest.param(
        _claim(),
        [_volume("big", "20Gi"), _volume("fit", "10Gi"), _volume("small", "5Gi")],
        "fit",
        id="the smallest available volume holding the request binds, a smaller one does not",
    ),
    pytest.param(
        _claim(),
        [_volume("first"), _volume("second")],
        "first",
        id="of two volumes alike the first listed binds",
    ),
    pytest.param(
        _claim(),
        [_volume("released", phase="Released"), _volume("pending", phase="Pending")],
        None,
        id="a volume in a phase other than Available does not bind",
    ),
    pytest.param(
        _claim(),
        [_volume("going", meta={"deletionTimestamp": "2026-01-01T00:00:00Z"})],
        None,
        id="a volume being deleted does not bind",
    ),
    pytest.param(
        _claim(volumeMode="Block"),
        [_volume("fs"), _volume("unset-mode"), _volume("block", "20Gi", volumeMode="Block")],
        "block",
        id="a block claim binds a block volume only, a volume naming no mode is a filesystem",
    ),
    pytest.param(
        _claim(accessModes=["ReadWriteMany"]),
        [_volume("rwo")],
        None,
        id="a volume lacking one of the claim's access modes does not bind",
    ),
    pytest.param(
        _claim(selector={"matchLabels": {"tier": "fast"}}),
        [
            _volume("slow", meta={"labels": {"tier": "slow"}}),
            _volume("fast", "20Gi", meta={"labels": {"tier": "fast"}}),
        ],
        "fast",
        id="a claim's selector passes over volumes whose labels it does not select",
    ),
    pytest.param(
        _claim(),
        [_volume("small"), _volume("prebound", "50Gi", phase="Pending", claimRef=REF)],
        "prebound",
        id="a volume pre-bound to the claim binds before a smaller one, whatever its phase",
    ),
    pytest.param(
        _claim(),
        [_volume("small"), _volume("prebound", claimRef=REF, nodeAffinity=_on("node-b"))],
        None,
        id="a volume pre-bound to the claim on another node leaves the claim no volume",
    ),
    pytest.param(
        _claim(),
        [_volume("other", claimRef={"name": "other", "namespace": "web"})],
        None,
        id="a volume pre-bound to another claim does not bind",
    ),
    pytest.param(
        _claim(),
        [_volume("stale", claimRef={**REF, "uid": "uid-older"})],
        None,
        id="a volume whose claim reference names another uid does not bind",
    ),
    pytest.param(
        _claim(),
        [
            _volume("there", nodeAffinity=_on("node-b")),
            _volume("here", "20Gi", nodeAffinity=_on("node-a")),
        ],
        "here",
        id="a volume whose node affinity the node fails does not bind",
    ),
    pytest.param(
        _claim(),
        [_volume("chosen"), _volume("left", "20Gi")],
        "left",
        id="a volume another claim of the pod took does not bind again",
    ),
]


@pytest.mark.parametrize(("claim", "volumes", "expected"), ROWS)
def test_the_volume_an_unbound_claim_binds(
    claim: dict[str, Any], volumes: list[Any], expected: str | None
) -> None:
    found = matching_volume(claim, volumes, NODE, {"chosen"})
    assert (None if found is None else name_of(found)) == expected
