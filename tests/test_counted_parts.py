"""NodeVolumeLimits counts a cluster's mounting pods from the parts of their claims and
volumes it reads: a pod's counted volumes are the same as from the whole objects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.volumes import BETA_CLASS
from gate.model.encoded import EncodedObjects, deferred
from gate.model.storage import Mount, StorageObjects
from gate.scheduler.plugins.nodevolumelimits.csi import attachable, counted_parts

_ANY = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=4))
_TEXT = st.sampled_from(["", "a", "vol-1", "aws://z/vol-2", "standard", "europe-west1-b"])
_DRIVERS = st.sampled_from(["ebs.csi.aws.com", "disk.csi.azure.com", ""])
_CSI = st.fixed_dictionaries({}, optional={"driver": _DRIVERS, "volumeHandle": _TEXT})
_IN_TREE: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.fixed_dictionaries({"awsElasticBlockStore": st.fixed_dictionaries({"volumeID": _TEXT})}),
    st.fixed_dictionaries({"gcePersistentDisk": st.fixed_dictionaries({"pdName": _TEXT})}),
    st.fixed_dictionaries(
        {"azureDisk": st.fixed_dictionaries({"diskURI": _TEXT, "kind": st.just("Managed")})}
    ),
    st.fixed_dictionaries({}),
)
_NAMES = st.sampled_from(["pv-0", "pv-1", "pv-2"])


@st.composite
def _volume(draw: st.DrawFn) -> Any:
    spec: dict[str, Any] = draw(_IN_TREE)
    if draw(st.booleans()):
        spec["csi"] = draw(st.one_of(_CSI, _ANY))
    spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": []}}
    labels = draw(st.dictionaries(st.sampled_from(["topology.kubernetes.io/zone"]), _TEXT))
    return draw(
        st.one_of(
            st.just({"metadata": {"name": "pv", "labels": labels}, "spec": spec, "status": {}}),
            st.just({"spec": spec}),
            st.just({"metadata": None, "spec": None}),
            st.just({"spec": ["not", "an", "object"]}),
        )
    )


@st.composite
def _claim(draw: st.DrawFn) -> Any:
    spec = draw(
        st.fixed_dictionaries(
            {}, optional={"volumeName": st.one_of(_NAMES, _ANY), "storageClassName": _TEXT}
        )
    )
    annotations = draw(st.dictionaries(st.just(BETA_CLASS), st.one_of(_TEXT, _ANY)))
    metadata = {"name": draw(_TEXT), "namespace": "default", "annotations": annotations}
    return {"metadata": metadata, "spec": spec, "status": {"phase": "Bound"}}


def _encoded(objects: dict[Any, Any]) -> EncodedObjects[Any]:
    return EncodedObjects({k: deferred(json.dumps(v).encode()) for k, v in objects.items()})


_CLASSES = {
    "standard": {"provisioner": "kubernetes.io/aws-ebs"},
    "a": {"provisioner": "disk.csi.azure.com"},
}
_CSI_NODE = {"metadata": {"name": "node"}, "spec": {"drivers": []}}


@given(
    st.dictionaries(st.sampled_from(["c-0", "c-1", "c-2"]), _claim(), max_size=3),
    st.dictionaries(_NAMES, _volume(), max_size=3),
    st.sampled_from([None, _CSI_NODE]),
)
def test_a_pods_counted_volumes_are_the_same_from_the_parts_the_count_reads(
    claims: dict[str, Any], volumes: dict[str, Any], csi_node: dict[str, Any] | None
) -> None:
    storage = StorageObjects(
        volumes=_encoded(volumes),
        claims=_encoded({("default", name): claim for name, claim in claims.items()}),
        classes=_CLASSES,
    )
    mounts = tuple(Mount("v", "persistentVolumeClaim", name) for name in ("c-0", "c-1", "c-2"))
    whole = attachable("default", "pod", mounts, storage, csi_node)
    assert attachable("default", "pod", mounts, counted_parts(storage), csi_node) == whole


@pytest.mark.parametrize(
    "objects",
    [
        pytest.param({"pv": {"spec": {"csi": {"driver": "d"}}, "status": {}}}, id="kept as texts"),
        pytest.param({}, id="empty"),
    ],
)
def test_the_parts_read_are_a_view_of_the_same_objects_and_plain_ones_stay(
    objects: dict[str, Any],
) -> None:
    encoded = _encoded(objects)
    parts = counted_parts(StorageObjects(volumes=encoded, claims={}))
    assert isinstance(parts.volumes, EncodedObjects)
    assert list(parts.volumes) == list(encoded)
    assert parts.volumes != encoded or not objects  # read in part, so not the whole objects
    assert parts.claims == {}
