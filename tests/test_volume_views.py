"""A view of the cluster's pods that leaves a workload's running pods out: what it says
they mount (the mounts index) and what NodeVolumeLimits counts of them, worked out from
its base, equal what a cluster that never held those pods says."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.volumes import mounts_of
from gate.model import ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.mounts import VolumeUse
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Parts, Rejection
from gate.scheduler.plugins.nodevolumelimits import PLUGIN, Counts, counts_of
from tests.builders import node
from tests.volume_support import DIALECT, NAMESPACE, claim, storage, volume

DRIVER = "ebs.csi.aws.com"
CLAIMS = 6
NODES = 3


def _objects(limits: list[int | None]) -> StorageObjects:
    """A claim bound to a CSI volume per index, and each node's CSINode (None: none)."""
    objects: list[dict[str, Any]] = []
    for i in range(CLAIMS):
        source = {"csi": {"driver": DRIVER, "volumeHandle": f"vol-{i}"}}
        objects += [volume(f"pv-{i}", **source), claim(f"c-{i}", volumeName=f"pv-{i}")]
    for i, limit in enumerate(limits):
        if limit is not None:
            listed = {"name": DRIVER, "allocatable": {"count": limit}}
            spec = {"drivers": [listed]}
            objects.append({"kind": "CSINode", "metadata": {"name": f"n{i}"}, "spec": spec})
    return storage(*objects)


def _volumes(claims: list[int]) -> list[dict[str, Any]]:
    return [{"name": f"v{c}", "persistentVolumeClaim": {"claimName": f"c-{c}"}} for c in claims]


def _cluster(objects: StorageObjects, pods: dict[str, tuple[int, list[int]]]) -> Cluster:
    """The pods (by name) on their nodes, each mounting its claims."""
    existing = tuple(ExistingPod(NAMESPACE, name, f"n{n}", {}) for name, (n, _) in pods.items())
    mounts = {(NAMESPACE, name): mounts_of(_volumes(c)) for name, (_, c) in pods.items()}
    nodes: tuple[NodeView, ...] = tuple(node(f"n{i}") for i in range(NODES))
    info = SnapshotInfo("test", None, None, None, None, NODES, len(existing))
    snapshot = Snapshot(info=info, nodes=nodes, pods=existing, storage=objects, mounts=mounts)
    return Cluster.of(snapshot)


def _mounted(use: VolumeUse) -> tuple[dict[int, list[str]], dict[tuple[str, str], int]]:
    """The pods' names by node and the claims in use, as a cluster of those pods has them."""
    by_node = {n: [p.name for p in use.on(n)] for n in range(NODES) if use.on(n)}
    assert by_node == {n: [p.name for p in pods] for n, pods in use.by_node.items() if pods}
    return by_node, {k: n for k, n in use.claims_in_use.items() if n > 0}


def _counted(counts: Counts) -> tuple[object, ...]:
    uniques = {f"{DRIVER}/vol-{i}" for i in range(CLAIMS)}
    return (
        [(n.attached, n.key) for n in counts.nodes],
        {key: bits for key, bits in counts.groups.items() if bits},
        {unique: counts.holding(unique) for unique in uniques},
    )


PODS = st.lists(
    st.tuples(
        st.integers(0, NODES - 1), st.lists(st.integers(0, CLAIMS - 1), max_size=3, unique=True)
    ),
    max_size=8,
)


@settings(max_examples=80, deadline=None)
@given(
    pods=PODS,
    left_out=st.sets(st.integers(0, 7)),
    limits=st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=NODES, max_size=NODES),
    wanted=st.lists(st.integers(0, CLAIMS - 1), min_size=1, max_size=3, unique=True),
)
def test_a_view_without_some_pods_counts_as_a_cluster_that_never_held_them(
    pods: list[tuple[int, list[int]]],
    left_out: set[int],
    limits: list[int | None],
    wanted: list[int],
) -> None:
    objects = _objects(limits)
    cluster = _cluster(objects, {f"p{i}": pod for i, pod in enumerate(pods)})
    excluded = {i for i in left_out if i < len(pods)}
    fresh = _cluster(objects, {f"p{i}": pod for i, pod in enumerate(pods) if i not in excluded})
    # other views first: the shared per-pod memo must not leak between them
    for other in ({0}, {len(pods) - 1}) if pods else ():
        counts_of(cluster.index, objects, cluster.without(other).others.volume_use)
    view = cluster.without(sorted(excluded))
    assert _mounted(view.others.volume_use) == _mounted(fresh.others.volume_use)
    counted = counts_of(view.index, objects, view.others.volume_use)
    expected = counts_of(fresh.index, objects, fresh.others.volume_use)
    assert _counted(counted) == _counted(expected)
    spec = {"containers": [{"name": "c", "image": "i"}], "volumes": _volumes(wanted)}
    profile = pod_profile(spec, NAMESPACE)
    state, alone = PLUGIN.prepare(profile, view), PLUGIN.prepare(profile, fresh)
    for n in view.index.nodes:
        assert PLUGIN.check(state, n, DIALECT) == PLUGIN.check(alone, n, DIALECT)
    assert _per_node(PLUGIN.parts(view.index, state, DIALECT, view.index.everyone)) == (
        _per_node(PLUGIN.parts(fresh.index, alone, DIALECT, fresh.index.everyone))
    )


def _per_node(parts: Parts) -> dict[int, Rejection | None]:
    return {p: rejection for bits, rejection in parts for p in range(NODES) if bits >> p & 1}
