"""The fields validateVolumeSource checks inside the sources charts rarely write (kubernetes
``pkg/apis/core/validation/validation.go``: validateGitRepoVolumeSource,
validateGCEPersistentDiskVolumeSource, validateAWSElasticBlockStoreVolumeSource,
validateGlusterfsVolumeSource, validateFlockerVolumeSource, validateCinderVolumeSource,
validateCephFSVolumeSource, validateQuobyteVolumeSource, validateFCVolumeSource,
validateFlexVolumeSource, validateAzureFile, validateAzureDisk, validateVsphereVolumeSource,
validatePhotonPersistentDiskVolumeSource, validatePortworxVolumeSource,
validateStorageOSVolumeSource, validateScaleIOVolumeSource, validateImageVolumeSource), rows
translated from ``TestValidateVolumes`` (``validation_test.go``) into the messages
``field.Error.Error()`` prints for a template at ``spec.template.spec``."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.validation import workload_problem
from tests.test_api_validation import DNS_LABEL
from tests.test_volume_validation import P, problem

REGISTRY = "must be a host:port pair or multiple pairs separated by commas"
BLOB = "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"
MANAGED = (
    "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/"
    "{disk-id}"
)
AZURE = {"diskName": "d", "diskURI": "https://a.blob.core.windows.net/c/d.vhd"}


def volume(key: str, **source: Any) -> dict[str, Any]:
    return {"name": "v", key: source}


# (id, volume, the error its template is refused with, or None)
SOURCES: list[tuple[str, dict[str, Any], str | None]] = [
    # validateGitRepoVolumeSource ("valid GitRepo", "GitRepo: invalid directory" rows)
    ("a gitRepo of a repository and a relative directory is taken",
     volume("gitRepo", repository="my-repo", directory="my-dir"), None),
    ("a gitRepo without a repository is refused", volume("gitRepo", directory="d"),
     f"{P}.gitRepo.repository: Required value"),
    ("a gitRepo directory climbing out is refused", volume("gitRepo", repository="r",
                                                          directory="../dots/bar"),
     f"{P}.gitRepo.directory: Invalid value: \"../dots/bar\": must not contain '..'"),
    ("an absolute gitRepo directory is refused", volume("gitRepo", repository="r",
                                                        directory="/abs"),
     f'{P}.gitRepo.directory: Invalid value: "/abs": must be a relative path'),
    # validateGCEPersistentDiskVolumeSource, reported at persistentDisk
    ("a GCE disk without a name is refused at persistentDisk",
     volume("gcePersistentDisk", fsType="ext4"), f"{P}.persistentDisk.pdName: Required value"),
    ("a GCE disk partition past 255 is refused", volume("gcePersistentDisk", pdName="d",
                                                        partition=256),
     f"{P}.persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive"),
    ("a GCE disk partition of 0 is taken", volume("gcePersistentDisk", pdName="d",
                                                  partition=0), None),
    # validateAWSElasticBlockStoreVolumeSource
    ("an EBS volume without an ID is refused", volume("awsElasticBlockStore", fsType="ext4"),
     f"{P}.awsElasticBlockStore.volumeID: Required value"),
    ("a negative EBS partition is refused", volume("awsElasticBlockStore", volumeID="v",
                                                   partition=-1),
     f"{P}.awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, "
     "inclusive"),
    # validateGlusterfsVolumeSource ("empty hosts", "empty path" rows)
    ("a glusterfs volume without endpoints or path is refused twice", volume("glusterfs"),
     f"[{P}.glusterfs.endpoints: Required value, {P}.glusterfs.path: Required value]"),
    # validateFlockerVolumeSource
    ("a flocker volume of no dataset is refused", volume("flocker"),
     f"{P}.flocker: Required value: one of datasetName and datasetUUID is required"),
    ("a flocker volume of a dataset name and UUID is refused",
     volume("flocker", datasetName="a", datasetUUID="b"),
     f'{P}.flocker: Invalid value: "resource": datasetName and datasetUUID can not be '
     "specified simultaneously"),
    ("a flocker dataset name with a slash is refused", volume("flocker", datasetName="a/b"),
     f"{P}.flocker.datasetName: Invalid value: \"a/b\": must not contain '/'"),
    # validateCinderVolumeSource
    ("a cinder volume without an ID is refused", volume("cinder"),
     f"{P}.cinder.volumeID: Required value"),
    ("a cinder secretRef without a name is refused", volume("cinder", volumeID="v",
                                                           secretRef={}),
     f"{P}.cinder.secretRef.name: Required value"),
    # validateCephFSVolumeSource, reported at cephfs
    ("a cephfs volume without monitors is refused", volume("cephfs", monitors=[]),
     f"{P}.cephfs.monitors: Required value"),
    # validateQuobyteVolumeSource ("empty registry quobyte", "wrong format registry quobyte",
    # "wrong format multiple registries quobyte", "empty volume quobyte", "too long tenant")
    ("a quobyte volume without a registry is refused", volume("quobyte", volume="v"),
     f"{P}.quobyte.registry: Required value: {REGISTRY}"),
    ("a quobyte registry of no port is refused", volume("quobyte", registry="registry7861",
                                                       volume="v"),
     f'{P}.quobyte.registry: Invalid value: "registry7861": {REGISTRY}'),
    ("quobyte registry pairs of no port are refused once (ToAggregate keeps one of equals)",
     volume("quobyte", registry="registry:7861,reg1,reg2", volume="v"),
     f'{P}.quobyte.registry: Invalid value: "registry:7861,reg1,reg2": {REGISTRY}'),
    ("a bracketed IPv6 quobyte registry is taken",
     volume("quobyte", registry="[::1]:7861,host:1", volume="v"), None),
    ("a quobyte volume without a volume is refused", volume("quobyte", registry="r:7861"),
     f"{P}.quobyte.volume: Required value"),
    ("a quobyte tenant of 65 characters is refused, its registry unchecked",
     volume("quobyte", registry="r", volume="v", tenant="t" * 65),
     f"{P}.quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 "
     "characters"),
    # validateFCVolumeSource ("fc empty wwn and wwid", "fc both wwn and wwid", "fc lun
    # required", "fc lun out of range" rows)
    ("an FC volume of neither WWNs nor WWIDs is refused", volume("fc", lun=1),
     f"{P}.fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not "
     "both"),
    ("an FC volume of both WWNs and WWIDs is refused",
     volume("fc", targetWWNs=["wwn"], wwids=["some_wwid"], lun=1),
     f'{P}.fc.targetWWNs: Invalid value: ["wwn"]: targetWWNs and wwids can not be specified '
     "simultaneously"),
    ("an FC volume of WWNs needs a LUN", volume("fc", targetWWNs=["wwn"]),
     f"{P}.fc.lun: Required value: lun is required if targetWWNs is specified"),
    ("an FC LUN past 255 is refused", volume("fc", targetWWNs=["wwn"], lun=256),
     f"{P}.fc.lun: Invalid value: 256: must be between 0 and 255, inclusive"),
    ("an FC volume of WWIDs needs no LUN", volume("fc", wwids=["some_wwid"]), None),
    # validateFlexVolumeSource ("flex volume", "flex volume with reserved options" rows)
    ("a flexVolume without a driver is refused", volume("flexVolume"),
     f"{P}.flexVolume.driver: Required value"),
    ("a flexVolume option in a reserved namespace is refused, each by key",
     volume("flexVolume", driver="kubernetes.io/blue", options={
         "myns.k8s.io": "x", "kubernetes.io/secret": "y", "foo.example.com/bar": "z"}),
     f'[{P}.flexVolume.options[kubernetes.io/secret]: Invalid value: "kubernetes.io/secret": '
     "kubernetes.io and k8s.io namespaces are reserved, "
     f'{P}.flexVolume.options[myns.k8s.io]: Invalid value: "myns.k8s.io": kubernetes.io and '
     "k8s.io namespaces are reserved]"),
    # validateAzureFile
    ("an azureFile volume without a secret or share is refused twice", volume("azureFile"),
     f"[{P}.azureFile.secretName: Required value, {P}.azureFile.shareName: Required value]"),
    # validateAzureDisk after SetDefaults_AzureDiskVolumeSource (kind Shared)
    ("an azureDisk of a blob URI is taken", volume("azureDisk", **AZURE), None),
    ("an azureDisk without a name or URI is refused, its URI not a blob's",
     volume("azureDisk"),
     f"[{P}.azureDisk.diskName: Required value, {P}.azureDisk.diskURI: Required value, "
     f'{P}.azureDisk.diskURI: Unsupported value: "": supported values: "{BLOB}"]'),
    ("an azureDisk of an unknown caching mode is refused",
     volume("azureDisk", cachingMode="Fast", **AZURE),
     f'{P}.azureDisk.cachingMode: Unsupported value: "Fast": supported values: "None", '
     '"ReadOnly", "ReadWrite"'),
    ("an azureDisk of an unknown kind is refused", volume("azureDisk", kind="Big", **AZURE),
     f'{P}.azureDisk.kind: Unsupported value: "Big": supported values: "Dedicated", '
     '"Managed", "Shared"'),
    ("a managed azureDisk needs a subscription URI", volume("azureDisk", kind="Managed",
                                                           **AZURE),
     f'{P}.azureDisk.diskURI: Unsupported value: "{AZURE["diskURI"]}": supported values: '
     f'"{MANAGED}"'),
    # validateVsphereVolumeSource, validatePhotonPersistentDiskVolumeSource,
    # validatePortworxVolumeSource
    ("a vsphere volume without a path is refused", volume("vsphereVolume"),
     f"{P}.vsphereVolume.volumePath: Required value"),
    ("a photon disk without an ID is refused", volume("photonPersistentDisk"),
     f"{P}.photonPersistentDisk.pdID: Required value"),
    ("a portworx volume without an ID is refused", volume("portworxVolume"),
     f"{P}.portworxVolume.volumeID: Required value"),
    # validateScaleIOVolumeSource ("ScaleIO with empty name" rows)
    ("a scaleIO volume without gateway, system or volume name is refused thrice",
     volume("scaleIO", secretRef={"name": "s"}),
     f"[{P}.scaleIO.gateway: Required value, {P}.scaleIO.system: Required value, "
     f"{P}.scaleIO.volumeName: Required value]"),
    # validateStorageOSVolumeSource ("storageos empty name", "storageos invalid name" rows)
    ("a storageos volume without a name is refused", volume("storageos"),
     f"{P}.storageos.volumeName: Required value"),
    ("a storageos volume name and namespace are DNS labels",
     volume("storageos", volumeName="Bad_Name", volumeNamespace="Ns"),
     f'[{P}.storageos.volumeName: Invalid value: "Bad_Name": {DNS_LABEL}, '
     f'{P}.storageos.volumeNamespace: Invalid value: "Ns": {DNS_LABEL}]'),
    ("a storageos secretRef without a name is refused",
     volume("storageos", volumeName="v", secretRef={}),
     f"{P}.storageos.secretRef.name: Required value"),
    # validateImageVolumeSource: a template's reference is left to its pods
    ("a template's image volume without a reference is taken", volume("image"), None),
    ("an image volume of an unknown pull policy is refused",
     volume("image", reference="registry/img:1", pullPolicy="Sometimes"),
     f'{P}.image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", '
     '"IfNotPresent", "Never"'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "error"), [row[1:] for row in SOURCES], ids=[row[0] for row in SOURCES]
)
def test_a_volume_source_s_own_fields_are_validated_as_the_api_server_does(
    source: dict[str, Any], error: str | None
) -> None:
    assert problem(source) == error


def test_a_pod_s_image_volume_needs_a_reference() -> None:
    # validateImageVolumeSource: opts.ResourceIsPod, true for a pod's create only
    spec = {"containers": [{"name": "a", "image": "x"}], "volumes": [volume("image")]}
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}
    assert workload_problem("Pod", body, spec) == (
        'Pod "p" is invalid: spec.volumes[0].image.reference: Required value'
    )
