"""A workload's pods beyond its first: the running pods it replaces, and its copies counted.

The engine asks the filters about one pod per workload; this module says what follows for
all of them:

- **released**: the workload's own running pods (:mod:`gate.scheduler.placement.ownership`) are the
  version its change replaces; their requests, pod slots and host ports go back to their
  nodes, and the inter-pod filters stop counting them;
- **placed**: the wanted copies are counted on the nodes that pass every filter for the
  first one (:mod:`gate.scheduler.placement.copies`), the pod's own anti-affinity and spread
  constraints coupling them;
- **together**: a workload new to the cluster is also placed beside the run's other new
  workloads, in input order, on one ledger of the room they take, their copies counted by
  its spread constraints as bound pods would be (the run's new DaemonSets take their room
  there first: the engine places them before any other workload);
- **one lost node**: the copies are placed again without the node holding most of them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from gate.k8s.labels import ZONE
from gate.model import ExistingPod, NodeView, ReplicaFit, Scaling, WarningKind, WorkloadWarning
from gate.scheduler.framework.cluster import ChangedNodes, node_without
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState
from gate.scheduler.framework.scores import Carried
from gate.scheduler.placement.copies import (
    MIN_FEASIBLE_NODES_TO_FIND,
    CopyRules,
    FitRange,
    LabelBits,
    Ledger,
    Placement,
    ScoreRules,
    SpreadRule,
    capacities,
    place,
    place_range,
    uncoupled,
    with_earlier_copies,
)
from gate.scheduler.placement.copyrules import EarlierCopies, disks_collide
from gate.scheduler.placement.prescore import scores_beside
from gate.scheduler.placement.unfit import Refused, consumers
from gate.scheduler.plugins.interpodaffinity.copies import cycle_follow_keys, own_anti_keys
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState


class ReleasedNodes(ChangedNodes):
    """The snapshot's nodes with a workload's own pods given back (their requests, pod
    slots and host ports) on the nodes that hold them. A released node is built when it is
    first asked for: most of them never are."""

    def __init__(
        self,
        nodes: Sequence[NodeView],
        gone: Mapping[int, Sequence[int]],
        pods: Sequence[ExistingPod],
    ):
        """``gone``: by node, the positions in ``pods`` of the pods that leave it."""
        super().__init__(nodes)
        self._gone = gone
        self._pods = pods
        self._built: dict[int, NodeView] = {}
        self._holding: int | None = None

    def changed_at(self, position: int) -> NodeView | None:
        gone = self._gone.get(position)
        if gone is None:
            return None
        found = self._built.get(position)
        if found is None:
            pods = self._pods
            found = node_without(self._nodes[position], [pods[i] for i in gone])
            self._built[position] = found
        return found

    @property
    def holding(self) -> int:
        """The nodes that held the released pods, as a bitset."""
        if self._holding is None:
            self._holding = bitset(self._gone)
        return self._holding


def bitset(positions: Collection[int]) -> int:
    """The bitset of ``positions`` (none negative)."""
    if not positions:
        return 0
    # Marked in bytes, then read as one number: summing ``1 << position`` would build and
    # add a number as wide as the cluster for every position (a large run's workloads
    # release pods on 100,000 nodes in all).
    marks = bytearray((max(positions) >> 3) + 1)
    for position in positions:
        marks[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(marks, "little")


def released_nodes(
    nodes: Sequence[NodeView],
    node_of: Sequence[int],
    pods: Sequence[ExistingPod],
    own: Sequence[int],
) -> ReleasedNodes:
    """``nodes`` without the pods at ``own`` (positions in ``pods``, placed on the nodes
    ``node_of`` names)."""
    # By position, not by pod: a large run releases 90,000 pods, and only the nodes asked
    # for read theirs (the pods themselves lie all over the heap).
    if not own:
        return ReleasedNodes(nodes, {}, pods)
    on = [node_of[own[0]]] if len(own) == 1 else itemgetter(*own)(node_of)
    # A workload's pods mostly run one to a node: then each node's are paired in one pass
    # of the interpreter's own loops, and only a workload with two on some node is
    # grouped pod by pod.
    gone: Mapping[int, Sequence[int]] = dict(zip(on, zip(own), strict=True))
    if len(gone) < len(own):
        grouped: dict[int, list[int]] = {}
        for i, node in zip(own, on, strict=True):
            found = grouped.get(node)
            if found is None:
                grouped[node] = [i]
            else:
                found.append(i)
        gone = grouped
    return ReleasedNodes(nodes, gone, pods)


def copy_rules(
    profile: PodProfile, cycle: CycleState, namespace_labels: Mapping[str, str] | None
) -> CopyRules:
    """What limits the copies beyond the first: requests, host ports, the required
    anti-affinity terms the pod's own labels match (one copy per domain of their key), the
    DoNotSchedule spread constraints with the counts their PreFilter found, the keys of
    the required affinity terms that hold every copy to the first one's domain, and the
    nodes NodeAffinity's PreFilter narrows the copies to by name."""
    spread: tuple[SpreadRule, ...] = ()
    state = next((p.state for p in cycle if isinstance(p.state, SpreadState)), None)
    if state is not None:
        spread = tuple(
            SpreadRule(
                topology_key=constraint.topology_key,
                max_skew=constraint.max_skew,
                counts=state.counts[i],
                min_domains=constraint.min_domains,
                self_match=bool(state.self_match[i]),
                selector=constraint.selector,
            )
            for i, constraint in enumerate(state.constraints)
        )
    return CopyRules(
        requests=profile.requests,
        host_ports=profile.wanted_ports,
        one_per_domain=own_anti_keys(profile, namespace_labels),
        spread=spread,
        namespace=profile.namespace,
        follow_first=cycle_follow_keys(cycle),
        disks_collide=disks_collide(profile.mounts),
        # A DaemonSet's pods each carry their own pin, not the template's names.
        names=None if profile.pinned else profile.names,
    )


def _pods_noun(kind: str) -> str:
    return "replicas" if kind in ("Deployment", "ReplicaSet", "StatefulSet") else "pods"


Refusals = Callable[[Placement, Ledger | None], Refused]
"""Every node's rejection of the copy after a placement's last
(:func:`gate.scheduler.placement.unfit.refusals`)."""


@dataclass(frozen=True, slots=True)
class Counted:
    """The copies counted, the warnings they raise, and the rejections of the first copy
    that does not fit (None when every wanted copy fits)."""

    fit: ReplicaFit
    warnings: list[WorkloadWarning]
    refused: Refused | None = None
    zones: Mapping[str, int] = field(default_factory=dict)
    """The copies the verdict's placement put in each zone (nodes with no zone label
    left out): the autoscalers plan new nodes for the rest after them."""
    followed: Mapping[str, str] | None = None
    """Where the copies follow the first one's domain (``CopyRules.follow_first``), the
    labels of the node the verdict's placement put its first copy on: the rest must share
    its domain, on new nodes too."""


@dataclass(frozen=True, slots=True)
class CopyCount:
    """What counting one workload's copies reads. ``title`` and ``kind`` name the workload;
    ``wanted`` copies are counted on the ``fitting`` nodes (a bitset over ``views`` of
    those asked for every copy) under ``rules``; ``scaling``: its autoscaler and budget;
    ``ledger``: the room the run's earlier new workloads took (None for a workload
    replacing its own pods, ``released`` of them); ``scores``: what the score plugins read
    (None: placed without scores); ``refusals``: every node's rejection of the copy after
    a placement's last; ``label_bits``: the nodes by label value; ``nonzero``: a copy's
    cpu and memory as the resource scores count them, for the ledger when placed without
    ``scores``; ``labels``: a copy's, which later workloads' spread constraints count;
    ``terms``: those a copy carries that score later workloads' pods (InterPodAffinity);
    ``reported`` false: the counts and the ledger only (no headroom, no lost node)."""

    title: str
    kind: str
    wanted: int
    views: Sequence[NodeView]
    fitting: int
    rules: CopyRules
    scaling: Scaling | None = None
    ledger: Ledger | None = None
    released: int = 0
    scores: ScoreRules | None = None
    refusals: Refusals | None = None
    label_bits: LabelBits | None = None
    nonzero: tuple[int, int] | None = None
    labels: Mapping[str, str] | None = None
    terms: Carried = ()
    reported: bool = True


def count_copies(count: CopyCount) -> Counted:
    """How many of ``count.wanted`` copies fit on the ``fitting`` nodes (:class:`CopyCount`),
    alone and, for a workload new to the cluster (``ledger`` given), beside the run's
    other new workloads; with what an autoscaler's maximum would find and what one lost
    node would cost. Beside the others, the spread counts take their matching copies in."""
    alone = place_range(
        count.wanted,
        count.views,
        count.rules,
        count.fitting,
        scores=count.scores,
        count_only=True,
        label_bits=count.label_bits,
    )
    warnings = []
    together: FitRange | None = None
    beside: tuple[str, ...] = ()
    short, short_ledger = alone.placement, None
    refused: Refused | None = None
    if count.ledger is not None:
        beside_rules = with_earlier_copies(count.rules, count.views, count.ledger)
        beside_scores = count.scores
        if beside_scores is not None and count.ledger.labels:
            earlier = EarlierCopies(count.views, count.ledger)
            beside_scores = scores_beside(beside_scores, count.rules.namespace, earlier)
        together = place_range(
            count.wanted,
            count.views,
            beside_rules,
            count.fitting,
            ledger=count.ledger,
            scores=beside_scores,
            label_bits=count.label_bits,
        )
        if together.least < alone.least:
            short, short_ledger = together.placement, count.ledger
            if count.refusals is not None:
                # Asked before its own copies join the ledger: the placement holds them.
                refused = count.refusals(short, count.ledger)
                beside = consumers(refused.groups, count.views, count.ledger, beside_rules)
        held = count.scores.nonzero.bound if count.scores is not None else count.nonzero
        for position, copies in together.placement.copies.items():
            count.ledger.take(
                count.views[position].name,
                count.rules,
                copies,
                count.title,
                held,
                count.labels,
                count.terms,
            )
    if refused is None and short.fit < count.wanted and count.refusals is not None:
        refused = count.refusals(short, short_ledger)
    headroom = None
    if count.reported and count.scaling is not None and count.scaling.maximum is not None:
        headroom = place_range(
            count.scaling.maximum,
            count.views,
            count.rules,
            count.fitting,
            scores=count.scores,
            count_only=True,
            label_bits=count.label_bits,
        ).least
    if count.reported and count.wanted >= 2 and alone.least >= count.wanted:
        lost = _one_lost_node(
            count.kind,
            count.wanted,
            count.views,
            count.fitting,
            count.rules,
            count.scaling,
            count.scores,
            count.label_bits,
            alone.placement,
        )
        if lost is not None:
            warnings.append(lost)
    least = alone.least if together is None else min(alone.least, together.least)
    most = alone.most if together is None else min(alone.most, together.most)
    fit = ReplicaFit(
        wanted=count.wanted,
        alone=alone.least,
        together=None if together is None else together.least,
        beside=beside,
        autoscaler=count.scaling.autoscaler if count.scaling else None,
        maximum=count.scaling.maximum if count.scaling else None,
        headroom=headroom,
        released=count.released,
        most=most if most > least else None,
    )
    zones: dict[str, int] = {}
    for position, copies in short.copies.items():
        zone = count.views[position].labels.get(ZONE)
        if zone is not None:
            zones[zone] = zones.get(zone, 0) + copies
    followed = None
    if count.rules.follow_first and short.copies:
        followed = count.views[min(short.copies)].labels
    return Counted(fit, warnings, refused, zones, followed)


def _one_lost_node(
    kind: str,
    wanted: int,
    views: Sequence[NodeView],
    fitting: int,
    rules: CopyRules,
    scaling: Scaling | None,
    scores: ScoreRules | None,
    label_bits: LabelBits | None = None,
    placed: Placement | None = None,
) -> WorkloadWarning | None:
    """N+1: the copies placed again without the node holding most of them (ties: the
    earlier node). A warning when the other nodes cannot take all of them back, or not as
    many as a disruption budget keeps. The node is never named: picking is scheduling.
    Uncoupled copies (:func:`uncoupled`) need no placement where even the node of most
    room lost leaves room for them all. ``placed``: the copies as the count placed them
    with the first tie policy, when it placed them node by node (every copy fit, so the
    count's placement is that policy's), reused rather than placed again."""
    keep = scaling.must_keep if scaling else None
    small = len(views) <= MIN_FEASIBLE_NODES_TO_FIND
    if small and uncoupled(rules) and (keep is None or keep <= wanted):
        caps = capacities(views, rules, fitting)
        if sum(caps.values()) - max(caps.values(), default=0) >= wanted:
            return None
    alone = placed
    if alone is None or alone.fit < wanted or not alone.copies:
        alone = place(wanted, views, rules, fitting, scores=scores, label_bits=label_bits)
    busiest = max(alone.copies, key=lambda i: (alone.copies[i], -i))
    held = alone.copies[busiest]
    rest = place_range(
        wanted,
        views,
        rules,
        fitting & ~(1 << busiest),
        scores=scores,
        count_only=True,
        label_bits=label_bits,
    ).least
    if rest >= wanted and (keep is None or rest >= keep):
        return None
    noun = _pods_noun(kind)
    text = (
        f"if the node holding {held} of its {noun} failed, the other nodes could take "
        f"{rest} of {wanted}"
    )
    if keep is not None and scaling is not None and rest < keep:
        text += f", fewer than PodDisruptionBudget {scaling.budget} keeps ({keep})"
    return WorkloadWarning(WarningKind.LOST_NODE, text)


def scaled_up_warning(message: str | None, addon_only: bool) -> WorkloadWarning | None:
    """For a workload that wants no pods (it does not fail): what one pod of its template
    would meet if it were scaled up, the scheduler's FitError (``message``) or add-on nodes
    only; None when it would fit."""
    if message is not None:
        return WorkloadWarning(WarningKind.IF_SCALED_UP, f"if scaled up: {message}")
    if addon_only:
        text = "if scaled up: only CriticalAddonsOnly (system) nodes would take its pods"
        return WorkloadWarning(WarningKind.IF_SCALED_UP, text)
    return None
