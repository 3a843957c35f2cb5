"""Frozen values of what a cluster says about Karpenter (and AKS node autoprovisioning,
which is Karpenter): its NodePools, NodeClaims and NodeClass objects, and the instance-type
catalog a run is given. The snapshot readers build the cluster's part
(:mod:`gate.snapshot.karpenter`), the inputs stage reads the catalog
(:mod:`gate.inputs.catalog`), and the provisioning decision reads them
(:mod:`gate.scheduler.autoscaling.karpenter`); kept apart from :mod:`gate.model` as a stage of its
own, as :mod:`gate.model.autoscaling` is for cluster-autoscaler.

Semantics are those of ``sigs.k8s.io/karpenter`` v1.8 (the ``karpenter.sh/v1`` API), which
supports Kubernetes 1.34. Amounts are in scheduler units (cpu in millicores, everything
else whole units), as :func:`gate.k8s.resources.to_scheduler_units` gives them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gate.model.taints import Taint

NODEPOOL_LABEL = "karpenter.sh/nodepool"
"""pkg/apis/v1/labels.go ``NodePoolLabelKey``: the pool a node or NodeClaim belongs to."""
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
"""pkg/apis/v1/labels.go ``CapacityTypeLabelKey``: ``on-demand``, ``spot``, ``reserved``."""


@dataclass(frozen=True, slots=True)
class Requirement:
    """A node selector requirement as Karpenter reads it (pkg/scheduling/requirement.go):
    ``operator`` is ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt`` or ``Lt``;
    ``min_values`` the NodePool's ``minValues`` (None: not given)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    min_values: int | None = None


@dataclass(frozen=True, slots=True)
class NodePool:
    """A ``karpenter.sh/v1`` NodePool (pkg/apis/v1/nodepool.go).

    ``labels`` are ``spec.template.metadata.labels`` (each becomes an ``In`` requirement);
    ``requirements`` ``spec.template.spec.requirements``; ``taints`` must be tolerated,
    ``startup_taints`` are not (provisioning ignores them); ``limits`` is ``spec.limits``
    (None: no limits); ``weight`` orders pools, higher first (0 when not given);
    ``node_class`` is ``spec.template.spec.nodeClassRef`` as ``(group, kind, name)``.
    ``ready`` is True only when the conditions ``Ready``, ``ValidationSucceeded`` and
    ``NodeClassReady`` are all ``True``; ``not_ready`` then names the first that is not
    (``"Ready is Unknown"``, ``"NodeClassReady is missing"``). ``replicas`` is the alpha
    static pool's ``spec.replicas`` (a static pool provisions no node for pods); None
    otherwise. ``deleting``: its ``metadata.deletionTimestamp`` is set."""

    name: str
    weight: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)
    requirements: tuple[Requirement, ...] = ()
    taints: tuple[Taint, ...] = ()
    startup_taints: tuple[Taint, ...] = ()
    limits: Mapping[str, int] | None = None
    node_class: tuple[str, str, str] = ("", "", "")
    ready: bool = True
    not_ready: str = ""
    replicas: int | None = None
    deleting: bool = False


@dataclass(frozen=True, slots=True)
class NodeClaim:
    """A ``karpenter.sh/v1`` NodeClaim (pkg/apis/v1/nodeclaim.go): a node launched or
    being launched. ``pool`` is its ``karpenter.sh/nodepool`` label; ``node_name`` its
    ``status.nodeName`` ("" while in flight: no Node exists yet); ``capacity`` and
    ``allocatable`` its status's; ``labels`` and ``taints`` what its node will carry.
    ``deleting``: its ``metadata.deletionTimestamp`` is set or its ``InstanceTerminating``
    condition is True."""

    name: str
    pool: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    capacity: Mapping[str, int] = field(default_factory=dict)
    allocatable: Mapping[str, int] = field(default_factory=dict)
    node_name: str = ""
    deleting: bool = False


@dataclass(frozen=True, slots=True)
class NodeClass:
    """A provider's NodeClass (``EC2NodeClass`` of ``karpenter.k8s.aws``, ``AKSNodeClass``
    of ``karpenter.azure.com``): what its kubelet settings change in a new node's
    allocatable. ``max_pods`` and ``pods_per_core`` (None: not set), the reserved amounts
    (``kubeReserved``, ``systemReserved``) and the hard eviction thresholds given as
    absolute quantities (``evictionHard``; a percentage is kept in ``eviction_percent``
    as written, since it depends on the instance's capacity)."""

    kind: str
    name: str
    max_pods: int | None = None
    pods_per_core: int | None = None
    kube_reserved: Mapping[str, int] = field(default_factory=dict)
    system_reserved: Mapping[str, int] = field(default_factory=dict)
    eviction_hard: Mapping[str, int] = field(default_factory=dict)
    eviction_percent: Mapping[str, str] = field(default_factory=dict)
    ready: bool = True
    zone_ids: Mapping[str, str] = field(default_factory=dict)
    """An ``EC2NodeClass``'s ``status.subnets``: each zone whose subnet records its zone ID,
    and that ID (``us-east-1a`` -> ``use1-az1``)."""
    image_family: str = ""
    """An ``AKSNodeClass``'s ``spec.imageFamily`` ("": not given, Ubuntu)."""
    os_disk_gb: int | None = None
    """An ``AKSNodeClass``'s ``spec.osDiskSizeGB`` (None: not given, 128)."""
    encryption_at_host: bool = False
    """An ``AKSNodeClass``'s ``spec.security.encryptionAtHost``."""
    gpu_driver: bool = True
    """Whether an ``AKSNodeClass`` installs GPU drivers (``spec.gpu.mode`` not ``None``)."""
    eviction_soft: Mapping[str, int] = field(default_factory=dict)
    """An ``EC2NodeClass``'s ``evictionSoft`` given as absolute quantities, by signal."""
    eviction_soft_percent: Mapping[str, str] = field(default_factory=dict)
    """An ``EC2NodeClass``'s ``evictionSoft`` percentages, as written, by signal."""
    root_volume: int | None = None
    """The bytes of an ``EC2NodeClass``'s block device that holds ephemeral storage (None:
    its AMI family's default)."""


@dataclass(frozen=True, slots=True)
class KarpenterState:
    """Everything a snapshot recorded about Karpenter."""

    pools: tuple[NodePool, ...] = ()
    claims: tuple[NodeClaim, ...] = ()
    node_classes: tuple[NodeClass, ...] = ()


@dataclass(frozen=True, slots=True)
class Offering:
    """One way to buy an instance type (pkg/cloudprovider/types.go ``Offering``): its
    zone and capacity type (from its requirements), price, whether it is available, and
    every requirement as written (a provider may add more keys)."""

    zone: str
    capacity_type: str
    price: float = 0.0
    available: bool = True
    requirements: tuple[Requirement, ...] = ()


@dataclass(frozen=True, slots=True)
class InstanceType:
    """An instance type of the catalog (pkg/cloudprovider/types.go ``InstanceType``):
    ``labels`` the single-valued requirements it carries besides zone and capacity type
    (``node.kubernetes.io/instance-type``, ``kubernetes.io/arch``, and a provider's own,
    e.g. ``karpenter.kwok.sh/instance-family``), ``operating_systems`` its
    ``kubernetes.io/os`` values, ``capacity`` what the machine has and ``overhead`` what
    the kubelet keeps from it (kube and system reserved, eviction threshold):
    allocatable is capacity minus overhead.

    A type a provider builds from a cloud listing also carries ``absent``, the keys it
    holds as ``DoesNotExist`` (a provider label the type has no value for), and its
    overhead by part: ``kube_reserved`` and ``eviction_threshold`` (None for other
    catalogs), which a NodeClass's kubelet settings replace key by key; ``overhead`` is
    then their sum with no NodeClass."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    operating_systems: tuple[str, ...] = ("linux",)
    capacity: Mapping[str, int] = field(default_factory=dict)
    overhead: Mapping[str, int] = field(default_factory=dict)
    offerings: tuple[Offering, ...] = ()
    absent: tuple[str, ...] = ()
    kube_reserved: Mapping[str, int] | None = None
    eviction_threshold: Mapping[str, int] | None = None
    requirements: tuple[Requirement, ...] = ()
    """Requirements of the type beyond its single-valued labels, as a provider gives them
    (``karpenter.azure.com/sku-hyperv-generation In [1, 2]``)."""
    gpu_images: tuple[str, ...] = ()
    """A GPU size's operating-system images with drivers for it (karpenter-provider-azure's
    GPU registry: ``ubuntu``, ``azurelinux3``, ...); () for any other type."""
    capabilities: tuple[str, ...] = ()
    """What a NodeClass may require of the type that its labels do not say
    (``EncryptionAtHostSupported``)."""


@dataclass(frozen=True, slots=True)
class Catalog:
    """The instance types a run judges NodePools with, and where they came from:
    ``source`` names the file (``--instance-types`` or ``autoscaling.instanceTypes``), or
    says they are the types already running in the cluster (``from_cluster``)."""

    types: tuple[InstanceType, ...]
    source: str
    from_cluster: bool = False
    sha256: str | None = None
    """The file's SHA-256 digest (hex): which catalog decided, as a report names it."""
    provider: str = ""
    """The provider whose listing the types were built from (``aws``: EC2's
    ``describe-instance-types``; ``azure``: ``az vm list-skus``), "" when the catalog
    carries no provider's labels (KWOK's JSON, the types running in the cluster)."""
    assumed: tuple[str, ...] = ()
    """What the listing does not hold and is assumed, one sentence each (prices, spot
    availability, zones)."""
