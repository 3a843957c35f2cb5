"""What a StatefulSet's copies take as its count proceeds: the node a tracked copy lands
on, the mounts a placed copy adds to its node, the volume its claim binds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.model import Location, Workload
from gate.model.storage import Mount
from gate.scheduler.engine.claimed import chosen_node, reach
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.mounts import Mounting, VolumeUse
from gate.scheduler.framework.pods import pod_profile
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot

CLAIM = Mount("data", "persistentVolumeClaim", "data-db-0")


@pytest.mark.parametrize(
    ("fitting", "copies", "node"),
    [
        pytest.param(0b110, {}, 1, id="with no copy placed the first fitting node is taken"),
        pytest.param(0b110, {1: 1}, 2, id="a node holding no copy wins over one holding one"),
        pytest.param(0b111, {0: 2, 1: 1, 2: 1}, 1, id="among equals the first node wins"),
        pytest.param(0b100, {2: 5}, 2, id="the only fitting node is taken however full"),
    ],
)
def test_a_copy_lands_where_fewest_copies_are(
    fitting: int, copies: dict[int, int], node: int
) -> None:
    assert chosen_node(fitting, copies) == node


@given(st.integers(1, 2**12 - 1), st.dictionaries(st.integers(0, 11), st.integers(0, 3)))
def test_the_chosen_node_fits_and_holds_fewest(fitting: int, copies: dict[int, int]) -> None:
    node = chosen_node(fitting, copies)
    held = [copies.get(i, 0) for i in range(12) if fitting >> i & 1]
    assert fitting >> node & 1
    assert copies.get(node, 0) == min(held)


def test_a_placed_copy_adds_its_mounts_to_its_node_alone() -> None:
    base = VolumeUse((Mounting(0, 0, "db", "other", (CLAIM,)),))
    view = base.with_pods((Mounting(-1, 1, "db", "db-0", (CLAIM,)),))
    assert (view.on(0), [p.name for p in view.on(1)]) == (base.on(0), ["db-0"])
    assert view.claims_in_use[("db", "data-db-0")] == 2
    assert (base.on(1), base.claims_in_use[("db", "data-db-0")]) == ((), 1)
    assert (view.base, view.changed) == (base, frozenset({1}))


ZONE = "topology.kubernetes.io/zone"
WAIT = {
    "metadata": {"name": "wait"},
    "provisioner": "disk.csi.azure.com",
    "volumeBindingMode": "WaitForFirstConsumer",
}
LOCAL = {
    "metadata": {"name": "local"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def _claims(storage_class: str) -> list[dict[str, Any]]:
    meta = {"namespace": "db"}
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class}
    return [{"metadata": {**meta, "name": f"data-db-{i}"}, "spec": spec} for i in range(3)]


def _local_volume(phase: str) -> dict[str, Any]:
    spec = {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}}
    spec["storageClassName"] = "local"
    return {"metadata": {"name": "pv"}, "spec": spec, "status": {"phase": phase}}


def _csi_node(count: int) -> dict[str, Any]:
    driver = {"name": "disk.csi.azure.com", "nodeID": "n", "allocatable": {"count": count}}
    return {"metadata": {"name": "n"}, "spec": {"drivers": [driver]}}


@pytest.mark.parametrize(
    ("storage", "tracked"),
    [
        pytest.param(
            {"storageClasses": [WAIT], "csiNodes": [_csi_node(2)]},
            True,
            id="a node with less attach headroom than the copies' volumes is tracked",
        ),
        pytest.param(
            {"storageClasses": [WAIT], "csiNodes": [_csi_node(3)]},
            False,
            id="a node with headroom for every copy's volume is not",
        ),
        pytest.param(
            {"storageClasses": [WAIT], "csiNodes": [{"metadata": {"name": "n"}, "spec": {}}]},
            False,
            id="a node without a limit for the driver is not",
        ),
        pytest.param(
            {"storageClasses": [LOCAL], "persistentVolumes": [_local_volume("Available")]},
            True,
            id="an available volume of the new claims' class is tracked",
        ),
        pytest.param(
            {"storageClasses": [LOCAL], "persistentVolumes": [_local_volume("Released")]},
            False,
            id="a volume of their class that is not available is not",
        ),
    ],
)
def test_which_copies_are_tracked(storage: dict[str, Any], tracked: bool) -> None:
    storage_class = storage["storageClasses"][0]["metadata"]["name"]
    recorded: dict[str, Any] = {
        "persistentVolumes": [],
        "persistentVolumeClaims": _claims(storage_class),
        **storage,
    }
    snapshot = build_snapshot(cluster_snapshot([api_node("n")], **recorded), "s.json")
    workload = Workload(
        "StatefulSet", "db", "db", Location("db.yaml", 1), 3, {}, claim_templates=("data",)
    )
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}
    pod = pod_profile({"containers": [{"name": "c"}], "volumes": [volume]}, "db")
    assert bool(reach(workload, pod, Cluster.of(snapshot), range(1, 3))) is tracked
