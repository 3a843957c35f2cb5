"""The PersistentVolumes among a run's own manifests: a chart's local volume shipped beside
its WaitForFirstConsumer claim is bound where its node affinity allows, as the volume
controller leaves a new volume (``pv_controller.go`` ``syncVolume``) and the scheduler's
binder then matches it."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.claims import created_claim, created_volume, prebound, run_volumes, synced_volume
from gate.k8s.validation import persistent_volume_problems
from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot

HOSTNAME = "kubernetes.io/hostname"
LOCAL_CLASS = {
    "metadata": {"name": "local"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}
NO_VOLUME = "node(s) didn't find available persistent volumes to bind"
PRE_BOUND = {"namespace": "web", "name": "data"}


def _volume(name: str = "pv-a", node: str = "n-a", **spec: Any) -> dict[str, Any]:
    affinity = {"key": HOSTNAME, "operator": "In", "values": [node]}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "storageClassName": "local",
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteOnce"],
            "local": {"path": "/mnt/disks/a"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [affinity]}]}},
            **spec,
        },
    }


def _claim(name: str = "data") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "web"},
        "spec": {
            "storageClassName": "local",
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "5Gi"}},
        },
    }


def _deployment(claim: str = "data") -> dict[str, Any]:
    volume = {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
    container = {"name": "app", "image": "a", "resources": {"requests": {"cpu": "100m"}}}
    template = {
        "metadata": {"labels": {"app": "a"}},
        "spec": {"containers": [container], "volumes": [volume]},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "a", "namespace": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "a"}}, "template": template},
    }


def _run(manifests: list[dict[str, Any]], recorded: list[dict[str, Any]]) -> Any:
    nodes = [api_node(n, labels={HOSTNAME: n}) for n in ("n-a", "n-b")]
    storage: dict[str, Any] = {
        "persistentVolumes": recorded,
        "persistentVolumeClaims": [],
        "storageClasses": [LOCAL_CLASS],
    }
    snapshot = build_snapshot(cluster_snapshot(nodes, **storage), "s.json")
    documents = [Document(Location("m.yaml", 1 + 40 * i), b) for i, b in enumerate(manifests)]
    (result,) = [
        r for r in check(documents, snapshot, RunOptions()).results if r.kind == "Deployment"
    ]
    return result


def _recorded(node: str) -> dict[str, Any]:
    volume = _volume(node=node)
    volume["spec"]["persistentVolumeReclaimPolicy"] = "Retain"
    return {**volume, "status": {"phase": "Available"}}


CASES = [
    pytest.param(
        [_volume(), _claim(), _deployment()],
        [],
        ("n-a",),
        id="a shipped local volume beside its waiting claim holds the pod to its node",
    ),
    pytest.param(
        [_volume(claimRef={"namespace": "web", "name": "data"}), _claim(), _deployment()],
        [],
        ("n-a",),
        id="a shipped volume pre-bound to the shipped claim is bound to it",
    ),
    pytest.param(
        [_volume(claimRef={"namespace": "web", "name": "other"}), _claim(), _deployment()],
        [],
        (),
        id="a shipped volume pre-bound to another claim is not taken",
    ),
    pytest.param(
        [_volume(node="n-a"), _claim(), _deployment()],
        [_recorded("n-b")],
        ("n-b",),
        id="a shipped volume the cluster already holds stays as recorded",
    ),
    pytest.param(
        [_claim(), _deployment()],
        [],
        (),
        id="without the shipped volume the claim finds none",
    ),
    pytest.param(
        [_volume(node="n-z", claimRef=PRE_BOUND), _claim(), _deployment()],
        [],
        (),
        id="a claim the controller bound to a volume of no node's is held to that volume",
    ),
    pytest.param(
        [_volume(node="n-z"), _claim(), _deployment()],
        [],
        (),
        id="a volume of no node's the claim would match is not bound before its pod",
    ),
]
AFFINITY_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
REASONS = [NO_VOLUME, NO_VOLUME, NO_VOLUME, NO_VOLUME, NO_VOLUME, AFFINITY_CONFLICT, NO_VOLUME]


@pytest.mark.parametrize(
    ("manifests", "recorded", "fits", "reason"),
    [
        pytest.param(*case.values, reason, id=case.id)
        for case, reason in zip(CASES, REASONS, strict=True)
    ],
)
def test_a_shipped_volume_is_judged_as_the_controller_leaves_it(
    manifests: list[dict[str, Any]],
    recorded: list[dict[str, Any]],
    fits: tuple[str, ...],
    reason: str,
) -> None:
    result = _run(manifests, recorded)
    assert result.fits == fits
    if fits:
        assert (result.verdict, result.message) == (Verdict.YES, None)
    else:
        assert result.verdict is Verdict.NO
        assert f"2 {reason}" in (result.message or "")


def test_a_prebound_waiting_claim_is_bound_by_the_controller() -> None:
    """syncUnboundClaim binds a claim waiting for its first consumer to a volume pre-bound to
    it (FindMatchingVolume without a node returns a pre-bound volume before it skips delayed
    claims); a volume too small for it, or pre-bound to another claim, is not taken."""
    claim = created_claim(_claim(), {"local": LOCAL_CLASS})
    pre = {"namespace": "web", "name": "data"}
    volumes = {
        "small": synced_volume(
            created_volume(_volume("small", claimRef=pre, capacity={"storage": "1Gi"})), {}
        ),
        "other": synced_volume(created_volume(_volume("other", claimRef={**pre, "name": "x"})), {}),
        "pv-a": synced_volume(created_volume(_volume(claimRef=pre)), {}),
    }
    bound, taken = prebound({("web", "data"): claim}, volumes, {"local": LOCAL_CLASS})
    assert list(taken) == ["pv-a"] and taken["pv-a"]["status"]["phase"] == "Bound"
    bound_claim = bound["web", "data"]
    assert bound_claim["spec"]["volumeName"] == "pv-a"
    assert bound_claim["metadata"]["annotations"] == {
        "pv.kubernetes.io/bound-by-controller": "yes",
        "pv.kubernetes.io/bind-completed": "yes",
    }
    immediate = {"local": {**LOCAL_CLASS, "volumeBindingMode": "Immediate"}}
    assert prebound({("web", "data"): claim}, volumes, immediate) == ({}, {})


def test_a_created_volume_carries_the_api_server_s_defaults() -> None:
    """SetDefaults_PersistentVolume: reclaim policy Retain, volume mode Filesystem, phase
    Pending before the controller's sync; a volume belongs to no namespace."""
    body = _volume()
    body["metadata"] = {"name": "pv-a", "namespace": "web", "uid": "u"}
    body["status"] = {"phase": "Bound"}
    created = created_volume(body)
    assert created["metadata"] == {"name": "pv-a"}
    assert created["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert created["spec"]["volumeMode"] == "Filesystem"
    assert created["status"] == {"phase": "Pending"}
    kept = created_volume(_volume(persistentVolumeReclaimPolicy="Delete", volumeMode="Block"))
    assert kept["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    assert kept["spec"]["volumeMode"] == "Block"


def _claim_of(uid: str, volume_name: str = "") -> dict[str, Any]:
    return {
        "metadata": {"name": "data", "namespace": "web", "uid": uid},
        "spec": {"volumeName": volume_name},
    }


BOUND_BY_CONTROLLER = {"pv.kubernetes.io/bound-by-controller": "yes"}
REF = {"namespace": "web", "name": "data", "uid": "u1"}
SYNCS = [
    pytest.param(None, {}, {}, "Available", None, id="a volume naming no claim is Available"),
    pytest.param(
        {"namespace": "web", "name": "data"},
        {},
        {},
        "Available",
        {"namespace": "web", "name": "data"},
        id="a volume pre-bound by name alone is Available to that claim",
    ),
    pytest.param(REF, {}, {}, "Released", REF, id="a volume naming a missing claim is Released"),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u2")},
        {},
        "Released",
        REF,
        id="a volume naming a claim of another uid is Released",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1", "pv-a")},
        {},
        "Bound",
        REF,
        id="a volume naming the claim bound to it is Bound",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1")},
        {},
        "Pending",
        REF,
        id="a volume naming an unbound claim waits for the claim's sync",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1", "pv-b")},
        {},
        "Available",
        {"namespace": "web", "name": "data"},
        id="a volume a user bound to a claim bound elsewhere stays pre-bound to it",
    ),
    pytest.param(
        REF,
        {("web", "data"): _claim_of("u1", "pv-b")},
        BOUND_BY_CONTROLLER,
        "Available",
        None,
        id="a volume the controller bound to a claim bound elsewhere is freed",
    ),
]


@pytest.mark.parametrize(("ref", "claims", "notes", "phase", "kept_ref"), SYNCS)
def test_the_controller_s_first_sync_sets_the_phase(
    ref: dict[str, Any] | None,
    claims: dict[tuple[str, str], Any],
    notes: dict[str, str],
    phase: str,
    kept_ref: dict[str, Any] | None,
) -> None:
    body = _volume() if ref is None else _volume(claimRef=ref)
    body["metadata"]["annotations"] = notes
    synced = synced_volume(created_volume(body), claims)
    assert synced["status"]["phase"] == phase
    assert synced["spec"].get("claimRef") == kept_ref
    assert "pv.kubernetes.io/bound-by-controller" not in synced["metadata"].get("annotations", {})


def _spec_without(key: str) -> dict[str, Any]:
    volume = _volume()
    del volume["spec"][key]
    return volume


REFUSED = [
    pytest.param(_volume(), [], id="a local volume with node affinity is taken"),
    pytest.param(
        _spec_without("nodeAffinity"),
        ["spec.nodeAffinity: Required value: Local volume requires node affinity"],
        id="a local volume without node affinity is refused",
    ),
    pytest.param(
        _spec_without("accessModes"),
        ["spec.accessModes: Required value"],
        id="a volume without access modes is refused",
    ),
    pytest.param(
        _volume(capacity={"storage": "0"}),
        ['spec.capacity[storage]: Invalid value: "0": must be greater than zero'],
        id="a volume of no capacity is refused",
    ),
    pytest.param(
        _volume(persistentVolumeReclaimPolicy="Keep"),
        [
            'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: '
            '"Delete", "Recycle", "Retain"'
        ],
        id="an unknown reclaim policy is refused",
    ),
    pytest.param(
        _volume(local={"path": "/mnt/../etc"}),
        ["spec.local.path: Invalid value: \"/mnt/../etc\": must not contain '..'"],
        id="a local path that steps back is refused",
    ),
    pytest.param(
        _volume(hostPath={"path": "/mnt"}),
        ["spec.local: Forbidden: may not specify more than 1 volume type"],
        id="a second source is refused in upstream's order (host path before local)",
    ),
    pytest.param(
        _volume(nodeAffinity={"required": {"nodeSelectorTerms": []}}),
        [
            "spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least "
            "one node selector term"
        ],
        id="a node affinity of no terms is refused",
    ),
    pytest.param(
        _volume(volumeMode="Raw"),
        ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"'],
        id="an unknown volume mode is refused",
    ),
]


@pytest.mark.parametrize(("body", "problems"), REFUSED)
def test_a_volume_the_api_server_refuses_is_never_created(
    body: dict[str, Any], problems: list[str]
) -> None:
    """ValidatePersistentVolume (pkg/apis/core/validation/validation.go): the errors it gives,
    and a refused volume is not among the run's."""
    assert persistent_volume_problems(body) == problems
    shipped = run_volumes(set(), [body], {})
    assert bool(shipped) is not bool(problems)


def _sourced(**sources: Any) -> dict[str, Any]:
    """A volume whose sources are ``sources`` in place of its local path."""
    body = _volume(**sources)
    del body["spec"]["local"]
    return body


_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_PORTAL = "10.0.0.1:3260/" + "p" * 60
_TOO_LONG = (
    "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if "
    "iscsi.initiatorName is specified."
)

# ValidatePersistentVolumeSpec (pkg/apis/core/validation/validation.go): each source's
# PersistentVolume rules, in its order and words; a flexVolume is counted but never
# forbidden, and a second cephfs is forbidden at cephFS.
SOURCES = [
    pytest.param(
        _sourced(nfs={"path": "data"}),
        ["spec.nfs.server: Required value",
         'spec.nfs.path: Invalid value: "data": must be an absolute path'],
        id="an nfs volume of no server and a relative path is refused (validateNFSVolumeSource)",
    ),
    pytest.param(
        _sourced(iscsi={"targetPortal": _PORTAL, "initiatorName": "iqn.2015-02.example.com:a"}),
        [f'spec.iscsi.targetportal: Invalid value: "{_PORTAL}": {_TOO_LONG}',
         "spec.iscsi.iqn: Required value"],
        id="an iscsi volume's name and portal too long come after the portal, before its iqn",
    ),
    pytest.param(
        _sourced(iscsi={"targetPortal": "p", "iqn": "foo", "lun": 256, "initiatorName": "bad",
                        "chapAuthSession": True, "secretRef": {}}),
        ['spec.iscsi.iqn: Invalid value: "foo": must be valid format',
         "spec.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive",
         "spec.iscsi.secretRef.name: Required value",
         'spec.iscsi.initiatorname: Invalid value: "bad": must be valid format'],
        id="an iscsi volume's iqn, lun, secret and initiator are refused in the volume's words",
    ),
    pytest.param(
        _sourced(iscsi={"targetPortal": "p", "iqn": "iqn.x", "chapAuthDiscovery": True}),
        ['spec.iscsi.iqn: Invalid value: "iqn.x": must be valid format',
         "spec.iscsi.secretRef: Required value"],
        id="an iscsi volume of CHAP without a secret is refused",
    ),
    pytest.param(
        _sourced(rbd={}),
        ["spec.rbd.monitors: Required value", "spec.rbd.image: Required value"],
        id="an rbd volume of no monitors and no image is refused",
    ),
    pytest.param(
        _sourced(cinder={"volumeID": "v", "secretRef": {}}),
        ["spec.cinder.secretRef.name: Required value",
         "spec.cinder.secretRef.namespace: Required value"],
        id="a cinder volume's secret needs a name and a namespace",
    ),
    pytest.param(
        _sourced(cephfs={}),
        ["spec.cephfs.monitors: Required value"],
        id="a cephfs volume of no monitors is refused",
    ),
    pytest.param(
        _sourced(hostPath={"path": "/mnt"}, cephfs={"monitors": ["m"]}),
        ["spec.cephFS: Forbidden: may not specify more than 1 volume type"],
        id="a second source that is cephfs is forbidden at cephFS",
    ),
    pytest.param(
        _sourced(flexVolume={"options": {"kubernetes.io/x": "1"}}),
        ["spec.flexVolume.driver: Required value",
         "spec.flexVolume.options[kubernetes.io/x]: Invalid value: \"kubernetes.io/x\": "
         "kubernetes.io and k8s.io namespaces are reserved"],
        id="a flex volume of no driver and a reserved option is refused",
    ),
    pytest.param(
        _sourced(nfs={"server": "s", "path": "/p"}, flexVolume={}),
        ["spec.flexVolume.driver: Required value"],
        id="a flex volume after another source is checked and not forbidden",
    ),
    pytest.param(
        _sourced(flexVolume={"driver": "d"}, azureFile={}),
        ["spec.azureFile: Forbidden: may not specify more than 1 volume type"],
        id="a source after a flex volume is forbidden",
    ),
    pytest.param(
        _sourced(azureFile={"secretNamespace": ""}),
        ["spec.azureFile.secretName: Required value", "spec.azureFile.shareName: Required value",
         "spec.azureFile.secretNamespace: Required value"],
        id="an azure file volume's secret namespace may not be empty (validateAzureFilePV)",
    ),
    pytest.param(
        _sourced(gcePersistentDisk={"partition": 300}),
        ["spec.persistentDisk.pdName: Required value",
         "spec.persistentDisk.partition: Invalid value: 300: must be between 1 and 255, "
         "inclusive"],
        id="a gce disk is refused at persistentDisk",
    ),
    pytest.param(
        _sourced(awsElasticBlockStore={}),
        ["spec.awsElasticBlockStore.volumeID: Required value"],
        id="an ebs volume of no id is refused",
    ),
    pytest.param(
        _sourced(azureDisk={"diskName": "d", "diskURI": "x"}),
        ['spec.azureDisk.diskURI: Unsupported value: "x": supported values: '
         '"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"'],
        id="an azure disk of a shared kind needs a blob uri",
    ),
    pytest.param(
        _sourced(fc={}),
        ["spec.fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not "
         "both"],
        id="an fc volume of no target is refused",
    ),
    pytest.param(
        _sourced(glusterfs={"endpoints": "e", "path": "p", "endpointsNamespace": ""}),
        ['spec.glusterfs.endpointsNamespace: Invalid value: "": if the endpointnamespace is '
         "set, it must be a valid namespace name"],
        id="a glusterfs volume's empty endpoints namespace is refused",
    ),
    pytest.param(
        _sourced(glusterfs={"endpointsNamespace": "Bad_ns"}),
        ["spec.glusterfs.endpoints: Required value", "spec.glusterfs.path: Required value",
         f'spec.glusterfs.endpointsNamespace: Invalid value: "Bad_ns": {_LABEL}'],
        id="a glusterfs volume's endpoints namespace is a namespace name",
    ),
    pytest.param(
        _sourced(quobyte={"registry": "r"}),
        ['spec.quobyte.registry: Invalid value: "r": must be a host:port pair or multiple '
         "pairs separated by commas", "spec.quobyte.volume: Required value"],
        id="a quobyte volume of a bad registry and no volume is refused",
    ),
    pytest.param(
        _sourced(vsphereVolume={}),
        ["spec.vsphereVolume.volumePath: Required value"],
        id="a vsphere volume of no path is refused",
    ),
    pytest.param(
        _sourced(photonPersistentDisk={}),
        ["spec.photonPersistentDisk.pdID: Required value"],
        id="a photon disk of no id is refused",
    ),
    pytest.param(
        _sourced(portworxVolume={}),
        ["spec.portworxVolume.volumeID: Required value"],
        id="a portworx volume of no id is refused",
    ),
    pytest.param(
        _sourced(scaleIO={}),
        ["spec.scaleIO.gateway: Required value", "spec.scaleIO.system: Required value",
         "spec.scaleIO.volumeName: Required value"],
        id="a scaleio volume of no gateway, system or volume is refused",
    ),
    pytest.param(
        _sourced(storageos={"volumeName": "v", "secretRef": {"name": "s"}}),
        ["spec.storageos.secretRef.namespace: Required value"],
        id="a storageos volume's secret needs a namespace",
    ),
    pytest.param(
        _sourced(flocker={}),
        ["spec.flocker: Required value: one of datasetName and datasetUUID is required"],
        id="a flocker volume of no dataset is refused",
    ),
    pytest.param(
        _sourced(csi={"driver": "Bad_Driver", "volumeHandle": "h",
                      "controllerPublishSecretRef": {"namespace": "Bad"},
                      "nodePublishSecretRef": {"name": "s"}}),
        [f'spec.csi.driver: Invalid value: "Bad_Driver": {_SUBDOMAIN}',
         "spec.csi.controllerPublishSecretRef.name: Required value",
         f'spec.csi.controllerPublishSecretRef.namespace: Invalid value: "Bad": {_LABEL}',
         "spec.csi.nodePublishSecretRef.namespace: Required value"],
        id="a csi volume's driver and secret references are validated (validatePVSecretReference)",
    ),
    pytest.param(
        _sourced(csi={"driver": "d", "volumeHandle": "h",
                      "controllerExpandSecretRef": {"name": "Bad.", "namespace": "n"},
                      "nodeExpandSecretRef": {"name": "s", "namespace": "n"}}),
        [f'spec.csi.controllerExpandSecretRef.name: Invalid value: "Bad.": {_SUBDOMAIN}'],
        id="a csi volume's expand secret is a DNS subdomain",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("body", "problems"), SOURCES)
def test_a_volume_source_is_held_to_its_persistent_volume_rules(
    body: dict[str, Any], problems: list[str]
) -> None:
    assert persistent_volume_problems(body) == problems
