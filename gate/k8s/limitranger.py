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

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from gate.errors import QuantityError
from gate.k8s.quantity import (
    go_quantity_text,
    milli_value,
    parse_quantity,
    quantity_format,
    whole_value,
)
from gate.k8s.quotausage import (
    Amount,
    aggregate_limits,
    aggregate_requests,
    containers_of,
    resources_of,
)
from gate.k8s.resources import CPU, MEMORY, overcommit_allowed
from gate.k8s.validation import (
    DUPLICATE,
    FORBIDDEN,
    INVALID,
    REQUIRED,
    Errors,
    FieldError,
    aggregate,
    any_resource_name,
    invalid_object,
    json_quote,
    object_meta,
    qualified_name_errors,
    resource_name,
    stored_name,
    to_milli,
)
from gate.untyped import as_list, mapping

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
_BOUND_FIELDS: Final = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")
"""The resource lists of a LimitRange item, in the order ValidateLimitRange reads them."""
_POD_DEFAULT = "may not be specified when `type` is 'Pod'"

Bounds = dict[str, tuple[Fraction, str]]
"""One resource list of an item: each resource's stored value and its String()."""


def limit_range_problem(limit_range: Mapping[str, Any]) -> str | None:
    """The API server's refusal of a LimitRange written from ``limit_range``
    (``LimitRange "name" is invalid: <errors>``, as apierrors.NewInvalid words it), or None
    when it takes it. A quantity that does not parse is refused before validation, when the
    object is decoded: named by its field, in fitgate's words."""
    for i, item in enumerate(as_list(mapping(limit_range.get("spec")).get("limits"))):
        for field in _BOUND_FIELDS:
            for name, raw in mapping(mapping(item).get(field)).items():
                try:
                    parse_quantity(raw)
                except QuantityError as exc:
                    return f"spec.limits[{i}].{field}.{name}: {exc}"
    errors = aggregate(str(e) for e in limit_range_errors(limit_range))
    if errors is None:
        return None
    return invalid_object("LimitRange", stored_name(mapping(limit_range.get("metadata"))), errors)


def accepted(limit_range: Mapping[str, Any]) -> bool:
    """Whether the API server creates the LimitRange (:func:`limit_range_problem`)."""
    return limit_range_problem(limit_range) is None


def limit_range_errors(limit_range: Mapping[str, Any]) -> Errors:
    """ValidateLimitRange (``pkg/apis/core/validation/validation.go``), in its order, on the
    items as SetDefaults_LimitRangeItem (:func:`container_defaults`) and
    SetDefaults_ResourceList leave them: the metadata (NameIsDNSSubdomain), then each item's
    type (validateLimitRangeTypeName, once each), resource names, the Pod type's missing
    defaults, the PersistentVolumeClaim type's storage bound, and of each resource min <=
    default request <= default <= max, a ratio of at least 1 and at most max/min, and a
    default equal to the default request for a resource not overcommitted. Quantities
    parse (:func:`limit_range_problem`). Upstream walks each resource list, and the
    resources an item names, in Go's random map order; by resource name here."""
    yield from object_meta(limit_range, "LimitRange")
    seen: set[str] = set()
    for i, raw_item in enumerate(as_list(mapping(limit_range.get("spec")).get("limits"))):
        item, where = mapping(raw_item), f"spec.limits[{i}]"
        kind = item.get("type")
        kind = kind if isinstance(kind, str) else ""
        yield from _type_name(kind, f"{where}.type")
        if kind in seen:
            yield FieldError(f"{where}.type", DUPLICATE, json_quote(kind))
        seen.add(kind)
        yield from _item_errors({**item, **container_defaults(item)}, kind, where)


def _type_name(kind: str, field: str) -> Errors:
    """validateLimitRangeTypeName: a qualified name, and a standard type without a prefix."""
    messages = qualified_name_errors(kind)
    for message in messages:
        yield FieldError(field, INVALID, json_quote(kind), message)
    if not messages and "/" not in kind and kind not in _LIMIT_TYPES:
        detail = "must be a standard limit type or fully qualified"
        yield FieldError(field, INVALID, json_quote(kind), detail)


def _bounds(item: Mapping[str, Any], field: str) -> Bounds:
    """An item's resource list as SetDefaults_ResourceList stores it (:func:`to_milli`)."""
    found: Bounds = {}
    for name, raw in mapping(item.get(field)).items():
        value = to_milli(parse_quantity(raw))
        found[str(name)] = (value, go_quantity_text(value, quantity_format(raw)))
    return found


def _item_errors(item: Mapping[str, Any], kind: str, where: str) -> Errors:
    named = {field: _bounds(item, field) for field in _BOUND_FIELDS}
    listed: tuple[str, ...]
    if kind == POD:  # its defaults are refused, and bound nothing
        named["default"], named["defaultRequest"], listed = {}, {}, ("max", "min")
    else:
        listed = ("max", "min", "default", "defaultRequest")
    for field in listed:
        yield from _resource_names(kind, named[field], f"{where}.{field}")
    if kind == POD:
        for field in ("default", "defaultRequest"):
            if mapping(item.get(field)):
                yield FieldError(f"{where}.{field}", FORBIDDEN, None, _POD_DEFAULT)
    if kind == "PersistentVolumeClaim" and "storage" not in named["min"] | named["max"]:
        detail = "either minimum or maximum storage value is required, but neither was provided"
        yield FieldError(f"{where}.limits", REQUIRED, None, detail)
    ratios = named["maxLimitRequestRatio"]
    yield from _resource_names(kind, ratios, f"{where}.maxLimitRequestRatio")
    for name in sorted(set().union(*named.values())):
        yield from _resource_bounds(name, {field: named[field].get(name) for field in named}, where)


def _resource_names(kind: str, bounds: Bounds, field: str) -> Errors:
    """validateLimitRangeResourceName: a container's resource for a Pod or Container item."""
    for name in sorted(bounds):
        if kind in (POD, CONTAINER):
            yield from resource_name(name, f"{field}[{name}]", pod_level=False)
        else:
            yield from any_resource_name(name, f"{field}[{name}]")


def _resource_bounds(
    name: str, bound: Mapping[str, tuple[Fraction, str] | None], where: str
) -> Errors:
    """ValidateLimitRange's checks of one resource's bounds, in its order."""
    low, high = bound["min"], bound["max"]
    default, request = bound.get("default"), bound.get("defaultRequest")
    ratio = bound["maxLimitRequestRatio"]
    at_request, at_default = f"{where}.defaultRequest[{name}]", f"{where}.default[{name}]"
    if low and high and low[0] > high[0]:
        detail = f"min value {low[1]} is greater than max value {high[1]}"
        yield FieldError(f"{where}.min[{name}]", INVALID, json_quote(low[1]), detail)
    if request and low and low[0] > request[0]:
        detail = f"min value {low[1]} is greater than default request value {request[1]}"
        yield FieldError(at_request, INVALID, json_quote(request[1]), detail)
    if request and high and request[0] > high[0]:
        detail = f"default request value {request[1]} is greater than max value {high[1]}"
        yield FieldError(at_request, INVALID, json_quote(request[1]), detail)
    if request and default and request[0] > default[0]:
        detail = f"default request value {request[1]} is greater than default limit value "
        yield FieldError(at_request, INVALID, json_quote(request[1]), detail + default[1])
    if default and low and low[0] > default[0]:  # upstream shows the min as the bad value
        detail = f"min value {low[1]} is greater than default value {default[1]}"
        yield FieldError(at_default, INVALID, json_quote(low[1]), detail)
    if default and high and default[0] > high[0]:  # and the max here
        detail = f"default value {default[1]} is greater than max value {high[1]}"
        yield FieldError(at_default, INVALID, json_quote(high[1]), detail)
    at_ratio = f"{where}.maxLimitRequestRatio[{name}]"
    if ratio and ratio[0] < 1:
        detail = f"ratio {ratio[1]} is less than 1"
        yield FieldError(at_ratio, INVALID, json_quote(ratio[1]), detail)
    if ratio and low and high:
        value, most = _ratio_against(ratio[0], low[0], high[0])
        if value > most:
            detail = f"ratio {ratio[1]} is greater than max/min = {_go_float(most)}"
            yield FieldError(at_ratio, INVALID, json_quote(ratio[1]), detail)
    if default and request and default[0] != request[0] and not overcommit_allowed(name):
        detail = (
            f"default value {default[1]} must equal to defaultRequest value {request[1]} in {name}"
        )
        yield FieldError(at_request, INVALID, json_quote(request[1]), detail)


def _ratio_against(ratio: Fraction, low: Fraction, high: Fraction) -> tuple[float, float]:
    """The ratio and max/min as ValidateLimitRange compares them in float64: in
    milli-units while the Value() of each is below resource.MaxMilliValue, else in whole
    ones; a zero min gives an infinity, or NaN over a zero max, as Go's division does."""
    if all(whole_value(v) < _MAX_MILLI_VALUE for v in (ratio, low, high)):
        value, top, bottom = float(milli_value(ratio)) / 1000, milli_value(high), milli_value(low)
    else:
        value, top, bottom = float(whole_value(ratio)), whole_value(high), whole_value(low)
    if bottom == 0:
        return value, math.nan if top == 0 else math.copysign(math.inf, top)
    return value, float(top) / float(bottom)


def _go_float(value: float) -> str:
    """fmt's ``%f``: six decimals, and Go's words for infinities and NaN."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return f"{value:f}"


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
