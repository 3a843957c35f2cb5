"""What a snapshot keeps of the volumes of the pods already on its nodes: a claim, a
generic ephemeral volume or an in-tree disk, for NodeVolumeLimits and VolumeRestrictions;
nothing else (a configMap, a secret, a projected token), in every format and by both
readers."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.errors import SnapshotError
from gate.live.objects import Pod
from gate.live.recorder import recorded
from gate.model.storage import Mount
from gate.snapshot.load import build_snapshot, snapshot_of_document

NODE = {
    "kind": "Node",
    "metadata": {"name": "n1", "labels": {}},
    "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}},
}
TOKEN = {"name": "kube-api-access-x7k2p", "projected": {"sources": []}}
CLAIM = {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}
EBS = {"name": "disk", "awsElasticBlockStore": {"volumeID": "vol-1", "fsType": "ext4"}}
RBD = {"name": "r", "rbd": {"monitors": ["m1"], "pool": "p", "image": "i", "readOnly": True}}


def _pod(name: str, *volumes: dict[str, Any], node: str = "n1") -> dict[str, Any]:
    spec = {"nodeName": node, "containers": [{"name": "c"}], "volumes": list(volumes)}
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "db"}, "spec": spec}


def _mounts(document: dict[str, Any]) -> list[Any]:
    """What both readers, and a replay of the recording, keep of the pods' mounts."""
    own = {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "nodes": [NODE],
        "pods": [recorded(Pod, p) for p in document["items"] if p["kind"] == "Pod"],
    }
    return [
        snapshot_of_document(document, "s").mounts,
        build_snapshot(document, "s").mounts,
        snapshot_of_document(own, "s").mounts,
    ]


CASES = [
    pytest.param([_pod("web", TOKEN)], {}, id="a pod mounting only its token is not listed"),
    pytest.param(
        [_pod("db-0", TOKEN, CLAIM)],
        {("db", "db-0"): (Mount("data", "persistentVolumeClaim", "data-db-0"),)},
        id="a pod's claim is kept by the pod",
    ),
    pytest.param(
        [_pod("legacy", EBS, RBD)],
        {
            ("db", "legacy"): (
                Mount("disk", "awsElasticBlockStore", "vol-1"),
                Mount("r", "rbd", "i", True, frozenset({"m1"}), "p"),
            )
        },
        id="in-tree disks are kept with what names them",
    ),
    pytest.param(
        [_pod("elsewhere", CLAIM, node="gone")],
        {},
        id="a pod on no node of the snapshot is not listed",
    ),
]


@pytest.mark.parametrize(("pods", "expected"), CASES)
def test_the_mounts_of_running_pods_are_kept(
    pods: list[dict[str, Any]], expected: dict[tuple[str, str], tuple[Mount, ...]]
) -> None:
    document = {"kind": "List", "items": [NODE, *pods]}
    assert _mounts(document) == [expected] * 3


def test_a_recording_keeps_only_the_volumes_the_plugins_read() -> None:
    kept = recorded(Pod, _pod("p", TOKEN, CLAIM, EBS))
    assert kept["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},
        {"name": "disk", "awsElasticBlockStore": {"volumeID": "vol-1"}},
    ]
    assert "volumes" not in recorded(Pod, _pod("p", TOKEN))["spec"]


def test_volumes_that_are_not_a_list_are_refused_by_both_readers() -> None:
    document = {"kind": "List", "items": [NODE, {**_pod("p"), "spec": {"volumes": 3}}]}
    with pytest.raises(SnapshotError):
        snapshot_of_document(document, "s")
    with pytest.raises(SnapshotError):
        build_snapshot(document, "s")


@given(
    st.builds(
        Mount,
        name=st.text(max_size=5),
        source=st.sampled_from(["persistentVolumeClaim", "ephemeral", "rbd", "azureDisk"]),
        disk=st.text(max_size=5),
        read_only=st.booleans(),
        monitors=st.frozensets(st.text(max_size=3), max_size=3),
        pool=st.text(max_size=3),
        managed=st.booleans(),
    )
)
def test_a_mount_crosses_to_the_other_process_whole(mount: Mount) -> None:
    # A second reader of a snapshot file hands its pods' mounts over pickled.
    assert pickle.loads(pickle.dumps(mount, protocol=pickle.HIGHEST_PROTOCOL)) == mount
