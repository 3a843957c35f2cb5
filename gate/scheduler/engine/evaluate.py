"""Workloads x node views -> verdicts, and the scheduler's FitError message.

The filter plugins (:mod:`gate.scheduler.plugins`) run once per class of the nodes' part
that each reads (:mod:`gate.scheduler.framework.nodeindex`): cost grows with the number of
such classes, not with the number of nodes, and verdicts, messages and counts are computed on
sets of nodes.
A workload's per-node outcomes are kept as those sets too (:mod:`gate.scheduler.engine.outcomes`).
Pods whose answer depends on a node's name (``nodeName``, ``matchFields``) are evaluated
node by node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import reduce
from itertools import islice
from operator import or_
from typing import TYPE_CHECKING, Any

from gate.errors import QuantityError
from gate.k8s.claims import FOLLOWED_COPIES
from gate.k8s.completion import AdmissionRefused
from gate.k8s.intstr import scaled
from gate.k8s.labels import ZONE
from gate.k8s.podlabels import differs_by_copy
from gate.k8s.podnames import controller_object
from gate.k8s.priority import SYSTEM_CRITICAL_PRIORITY
from gate.k8s.quantity import format_amount
from gate.k8s.quotaledger import (
    Admitted,
    QuotaLedger,
    quotas_of,
    running_usage,
    summed_requests,
)
from gate.k8s.quotausage import Usage, pod_usage
from gate.k8s.resources import PODS
from gate.k8s.selectors import SelectorError
from gate.k8s.version import Dialect
from gate.k8s.volumes import mounts_of
from gate.k8s.warnings import scheduling_gates
from gate.model import (
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_VOLUME_LIMITS,
    POD_TOPOLOGY_SPREAD,
    Cause,
    ExistingPod,
    NodeOutcome,
    NodeOutcomes,
    NodeView,
    Preemption,
    ReplicaFit,
    Snapshot,
    Verdict,
    WarningKind,
    Workload,
    WorkloadResult,
    WorkloadWarning,
)
from gate.model.autoscaling import AutoscalingConfig
from gate.scheduler.engine.causes import DAEMON_PREDICATES, cause_of
from gate.scheduler.engine.claimed import (
    Claimed,
    Walk,
    binds_shared,
    chosen_node,
    reach,
    with_copies,
)
from gate.scheduler.engine.outcomes import OutcomeTables
from gate.scheduler.engine.preemption import (
    Preempted,
    Start,
    evicted,
    preempt_copies,
    preempt_pinned,
)
from gate.scheduler.engine.quotas import (
    admit_ephemeral,
    claim_stopped,
    ephemeral_new_claims,
    limited,
    new_claims,
    pinned_created,
    refused,
    refused_claim,
)
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import NodeIndex, lowest
from gate.scheduler.framework.ordinals import (
    READ_WRITE_ONCE_POD,
    bound_first,
    capped,
    copy_pod_labels,
    once_warnings,
    ordinal_claims,
    ordinal_pod,
    ordinals_to_try,
    recounted,
    shared_claims,
)
from gate.scheduler.framework.pods import Pod, copy_name, copy_namer, prepare_pod, template_text
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import (
    CycleState,
    Groups,
    Rejection,
    SharedParts,
    filter_groups,
    pre_filter_refusal,
    run_filters,
)
from gate.scheduler.placement.copies import (
    CopyRules,
    Ledger,
    Placement,
    partly_scored,
    scored_past_sample,
    set_bits,
)
from gate.scheduler.placement.copyrules import disks_collide
from gate.scheduler.placement.ownership import Ownership
from gate.scheduler.placement.prescore import PreScoreFailed, prescore_error, score_rules
from gate.scheduler.placement.replicas import (
    CopyCount,
    Counted,
    ReleasedNodes,
    copy_rules,
    count_copies,
    released_nodes,
    scaled_up_warning,
)
from gate.scheduler.placement.unfit import Refused, consumers, refusals
from gate.scheduler.plugins import FIRST_ROOM, ORDER, ROOM, prepare, scheduling_key
from gate.scheduler.plugins.defaultpreemption import (
    NEVER,
    Budgets,
    PodsByNode,
    Victim,
    started,
)
from gate.scheduler.plugins.interpodaffinity.copies import after_first_copy
from gate.scheduler.plugins.interpodaffinity.scoring import carried_terms
from gate.scheduler.plugins.nodeaffinity import pre_filter_result
from gate.scheduler.plugins.podtopologyspread.filtering import SKEW
from gate.scheduler.plugins.volumerestrictions import IN_USE, VOLUME_RESTRICTIONS

if TYPE_CHECKING:
    from gate.scheduler.autoscaling.session import Autoscaling

# schedule_one.go ErrNoNodesAvailable: no plugin's, the scheduler's own
REASON_NO_NODES = "no nodes available to schedule pods"
HINTED_NODES = 8
"""How many of the nodes its first copy fits a StatefulSet's later copy is looked for on
before its whole answer is worked out."""
HELD_VOLUMES = frozenset({VOLUME_RESTRICTIONS, NODE_VOLUME_LIMITS})
"""The filters that count the volumes other pods hold."""


def _kubelet_rejects(profile: PodProfile) -> bool:
    """Whether a pod that does not fit is rejected rather than placed by preemption: one
    created with ``nodeName`` never reaches kube-scheduler's DefaultPreemption, and its
    node's kubelet rejects it (``OutOfcpu`` and the like) unless it is critical: at
    system-cluster-critical's priority or above, the kubelet evicts pods to make room for
    it (``pkg/kubelet/preemption``, ``CriticalPodAdmissionHandler``)."""
    return bool(profile.node_name) and (profile.priority or 0) < SYSTEM_CRITICAL_PRIORITY


def fit_error(total: int, outcomes: Iterable[NodeOutcome]) -> str:
    """FitError.Error(): ``0/N nodes are available:`` and the reason histogram, each entry
    ``<count> <reason>``, sorted byte-wise (so ``10 ...`` sorts before ``2 ...``)."""
    return _fit_error_text(total, Counter(reason for o in outcomes for reason in o.reasons))


def _fit_error_text(total: int, histogram: Mapping[str, int]) -> str:
    entries = sorted((f"{count} {reason}" for reason, count in histogram.items()), key=_bytes)
    return f"0/{total} nodes are available: {', '.join(entries)}."


def _group_fit_error(total: int, groups: Groups) -> str:
    """:func:`fit_error` from node sets: each reason counted once per node of its set."""
    histogram: Counter[str] = Counter()
    for rejection, bits in groups.items():
        for reason in rejection.reasons:
            histogram[reason] += bits.bit_count()
    return _fit_error_text(total, histogram)


def _bytes(text: str) -> bytes:
    return text.encode("utf-8")


def _per_node(
    nodes: Sequence[NodeView], cycle: CycleState, dialect: Dialect
) -> list[Rejection | None]:
    return [run_filters(cycle, node, dialect) for node in nodes]


def _requests_text(profile: PodProfile) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, format_amount(name, amount))
        for name, amount in sorted(profile.requests.items())
        if amount > 0
    )


@dataclass(frozen=True, slots=True)
class _Answer:
    """What the filters say of every node for one pod, and what follows from it."""

    outcomes: NodeOutcomes
    any_fit: bool
    addon_only: bool  # every node that fits is an add-on node
    message: str | None  # the FitError, when no node fits
    lacking: bool  # some node rejects it for room alone
    groups: Groups  # the nodes by the rejection they share
    fitting: int  # the nodes where it fits, as a bitset
    cycle: CycleState  # the PreFilter state it was worked out with
    of: PodProfile | None = field(default=None, compare=False)
    """The pod ``cycle`` was prepared for in the run's cluster (None: unknown, or a view)."""


@dataclass(frozen=True, slots=True)
class Evaluator:
    """Evaluates workloads against one snapshot, sharing its node classes."""

    cluster: Cluster
    dialect: Dialect
    tables: OutcomeTables
    answers: dict[Hashable, _Answer] = field(default_factory=dict)
    causes: dict[tuple[int, bool], tuple[_Answer, Cause | None]] = field(default_factory=dict)
    parts: SharedParts = field(default_factory=dict)
    _ownership: list[Ownership] = field(default_factory=list)
    _by_node: list[PodsByNode] = field(default_factory=list)
    _carriers: list[frozenset[int]] = field(default_factory=list)
    _left: dict[tuple[int, ...], Cluster] = field(default_factory=dict)
    """The cluster the last workload's running pods leave, kept for its later copies."""
    _views: dict[tuple[int, ...], ReleasedNodes] = field(default_factory=dict)
    """The nodes the last workload's running pods leave, kept for its later copies (those
    already built with them)."""
    _short: dict[tuple[str, int], int] = field(default_factory=dict)
    """The nodes short of an amount of a resource (NodeIndex.short_of), by the two: the
    run's DaemonSets ask the same few hundred of them for every set of nodes they hold."""
    autoscaling: Autoscaling | None = None
    """The run's cluster-autoscaler, when the snapshot recorded its node groups: where the
    copies no existing node takes would go."""
    quotas: QuotaLedger = field(default_factory=QuotaLedger)
    """The namespaces' ResourceQuotas, with what the run's pods have taken of them."""

    @classmethod
    def for_snapshot(
        cls, snapshot: Snapshot, dialect: Dialect, autoscaling: AutoscalingConfig | None = None
    ) -> Evaluator:
        """The evaluator of ``snapshot``; ``autoscaling``: the configuration's part for the
        autoscaler (None: nodes are fixed, ``--autoscaling off``)."""
        cluster = Cluster.of(snapshot)
        scaler = None
        if autoscaling is not None and snapshot.autoscaling is not None:
            # Imported here: a snapshot that recorded no autoscaler never simulates one.
            from gate.scheduler.autoscaling.session import Autoscaling

            scaler = Autoscaling.of(snapshot, autoscaling, cluster, dialect)
        quotas = QuotaLedger.of(quotas_of(snapshot.admission.resource_quotas))
        tables = OutcomeTables(cluster.index.nodes)
        return cls(cluster, dialect, tables, autoscaling=scaler, quotas=quotas)

    @property
    def snapshot(self) -> Snapshot:
        return self.cluster.snapshot

    @property
    def index(self) -> NodeIndex:
        return self.cluster.index

    def _answer(self, pod: Pod, cycle: CycleState | None = None) -> _Answer:
        """What the filters say of every node for this pod (``cycle``: its PreFilters'
        state, when already prepared). Workloads that ask the filters the same questions
        get the same answer: it is worked out once."""
        key = scheduling_key(pod.profile, self.cluster)
        found = self.answers.get(key) if key is not None else None
        if found is None:
            if cycle is None:
                cycle = prepare(pod.profile, self.cluster)
            found = self._work_out(
                filter_groups(self.index, cycle, self.dialect, self.parts), cycle, pod.profile
            )
            if key is not None:
                self.answers[key] = found
        return found

    def _work_out(self, groups: Groups, cycle: CycleState, of: PodProfile | None = None) -> _Answer:
        """The answer of ``groups`` (``of``: the pod ``cycle`` was prepared for in the run's
        cluster, when it was)."""
        refused = pre_filter_refusal(cycle)
        if refused is not None:  # no Filter ran: every node has the PreFilter's status
            groups = {refused: self.index.everyone}
        fitting = self.index.everyone & ~reduce(or_, groups.values(), 0)
        total = len(self.index.nodes)
        message = None if fitting else _group_fit_error(total, groups)
        if refused is not None:
            message = f"0/{total} nodes are available: {refused.reasons[0]}."
        return _Answer(
            outcomes=self.tables.outcomes(groups),
            any_fit=bool(fitting),
            addon_only=not fitting & ~self.index.addon,
            message=message,
            lacking=any(r.plugin in ROOM for r in groups),
            groups=groups,
            fitting=fitting,
            cycle=cycle,
            of=of,
        )

    def _cause(self, answer: _Answer, daemonset: bool) -> Cause | None:
        """The answer's cause (:mod:`gate.scheduler.engine.causes`), worked out once per answer."""
        key = (id(answer), daemonset)
        found = self.causes.get(key)
        if found is None:
            cause = cause_of(
                self.index, answer.cycle, answer.groups, self.dialect, targeted_only=daemonset
            )
            found = self.causes[key] = (answer, cause)  # the answer kept: its id stays its own
        return found[1]

    def evaluate(
        self, workload: Workload, ledger: Ledger | None = None, *, reported: bool = True
    ) -> WorkloadResult:
        """The workload's result. With a ``ledger`` (one per run, passed to every
        workload in input order), a workload new to the cluster is also placed beside the
        new workloads evaluated before it, and takes its room there. ``reported`` false:
        only its verdict, counts and what it takes are needed (another shard reports it),
        so what only a report reads (who holds the room it lacks, the first copy that does
        not fit, one lost node, an autoscaler's headroom) is left out."""
        try:
            pod = self._prepared(workload)
        except AdmissionRefused as exc:  # in the API server's words, naming the first pod
            reason = exc.message(copy_name(workload, 0, generated=not exc.mutating))
            return self._result(workload, Verdict.ERROR, reason=reason)
        except (QuantityError, SelectorError) as exc:
            return self._result(workload, Verdict.ERROR, reason=str(exc))
        if workload.kind == "DaemonSet":
            result, pinned = self._daemonset(workload, pod, ledger, reported)
            wanted = 0 if result.placement is None else result.placement.wanted
            admitted = self._admitted(workload, pod, ledger, wanted)
            if admitted is None:
                return result
            if admitted.created == 0 and admitted.message is not None:
                return refused(result, admitted, wanted)
            return limited(pinned_created(result, pinned, admitted.created), admitted, wanted)
        wanted = workload.replicas or 0
        try:  # a claim template's storage request is read here
            admitted = self._admitted(workload, pod, ledger, wanted)
        except QuantityError as exc:
            return self._result(workload, Verdict.ERROR, reason=str(exc))
        try:  # the score plugins read the template's labels as a selector
            if admitted is None:
                return self._pod(workload, pod, ledger, reported)
            if admitted.created == 0 and admitted.message is not None:
                none = self._pod(replace(workload, replicas=0), pod, None, reported)
                return refused(none, admitted, wanted)
            result = self._pod(replace(workload, replicas=admitted.created), pod, ledger, reported)
            return self._quota_headroom(limited(result, admitted, wanted), admitted)
        except (SelectorError, PreScoreFailed) as exc:
            return self._result(workload, Verdict.ERROR, reason=str(exc))

    def _prepared(self, workload: Workload) -> Pod:
        """The workload's pod as the scheduler would receive it from this cluster's API
        server (:func:`prepare_pod`, and what it raises)."""
        return prepare_pod(
            workload,
            self.snapshot.admission,
            self.dialect,
            namespaces_unknown=self.snapshot.namespaces is None,
            storage=self.snapshot.storage,
            namespace_labels=self.namespace_labels(workload.namespace),
        )

    def namespace_labels(self, namespace: str) -> Mapping[str, str] | None:
        """The labels of the namespace: a Namespace of the run's replaces the snapshot's;
        None when neither is known (the snapshot recorded no namespaces)."""
        shipped = self.snapshot.admission.namespaces.get(namespace)
        if shipped is not None:
            return shipped
        recorded = self.snapshot.namespaces
        return None if recorded is None else recorded.get(namespace, {})

    def warm(self, workloads: Iterable[Workload]) -> None:
        """Work out now what the filters compute once of the cluster for a pod that mounts
        volumes (the volume plugins' use and counts of its pods' volumes), when one of
        ``workloads`` mounts any: a second process forked next inherits it, where it would
        otherwise work it out again (0.3 s on a 5,000-node cluster)."""
        for workload in workloads:
            if not workload.claim_templates and not mounts_of(workload.pod_spec.get("volumes")):
                continue
            try:
                pod = self._prepared(workload)
            except (AdmissionRefused, QuantityError, SelectorError):
                continue  # judged as an error, with nothing worked out
            if pod.profile.mounts:
                prepare(pod.profile, self.cluster)
                return

    def alone(self, workload: Workload) -> bool:
        """Whether judging ``workload`` leaves the run's other workloads as they were: it
        replaces running pods of its own (so it takes no room on the run's ledger), no quota
        of its namespace counts it, and no autoscaler's headroom is shared, or it is a
        DaemonSet (which never scales a group up) replacing its own."""
        if not self._own_pods(workload) or self.quotas.quotas.get(workload.namespace):
            return False
        return self.autoscaling is None or workload.kind == "DaemonSet"

    def _admitted(
        self, workload: Workload, pod: Pod, ledger: Ledger | None, wanted: int
    ) -> Admitted | None:
        """:meth:`_quota_admitted`, the copies of a StatefulSet stopping at the first whose
        claim the API server refuses (:func:`refused_claim`)."""
        stop = refused_claim(workload, self.snapshot.storage, wanted)
        if stop is None:
            return self._quota_admitted(workload, pod, ledger, wanted)
        admitted = self._quota_admitted(workload, pod, ledger, stop[0])
        return claim_stopped(admitted, *stop)

    def _quota_admitted(
        self, workload: Workload, pod: Pod, ledger: Ledger | None, wanted: int
    ) -> Admitted | None:
        """The workload's object and ``wanted`` pods admitted against its namespace's
        quotas (:mod:`gate.k8s.quotaledger`): the run's ledger takes what they use, so later
        workloads meet it; a workload judged alone (no ``ledger``) takes nothing. None
        when no quota counts them."""
        namespace = workload.namespace
        if not self.quotas.quotas.get(namespace):
            return None
        book = self.quotas if ledger is not None else self.quotas.copy()
        counted = None
        if not self._running(workload):  # new to the cluster: its objects are created too
            counted = self._admit_objects(book, workload)
        elif workload.kind == "Deployment" and not workload.paused:
            counted = self._admit_rollout(book, workload)
        if counted is not None and counted.message is not None:
            return counted
        usage = pod_usage(pod.spec)
        indexed = self.cluster.others.pods.pods
        own = self._own_pods(workload)
        scaling = workload.scaling
        surge_first = scaling is not None and scaling.surge > 0 and scaling.unavailable == 0
        if surge_first:  # one old pod leaves after each new one
            # a workload's pods mostly request alike: each distinct request is converted once
            seen: dict[tuple[tuple[str, int], ...], Usage] = {}
            running = [
                seen.get(key) or seen.setdefault(key, running_usage(dict(key), usage))
                for key in (
                    tuple(sorted(indexed[i].requests.items())) for i in _leaving(indexed, own)
                )
            ]
        else:  # they all leave first: their sum is what leaves
            total = summed_requests(indexed[i].requests for i in own)
            running = [running_usage(total, usage, len(own))] if own else []

        name_of = copy_namer(workload)
        claims = None  # a StatefulSet's copies: each one's new claims first, then its pod
        if not surge_first and book.counts_claims(namespace):
            claims = new_claims(workload, self.snapshot.storage, wanted)
        if claims is not None:
            copies = (namespace, pod.spec, claims, name_of, workload.parallel, running, usage)
            admitted = book.admit_copies(*copies)
        else:
            admitted = book.admit_pods(
                namespace, pod.spec, wanted, name_of, running, surge_first, usage
            )
        maximum = None if scaling is None else scaling.maximum
        if admitted is not None and maximum is not None and maximum > admitted.created:
            # an autoscaler's pods past these, asked of a copy: it has not scaled yet
            more = 0
            if admitted.message is None:
                probe = book.copy().admit_pods(namespace, pod.spec, maximum - wanted, str)
                more = maximum - wanted if probe is None else probe.created
            admitted = replace(admitted, room=admitted.created + more)
        if counted is not None and admitted is None:  # only its objects are counted
            admitted = replace(counted, created=wanted)  # every pod is created
        elif counted is not None and admitted is not None:
            admitted = replace(admitted, quotas=tuple(sorted({*counted.quotas, *admitted.quotas})))
        if pod.profile.ephemeral_claims and book.counts_claims(namespace):
            storage = self.snapshot.storage
            claims = ephemeral_new_claims(workload, storage, wanted, pod.profile.pod_name)
            admitted = admit_ephemeral(book, namespace, claims, admitted, wanted)
        return admitted

    @staticmethod
    def _quota_headroom(result: WorkloadResult, admitted: Admitted) -> WorkloadResult:
        """An autoscaler's room to grow, no more than the quota would create."""
        placed = result.placement
        room = admitted.room
        if placed is None or placed.headroom is None or room is None or placed.headroom <= room:
            return result
        return replace(result, placement=replace(placed, headroom=room))

    @staticmethod
    def _admit_objects(book: QuotaLedger, workload: Workload) -> Admitted | None:
        """The workload's object, then the one its controller creates before any pod (a
        Deployment's ReplicaSet, none while it is paused; a CronJob's Job), against the
        object-count quotas."""
        namespace = workload.namespace
        counted = book.admit_object(namespace, workload.kind, workload.name)
        made = controller_object(workload.kind, workload.name, template_text(workload))
        if made is None or workload.paused or (counted is not None and counted.message is not None):
            return counted
        then = book.admit_object(namespace, *made)
        if then is None or counted is None:
            return then or counted
        return replace(then, quotas=tuple(sorted({*counted.quotas, *then.quotas})))

    @staticmethod
    def _admit_rollout(book: QuotaLedger, workload: Workload) -> Admitted | None:
        """A running Deployment's rollout: its controller creates a ReplicaSet for the new
        template (deployment/sync.go ``getNewReplicaSet``, none while paused), against the
        object-count quotas; refused, the rollout never starts. fitgate judges a running
        workload's manifest as a change of its template (it cannot tell the ReplicaSets'
        templates apart: an unchanged one would reuse its ReplicaSet)."""
        made = controller_object(workload.kind, workload.name, template_text(workload))
        return None if made is None else book.admit_object(workload.namespace, *made)

    def _result(self, workload: Workload, verdict: Verdict, **fields: Any) -> WorkloadResult:
        return WorkloadResult(
            kind=workload.kind,
            namespace=workload.namespace,
            name=workload.name,
            location=workload.location,
            replicas=workload.replicas,
            verdict=verdict,
            gates=scheduling_gates(workload.pod_spec),
            **fields,
        )

    def _own_pods(self, workload: Workload) -> tuple[int, ...]:
        """Positions, among the cluster's indexed pods, of the running pods the workload's
        change replaces: none when its next pods start beside them."""
        return () if workload.overlaps else self._running(workload)

    def _running(self, workload: Workload) -> tuple[int, ...]:
        """Positions, among the cluster's indexed pods, of the workload's running pods."""
        if not self._ownership:
            self._ownership.append(Ownership.of(self.cluster.others.pods.pods))
        return self._ownership[0].pods_of(workload.kind, workload.namespace, workload.name)

    def _without(self, own: Sequence[int]) -> Cluster:
        """The cluster less the pods at ``own``: one view for a workload's first copy and
        its later ones (its volume counts are worked out once)."""
        key = tuple(own)
        found = self._left.get(key)
        if found is None:
            self._left.clear()
            found = self._left[key] = self.cluster.without(own)
        return found

    def _release(self, own: Sequence[int]) -> ReleasedNodes:
        """The nodes less the pods at ``own``: one view for a workload's first copy, its
        later ones and its preemption."""
        key = tuple(own)
        found = self._views.get(key)
        if found is None:
            self._views.clear()
            indexed = self.cluster.others.pods
            found = released_nodes(self.index.nodes, indexed.node_of, indexed.pods, own)
            self._views[key] = found
        return found

    def _released(self, pod: Pod, own: Sequence[int], base: _Answer) -> _Released:
        """The answer once the workload's own pods are gone. Giving room back can only turn
        a node's rejection for room into a fit, so only the nodes that held those pods and
        rejected the pod for room are asked again, node by node; when the inter-pod filters
        may have counted those pods (a selector of the pod's constraints or terms matches
        one, or one carries anti-affinity), every node is asked again without them."""
        nodes = self._release(own)
        profile = pod.profile
        indexed = self.cluster.others.pods
        if not self._carriers:
            self._carriers.append(frozenset(indexed.with_anti_affinity))
        pods = indexed.pods
        carries = not self._carriers[0].isdisjoint(own)
        counted = _counted(profile, (pods[i] for i in own), carries)
        # The old pods' volumes go with them: a claim of theirs in use or a disk they mount
        # rules nodes out, for this pod and every node, through what PreFilter counted.
        counted = counted or any(r.plugin in HELD_VOLUMES for r in base.groups)
        if counted:
            cycle = prepare(profile, self._without(own))
            groups = filter_groups(self.index, cycle, self.dialect, self.parts)
        else:
            # Nothing the inter-pod filters count changes: the base answer's PreFilter state
            # is this pod's (answers are shared only between pods alike in what it reads).
            cycle = base.cycle
            groups = base.groups
        room = reduce(or_, (b for r, b in groups.items() if r.plugin in ROOM), 0)
        # Asked of the nodes as they were (filter_groups reads the index's), the nodes that
        # held the pods answer again; the others' answers stand.
        again = nodes.holding if counted else nodes.holding & room
        if not again:
            return _Released(
                base if groups is base.groups else self._work_out(groups, cycle),
                nodes,
                cycle,
                counted,
            )
        patched: Groups = {r: bits & ~again for r, bits in groups.items() if bits & ~again}
        # A node refused for room passed every plugin before the one that refused it, and
        # none of those reads what was given back; nor does a plugin that refused a node
        # otherwise, or the plugins that passed one: those answers stand as they were.
        stands: dict[int, Rejection] = {}
        if again & ~room:
            for refusal, bits in groups.items():
                for position in set_bits(bits & again & ~room):
                    stands[position] = refusal
        # A plugin that passes every node rejects none of these (filter_groups skips it too).
        rest = tuple(prepared for prepared in cycle[FIRST_ROOM:] if not prepared.passes())
        for position in set_bits(again):
            if room >> position & 1:
                rejection = run_filters(rest, nodes[position], self.dialect)
            else:
                rejection = stands.get(position)
            if rejection is not None:
                patched[rejection] = patched.get(rejection, 0) | 1 << position
        return _Released(self._work_out(patched, cycle), nodes, cycle, counted)

    def _pod(
        self, workload: Workload, pod: Pod, ledger: Ledger | None, reported: bool = True
    ) -> WorkloadResult:
        nodes = self.index.nodes
        requests = _requests_text(pod.profile)
        if not nodes:
            if workload.replicas == 0:
                return self._wanting_none(workload, REASON_NO_NODES, False, (), requests, pod)
            result = self._result(
                workload,
                Verdict.NO,
                message=REASON_NO_NODES,
                requests=requests,
                warnings=pod.warnings,
                placement=(
                    ReplicaFit(wanted=workload.replicas, alone=0, released=0)
                    if workload.replicas
                    else None
                ),
            )
            # a cluster of no nodes whose Karpenter launches them (the snapshot is refused
            # unless it has a Ready NodePool)
            return self._scaled_up(result, pod, None)
        own = self._own_pods(workload)
        warnings = list(pod.warnings)
        if workload.overlaps and (running := self._running(workload)):
            warnings.append(_overlap_warning(len(running)))
        released: Sequence[NodeView] = nodes
        cycle: CycleState | None = None
        # ``cycle`` is this pod's PreFilters in the cluster its old pods leave, as asking
        # them again would give it (not another pod's that shares the answer)
        own_cycle = False
        if pod.profile.by_name:
            cluster = self._without(own) if own else self.cluster
            released = self._release(own)
            cycle, own_cycle = prepare(pod.profile, cluster), True
            named = self._work_out(self._named_groups(pod, released, cycle), cycle)
            outcomes, fitting = named.outcomes, named.fitting
            any_fit, addon_only = named.any_fit, named.addon_only
            message = self._message(pod.profile, named)
        else:
            answer = self._answer(pod)
            stalled = None
            if own:
                after = self._released(pod, own, answer)
                scaling = workload.scaling
                if scaling and scaling.surge and not answer.any_fit and after.answer.any_fit:
                    if scaling.unavailable == 0:
                        # No old pod goes before a new one is ready and none can start:
                        # the old pods stay, and the answer is the one beside them.
                        stalled = _stalled(scaling.surge, len(own))
                        own = ()
                    else:
                        warnings.append(_surge_warning(scaling.surge))
                if stalled is None:
                    answer, released, cycle = after.answer, after.views, after.cycle
                    own_cycle = after.own
                else:
                    cycle, own_cycle = answer.cycle, answer.of is pod.profile
            elif answer.of is pod.profile:
                cycle, own_cycle = answer.cycle, True
            outcomes, message, fitting = answer.outcomes, answer.message, answer.fitting
            if stalled is not None and message is not None:
                message = f"{stalled}: {message}"
            any_fit, addon_only = answer.any_fit, answer.addon_only
            named = answer
        if workload.replicas == 0:
            return self._wanting_none(
                workload, message, any_fit and addon_only, outcomes, requests, pod, warnings
            )
        placement = None
        preempting: Preempted | None = None
        refused: Refused | None = None
        zones: Mapping[str, int] = {}
        followed: Mapping[str, str] | None = None
        if not any_fit and workload.replicas:
            placement = ReplicaFit(wanted=workload.replicas, alone=0, released=len(own))
        if any_fit and workload.replicas:
            if cycle is None:
                cycle = prepare(pod.profile, self.cluster)
            counted = self._copies(
                workload, pod, cycle, named.groups, fitting, released, own, ledger, reported
            )
            placement, refused = counted.fit, counted.refused
            zones, followed = counted.zones, counted.followed
            warnings.extend(counted.warnings)
        if not any_fit:
            verdict = Verdict.NO
            if workload.replicas:
                start = _start(named, released, workload)
                preempting = self._preempting(pod, own, start, cycle if own_cycle else None)
        elif addon_only:
            verdict, message = Verdict.ADDON_ONLY, None
        elif placement is not None and placement.fit < placement.wanted:
            verdict, message = Verdict.PARTIAL, None
        else:
            verdict, message = Verdict.YES, None
        cause = None if verdict is Verdict.YES else self._cause(named, daemonset=False)
        first = outcomes
        if verdict is Verdict.PARTIAL and refused is not None and cycle is not None:
            # The copy that does not fit is what limits the workload: its message, its
            # cause and its per-node outcomes, not the first copy's.
            message = _group_fit_error(len(nodes), refused.groups)
            if placement is not None:
                placement = replace(placement, first_fits=outcomes.fitting.bit_count())
            outcomes = self.tables.outcomes(refused.groups)
            cause = cause_of(
                self.index, cycle, refused.groups, self.dialect, largest_free=refused.largest_free
            )
            if placement is not None:
                left = placement.wanted - placement.fit
                start = Start(refused.nodes, refused.after, refused.groups, left)
                preempting = self._preempting(pod, own, start, cycle)
        storage = self.snapshot.storage
        shared_once = False
        if placement is not None and placement.wanted > 1 and storage and storage.knows_claims:
            shared = shared_claims(pod, workload, storage)
            warnings.extend(once_warnings(shared))
            if placement.fit > 1 and any(READ_WRITE_ONCE_POD in m for _, m in shared):
                # the first copy holds the claim: VolumeRestrictions refuses every node to
                # the next (its PreFilter counts the claim in use)
                placement, shared_once = capped(placement, 1), True
                in_use = {IN_USE: self.index.everyone}
                message = _group_fit_error(len(nodes), in_use)
                cause = self._cause(self._work_out(in_use, cycle or ()), daemonset=False)
                verdict, followed, preempting = Verdict.PARTIAL, None, None
        limiting = pod.profile.binding_claims  # the claims of the copy that does not start
        if verdict in (Verdict.YES, Verdict.PARTIAL) and placement is not None:
            by_ordinal = self._ordinals(
                workload, pod, placement, fitting, own, raising=not shared_once
            )
            if by_ordinal is not None and by_ordinal.unfollowed:
                warnings.append(_unfollowed_copies(workload.replicas or 0))
                by_ordinal = None
            unfit = None if by_ordinal is None else by_ordinal.answer
            if by_ordinal is not None:
                # a lost node's copies were counted where the count put them, not the walk;
                # the autoscalers plan after the copies where the walk put them
                warnings = [w for w in warnings if w.kind is not WarningKind.LOST_NODE]
                zones = by_ordinal.zones
            starts = by_ordinal is not None and unfit is None
            if by_ordinal is not None and starts and by_ordinal.placement.fit < placement.wanted:
                # every copy starts alone; beside the run's earlier workloads the count's
                # shortfall stands, with its message and cause
                placement = by_ordinal.placement
            elif by_ordinal is not None and starts:
                # every copy starts: the count found short where the copies' claims are not
                placement = replace(by_ordinal.placement, first_fits=None)
                message, cause, outcomes = None, None, first
                verdict, followed, preempting = Verdict.YES, None, None
            elif by_ordinal is not None and unfit is not None:
                # the autoscalers meet the copy that does not start, with its own claims:
                # its message, cause and per-node outcomes
                placement, message = by_ordinal.placement, by_ordinal.message
                limiting = by_ordinal.claims
                cause, cycle, outcomes = (
                    self._cause(unfit, daemonset=False),
                    unfit.cycle,
                    unfit.outcomes,
                )
                verdict, followed = Verdict.PARTIAL, None
                preempting = by_ordinal.preempting
        if storage is not None and storage.created and verdict is not Verdict.YES:
            warnings.extend(bound_first(limiting, workload.namespace, storage))
        preemption = None
        if preempting is not None and not (preempting.placed and _kubelet_rejects(pod.profile)):
            verdict, message, placement, preemption = _preempted(
                preempting, verdict, message, placement
            )
            if verdict is Verdict.PREEMPTS:
                cause = None
            if preempting.unfollowed:
                warnings.append(_unfollowed_warning())
        result = self._result(
            workload,
            verdict,
            message=message,
            nodes=outcomes,
            requests=requests,
            warnings=tuple(warnings),
            placement=placement,
            cause=cause,
            preemption=preemption,
        )
        if cycle is not None and followed is not None:
            cycle = after_first_copy(cycle, followed)
        return self._scaled_up(result, pod, cycle, zones, own)

    def _ordinals(
        self,
        workload: Workload,
        pod: Pod,
        placement: ReplicaFit,
        hint: int,
        own: Sequence[int] = (),
        raising: bool = True,
    ) -> _Ordinals | None:
        """A StatefulSet's count once each copy mounts its own claims
        (:mod:`gate.scheduler.framework.ordinals`), or a workload's whose copies each have
        their generic ephemeral volumes' own claims, or a workload's once each copy carries
        its own labels where its selectors read them (:func:`differs_by_copy`), or shares a
        claim the first copy binds (:func:`binds_shared`), its copies
        placed one by one as the scheduler places them: each on a node the filters pass for
        it with its own claims and labels, beside the copies before it (their room,
        :class:`Walk`; their domains, as the spread and inter-pod PreFilters count them,
        :func:`with_copies`; the volumes they took, :class:`Claimed`). None when that count
        is the count's (``placement``); else the placement at the copies that start and the
        first copy that fits no node, its answer and message (naming it with its claims when
        it mounts its own; none when every copy starts). Only ``raising`` may it count more
        copies than ``placement``. ``hint``: the nodes the first copy fits, where a later
        copy is looked for first, after the nodes that took the copies before it. ``own``:
        the running pods the copies replace, gone before them (their room, and the claims
        and disks they hold)."""
        storage = self.snapshot.storage
        differ = differs_by_copy(workload.kind, workload.pod_spec, indexed=workload.indexed)
        claimed_copies = (
            bool(workload.claim_templates)
            and storage is not None
            and storage.knows_claims
            # the first copy mounts its own claims
            and bool(pod.profile.claims)
        )
        # each copy's generic ephemeral volumes are its own claims, made for it
        ephemeral = placement.wanted > 1 and bool(pod.profile.ephemeral_claims)
        shared = placement.wanted > 1 and binds_shared(workload, pod.profile, self.cluster)
        if not (claimed_copies or differ or shared or ephemeral) or not hint:
            return None
        if (workload.replicas or 0) > FOLLOWED_COPIES:
            return _Ordinals(placement, unfollowed=True)
        if not claimed_copies:
            workload = replace(workload, claim_templates=())
        ordinals = ordinals_to_try(workload)
        cluster, released = self.cluster, 0
        nodes: Sequence[NodeView] = self.index.nodes
        if own:
            views = self._release(own)
            cluster, nodes, released = self._without(own), views, views.holding
        rules = CopyRules(
            requests=pod.profile.requests,
            host_ports=pod.profile.wanted_ports,
            disks_collide=disks_collide(pod.profile.mounts),
        )
        walk = Walk(nodes, rules, released)
        first = chosen_node(hint, walk.taken)
        # The volumes the copies take are tracked once one lands where they can matter:
        # the copies before it took none a later copy reads.
        touched = reach(workload, pod.profile, self.cluster, ordinals)
        placed = [(pod.profile, first, f"{workload.name}-{workload.first_ordinal}")]
        labels = [copy_pod_labels(pod, workload, workload.first_ordinal)] if differ else None
        claimed = None
        if touched and touched.tight(self.cluster, first):
            claimed = Claimed(cluster)
            claimed.take(*placed[0])
        walk.take(first)
        landed = [self.index.nodes[first].labels]
        starting, first_unfit = 1, None
        names = copy_namer(workload) if pod.profile.pod_name else None
        for ordinal in ordinals:
            copy = ordinal_pod(pod, workload, ordinal, relabelled=differ, names=names)
            base = cluster if claimed is None else claimed.cluster
            found = self._walked(copy, base, walk, hint, landed, labels)
            if isinstance(found, int):
                starting += 1
                walk.take(found)
                landed.append(self.index.nodes[found].labels)
                if labels is not None:
                    labels.append(copy.profile.labels)
                placed.append((copy.profile, found, f"{workload.name}-{ordinal}"))
                if claimed is not None:
                    claimed.take(*placed[-1])
                elif touched and touched.tight(self.cluster, found):
                    claimed = Claimed(cluster)
                    for taken in placed:
                        claimed.take(*taken)
                continue
            if first_unfit is None:
                first_unfit = (ordinal, found, copy.profile.binding_claims, copy)
            # only a StatefulSet's OrderedReady waits for each copy; a Job creates its
            # pods at once
            if not workload.parallel and workload.kind == "StatefulSet":
                break
        if starting == placement.fit or (starting > placement.fit and not raising):
            return None
        recount = recounted(placement, starting)
        zones = Counter(z for labels in landed if (z := labels.get(ZONE)) is not None)
        if first_unfit is None:
            return _Ordinals(recount, zones=zones)
        ordinal, answer, mounted, copy = first_unfit
        if claimed_copies:
            claims = ordinal_claims(workload, ordinal)
            message = f"{workload.name}-{ordinal} (claims {claims}): {answer.message}"
            return _Ordinals(recount, answer, message, mounted, zones)
        if ephemeral:
            claims = ", ".join(copy.profile.ephemeral_claims)
            message = f"{copy.profile.pod_name} (claims {claims}): {answer.message}"
            return _Ordinals(recount, answer, message, mounted, zones)
        # the copy's PostFilter, as for the copy the count stops at
        changed = {p: walk[p] for p in walk.taken}
        start = Start(nodes, changed, answer.groups, placement.wanted - starting)
        preempting = self._preempting(copy, own, start, answer.cycle)
        recount = replace(recount, first_fits=hint.bit_count())
        return _Ordinals(recount, answer, answer.message, mounted, zones, preempting)

    def _walked(
        self,
        pod: Pod,
        cluster: Cluster,
        walk: Walk,
        hint: int,
        landed: Sequence[Mapping[str, str]],
        labels: Sequence[Mapping[str, str]] | None = None,
    ) -> _Answer | int:
        """The node a StatefulSet's later copy (``pod``, in ``cluster`` with the volumes
        the copies before it took) lands on among the nodes as those copies leave them
        (``walk``; ``landed``: their nodes' labels), or the answer that it fits none. It is
        looked for first on the nodes that hold copies and those ``hint`` names (the first
        copy's), fewest copies first, each asked as :func:`run_filters` asks it: a copy
        mostly fits where an earlier one does, and whether it fits anywhere is all its
        count needs (its whole answer only when it fits none of them). ``labels``: the
        copies' own labels, when they differ by copy."""
        cycle = with_copies(prepare(pod.profile, cluster), pod.profile, landed, labels)
        if pre_filter_refusal(cycle) is None:
            found = self._hinted(cycle, walk, hint)
            if found is not None:
                return found
        answer = self._walk_answer(pod, cycle, walk)
        return chosen_node(answer.fitting, walk.taken) if answer.any_fit else answer

    def _hinted(self, cycle: CycleState, walk: Walk, hint: int) -> int | None:
        """The first of the nodes holding copies and the first :data:`HINTED_NODES` of
        ``hint``, fewest copies first, that the filters pass (``cycle``) as ``walk`` leaves
        it; None when none does."""
        candidates = dict.fromkeys([*walk.taken, *islice(set_bits(hint), HINTED_NODES)])
        for position in sorted(candidates, key=lambda p: walk.taken.get(p, 0)):
            if walk.refusal(position, run_filters(cycle, walk[position], self.dialect)) is None:
                return position
        return None

    def _walk_answer(self, pod: Pod, cycle: CycleState, walk: Walk) -> _Answer:
        """What the filters say of every node for ``pod`` (prepared as ``cycle``) as
        ``walk`` leaves the nodes: the snapshot's nodes answered as they are, then asked
        again one by one those holding copies, and those given room back that were
        refused for room (no other filter reads what was given back)."""
        if pod.profile.by_name:
            return self._work_out(self._named_groups(pod, walk, cycle), cycle)
        groups = filter_groups(self.index, cycle, self.dialect, self.parts)
        room = reduce(or_, (bits for r, bits in groups.items() if r.plugin in ROOM), 0)
        changed = walk.holding | (walk.released & room)
        if changed:
            groups = {r: bits & ~changed for r, bits in groups.items() if bits & ~changed}
            for position in set_bits(changed):
                rejection = walk.refusal(position, run_filters(cycle, walk[position], self.dialect))
                if rejection is not None:
                    groups[rejection] = groups.get(rejection, 0) | 1 << position
        return self._work_out(groups, cycle)

    def _preempting(
        self, pod: Pod, own: Sequence[int], start: Start, cycle: CycleState | None = None
    ) -> Preempted:
        """The copies DefaultPreemption places from ``start`` on, one after another
        (:mod:`gate.scheduler.engine.preemption`)."""
        cluster = self._without(own) if own else self.cluster
        budgets = Budgets(self.snapshot.disruption_budgets)
        if cycle is None:
            cycle = prepare(pod.profile, cluster)
        return preempt_copies(
            pod.profile, cluster, cycle, start, self._pods_by_node(), budgets, self.dialect
        )

    def _scaled_up(
        self,
        result: WorkloadResult,
        pod: Pod,
        cycle: CycleState | None,
        zones: Mapping[str, int] | None = None,
        own: Sequence[int] = (),
    ) -> WorkloadResult:
        """The result once cluster-autoscaler takes the copies no node took
        (:mod:`gate.scheduler.autoscaling.verdicts`); as it is with fixed nodes. ``own``:
        the workload's pods the copies replace, which Karpenter's held preferences do not
        count, as the PreFilters of ``cycle`` do not."""
        if self.autoscaling is None or result.verdict not in (
            Verdict.NO,
            Verdict.PARTIAL,
            Verdict.ADDON_ONLY,
        ):
            return result
        if cycle is None:
            cycle = prepare(pod.profile, self.cluster)
        # Imported here: a snapshot that recorded no autoscaler never simulates one.
        from gate.scheduler.autoscaling.verdicts import after_scale_up

        cluster = self._without(own) if own else self.cluster
        return after_scale_up(
            result, self.autoscaling, cycle, pod.profile, zones or {}, cluster=cluster
        )

    def _wanting_none(
        self,
        workload: Workload,
        message: str | None,
        addon_only: bool,
        outcomes: Sequence[NodeOutcome],
        requests: tuple[tuple[str, str], ...],
        pod: Pod,
        warnings: Sequence[WorkloadWarning] | None = None,
    ) -> WorkloadResult:
        """A workload that wants no pods (``replicas: 0``, a Job suspended by hand) does not
        fail: ``YES``, with a warning when one pod of its template would not fit."""
        kept = list(pod.warnings if warnings is None else warnings)
        scaled_up = scaled_up_warning(message, addon_only)
        if scaled_up is not None:
            kept.append(scaled_up)
        return self._result(
            workload,
            Verdict.YES,
            nodes=outcomes,
            requests=requests,
            warnings=tuple(kept),
            placement=ReplicaFit(wanted=0, alone=0, released=len(self._own_pods(workload))),
        )

    def _copies(
        self,
        workload: Workload,
        pod: Pod,
        cycle: CycleState,
        groups: Groups,
        fitting: int,
        views: Sequence[NodeView],
        own: Sequence[int],
        ledger: Ledger | None,
        reported: bool = True,
    ) -> Counted:
        """The copies counted on the nodes that may take one: those that pass every filter
        for the first copy, and those PodTopologySpread alone refused it (its skew evens
        out as copies land elsewhere) that pass every filter after it."""
        namespaces = self.snapshot.namespaces
        labels = None if namespaces is None else namespaces.get(pod.profile.namespace, {})
        rules = copy_rules(pod.profile, cycle, labels)
        candidates = fitting | self._spread_refused(groups, cycle, views)
        failed = prescore_error(pod.profile)
        if failed is not None and self._feasible_beside(fitting, views, rules, own, ledger) > 1:
            raise PreScoreFailed(failed)  # with one feasible node scores do not run
        scores = None  # past 100 nodes a count no order changes is placed without scores
        if failed is None and (not partly_scored(views, rules) or scored_past_sample(rules)):
            pods = (self._without(own) if own else self.cluster).others.pods
            scores = score_rules(workload.kind, pod.profile, self.index, pods, namespaces)

        def refused(placement: Placement, held: Ledger | None) -> Refused:
            return refusals(groups, cycle, views, rules, placement, candidates, held, self.dialect)

        return count_copies(
            CopyCount(
                title=workload_title(workload),
                kind=workload.kind,
                wanted=workload.replicas or 0,
                views=views,
                fitting=candidates,
                rules=rules,
                scaling=workload.scaling,
                ledger=None if own else ledger,
                released=len(own),
                scores=scores,
                # The copy after the last that fits is where preemption starts: a workload
                # another shard reports places its copies by eviction as it would here.
                refusals=refused if reported or self._may_preempt(pod.profile) else None,
                reported=reported,
                label_bits=self.index.label_values,
                nonzero=pod.profile.bound_nonzero
                if scores is None and ledger is not None
                else None,
                labels=pod.profile.labels,
                terms=carried_terms(pod.profile),
            )
        )

    @staticmethod
    def _feasible_beside(
        fitting: int,
        views: Sequence[NodeView],
        rules: CopyRules,
        own: Sequence[int],
        ledger: Ledger | None,
    ) -> int:
        """How many of the ``fitting`` nodes the first copy finds feasible with the run's
        earlier copies bound (those with room for it beside them)."""
        if own or ledger is None:
            return fitting.bit_count()
        return sum(1 for p in set_bits(fitting) if ledger.room_for_one(views[p], rules))

    def _spread_refused(self, groups: Groups, cycle: CycleState, views: Sequence[NodeView]) -> int:
        """The nodes PodTopologySpread refused for skew alone that every later filter
        passes."""
        skewed = groups.get(SKEW, 0)
        later = tuple(p for p in cycle[ORDER[POD_TOPOLOGY_SPREAD] + 1 :] if not p.passes())
        return sum(
            1 << position
            for position in set_bits(skewed)
            if run_filters(later, views[position], self.dialect) is None
        )

    def _named_groups(self, pod: Pod, nodes: Sequence[NodeView], cycle: CycleState) -> Groups:
        """The nodes by the rejection they share, asked node by node."""
        result = pre_filter_result(pod.profile)
        refused = result.rejection
        if refused is not None:
            rejections: list[Rejection | None] = [refused] * len(nodes)
        else:
            rejections = [
                result.outside(n) or r
                for n, r in zip(nodes, _per_node(nodes, cycle, self.dialect), strict=False)
            ]
        return _grouped(rejections)

    def _message(self, pod: PodProfile, answer: _Answer) -> str | None:
        """The answer's FitError, where terms no node name can meet have their own."""
        refused = pre_filter_result(pod).rejection
        if refused is not None:  # a PreFilter's rejection: its message alone
            return f"0/{len(answer.outcomes)} nodes are available: {refused.reasons[0]}."
        return answer.message

    def _daemonset(
        self, workload: Workload, pod: Pod, ledger: Ledger | None, reported: bool = True
    ) -> tuple[WorkloadResult, tuple[tuple[Victim, ...], ...]]:
        """One pod per targeted node, pinned to it: the filters without narrowing. The pod
        the DaemonSet already runs on a node is the one being replaced there, its room given
        back first unless the rollout surges (:meth:`_surges`), when the node must hold
        both; a DaemonSet new to the cluster (``ledger`` given) takes its room on every node
        it fits beside the run's other new workloads placed before it. With the result, the
        victims of each pod placed by preemption, in node order."""
        warnings = list(pod.warnings)
        running = self._own_pods(workload)
        # A surging rollout leaves each old pod beside its new one until that is ready.
        own = () if running and self._surges(workload, pod) else running
        answer = self._daemon_answer(pod, own)
        alone = answer.fitting.bit_count()
        together: int | None = None
        beside: tuple[str, ...] = ()
        if ledger is not None and not running:
            answer, beside = self._daemonset_beside(workload, pod, answer, ledger, reported)
            together = answer.fitting.bit_count()
        outcomes, lacking = answer.outcomes, _pending(answer)
        message = None
        if not alone and not lacking:
            warnings.append(_no_target(answer.message if outcomes else None))
        if not alone and lacking:
            verdict, message = Verdict.NO, answer.message
        else:
            verdict = Verdict.PARTIAL if lacking else Verdict.YES
        targeted = self._targets(answer)
        fitting = answer.fitting.bit_count()
        preemption = None
        pinned: tuple[tuple[Victim, ...], ...] = ()
        if lacking and (together is None or together == alone):
            # PREEMPTS when every node it targets takes its pod, some by preemption; else
            # PARTIAL, counting the pods that land by preemption beside those that fit, as
            # each node's pod preempts on its own. Room the run's other new DaemonSets hold
            # is no running pod's to evict.
            pinned = self._preempting_pinned(pod, own, answer)
            placed = len(pinned)
            if placed:
                verdict = Verdict.PREEMPTS if fitting + placed == targeted else Verdict.PARTIAL
                message = None
                preemption = evicted([v for victims in pinned for v in victims], placed)
                fitting += placed
                alone, together = fitting, None if together is None else fitting
        judged = self._result(
            replace(workload, replicas=targeted),
            verdict,
            message=message,
            nodes=outcomes,
            requests=_requests_text(pod.profile),
            warnings=tuple(warnings),
            placement=ReplicaFit(
                targeted, alone=alone, together=together, beside=beside, released=len(own)
            ),
            cause=self._cause(answer, daemonset=True)
            if lacking and fitting < targeted and reported
            else None,
            preemption=preemption,
        )
        return judged, pinned

    def _daemon_answer(self, pod: Pod, own: Sequence[int]) -> _Answer:
        """A DaemonSet's answer on the nodes less its pods at ``own``."""
        if pod.profile.by_name:
            cycle = prepare(pod.profile, self._without(own) if own else self.cluster)
            rejections = _per_node(self._release(own), cycle, self.dialect)
            return self._work_out(_grouped(rejections), cycle)
        answer = self._answer(pod)
        return self._released(pod, own, answer).answer if own else answer

    def _surges(self, workload: Workload, pod: Pod) -> bool:
        """Whether a DaemonSet's rollout starts its new pod on a node before it deletes the
        old one: its ``maxSurge`` worked out against the nodes it targets, rounded up, is
        not 0 (pkg/controller/daemon/update.go rollingUpdate, util.SurgeCount against
        updatedDesiredNodeCounts' desiredNumberScheduled)."""
        written = None if workload.scaling is None else workload.scaling.node_surge
        if written is None:
            return False
        if isinstance(written, str):  # a percent: of the nodes it targets
            targeted = self._targets(self._daemon_answer(pod, ()))
            return bool(scaled(written, targeted, round_up=True))
        return bool(scaled(written, 0, round_up=True))

    def _targets(self, answer: _Answer) -> int:
        """How many nodes a DaemonSet targets (:func:`_targeted`). When a PreFilter other
        than theirs refuses its pod everywhere, no Filter ran: its predicates are asked
        node by node (they read only the node's name, labels and taints)."""
        refused = pre_filter_refusal(answer.cycle)
        if refused is None or refused.plugin in DAEMON_PREDICATES:
            return _targeted(answer)
        asked = [p for p in answer.cycle if p.plugin.name in DAEMON_PREDICATES]
        nodes = self.index.nodes
        return sum(all(p.check(n, self.dialect) is None for p in asked) for n in nodes)

    def _daemonset_beside(
        self, workload: Workload, pod: Pod, answer: _Answer, ledger: Ledger, reported: bool
    ) -> tuple[_Answer, tuple[str, ...]]:
        """The answer on the nodes as the run's earlier new workloads leave them, and the
        workloads whose copies hold the room it lacks there; then its pod takes its room on
        every node that still fits it. Only the room those copies hold changes: the nodes
        that fit alone and hold some are asked again by the room plugins (NodePorts,
        NodeResourcesFit), the pod and the copies bound to them."""
        nodes = self.index.nodes
        cycle = answer.cycle
        namespaces = self.snapshot.namespaces
        labels = None if namespaces is None else namespaces.get(pod.profile.namespace, {})
        rules = copy_rules(pod.profile, cycle, labels)
        room = [p for p in cycle if p.plugin.name in (NODE_PORTS, NODE_RESOURCES_FIT)]
        short: Groups = {}
        refusals: dict[tuple[tuple[str, ...], bool], Rejection | None] = {}
        for bits, lacking, position in self._lacking(answer.fitting, rules, ledger):
            if lacking in refusals:
                rejection = refusals[lacking]
            else:  # the plugins say why, once for the nodes that lack the same
                view = ledger.view(nodes[position])
                rejection = refusals[lacking] = next(
                    (r for p in room if (r := p.check(view, self.dialect)) is not None), None
                )
            if rejection is not None:
                short[rejection] = short.get(rejection, 0) | bits
        beside: tuple[str, ...] = ()
        if short:
            beside = consumers(short, nodes, ledger, rules) if reported else ()
            groups = dict(answer.groups)
            # In node order, as asking node by node finds them: the cause reads the groups
            # in order.
            for rejection, bits in sorted(short.items(), key=lambda found: lowest(found[1])):
                groups[rejection] = groups.get(rejection, 0) | bits
            answer = self._work_out(groups, cycle)
        title = workload_title(workload)
        held = pod.profile.bound_nonzero
        ledger.take_daemon(
            nodes,
            answer.fitting,
            rules,
            title,
            held,
            pod.profile.labels,
            carried_terms(pod.profile),
        )
        return answer, beside

    def _lacking(
        self, fitting: int, rules: CopyRules, ledger: Ledger
    ) -> Iterator[tuple[int, tuple[tuple[str, ...], bool], int]]:
        """The nodes of ``fitting`` without room for one more pod under ``rules`` beside
        the ledger's copies, by what they lack (:meth:`Ledger.lacking`), with one of them.
        While the ledger holds DaemonSets' pods only, the nodes short of each resource are
        found layer by layer from the index's free amounts, as NodeResourcesFit finds them,
        then split once by the resources they lack and the host ports they hold
        (:meth:`Ledger.port_clashes`); else node by node."""
        nodes = self.index.nodes
        clashes = ledger.port_clashes(nodes, rules) if ledger.daemons_only else None
        if clashes is None:
            for position in set_bits(fitting):
                node = nodes[position]
                lacking = ledger.lacking(node, rules) if ledger.holds(node.name) else None
                if lacking is not None:
                    yield 1 << position, lacking, position
            return
        wanted = [(PODS, 1)]
        wanted += [(r, a) for r, a in rules.requests.items() if a > 0 and r != PODS]
        short_of = [0] * len(wanted)  # by resource, the nodes short of it
        holding = 0
        for key, held in ledger.layers.items():
            held &= fitting
            if not held:
                continue
            holding |= held
            taken = dict(key)
            for k, (resource, amount) in enumerate(wanted):
                asked = (resource, amount + taken.get(resource, 0))
                below = self._short.get(asked)
                if below is None:
                    below = self._short[asked] = self.index.short_of(*asked)
                short_of[k] |= held & below
        parts: list[tuple[int, tuple[str, ...]]] = [(holding, ())]
        for (resource, _), short in zip(wanted, short_of, strict=True):
            split = []
            for part, lacks in parts:
                inside = part & short
                if inside:
                    split.append((inside, (*lacks, resource)))
                if inside != part:
                    split.append((part ^ inside, lacks))
            parts = split
        for part, lacks in parts:
            clashing = part & clashes
            for bits, ports in ((part ^ clashing, False), (clashing, True)):
                if bits and (lacks or ports):
                    yield bits, (lacks, ports), lowest(bits)

    def _preempting_pinned(
        self, pod: Pod, own: Sequence[int], answer: _Answer
    ) -> tuple[tuple[Victim, ...], ...]:
        """The victims of each of a DaemonSet's pods that fit their own node by preemption."""
        cluster = self._without(own) if own else self.cluster
        nodes = self._release(own) if own else self.index.nodes
        return preempt_pinned(
            pod.profile,
            cluster,
            answer.cycle,
            nodes,
            answer.groups,
            self._pods_by_node(),
            Budgets(self.snapshot.disruption_budgets),
            self.dialect,
        )

    def _may_preempt(self, pod: PodProfile) -> bool:
        """Whether DefaultPreemption may place some copy of ``pod``: it may preempt, and
        some node holds a pod of lower priority."""
        if pod.preemption_policy == NEVER:
            return False
        return bool(self._pods_by_node().below(pod.priority or 0))

    def _pods_by_node(self) -> PodsByNode:
        if not self._by_node:
            self._by_node.append(PodsByNode(self.cluster.others.pods))
        return self._by_node[0]


def _leaving(pods: Sequence[ExistingPod], own: Sequence[int]) -> list[int]:
    """The order a rollout's old pods leave in: the ReplicaSet controller deletes first
    the pod that started last (getPodsToDelete ranks one ready for less time first); pods
    alike leave by name, whatever order the snapshot records them in."""
    by_name = sorted(own, key=lambda i: pods[i].name)
    return sorted(by_name, key=lambda i: started(pods[i]), reverse=True)


def _counted(profile: PodProfile, pods: Iterable[ExistingPod], carries: bool | None = None) -> bool:
    """Whether the inter-pod PreFilters may count any of ``pods``: one carries a required
    anti-affinity term, or its labels match the selector of one of the pod's spread
    constraints or (anti-)affinity terms, whatever their namespaces (so never False where
    a count would change). ``carries``: whether one of them carries such a term, when the
    index knows; the pods are then read only for their labels, and only by a pod with
    selectors (most have none, and a large run releases 90,000 pods)."""
    selectors = [c.selector for c in profile.spread]
    selectors += [t.selector for t in (*profile.pod_affinity, *profile.pod_anti_affinity)]
    if carries is None:
        pods = list(pods)
        carries = any(p.anti_affinity_terms for p in pods)
    return carries or (
        bool(selectors) and any(s.matches(p.labels) for p in pods for s in selectors)
    )


def _targeted(answer: _Answer) -> int:
    """The nodes a DaemonSet targets: those its pod fits, and those that reject it for
    anything but :data:`DAEMON_PREDICATES` (room, volumes), where the DaemonSet controller
    still creates its pod."""
    return answer.fitting.bit_count() + sum(bits.bit_count() for bits in _pending_bits(answer))


def _pending_bits(answer: _Answer) -> Iterator[int]:
    groups = answer.groups.items()
    return (bits for rejection, bits in groups if rejection.plugin not in DAEMON_PREDICATES)


def _pending(answer: _Answer) -> bool:
    """Whether a node the DaemonSet targets rejects its pod, which then stays Pending."""
    return any(_pending_bits(answer))


def _no_target(message: str | None) -> WorkloadWarning:
    """A DaemonSet that targets no node, with the scheduler's words for why (its FitError;
    none on a cluster without nodes)."""
    why = f" ({message.removesuffix('.')})" if message else ""
    text = f"the DaemonSet targets no node of the snapshot{why}, so it creates no pod"
    return WorkloadWarning(WarningKind.NO_TARGET, text)


def _grouped(rejections: Sequence[Rejection | None]) -> Groups:
    """Node-by-node rejections as the node sets that share each one."""
    groups: Groups = {}
    for position, rejection in enumerate(rejections):
        if rejection is not None:
            groups[rejection] = groups.get(rejection, 0) | 1 << position
    return groups


@dataclass(frozen=True, slots=True)
class _Ordinals:
    """A StatefulSet's copies counted one by one with their own claims: the placement, and
    the first copy that fits no node (None when every copy starts) with its message."""

    placement: ReplicaFit
    answer: _Answer | None = None
    message: str | None = None
    claims: tuple[str, ...] = ()
    """The claims that copy mounts."""
    zones: Mapping[str, int] = field(default_factory=dict)
    """The copies that start, by the zone of their node (nodes with no zone left out)."""
    preempting: Preempted | None = None
    """The PostFilter of the copy that fits no node, when its labels alone set it apart."""
    unfollowed: bool = False
    """The copies are more than fitgate follows one by one (:data:`FOLLOWED_COPIES`):
    counted as alike instead."""


def _unfollowed_copies(copies: int) -> WorkloadWarning:
    return WorkloadWarning(
        WarningKind.NOT_MODELLED,
        f"{copies:,} copies set apart from one another (by their own labels, or a claim the "
        f"first binds) are more than the {FOLLOWED_COPIES:,} fitgate follows one by one: "
        "they were counted as alike",
    )


@dataclass(frozen=True, slots=True)
class _Released:
    """The answer once a workload's own running pods are gone, the nodes they leave, and
    the PreFilter state it was worked out with."""

    answer: _Answer
    views: ReleasedNodes
    cycle: CycleState
    own: bool
    """``cycle`` was prepared for the pod in the cluster without the released pods."""


def _start(answer: _Answer, nodes: Sequence[NodeView], workload: Workload) -> Start:
    """Preemption's start for a workload no node takes: its first copy's rejections."""
    return Start(nodes, {}, answer.groups, workload.replicas or 0)


def _preempted(
    found: Preempted, verdict: Verdict, message: str | None, placement: ReplicaFit | None
) -> tuple[Verdict, str | None, ReplicaFit | None, Preemption | None]:
    """The verdict, message and count once preemption placed what it could: ``PREEMPTS``
    when every copy left fits so; else the FitError of the copy it stops at, with the
    PostFilter's message (the first copy's own FitError when it placed none)."""
    if not found.placed:
        if message is not None and found.suffix:
            message = f"{message} {found.suffix}"
        return verdict, message, placement, None
    preemption = evicted(found.victims, found.placed)
    if placement is not None:
        together = placement.together
        placement = replace(
            placement,
            alone=placement.alone + found.placed,
            together=None if together is None else together + found.placed,
        )
    if placement is not None and placement.fit >= placement.wanted:
        return Verdict.PREEMPTS, None, placement, preemption
    return Verdict.PARTIAL, found.message or None, placement, preemption


def _unfollowed_warning() -> WorkloadWarning:
    return WorkloadWarning(
        WarningKind.PREEMPTION,
        "copies past the first that evicts pods are not counted: their spread constraints "
        "or pod (anti-)affinity terms count one another",
    )


def workload_title(workload: Workload) -> str:
    return f"{workload.namespace}/{workload.name}"


def _overlap_warning(running: int) -> WorkloadWarning:
    return WorkloadWarning(
        WarningKind.ROLLOUT,
        f"concurrencyPolicy Allow: the next Job starts beside the running one, whose "
        f"{running} pod(s) are kept (Forbid or Replace would free their room first)",
    )


def _stalled(surge: int, running: int) -> str:
    return (
        f"the rollout cannot start: maxUnavailable 0 keeps its {running} running pod(s) until "
        f"a new one is ready, and no new pod fits beside them (maxSurge {surge})"
    )


def _surge_warning(surge: int) -> WorkloadWarning:
    return WorkloadWarning(
        WarningKind.ROLLOUT,
        f"no new pod fits while the old ones run: the rollout (maxSurge {surge}) proceeds "
        "only by taking running pods down first",
    )
