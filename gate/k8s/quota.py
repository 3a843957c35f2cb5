"""ResourceQuota, as the API server's admission counts a created pod against it.

Upstream: ``staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``
(CheckRequest, prettyPrint), ``pkg/quota/v1/evaluator/core/pods.go`` (the pod evaluator:
usage, scopes, the constraints a quota tracking cpu or memory puts on every container),
``staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go`` (Add, Mask, LessThanOrEqual); what
a pod uses is :mod:`gate.k8s.quotausage`.

A quota is read from its ``status``: ``hard`` and ``used`` as the quota controller last wrote
them (a quota among the run's manifests has no status yet: its ``spec.hard`` and the usage of
the cluster's pods stand in, see :func:`gate.k8s.quotaledger.new_quota`). Admission adds each
admitted pod's usage to ``used``; it never counts the namespace's pods again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from gate.k8s.quotausage import (
    COUNT_PODS,
    EPHEMERAL,
    HUGEPAGES,
    LIMITS,
    PODS,
    REQUESTS,
    Amount,
    Usage,
    add_to,
    compute_usage,
    containers_of,
    pod_level_set,
    resources_of,
    usage_list,
)
from gate.k8s.resources import CPU, MEMORY
from gate.untyped import as_list, mapping

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


def scopes_of(spec: Mapping[str, Any]) -> tuple[ScopeRequirement, ...]:
    """A quota's scopes, from its ``spec`` (getScopeSelectorsFromQuota)."""
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
    Its limits are ``status.hard`` alone: until the quota controller writes them, the quota
    tracks nothing admission sees. Raises QuantityError on a quantity that does not parse."""
    metadata, spec, status = (mapping(item.get(k)) for k in ("metadata", "spec", "status"))
    name, namespace = metadata.get("name"), metadata.get("namespace")
    if not isinstance(name, str) or not isinstance(namespace, str):
        return None
    return ResourceQuota(
        namespace,
        name,
        usage_list(status.get("hard")),
        usage_list(status.get("used")),
        scopes_of(spec),
    )


# --- what a pod uses ---------------------------------------------------------------------


# --- which quotas a pod meets ------------------------------------------------------------


def is_best_effort(spec: Mapping[str, Any]) -> bool:
    """GetPodQOS is BestEffort: no cpu or memory above zero in the requests or limits of the
    pod-level resources when the pod has them (its containers are then not read), else of
    any container, init ones too."""
    if spec.get("resources") is not None:
        holders = [spec]
    else:
        holders = [*containers_of(spec, "containers"), *containers_of(spec, "initContainers")]
    return not any(
        amount.value > 0
        for holder in holders
        for side in ("requests", "limits")
        for name, amount in resources_of(holder, side).items()
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


def object_quota_matches(quota: ResourceQuota, names: Iterable[str]) -> bool:
    """The object count evaluator's Matches: the quota tracks one of the names the object
    is counted under, and has no scope (MatchesNoScopeFunc matches none)."""
    return not quota.scopes and any(name in quota.hard for name in names)


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
    for container in [*containers_of(spec, "containers"), *containers_of(spec, "initContainers")]:
        present = compute_usage(
            resources_of(container, "requests"), resources_of(container, "limits")
        )
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
        add_to(new, requested)
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
