"""A run's answer: each workload's result (with what the autoscalers would add), the
summary, what was read and applied, and the report every writer reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Final, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from gate.model.baseline import BaselineRun, Comparison
from gate.model.cluster import SnapshotInfo
from gate.model.outcomes import (
    Cause,
    FieldLocation,
    NodeOutcome,
    NodeOutcomes,
    ReplicaFit,
)
from gate.model.policy import Policy
from gate.model.reported import Count, Reported, given
from gate.model.workloads import DEFAULT_FAIL_ON, VERDICT_ORDER, Location, Verdict, WorkloadWarning

NODE_GROUP: Final = "NodeGroup"
NODE_POOL: Final = "NodePool"
"""The kinds of what adds nodes: a cluster-autoscaler node group, a Karpenter NodePool."""
TYPES_SHOWN = 3
"""Instance types a NodePool's scale-up names before counting the rest."""
TYPES_LISTED = 100
"""Instance types a report lists of a NodePool's scale-up; the rest are counted: a catalog
of 100,000 types would otherwise list most of them for every workload."""


class ScaleUp(Reported, frozen=True, kw_only=True):
    """What would grow for the workload: nodes new nodes holding copies of its pods. A
    cluster-autoscaler node group (kind NodeGroup) grows from size from to size to, of at
    most max; a Karpenter NodePool (kind NodePool, its name as group) from the from nodes
    it has, max null, each new node one of instanceTypes."""

    # ``start``, ``end`` and ``maximum`` are the report's ``from``, ``to`` and ``max``;
    # ``instance_types`` is set for a NodePool only (a node group's new nodes are its
    # template's).

    kind: Literal["NodeGroup", "NodePool"] = "NodeGroup"
    group: str
    nodes: Count
    copies: Count
    start: Count = msgspec.field(name="from")
    end: Count = msgspec.field(name="to")
    maximum: Count | None = msgspec.field(name="max")
    instance_types: (
        Annotated[
            tuple[str, ...],
            Meta(
                description="NodePool: the instance types a new node may take, in "
                "Karpenter's order (cheapest first); at most the first 100, "
                "instanceTypeCount counting them all when there are more."
            ),
        ]
        | UnsetType
    ) = msgspec.field(default=UNSET, name="instanceTypes")
    type_count: (
        Annotated[
            Count,
            Meta(
                description="NodePool: how many instance types a new node may take, present "
                "when instanceTypes lists only the first 100 of them."
            ),
        ]
        | UnsetType
    ) = msgspec.field(default=UNSET, name="instanceTypeCount")

    def __str__(self) -> str:
        """processors/nodegroupset ``ScaleUpInfo.String``: ``{aks-user 3->5 (max: 10)}``;
        a NodePool: ``NodePool "default" +2 nodes (m6i.large, m5.large, … 41 types)``."""
        if self.kind == NODE_POOL:
            noun = "node" if self.nodes == 1 else "nodes"
            instance_types = given(self.instance_types, ())
            types = ", ".join(instance_types[:TYPES_SHOWN])
            total = given(self.type_count, len(instance_types))
            if total > TYPES_SHOWN:
                types += f", … {total} types"
            return f'NodePool "{self.group}" +{self.nodes} {noun} ({types})'
        return f"{{{self.group} {self.start}->{self.end} (max: {self.maximum})}}"


GroupScaleUp = ScaleUp
"""What grows for a workload (:class:`ScaleUp`), as the autoscaler simulations name it."""


KARPENTER_EVENT = "Failed to schedule pod, "
"""How Karpenter's ``FailedScheduling`` event begins, before each NodePool's error joined by
``; `` (pkg/controllers/provisioning/scheduling/events.go ``PodFailedToScheduleEvent``)."""


class PoolRefusal(Reported, frozen=True):
    """Why a Ready Karpenter NodePool launches no node for the first blocked copy: reason
    (a key of blocked.reasons) and Karpenter's own text."""

    # ``reason`` is short (``did not tolerate taint``, ``incompatible requirements``, ``no
    # instance type has enough resources``, ...); ``text``, the report's ``message``, is
    # Karpenter's own for it.

    pool: str
    reason: str
    text: str = msgspec.field(name="message")

    def __str__(self) -> str:
        """``nodepool "gpu": did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)``;
        a refusal that is no pool's (the pod's own: Karpenter's Validate, its DRA check, every
        type filtered out) is its text alone."""
        return f'nodepool "{self.pool}": {self.text}' if self.pool else self.text


class Blocked(Reported, frozen=True, kw_only=True):
    """The copies no node group or NodePool takes: how many, each reason with the number of
    groups or pools giving it, the autoscalers' events for them, one per line (CA's, then
    Karpenter's; "" when none is blocked), whether every reason may pass (a group in
    backoff or not ready, a status that may have changed), and each NodePool's refusal."""

    # ``message`` holds the events the autoscalers publish for a blocked copy (CA's ``pod
    # didn't trigger scale-up: ...``, Karpenter's ``Failed to schedule pod, ...``);
    # ``transient``: every blocker may pass. ``pools`` (the report's ``nodePools``) are each
    # Ready NodePool's refusal of the first blocked copy, in Karpenter's pool order, unset
    # when no NodePool was asked or none refused.

    copies: Count
    reasons: Mapping[str, Count]
    message: str
    transient: bool
    pools: tuple[PoolRefusal, ...] | UnsetType = msgspec.field(default=UNSET, name="nodePools")


NOT_BLOCKED: Final = Blocked(copies=0, reasons={}, message="", transient=False)
"""What an autoscale blocks when every copy is taken."""


class Autoscale(Reported, frozen=True, kw_only=True):
    """Where the workload's copies go once the autoscalers have added what they would:
    fitsNow on today's nodes, the node groups and NodePools that grow, the copies blocked."""

    # ``scale_up`` holds cluster-autoscaler's scale-ups first, then Karpenter's.

    fits_now: Count = msgspec.field(name="fitsNow")
    scale_up: tuple[ScaleUp, ...] = msgspec.field(name="scaleUp")
    blocked: Blocked
    options: tuple[ScaleUp, ...] | UnsetType = UNSET
    """Every node group that helps, with what it alone would add, when cluster-autoscaler's
    expander chooses among them at random (``random``, the default; ``price``; ``priority``
    without its recorded ConfigMap; a tie): ``scaleUp`` is then one possible choice."""

    @property
    def nodes(self) -> int:
        """The new nodes every group together adds."""
        return sum(s.nodes for s in self.scale_up)

    @property
    def after(self) -> int:
        """The copies the new nodes hold."""
        return sum(s.copies for s in self.scale_up)


class Quota(Reported, frozen=True, kw_only=True):
    """The workload's pods against the ResourceQuotas of their namespace, as the API server
    admits them one after another: created of those wanted; quota, the quota that refused the
    first one not created, else those they were counted in (by name, comma-separated);
    message, the API server's refusal of the first one not created (null when every one was:
    ``pods "web-5d8f7c9b4-x2k9q" is forbidden: exceeded quota: compute, requested: ...``)."""

    created: Count
    quota: str
    message: str | None


class Evicted(Reported, frozen=True, kw_only=True):
    """A workload that loses running pods to preemption: its kind, namespace and name (the
    pods' owner as the snapshot knows it: a ReplicaSet's Deployment, a Job's CronJob; a
    bare pod is its own), how many of its pods go, and their priority."""

    kind: str
    namespace: str
    name: str
    pods: Count
    priority: int


class Preemption(Reported, frozen=True, kw_only=True):
    """The copies that fit only by evicting pods of lower priority (DefaultPreemption
    nominates a node for each, one after another), and the workloads whose pods go, by
    priority from the highest."""

    copies: Count
    evicts: tuple[Evicted, ...]

    @property
    def pods(self) -> int:
        """Every pod evicted."""
        return sum(e.pods for e in self.evicts)


@dataclass(frozen=True, slots=True)
class WorkloadResult:
    kind: str
    namespace: str
    name: str
    location: Location
    replicas: int | None
    verdict: Verdict
    message: str | None = None
    reason: str | None = None
    nodes: Sequence[NodeOutcome] = ()
    """Every node's outcome for its first pod, in node order: :class:`NodeOutcomes` from
    the engine, a tuple when read back from a report."""
    requests: tuple[tuple[str, str], ...] = ()
    warnings: tuple[WorkloadWarning, ...] = ()
    placement: ReplicaFit | None = None
    allowed: bool = False
    """An ``ADDON_ONLY`` the configuration allows (``allowAddonOnly``): it does not fail."""
    compared: Comparison | None = None
    """Against the baseline report, when the run was given one (``--baseline``)."""
    cause: Cause | None = None
    """For a workload that some nodes reject: the reason behind most rejections."""
    field_at: FieldLocation | None = None
    """Where the cause is in the manifest, when its field could be found."""
    autoscale: Autoscale | None = None
    """Where cluster-autoscaler would put the copies no existing node takes, when the run
    judged the snapshot's node groups for them."""
    gates: tuple[str, ...] = ()
    """The template's scheduling gates: the pod waits for their removal, and the rest of
    the result is what happens then."""
    quota: Quota | None = None
    """Its pods against their namespace's ResourceQuotas; None when no quota counts them."""
    preemption: Preemption | None = None
    """The copies that fit by evicting pods of lower priority, and whose pods go."""

    @property
    def fits(self) -> tuple[str, ...]:
        """The nodes the pod fits, in node order (reports share them through
        :class:`gate.reports.views.Views`, derived once per outcomes)."""
        outcomes = NodeOutcomes.of(self.nodes)
        return outcomes.nodes_in(outcomes.fitting)

    @property
    def title(self) -> str:
        """``Kind namespace/name``; an unreadable document has no namespace, only its place."""
        if not self.namespace:
            return f"{self.kind} {self.name}"
        return f"{self.kind} {self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class Summary:
    workloads: int
    counts: Mapping[Verdict, int]
    warnings: int
    passed: bool


class Excluded(Reported, frozen=True):
    """A walked file left out, and the exclude pattern that left it out."""

    file: str
    pattern: str


class Unchecked(Reported, frozen=True):
    """A document not checked: where it is, and why."""

    at: str
    reason: str


class Read(Reported, frozen=True):
    """What fitgate check read: files and documents, the walked files left out (with the
    pattern that did) and the documents not checked. A merge's report carries its first
    shard's: every shard reads the same files."""

    # What a run was given to read: a reviewer sees from it whether the gate judged what the
    # pull request holds. ``skipped`` are the documents read but not checked (a snapshot
    # among the manifests, a named pipe met while walking), ``at`` being ``file:line``.

    files: Count
    documents: Count
    excluded: tuple[Excluded, ...]
    """Each walked file left out, in walk order."""
    skipped: tuple[Unchecked, ...]
    config: (
        Annotated[
            str | None,
            Meta(
                description="The configuration file the run applied (.fitgate.yaml found "
                "upwards, or --config), null when it found none; absent in a report written "
                "before it was recorded."
            ),
        ]
        | UnsetType
    ) = UNSET

    def excluded_by(self) -> tuple[tuple[str, int], ...]:
        """How many files each pattern left out, in the order the patterns first did.

        >>> left = (Excluded("a", "*.json"), Excluded("b", "tests"), Excluded("c", "*.json"))
        >>> Read(3, 3, left, ()).excluded_by()
        (('*.json', 2), ('tests', 1))
        """
        counted: dict[str, int] = {}
        for left in self.excluded:
            counted[left.pattern] = counted.get(left.pattern, 0) + 1
        return tuple(counted.items())


ReadSummary = Read
"""What a run read (:class:`Read`), as the stages that gather it name it."""


SNAPSHOT_FILE = "the snapshot file"
"""What leaves the run's own snapshot file out of a directory walk (a :class:`ReadSummary`'s
pattern for it)."""


JUDGED = frozenset(
    {
        Verdict.YES,
        Verdict.SCALES,
        Verdict.PREEMPTS,
        Verdict.NO,
        Verdict.ADDON_ONLY,
        Verdict.PARTIAL,
    }
)
"""The verdicts of a workload that was evaluated against the snapshot: a run without one
judged nothing (an ``ERROR`` or a ``SKIPPED`` is no judgement of a workload's fit)."""


@dataclass(frozen=True, slots=True)
class Report:
    """Everything every reporter writes from: one snapshot, every workload result."""

    snapshot: SnapshotInfo
    results: tuple[WorkloadResult, ...]
    fail_on: frozenset[Verdict] = DEFAULT_FAIL_ON
    other_documents: tuple[tuple[str, int], ...] = ()
    version: str = ""
    warnings: tuple[str, ...] = ()
    """About the run as a whole, not one workload (a snapshot more than a day old): every
    report shows them."""

    baseline: BaselineRun | None = None
    """The baseline report the results were compared with (``--baseline``)."""

    read: ReadSummary | None = None
    """What the run read and left out, when it read files (a merge knows only results)."""

    policy: Policy | None = None
    """The gate's policy, when the configuration or a flag changed it from the default."""

    nothing_judged: str | None = None
    """Why the run judged no workload, when that fails it (exit 5): a gate that evaluated
    nothing must not read as one that found nothing wrong."""

    max_new_nodes: int | None = None
    """The run's budget of nodes cluster-autoscaler may add (``autoscaling.maxNewNodes``):
    needing more fails the gate."""

    @property
    def new_nodes(self) -> int:
        """The nodes cluster-autoscaler would add for the run's workloads, all together."""
        return sum(r.autoscale.nodes for r in self.results if r.autoscale is not None)

    @property
    def over_budget(self) -> bool:
        """Whether the run needs more new nodes than ``max_new_nodes`` allows."""
        return self.max_new_nodes is not None and self.new_nodes > self.max_new_nodes

    def judged(self) -> bool:
        """Whether any workload was evaluated: a run that judged nothing never passes
        unless asked to (``--allow-empty``)."""
        return any(r.verdict in JUDGED for r in self.results)

    def fails(self, result: WorkloadResult) -> bool:
        """Whether ``result`` fails the gate: its verdict is in ``fail_on`` and the
        configuration does not allow it (``allowAddonOnly``); against a baseline, only
        when it is a new or worse failure (or an ``ERROR``)."""
        if result.compared is not None:
            return result.compared.fails
        return self.fails_alone(result)

    def fails_alone(self, result: WorkloadResult) -> bool:
        """Whether ``result`` fails the gate by its own verdict, whatever a baseline says."""
        return result.verdict in self.fail_on and not result.allowed

    @property
    def summary(self) -> Summary:
        counts = {v: 0 for v in VERDICT_ORDER}
        for r in self.results:
            counts[r.verdict] += 1
        failed = any(map(self.fails, self.results))
        return Summary(
            workloads=len(self.results),
            counts=counts,
            warnings=sum(len(r.warnings) for r in self.results),
            passed=not failed and self.nothing_judged is None and not self.over_budget,
        )


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (``--shard K/N``): the items at positions K-1 modulo N."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def takes(self, position: int) -> bool:
        return position % self.count == self.index - 1


@dataclass(frozen=True, slots=True)
class ShardReport(Report):
    """A report of one shard: the shard's results, and what a merge needs (``nodes``: the
    snapshot's node names in its order, the order every result's outcomes are in)."""

    shard: Shard = Shard(1, 1)
    positions: tuple[int, ...] = ()
    items: int = 0
    inputs: str = ""
    cluster: str = ""
    nodes: tuple[str, ...] = ()
