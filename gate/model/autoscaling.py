"""Frozen values of what a cluster says about its cluster-autoscaler (CA): the status
ConfigMap's node groups, the CA Deployment's flags, the DaemonSets a fresh node runs and
Cluster API MachineDeployments. The snapshot readers build them
(:mod:`gate.snapshot.autoscaling`), the configuration adds what the cluster cannot tell
(:mod:`gate.inputs.autoscaling`), and the scale-up decision reads them
(:mod:`gate.scheduler.autoscaling.clusterautoscaler`); kept apart from :mod:`gate.model` as a stage
of its own.

Semantics are those of ``kubernetes/autoscaler`` tag ``cluster-autoscaler-1.34.5``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gate.model.karpenter import Catalog, KarpenterState
from gate.model.taints import Taint

HEALTHY = "Healthy"
"""clusterstate/api/types.go ``ClusterAutoscalerHealthy``."""
BACKOFF = "Backoff"
"""clusterstate/api/types.go ``ClusterAutoscalerBackoff``: a group's scaleUp status."""
RUNNING = "Running"
"""clusterstate/api/types.go ``ClusterAutoscalerRunning``."""
INITIALIZING = "Initializing"
"""clusterstate/api/types.go ``ClusterAutoscalerInitializing``: CA has not finished its
first loop."""


@dataclass(frozen=True, slots=True)
class StatusGroup:
    """One node group as the status ConfigMap reports it (``nodeGroups[]`` of CA ≥ 1.30,
    a ``Name:`` block of the plain text of ≤ 1.29): its id, ``health.status``,
    ``cloudProviderTarget``, ``minSize``, ``maxSize``, the registered Ready members, and
    ``scaleUp.status`` (``Backoff`` while it backs off) with the backoff's error code."""

    name: str
    health: str
    target: int
    min_size: int
    max_size: int
    ready: int = 0
    scale_up: str = ""
    backoff_code: str = ""

    @property
    def healthy(self) -> bool:
        return self.health == HEALTHY

    @property
    def backed_off(self) -> bool:
        return self.scale_up == BACKOFF


@dataclass(frozen=True, slots=True)
class AutoscalerStatus:
    """The ``kube-system/cluster-autoscaler-status`` ConfigMap: ``form`` is ``yaml`` (CA ≥
    1.30) or ``text`` (≤ 1.29); ``updated`` the ``cluster-autoscaler.kubernetes.io/last-updated``
    annotation (else the status's own time), None when neither reads as a time."""

    groups: tuple[StatusGroup, ...]
    form: str
    autoscaler: str = ""
    updated: datetime | None = None


@dataclass(frozen=True, slots=True)
class Limits:
    """CA's cluster-wide limits (config/flags/flags.go): ``--max-nodes-total`` (0: none),
    ``--cores-total`` in cores and ``--memory-total`` in bytes (the flag's GiB times 2^30),
    each ``(min, max)``; CA's defaults are 0:320000 cores and 0:6400000 GiB."""

    max_nodes_total: int = 0
    cores: tuple[int, int] = (0, 320000)
    memory: tuple[int, int] = (0, 6400000 * 2**30)


@dataclass(frozen=True, slots=True)
class Flags:
    """What the CA Deployment's command line says, the limits and how it reads nodes and
    pods: taints it strips from templates (``--startup-taint``, ``--status-taint``),
    whether every DaemonSet is put on a template (``--force-ds``), and the priority below
    which pending pods are ignored (``--expendable-pods-priority-cutoff``, default -10)."""

    limits: Limits = Limits()
    startup_taints: tuple[str, ...] = ()
    status_taints: tuple[str, ...] = ()
    force_ds: bool = False
    expendable_cutoff: int = -10
    deployment: str = ""
    expander: tuple[str, ...] = ("random",)
    """``--expander``: the strategies that choose the group to grow, in order, each
    narrowing the options the one before kept (random picks among what is left)."""


@dataclass(frozen=True, slots=True)
class DaemonSet:
    """A DaemonSet as a fresh node would run it: its pod spec (tolerations completed as the
    DaemonSet controller adds them), its requests in scheduler units, and whether it is
    ``system-node-critical`` (CA puts those on a template even without ``--force-ds``)."""

    namespace: str
    name: str
    pod_spec: Mapping[str, Any]
    requests: Mapping[str, int]
    critical: bool = False


@dataclass(frozen=True, slots=True)
class NodeTemplate:
    """A node a group would add, as configured rather than seen: its labels, taints and
    allocatable (scheduler units). ``capacity`` is what CA counts against the cluster's
    cores and memory (allocatable when not given)."""

    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    allocatable: Mapping[str, int] = field(default_factory=dict)
    capacity: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MachineDeployment:
    """A Cluster API MachineDeployment with CA's annotations
    (cloudprovider/clusterapi/README.md): its group id ``MachineDeployment/<ns>/<name>``,
    min and max size, replicas, and the ``capacity.cluster-autoscaler.kubernetes.io/*``
    template when given (None without cpu and memory)."""

    group: str
    min_size: int
    max_size: int
    replicas: int
    template: NodeTemplate | None = None


@dataclass(frozen=True, slots=True)
class Priorities:
    """The ``cluster-autoscaler-priority-expander`` ConfigMap as the priority expander reads
    its ``priorities`` key: each priority with the regular expressions of the group ids it
    takes, highest first. ``problem`` says why cluster-autoscaler ignores the ConfigMap
    (then ``tiers`` is empty and the expander filters nothing); ``unjudged`` names a regular
    expression fitgate does not evaluate, so that which groups it matches is left open."""

    tiers: tuple[tuple[int, tuple[str, ...]], ...] = ()
    problem: str | None = None
    unjudged: str | None = None


@dataclass(frozen=True, slots=True)
class AutoscalingState:
    """Everything a snapshot recorded about its autoscaler."""

    status: AutoscalerStatus | None = None
    flags: Flags | None = None
    daemon_sets: tuple[DaemonSet, ...] = ()
    machine_deployments: tuple[MachineDeployment, ...] = ()
    karpenter: KarpenterState | None = None
    """Karpenter's NodePools, NodeClaims and NodeClass objects (:mod:`gate.model.karpenter`),
    None when the snapshot recorded none."""
    priorities: Priorities | None = None
    """The priority expander's ConfigMap, None when the snapshot does not hold it."""


@dataclass(frozen=True, slots=True)
class ConfiguredGroup:
    """A node group as ``.fitgate.yaml`` describes it (``autoscaling.groups[]``): its id in
    the status ConfigMap, the ``key=value`` label its members carry (overriding the
    provider's default matching) and the template of a fresh node (for a group at zero)."""

    id: str
    match: tuple[str, str] | None = None
    template: NodeTemplate | None = None


@dataclass(frozen=True, slots=True)
class AutoscalingConfig:
    """The ``autoscaling`` section of ``.fitgate.yaml``: configured groups, the cluster
    limits when the CA Deployment is not recorded (None: not given), whether transient
    blockers fail (``transient: fail``) and the run's budget of new nodes."""

    groups: tuple[ConfiguredGroup, ...] = ()
    limits: Limits | None = None
    transient_fails: bool = False
    max_new_nodes: int | None = None
    catalog: Catalog | None = None
    """The instance-type catalog NodePools are judged with (``--instance-types`` or
    ``autoscaling.instanceTypes``); None: the types running in the cluster."""
