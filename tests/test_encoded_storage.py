"""The volume plugins read a snapshot's volumes, claims and CSINodes kept as texts as they
read the plain objects: the binder's search for a volume to bind, the binding a copy's
claims leave and the claims a run adds find the same objects in both."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.claims import with_run_claims
from gate.model.encoded import EncodedObjects, deferred
from gate.model.storage import STORAGE_KINDS, StorageObjects
from gate.scheduler.plugins.volumebinding.binder import find_pod_volumes, matches, pre_filter
from gate.snapshot.storage import KEPT_AS_TEXT, storage_objects
from tests.builders import node
from tests.volume_support import claim, storage_class, volume

ZONE = "topology.kubernetes.io/zone"


def _both(objects: list[dict[str, Any]]) -> tuple[StorageObjects, StorageObjects]:
    """The objects as plain objects, and with the kinds the typed reader keeps as texts
    given as their texts."""
    plain: dict[str, list[Any]] = {kind: [] for kind in STORAGE_KINDS}
    texts: dict[str, list[Any]] = {kind: [] for kind in STORAGE_KINDS}
    for obj in objects:
        plain[obj["kind"]].append(obj)
        text = deferred(json.dumps(obj).encode()) if obj["kind"] in KEPT_AS_TEXT else obj
        texts[obj["kind"]].append(text)
    built = storage_objects(plain), storage_objects(texts)
    assert built[0] is not None and built[1] is not None
    return built[0], built[1]


@st.composite
def _volume(draw: st.DrawFn, number: int) -> dict[str, Any]:
    zone = draw(st.sampled_from([None, "z1", "z2"]))
    affinity: dict[str, Any] = (
        {}
        if zone is None
        else {
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
                    ]
                }
            }
        }
    )
    ref = draw(st.sampled_from([None, "c0", "c1", "other"]))
    return volume(
        f"pv-{number}",
        storageClassName=draw(st.sampled_from(["fast", "slow", ""])),
        capacity={"storage": draw(st.sampled_from(["1Gi", "5Gi"]))},
        accessModes=["ReadWriteOnce"],
        status={"phase": draw(st.sampled_from(["Available", "Bound", "Released"]))},
        **({} if ref is None else {"claimRef": {"name": ref, "namespace": "default"}}),
        **affinity,
    )


@st.composite
def _claims(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [
        claim(
            f"c{i}",
            storageClassName=draw(st.sampled_from(["fast", "slow"])),
            accessModes=["ReadWriteOnce"],
            resources={"requests": {"storage": draw(st.sampled_from(["1Gi", "2Gi"]))}},
        )
        for i in range(draw(st.integers(1, 2)))
    ]


_CLASSES = [
    storage_class("fast", provisioner="d", volumeBindingMode="WaitForFirstConsumer"),
    storage_class("slow", provisioner="d", volumeBindingMode="WaitForFirstConsumer"),
]


@given(
    st.lists(st.integers(0, 10**6), max_size=8, unique=True).flatmap(
        lambda numbers: st.tuples(*(_volume(n) for n in numbers))
    ),
    _claims(),
    st.sampled_from(["z1", "z2"]),
)
def test_the_binder_finds_the_same_volumes_in_texts_as_in_objects(
    volumes: tuple[dict[str, Any], ...], claims: list[dict[str, Any]], zone: str
) -> None:
    plain, kept = _both([*volumes, *claims, *_CLASSES])
    on = node("n", labels={ZONE: zone})
    assert matches(claims, kept, on) == matches(claims, plain, on)
    names = tuple(c["metadata"]["name"] for c in claims)
    states = [pre_filter("default", names, objects) for objects in (kept, plain)]
    assert states[0].refusal == states[1].refusal
    assert list(states[0].waiting) == list(states[1].waiting)
    assert find_pod_volumes(states[0], on) == find_pod_volumes(states[1], on)


_VALID = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
"""A claim's spec the API server takes."""


def test_the_claims_a_run_adds_are_laid_over_the_recorded_ones() -> None:
    recorded = [claim("data-db-0", storageClassName="fast", bound=True), *_CLASSES]
    statefulset = {
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {
            "replicas": 3,
            "volumeClaimTemplates": [
                {"metadata": {"name": "data"}, "spec": {**_VALID, "storageClassName": "fast"}}
            ],
        },
    }
    added = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "x"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    plain, kept = _both(recorded)
    with_plain, with_kept = (with_run_claims(s, [added, statefulset]) for s in (plain, kept))
    assert with_plain is not None and with_kept is not None
    assert isinstance(with_kept.claims, EncodedObjects)
    assert list(with_kept.claims.items()) == list(with_plain.claims.items())
    assert list(with_kept.claims) == [
        ("default", "data-db-0"),
        ("default", "x"),
        ("default", "data-db-1"),
        ("default", "data-db-2"),
    ]
