"""ResourceQuota, as the API server's admission counts a created pod against it.

Upstream: ``staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``
(CheckRequest, prettyPrint), ``pkg/quota/v1/evaluator/core/pods.go`` (the pod evaluator:
usage, scopes, the constraints a quota tracking cpu or memory puts on every container),
``staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go`` (Add, Mask, LessThanOrEqual) and
``component-helpers/resource/helpers.go`` (PodRequests, PodLimits).

A quota is read from its ``status``: ``hard`` and ``used`` as the quota controller last wrote
them (a quota among the run's manifests has no status yet: its ``spec.hard`` and the usage of
the cluster's pods stand in, see :func:`new_quota`). Admission adds each admitted pod's usage
to ``used``; it never counts the namespace's pods again. Values keep the format the API server
prints them in (:class:`Amount`): a sum keeps its first value's format, as Go's Quantity.Add does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from gate.k8s.quantity import DECIMAL_SI, go_quantity_text, parse_quantity, quantity_format
from gate.k8s.resources import CPU, MEMORY, is_extended, is_sidecar, pod_level_resource
from gate.untyped import as_list, mapping

COUNT_PODS: Final = "count/pods"
"""The object count of pods (``generic.ObjectCountQuotaResourceNameFor``): every pod stored."""
PODS: Final = "pods"
REQUESTS, LIMITS, HUGEPAGES = "requests.", "limits.", "hugepages-"
EPHEMERAL: Final = "ephemeral-storage"
_POD_RESOURCES: Final = frozenset(
    {COUNT_PODS, CPU, MEMORY, EPHEMERAL, PODS}
    | {f"{side}{name}" for side in (REQUESTS, LIMITS) for name in (CPU, MEMORY, EPHEMERAL)}
)
"""pods.go podResources: what the pod evaluator counts, besides the prefixed names."""
_VALIDATED: Final = frozenset(
    {CPU, MEMORY} | {f"{side}{name}" for side in (REQUESTS, LIMITS) for name in (CPU, MEMORY)}
)
"""pods.go validationSet: a quota tracking one of these needs every container to set it."""

TERMINATING, NOT_TERMINATING = "Terminating", "NotTerminating"
BEST_EFFORT, NOT_BEST_EFFORT = "BestEffort", "NotBestEffort"
PRIORITY_CLASS, CROSS_NAMESPACE = "PriorityClass", "CrossNamespacePodAffinity"
IN, NOT_IN, EXISTS, DOES_NOT_EXIST = "In", "NotIn", "Exists", "DoesNotExist"


@dataclass(frozen=True, slots=True)
class Amount:
    """A quantity as resource.Quantity holds it: its value and the format it prints in."""

    value: Fraction
    format: str = DECIMAL_SI

    @classmethod
    def of(cls, raw: object) -> Amount:
        """A quantity as written (raises QuantityError where ParseQuantity fails)."""
        return cls(parse_quantity(raw), quantity_format(raw))

    def plus(self, other: Amount) -> Amount:
        """Quantity.Add: the sum keeps this value's format, unless this value is zero."""
        fmt = other.format if self.value == 0 else self.format
        return Amount(self.value + other.value, fmt)

    def minus(self, other: Amount) -> Amount:
        return Amount(self.value - other.value, self.format)

    def __str__(self) -> str:
        return go_quantity_text(self.value, self.format)


Usage = dict[str, Amount]
ONE: Final = Amount(Fraction(1))


@dataclass(frozen=True, slots=True)
class ScopeRequirement:
    """A quota's scope: a ``spec.scopes`` entry is ``Exists`` on it; a ``scopeSelector``
    expression carries its operator and values."""

    scope: str
    operator: str = EXISTS
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ResourceQuota:
    """What admission reads of a ResourceQuota: ``status.hard`` and ``status.used``, and
    its scopes (getScopeSelectorsFromQuota: ``spec.scopes``, then the selector's)."""

    namespace: str
    name: str
    hard: Mapping[str, Amount]
    used: Mapping[str, Amount]
    scopes: tuple[ScopeRequirement, ...] = ()


def _usage_list(value: object) -> Usage:
    return {str(name): Amount.of(raw) for name, raw in mapping(value).items() if raw is not None}


def _scopes(spec: Mapping[str, Any]) -> tuple[ScopeRequirement, ...]:
    found = [ScopeRequirement(str(s)) for s in as_list(spec.get("scopes"))]
    for expression in as_list(mapping(spec.get("scopeSelector")).get("matchExpressions")):
        item = mapping(expression)
        values = tuple(str(v) for v in as_list(item.get("values")))
        found.append(
            ScopeRequirement(str(item.get("scopeName")), str(item.get("operator")), values)
        )
    return tuple(found)


def resource_quota(item: Mapping[str, Any]) -> ResourceQuota | None:
    """The quota a recorded ResourceQuota object is; None for one not shaped like one.
    Raises QuantityError on a quantity that does not parse."""
    metadata, spec, status = (mapping(item.get(k)) for k in ("metadata", "spec", "status"))
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(name, str) or not isinstance(namespace, str):
        return None
    hard = status.get("hard") if "hard" in status else spec.get("hard")
    return ResourceQuota(
        namespace, name, _usage_list(hard), _usage_list(status.get("used")), _scopes(spec)
    )


# --- what a pod uses ---------------------------------------------------------------------


def _add(total: Usage, extra: Mapping[str, Amount]) -> None:
    """addResourceList: a first value is copied, later ones added to it."""
    for name, amount in extra.items():
        found = total.get(name)
        total[name] = amount if found is None else found.plus(amount)


def _max(total: Usage, other: Mapping[str, Amount]) -> None:
    """maxResourceList: the larger value, with its own format, replaces the smaller."""
    for name, amount in other.items():
        if name not in total or amount.value > total[name].value:
            total[name] = amount


def _containers(spec: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [c for c in as_list(spec.get(key)) if isinstance(c, Mapping)]


def _side(container: Mapping[str, Any], side: str) -> Usage:
    return _usage_list(mapping(container.get("resources")).get(side))


def _aggregate(spec: Mapping[str, Any], side: str) -> Usage:
    """AggregateContainerRequests / AggregateContainerLimits: containers and restartable
    init containers (sidecars) summed; a regular init container runs beside the sidecars
    started before it, and the peak of those is the floor."""
    total: Usage = {}
    for container in _containers(spec, "containers"):
        _add(total, _side(container, side))
    sidecars: Usage = {}
    peak: Usage = {}
    for container in _containers(spec, "initContainers"):
        own = _side(container, side)
        if is_sidecar(container):
            _add(total, own)
            _add(sidecars, own)
            in_flight = dict(sidecars)
        else:
            in_flight = dict(own)
            _add(in_flight, sidecars)
        _max(peak, in_flight)
    _max(total, peak)
    return total


def pod_requests(spec: Mapping[str, Any]) -> Usage:
    """PodRequests: the containers' aggregate, pod-level requests in place of it where set
    (cpu, memory, hugepages), then the overhead added."""
    total = _aggregate(spec, "requests")
    for name, amount in _side(spec, "requests").items():
        if pod_level_resource(name):
            total[name] = amount
    _add(total, _usage_list(spec.get("overhead")))
    return total


def pod_limits(spec: Mapping[str, Any]) -> Usage:
    """PodLimits: as :func:`pod_requests`, but the overhead is added only to the non-zero
    limits the pod sets."""
    total = _aggregate(spec, "limits")
    for name, amount in _side(spec, "limits").items():
        if pod_level_resource(name):
            total[name] = amount
    for name, amount in _usage_list(spec.get("overhead")).items():
        if name in total and total[name].value != 0:
            total[name] = total[name].plus(amount)
    return total


def compute_usage(requests: Mapping[str, Amount], limits: Mapping[str, Amount]) -> Usage:
    """podComputeUsageHelper: ``pods``, the bare and ``requests.`` names of cpu, memory,
    ephemeral-storage and hugepages, their ``limits.`` names, and ``requests.<name>`` of an
    extended resource (its only quota name: extended resources are not overcommitted)."""
    result: Usage = {PODS: ONE}
    for name in (CPU, MEMORY, EPHEMERAL):
        if name in requests:
            result[name] = result[REQUESTS + name] = requests[name]
        if name in limits:
            result[LIMITS + name] = limits[name]
    for name, amount in requests.items():
        if name.startswith(HUGEPAGES):
            result[name] = result[REQUESTS + name] = amount
        if is_extended(name):
            result[REQUESTS + name] = amount
    return result


def pod_usage(spec: Mapping[str, Any]) -> Usage:
    """PodUsageFunc for a pod being created (never terminal): its object count and its
    compute usage."""
    return {COUNT_PODS: ONE, **compute_usage(pod_requests(spec), pod_limits(spec))}


# --- which quotas a pod meets ------------------------------------------------------------


def is_best_effort(spec: Mapping[str, Any]) -> bool:
    """GetPodQOS is BestEffort: no cpu or memory above zero in any container's (init ones
    too) requests or limits, nor in the pod-level resources."""
    holders = [*_containers(spec, "containers"), *_containers(spec, "initContainers"), spec]
    return not any(
        amount.value > 0
        for holder in holders
        for side in ("requests", "limits")
        for name, amount in _side(holder, side).items()
        if name in (CPU, MEMORY)
    )


def _terminating(spec: Mapping[str, Any]) -> bool:
    deadline = spec.get("activeDeadlineSeconds")
    return isinstance(deadline, int) and not isinstance(deadline, bool) and deadline >= 0


def _cross_namespace(spec: Mapping[str, Any]) -> bool:
    """usesCrossNamespacePodAffinity: a pod (anti-)affinity term, required or preferred,
    with ``namespaces`` or a ``namespaceSelector``."""
    affinity = mapping(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = mapping(affinity.get(kind))
        terms = list(as_list(rules.get("requiredDuringSchedulingIgnoredDuringExecution")))
        for weighted in as_list(rules.get("preferredDuringSchedulingIgnoredDuringExecution")):
            terms.append(mapping(weighted).get("podAffinityTerm"))
        for term in map(mapping, terms):
            if as_list(term.get("namespaces")) or term.get("namespaceSelector") is not None:
                return True
    return False


def _priority_matches(requirement: ScopeRequirement, spec: Mapping[str, Any]) -> bool:
    """podMatchesSelector: the selector over ``{PriorityClass: <class name>}``, empty when
    the pod names no class."""
    name = spec.get("priorityClassName")
    named = isinstance(name, str) and bool(name)
    if requirement.operator == EXISTS:
        return named
    if requirement.operator == DOES_NOT_EXIST:
        return not named
    if requirement.operator == IN:
        return named and name in requirement.values
    if requirement.operator == NOT_IN:
        return not named or name not in requirement.values
    return False


def scope_matches(requirement: ScopeRequirement, spec: Mapping[str, Any]) -> bool:
    """podMatchesScopeFunc; an unknown scope matches nothing."""
    scope = requirement.scope
    if scope in (TERMINATING, NOT_TERMINATING):
        return _terminating(spec) is (scope == TERMINATING)
    if scope in (BEST_EFFORT, NOT_BEST_EFFORT):
        return is_best_effort(spec) is (scope == BEST_EFFORT)
    if scope == PRIORITY_CLASS:
        return _priority_matches(requirement, spec)
    if scope == CROSS_NAMESPACE:
        return _cross_namespace(spec)
    return False


def tracked_by_pods(names: Iterable[str]) -> list[str]:
    """MatchingResources: the quota's resources the pod evaluator counts."""
    return [
        name
        for name in names
        if name in _POD_RESOURCES
        or name.startswith((HUGEPAGES, REQUESTS + HUGEPAGES))
        or (name.startswith(REQUESTS) and "/" in name and "kubernetes.io/" not in name)
    ]


def pod_quota_matches(quota: ResourceQuota, spec: Mapping[str, Any]) -> bool:
    """generic.Matches: the quota tracks a resource pods use, and the pod meets every one of
    its scopes."""
    return bool(tracked_by_pods(quota.hard)) and all(scope_matches(s, spec) for s in quota.scopes)


def object_quota_matches(quota: ResourceQuota, resource: str) -> bool:
    """The object count evaluator's Matches: the quota tracks the count, and has no scope
    (MatchesNoScopeFunc matches none)."""
    return resource in quota.hard and not quota.scopes


def pod_level_set(spec: Mapping[str, Any]) -> bool:
    """IsPodLevelResourcesSet: ``spec.resources`` requests or limits cpu, memory or
    hugepages."""
    resources = mapping(spec.get("resources"))
    sides = (mapping(resources.get("requests")), mapping(resources.get("limits")))
    return any(pod_level_resource(str(name)) for side in sides for name in side)


def constraints(required: Iterable[str], spec: Mapping[str, Any]) -> str | None:
    """The pod evaluator's Constraints: a quota tracking cpu or memory (bare, ``requests.``
    or ``limits.``) needs every container, init ones too, to set it; the error names each
    missing resource, sorted, with its containers, sorted; a pod with pod-level resources
    is not asked (PodLevelResources, on by default since v1.34).

    >>> resources = {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    >>> spec = {"containers": [{"name": "web", "resources": resources}]}
    >>> constraints(["limits.memory", "requests.cpu", "pods"], spec)
    'must specify limits.memory for: web'
    """
    wanted = set(required) & _VALIDATED
    if pod_level_set(spec):  # the pod-level resources stand for the containers'
        return None
    missing: dict[str, set[str]] = {}
    for container in [*_containers(spec, "containers"), *_containers(spec, "initContainers")]:
        present = compute_usage(_side(container, "requests"), _side(container, "limits"))
        for name in wanted - set(present):
            missing.setdefault(name, set()).add(str(container.get("name", "")))
    if not missing:
        return None
    parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
    return f"must specify {'; '.join(parts)}"


# --- admission ---------------------------------------------------------------------------


def pretty(usage: Mapping[str, Amount]) -> str:
    """prettyPrint: ``name=value`` sorted by name, joined by commas."""
    return ",".join(f"{name}={usage[name]}" for name in sorted(usage))


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why admission refuses an object: the quota's name and the API server's error."""

    quota: str
    error: str


def check_request(
    matching: Sequence[ResourceQuota],
    tracked: Mapping[str, Sequence[str]],
    used: Mapping[str, Usage],
    usage: Mapping[str, Amount],
    spec: Mapping[str, Any] | None = None,
) -> Refusal | dict[str, Usage]:
    """CheckRequest for a create. ``matching``: the quotas that match the object, in the
    order admission lists them, each with ``tracked[name]`` the resources it tracks of the
    object and ``used[name]`` its usage now; ``spec``: a pod's, whose containers the
    constraints read. Quota by quota, the constraint error, or a tracked resource without a
    usage (the quota controller has not counted it); then ``used + requested <= hard`` on
    the non-zero resources each tracks, and the first exceeded quota's refusal; else every
    matching quota's usage once the object is admitted."""
    for quota in matching:
        error = None if spec is None else constraints(tracked[quota.name], spec)
        if error is not None:
            return Refusal(quota.name, f"failed quota: {quota.name}: {error}")
        unknown = [n for n in tracked[quota.name] if n in quota.hard and n not in used[quota.name]]
        if unknown:
            names = ",".join(sorted(tracked[quota.name]))
            return Refusal(
                quota.name, f"status unknown for quota: {quota.name}, resources: {names}"
            )
    delta = {name: amount for name, amount in usage.items() if amount.value != 0}
    after: dict[str, Usage] = {}
    for quota in matching:
        requested = {n: a for n, a in delta.items() if n in quota.hard}
        if not requested:
            continue
        now = used[quota.name]
        new = dict(now)
        _add(new, requested)
        exceeded = sorted(n for n in requested if new[n].value > quota.hard[n].value)
        if exceeded:
            error = (
                f"exceeded quota: {quota.name}, "
                f"requested: {pretty({n: requested[n] for n in exceeded})}, "
                f"used: {pretty({n: now[n] for n in exceeded})}, "
                f"limited: {pretty({n: quota.hard[n] for n in exceeded})}"
            )
            return Refusal(quota.name, error)
        after[quota.name] = new
    return after


def forbidden(resource: str, name: str, error: str) -> str:
    """apierrors.NewForbidden's message: ``pods "web-0" is forbidden: <error>``."""
    return f'{resource} "{name}" is forbidden: {error}'
