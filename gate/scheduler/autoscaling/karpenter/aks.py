"""What an AKSNodeClass changes in the instance types Azure's provider builds
(karpenter-provider-azure v1.14.2 ``instancetypes.go`` ``List``, 132-196): its image family
sets the ``kubernetes.azure.com/os-sku`` label (``labels.go`` ``GetOSSKUFromImageFamily``)
and which GPU sizes have drivers (``isInstanceTypeSupportedByImageFamily``, 335-349), its GPU
mode whether only NVIDIA sizes are offered (386-399), encryption at host which sizes support
it (351-367), its ``osDiskSizeGB`` the ephemeral storage (``instancetype.go``
``ephemeralStorage``, 338-340).
Its ``maxPods`` is applied with the allocatable (:func:`.pools.provider_allocatable`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from gate.model import NodeView
from gate.model.karpenter import Catalog, InstanceType, NodeClass

CLUSTER = "kubernetes.azure.com/cluster"
"""labels.go ``AKSLabelCluster``: the node resource group, as the operator's option names it
(``utils.NormalizeClusterResourceGroupNameForLabel``) and AKS labels every node with it."""
GPU_MANUFACTURER = "karpenter.azure.com/sku-gpu-manufacturer"
ENCRYPTION_AT_HOST = "EncryptionAtHostSupported"
"""The SKU capability a NodeClass with ``security.encryptionAtHost`` requires."""
OS_SKU = "kubernetes.azure.com/os-sku"
"""pkg/apis/v1beta1/labels.go ``AKSLabelOSSKU``: on every type the provider builds."""
DEFAULT_FAMILY = "Ubuntu"
"""aksnodeclass.go: ``imageFamily`` defaults to ``Ubuntu``."""
UBUNTU = frozenset({"Ubuntu", "Ubuntu2204", "Ubuntu2404"})
"""labels.go ``UbuntuFamilies``."""
OS_SKUS = {
    "Ubuntu": "Ubuntu",
    "Ubuntu2204": "Ubuntu",
    "Ubuntu2404": "Ubuntu",
    "AzureLinux": "AzureLinux",
}
"""labels.go ``imageFamilyToOSSKU``; another family is its own value."""


def gpu_supported(family: str, images: tuple[str, ...]) -> bool:
    """instancetypes.go:335-349: a GPU size needs drivers on the family's image."""
    if family in UBUNTU:
        return "ubuntu" in images
    if family == "AzureLinux":
        return "azurelinux" in images or "azurelinux3" in images
    return False


def for_node_class(it: InstanceType, node_class: NodeClass | None) -> InstanceType | None:
    """``it`` as the provider lists it for ``node_class`` (None: the NodeClass's defaults);
    None when the provider does not list it; ``it`` itself when nothing changes."""
    if OS_SKU not in it.labels:
        return it  # not a type Azure's provider built
    family = (node_class.image_family if node_class else "") or DEFAULT_FAMILY
    if it.gpu_images and not gpu_supported(family, it.gpu_images):
        return None
    drivers = node_class is None or node_class.gpu_driver
    if it.gpu_images and drivers and it.labels.get(GPU_MANUFACTURER) != "nvidia":
        return None  # instancetypes.go:386-399: drivers are installed for NVIDIA sizes only
    encrypted = node_class is not None and node_class.encryption_at_host
    if encrypted and ENCRYPTION_AT_HOST not in it.capabilities:
        return None  # 351-367
    sku = OS_SKUS.get(family, family)
    disk = node_class.os_disk_gb if node_class else None
    if it.labels[OS_SKU] == sku and disk is None:
        return it
    capacity = dict(it.capacity)
    if disk is not None:
        capacity["ephemeral-storage"] = disk * 10**9
    return replace(it, labels={**it.labels, OS_SKU: sku}, capacity=capacity)


def with_cluster(catalog: Catalog, nodes: Iterable[NodeView]) -> Catalog:
    """An Azure catalog with the ``kubernetes.azure.com/cluster`` label the provider puts on
    every type (instancetype.go:181): the node resource group is not in the SKU listing, and
    the cluster's nodes carry it (the value most of them carry); unchanged without one."""
    if catalog.provider != "azure":
        return catalog
    seen = Counter(n.labels[CLUSTER] for n in nodes if n.labels.get(CLUSTER))
    if not seen:
        return catalog
    group = min(seen, key=lambda g: (-seen[g], g))
    types = tuple(replace(t, labels={**t.labels, CLUSTER: group}) for t in catalog.types)
    return replace(catalog, types=types)
