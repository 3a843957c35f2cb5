"""A bound in-tree PersistentVolume as VolumeBinding's Filter reads it on a node whose
CSINode says its plugin migrated to CSI.

Upstream ``volumebinding/binder.go`` (v1.34.1) ``checkBoundClaims`` checks a bound
volume's node affinity after ``tryTranslatePVToCSI``: an AWS EBS, GCE PD or Cinder volume
(``isCSIMigrationOnForPlugin``; Azure Disk and Portworx too, but their translation leaves
the node affinity as it is) on a node whose CSINode lists the plugin in its
``storage.alpha.kubernetes.io/migrated-plugins`` annotation (``isPluginMigratedToCSIOnNode``)
is read as its CSI driver's volume: csi-translation-lib's ``translateTopologyFromInTreeToCSI``
renames the zone key of the node affinity to the driver's topology key, or, when the node
affinity names no zone, adds one from the volume's zone label (zones separated by ``__``);
a beta region key becomes the GA one. A volume whose translation fails (an EBS id that is
no volume, GCE PD zones of no one region) makes upstream's Filter err; it is read as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.k8s.labels import BETA_REGION, BETA_ZONE, REGION, ZONE
from gate.k8s.volumes import PlainObject, annotations_of, spec_of
from gate.scheduler.plugins.nodevolumelimits.csi import IN_TREE, MIGRATED_PLUGINS
from gate.untyped import as_list, mapping

# csi-translation-lib plugins: AWSEBSTopologyKey, GCEPDTopologyKey, CinderTopologyKey
TOPOLOGY_KEY: Mapping[str, str] = {
    "awsElasticBlockStore": "topology.ebs.csi.aws.com/zone",
    "gcePersistentDisk": "topology.gke.io/zone",
    "cinder": "topology.cinder.csi.openstack.org/zone",
}
READ_LABELS = (*TOPOLOGY_KEY.values(), REGION)
"""The node labels a translated volume's node affinity may read besides its own keys."""


def translatable(volume: PlainObject) -> str | None:
    """The in-tree source of the volume whose translation moves its zone, if any."""
    spec = spec_of(volume)
    return next((s for s in TOPOLOGY_KEY if isinstance(spec.get(s), Mapping)), None)


def migrated_plugins(csi_node: PlainObject | None) -> str | None:
    """The CSINode's migrated-plugins annotation; None without a CSINode."""
    if csi_node is None:
        return None
    listed = annotations_of(csi_node).get(MIGRATED_PLUGINS)
    return listed if isinstance(listed, str) else ""


def as_migrated(volume: PlainObject, csi_node: PlainObject | None) -> PlainObject:
    """tryTranslatePVToCSI, as far as the node affinity: the volume as the Filter checks it
    on a node with ``csi_node``."""
    source = translatable(volume)
    listed = migrated_plugins(csi_node)
    if source is None or not listed or IN_TREE[source][0] not in listed.split(","):
        return volume
    return _with_topology(volume, TOPOLOGY_KEY[source])


def _terms(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    required = mapping(mapping(spec.get("nodeAffinity")).get("required"))
    return [mapping(t) for t in as_list(required.get("nodeSelectorTerms"))]


def _expressions(term: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [mapping(e) for e in as_list(term.get("matchExpressions"))]


def _has_key(terms: list[Mapping[str, Any]], key: str) -> bool:
    """TopologyKeyExist."""
    return any(e.get("key") == key for t in terms for e in _expressions(t))


def _has_values(terms: list[Mapping[str, Any]], key: str) -> bool:
    """Whether getTopologyValues finds a value under ``key``."""
    return any(
        as_list(e.get("values")) for t in terms for e in _expressions(t) if e.get("key") == key
    )


def _renamed(terms: list[Mapping[str, Any]], old: str, new: str) -> list[Mapping[str, Any]]:
    """replaceTopology."""
    return [
        {
            **t,
            "matchExpressions": [
                {**e, "key": new} if e.get("key") == old else e for e in _expressions(t)
            ],
        }
        for t in terms
    ]


def _with_topology(volume: PlainObject, key: str) -> PlainObject:
    """translateTopologyFromInTreeToCSI."""
    spec = spec_of(volume)
    labels = mapping(mapping(volume.get("metadata")).get("labels"))
    terms = _terms(spec)
    # getTopologyLabel: the node affinity's zone key, else the labels', GA first
    if _has_key(terms, ZONE):
        zone, region = ZONE, REGION
    elif _has_key(terms, BETA_ZONE):
        zone, region = BETA_ZONE, BETA_REGION
    elif ZONE in labels or BETA_ZONE not in labels:
        zone, region = ZONE, REGION
    else:
        zone, region = BETA_ZONE, BETA_REGION
    if _has_values(terms, zone):
        terms = _renamed(terms, zone, key)
    elif zone in labels:
        # addTopology: the label's zones trimmed, without empties or repeats, sorted
        zones = sorted({z.strip() for z in str(labels[zone]).split("__") if z.strip()})
        if zones:
            wanted = {"key": key, "operator": "In", "values": zones}
            terms = [{**t, "matchExpressions": [*_expressions(t), wanted]} for t in terms or [{}]]
    if region == BETA_REGION and _has_values(terms, BETA_REGION):
        terms = _renamed(terms, BETA_REGION, REGION)
    affinity = {"required": {"nodeSelectorTerms": terms}} if terms else spec.get("nodeAffinity")
    return {**volume, "spec": {**spec, "nodeAffinity": affinity}}
