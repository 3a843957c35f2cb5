"""The LimitRanger admission's validation: a created pod against its namespace's LimitRanges.

``plugin/pkg/admission/limitranger/admission.go`` (PodValidateLimitFunc): every ``Container``
item's ``min``, ``max`` and ``maxLimitRequestRatio`` are held against each container, init
ones too, and every ``Pod`` item's against the pod's aggregate (its own podRequests and
podLimits: containers and sidecars summed, a regular init container's peak as a floor, the
pod-level cpu and memory in their place, and no overhead). It runs in the validating phase,
after every mutating plugin (its own defaults among them), so it reads the completed pod.
The errors of one LimitRange's items are joined as ``utilerrors.NewAggregate`` joins them:
one alone as it is, several, duplicates dropped, as ``[first, second]``. LimitRanger holds
the pod to each LimitRange of its namespace apart (runLimitFunc) and refuses it with the
errors of the first that it breaks, so the errors of two LimitRanges are never joined.
Upstream walks each item's resources in Go's random map order, and the namespace's
LimitRanges in its informer's; they are taken by name, and in the snapshot's order, here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from gate.errors import QuantityError
from gate.k8s.quantity import milli_value, parse_quantity, whole_value
from gate.k8s.quotausage import (
    Amount,
    aggregate_limits,
    aggregate_requests,
    containers_of,
    resources_of,
)
from gate.k8s.resources import CPU, MEMORY, overcommit_allowed
from gate.k8s.validation import aggregate, qualified_name_errors, resource_name
from gate.untyped import mapping

CONTAINER, POD = "Container", "Pod"
_MAX_MILLI_VALUE: Final = (2**63 - 1) // 1000
"""resource.MaxMilliValue: past it a MilliValue overflows int64, so whole units compare."""
_POD_LEVEL: Final = (CPU, MEMORY)
"""limitranger's isSupportedPodLevelResource: what pod-level resources replace."""

Amounts = Mapping[str, Amount]
Constraint = Callable[[str, str, Amount, Amounts, Amounts], "str | None"]


def _enforced_values(request: Amount | None, limit: Amount | None, enforced: Amount) -> list[int]:
    """requestLimitEnforcedValues: request, limit and enforced in milli-units, or in whole
    units when one of them is past :data:`_MAX_MILLI_VALUE` (an absent value is 0)."""
    values = [a.value if a is not None else Fraction(0) for a in (request, limit, enforced)]
    whole = [whole_value(v) for v in values]
    if all(w <= _MAX_MILLI_VALUE for w in whole):
        return [milli_value(v) for v in values]
    return whole


def _minimum(
    kind: str, name: str, enforced: Amount, requests: Amounts, limits: Amounts
) -> str | None:
    """minConstraint."""
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, bound = _enforced_values(request, limit, enforced)
    head = f"minimum {name} usage per {kind} is {enforced}"
    if request is None:
        return f"{head}.  No request is specified"
    if observed_request < bound:
        return f"{head}, but request is {request}"
    if limit is not None and observed_limit < bound:
        return f"{head}, but limit is {limit}"
    return None


def _maximum(
    kind: str, name: str, enforced: Amount, requests: Amounts, limits: Amounts
) -> str | None:
    """maxConstraint."""
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, bound = _enforced_values(request, limit, enforced)
    head = f"maximum {name} usage per {kind} is {enforced}"
    if limit is None:
        return f"{head}.  No limit is specified"
    if observed_limit > bound:
        return f"{head}, but limit is {limit}"
    if request is not None and observed_request > bound:
        return f"{head}, but request is {request}"
    return None


def _ratio(
    kind: str, name: str, enforced: Amount, requests: Amounts, limits: Amounts
) -> str | None:
    """limitRequestRatioConstraint, in float64 as upstream divides and compares."""
    request, limit = requests.get(name), limits.get(name)
    observed_request, observed_limit, _ = _enforced_values(request, limit, enforced)
    head = f"{name} max limit to request ratio per {kind} is {enforced}"
    if request is None or observed_request == 0:
        return f"{head}, but no request is specified or request is 0"
    if limit is None or observed_limit == 0:
        return f"{head}, but no limit is specified or limit is 0"
    observed = float(observed_limit) / float(observed_request)
    shown, most = observed, float(whole_value(enforced.value))
    if whole_value(enforced.value) <= _MAX_MILLI_VALUE:
        observed, most = observed * 1000, float(milli_value(enforced.value))
    if observed > most:
        return f"{head}, but provided ratio is {shown:f}"
    return None


_CONSTRAINTS: Final[tuple[tuple[str, Constraint], ...]] = (
    ("min", _minimum),
    ("max", _maximum),
    ("maxLimitRequestRatio", _ratio),
)


def _held_against(
    item: Mapping[str, Any], kind: str, requests: Amounts, limits: Amounts
) -> list[str]:
    errors = []
    for field_name, constraint in _CONSTRAINTS:
        bounds = mapping(item.get(field_name))
        for name in sorted(bounds):
            error = constraint(kind, str(name), Amount.of(bounds[name]), requests, limits)
            if error is not None:
                errors.append(error)
    return errors


def _pod_amounts(spec: Mapping[str, Any]) -> tuple[dict[str, Amount], dict[str, Amount]]:
    """limitranger's podRequests and podLimits."""
    requests, limits = aggregate_requests(spec), aggregate_limits(spec)
    for side, total in (("requests", requests), ("limits", limits)):
        for name, amount in resources_of(mapping(spec), side).items():
            if name in _POD_LEVEL:
                total[name] = amount
    return requests, limits


def _containers(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return containers_of(spec, "containers") + containers_of(spec, "initContainers")


def limit_range_items(limit_range: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A LimitRange's ``Container`` and ``Pod`` items, in its order (its other items bound
    what is no pod)."""
    items = mapping(limit_range.get("spec")).get("limits")
    return [
        item
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, Mapping) and item.get("type") in (CONTAINER, POD)
    ]


def container_defaults(item: Mapping[str, Any]) -> dict[str, Any]:
    """SetDefaults_LimitRangeItem for a Container item: default limit from max, default
    request from the default limit, else from min (idempotent on stored objects)."""
    default = dict(mapping(item.get("default")))
    default_request = dict(mapping(item.get("defaultRequest")))
    if item.get("type") != CONTAINER:
        return {"default": default, "defaultRequest": default_request}
    for name, value in mapping(item.get("max")).items():
        default.setdefault(name, value)
    for name, value in default.items():
        default_request.setdefault(name, value)
    for name, value in mapping(item.get("min")).items():
        default_request.setdefault(name, value)
    return {"default": default, "defaultRequest": default_request}


def range_defaults(limit_range: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """defaultContainerResourceRequirements: the defaults of one LimitRange's Container
    items as stored (:func:`container_defaults`), a later item's replacing an earlier one's
    for the same resource."""
    default: dict[str, Any] = {}
    default_request: dict[str, Any] = {}
    for item in limit_range_items(limit_range):
        if item.get("type") == CONTAINER:
            stored = container_defaults(item)
            default.update(stored["default"])
            default_request.update(stored["defaultRequest"])
    return {"default": default, "defaultRequest": default_request}


_LIMIT_TYPES: Final = (POD, CONTAINER, "PersistentVolumeClaim")
"""IsStandardLimitRangeType."""


def accepted(limit_range: Mapping[str, Any]) -> bool:
    """Whether the API server creates the LimitRange: ValidateLimitRange on its items as
    SetDefaults_LimitRangeItem leaves them (:func:`container_defaults`). Each item's type
    is a standard one or qualified, and no type comes twice; a Pod item has no defaults, a
    PersistentVolumeClaim item a storage min or max; its quantities parse, of resources a
    container may have (for a Pod or Container item); and of each resource min <= default
    request <= default limit <= max, a ratio of at least 1 and at most max/min, and a
    default equal to the default request for a resource not overcommitted."""
    items = mapping(limit_range.get("spec")).get("limits")
    seen: set[object] = set()
    try:
        for item in items if isinstance(items, list) else []:
            kind = mapping(item).get("type")
            if not _limit_type_ok(kind) or kind in seen:
                return False
            seen.add(kind)
            if not _item_accepted(mapping(item)):
                return False
    except QuantityError:
        return False
    return True


def _limit_type_ok(kind: object) -> bool:
    """validateLimitRangeTypeName: a standard type, or a qualified name with a prefix."""
    if kind in _LIMIT_TYPES:
        return True
    return isinstance(kind, str) and "/" in kind and not qualified_name_errors(kind)


def _item_accepted(item: Mapping[str, Any]) -> bool:
    stored = {**item, **container_defaults(item)}
    if item.get("type") == POD and (stored["default"] or stored["defaultRequest"]):
        return False
    bounds = {
        field: {str(k): parse_quantity(v) for k, v in mapping(stored.get(field)).items()}
        for field in ("min", "max", "default", "defaultRequest", "maxLimitRequestRatio")
    }
    if item.get("type") in (POD, CONTAINER) and any(
        next(resource_name(name, "", pod_level=False), None)
        for name in set().union(*bounds.values())
    ):
        return False  # validateLimitRangeResourceName
    low, high = bounds["min"], bounds["max"]
    if item.get("type") == "PersistentVolumeClaim" and "storage" not in low | high:
        return False
    default, request, ratio = (
        bounds["default"],
        bounds["defaultRequest"],
        bounds["maxLimitRequestRatio"],
    )
    for name in set().union(*bounds.values()):
        order = [low.get(name), request.get(name), default.get(name), high.get(name)]
        known = [v for v in order if v is not None]
        if known != sorted(known) or (name in low and name in high and low[name] > high[name]):
            return False
        if name in ratio and ratio[name] < 1:
            return False
        bounded = name in ratio and name in low and name in high and low[name] > 0
        if (
            bounded
            and milli_value(ratio[name]) * milli_value(low[name]) > milli_value(high[name]) * 1000
        ):
            return False
        exact = not overcommit_allowed(name)
        if exact and name in default and name in request and default[name] != request[name]:
            return False
    return True


def range_violations(
    spec: Mapping[str, Any], limit_ranges: Sequence[Mapping[str, Any]]
) -> str | None:
    """runLimitFunc with ValidateLimit: the errors of the first of the namespace's
    LimitRanges the pod breaks, None when it keeps within every one. Raises QuantityError
    on a quantity that does not parse."""
    for limit_range in limit_ranges:
        violations = limit_violations(spec, limit_range_items(limit_range))
        if violations is not None:
            return violations
    return None


def limit_violations(spec: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> str | None:
    """PodValidateLimitFunc over one LimitRange's items: the aggregate error, None when the
    pod keeps within them. Raises QuantityError on a quantity that does not parse."""
    errors: list[str] = []
    for item in items:
        if item.get("type") == CONTAINER:
            for container in _containers(spec):
                requests = resources_of(container, "requests")
                limits = resources_of(container, "limits")
                errors += _held_against(item, CONTAINER, requests, limits)
        elif item.get("type") == POD:
            errors += _held_against(item, POD, *_pod_amounts(spec))
    return aggregate(errors)
