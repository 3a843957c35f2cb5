"""The two filters that look at other pods, PodTopologySpread then InterPodAffinity, set up
once per incoming pod (their PreFilters) and asked per node or per set of nodes.

Upstream order (apis/config/v1/default_plugins.go): PodTopologySpread's Filter runs before
InterPodAffinity's, so a node both reject reports the spread reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gate.k8s.matching import first_untolerated
from gate.k8s.podaffinity import POD_AFFINITY, POD_ANTI_AFFINITY, pod_terms
from gate.model import NodeView
from gate.scheduler.interpodaffinity import AffinityState, affinity_groups, affinity_state
from gate.scheduler.nodeindex import NodeIndex
from gate.scheduler.podindex import PodIndex
from gate.scheduler.podtopologyspread import (
    SpreadState,
    hard_constraints,
    spread_groups,
    spread_state,
)
from gate.scheduler.status import Failure


@dataclass(frozen=True, slots=True)
class IncomingPod:
    """The pod being placed, as the inter-pod filters read it."""

    namespace: str
    labels: Mapping[str, str]
    spec: Mapping[str, Any]


def wants_interpod(spec: Mapping[str, Any]) -> bool:
    """Whether the pod itself asks these filters anything (existing pods' anti-affinity
    aside): required pod (anti-)affinity, or a DoNotSchedule spread constraint."""
    affinity = spec.get("affinity")
    if isinstance(affinity, Mapping):
        for kind in (POD_AFFINITY, POD_ANTI_AFFINITY):
            section = affinity.get(kind)
            if isinstance(section, Mapping) and section.get(
                "requiredDuringSchedulingIgnoredDuringExecution"
            ):
                return True
    constraints = spec.get("topologySpreadConstraints")
    return isinstance(constraints, list) and any(
        isinstance(c, Mapping) and c.get("whenUnsatisfiable") == "DoNotSchedule"
        for c in constraints
    )


@dataclass(frozen=True, slots=True)
class InterPodChecks:
    """Both PreFilter states; None where the PreFilter returned Skip."""

    spread: SpreadState | None
    affinity: AffinityState | None

    @property
    def skip(self) -> bool:
        return self.spread is None and self.affinity is None

    def filter(self, node: NodeView) -> Failure | None:
        """The first failing of the two filters for one node."""
        failure = self.spread.filter(node.labels) if self.spread else None
        if failure is None and self.affinity is not None:
            failure = self.affinity.filter(node.labels)
        return failure

    def groups(self, nodes: NodeIndex, among: int) -> list[tuple[int, Failure]]:
        """:meth:`filter` over the nodes of ``among``, as disjoint bitsets."""
        groups = spread_groups(self.spread, nodes, among) if self.spread else []
        if self.affinity is not None:
            for bits, _ in groups:
                among &= ~bits
            groups += affinity_groups(self.affinity, nodes, among)
        return groups


def passing(nodes: NodeIndex, accepts: Callable[[NodeView], bool], keys: Iterable[str]) -> int:
    """The nodes ``accepts`` takes, asked once per class of the label ``keys`` it reads."""
    bits = 0
    for part in nodes.label_parts(keys, nodes.everyone):
        if accepts(nodes.nodes[(part & -part).bit_length() - 1]):
            bits |= part
    return bits


def tolerated(nodes: NodeIndex, tolerations: tuple[Mapping[str, Any], ...]) -> int:
    """The nodes without a NoSchedule/NoExecute taint the pod does not tolerate
    (nodeTaintsPolicy: Honor), once per class of taints."""
    bits = 0
    for class_bits, rep in nodes.taint_classes:
        if first_untolerated(nodes.nodes[rep].taints, tolerations) is None:
            bits |= class_bits
    return bits


def interpod_checks(
    pod: IncomingPod,
    nodes: NodeIndex,
    pods: PodIndex,
    namespaces: Mapping[str, Mapping[str, str]] | None,
    affinity_bits: Callable[[], int],
    taint_bits: Callable[[], int],
) -> InterPodChecks:
    """Both PreFilters for ``pod``. ``affinity_bits`` / ``taint_bits`` give the nodes its
    node affinity / tolerations accept; they are asked only when a spread constraint's
    policy honours them. Raises :class:`gate.k8s.selectors.SelectorError` for a selector
    the API server would refuse."""
    constraints = hard_constraints(pod.spec, pod.labels)
    spread = None
    if constraints:
        honours_affinity = any(c.honor_node_affinity for c in constraints)
        honours_taints = any(c.honor_taints for c in constraints)
        spread = spread_state(
            constraints,
            pod.namespace,
            pod.labels,
            nodes,
            pods,
            affinity_bits() if honours_affinity else nodes.everyone,
            taint_bits() if honours_taints else nodes.everyone,
        )
    own_labels = None if namespaces is None else namespaces.get(pod.namespace, {})
    terms = tuple(
        t.with_namespaces_listed(namespaces)
        for t in pod_terms(pod.spec, POD_AFFINITY, pod.namespace, pod.labels)
    )
    anti_terms = tuple(
        t.with_namespaces_listed(namespaces)
        for t in pod_terms(pod.spec, POD_ANTI_AFFINITY, pod.namespace, pod.labels)
    )
    state = affinity_state(pod.namespace, pod.labels, terms, anti_terms, own_labels, nodes, pods)
    return InterPodChecks(spread=spread, affinity=None if state.skip else state)
