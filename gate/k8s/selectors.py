"""Label selectors as the inter-pod filters read them: parsed once into hashable values.

Upstream: ``k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`` (LabelSelectorAsSelector),
``k8s.io/apimachinery/pkg/labels/selector.go`` (NewRequirement, Requirement.Matches,
internalSelector.Empty) and ``pkg/registry/core/pod/strategy.go`` (matchLabelKeys /
mismatchLabelKeys merged into the selector when the API server creates the pod).

The three shapes of a ``labelSelector`` field differ, and the filters depend on it:

>>> parse_selector(None).matches({"app": "web"})  # null: matches nothing
False
>>> parse_selector({}).matches({})  # empty: matches everything
True
>>> parse_selector({"matchLabels": {"app": "web"}}).matches({"app": "web", "tier": "1"})
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gate.k8s.matching import scalar_text
from gate.k8s.names import label_key_ok, label_value_ok

IN, NOT_IN, EXISTS, DOES_NOT_EXIST, EQUALS = "In", "NotIn", "Exists", "DoesNotExist", "="
_OPERATORS = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST})
_EQUALS = frozenset({EQUALS})


class SelectorError(ValueError):
    """A label selector the API server refuses (LabelSelectorAsSelector fails on it)."""


@dataclass(frozen=True, slots=True)
class Requirement:
    """One labels.Requirement: ``key`` ``operator`` ``values``."""

    key: str
    operator: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Requirement.Matches: NotIn and DoesNotExist also match a pod without the key."""
        present = self.key in labels
        if self.operator in (IN, EQUALS):
            return present and labels[self.key] in self.values
        if self.operator == NOT_IN:
            return not present or labels[self.key] not in self.values
        if self.operator == EXISTS:
            return present
        return not present


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A parsed selector. ``requirements`` is None for the null selector (labels.Nothing),
    empty for the empty one (labels.Everything); otherwise every requirement must hold."""

    requirements: tuple[Requirement, ...] | None

    @property
    def nothing(self) -> bool:
        return self.requirements is None

    @property
    def empty(self) -> bool:
        """labels.Selector.Empty(): true for Everything only (Nothing is not "empty")."""
        return self.requirements == ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.requirements is None:
            return False
        return all(r.matches(labels) for r in self.requirements)

    def keys(self) -> frozenset[str]:
        return frozenset(r.key for r in self.requirements or ())


NOTHING = LabelSelector(None)


def _requirement(
    key: object, operator: object, values: object, where: str, operators: frozenset[str]
) -> Requirement:
    """labels.NewRequirement: a valid key, the operator's number of values, valid values.
    ``operators``: those the field may spell (LabelSelectorAsSelector gives matchLabels
    Equals and matchExpressions In, NotIn, Exists and DoesNotExist alone)."""
    text_key = scalar_text(key)
    if not label_key_ok(text_key):
        raise SelectorError(f"{where}: invalid label key {text_key!r}")
    if operator not in operators:
        raise SelectorError(f"{where}: {operator!r} is not a valid label selector operator")
    if values is not None and not isinstance(values, list):
        raise SelectorError(f"{where}: values must be a list")
    texts = [scalar_text(v) for v in values or []]
    if operator in (IN, NOT_IN) and not texts:
        raise SelectorError(f"{where}: for 'in', 'notin' operators, values set can't be empty")
    if operator in (EXISTS, DOES_NOT_EXIST) and texts:
        raise SelectorError(f"{where}: values set must be empty for exists and does not exist")
    for text in texts:
        if not label_value_ok(text):
            raise SelectorError(f"{where}: invalid label value {text!r}")
    return Requirement(key=text_key, operator=str(operator), values=frozenset(texts))


def parse_selector(
    raw: object, extra: Iterable[Requirement] = (), where: str = "labelSelector"
) -> LabelSelector:
    """LabelSelectorAsSelector, with ``extra`` requirements appended (matchLabelKeys).

    Raises :class:`SelectorError` for what the API server refuses."""
    if raw is None:
        return NOTHING
    if not isinstance(raw, Mapping):
        raise SelectorError(f"{where}: must be an object")
    match_labels = raw.get("matchLabels") or {}
    expressions = raw.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping) or not isinstance(expressions, list):
        raise SelectorError(f"{where}: matchLabels must be a map, matchExpressions a list")
    requirements = [
        _requirement(key, EQUALS, [value], f"{where}.matchLabels", _EQUALS)
        for key, value in match_labels.items()
    ]
    for expression in expressions:
        if not isinstance(expression, Mapping):
            raise SelectorError(f"{where}.matchExpressions: each item must be an object")
        requirements.append(
            _requirement(
                expression.get("key"),
                expression.get("operator"),
                expression.get("values"),
                f"{where}.matchExpressions",
                _OPERATORS,
            )
        )
    requirements.extend(extra)
    return LabelSelector(tuple(requirements))


def label_key_requirements(
    keys: object, operator: str, pod_labels: Mapping[str, str]
) -> tuple[Requirement, ...]:
    """applyLabelKeysToLabelSelector: ``key In [value]`` (matchLabelKeys) or ``key NotIn
    [value]`` (mismatchLabelKeys) for each key the pod's labels carry; a key they lack
    is ignored (the labels its controller adds, such as a Deployment's
    ``pod-template-hash``, are among them: :mod:`gate.k8s.podlabels`)."""
    if not isinstance(keys, list):
        return ()
    found = []
    for key in keys:
        text = scalar_text(key)
        if text in pod_labels:
            found.append(Requirement(text, operator, frozenset({pod_labels[text]})))
    return tuple(found)


def text_labels(value: Any) -> dict[str, str]:
    """A labels map as the API server stores it: every value a string."""
    if not isinstance(value, Mapping):
        return {}
    return {str(k): scalar_text(v) for k, v in value.items()}
