"""What a recording keeps of each kind of API object: the structs a page of a list is
decoded into, and, encoded, the objects of the ClusterSnapshot file (docs/reference.md,
"Snapshot formats").

Their fields are the recording's allow-list: msgspec skips everything else the API server
sends (env values, annotations, images, managedFields, volumes other than claims and
in-tree disks) without building it, so
none of it can reach the file, and a recording can be committed as a fixture or handed
between CI jobs. The parts (taints, tolerations, limits, affinity terms, selectors, owners,
ports, conditions) are the typed reader's own structs (:mod:`gate.snapshot.stream`); the
objects around them hold what that reader reads of a node, a pod, a namespace, a LimitRange
a RuntimeClass, a PriorityClass and a ResourceQuota, in the file's order.

A field is written when it was given, and omitted when absent or null (``omit_defaults``);
what the checks cannot read of an object already on a node is dropped as it is decoded
(``__post_init__``, which msgspec calls on every decoded struct): a limit without a request,
a port that claims no host port, a container status without resources, a condition other
than a pending resize, a pod affinity without terms.
"""

from __future__ import annotations

from msgspec import Struct, field

from gate.k8s.ports import host_port_of
from gate.k8s.volumes import MOUNTED_SOURCES
from gate.snapshot.stream import (
    Condition,
    LimitItem,
    Owner,
    Port,
    Selector,
    Taint,
    Term,
    Toleration,
    WeightedTerm,
    scale_set_of,
)

Quantity = str | int | float
Amounts = dict[str, Quantity]
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


class _Part(Struct, omit_defaults=True, gc=False):
    """Decoded API JSON holds no reference cycles: the structs need no cycle collection."""


class _Object(_Part):
    """An object of the file: ``apiVersion`` and ``kind`` first, as the recording's own
    (items of an API list name neither, and whatever an item says is not kept)."""

    apiVersion: str = ""
    kind: str = ""


class NamedMeta(_Part):
    name: str | None = None
    labels: dict[str, str] | None = None


class NamespacedMeta(_Part):
    name: str | None = None
    namespace: str | None = None


class _Requests(_Part):
    """Requests only: the API server has already defaulted every missing request from its
    limit, and the scheduler counts nothing else of a pod already on a node."""

    requests: Amounts | None = None


class NodeSpec(_Part):
    unschedulable: bool | None = None
    taints: list[Taint] | None = None
    providerID: str | None = None
    """Read to derive the node's ``scaleSet``, and never written: it names the
    subscription and the resource group."""


class NodeStatus(_Part):
    allocatable: Amounts | None = None
    capacity: Amounts | None = None


class Node(_Object):
    """Name, labels, taints, unschedulable, allocatable and capacity, and the Azure scale
    set of its providerID as fitgate's own ``scaleSet`` (only its name)."""

    metadata: NamedMeta = field(default_factory=NamedMeta)
    spec: NodeSpec = field(default_factory=NodeSpec)
    status: NodeStatus = field(default_factory=NodeStatus)
    scaleSet: str | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "Node"
        if self.spec.providerID is not None:
            self.scaleSet = scale_set_of(self.spec.providerID) or self.scaleSet
            self.spec.providerID = None


class PodMeta(_Part):
    """Namespace, name, labels, owners (kind and name), and whether it is being deleted."""

    name: str | None = None
    namespace: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    ownerReferences: list[Owner] = field(default_factory=list)
    deletionTimestamp: str | None = None


class _Terms(_Part):
    terms: list[Term] = field(default_factory=list, name=REQUIRED)
    preferred: list[WeightedTerm] = field(default_factory=list, name=PREFERRED)


class Affinity(_Part):
    """The required and preferred pod affinity and anti-affinity terms: what
    InterPodAffinity reads of a pod already on a node (its filter the required ones, its
    score both). Node affinity is never read of such a pod."""

    podAffinity: _Terms | None = None
    podAntiAffinity: _Terms | None = None

    def __post_init__(self) -> None:
        if self.podAffinity and not (self.podAffinity.terms or self.podAffinity.preferred):
            self.podAffinity = None
        if self.podAntiAffinity and not (
            self.podAntiAffinity.terms or self.podAntiAffinity.preferred
        ):
            self.podAntiAffinity = None


class Container(_Part):
    """Name, restartPolicy (sidecars), requests and host ports: what the checks count."""

    name: str | None = None
    restartPolicy: str | None = None
    resources: _Requests | None = None
    ports: list[Port] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.resources and self.resources.requests is None:
            self.resources = None
        if self.ports:
            # Ports that claim a host port, by k8s/ports.py's rule: the only ones NodePorts
            # reads (the API server has already defaulted hostPort to containerPort for
            # hostNetwork pods).
            self.ports = [p for p in self.ports if host_port_of(p.hostPort, p.hostIP, p.protocol)]


class _Claim(_Part):
    claimName: str | None = None
    readOnly: bool | None = None


class _Ephemeral(_Part):
    """Only that the volume is a generic ephemeral one: its claim is named after the pod."""


class _Disk(_Part):
    """An in-tree disk: what names it (GCE PD ``pdName``, EBS, Cinder and Portworx
    ``volumeID``, Azure Disk ``diskURI`` and ``kind``, RBD ``monitors``, ``pool`` and
    ``image``, iSCSI ``iqn``) and whether it is mounted read-only."""

    pdName: str | None = None
    volumeID: str | None = None
    diskURI: str | None = None
    kind: str | None = None
    monitors: list[str] | None = None
    pool: str | None = None
    image: str | None = None
    iqn: str | None = None
    readOnly: bool | None = None


class Volume(_Part):
    """A claim, a generic ephemeral volume or an in-tree disk: what NodeVolumeLimits and
    VolumeRestrictions read of a pod already on a node (a configMap, a secret, a projected
    token are nothing to them and are dropped)."""

    name: str | None = None
    persistentVolumeClaim: _Claim | None = None
    ephemeral: _Ephemeral | None = None
    gcePersistentDisk: _Disk | None = None
    awsElasticBlockStore: _Disk | None = None
    azureDisk: _Disk | None = None
    cinder: _Disk | None = None
    portworxVolume: _Disk | None = None
    rbd: _Disk | None = None
    iscsi: _Disk | None = None

    def kept(self) -> bool:
        return any(getattr(self, source) is not None for source in MOUNTED_SOURCES)


class PodSpec(_Part):
    nodeName: str | None = None
    affinity: Affinity | None = None
    hostNetwork: bool = False
    containers: list[Container] | None = None
    initContainers: list[Container] | None = None
    overhead: Amounts | None = None
    resources: _Requests | None = None
    volumes: list[Volume] | None = None
    priority: int | None = None

    def __post_init__(self) -> None:
        if self.affinity and not (self.affinity.podAffinity or self.affinity.podAntiAffinity):
            self.affinity = None
        if self.resources and self.resources.requests is None:
            self.resources = None
        if self.volumes:  # a pod's service account token alone is nothing to keep
            self.volumes = [v for v in self.volumes if v.kept()] or None


class ContainerStatus(_Part):
    name: str | None = None
    resources: _Requests | None = None
    allocatedResources: Amounts | None = None


class PodStatus(_Part):
    """The phase, the start time (preemption spares the pods that started first), and what
    an in-place resize reports (containers' actual and allocated
    resources, an Infeasible resize), which the scheduler counts while a pod resizes."""

    phase: str | None = None
    containerStatuses: list[ContainerStatus] = field(default_factory=list)
    initContainerStatuses: list[ContainerStatus] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    startTime: str | None = None

    def __post_init__(self) -> None:
        if self.containerStatuses:
            self.containerStatuses = [s for s in self.containerStatuses if s.resources]
        if self.initContainerStatuses:
            self.initContainerStatuses = [s for s in self.initContainerStatuses if s.resources]
        if self.conditions:
            self.conditions = [c for c in self.conditions if c.type == "PodResizePending"]


class Pod(_Object):
    """The requests-relevant spec, the pod (anti-)affinity terms, and the phase."""

    metadata: PodMeta = field(default_factory=PodMeta)
    spec: PodSpec = field(default_factory=PodSpec)
    status: PodStatus = field(default_factory=PodStatus)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "Pod"


class Namespace(_Object):
    """Name and labels: what a namespaceSelector matches."""

    metadata: NamedMeta = field(default_factory=NamedMeta)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "Namespace"


class _Limits(Struct, gc=False):
    """Written even when empty, as every LimitRange's spec is."""

    limits: list[LimitItem] = field(default_factory=list)


class LimitRange(_Object):
    """The limits the LimitRanger admission plugin defaults requests from."""

    metadata: NamespacedMeta = field(default_factory=NamespacedMeta)
    spec: _Limits = field(default_factory=_Limits)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "LimitRange"


class _Name(_Part):
    name: str | None = None


class _Overhead(_Part):
    podFixed: Amounts | None = None


class _Scheduling(_Part):
    nodeSelector: dict[str, str] | None = None
    tolerations: list[Toleration] | None = None


class RuntimeClass(_Object):
    """Handler, pod overhead, and the scheduling constraints the RuntimeClass plugin merges."""

    metadata: _Name = field(default_factory=_Name)
    handler: str | None = None
    overhead: _Overhead | None = None
    scheduling: _Scheduling | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "node.k8s.io/v1", "RuntimeClass"
        if self.overhead and self.overhead.podFixed is None:
            self.overhead = None


class PriorityClass(_Object):
    """The priority and preemption policy the Priority admission plugin gives a pod."""

    metadata: _Name = field(default_factory=_Name)
    value: int | None = None  # None, not 0, as the default: a class of value 0 keeps it
    globalDefault: bool = False
    preemptionPolicy: str | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "scheduling.k8s.io/v1", "PriorityClass"


class _ScopeExpression(_Part):
    scopeName: str | None = None
    operator: str | None = None
    values: list[str] | None = None


class _ScopeSelector(_Part):
    matchExpressions: list[_ScopeExpression] | None = None


class _QuotaSpec(_Part):
    hard: Amounts | None = None
    scopes: list[str] | None = None
    scopeSelector: _ScopeSelector | None = None


class _QuotaStatus(_Part):
    hard: Amounts | None = None
    used: Amounts | None = None


class ResourceQuota(_Object):
    """What the ResourceQuota admission reads: the limits, the scopes, and the usage the
    quota controller last counted (``status.used``), which admission adds a pod to."""

    metadata: NamespacedMeta = field(default_factory=NamespacedMeta)
    spec: _QuotaSpec = field(default_factory=_QuotaSpec)
    status: _QuotaStatus = field(default_factory=_QuotaStatus)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "ResourceQuota"


class _BudgetSpec(_Part):
    selector: Selector | None = None


class _BudgetStatus(_Part):
    disruptionsAllowed: int = 0
    disruptedPods: dict[str, str] | None = None


class PodDisruptionBudget(_Object):
    """The selector, the disruptions still allowed and the pods already disrupted: what
    preemption weighs of a budget covering a victim."""

    metadata: NamespacedMeta = field(default_factory=NamespacedMeta)
    spec: _BudgetSpec = field(default_factory=_BudgetSpec)
    status: _BudgetStatus = field(default_factory=_BudgetStatus)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "policy/v1", "PodDisruptionBudget"


Recorded = (
    Node
    | Pod
    | Namespace
    | LimitRange
    | RuntimeClass
    | PriorityClass
    | ResourceQuota
    | PodDisruptionBudget
)
