"""NodeVolumeLimits' counts of a view, worked out from its base's, equal the counts of a
cluster that holds the same pods from the start: a view that leaves a workload's pods out,
then the copies a count places one after another, and two counts' copies placed from the
same cluster (their positions are each count's own). A CSINode read only as far as the
count reads it says what the whole object says."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.volumes import mounts_of
from gate.model import ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.model.encoded import EncodedObjects, deferred
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.mounts import Mounting, VolumeUse
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Parts, Rejection
from gate.scheduler.plugins.nodevolumelimits import PLUGIN, Counts, counts_of, migration_of
from gate.scheduler.plugins.nodevolumelimits.csi import (
    MIGRATED_PLUGINS,
    PORTWORX,
    counted_parts,
    migration_on,
    volume_limits,
)
from tests.builders import node
from tests.volume_support import DIALECT, NAMESPACE, claim, storage, volume

DRIVERS = ("ebs.csi.aws.com", "disk.csi.azure.com")
CLAIMS = 6
NODES = 3

Pods = list[tuple[int, list[int]]]
"""Pods as (node, claims), each claim by its number."""


IN_TREE = CLAIMS - 1
"""The claim bound to an in-tree EBS volume: counted only on a node with a CSINode."""
UNIQUES = [f"{DRIVERS[i % 2]}/vol-{i}" for i in range(IN_TREE)] + [f"{DRIVERS[0]}/vol-{IN_TREE}"]


def _objects(limits: list[int | None]) -> StorageObjects:
    """A claim bound to a volume per number (a CSI one of either driver, or the in-tree
    one), and each node's CSINode with one limit per driver (None: no CSINode)."""
    objects: list[dict[str, Any]] = []
    for i in range(CLAIMS):
        source: dict[str, Any] = {"csi": {"driver": DRIVERS[i % 2], "volumeHandle": f"vol-{i}"}}
        if i == IN_TREE:
            source = {"awsElasticBlockStore": {"volumeID": f"vol-{i}"}}
        objects += [volume(f"pv-{i}", **source), claim(f"c-{i}", volumeName=f"pv-{i}")]
    for i, limit in enumerate(limits):
        if limit is not None:
            drivers = [{"name": d, "allocatable": {"count": limit}} for d in DRIVERS]
            spec = {"drivers": drivers}
            objects.append({"kind": "CSINode", "metadata": {"name": f"n{i}"}, "spec": spec})
    return storage(*objects)


def _volumes(claims: list[int]) -> list[dict[str, Any]]:
    return [{"name": f"v{c}", "persistentVolumeClaim": {"claimName": f"c-{c}"}} for c in claims]


def _cluster(objects: StorageObjects, pods: Pods) -> Cluster:
    existing = tuple(ExistingPod(NAMESPACE, f"p{i}", f"n{n}", {}) for i, (n, _) in enumerate(pods))
    mounts = {(NAMESPACE, f"p{i}"): mounts_of(_volumes(c)) for i, (_, c) in enumerate(pods)}
    nodes: tuple[NodeView, ...] = tuple(node(f"n{i}") for i in range(NODES))
    info = SnapshotInfo("test", None, None, None, None, NODES, len(existing))
    snapshot = Snapshot(info=info, nodes=nodes, pods=existing, storage=objects, mounts=mounts)
    return Cluster.of(snapshot)


def _counted(counts: Counts) -> tuple[object, ...]:
    return (
        [(n.attached, n.counts, n.key) for n in counts.nodes],
        {key: bits for key, bits in counts.groups.items() if bits},
        {unique: counts.holding(unique) for unique in UNIQUES},
    )


def _per_node(parts: Parts) -> dict[int, Rejection | None]:
    return {p: rejection for bits, rejection in parts for p in range(NODES) if bits >> p & 1}


def _same_answers(cluster: Cluster, fresh: Cluster, wanted: list[int]) -> None:
    """The Filter's answers for a pod mounting ``wanted``, node by node and split, alike
    in both clusters and alike both ways."""
    spec = {"containers": [{"name": "c", "image": "i"}], "volumes": _volumes(wanted)}
    profile = pod_profile(spec, NAMESPACE)
    state, alone = PLUGIN.prepare(profile, cluster), PLUGIN.prepare(profile, fresh)
    checked = {p: PLUGIN.check(state, n, DIALECT) for p, n in enumerate(cluster.index.nodes)}
    assert checked == {p: PLUGIN.check(alone, n, DIALECT) for p, n in enumerate(fresh.index.nodes)}
    split = _per_node(PLUGIN.parts(cluster.index, state, DIALECT, cluster.index.everyone))
    assert split == checked
    assert split == _per_node(PLUGIN.parts(fresh.index, alone, DIALECT, fresh.index.everyone))


def _placing(cluster: Cluster, use: VolumeUse, copies: Pods) -> list[tuple[Cluster, Pods]]:
    """The cluster as each copy of ``copies`` leaves it, placed one after another over
    ``use`` (as a count places them: positions -1, -2, ...), with the copies so far."""
    found = []
    for i, (n, claims) in enumerate(copies):
        copy = Mounting(-(i + 1), n, NAMESPACE, f"copy-{i}", mounts_of(_volumes(claims)))
        use = use.with_pods((copy,))
        placed = replace(cluster, others=cluster.others.mounting(use))
        counts_of(placed.index, placed.snapshot.storage or StorageObjects(), use)
        found.append((placed, copies[: i + 1]))
    return found


_POD = st.tuples(
    st.integers(0, NODES - 1), st.lists(st.integers(0, CLAIMS - 1), max_size=3, unique=True)
)


@settings(max_examples=80, deadline=None)
@given(
    pods=st.lists(_POD, max_size=8),
    left_out=st.sets(st.integers(0, 7)),
    copies=st.lists(_POD, max_size=4),
    other_copies=st.lists(_POD, max_size=4),
    limits=st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=NODES, max_size=NODES),
    wanted=st.lists(st.integers(0, CLAIMS - 1), min_size=1, max_size=3, unique=True),
)
def test_a_view_and_the_copies_placed_on_it_count_as_a_cluster_that_holds_those_pods(
    pods: Pods,
    left_out: set[int],
    copies: Pods,
    other_copies: Pods,
    limits: list[int | None],
    wanted: list[int],
) -> None:
    objects = _objects(limits)
    cluster = _cluster(objects, pods)
    kept = [pod for i, pod in enumerate(pods) if i not in left_out]
    view = cluster.without(i for i in left_out if i < len(pods))
    use = view.others.volume_use
    # another count's copies first, at the same positions: nothing of theirs may stay
    _placing(view, use, other_copies)
    for placed, so_far in [(view, []), *_placing(view, use, copies)]:
        fresh = _cluster(objects, kept + so_far)
        counted = counts_of(placed.index, objects, placed.others.volume_use)
        assert _counted(counted) == _counted(
            counts_of(fresh.index, objects, fresh.others.volume_use)
        )
        _same_answers(placed, fresh, wanted)


_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 20), st.text(max_size=3), st.just("pd.csi")
)
_DRIVER = st.one_of(
    _VALUE,
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.one_of(_VALUE, st.sampled_from(DRIVERS)),
            "allocatable": st.one_of(_VALUE, st.fixed_dictionaries({}, optional={"count": _VALUE})),
            "nodeID": _VALUE,
        },
    ),
)
_MIGRATED = st.one_of(_VALUE, st.just("kubernetes.io/portworx-volume,kubernetes.io/aws-ebs"))


@given(
    annotations=st.one_of(
        _VALUE, st.dictionaries(st.sampled_from([MIGRATED_PLUGINS, "other"]), _MIGRATED)
    ),
    drivers=st.one_of(_VALUE, st.lists(_DRIVER, max_size=3)),
    whole=st.booleans(),
)
def test_a_csinode_reads_the_same_migration_and_limits_from_the_part_the_count_reads(
    annotations: Any, drivers: Any, whole: bool
) -> None:
    metadata = {"name": "n0", "annotations": annotations} if whole else {"name": "n0"}
    csi_node = {"kind": "CSINode", "metadata": metadata, "spec": {"drivers": drivers}}
    text = json.dumps(csi_node).encode()
    kept = StorageObjects(csi_nodes=EncodedObjects({"n0": deferred(text)}))
    part = counted_parts(kept).csi_nodes["n0"]
    assert migration_of(part) == migration_of(csi_node)
    assert volume_limits(part) == volume_limits(csi_node)
    for plugin in (PORTWORX, "kubernetes.io/aws-ebs"):
        assert migration_on(part, plugin) == migration_on(csi_node, plugin)


def test_the_copies_of_a_long_count_read_their_volumes_holders_past_the_recursion_limit() -> None:
    objects = _objects([2, 2, 2])
    cluster = _cluster(objects, [(0, [0]), (1, [1])])
    copies = sys.getrecursionlimit() + 10
    use = cluster.others.volume_use
    for i in range(copies):  # the copies mount no claim: they only stack views
        use = use.with_pods((Mounting(-(i + 1), i % NODES, NAMESPACE, f"copy-{i}", ()),))
        counts = counts_of(cluster.index, objects, use)
    assert [counts.holding(unique) for unique in UNIQUES[:2]] == [0b001, 0b010]
