"""The cause of a failing workload: which rejection most nodes gave, as structured data.

Reports point at the field of the manifest that made the no. That field
follows from the rejecting plugin and from what its status carries (NodeResourcesFit's
shortfall, the untolerated taint...), never from the reason text. The rule:

* the nodes that count are the user nodes (those without a ``CriticalAddonsOnly`` taint),
  or every node when the cluster has no user node; for a DaemonSet, only the nodes it
  targets (those rejected by a plugin that rejects for room);
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

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from gate.k8s.quantity import format_amount
from gate.k8s.version import Dialect
from gate.model import Cause, NodeView, Term
from gate.scheduler.framework.nodeindex import NodeIndex, lowest
from gate.scheduler.framework.runtime import CycleState, Groups, Rejection
from gate.scheduler.plugins import BY_NAME, ORDER, ROOM


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

_Key = tuple[str, Term, str, int]
"""(plugin, term, resource, place of the resource in fitsRequest's order)."""


def _causes(rejection: Rejection) -> list[tuple[_Key, str]]:
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
    scope = user or index.everyone
    tally: dict[_Key, _Tally] = {}
    for rejection, bits in groups.items():
        if targeted_only and rejection.plugin not in ROOM:
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
        key=lambda item: (item[1].bits.bit_count(), ORDER.get(item[0][0], -1), -item[0][3]),
    )
    plugin, term, resource, _ = key
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
