"""The cause of a failing workload: which rejection most nodes gave, as structured data.

Reports point at the field of the manifest that made the no. That field
follows from the rejecting plugin and from what its status carries (NodeResourcesFit's
shortfall, the untolerated taint...), never from the reason text. The rule:

* the nodes that count are the user nodes (those without a ``CriticalAddonsOnly`` taint),
  or every node when the cluster has no user node; for a DaemonSet, only the nodes it
  targets (those rejected by a plugin other than :data:`DAEMON_PREDICATES`);
* among them, the nodes the pod could plausibly use: not those a taint it does not
  tolerate reserves for another purpose (a spot or GPU pool), nor those its own node
  selector or affinity excludes (the scheduler's message still counts them). When no
  rejection is left, the tainted nodes its selector and affinity pass count (it asks for
  that pool and lacks the toleration); when none is, every node that counts does;
* each rejection counts once per node for each cause it names, and for its exact reason
  as the scheduler's message counts it: NodeResourcesFit once per insufficient resource,
  TaintToleration once per taint, every other plugin once;
* the cause on the most nodes wins; a tie goes to the plugin that runs last (its nodes
  passed every filter before it, so its field is the one nearest to a fit), then to the
  resource fitsRequest compares first.

For an insufficient resource, the distance to a fit is the largest free amount of it among
the nodes NodeResourcesFit rejected for that resource and that every later filter passes,
user nodes first. It is read from the node index's sorted free amounts, once per distinct
answer (workloads that share an answer share it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from gate.k8s.quantity import format_amount
from gate.k8s.version import Dialect
from gate.model import Cause, NodeView, Term
from gate.model.outcomes import NODE_AFFINITY, NODE_NAME, NODE_UNSCHEDULABLE, TAINT_TOLERATION
from gate.scheduler.framework.nodeindex import NodeIndex, lowest
from gate.scheduler.framework.runtime import CycleState, Groups, Rejection
from gate.scheduler.plugins import BY_NAME, ORDER

DAEMON_PREDICATES = frozenset({NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY})
"""The plugins whose rejection means the DaemonSet controller makes no pod for a node
(pkg/controller/daemon/daemon_controller.go ``NodeShouldRunDaemonPod``: the template's
``nodeName``, its required node affinity and the node's NoSchedule and NoExecute taints,
with the tolerations it adds, unschedulable among them). On a node any other plugin
rejects, its pod is created and stays Pending."""


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


LargestFree = Callable[[str, int], "int | None"]
"""The largest free amount of a resource among a set of nodes (None for none): the node
index's, or the nodes as the copies placed so far leave them."""

_Key = tuple[str, Term, str, int, str]
"""(plugin, term, resource, place of the resource in fitsRequest's order, exact reason)."""

_ELSEWHERE = frozenset({TAINT_TOLERATION, NODE_AFFINITY})
"""The plugins whose rejection says the node is meant for other pods (a taint the pod does
not tolerate) or the pod for other nodes (its own selector or affinity)."""


def _plausible(
    index: NodeIndex, cycle: CycleState, groups: Groups, dialect: Dialect, scope: int
) -> int:
    """The nodes of ``scope`` the pod could plausibly use (module doc)."""
    taints = affinity = 0
    for rejection, bits in groups.items():
        if rejection.plugin == TAINT_TOLERATION:
            taints |= bits & scope
        elif rejection.plugin == NODE_AFFINITY:
            affinity |= bits & scope
    plausible = scope & ~(taints | affinity)
    if any(bits & plausible for bits in groups.values()):
        return plausible
    # TaintToleration runs before NodeAffinity: ask the tainted nodes whether the pod's
    # selector and affinity pass them.
    wanted = taints
    for prepared in cycle:
        if prepared.plugin.name == NODE_AFFINITY and wanted and not prepared.passes():
            for bits, refused in prepared.parts(index, dialect, wanted):
                if refused is not None:
                    wanted &= ~bits
    return wanted or scope


def _causes(rejection: Rejection) -> list[tuple[tuple[str, Term, str, int], str]]:
    """Each cause a rejection names, with its reason string, as its plugin explains it."""
    plugin = rejection.plugin
    return [
        ((plugin, term, resource, place), reason)
        for term, resource, place, reason in BY_NAME[plugin].causes(rejection)
    ]


def cause_of(
    index: NodeIndex,
    cycle: CycleState,
    groups: Groups,
    dialect: Dialect,
    *,
    targeted_only: bool = False,
    largest_free: LargestFree | None = None,
) -> Cause | None:
    """The cause behind most rejections (module doc), or None when no node that counts
    rejects the pod."""
    user = index.everyone & ~index.addon
    scope = _plausible(index, cycle, groups, dialect, user or index.everyone)
    tally: dict[_Key, _Tally] = {}
    for rejection, bits in groups.items():
        if targeted_only and rejection.plugin in DAEMON_PREDICATES:
            continue
        counted = bits & scope
        if not counted:
            continue
        for cause_key, reason in _causes(rejection):
            key = (*cause_key, reason)
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
        key=lambda item: (item[1].bits.bit_count(), ORDER.get(item[0][0], -1), -item[0][3]),
    )
    plugin, term, resource, _, _ = key
    cause = Cause(
        family=BY_NAME[plugin].family,
        plugin=plugin,
        term=term,
        reason=found.reason,
        nodes=found.everywhere.bit_count(),
        index=None,
        port=None,
        resource="",
        requested="",
        free=None,
        free_on_addon=False,
    )
    node = index.nodes[lowest(found.bits)]
    if term is Term.REQUEST:
        return _distance(cause, index, cycle, groups, dialect, resource, largest_free)
    return _refined(cause, cycle, node)


def _refined(cause: Cause, cycle: CycleState, node: NodeView) -> Cause:
    """Which term of the pod spec a rejection points at, asked of one node it rejected."""
    prepared = next(p for p in cycle if p.plugin.name == cause.plugin)
    return prepared.plugin.refine(cause, prepared.state, node)


def _distance(
    cause: Cause,
    index: NodeIndex,
    cycle: CycleState,
    groups: Groups,
    dialect: Dialect,
    resource: str,
    largest_free: LargestFree | None = None,
) -> Cause:
    """The request and the largest free amount among the nodes that only lack room for it
    (module doc), user nodes first."""
    requested = 0
    candidates = 0
    for rejection, bits in groups.items():
        if rejection.plugin != cause.plugin:
            continue
        for wanted in rejection.shortfall:
            if wanted.resource == resource:
                requested = wanted.requested
                candidates |= bits
    later = ORDER[cause.plugin]
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
    largest = (largest_free or index.largest_free)(resource, among)
    return msgspec.structs.replace(
        cause,
        resource=resource,
        requested=format_amount(resource, requested),
        free=None if largest is None else format_amount(resource, max(largest, 0)),
        free_on_addon=bool(among) and not user,
    )
