"""VolumeZone, row by row as upstream's tables (pkg/scheduler/framework/plugins/volumezone/
volume_zone_test.go, v1.34: TestSingleZone, TestMultiZone, TestWithBinding): each row a
pod's claim, a node's labels, and the PreFilter's and the Filter's statuses."""

from __future__ import annotations

import pytest

from gate.model import Code
from gate.model.storage import StorageObjects
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.volumezone import PLUGIN, REASON_CONFLICT, label_zones
from tests.builders import node
from tests.volume_support import claim, run_plugin, storage, storage_class, volume, with_claims

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

SINGLE = storage(
    volume("Vol_1", {BETA_ZONE: "us-west1-a"}),
    volume("Vol_2", {BETA_REGION: "us-west1", "uselessLabel": "none"}),
    volume("Vol_3", {BETA_REGION: "us-west1"}),
    volume("Vol_Stable_1", {ZONE: "us-west1-a"}),
    volume("Vol_Stable_2", {REGION: "us-west1", "uselessLabel": "none"}),
    volume("Vol_Stable_3", {ZONE: "us-west1-a", REGION: "us-west1-a"}),
    claim("PVC_1", volumeName="Vol_1"),
    claim("PVC_2", volumeName="Vol_2"),
    claim("PVC_3", volumeName="Vol_3"),
    claim("PVC_4", volumeName="Vol_not_exist"),
    claim("PVC_Stable_1", volumeName="Vol_Stable_1"),
    claim("PVC_Stable_2", volumeName="Vol_Stable_2"),
    claim("PVC_Stable_3", volumeName="Vol_Stable_3"),
)
MULTI = storage(
    volume("Vol_1", {BETA_ZONE: "us-west1-a"}),
    volume("Vol_2", {BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    volume("Vol_3", {BETA_ZONE: "us-west1-c__us-west1-a"}),
    volume("Vol_Stable_1", {ZONE: "us-west1-a"}),
    volume("Vol_Stable_2", {ZONE: "us-west1-c__us-west1-a"}),
    volume("Vol_Comma", {ZONE: "us-west1-c,us-west1-a"}),
    claim("PVC_1", volumeName="Vol_1"),
    claim("PVC_Comma", volumeName="Vol_Comma"),
    claim("PVC_3", volumeName="Vol_3"),
    claim("PVC_Stable_1", volumeName="Vol_Stable_1"),
    claim("PVC_Stable_2", volumeName="Vol_Stable_2"),
)
BINDING = storage(
    storage_class("Class_Immediate"),
    storage_class("Class_Wait", volumeBindingMode="WaitForFirstConsumer"),
    volume("Vol_1", {BETA_ZONE: "us-west1-a"}),
    claim("PVC_1", volumeName="Vol_1"),
    claim("PVC_NoSC", storageClassName="Class_0"),
    claim("PVC_EmptySC"),
    claim("PVC_WaitSC", storageClassName="Class_Wait"),
    claim("PVC_ImmediateSC", storageClassName="Class_Immediate"),
)
BINDING_NODE = {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}
CONFLICT = Rejection("VolumeZone", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_CONFLICT,))


def _own(reason: str) -> Rejection:
    return Rejection("VolumeZone", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,))


CASES = [
    # TestSingleZone
    pytest.param(
        SINGLE, [], {BETA_ZONE: "us-west1-a"}, None, None, id="a pod without volume passes"
    ),
    pytest.param(SINGLE, ["PVC_1"], {}, None, None, id="a node without labels passes"),
    pytest.param(
        SINGLE,
        ["PVC_1"],
        {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
        None,
        None,
        id="the beta zone label matched passes",
    ),
    pytest.param(
        SINGLE,
        ["PVC_2"],
        {BETA_REGION: "us-west1", "uselessLabel": "none"},
        None,
        None,
        id="the beta region label matched passes",
    ),
    pytest.param(
        SINGLE,
        ["PVC_2"],
        {BETA_REGION: "no_us-west1", "uselessLabel": "none"},
        None,
        CONFLICT,
        id="a beta region label that does not match is a conflict",
    ),
    pytest.param(
        SINGLE,
        ["PVC_1"],
        {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"},
        None,
        CONFLICT,
        id="a beta zone label that does not match is a conflict",
    ),
    pytest.param(
        SINGLE,
        ["PVC_Stable_1"],
        {ZONE: "us-west1-a"},
        None,
        None,
        id="the zone label matched passes",
    ),
    pytest.param(
        SINGLE,
        ["PVC_Stable_2"],
        {REGION: "us-west1"},
        None,
        None,
        id="the region label matched passes",
    ),
    pytest.param(
        SINGLE,
        ["PVC_Stable_2"],
        {REGION: "no_us-west1"},
        None,
        CONFLICT,
        id="a region label that does not match is a conflict",
    ),
    pytest.param(
        SINGLE,
        ["PVC_Stable_1"],
        {ZONE: "no_us-west1-a"},
        None,
        CONFLICT,
        id="a zone label that does not match is a conflict",
    ),
    pytest.param(
        SINGLE,
        ["PVC_Stable_3"],
        {ZONE: "us-west1-a"},
        None,
        CONFLICT,
        id="a volume with zone and region on a node with only the zone is a conflict",
    ),
    pytest.param(
        SINGLE,
        ["PVC_Stable_1"],
        {BETA_ZONE: "us-west1-a"},
        None,
        CONFLICT,
        id="a volume's GA zone is not read under the node's beta key",
    ),
    pytest.param(
        SINGLE,
        ["PVC_1"],
        {ZONE: "us-west1-a"},
        None,
        None,
        id="a volume's beta zone is read under the node's GA key",
    ),
    pytest.param(
        SINGLE,
        ["PVC_1"],
        {ZONE: "us-west1-b"},
        None,
        CONFLICT,
        id="a volume's beta zone read under the GA key may not match",
    ),
    # TestMultiZone
    pytest.param(MULTI, ["PVC_3"], {}, None, None, id="a node without labels passes many zones"),
    pytest.param(
        MULTI,
        ["PVC_3"],
        {BETA_ZONE: "us-west1-a"},
        None,
        None,
        id="a node in one of the volume's beta zones passes",
    ),
    pytest.param(
        MULTI,
        ["PVC_1"],
        {BETA_ZONE: "us-west1-b"},
        None,
        CONFLICT,
        id="a node outside the volume's beta zone is a conflict",
    ),
    pytest.param(
        MULTI,
        ["PVC_Stable_2"],
        {ZONE: "us-west1-a"},
        None,
        None,
        id="a node in one of the volume's zones passes",
    ),
    pytest.param(
        MULTI,
        ["PVC_Stable_1"],
        {ZONE: "us-west1-b"},
        None,
        CONFLICT,
        id="a node outside the volume's zone is a conflict",
    ),
    # Not upstream's row: LabelZonesToSet separates zones by "__" only, so a label
    # "us-west1-c,us-west1-a" is one zone that no node's label equals.
    pytest.param(
        MULTI,
        ["PVC_Comma"],
        {ZONE: "us-west1-a"},
        None,
        CONFLICT,
        id="a zone label listing zones by commas names one zone",
    ),
    # TestWithBinding
    pytest.param(
        BINDING, ["PVC_1"], BINDING_NODE, None, None, id="a bound volume in the node's zone passes"
    ),
    pytest.param(
        BINDING,
        ["PVC_EmptySC"],
        BINDING_NODE,
        _own("PersistentVolumeClaim had no pv name and storageClass name"),
        _own("PersistentVolumeClaim had no pv name and storageClass name"),
        id="an unbound claim without a class is the PreFilter's rejection",
    ),
    # Upstream's fake lister spells the resource "storageclasses"; the informer's lister,
    # which the scheduler reads, "storageclass.storage.k8s.io".
    pytest.param(
        BINDING,
        ["PVC_NoSC"],
        BINDING_NODE,
        _own('storageclass.storage.k8s.io "Class_0" not found'),
        _own('storageclass.storage.k8s.io "Class_0" not found'),
        id="an unbound claim of a missing class is the PreFilter's rejection",
    ),
    # Upstream's row has no binding mode ("VolumeBindingMode not set"); the API server
    # defaults it to Immediate, which names no volume.
    pytest.param(
        BINDING,
        ["PVC_ImmediateSC"],
        BINDING_NODE,
        _own("PersistentVolume had no name"),
        _own("PersistentVolume had no name"),
        id="an unbound claim of an immediate class is the PreFilter's rejection",
    ),
    pytest.param(
        BINDING,
        ["PVC_WaitSC"],
        BINDING_NODE,
        None,
        None,
        id="an unbound claim of a waiting class is skipped",
    ),
    pytest.param(
        SINGLE,
        ["PVC_4"],
        {ZONE: "us-west1-a"},
        _own('persistentvolume "Vol_not_exist" not found'),
        _own('persistentvolume "Vol_not_exist" not found'),
        id="a claim bound to a missing volume is the PreFilter's rejection",
    ),
]


@pytest.mark.parametrize(("objects", "claims", "labels", "pre_filter", "filtered"), CASES)
def test_volume_zone(
    objects: StorageObjects,
    claims: list[str],
    labels: dict[str, str],
    pre_filter: Rejection | None,
    filtered: Rejection | None,
) -> None:
    got = run_plugin(PLUGIN, with_claims(*claims), objects, node("host1", labels=labels))
    assert got == (pre_filter, filtered)


@pytest.mark.parametrize(
    ("value", "zones"),
    [
        pytest.param("a", frozenset({"a"}), id="one zone is itself"),
        pytest.param("a__b", frozenset({"a", "b"}), id="two underscores join zones"),
        pytest.param("a__", None, id="an empty zone makes the label unread"),
        # cloud-provider volume/helpers zones.go LabelZonesToSet splits on
        # LabelMultiZoneDelimiter ("__") alone
        pytest.param("a,b", frozenset({"a,b"}), id="a comma does not separate zones"),
        pytest.param(" a __b ", frozenset({"a", "b"}), id="spaces around a zone are trimmed"),
    ],
)
def test_label_zones(value: str, zones: frozenset[str] | None) -> None:
    assert label_zones(value) == zones
