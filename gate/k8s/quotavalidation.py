"""Whether the API server creates a ResourceQuota, and its words when it does not.

Upstream (v1.34): ``pkg/apis/core/validation/validation.go`` ValidateResourceQuota
(ValidateObjectMeta with NameIsDNSSubdomain, then ValidateResourceQuotaSpec:
ValidateResourceQuotaResourceName and ValidateResourceQuantityValue on each ``spec.hard``
entry, validateResourceQuotaScopes, validateScopeSelector); the sets it reads are
``pkg/apis/core/helper/helpers.go``'s. The create strategy clears ``status`` first
(PrepareForCreate), so a run's quota is held to its ``spec`` alone, after
SetDefaults_ResourceList rounded each quantity up to a whole number of thousandths. A run's
quota of the namespace and name of one the cluster holds updates it
(ValidateResourceQuotaUpdate), which may not change its ``spec.scopes``.

``spec.hard`` is a Go map, which validation walks in no set order: a quota with errors on
several of its resources lists them here by resource name; upstream's order between them
varies from one request to the next.

>>> body = {"metadata": {"name": "q"}, "spec": {"hard": {"pods": "1.5"}}}
>>> print(quota_problem(body))
ResourceQuota "q" is invalid: spec.hard[pods]: Invalid value: "1500m": must be an integer
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from gate.errors import QuantityError
from gate.k8s.quantity import NEGATIVE, go_quantity_text, parse_quantity, quantity_format
from gate.k8s.quota import (
    BEST_EFFORT,
    CROSS_NAMESPACE,
    DOES_NOT_EXIST,
    EXISTS,
    IN,
    NOT_BEST_EFFORT,
    NOT_IN,
    NOT_TERMINATING,
    PRIORITY_CLASS,
    TERMINATING,
)
from gate.k8s.resources import HUGEPAGES
from gate.k8s.validation import (
    BAD_OPERATOR,
    INVALID,
    REQUIRED,
    STANDARD_RESOURCES,
    Errors,
    FieldError,
    aggregate,
    invalid,
    invalid_object,
    is_integer_resource,
    is_standard_resource,
    json_quote,
    object_meta,
    qualified_name_errors,
    stored_name,
    to_milli,
)
from gate.untyped import as_list, mapping

VOLUME_ATTRIBUTES_CLASS: Final = "VolumeAttributesClass"
SCOPES: Final = frozenset(
    {
        TERMINATING,
        NOT_TERMINATING,
        BEST_EFFORT,
        NOT_BEST_EFFORT,
        PRIORITY_CLASS,
        VOLUME_ATTRIBUTES_CLASS,
        CROSS_NAMESPACE,
    }
)
"""IsStandardResourceQuotaScope: standardResourceQuotaScopes and CrossNamespacePodAffinity."""

_REQUESTS_HUGEPAGES: Final = "requests." + HUGEPAGES
_QUOTA_RESOURCES: Final = STANDARD_RESOURCES - {"storage"}
"""standardQuotaResources (IsStandardQuotaResourceName, with the hugepages prefixes)."""

_POD_COUNT: Final = frozenset({"pods"})
_POD_COMPUTE: Final = frozenset(
    {"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
)
_CLAIMS: Final = frozenset({"persistentvolumeclaims", "requests.storage"})
_CONFLICTS: Final = ((BEST_EFFORT, NOT_BEST_EFFORT), (TERMINATING, NOT_TERMINATING))
"""invalidScopePairs, in their order."""
_EXISTS_ONLY: Final = frozenset(
    {BEST_EFFORT, NOT_BEST_EFFORT, TERMINATING, NOT_TERMINATING, CROSS_NAMESPACE}
)
_EXISTS_ONLY_DETAIL: Final = (
    "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
    "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
    "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
)


def _quota_resource(name: str) -> bool:
    """IsStandardQuotaResourceName."""
    return name in _QUOTA_RESOURCES or name.startswith((HUGEPAGES, _REQUESTS_HUGEPAGES))


def scope_fits(scope: str, name: str) -> bool:
    """IsResourceQuotaScopeValidForResource: what a scope may limit (an unknown scope, all)."""
    if scope == BEST_EFFORT:
        return name in _POD_COUNT
    if scope in (TERMINATING, NOT_TERMINATING, NOT_BEST_EFFORT, PRIORITY_CLASS, CROSS_NAMESPACE):
        return name in _POD_COUNT or name in _POD_COMPUTE
    if scope == VOLUME_ATTRIBUTES_CLASS:
        return name in _CLAIMS
    return True


def quota_problem(body: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> str | None:
    """The API server's refusal of a ResourceQuota written from ``body``
    (``ResourceQuota "name" is invalid: <errors>``, as apierrors.NewInvalid words it), or
    None when it takes it. ``old``: the quota of its namespace and name the cluster holds,
    which ``body`` then updates (ValidateResourceQuotaUpdate: its metadata's labels and
    annotations, the spec as on create, then the same ``spec.scopes``, compared as sets).
    A quantity that does not parse is refused before validation, when the object is
    decoded: named by its field, in fitgate's words."""
    spec = mapping(body.get("spec"))
    hard = mapping(spec.get("hard"))
    for name, raw in hard.items():
        try:
            parse_quantity(raw)
        except QuantityError as exc:
            return f"spec.hard.{name}: {exc}"
    errors = aggregate(str(e) for e in _quota(body, spec, hard, old))
    if errors is None:
        return None
    return invalid_object("ResourceQuota", stored_name(mapping(body.get("metadata"))), errors)


def quota_key(body: Mapping[str, Any]) -> tuple[str, str]:
    """A quota's namespace (``default`` when it names none, as a run's is created) and
    name."""
    metadata = mapping(body.get("metadata"))
    return str(metadata.get("namespace") or "default"), str(metadata.get("name"))


@dataclass(slots=True)
class QuotaWrites:
    """The quotas the API server holds, by :func:`quota_key`, as a run's are written one
    after another: each one it takes creates or updates the quota of its key."""

    held: dict[tuple[str, str], Mapping[str, Any]]

    @classmethod
    def over(cls, recorded: Iterable[Mapping[str, Any]]) -> QuotaWrites:
        return cls({quota_key(item): item for item in recorded})

    def write(self, body: Mapping[str, Any]) -> str | None:
        """The API server's refusal of ``body`` (:func:`quota_problem`), or None when it
        takes it."""
        key = quota_key(body)
        problem = quota_problem(body, self.held.get(key))
        if problem is None:
            self.held[key] = body
        return problem


def _quota(
    body: Mapping[str, Any],
    spec: Mapping[str, Any],
    hard: Mapping[str, Any],
    old: Mapping[str, Any] | None,
) -> Errors:
    yield from object_meta(body, "ResourceQuota" if old is None else None)
    entries = sorted(((str(name), raw) for name, raw in hard.items()), key=lambda e: e[0])
    names = [name for name, _ in entries]
    for name, raw in entries:
        yield from _resource_name(name, f"spec.hard[{name}]")
        yield from _quantity_value(name, raw, f"spec.hard[{name}]")
    yield from _scopes(spec, names)
    selector = spec.get("scopeSelector")
    if selector is not None:
        yield from _selector(spec, mapping(selector), names)
    if old is not None:
        held = {str(s) for s in as_list(mapping(old.get("spec")).get("scopes"))}
        if held != {str(s) for s in as_list(spec.get("scopes"))}:
            shown = _json_strings(spec.get("scopes"))
            yield FieldError("spec.scopes", INVALID, shown, "field is immutable")


def _resource_name(name: str, field: str) -> Errors:
    """ValidateResourceQuotaResourceName: validateResourceName (a qualified name; an
    unqualified one standard), then an unqualified name standard for quota. The name is a
    ResourceName, which ErrorBody prints as json.Marshal does."""
    shown = json_quote(name)
    messages = qualified_name_errors(name)
    for message in messages:
        yield FieldError(field, INVALID, shown, message)
    unqualified = "/" not in name
    if not messages and unqualified and not is_standard_resource(name):
        yield FieldError(
            field, INVALID, shown, "must be a standard resource type or fully qualified"
        )
    if unqualified and not _quota_resource(name):
        yield FieldError(field, INVALID, shown, "must be a standard resource for quota")


def _quantity_value(name: str, raw: object, field: str) -> Errors:
    """ValidateResourceQuantityValue on the quantity as defaulted: not negative (its
    String()), and whole for an integer resource (the Quantity, which json.Marshal prints
    as its String() quoted)."""
    value = to_milli(parse_quantity(raw))
    shown = go_quantity_text(value, quantity_format(raw))
    if value < 0:
        yield invalid(field, shown, NEGATIVE)
    if is_integer_resource(name) and (value * 1000) % 1000 != 0:
        yield FieldError(field, INVALID, json_quote(shown), "must be an integer")


def _json_strings(raw: object) -> str:
    """json.Marshal of a ``[]string`` (or of a list of a string type): ``null`` for nil."""
    if raw is None:
        return "null"
    return "[" + ",".join(json_quote(str(v)) for v in as_list(raw)) + "]"


def _scopes(spec: Mapping[str, Any], names: Iterable[str]) -> Errors:
    """validateResourceQuotaScopes: each scope known and fit for every standard resource
    the quota limits (an error for each resource that is not, the same words each time),
    then no conflicting pair."""
    scopes = [str(s) for s in as_list(spec.get("scopes"))]
    if not scopes:
        return
    shown = _json_strings(spec.get("scopes"))
    standard = [n for n in names if _quota_resource(n)]
    for scope in scopes:
        if scope not in SCOPES:
            yield FieldError("spec.scopes", INVALID, shown, "unsupported scope")
        for name in standard:
            if not scope_fits(scope, name):
                detail = "unsupported scope applied to resource"
                yield FieldError("spec.scopes", INVALID, shown, detail)
    yield from _conflicts(set(scopes), "spec.scopes", shown)


def _conflicts(scopes: set[str], field: str, shown: str) -> Errors:
    for pair in _CONFLICTS:
        if scopes.issuperset(pair):
            yield FieldError(field, INVALID, shown, "conflicting scopes")


def _json_selector(selector: Mapping[str, Any]) -> str:
    """json.Marshal of the internal ``*core.ScopeSelector``, whose fields carry no json
    tags: printed by their Go names."""
    expressions = selector.get("matchExpressions")
    if expressions is None:
        return '{"MatchExpressions":null}'
    shown = []
    for raw in as_list(expressions):
        item = mapping(raw)
        shown.append(
            f'{{"ScopeName":{json_quote(_text(item.get("scopeName")))},'
            f'"Operator":{json_quote(_text(item.get("operator")))},'
            f'"Values":{_json_strings(item.get("values"))}}}'
        )
    return '{"MatchExpressions":[' + ",".join(shown) + "]}"


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _selector(spec: Mapping[str, Any], selector: Mapping[str, Any], names: Iterable[str]) -> Errors:
    """validateScopedResourceSelectorRequirement: each expression's scope known and fit for
    every standard resource the quota limits, ``Exists`` alone for the scopes that take no
    value, values for ``In`` and ``NotIn`` and none for ``Exists`` and ``DoesNotExist``, a
    known operator; then no conflicting pair (printed with ``spec.scopes``, as upstream
    prints it). The fields are named without an index, as upstream names them."""
    field = "spec.scopeSelector.matchExpressions"
    standard = [n for n in names if _quota_resource(n)]
    seen: set[str] = set()
    for raw in as_list(selector.get("matchExpressions")):
        item = mapping(raw)
        scope, operator = _text(item.get("scopeName")), _text(item.get("operator"))
        values = item.get("values")
        if scope not in SCOPES:
            yield FieldError(f"{field}.scopeName", INVALID, json_quote(scope), "unsupported scope")
        for name in standard:
            if not scope_fits(scope, name):
                detail = "unsupported scope applied to resource"
                yield FieldError(field, INVALID, _json_selector(selector), detail)
        if scope in _EXISTS_ONLY and operator != EXISTS:
            yield FieldError(
                f"{field}.operator", INVALID, json_quote(operator), _EXISTS_ONLY_DETAIL
            )
        if operator in (IN, NOT_IN):
            if not as_list(values):
                detail = (
                    "must be at least one value when `operator` is 'In' or 'NotIn' for scope "
                    "selector"
                )
                yield FieldError(f"{field}.values", REQUIRED, None, detail)
        elif operator in (EXISTS, DOES_NOT_EXIST):
            if as_list(values):
                detail = (
                    "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope "
                    "selector"
                )
                yield FieldError(f"{field}.values", INVALID, _json_strings(values), detail)
        else:
            yield FieldError(f"{field}.operator", INVALID, json_quote(operator), BAD_OPERATOR)
        seen.add(scope)
    yield from _conflicts(seen, field, _json_strings(spec.get("scopes")))
