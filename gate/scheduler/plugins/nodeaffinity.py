"""NodeAffinity: the pod's nodeSelector and required node affinity.

Upstream ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go``: the
nodeSelector ANDed with the required terms; the terms ORed, a term's requirements ANDed.
Its PreFilter narrows the nodes when every term names nodes (``matchFields
metadata.name``): nodes outside that result are rejected before any Filter runs
(schedule_one.go findNodesThatFitPod), and terms whose names exclude each other reject the
pod outright.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from gate.k8s.matching import SelectorTerm, parses_as_int64
from gate.k8s.nodeterms import Expression, PreferredTerm
from gate.k8s.validation import invalid, label_value_errors, not_supported
from gate.k8s.version import Dialect
from gate.model import NODE_AFFINITY, Cause, Family, FieldPath, NodeView, Rule, Term
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.nodeindex import NodeIndex, lowest
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import (
    UNRESOLVABLE,
    Parts,
    Plugin,
    Rejection,
    indexed,
    the_pod,
)
from gate.scheduler.framework.scores import ScorePlugin, Workload, default_normalize

# nodeaffinity/node_affinity.go ErrReasonPod, errReasonConflict
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_AFFINITY_CONFLICT = "pod affinity terms conflict"
# framework/types.go, schedule_one.go: nodes outside a PreFilterResult
REASON_NARROWED = "node(s) didn't satisfy plugin(s) [NodeAffinity]"

# node_affinity.go PreFilter: required terms whose name pins exclude each other
AFFINITY_CONFLICT = Rejection(NODE_AFFINITY, UNRESOLVABLE, (REASON_AFFINITY_CONFLICT,))
# schedule_one.go findNodesThatFitPod: a node outside NodeAffinity's PreFilterResult.
# Upstream's status names no plugin; its reason and UnschedulablePlugins name NodeAffinity.
NARROWED = Rejection(NODE_AFFINITY, UNRESOLVABLE, (REASON_NARROWED,))

SELECTOR_RULE = Rule(
    Family.SELECTOR,
    "NodeSelectorMismatch",
    "No node matches the pod's nodeSelector, node affinity or nodeName",
    "Match a label (or name) the cluster's nodes carry, or add nodes that carry it.",
)
"""The rule of the selector family: NodeName's too."""


def node_affinity(pod: PodProfile, node: NodeView, dialect: Dialect) -> Rejection | None:
    """nodeSelector ANDed with required affinity; terms ORed, a term's requirements ANDed.
    A pod whose name pins conflict has the PreFilter's status on every node."""
    if _conflict(pod) is not None:
        return AFFINITY_CONFLICT
    labels = node.labels
    selector_ok = all(labels.get(k) == v for k, v in pod.node_selector.items())
    terms = pod.affinity_terms
    if selector_ok and (terms is None or any(t.matches(labels, node.name) for t in terms)):
        return None
    return Rejection(NODE_AFFINITY, UNRESOLVABLE, (REASON_AFFINITY,))


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """The PreFilter's narrowing of a pod's nodes by name: ``names`` the nodes it keeps,
    None for every node."""

    names: frozenset[str] | None

    @property
    def rejection(self) -> Rejection | None:
        """The PreFilter's own rejection, when the terms' names exclude each other."""
        return AFFINITY_CONFLICT if self.names is not None and not self.names else None

    def outside(self, node: NodeView) -> Rejection | None:
        """The rejection of a node the result leaves out."""
        return NARROWED if self.names is not None and node.name not in self.names else None


def pre_filter_result(pod: PodProfile) -> PreFilterResult:
    return PreFilterResult(pod.names)


def _conflict(pod: PodProfile) -> Rejection | None:
    """The PreFilter's own rejection. RunPreFilterPlugins stops at the first
    UnschedulableAndUnresolvable status in the profile's order, so it comes before a later
    plugin's (a volume plugin's missing claim). A DaemonSet's pod has none: its controller
    replaces the template's required terms with its own pin, and judges the template's
    terms by matching them alone (nodeShouldRunDaemonPod)."""
    if pod.names is None or pod.pinned:  # the common case, asked of every node: no pins
        return None
    return pre_filter_result(pod).rejection


def _affinity_parts(index: NodeIndex, pod: PodProfile, dialect: Dialect, among: int) -> Parts:
    """Nodes alike in every label the pod's selector and required terms read. Node names
    (``matchFields``) are not among them: such pods are evaluated node by node."""
    nodes = index.nodes
    for part in index.label_parts(pod.label_keys, among):
        yield part, node_affinity(pod, nodes[lowest(part)], dialect)


def _selector_and_terms(pod: PodProfile, cluster: Cluster) -> Hashable:
    return (tuple(pod.node_selector.items()), pod.written_terms)


def _asks_nothing(pod: PodProfile) -> bool:
    return not pod.node_selector and pod.affinity_terms is None


def _refined(cause: Cause, pod: PodProfile, node: NodeView) -> Cause:
    """The nodeSelector when the node fails it, else the affinity term at fault when there
    is only one."""
    if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
        return replace(cause, term=Term.NODE_SELECTOR)
    single = pod.affinity_terms is not None and len(pod.affinity_terms) == 1
    return replace(cause, index=0 if single else None)


_NODE_TERMS: FieldPath = (
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms",
)


def _fields(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """``nodeSelector``; or the ``nodeSelectorTerms`` entry when one term is at fault, else
    the terms."""
    if cause.term is Term.NODE_SELECTOR:
        return [("nodeSelector",)]
    return [*indexed(_NODE_TERMS, cause.index), ("affinity", "nodeAffinity")]


PLUGIN: Plugin[PodProfile] = Plugin(
    NODE_AFFINITY,
    Family.SELECTOR,
    Term.NODE_AFFINITY,
    SELECTOR_RULE,
    key=_selector_and_terms,
    prepare=the_pod,
    check=node_affinity,
    reasons=(REASON_AFFINITY, REASON_AFFINITY_CONFLICT, REASON_NARROWED),
    passes=_asks_nothing,
    split=_affinity_parts,
    refine=_refined,
    fields=_fields,
    refuses=_conflict,
)


# --- Score (nodeaffinity/node_affinity.go PreScore, Score, NormalizeScore) ----------------


def preferred_weight(terms: tuple[tuple[int, SelectorTerm], ...], node: NodeView) -> int:
    """Score: the summed weights of the preferred terms the node matches. NormalizeScore is
    DefaultNormalizeScore(100, false) over the feasible nodes."""
    return sum(weight for weight, term in terms if term.matches(node.labels, node.name))


NodeScore = Callable[[NodeView], int]


def _prescore(workload: Workload) -> NodeScore:
    terms = workload.profile.preferred_node_terms

    def affinity(node: NodeView) -> int:
        return preferred_weight(terms, node)

    return affinity


def _raw(affinity: NodeScore, node: NodeView) -> int:
    return affinity(node)


# component-helpers nodeaffinity.go validSelectorOperators
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_GT_LT = ("Gt", "Lt")


def _requirement_errors(expr: Expression, where: str) -> list[str]:
    """nodeSelectorRequirementsAsSelector on one expression: an operator it does not know,
    else labels.NewRequirement's errors the API server lets through (a Gt or Lt value
    that is not an integer, a value that is no label value; the key and the number of
    values are validated on admission)."""
    if expr.operator not in SELECTOR_OPERATORS:
        return [str(not_supported(f"{where}.operator", expr.operator, SELECTOR_OPERATORS))]
    errors: list[str] = []
    if expr.operator in _GT_LT:
        detail = "for 'Gt', 'Lt' operators, the value must be an integer"
        errors.extend(
            str(invalid(f"{where}.values[{i}]", value, detail))
            for i, value in enumerate(expr.values)
            if not parses_as_int64(value)
        )
    for i, value in enumerate(expr.values):
        messages = label_value_errors(value)
        if messages:
            field = f"{where}.values[{i}][{expr.key}]"
            errors.append(str(invalid(field, value, "; ".join(messages))))
    return errors


def preferred_terms_error(terms: tuple[PreferredTerm, ...]) -> str | None:
    """Why NewPreferredSchedulingTerms refuses the preferred terms (None: it reads them):
    each term of a non-zero weight and some expression, its expressions' errors in order,
    flattened into one aggregate (Aggregate.Error: one error alone, else the distinct
    ones bracketed)."""
    errors: list[str] = []
    for i, term in enumerate(terms):
        if term.weight == 0 or not term.expressions:
            continue
        for j, expr in enumerate(term.expressions):
            errors.extend(_requirement_errors(expr, f"[{i}].matchExpressions[{j}]"))
    distinct = list(dict.fromkeys(errors))
    if not distinct:
        return None
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


def _fails(profile: PodProfile) -> str | None:
    return preferred_terms_error(profile.node_affinity.preferred)


SCORE: ScorePlugin[NodeScore, None] = ScorePlugin(
    NODE_AFFINITY, 2, "affinity", _prescore, normalize=default_normalize, node=_raw, fails=_fails
)
"""Score (node_affinity.go): the weights of the preferred terms a node matches."""
