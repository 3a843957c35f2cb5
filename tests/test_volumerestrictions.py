"""VolumeRestrictions' PreFilter on the claims a pod mounts (volumerestrictions/
volume_restrictions_test.go, v1.34: a claim that does not exist is
UnschedulableAndUnresolvable with the lister's error; a pod without conflicting claims
is skipped), and the plugins passing every node when the snapshot recorded no storage."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.volumes import mounts_of
from gate.model import Code, ExistingPod, Snapshot, SnapshotInfo
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins import FILTERS
from gate.scheduler.plugins.volumerestrictions import PLUGIN
from tests.builders import node
from tests.volume_support import DIALECT, claim, cluster_of, run_plugin, storage, with_claims

MISSING = Rejection(
    "VolumeRestrictions",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ('persistentvolumeclaim "gone" not found',),
)
CASES = [
    pytest.param([], storage(), (None, None), id="a pod without claims passes"),
    pytest.param(["data"], storage(claim("data")), (None, None), id="a claim that exists passes"),
    pytest.param(
        ["data", "gone"],
        storage(claim("data")),
        (MISSING, MISSING),
        id="a claim that does not exist is the PreFilter's rejection",
    ),
    pytest.param(
        ["gone"],
        storage(claim("gone", namespace="other")),
        (MISSING, MISSING),
        id="a claim of the same name in another namespace is not the pod's",
    ),
]


@pytest.mark.parametrize(("claims", "objects", "expected"), CASES)
def test_volume_restrictions(
    claims: list[str], objects: StorageObjects, expected: tuple[Rejection | None, ...]
) -> None:
    assert run_plugin(PLUGIN, with_claims(*claims), objects, node("n")) == expected


@pytest.mark.parametrize(
    "objects",
    [
        pytest.param(None, id="no storage objects recorded"),
        pytest.param(
            StorageObjects(recorded=frozenset({"PersistentVolume"})),
            id="volumes recorded without their claims",
        ),
    ],
)
def test_without_claims_recorded_every_volume_plugin_passes(
    objects: StorageObjects | None,
) -> None:
    where = cluster_of(objects, node("n"))
    pod = pod_profile(with_claims("gone"))
    for plugin in FILTERS:
        if plugin.family.value == "storage":
            state = plugin.prepare(pod, where)
            assert plugin.passes(state)
            assert plugin.check(state, node("n"), DIALECT) is None


GCE = [{"name": "v", "gcePersistentDisk": {"pdName": "foo"}}]
GCE_2 = [{"name": "v", "gcePersistentDisk": {"pdName": "bar"}}]
AWS = [{"name": "v", "awsElasticBlockStore": {"volumeID": "foo"}}]
AWS_2 = [{"name": "v", "awsElasticBlockStore": {"volumeID": "bar"}}]
RBD = [{"name": "v", "rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar"}}]
RBD_2 = [{"name": "v", "rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar"}}]
ISCSI = [
    {
        "name": "v",
        "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01"},
    }
]
ISCSI_2 = [
    {
        "name": "v",
        "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01"},
    }
]
DISK_CONFLICT = Rejection(
    "VolumeRestrictions", Code.UNSCHEDULABLE, ("node(s) had no available disk",)
)
IN_USE = Rejection(
    "VolumeRestrictions",
    Code.UNSCHEDULABLE,
    (
        "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
        "already in-use by another pod",
    ),
)


def _on_node(
    volumes: list[dict[str, Any]],
    running: list[list[dict[str, Any]]],
    objects: StorageObjects | None = None,
    where: str = "node-1",
) -> Rejection | None:
    """The Filter's answer on node-1 for a pod with ``volumes``, each of ``running`` a pod
    on node ``where`` (node-2 is another node)."""
    nodes = (node("node-1"), node("node-2"))
    pods = tuple(ExistingPod("default", f"p{i}", where, {}) for i in range(len(running)))
    mounts = {("default", f"p{i}"): mounts_of(v) for i, v in enumerate(running)}
    info = SnapshotInfo("test", None, None, None, None, 2, len(pods))
    snapshot = Snapshot(info=info, nodes=nodes, pods=pods, storage=objects, mounts=mounts)
    cluster = Cluster.of(snapshot)
    spec = {"containers": [{"name": "c", "image": "i"}], "volumes": volumes}
    state = PLUGIN.prepare(pod_profile(spec), cluster)
    answer = PLUGIN.check(state, nodes[0], DIALECT)
    parts = [r for bits, r in PLUGIN.parts(cluster.index, state, DIALECT, 0b11) if bits & 1]
    assert parts == [answer] or (PLUGIN.passes(state) and answer is None)
    return answer


def _disk_table(kind: str, state: list[Any], state_2: list[Any]) -> list[Any]:
    """One of upstream's four Test<Kind>DiskConflicts tables."""
    return [
        pytest.param([], [], None, id=f"{kind}: nothing"),
        pytest.param([], [state], None, id=f"{kind}: one state"),
        pytest.param(state, [state], DISK_CONFLICT, id=f"{kind}: same state"),
        pytest.param(state_2, [state], None, id=f"{kind}: different state"),
    ]


DISK_CASES = [
    *_disk_table("GCE PD", GCE, GCE_2),
    *_disk_table("AWS EBS", AWS, AWS_2),
    *_disk_table("RBD", RBD, RBD_2),
    *_disk_table("iSCSI", ISCSI, ISCSI_2),
    pytest.param(
        [{"name": "v", "gcePersistentDisk": {"pdName": "foo", "readOnly": True}}],
        [[{"name": "v", "gcePersistentDisk": {"pdName": "foo", "readOnly": True}}]],
        None,
        id="a GCE PD both pods mount read-only is shared",
    ),
    pytest.param(
        [{"name": "v", "awsElasticBlockStore": {"volumeID": "foo", "readOnly": True}}],
        [[{"name": "v", "awsElasticBlockStore": {"volumeID": "foo", "readOnly": True}}]],
        DISK_CONFLICT,
        id="an EBS volume conflicts even read-only",
    ),
    # volume_restrictions.go isVolumeConflict: a GCE PD, an iSCSI IQN and an RBD image
    # are shared only when both pods mount them read-only
    pytest.param(
        [{"name": "v", "gcePersistentDisk": {"pdName": "foo", "readOnly": True}}],
        [GCE],
        DISK_CONFLICT,
        id="a GCE PD mounted read-only beside a read-write mount conflicts",
    ),
    pytest.param(
        [{"name": "v", "iscsi": {"iqn": "iqn.2016-12.server:t", "readOnly": True}}],
        [[{"name": "v", "iscsi": {"iqn": "iqn.2016-12.server:t", "readOnly": True}}]],
        None,
        id="an iSCSI IQN both pods mount read-only is shared",
    ),
    pytest.param(
        [{"name": "v", "rbd": {"monitors": ["a", "b"], "image": "bar", "readOnly": True}}],
        [[{"name": "v", "rbd": {"monitors": ["b"], "image": "bar", "readOnly": True}}]],
        None,
        id="an RBD image both pods mount read-only is shared",
    ),
    # core/v1 zz_generated.defaults.go: the API server gives an RBD volume without a pool
    # the pool "rbd", which the running pod carries
    pytest.param(
        [{"name": "v", "rbd": {"monitors": ["a"], "image": "bar"}}],
        [[{"name": "v", "rbd": {"monitors": ["a"], "pool": "rbd", "image": "bar"}}]],
        DISK_CONFLICT,
        id="an RBD volume without a pool is in the pool rbd",
    ),
]


@pytest.mark.parametrize(("volumes", "running", "expected"), DISK_CASES)
def test_disk_conflicts(
    volumes: list[dict[str, Any]], running: list[list[dict[str, Any]]], expected: Rejection | None
) -> None:
    assert _on_node(volumes, running) == expected


def test_a_disk_on_another_node_is_no_conflict() -> None:
    assert _on_node(AWS, [AWS], where="node-2") is None


RWOP = claim("claim-with-rwop", accessModes=["ReadWriteOncePod"])
RWX = claim("claim-with-rwx", accessModes=["ReadWriteMany"])
CLAIM_RWOP = [{"name": "v", "persistentVolumeClaim": {"claimName": "claim-with-rwop"}}]
CLAIM_RWX = [{"name": "v", "persistentVolumeClaim": {"claimName": "claim-with-rwx"}}]
# TestAccessModeConflicts; v1.34 answers the conflict from the Filter, Unschedulable
ACCESS_MODE_CASES = [
    pytest.param([], [], storage(), None, id="nothing"),
    pytest.param(
        CLAIM_RWOP,
        [],
        storage(),
        Rejection(
            "VolumeRestrictions",
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            ('persistentvolumeclaim "claim-with-rwop" not found',),
        ),
        id="failed to get PVC",
    ),
    pytest.param(CLAIM_RWOP, [CLAIM_RWX], storage(RWOP, RWX), None, id="no access mode conflict"),
    pytest.param(
        CLAIM_RWOP, [CLAIM_RWOP, CLAIM_RWX], storage(RWOP, RWX), IN_USE, id="access mode conflict"
    ),
]


@pytest.mark.parametrize(("volumes", "running", "objects", "expected"), ACCESS_MODE_CASES)
def test_access_mode_conflicts(
    volumes: list[dict[str, Any]],
    running: list[list[dict[str, Any]]],
    objects: StorageObjects,
    expected: Rejection | None,
) -> None:
    assert _on_node(volumes, running, objects) == expected


def test_a_read_write_once_pod_claim_in_use_blocks_every_node_wherever_its_holder_runs() -> None:
    assert _on_node(CLAIM_RWOP, [CLAIM_RWOP], storage(RWOP), where="node-2") == IN_USE
