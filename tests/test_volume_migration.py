"""VolumeBinding's Filter on a bound in-tree volume, translated to CSI on a node whose
CSINode says its plugin migrated (binder.go ``checkBoundClaims``, ``tryTranslatePVToCSI``;
csi-translation-lib ``translateTopologyFromInTreeToCSI``)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import Code, NodeView
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins.volumebinding import PLUGIN
from gate.scheduler.plugins.volumebinding.binder import REASON_NODE_CONFLICT
from gate.scheduler.plugins.volumebinding.migration import as_migrated
from tests.builders import api_node, cluster_snapshot, node
from tests.engine_support import evaluate, pod_spec
from tests.volume_support import claim, run_plugin, storage, volume, with_claims

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
GKE_ZONE = "topology.gke.io/zone"
EBS_ZONE = "topology.ebs.csi.aws.com/zone"
MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"
CONFLICT = Rejection("VolumeBinding", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (REASON_NODE_CONFLICT,))


def _csi_node(name: str, migrated: str | None) -> dict[str, Any]:
    notes = {} if migrated is None else {MIGRATED: migrated}
    return {"kind": "CSINode", "metadata": {"name": name, "annotations": notes}, "spec": {}}


def _gce_pv(labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    """binder_test.go makeTestPVForCSIMigration: a GCE PD bound to the claim, no affinity."""
    return volume("pv-migration-bound", labels, gcePersistentDisk={"pdName": "disk"}, **spec)


# binder_test.go zone1Labels: the beta zone and region labels, as upstream spells them
ZONE_1 = {BETA_ZONE: "us-east-1", BETA_REGION: "us-east-1a"}
BOUND = claim("pvc-migration-bound", volumeName="pv-migration-bound", bound=True)


def _node(zone: str) -> NodeView:
    return node("node1", labels={GKE_ZONE: zone})


# binder_test.go TestFindPodVolumesWithCSIMigration
CASES = [
    pytest.param(
        _csi_node("node1", "kubernetes.io/gce-pd"),
        "us-east-1",
        None,
        id="pvc-bound: a migrated volume in the node's CSI zone passes",
    ),
    pytest.param(
        _csi_node("node1", ""),
        "us-east-2",
        None,
        id="pvc-bound,csinode-not-migrated: the volume is read untranslated",
    ),
    pytest.param(
        None, "us-east-2", None, id="pvc-bound,missing-csinode: the volume is read untranslated"
    ),
    pytest.param(
        _csi_node("node1", "kubernetes.io/gce-pd"),
        "us-east-2",
        CONFLICT,
        id="pvc-bound,node-different-zone: a migrated volume's label zone is a node affinity",
    ),
    pytest.param(
        _csi_node("node1", "kubernetes.io/aws-ebs"),
        "us-east-2",
        None,
        id="a CSINode naming another plugin leaves the volume untranslated",
    ),
]


@pytest.mark.parametrize(("csi_node", "zone", "filtered"), CASES)
def test_find_pod_volumes_with_csi_migration(
    csi_node: dict[str, Any] | None, zone: str, filtered: Rejection | None
) -> None:
    objects = storage(_gce_pv(ZONE_1), BOUND, *([] if csi_node is None else [csi_node]))
    got = run_plugin(PLUGIN, with_claims("pvc-migration-bound"), objects, _node(zone))
    assert got == (None, filtered)


def _terms(*expressions: dict[str, Any]) -> dict[str, Any]:
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": list(expressions)}]}}


def _in(key: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


ON_NODE = _csi_node("n", "kubernetes.io/aws-ebs,kubernetes.io/gce-pd")
TRANSLATIONS = [
    pytest.param(
        _gce_pv({}, nodeAffinity=_terms(_in(ZONE, "a"), _in(REGION, "r"))),
        _terms(_in(GKE_ZONE, "a"), _in(REGION, "r")),
        id="the node affinity's zone key becomes the driver's topology key",
    ),
    pytest.param(
        _gce_pv({}, nodeAffinity=_terms(_in(BETA_ZONE, "a"), _in(BETA_REGION, "r"))),
        _terms(_in(GKE_ZONE, "a"), _in(REGION, "r")),
        id="a beta region key becomes the GA region key",
    ),
    pytest.param(
        _gce_pv({ZONE: "b__a__ a"}),
        _terms(_in(GKE_ZONE, "a", "b")),
        id="a zone label's zones become the driver's topology, sorted and once each",
    ),
    pytest.param(
        _gce_pv({ZONE: "a"}, nodeAffinity=_terms(_in("disk", "ssd"))),
        _terms(_in("disk", "ssd"), _in(GKE_ZONE, "a")),
        id="the label's zones are added to each term of the node affinity",
    ),
    pytest.param(
        volume("pv", {ZONE: "a"}, awsElasticBlockStore={"volumeID": "vol-1"}),
        _terms(_in(EBS_ZONE, "a")),
        id="an EBS volume's zone becomes the EBS driver's topology key",
    ),
    pytest.param(
        _gce_pv({ZONE: "__"}), None, id="a zone label without a zone adds no node affinity"
    ),
]


@pytest.mark.parametrize(("pv", "affinity"), TRANSLATIONS)
def test_translated_node_affinity(pv: dict[str, Any], affinity: dict[str, Any] | None) -> None:
    assert as_migrated(pv, ON_NODE)["spec"].get("nodeAffinity") == affinity


def test_nodes_alike_in_labels_differ_by_their_csinode() -> None:
    """The Filter's answer for a translated volume depends on the node's CSINode: nodes
    with the same labels are not answered alike when only some say the plugin migrated."""
    nodes = [api_node(f"n{i}", labels={ZONE: "us-east-1", GKE_ZONE: "us-east-2"}) for i in range(3)]
    snapshot = cluster_snapshot(
        nodes,
        persistentVolumes=[_gce_pv({ZONE: "us-east-1"})],
        persistentVolumeClaims=[BOUND],
        storageClasses=[],
        csiNodes=[_csi_node("n1", "kubernetes.io/gce-pd"), _csi_node("n2", "")],
    )
    mounting = pod_spec(
        cpu="100m",
        volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "pvc-migration-bound"}}],
    )
    result = evaluate(snapshot, mounting)
    reasons = {o.node: o.reasons for o in result.nodes}
    assert [bool(reasons[n]) for n in ("n0", "n1", "n2")] == [False, True, False]
