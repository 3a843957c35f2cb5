"""The volume plugins' per-class answers (``reads``, ``passes``) are their per-node
answers: every filter run over classes of nodes gives what it gives node by node."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.volumes import mounts_of
from gate.model import ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import filter_groups, run_filters
from gate.scheduler.plugins import prepare
from tests.builders import node
from tests.volume_support import (
    DIALECT,
    claim,
    cluster_of,
    storage,
    storage_class,
    volume,
    with_claims,
)

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
TERM = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a"]}]}
OBJECTS = storage(
    storage_class("late", volumeBindingMode="WaitForFirstConsumer", provisioner="p"),
    volume("pv-zone", {ZONE: "a__b"}),
    volume("pv-beta", {BETA_ZONE: "a"}),
    volume("pv-affinity", nodeAffinity={"required": {"nodeSelectorTerms": [TERM]}}),
    claim("zonal", volumeName="pv-zone", bound=True),
    claim("beta", volumeName="pv-beta", bound=True),
    claim("pinned", volumeName="pv-affinity", bound=True),
    claim("waiting", storageClassName="late"),
    claim("immediate"),
)
LABELS = st.fixed_dictionaries(
    {},
    optional={
        ZONE: st.sampled_from(["a", "b", "c"]),
        REGION: st.sampled_from(["r1", "r2"]),
        BETA_ZONE: st.sampled_from(["a", "b"]),
    },
)
CLAIMS = st.lists(
    st.sampled_from(["zonal", "beta", "pinned", "waiting", "immediate", "missing"]),
    max_size=2,
)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(LABELS, min_size=1, max_size=6), claims=CLAIMS)
def test_classes_answer_as_nodes_do(labels: list[dict[str, str]], claims: list[str]) -> None:
    nodes: tuple[NodeView, ...] = tuple(
        node(f"n{i}", labels=node_labels) for i, node_labels in enumerate(labels)
    )
    where = cluster_of(OBJECTS, *nodes)
    cycle = prepare(pod_profile(with_claims(*claims)), where)
    per_node = [run_filters(cycle, n, DIALECT) for n in nodes]
    groups = filter_groups(where.index, cycle, DIALECT)
    per_class = [
        next((r for r, bits in groups.items() if bits >> i & 1), None) for i in range(len(nodes))
    ]
    assert per_class == per_node


DRIVER = "disk.csi.azure.com"
MOUNTED = storage(
    storage_class("late", volumeBindingMode="WaitForFirstConsumer", provisioner=DRIVER),
    *(volume(f"pv-{i}", csi={"driver": DRIVER, "volumeHandle": f"h{i}"}) for i in range(4)),
    *(claim(f"c{i}", volumeName=f"pv-{i}", bound=True) for i in range(4)),
    claim("waiting", storageClassName="late"),
    claim("rwop", volumeName="pv-0", bound=True, accessModes=["ReadWriteOncePod"]),
    *(
        {
            "kind": "CSINode",
            "metadata": {"name": f"n{i}"},
            "spec": {"drivers": [{"name": DRIVER, "allocatable": {"count": i % 3}}]},
        }
        for i in range(0, 6, 2)
    ),
)
VOLUMES = st.lists(
    st.sampled_from(
        [
            {"name": "a", "persistentVolumeClaim": {"claimName": "c0"}},
            {"name": "b", "persistentVolumeClaim": {"claimName": "c1"}},
            {"name": "c", "persistentVolumeClaim": {"claimName": "c2"}},
            {"name": "d", "persistentVolumeClaim": {"claimName": "waiting"}},
            {"name": "e", "persistentVolumeClaim": {"claimName": "rwop"}},
            {"name": "f", "awsElasticBlockStore": {"volumeID": "vol-1"}},
            {"name": "g", "gcePersistentDisk": {"pdName": "pd", "readOnly": True}},
        ]
    ),
    max_size=3,
    unique_by=lambda v: str(v["name"]),
)


@settings(max_examples=60, deadline=None)
@given(
    running=st.lists(st.tuples(st.integers(0, 5), VOLUMES), max_size=6),
    volumes=VOLUMES,
    left_out=st.sets(st.integers(0, 5), max_size=2),
)
def test_classes_answer_as_nodes_do_beside_running_pods(
    running: list[tuple[int, list[dict[str, Any]]]],
    volumes: list[dict[str, Any]],
    left_out: set[int],
) -> None:
    """NodeVolumeLimits and VolumeRestrictions with the node's pods' volumes, a view
    leaving some of those pods out included."""
    nodes: tuple[NodeView, ...] = tuple(node(f"n{i}") for i in range(6))
    pods = tuple(ExistingPod("default", f"p{i}", f"n{n}", {}) for i, (n, _) in enumerate(running))
    mounts = {("default", f"p{i}"): mounts_of(v) for i, (_, v) in enumerate(running)}
    info = SnapshotInfo("test", None, None, None, None, len(nodes), len(pods))
    snapshot = Snapshot(info=info, nodes=nodes, pods=pods, storage=MOUNTED, mounts=mounts)
    where = Cluster.of(snapshot)
    where = where.without(i for i in left_out if i < len(pods))
    spec = {"containers": [{"name": "c", "image": "i"}], "volumes": volumes}
    cycle = prepare(pod_profile(spec), where)
    per_node = [run_filters(cycle, n, DIALECT) for n in nodes]
    groups = filter_groups(where.index, cycle, DIALECT)
    per_class = [
        next((r for r, bits in groups.items() if bits >> i & 1), None) for i in range(len(nodes))
    ]
    assert per_class == per_node
