"""A run's ResourceQuotas and their usage as its workloads create pods, one after another.

Every namespace's quotas are read once, from their ``status.used`` (what admission itself
reads; the namespace's pods are never counted again), and each admitted pod's usage is added
to them, so later workloads of the run meet what earlier ones took (in input order).
Admission lists a namespace's quotas from its informer's cache, in no order it promises;
they are taken by name here, so the first quota to refuse is the first by name.

A rollout's running pods (:func:`running_usage`) leave the quota as the controller takes
them down: with ``maxUnavailable: 0`` one only after each new pod (every old pod counts
while the surge pod is admitted), otherwise all of them first.

A StatefulSet's controller creates each copy's missing claims before its pod
(:meth:`QuotaLedger.admit_copies`); they are charged as :mod:`gate.k8s.quotaclaims` measures
them, and stay charged when the copy's pod is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Final

from gate.errors import QuantityError
from gate.k8s.quantity import BINARY_SI, DECIMAL_SI
from gate.k8s.quota import (
    BEST_EFFORT,
    NOT_BEST_EFFORT,
    Refusal,
    ResourceQuota,
    ScopeRequirement,
    check_request,
    forbidden,
    object_quota_matches,
    pod_quota_matches,
    resource_quota,
    scopes_of,
    tracked_by_pods,
)
from gate.k8s.quotaclaims import CLAIMS, claim_quota_matches, claim_usage, tracked_by_claims
from gate.k8s.quotausage import (
    COUNT_PODS,
    EPHEMERAL,
    HUGEPAGES,
    LIMITS,
    ONE,
    PODS,
    REQUESTS,
    Amount,
    Usage,
    pod_usage,
)
from gate.k8s.quotavalidation import QuotaWrites
from gate.k8s.resources import CPU, MEMORY, is_extended
from gate.k8s.validation import to_milli
from gate.k8s.volumes import PlainObject
from gate.model import AdmissionObjects, ExistingPod
from gate.untyped import mapping

OBJECT_RESOURCES: Final = {
    "Deployment": "deployments.apps",
    "StatefulSet": "statefulsets.apps",
    "DaemonSet": "daemonsets.apps",
    "ReplicaSet": "replicasets.apps",
    "Job": "jobs.batch",
    "CronJob": "cronjobs.batch",
    "ReplicationController": "replicationcontrollers",
}
"""The resource (``<plural>.<group>``) of each workload kind whose objects a quota counts
as ``count/<resource>``; a Pod is counted as ``count/pods`` by the pod evaluator."""
LEGACY_COUNTS: Final = {"ReplicationController": "replicationcontrollers"}
"""The name a kind's objects are also counted under, from before ``count/`` names
(``pkg/quota/v1/evaluator/core/registry.go`` legacyObjectCountAliases)."""


_BYTES: Final = frozenset({MEMORY, EPHEMERAL})
MAX_BATCH: Final = 500
"""stateful_set_control.go MaxBatchSize: the most copies a Parallel StatefulSet's controller
creates at once."""


@dataclass(frozen=True, slots=True)
class Admitted:
    """What quota admission made of a workload's pods: ``created`` of those wanted; the
    quotas that matched them (by name); ``message``: the API server's refusal of the first
    one not created (None when every one was)."""

    created: int
    quotas: tuple[str, ...]
    message: str | None = None
    refused_by: str | None = None
    held: int = 0
    """The running pods a rollout keeps while no new pod can be created beside them."""
    room: int | None = None
    """With an autoscaler: how many of its maximum the quotas would create."""


@dataclass(slots=True)
class QuotaLedger:
    """The run's quotas by namespace, sorted by name, and each one's usage now."""

    quotas: Mapping[str, tuple[ResourceQuota, ...]] = field(default_factory=dict)
    used: dict[tuple[str, str], Usage] = field(default_factory=dict)

    @classmethod
    def of(cls, quotas: Iterable[ResourceQuota]) -> QuotaLedger:
        by_namespace: dict[str, list[ResourceQuota]] = {}
        for quota in quotas:
            by_namespace.setdefault(quota.namespace, []).append(quota)
        ordered = {ns: tuple(sorted(qs, key=lambda q: q.name)) for ns, qs in by_namespace.items()}
        used = {(q.namespace, q.name): dict(q.used) for qs in ordered.values() for q in qs}
        return cls(ordered, used)

    def copy(self) -> QuotaLedger:
        """The ledger as it is now, for a workload judged on its own."""
        return QuotaLedger(self.quotas, {key: dict(u) for key, u in self.used.items()})

    def admit_object(self, namespace: str, kind: str, name: str) -> Admitted | None:
        """A new object of ``kind`` against the namespace's object-count quotas: None when
        no quota counts it, else whether it is created."""
        resource = OBJECT_RESOURCES.get(kind)
        if resource is None:
            return None
        counted = (f"count/{resource}", *filter(None, [LEGACY_COUNTS.get(kind)]))
        quotas = self.quotas.get(namespace, ())
        matching = [q for q in quotas if object_quota_matches(q, counted)]
        if not matching:
            return None
        names = tuple(q.name for q in matching)
        tracked = {q.name: [n for n in counted if n in q.hard] for q in matching}
        outcome = self._check(namespace, matching, tracked, dict.fromkeys(counted, ONE))
        if isinstance(outcome, Refusal):
            return Admitted(0, names, forbidden(resource, name, outcome.error), outcome.quota)
        return Admitted(1, names)

    def counts_claims(self, namespace: str) -> bool:
        """Whether some quota of the namespace tracks a resource claims are charged."""
        return any(tracked_by_claims(q.hard) for q in self.quotas.get(namespace, ()))

    def admit_claim(self, namespace: str, name: str, claim: PlainObject) -> Admitted | None:
        """A new claim ``name`` against the namespace's quotas (the claim evaluator has no
        constraint): None when no quota counts it, else whether it is created. Raises
        QuantityError on a storage request that does not parse."""
        quotas = self.quotas.get(namespace, ())
        matching = [q for q in quotas if claim_quota_matches(q, claim)]
        if not matching:
            return None
        names = tuple(q.name for q in matching)
        tracked = {q.name: tracked_by_claims(q.hard) for q in matching}
        outcome = self._check(namespace, matching, tracked, claim_usage(claim))
        if isinstance(outcome, Refusal):
            return Admitted(0, names, forbidden(CLAIMS, name, outcome.error), outcome.quota)
        return Admitted(1, names)

    def admit_claims(
        self, namespace: str, claims: Iterable[tuple[str, PlainObject]]
    ) -> tuple[set[str], Admitted | None]:
        """One pod's new claims, by name, against the namespace's quotas, every one tried
        (``createPersistentVolumeClaims`` and the ephemeral volume controller go through
        them all): the quotas that counted any, and the first refusal (None when every one
        is created). Raises QuantityError."""
        names: set[str] = set()
        stopped = None
        for name, claim in claims:
            outcome = self.admit_claim(namespace, name, claim)
            if outcome is None:
                continue
            names.update(outcome.quotas)
            if stopped is None and outcome.message is not None:
                stopped = outcome
        return names, stopped

    def admit_copies(
        self,
        namespace: str,
        spec: Mapping[str, Any],
        claims: Sequence[Sequence[tuple[str, PlainObject]]],
        name_of: Callable[[int], str],
        parallel: bool = False,
        running: Sequence[Usage] = (),
        usage: Mapping[str, Amount] | None = None,
    ) -> Admitted | None:
        """A StatefulSet's copies, one per entry of ``claims`` (the claims its controller
        creates, by name, before the copy's pod: stateful_pod_control.go
        ``CreateStatefulPod``), once the ``running`` pods it replaces left. Each claim of a
        copy is tried, and one refused stops the copy: its pod is not created
        (``createPersistentVolumeClaims`` goes through them all and returns their errors);
        the refusal said is the first copy's that stops. ``OrderedReady`` stops there;
        ``parallel`` copies are tried in batches of 1, 2, 4 and on (``slowStartBatch``,
        which stops after a batch where one failed). None when no quota of the namespace
        counts the pods or their claims. Raises QuantityError."""
        if usage is None:
            usage = pod_usage(spec)
        gone = self.admit_pods(namespace, spec, 0, name_of, running, usage=usage)
        names = set(() if gone is None else gone.quotas)
        created, refused = 0, None
        for batch in _batches(len(claims), parallel):
            for position in batch:
                counted, stopped = self.admit_claims(namespace, claims[position])
                names.update(counted)
                if stopped is None:
                    pod = self.admit_pods(
                        namespace, spec, 1, _named(name_of(position)), (), False, usage
                    )
                    names.update(() if pod is None else pod.quotas)
                    stopped = None if pod is None or pod.message is None else pod
                created += stopped is None
                refused = refused or stopped
            if refused is not None:
                break
        if not names:
            return None
        if refused is None:
            return Admitted(created, tuple(sorted(names)))
        return Admitted(created, tuple(sorted(names)), refused.message, refused.refused_by)

    def admit_pods(
        self,
        namespace: str,
        spec: Mapping[str, Any],
        wanted: int,
        name_of: Callable[[int], str],
        running: Sequence[Usage] = (),
        surge_first: bool = False,
        usage: Mapping[str, Amount] | None = None,
    ) -> Admitted | None:
        """Create up to ``wanted`` pods of ``spec`` one after another; ``running``: the
        usage of the running pods the rollout replaces, released first (they may come as one
        sum), or each one after a new pod when ``surge_first``. None when no quota of the
        namespace matches the pod. ``usage``: the pod's, when already worked out."""
        matching = [q for q in self.quotas.get(namespace, ()) if pod_quota_matches(q, spec)]
        if not matching:
            return None
        names = tuple(q.name for q in matching)
        tracked = {q.name: tracked_by_pods(q.hard) for q in matching}
        if usage is None:
            usage = pod_usage(spec)
        old = list(running)
        if not surge_first:
            while old:
                self._release(namespace, matching, old.pop())
        position = 0
        while position < wanted:
            if position > 0 and not old:  # every pod left meets the same quotas
                position += self._admit_many(namespace, matching, usage, wanted - position)
                if position == wanted:
                    break
            # the constraints read the pod alone: asked of its first copy
            outcome = self._check(
                namespace, matching, tracked, usage, spec if position == 0 else None
            )
            if isinstance(outcome, Refusal):
                message = forbidden(PODS, name_of(position), outcome.error)
                held = len(old) if surge_first and position == 0 else 0
                return Admitted(position, names, message, outcome.quota, held)
            position += 1
            if old:  # a rollout's old pod leaves once a new one is ready
                self._release(namespace, matching, old.pop())
        return Admitted(wanted, names)

    def _admit_many(
        self,
        namespace: str,
        matching: Sequence[ResourceQuota],
        usage: Mapping[str, Amount],
        most: int,
    ) -> int:
        """How many of ``most`` more pods, each using ``usage``, every quota has room for
        (``used + n x requested <= hard`` on each resource it tracks), taken at once: pod
        after pod gives the same count and the same sums (a sum keeps its first value's
        format). The first pod of a workload has gone through :meth:`_check`, which asks
        the constraints and the usage a quota lacks: they read the pod, not the count."""
        delta = {n: a for n, a in usage.items() if a.value > 0}
        fits = most
        for quota in matching:
            used = self.used[(namespace, quota.name)]
            for name, amount in delta.items():
                if name in quota.hard:
                    now = used[name].value if name in used else 0
                    fits = min(fits, max(0, int((quota.hard[name].value - now) // amount.value)))
        if fits > 0:
            for quota in matching:
                used = self.used[(namespace, quota.name)]
                for name, amount in delta.items():
                    if name in quota.hard:
                        total = Amount(amount.value * fits, amount.format)
                        used[name] = used[name].plus(total) if name in used else total
        return fits

    def _check(
        self,
        namespace: str,
        matching: Sequence[ResourceQuota],
        tracked: Mapping[str, Sequence[str]],
        usage: Mapping[str, Amount],
        spec: Mapping[str, Any] | None = None,
    ) -> Refusal | None:
        used = {q.name: self.used[(namespace, q.name)] for q in matching}
        outcome = check_request(matching, tracked, used, usage, spec)
        if isinstance(outcome, Refusal):
            return outcome
        for name, after in outcome.items():
            self.used[(namespace, name)] = after
        return None

    def _release(
        self, namespace: str, matching: Sequence[ResourceQuota], usage: Mapping[str, Amount]
    ) -> None:
        """A running pod gone: its usage leaves every quota it was counted in (never below
        zero, as the quota controller's recount would find)."""
        for quota in matching:
            used = self.used[(namespace, quota.name)]
            for name, amount in usage.items():
                if name in used:
                    left = used[name].minus(amount)
                    used[name] = left if left.value > 0 else Amount(Fraction(0), left.format)


def running_usage(
    requests: Mapping[str, int], new_pod: Mapping[str, Amount], pods: int = 1
) -> Usage:
    """What ``pods`` running pods count in a quota, from the requests the snapshot keeps of
    them, summed (scheduler units: millicores of cpu, whole units otherwise); their limits
    are not kept, so the new pod's ``limits.*`` stand in for each one's. The format the pods
    wrote them in is not kept either: bytes are taken as binary (``512Mi``), everything else
    as decimal."""
    count = Amount(Fraction(pods))
    usage: Usage = {COUNT_PODS: count, PODS: count}
    for name, amount in requests.items():
        if name == PODS:
            continue
        if name == CPU:
            value = Amount(Fraction(amount, 1000))
        else:
            value = Amount(Fraction(amount), BINARY_SI if name in _BYTES else DECIMAL_SI)
            if name.startswith(HUGEPAGES):
                value = Amount(Fraction(amount), BINARY_SI)
        if is_extended(name):
            usage[REQUESTS + name] = value
        else:
            usage[name] = usage[REQUESTS + name] = value
    for name, limit in new_pod.items():
        if name.startswith(LIMITS):
            usage[name] = Amount(limit.value * pods, limit.format)
    return usage


def _batches(count: int, parallel: bool) -> Iterable[range]:
    """The positions of ``count`` copies in the batches their controller creates them in:
    one by one (``OrderedReady``), else 1, 2, 4 and on up to :data:`MAX_BATCH`."""
    start, size = 0, 1
    while start < count:
        stop = min(count, start + size)
        yield range(start, stop)
        start = stop
        if parallel:
            size = min(2 * size, MAX_BATCH)


def _named(name: str) -> Callable[[int], str]:
    return lambda _: name


def summed_requests(pods: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """The requests of several running pods, added (integers: the scheduler's units)."""
    total: dict[str, int] = {}
    for requests in pods:
        for name, amount in requests.items():
            total[name] = total.get(name, 0) + amount
    return total


def quotas_of(items: Iterable[Mapping[str, Any]]) -> list[ResourceQuota]:
    """The quotas among recorded objects; one not shaped like a quota, or with a quantity
    that does not parse, is passed over (the API server would not have stored it)."""
    found = []
    for item in items:
        try:
            quota = resource_quota(item) if isinstance(item, Mapping) else None
        except QuantityError:
            continue
        if quota is not None:
            found.append(quota)
    return found


def with_run_quotas(
    admission: AdmissionObjects,
    bodies: Iterable[Mapping[str, Any]],
    pods: Iterable[ExistingPod],
    objects: Callable[[], Mapping[tuple[str, str], int]] | None = None,
) -> AdmissionObjects:
    """The snapshot's quotas and the ResourceQuotas among the run's manifests, applied with
    the workloads (a namespace's chart ships its quota beside them), each one the API server
    takes (:class:`~gate.k8s.quotavalidation.QuotaWrites`). A new quota has no
    status yet: its ``spec.hard`` is its limit, and its usage what the quota controller's
    first count finds, the namespace's running pods its scopes match (by the requests the
    snapshot keeps of them: their limits are not kept, so ``limits.*`` start at 0), and,
    when it has no scope, the workload objects ``objects()`` counts by (namespace, kind)
    (those the running pods' owners name: one without a pod is not known; asked only when
    the run ships a quota). A run's quota replacing
    a recorded one of its name keeps the recorded usage of what both track."""
    added = [
        body
        for body in bodies
        if body.get("kind") == "ResourceQuota" and body.get("apiVersion") == "v1"
    ]
    if not added:
        return admission
    held = {} if objects is None else objects()
    by_name = {_key(item): item for item in admission.resource_quotas}
    writes = QuotaWrites.over(admission.resource_quotas)
    for body in added:
        if writes.write(body) is not None:
            continue
        metadata = mapping(body.get("metadata"))
        namespace = str(metadata.get("namespace") or "default")
        placed = {**body, "metadata": {**metadata, "namespace": namespace}}
        scopes = scopes_of(mapping(placed.get("spec")))
        counted = [
            running_usage(p.requests, {})
            for p in pods
            if p.namespace == namespace and _first_counted(scopes, p)
        ]
        if not scopes and held:
            counted.append(_object_counts(namespace, held))
        try:
            quota = new_quota(placed, counted)
        except QuantityError:
            continue
        if quota is None:
            continue
        recorded = mapping(mapping(by_name.get(_key(placed))).get("status")).get("used")
        used = {name: str(amount) for name, amount in quota.used.items()}
        used.update({n: v for n, v in mapping(recorded).items() if n in quota.hard})
        hard = {name: str(amount) for name, amount in quota.hard.items()}
        by_name[_key(placed)] = {**placed, "status": {"hard": hard, "used": used}}
    return replace(admission, resource_quotas=tuple(by_name.values()))


def _object_counts(namespace: str, objects: Mapping[tuple[str, str], int]) -> Usage:
    """The objects of ``namespace`` by the names the object count evaluator counts them
    under (the quota controller's first count of a quota without scopes)."""
    usage: Usage = {}
    for (found, kind), count in objects.items():
        resource = OBJECT_RESOURCES.get(kind)
        if found != namespace or resource is None:
            continue
        for name in (f"count/{resource}", *filter(None, [LEGACY_COUNTS.get(kind)])):
            usage[name] = Amount(Fraction(count))
    return usage


def _first_counted(scopes: Iterable[ScopeRequirement], pod: ExistingPod) -> bool:
    """Whether the quota controller's first count takes a running pod: it counts only the
    pods that match every scope (CalculateUsageStats). Whether a pod is BestEffort is read
    from its requests (a limit without a request is also its request, so a pod with no cpu
    or memory request has no limit of them either); the scopes its record cannot answer
    (Terminating, PriorityClass, CrossNamespacePodAffinity) count it."""
    best_effort = not any(pod.requests.get(name, 0) > 0 for name in (CPU, MEMORY))
    return all(
        best_effort is (s.scope == BEST_EFFORT)
        for s in scopes
        if s.scope in (BEST_EFFORT, NOT_BEST_EFFORT)
    )


def _key(item: Mapping[str, Any]) -> tuple[str, str]:
    metadata = mapping(item.get("metadata"))
    return str(metadata.get("namespace")), str(metadata.get("name"))


def new_quota(body: Mapping[str, Any], pods: Iterable[Usage]) -> ResourceQuota | None:
    """A ResourceQuota among the run's manifests: its ``spec.hard`` is its hard limit, each
    quantity as the API server stores it (SetObjectDefaults_ResourceQuota's
    SetDefaults_ResourceList: rounded up to thousandths, its format kept), and its usage
    what ``pods`` use of what it tracks, as the quota controller's first count would find
    it."""
    spec = mapping(body.get("spec"))
    quota = resource_quota({**body, "status": {"hard": spec.get("hard")}})
    if quota is None:
        return None
    hard = {name: Amount(to_milli(a.value), a.format) for name, a in quota.hard.items()}
    used: Usage = {name: Amount(Fraction(0)) for name in hard}
    for usage in pods:
        for name, amount in usage.items():
            if name in used:
                used[name] = used[name].plus(amount)
    # The controller writes its count, and admission reads that text back: its format.
    read_back = {name: Amount.of(str(amount)) for name, amount in used.items()}
    return ResourceQuota(quota.namespace, quota.name, hard, read_back, quota.scopes)
