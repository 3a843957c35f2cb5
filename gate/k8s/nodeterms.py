"""A pod's node affinity as written, for a reader with rules of its own.

The scheduler parses the required terms into matchers (:func:`gate.k8s.matching.parse_terms`);
Karpenter reads the same terms, and the preferred ones, as requirements it intersects with
its NodePools' (``scheduling.NewNodeSelectorRequirements``, preferences.go ``Relax``). This
keeps each ``matchExpressions`` entry as written, parsed once with the pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Expression:
    """One ``matchExpressions`` entry: its key, operator and values as text."""

    key: str
    operator: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PreferredTerm:
    """One preferred term: its weight (0 when not an integer) and its preference's
    expressions (None when the preference is not an object)."""

    weight: int
    expressions: tuple[Expression, ...] | None


@dataclass(frozen=True, slots=True)
class NodeAffinityTerms:
    """The required nodeSelectorTerms' expressions and the preferred terms, in order;
    entries that are not objects are passed over. ``fields``: the positions of the required
    terms that list ``matchFields`` (an empty list is not stored: the API server omits it)."""

    required: tuple[tuple[Expression, ...], ...] = ()
    preferred: tuple[PreferredTerm, ...] = ()
    fields: frozenset[int] = frozenset()


def _expressions(term: Mapping[str, Any]) -> tuple[Expression, ...]:
    found = []
    for expr in term.get("matchExpressions") or []:
        if isinstance(expr, Mapping) and isinstance(expr.get("key"), str):
            values = tuple(str(v) for v in expr.get("values") or [])
            found.append(Expression(expr["key"], str(expr.get("operator", "")), values))
    return tuple(found)


def _weight(term: Mapping[str, Any]) -> int:
    weight = term.get("weight")
    return weight if isinstance(weight, int) else 0


def written_node_affinity(spec: Mapping[str, Any]) -> NodeAffinityTerms:
    """The pod spec's node affinity terms as written."""
    affinity = spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    if not isinstance(node, Mapping):
        return NodeAffinityTerms()
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    preferred = node.get("preferredDuringSchedulingIgnoredDuringExecution")
    required_terms = [t for t in terms or [] if isinstance(t, Mapping)]
    return NodeAffinityTerms(
        tuple(_expressions(t) for t in required_terms),
        tuple(
            PreferredTerm(
                _weight(t),
                _expressions(p) if isinstance(p := t.get("preference"), Mapping) else None,
            )
            for t in preferred or []
            if isinstance(t, Mapping)
        ),
        frozenset(i for i, t in enumerate(required_terms) if t.get("matchFields")),
    )
