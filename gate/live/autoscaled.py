"""What ``fitgate snapshot --autoscaling`` keeps of the cluster-autoscaler's objects, and
where it lists them (read-only, ``list`` only; docs/rbac.md).

The same allow-list rule as :mod:`gate.live.objects`: only what
:mod:`gate.snapshot.autoscaling` reads reaches the file. The status ConfigMap is listed in
``kube-system`` with a field selector on its name, and so is the priority expander's
(``cluster-autoscaler-priority-expander``, its ``priorities`` only, when the credentials may
list it); any other ConfigMap a server returns anyway is dropped (:func:`status_only`): no
other ConfigMap's data is ever kept. Of a Deployment only its containers' name, image,
command and args are kept, and only for a Deployment running cluster-autoscaler; of a
MachineDeployment, only cluster-autoscaler's annotations and its replicas. Of Karpenter's
objects, what :mod:`gate.snapshot.karpenter` reads: a NodePool's template (labels,
requirements, taints, class), limits, weight, replicas and conditions; a NodeClaim's labels,
taints, capacity, allocatable and node; a NodeClass's kubelet settings that change
allocatable, and its conditions.
"""

from __future__ import annotations

import msgspec
from msgspec import Struct, field

from gate.live.objects import Amounts, NamedMeta
from gate.snapshot.autoscaling import LAST_UPDATED, STATUS_NAME, STATUS_NAMESPACE
from gate.snapshot.machines import CAPACITY, MAX_SIZE, MIN_SIZE
from gate.snapshot.priorities import PRIORITY_NAME
from gate.snapshot.stream import Taint, Toleration


class _Part(Struct, omit_defaults=True, gc=False):
    pass


class _Object(_Part):
    apiVersion: str = ""
    kind: str = ""


class _StatusNotes(_Part):
    last_updated: str | None = field(default=None, name=LAST_UPDATED)


class _StatusMeta(_Part):
    name: str | None = None
    namespace: str | None = None
    annotations: _StatusNotes | None = None


class _StatusData(_Part):
    status: str | None = None
    priorities: str | None = None


class StatusConfigMap(_Object):
    """The ``cluster-autoscaler-status`` ConfigMap: its name, the last-updated annotation
    and ``data.status``; the ``cluster-autoscaler-priority-expander`` ConfigMap: its name and
    ``data.priorities``; any other ConfigMap keeps nothing but its name."""

    metadata: _StatusMeta = field(default_factory=_StatusMeta)
    data: _StatusData | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "v1", "ConfigMap"
        meta = self.metadata
        if (meta.namespace, meta.name) == (STATUS_NAMESPACE, PRIORITY_NAME):
            # The priority expander's ConfigMap: its priorities only.
            meta.annotations = None
            if self.data is not None:
                self.data.status = None
        elif (meta.namespace, meta.name) != (STATUS_NAMESPACE, STATUS_NAME):
            self.data, meta.annotations = None, None
        elif self.data is not None:
            self.data.priorities = None


class _Requests(_Part):
    requests: Amounts | None = None


class _Container(_Part):
    name: str | None = None
    resources: _Requests | None = None
    restartPolicy: str | None = None


class _DaemonPodSpec(_Part):
    nodeSelector: dict[str, str] | None = None
    affinity: msgspec.Raw | None = None
    tolerations: list[Toleration] | None = None
    hostNetwork: bool = False
    priorityClassName: str | None = None
    containers: list[_Container] | None = None
    initContainers: list[_Container] | None = None
    overhead: Amounts | None = None


class _DaemonTemplate(_Part):
    spec: _DaemonPodSpec = field(default_factory=_DaemonPodSpec)


class _DaemonSpec(_Part):
    template: _DaemonTemplate = field(default_factory=_DaemonTemplate)


class _Named(_Part):
    name: str | None = None
    namespace: str | None = None


class DaemonSet(_Object):
    """What a fresh node gives a DaemonSet's pod: where it runs and what it requests."""

    metadata: _Named = field(default_factory=_Named)
    spec: _DaemonSpec = field(default_factory=_DaemonSpec)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "apps/v1", "DaemonSet"


class _Command(_Part):
    name: str | None = None
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None


class _CommandSpec(_Part):
    containers: list[_Command] | None = None


class _CommandTemplate(_Part):
    spec: _CommandSpec = field(default_factory=_CommandSpec)


class _DeploymentSpec(_Part):
    template: _CommandTemplate = field(default_factory=_CommandTemplate)


class Deployment(_Object):
    """A kube-system Deployment: the command line of a cluster-autoscaler container, and
    nothing of any other Deployment but its name."""

    metadata: _Named = field(default_factory=_Named)
    spec: _DeploymentSpec = field(default_factory=_DeploymentSpec)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "apps/v1", "Deployment"
        containers = self.spec.template.spec.containers or []
        kept = [c for c in containers if "cluster-autoscaler" in f"{c.image} {c.command}"]
        self.spec.template.spec.containers = kept or None


class _Annotated(_Part):
    name: str | None = None
    namespace: str | None = None
    annotations: dict[str, str] | None = None


class _Replicas(_Part):
    replicas: int | None = None


class MachineDeployment(_Object):
    """A Cluster API MachineDeployment: cluster-autoscaler's annotations and its replicas."""

    metadata: _Annotated = field(default_factory=_Annotated)
    spec: _Replicas = field(default_factory=_Replicas)

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "cluster.x-k8s.io/v1beta1", "MachineDeployment"
        notes = self.metadata.annotations or {}
        kept = {
            k: v for k, v in notes.items() if k in (MIN_SIZE, MAX_SIZE) or k.startswith(CAPACITY)
        }
        self.metadata.annotations = kept or None


class _Name(_Part):
    name: str | None = None


class _Labels(_Part):
    labels: dict[str, str] | None = None


class _KarpenterRequirement(_Part):
    key: str | None = None
    operator: str | None = None
    values: list[str] | None = None
    minValues: int | None = None


class _ClassRef(_Part):
    group: str | None = None
    kind: str | None = None
    name: str | None = None


class _ClaimTemplateSpec(_Part):
    requirements: list[_KarpenterRequirement] | None = None
    taints: list[Taint] | None = None
    startupTaints: list[Taint] | None = None
    nodeClassRef: _ClassRef | None = None


class _ClaimTemplate(_Part):
    metadata: _Labels | None = None
    spec: _ClaimTemplateSpec | None = None


class _PoolSpec(_Part):
    template: _ClaimTemplate | None = None
    limits: Amounts | None = None
    weight: int | None = None
    replicas: int | None = None


class _Condition(_Part):
    type: str | None = None
    status: str | None = None


class _Conditions(_Part):
    conditions: list[_Condition] | None = None


class NodePool(_Object):
    """A ``karpenter.sh/v1`` NodePool: what a new node of it is, its limits, weight and
    readiness (its disruption settings, annotations and status resources are dropped)."""

    metadata: _Name = field(default_factory=_Name)
    spec: _PoolSpec = field(default_factory=_PoolSpec)
    status: _Conditions | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "karpenter.sh/v1", "NodePool"


class _ClaimSpec(_Part):
    taints: list[Taint] | None = None


class _ClaimStatus(_Part):
    nodeName: str | None = None
    capacity: Amounts | None = None
    allocatable: Amounts | None = None


class NodeClaim(_Object):
    """A ``karpenter.sh/v1`` NodeClaim: its labels (its pool's among them), taints, and
    the node it launched (its providerID and image are dropped)."""

    metadata: NamedMeta = field(default_factory=NamedMeta)
    spec: _ClaimSpec = field(default_factory=_ClaimSpec)
    status: _ClaimStatus | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "karpenter.sh/v1", "NodeClaim"


class _Kubelet(_Part):
    maxPods: int | None = None
    podsPerCore: int | None = None
    kubeReserved: dict[str, str] | None = None
    systemReserved: dict[str, str] | None = None
    evictionHard: dict[str, str] | None = None
    evictionSoft: dict[str, str] | None = None


class _EBS(_Part):
    volumeSize: str | None = None


class _BlockDevice(_Part):
    deviceName: str | None = None
    rootVolume: bool | None = None
    ebs: _EBS | None = None


class _EC2Spec(_Part):
    kubelet: _Kubelet | None = None
    blockDeviceMappings: list[_BlockDevice] | None = None


class _Subnet(_Part):
    zone: str | None = None
    zoneID: str | None = None


class _EC2Status(_Part):
    conditions: list[_Condition] | None = None
    subnets: list[_Subnet] | None = None


class EC2NodeClass(_Object):
    """A ``karpenter.k8s.aws/v1`` EC2NodeClass: its kubelet's pods and reserved amounts, its
    block devices' names and sizes, and the zone and zone ID of each subnet its status
    resolved (its role, subnet selectors and
    IDs, security groups, AMIs, user data and tags are dropped)."""

    metadata: _Name = field(default_factory=_Name)
    spec: _EC2Spec = field(default_factory=_EC2Spec)
    status: _EC2Status | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "karpenter.k8s.aws/v1", "EC2NodeClass"


class _AKSSecurity(_Part):
    encryptionAtHost: bool | None = None


class _AKSGPU(_Part):
    mode: str | None = None


class _AKSSpec(_Part):
    maxPods: int | None = None
    imageFamily: str | None = None
    osDiskSizeGB: int | None = None
    security: _AKSSecurity | None = None
    gpu: _AKSGPU | None = None


class AKSNodeClass(_Object):
    """A ``karpenter.azure.com/v1beta1`` AKSNodeClass: its ``maxPods``, image family, OS
    disk size, encryption at host and GPU mode (its subnet, image ID and tags are
    dropped)."""

    metadata: _Name = field(default_factory=_Name)
    spec: _AKSSpec = field(default_factory=_AKSSpec)
    status: _Conditions | None = None

    def __post_init__(self) -> None:
        self.apiVersion, self.kind = "karpenter.azure.com/v1beta1", "AKSNodeClass"


Karpenter = NodePool | NodeClaim | EC2NodeClass | AKSNodeClass
Autoscaled = StatusConfigMap | DaemonSet | Deployment | MachineDeployment | Karpenter
