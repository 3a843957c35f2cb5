"""The cause of a failing workload: which rejection most nodes gave, as structured data.

Reports point at the field of the manifest that made the no (SPEC section 2). That field
follows from the rejecting plugin and from what its status carries (NodeResourcesFit's
shortfall, the untolerated taint...), never from the reason text. The rule:

* the nodes that count are the user nodes (those without a ``CriticalAddonsOnly`` taint),
  or every node when the cluster has no user node; for a DaemonSet, only the nodes it
  targets (those rejected by a plugin of ``ROOM_PLUGINS``);
* each rejection counts once per node for each cause it names: NodeResourcesFit once per
  insufficient resource, every other plugin once (TaintToleration's taints together: they
  all point at ``tolerations``);
* the cause on the most nodes wins; a tie goes to the plugin that runs last (its nodes
  passed every filter before it, so its field is the one nearest to a fit), then to the
  resource fitsRequest compares first.

For an insufficient resource, the distance to a fit is the largest free amount of it among
the nodes NodeResourcesFit rejected for that resource and that every later filter passes,
user nodes first. It is read from the node index's sorted free amounts, once per distinct
answer (workloads that share an answer share it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from gate.k8s.quantity import format_amount
from gate.k8s.resources import PODS
from gate.k8s.version import Dialect
from gate.model import Cause, Family, NodeView, Term
from gate.scheduler.filters import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    POD_TOPOLOGY_SPREAD,
    REASON_INSUFFICIENT,
    REASON_TOO_MANY_PODS,
    ROOM_PLUGINS,
    TAINT_TOLERATION,
    PodProfile,
    Rejection,
    port_conflicts,
)
from gate.scheduler.interpod import PinnedSpread
from gate.scheduler.interpodaffinity import AFFINITY, ANTI_AFFINITY, AffinityState
from gate.scheduler.nodeindex import NodeIndex, lowest
from gate.scheduler.plugins import FILTERS, CycleState, Groups
from gate.scheduler.podtopologyspread import SpreadState

_ORDER = {plugin.name: position for position, plugin in enumerate(FILTERS)}
_FAMILY = {
    NODE_UNSCHEDULABLE: Family.TAINTS,
    NODE_NAME: Family.SELECTOR,
    TAINT_TOLERATION: Family.TAINTS,
    NODE_AFFINITY: Family.SELECTOR,
    NODE_PORTS: Family.PORTS,
    NODE_RESOURCES_FIT: Family.RESOURCES,
    POD_TOPOLOGY_SPREAD: Family.SPREAD,
    INTER_POD_AFFINITY: Family.AFFINITY,
}
_TERM = {
    NODE_UNSCHEDULABLE: Term.TOLERATIONS,
    NODE_NAME: Term.NODE_NAME,
    TAINT_TOLERATION: Term.TOLERATIONS,
    NODE_AFFINITY: Term.NODE_AFFINITY,
    NODE_PORTS: Term.HOST_PORT,
    POD_TOPOLOGY_SPREAD: Term.SPREAD,
}


@dataclass(slots=True)
class _Tally:
    """One candidate cause: the nodes that count it rejected, every node it rejected (the
    count shown, as the scheduler's message counts), and the largest rejection naming it
    (whose reason is shown)."""

    reason: str
    rejection: Rejection
    bits: int = 0
    everywhere: int = 0
    largest: int = 0


_Key = tuple[str, Term, str, int]
"""(plugin, term, resource, place of the resource in fitsRequest's order)."""


def _causes(rejection: Rejection) -> list[tuple[_Key, str]]:
    """Each cause a rejection names, with its reason string."""
    plugin = rejection.plugin
    if plugin == NODE_RESOURCES_FIT:
        return [
            (
                (plugin, Term.POD_SLOTS, PODS, i)
                if s.resource == PODS
                else (plugin, Term.REQUEST, s.resource, i),
                REASON_TOO_MANY_PODS
                if s.resource == PODS
                else REASON_INSUFFICIENT.format(resource=s.resource),
            )
            for i, s in enumerate(rejection.shortfall)
        ]
    reason = rejection.reasons[0] if rejection.reasons else ""
    if plugin == INTER_POD_AFFINITY:
        term = (
            Term.POD_AFFINITY
            if rejection == AFFINITY
            else Term.POD_ANTI_AFFINITY
            if rejection == ANTI_AFFINITY
            else Term.EXISTING_ANTI_AFFINITY
        )
        return [((plugin, term, "", 0), reason)]
    return [((plugin, _TERM.get(plugin, Term.NODE_AFFINITY), "", 0), reason)]


def cause_of(
    index: NodeIndex,
    cycle: CycleState,
    groups: Groups,
    dialect: Dialect,
    *,
    targeted_only: bool = False,
) -> Cause | None:
    """The cause behind most rejections (module doc), or None when no node that counts
    rejects the pod."""
    user = index.everyone & ~index.addon
    scope = user or index.everyone
    tally: dict[_Key, _Tally] = {}
    for rejection, bits in groups.items():
        if targeted_only and rejection.plugin not in ROOM_PLUGINS:
            continue
        counted = bits & scope
        if not counted:
            continue
        for key, reason in _causes(rejection):
            entry = tally.setdefault(key, _Tally(reason, rejection))
            entry.bits |= counted
            entry.everywhere |= bits
            if counted.bit_count() > entry.largest:
                entry.largest, entry.reason, entry.rejection = (
                    counted.bit_count(),
                    reason,
                    rejection,
                )
    if not tally:
        return None
    key, found = max(
        tally.items(),
        key=lambda item: (item[1].bits.bit_count(), _ORDER.get(item[0][0], -1), -item[0][3]),
    )
    plugin, term, resource, _ = key
    cause = Cause(
        family=_FAMILY.get(plugin, Family.SELECTOR),
        plugin=plugin,
        term=term,
        reason=found.reason,
        nodes=found.everywhere.bit_count(),
    )
    node = index.nodes[lowest(found.bits)]
    if term is Term.REQUEST:
        return _distance(cause, index, cycle, groups, dialect, resource)
    return _refined(cause, cycle, node)


def _state(cycle: CycleState, plugin: str) -> object:
    return next(p.state for p in cycle if p.plugin.name == plugin)


def _refined(cause: Cause, cycle: CycleState, node: NodeView) -> Cause:
    """Which term of the pod spec a rejection points at, asked of one node it rejected."""
    term = cause.term
    if term is Term.NODE_AFFINITY:
        pod = _state(cycle, NODE_AFFINITY)
        assert isinstance(pod, PodProfile)
        if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
            return replace(cause, term=Term.NODE_SELECTOR)
        single = pod.affinity_terms is not None and len(pod.affinity_terms) == 1
        return replace(cause, index=0 if single else None)
    if term is Term.HOST_PORT:
        pod = _state(cycle, NODE_PORTS)
        assert isinstance(pod, PodProfile)
        port = next((p for p in pod.wanted_ports if port_conflicts(p, node.used_ports)), None)
        return replace(cause, port=port)
    if term is Term.SPREAD:
        return replace(cause, index=_spread_constraint(_state(cycle, POD_TOPOLOGY_SPREAD), node))
    if term in (Term.POD_AFFINITY, Term.POD_ANTI_AFFINITY):
        state = _state(cycle, INTER_POD_AFFINITY)
        if isinstance(state, AffinityState):
            return replace(cause, index=_affinity_term(state, term, node.labels))
    return cause


def _spread_constraint(state: object, node: NodeView) -> int | None:
    if isinstance(state, PinnedSpread):
        state = state.state_for(state.others.position(node))
    if not isinstance(state, SpreadState):
        return None
    return state.failing(node.labels)


def _affinity_term(state: AffinityState, term: Term, labels: Mapping[str, str]) -> int | None:
    """The first of the pod's terms that the node fails (filtering.go's order)."""
    if term is Term.POD_AFFINITY:
        for i, affinity in enumerate(state.affinity_terms):
            value = labels.get(affinity.topology_key)
            if value is None or state.affinity_counts.get((affinity.topology_key, value), 0) <= 0:
                return i
        return None
    for i, anti in enumerate(state.anti_affinity_terms):
        value = labels.get(anti.topology_key)
        if value is not None and state.anti_counts.get((anti.topology_key, value), 0) > 0:
            return i
    return None


def _distance(
    cause: Cause,
    index: NodeIndex,
    cycle: CycleState,
    groups: Groups,
    dialect: Dialect,
    resource: str,
) -> Cause:
    """The request and the largest free amount among the nodes that only lack room for it
    (module doc), user nodes first."""
    requested = 0
    candidates = 0
    for rejection, bits in groups.items():
        if rejection.plugin != NODE_RESOURCES_FIT:
            continue
        for wanted in rejection.shortfall:
            if wanted.resource == resource:
                requested = wanted.requested
                candidates |= bits
    later = _ORDER[NODE_RESOURCES_FIT]
    for prepared in cycle[later + 1 :]:
        if not candidates:
            break
        if prepared.passes():
            continue
        for bits, later_rejection in prepared.parts(index, dialect, candidates):
            if later_rejection is not None:
                candidates &= ~bits
    user = candidates & ~index.addon
    among = user or candidates
    largest = index.largest_free(resource, among)
    return replace(
        cause,
        resource=resource,
        requested=format_amount(resource, requested),
        free=None if largest is None else format_amount(resource, max(largest, 0)),
        free_on_addon=bool(among) and not user,
    )
