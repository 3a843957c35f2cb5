"""What the filters read of one pod, parsed once per workload."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gate.k8s.matching import SelectorTerm
from gate.k8s.nodeterms import NodeAffinityTerms
from gate.k8s.podaffinity import AffinityTerm
from gate.k8s.quotausage import Amount
from gate.k8s.spread import SpreadConstraint
from gate.model import HostPort
from gate.model.storage import Mount


@dataclass(frozen=True, slots=True)
class PodProfile:
    """What the filters read of one pod, parsed once per workload.

    ``label_keys``: every label key the nodeSelector and the required affinity terms read
    (the node classes NodeAffinity splits nodes into on the fast path); ``written_terms``:
    those terms as written, made hashable by :func:`frozen` (parsed terms compare by
    identity, so pods written alike share their answers through these).

    What the inter-pod filters read: the pod's ``namespace`` and ``labels``, its
    DoNotSchedule ``spread`` constraints, its required ``pod_affinity`` and
    ``pod_anti_affinity`` terms (their namespaceSelector not yet listed), and ``pinned``:
    a DaemonSet's pod, bound by its controller to one node per node.

    ``by_name``: a node's name decides the answer (``nodeName``, ``matchFields``), so the
    pod is filtered node by node; ``names``: the nodes NodeAffinity's PreFilter narrows it
    to by their names (None: every node). ``nonzero``: its cpu and memory as the scores
    count them; ``bound_nonzero``: as its node's non-zero requests count it once bound.
    What the autoscalers read: its ``priority`` (None when unset) and its node affinity
    as written (``node_affinity``: Karpenter's requirements and preferences).

    What the score plugins read besides: the ``preferred_node_terms`` and the preferred
    ``preferred_pod_affinity`` / ``preferred_pod_anti_affinity`` terms as (weight, term),
    whether the pod lists any topology spread constraints (``spread_listed``: else the
    score spreads by the system defaults) and its ScheduleAnyway ones (``soft_spread``).
    ``soft_spread_error``: why one of those has a selector the API server refuses; only
    the score reads them, and only when it runs, so the error is raised there.
    """

    node_name: str = ""
    tolerations: tuple[Mapping[str, Any], ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity_terms: tuple[SelectorTerm, ...] | None = None
    written_terms: Hashable = None
    wanted_ports: tuple[HostPort, ...] = ()
    requests: Mapping[str, int] = field(default_factory=dict)
    label_keys: frozenset[str] = frozenset()
    namespace: str = "default"
    labels: Mapping[str, str] = field(default_factory=dict)
    spread: tuple[SpreadConstraint, ...] = ()
    pod_affinity: tuple[AffinityTerm, ...] = ()
    pod_anti_affinity: tuple[AffinityTerm, ...] = ()
    pinned: bool = False
    by_name: bool = False
    names: frozenset[str] | None = None
    nonzero: tuple[int, int] = (0, 0)
    bound_nonzero: tuple[int, int] = (0, 0)
    priority: int | None = None
    node_affinity: NodeAffinityTerms = field(default_factory=NodeAffinityTerms)
    preferred_node_terms: tuple[tuple[int, SelectorTerm], ...] = ()
    preferred_pod_affinity: tuple[tuple[int, AffinityTerm], ...] = ()
    preferred_pod_anti_affinity: tuple[tuple[int, AffinityTerm], ...] = ()
    spread_listed: bool = False
    soft_spread: tuple[SpreadConstraint, ...] = ()
    soft_spread_error: str = ""
    soft_spread_at: tuple[bool, ...] = ()
    """For each object ``topologySpreadConstraints`` lists, in order, whether it is a
    ScheduleAnyway one: where the soft ones stand among the rest, which decides the order
    Karpenter relaxes them in (preferences.go ``removeTopologySpreadScheduleAnyway``)."""
    claims: tuple[str, ...] = ()
    """The claim names of its ``persistentVolumeClaim`` volumes, in ``volumes``' order:
    what the volume plugins read of it."""
    mounts: tuple[Mount, ...] = ()
    """Its claims, generic ephemeral volumes and in-tree disks (``gate.k8s.volumes.mounts_of``):
    what NodeVolumeLimits and VolumeRestrictions read of it."""
    preemption_policy: str = ""
    """Its ``preemptionPolicy`` as the Priority admission set it ("" when unset): ``Never``
    keeps DefaultPreemption from evicting anything for it."""
    stored_requests: Callable[[], Mapping[str, Amount]] = field(
        default=lambda: {}, compare=False, repr=False
    )
    """Its requests exactly, each in the format it prints in, as a client reads the created
    pod back (:func:`gate.k8s.quotausage.stored_requests`), worked out on first use: only
    Karpenter's refusals print them, so only a pod reaching its NodePools asks."""
    regular_ports: tuple[HostPort, ...] = ()
    """The host ports of its regular containers alone (``wanted_ports`` less the sidecars'):
    what Karpenter reads (:func:`gate.k8s.ports.regular_host_ports`)."""
    dra_requirements: bool = False
    """Whether a container or init container lists ``resources.claims``: Karpenter schedules
    no such pod and counts no such DaemonSet (:func:`~.pods.dra_requirements`)."""
    pod_name: str = ""
    """Its name as its controller names it, when the claims of its generic ephemeral volumes
    are judged ("" otherwise): whether a claim is the one created for it
    (ephemeral.VolumeIsForPod) asks it."""
    ephemeral_claims: tuple[str, ...] = ()
    """The claims of its generic ephemeral volumes (``<pod>-<volume>``), once its name is
    known: VolumeBinding and NodeVolumeLimits read them, VolumeZone and VolumeRestrictions
    read ``claims`` alone (upstream's read only ``persistentVolumeClaim`` volumes)."""
    volume_claims: tuple[str, ...] | None = None
    """The claims of its ``persistentVolumeClaim`` and generic ephemeral volumes, in
    ``volumes``' order, as VolumeBinding's PreFilter reads them; None: ``claims`` alone."""
    toleration_key: Hashable = field(init=False, repr=False, compare=False)
    """The tolerations made hashable by :func:`frozen`, once: two plugins read them."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "toleration_key", frozen(self.tolerations))

    @property
    def binding_claims(self) -> tuple[str, ...]:
        """The claims VolumeBinding reads (:attr:`volume_claims`)."""
        return self.claims if self.volume_claims is None else self.volume_claims


def frozen(value: object) -> Hashable:
    """A hashable stand-in equal only for equal data of equal types (``1``, ``1.0`` and
    ``True`` are equal in Python, not to the filters)."""
    kind = value.__class__
    if kind is str:  # most of what a pod spec holds, so asked first
        return value
    if kind is dict or isinstance(value, Mapping):
        return tuple((frozen(k), frozen(v)) for k, v in value.items())  # type: ignore[attr-defined]
    if kind is list or kind is tuple:
        return (list, *map(frozen, value))  # type: ignore[call-overload]
    return (kind, value)
