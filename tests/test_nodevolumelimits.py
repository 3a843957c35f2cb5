"""NodeVolumeLimits, upstream's ``TestCSILimits`` table (nodevolumelimits/csi_test.go,
v1.34) translated row by row: the same claims, volumes, class, CSINode and pods, the same
expected status. Rows that count VolumeAttachments (not recorded) or a new pod's generic
ephemeral volume (its claim does not exist before the pod: VolumeBinding's PreFilter
rejects it first in the profile) are left out."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.volumes import mounts_of
from gate.model import Code, ExistingPod, NodeView, Snapshot, SnapshotInfo
from gate.model.storage import StorageObjects
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.nodevolumelimits import PLUGIN
from gate.scheduler.plugins.nodevolumelimits.csi import ebs_volume_id, translated
from tests.builders import node
from tests.volume_support import DIALECT, storage

EBS, GCE = "ebs.csi.aws.com", "pd.csi.storage.gke.io"
IN_TREE_EBS, HOSTPATH = "kubernetes.io/aws-ebs", "kubernetes.io/hostpath"
NODE = "node-for-max-pd-test-1"
NAMESPACE = "test"
EXCEEDED = Rejection("NodeVolumeLimits", Code.UNSCHEDULABLE, ("node(s) exceed max volume count",))


def _claims(*names: str) -> list[dict[str, Any]]:
    return [
        {"name": f"v{i}", "persistentVolumeClaim": {"claimName": n}} for i, n in enumerate(names)
    ]


def _ephemeral(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "ephemeral": {}} for n in names]


def _inline_ebs(volume_id: str) -> list[dict[str, Any]]:
    return [{"name": "inline", "awsElasticBlockStore": {"volumeID": volume_id}}]


# the pods of the table, by upstream's names: (pod name, volumes)
RUNNING = ("running", _claims("csi-ebs.csi.aws.com-3"))
PENDING_VOLUME = ("pending", _claims("csi-4"))
UNBOUND_PVC_2 = ("unbound2", _claims("csi-4"))
MISSING_PV = ("missing-pv", _claims("csi-6"))
NO_SC_PVC = ("no-sc", _claims("csi-5"))
GCE_TWO_VOL = ("gce-two", _claims(f"csi-{GCE}-1", f"csi-{GCE}-2"))
IN_TREE_ONE_VOL = ("in-tree-one", _claims(f"csi-{IN_TREE_EBS}-0"))
IN_TREE_TWO_VOL = ("in-tree-two", _claims(f"csi-{IN_TREE_EBS}-1", f"csi-{IN_TREE_EBS}-2"))
CSI_EBS_ONE_VOL = ("ebs-one", _claims(f"csi-{EBS}-0"))
CSI_EBS_TWO_VOL = ("ebs-two", _claims(f"csi-{EBS}-1", f"csi-{EBS}-2"))
NON_MIGRATABLE = ("hostpath", _claims(f"csi-{HOSTPATH}-0"))
EPHEMERAL_VOLUME = ("abc", _ephemeral("xyz"))
EPHEMERAL_TWO_VOLUME = ("abc", _ephemeral("x", "y"))
IN_TREE_INLINE = ("inline", _inline_ebs("aws-inline1"))
IN_TREE_INLINE_SAME_ID = ("inline-same", _inline_ebs(f"csi-{EBS}-1"))
ONLY_CONFIGMAP_AND_SECRET = ("cm", [{"name": "c", "configMap": {}}, {"name": "s", "secret": {}}])
PVC_WITH_CONFIGMAP = ("pvc-cm", [*ONLY_CONFIGMAP_AND_SECRET[1], *_claims(f"csi-{EBS}-0")])
INLINE_WITH_CONFIGMAP = ("inline-cm", [*ONLY_CONFIGMAP_AND_SECRET[1], *_inline_ebs("aws-inline1")])


def _objects(
    drivers: list[str], limit_source: str, limit: int, ephemeral: list[str]
) -> StorageObjects:
    """getFakeCSIPVLister, getFakeCSIPVCLister, getFakeCSIStorageClassLister,
    getNodeWithPodAndVolumeLimits and enableMigrationOnNode, as upstream builds them."""
    objects: list[dict[str, Any]] = []
    for driver in drivers:
        for j in range(4):
            name = f"csi-{driver}-{j}"
            if driver == IN_TREE_EBS:
                source: dict[str, Any] = {"awsElasticBlockStore": {"volumeID": name}}
            elif driver == HOSTPATH:
                source = {"hostPath": {"path": "/tmp"}}
            else:
                source = {"csi": {"driver": driver, "volumeHandle": name}}
            objects.append({"kind": "PersistentVolume", "metadata": {"name": name}, "spec": source})
            objects.append(_claim(name, {"volumeName": name}))
    objects.append(_claim("csi-4", {"storageClassName": "csi-sc"}))
    objects.append(_claim("csi-5", {}))
    objects.append(
        _claim("csi-6", {"storageClassName": "csi-sc", "volumeName": "missing-in-action"})
    )
    objects += [_claim(name, {"storageClassName": "csi-sc"}) for name in ephemeral]
    objects.append(
        {"kind": "StorageClass", "metadata": {"name": "csi-sc"}, "provisioner": drivers[0]}
    )
    if limit_source:
        listed = [
            {
                "name": d,
                "nodeID": NODE,
                **({"allocatable": {"count": limit}} if limit_source == "csinode" else {}),
            }
            for d in drivers
        ]
        objects.append(
            {
                "kind": "CSINode",
                "metadata": {
                    "name": NODE,
                    "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": IN_TREE_EBS},
                },
                "spec": {"drivers": listed},
            }
        )
    return storage(*objects)


def _claim(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    meta = {"name": name, "namespace": NAMESPACE}
    return {"kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def _cluster(objects: StorageObjects, existing: list[tuple[str, list[dict[str, Any]]]]) -> Cluster:
    """One node holding the pods (named as upstream's, an ephemeral claim's pod by its
    name), with what they mount."""
    pods = tuple(ExistingPod(NAMESPACE, name, NODE, {}) for name, _ in existing)
    mounts = {(NAMESPACE, name): mounts_of(volumes) for name, volumes in existing}
    info = SnapshotInfo("test", None, None, None, None, 1, len(pods))
    nodes: tuple[NodeView, ...] = (node(NODE),)
    return Cluster.of(Snapshot(info=info, nodes=nodes, pods=pods, storage=objects, mounts=mounts))


def _row(
    new: tuple[str, list[dict[str, Any]]],
    existing: list[tuple[str, list[dict[str, Any]]]],
    limit: int,
    drivers: list[str],
    limit_source: str,
    expected: Rejection | None,
    test: str,
    ephemeral: tuple[str, ...] = (),
) -> Any:
    return pytest.param(
        new, existing, limit, drivers, limit_source, expected, list(ephemeral), id=test
    )


CASES = [
    _row(
        CSI_EBS_ONE_VOL,
        [RUNNING, CSI_EBS_TWO_VOL],
        4,
        [EBS],
        "csinode",
        None,
        "fits when node volume limit >= new pods CSI volume",
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [RUNNING, CSI_EBS_TWO_VOL],
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        "doesn't when node volume limit <= pods CSI volume",
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [RUNNING, CSI_EBS_TWO_VOL],
        2,
        [EBS],
        "csinode-with-no-limit",
        None,
        "should when driver does not support volume limits",
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [PENDING_VOLUME, CSI_EBS_TWO_VOL],
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        "count pending PVCs towards volume limit <= pods CSI volume",
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [PENDING_VOLUME, UNBOUND_PVC_2, CSI_EBS_TWO_VOL],
        4,
        [EBS],
        "csinode",
        None,
        "count multiple pending pvcs towards volume limit >= pods CSI volume",
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [MISSING_PV, CSI_EBS_TWO_VOL],
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        "should count PVCs with invalid PV name but valid SC",
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [RUNNING, NO_SC_PVC],
        2,
        [EBS],
        "csinode",
        None,
        "don't count pvcs with missing SC towards volume limit",
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [GCE_TWO_VOL, CSI_EBS_TWO_VOL],
        2,
        [EBS, GCE],
        "csinode",
        EXCEEDED,
        "count pvcs with the same type towards volume limit",
    ),
    _row(
        GCE_TWO_VOL,
        [CSI_EBS_TWO_VOL, RUNNING],
        2,
        [EBS, GCE],
        "csinode",
        None,
        "don't count pvcs with different type towards volume limit",
    ),
    _row(
        IN_TREE_ONE_VOL,
        [IN_TREE_TWO_VOL],
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        "should count in-tree volumes if migration is enabled",
    ),
    _row(IN_TREE_INLINE, [IN_TREE_TWO_VOL], 0, [IN_TREE_EBS, EBS], "", None, "nil csi node"),
    _row(
        PENDING_VOLUME,
        [IN_TREE_TWO_VOL],
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        "should count unbound in-tree volumes if migration is enabled",
    ),
    _row(
        IN_TREE_ONE_VOL,
        [IN_TREE_TWO_VOL],
        2,
        [IN_TREE_EBS, EBS],
        "csinode-with-no-limit",
        None,
        "should not limit pod if volume used does not report limits",
    ),
    _row(
        NON_MIGRATABLE,
        [CSI_EBS_TWO_VOL],
        2,
        [HOSTPATH, EBS],
        "csinode",
        None,
        "should not count non-migratable in-tree volumes",
    ),
    _row(
        IN_TREE_INLINE,
        [IN_TREE_TWO_VOL],
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        "should count in-tree inline volumes if migration is enabled",
    ),
    _row(
        IN_TREE_ONE_VOL,
        [CSI_EBS_TWO_VOL],
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        "should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)",  # noqa: E501 (upstream's name)
    ),
    _row(
        IN_TREE_INLINE,
        [CSI_EBS_TWO_VOL, IN_TREE_ONE_VOL],
        3,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        "should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)",  # noqa: E501 (upstream's name)
    ),
    _row(
        IN_TREE_INLINE_SAME_ID,
        [CSI_EBS_TWO_VOL, IN_TREE_ONE_VOL],
        3,
        [IN_TREE_EBS, EBS],
        "csinode",
        None,
        "should not count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)",  # noqa: E501 (upstream's name)
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [IN_TREE_TWO_VOL],
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        "should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)",  # noqa: E501 (upstream's name)
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [RUNNING, EPHEMERAL_TWO_VOLUME],
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        "ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
        ephemeral=("abc-x", "abc-y"),
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [RUNNING, EPHEMERAL_VOLUME, CSI_EBS_TWO_VOL],
        3,
        [EBS],
        "csinode",
        EXCEEDED,
        "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",  # noqa: E501 (upstream's name)
        ephemeral=("abc-xyz",),
    ),
    _row(
        CSI_EBS_ONE_VOL,
        [RUNNING, EPHEMERAL_VOLUME, CSI_EBS_TWO_VOL],
        5,
        [EBS],
        "csinode",
        None,
        "persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
        ephemeral=("abc-xyz",),
    ),
    _row(
        ONLY_CONFIGMAP_AND_SECRET,
        [],
        2,
        [EBS],
        "csinode",
        None,
        "skip Filter when the pod only uses secrets and configmaps",
    ),
    _row(
        PVC_WITH_CONFIGMAP, [], 2, [EBS], "csinode", None, "don't skip Filter when the pod has pvcs"
    ),
    _row(
        INLINE_WITH_CONFIGMAP,
        [IN_TREE_TWO_VOL],
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        "don't skip Filter when the pod has inline migratable volumes",
    ),
]


@pytest.mark.parametrize(
    ("new", "existing", "limit", "drivers", "limit_source", "expected", "ephemeral"), CASES
)
def test_csi_limits(
    new: tuple[str, list[dict[str, Any]]],
    existing: list[tuple[str, list[dict[str, Any]]]],
    limit: int,
    drivers: list[str],
    limit_source: str,
    expected: Rejection | None,
    ephemeral: list[str],
) -> None:
    where = _cluster(_objects(drivers, limit_source, limit, ephemeral), existing)
    spec = {"containers": [{"name": "c", "image": "i"}], "volumes": new[1]}
    state = PLUGIN.prepare(pod_profile(spec, NAMESPACE), where)
    assert PLUGIN.check(state, where.index.nodes[0], DIALECT) == expected
    # the per-class path gives the Filter's answer
    parts = [r for bits, r in PLUGIN.parts(where.index, state, DIALECT, 1) if bits & 1]
    assert parts == [expected] or (PLUGIN.passes(state) and expected is None)


def test_a_workload_whose_running_pods_are_left_out_no_longer_counts_their_volumes() -> None:
    """The running pods a workload's change replaces free their volumes (a view of the
    cluster without them)."""
    where = _cluster(_objects([EBS], "csinode", 2, []), [RUNNING, CSI_EBS_TWO_VOL])
    spec = {"containers": [{"name": "c", "image": "i"}], "volumes": CSI_EBS_ONE_VOL[1]}
    state = PLUGIN.prepare(pod_profile(spec, NAMESPACE), where.without([1]))
    assert PLUGIN.check(state, where.index.nodes[0], DIALECT) is None


TRANSLATIONS = [
    pytest.param("vol-0abc", "vol-0abc", id="a bare EBS volume id is its own handle"),
    pytest.param("aws://us-east-1a/vol-0abc", "vol-0abc", id="an EBS URL's path is the handle"),
    pytest.param("aws://us-east-1a/nothing", None, id="an EBS URL naming no volume is refused"),
    # aws_ebs.go KubernetesVolumeIDToEBSVolumeID: the trimmed path must match ^vol-[^/]*$
    pytest.param(
        "aws://us-east-1a/vol-0abc/more",
        None,
        id="an EBS URL with more path than a volume is refused",
    ),
]


@pytest.mark.parametrize(("volume_id", "handle"), TRANSLATIONS)
def test_ebs_volume_ids_translate_as_the_csi_translation_library_does(
    volume_id: str, handle: str | None
) -> None:
    assert ebs_volume_id(volume_id) == handle


GCE_CASES = [
    pytest.param(
        {"topology.kubernetes.io/zone": "us-central1-a"},
        "projects/UNSPECIFIED/zones/us-central1-a/disks/pd",
        id="a zonal GCE PD volume's handle names its zone",
    ),
    pytest.param(
        {"topology.kubernetes.io/zone": "us-central1-a__us-central1-b"},
        "projects/UNSPECIFIED/regions/us-central1/disks/pd",
        id="a GCE PD volume in two zones of a region is regional",
    ),
    pytest.param(
        {}, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd", id="no zone is unspecified"
    ),
    # gce_pd.go gceGetRegionFromZones: each zone splits on "-" into exactly three parts
    pytest.param(
        {"topology.kubernetes.io/zone": "us-central1-a-x__us-central1-a-y"},
        None,
        id="zones of more than three parts name no region and fail the translation",
    ),
    pytest.param(
        {"topology.kubernetes.io/zone": "us-central1-a__us-east1-b"},
        None,
        id="zones of two regions fail the translation",
    ),
]


@pytest.mark.parametrize(("labels", "handle"), GCE_CASES)
def test_gce_volumes_translate_by_their_zone_labels(
    labels: dict[str, str], handle: str | None
) -> None:
    (mount,) = mounts_of([{"name": "d", "gcePersistentDisk": {"pdName": "pd"}}])
    expected = None if handle is None else (GCE, handle)
    assert translated(mount, {"metadata": {"name": "n"}}, labels) == expected
