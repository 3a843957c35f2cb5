"""Pure matching semantics the filters call: tolerations against taints, node selector
terms against node labels and fields.

Upstream: ``k8s.io/api/core/v1/toleration.go`` (ToleratesTaint),
``k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go`` and
``k8s.io/apimachinery/pkg/labels/selector.go`` (Requirement.Matches, NewRequirement).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.k8s.names import label_key_ok, label_value_ok
from gate.model import Taint

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
FILTERED_EFFECTS = frozenset({NO_SCHEDULE, NO_EXECUTE})
TAINT_EFFECTS = frozenset({NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE})
"""v1.TaintEffect: every effect a taint may carry."""

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_GO_INT = re.compile(r"[+-]?[0-9]+")


def tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    """ToleratesTaint: effect (empty = all), key (empty = all), then the operator.

    ``Lt``/``Gt`` need the alpha gate TaintTolerationComparisonOperators, off by
    default, so they never match here; unknown operators never match.
    """
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    key = toleration.get("key") or ""
    if key and key != taint.key:
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return scalar_text(toleration.get("value")) == taint.value
    return operator == "Exists"


def first_untolerated(
    taints: Iterable[Taint],
    tolerations: Sequence[Mapping[str, Any]],
    effects: frozenset[str] = FILTERED_EFFECTS,
) -> Taint | None:
    """FindMatchingUntoleratedTaint: the first taint, in node order, with a filtered
    effect that no toleration tolerates.

    Trying every toleration on every taint costs their product (10^6 taints against 1,001
    tolerations: minutes), so past a few tolerations they are indexed once
    (:class:`TolerationIndex`) and each taint costs a few look-ups. Both ways give the same
    taint (a property test holds them equal).
    """
    if len(tolerations) < _INDEXED_FROM:
        for taint in taints:
            if taint.effect in effects and not any(tolerates(t, taint) for t in tolerations):
                return taint
        return None
    index = toleration_index(tolerations)  # once per node: linear in the tolerations
    for taint in taints:
        if taint.effect in effects and not index.tolerates(taint):
            return taint
    return None


_INDEXED_FROM = 8
"""Tolerations from which indexing them beats trying each one on each taint."""


@dataclass(frozen=True, slots=True)
class TolerationIndex:
    """Tolerations as sets, for ToleratesTaint by look-up: ``exists`` holds the (key,
    effect) of every ``Exists`` toleration, ``equal`` the (key, effect, value) of every
    ``Equal`` (or empty-operator) one; an empty key or effect is a wildcard, so a taint is
    tolerated when one of its four (key or "", effect or "") pairs is found. A toleration
    whose key or effect is set but not a string, or whose operator is another one, matches
    no taint and is left out, as :func:`tolerates` would refuse it each time."""

    exists: frozenset[tuple[str, str]]
    equal: frozenset[tuple[str, str, str]]

    def tolerates(self, taint: Taint) -> bool:
        for key in ("", taint.key):
            for effect in ("", taint.effect):
                if (key, effect) in self.exists or (key, effect, taint.value) in self.equal:
                    return True
        return False


def toleration_index(tolerations: Sequence[Mapping[str, Any]]) -> TolerationIndex:
    exists: set[tuple[str, str]] = set()
    equal: set[tuple[str, str, str]] = set()
    for toleration in tolerations:
        key = toleration.get("key") or ""
        effect = toleration.get("effect") or ""
        if not isinstance(key, str) or not isinstance(effect, str):
            continue  # set, and never equal to a taint's text
        operator = toleration.get("operator") or ""
        if operator in ("", "Equal"):
            equal.add((key, effect, scalar_text(toleration.get("value"))))
        elif operator == "Exists":
            exists.add((key, effect))
    return TolerationIndex(frozenset(exists), frozenset(equal))


def scalar_text(value: object) -> str:
    """A YAML scalar as the API server would hold it as a string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_go_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): a sign and leading zeros are fine, nothing else."""
    if not _GO_INT.fullmatch(text):
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def parses_as_int64(text: str) -> bool:
    """strconv.ParseInt(text, 10, 64) succeeds."""
    return _parse_go_int64(text) is not None


LabelTest = Callable[[Mapping[str, str]], bool]


def _label_requirement(expr: Mapping[str, Any]) -> LabelTest | None:
    """labels.NewRequirement + Requirement.Matches; None when the requirement is invalid
    (which makes its whole term match nothing)."""
    key = scalar_text(expr.get("key"))
    operator = expr.get("operator")
    raw_values = expr.get("values") or []
    if not isinstance(raw_values, list) or not label_key_ok(key):
        return None
    values = [scalar_text(v) for v in raw_values]
    if not all(label_value_ok(v) for v in values):
        return None
    if operator in ("In", "NotIn"):
        if not values:
            return None
        allowed = frozenset(values)
        if operator == "In":
            return lambda labels: key in labels and labels[key] in allowed
        return lambda labels: key not in labels or labels[key] not in allowed
    if operator in ("Exists", "DoesNotExist"):
        if values:
            return None
        if operator == "Exists":
            return lambda labels: key in labels
        return lambda labels: key not in labels
    if operator in ("Gt", "Lt") and len(values) == 1:
        bound = _parse_go_int64(values[0])
        if bound is None:
            return None
        greater = operator == "Gt"
        return lambda labels: _compare(labels.get(key), bound, greater)
    return None


def _compare(label: str | None, bound: int, greater: bool) -> bool:
    number = None if label is None else _parse_go_int64(label)
    if number is None:
        return False
    return number > bound if greater else number < bound


FieldTest = Callable[[str], bool]


def _field_requirement(expr: Mapping[str, Any]) -> FieldTest | None:
    """nodeSelectorRequirementsAsFieldSelector: exactly one value, In or NotIn. The node's
    only field is ``metadata.name``; any other key reads as the empty string."""
    values = expr.get("values") or []
    if not isinstance(values, list) or len(values) != 1:
        return None
    key, wanted = scalar_text(expr.get("key")), scalar_text(values[0])
    operator = expr.get("operator")
    if operator not in ("In", "NotIn"):
        return None
    equal = operator == "In"
    return lambda name: ((name if key == "metadata.name" else "") == wanted) is equal


@dataclass(frozen=True, slots=True)
class SelectorTerm:
    """One parsed nodeSelectorTerm: expressions and fields ANDed."""

    labels: tuple[LabelTest, ...]
    fields: tuple[FieldTest, ...]

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        return all(t(labels) for t in self.labels) and all(f(name) for f in self.fields)


def parse_terms(terms: object) -> tuple[SelectorTerm, ...]:
    """NewLazyErrorNodeSelector: empty terms and terms with a parse error are dropped, so
    they match nothing; the remaining terms are ORed."""
    parsed: list[SelectorTerm] = []
    for term in terms if isinstance(terms, list) else []:
        if not isinstance(term, Mapping):
            continue
        exprs = term.get("matchExpressions") or []
        fields = term.get("matchFields") or []
        if not isinstance(exprs, list) or not isinstance(fields, list) or not (exprs or fields):
            continue
        label_tests = [_label_requirement(e) if isinstance(e, Mapping) else None for e in exprs]
        field_tests = [_field_requirement(f) if isinstance(f, Mapping) else None for f in fields]
        if any(t is None for t in label_tests) or any(t is None for t in field_tests):
            continue
        parsed.append(
            SelectorTerm(
                labels=tuple(t for t in label_tests if t is not None),
                fields=tuple(t for t in field_tests if t is not None),
            )
        )
    return tuple(parsed)


def required_terms(spec: Mapping[str, Any]) -> list[Any] | None:
    """The raw ``requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms``, or None
    when the pod has no required node affinity."""
    affinity = spec.get("affinity") or {}
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    if not isinstance(node_affinity, Mapping):
        return None
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, Mapping):
        return None
    terms = required.get("nodeSelectorTerms")
    return terms if isinstance(terms, list) else []


def preferred_node_terms(spec: Mapping[str, Any]) -> tuple[tuple[int, SelectorTerm], ...]:
    """``preferredDuringSchedulingIgnoredDuringExecution`` as (weight, term): terms of
    weight 0 are left out (NewPreferredSchedulingTerms), and a term that does not parse
    matches no node (where scores run, NodeAffinity's PreScore fails on it instead:
    ``gate.scheduler.plugins.nodeaffinity.preferred_terms_error``)."""
    affinity = spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    raw = (
        node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
        if isinstance(node_affinity, Mapping)
        else None
    )
    found: list[tuple[int, SelectorTerm]] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        weight = item.get("weight")
        if not isinstance(weight, int) or isinstance(weight, bool) or weight == 0:
            continue
        for term in parse_terms([item.get("preference")]):
            found.append((weight, term))
    return tuple(found)


def name_narrowing(terms: Sequence[Any]) -> frozenset[str] | None:
    """NodeAffinity PreFilter: when every term pins ``metadata.name In [...]``, the union
    over terms of each term's intersection of pinned names; None when no narrowing."""
    if not terms:
        return None
    union: set[str] = set()
    for term in terms:
        fields = term.get("matchFields") if isinstance(term, Mapping) else None
        names: set[str] | None = None
        for req in fields if isinstance(fields, list) else []:
            if (
                isinstance(req, Mapping)
                and req.get("key") == "metadata.name"
                and req.get("operator") == "In"
            ):
                # Missing, null and [] are all Go's empty slice: a term that pins nothing.
                values = req.get("values")
                pinned = {scalar_text(v) for v in values} if isinstance(values, list) else set()
                names = pinned if names is None else names & pinned
        if names is None:
            return None
        union |= names
    return frozenset(union)
