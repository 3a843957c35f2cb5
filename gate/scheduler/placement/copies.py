"""How many copies of one pod fit, placed one after another as the scheduler places them.

Counting is not scheduling: the copies are placed in memory only to count them, and no
report ever names the node a copy would take. For each wanted copy in turn
(schedule_one.go schedulePod):

1. **Filter** against the state the earlier copies left. A node that passed every filter
   for the first copy, or that PodTopologySpread alone refused for it (its skew can even
   out as copies land elsewhere), is asked again for every copy:

   - NodeResourcesFit: every copy takes its requests and one pod slot from its node, so a
     node holds ``min(free_r // request_r, free pod slots)`` copies;
   - NodePorts: a copy that wants a host port holds it, so a node holds at most one;
   - InterPodAffinity: required anti-affinity of the pod against its own labels holds one
     copy per domain of the term's topology key;
   - PodTopologySpread (``DoNotSchedule``): a copy may join domain ``d`` only while
     ``count[d] + 1 - min(count)`` stays within ``maxSkew``, and copies matching the
     constraint's selector raise ``count[d]``.

2. **Score** the feasible nodes as the default profile does: each score plugin is one
   record in its module (:data:`gate.scheduler.plugins.SCORES`,
   :mod:`gate.scheduler.framework.scores`): NodeResourcesFit LeastAllocated,
   BalancedAllocation, TaintToleration, NodeAffinity, PodTopologySpread, InterPodAffinity,
   ImageLocality, each normalised over the feasible nodes and weighted. With one feasible
   node nothing is scored.

3. **Select** a node of the highest total. Upstream picks uniformly among the tied nodes
   (selectHost); here a :data:`TiePolicy` picks: the lowest position, the highest, or a
   seeded draw. :func:`place_range` reports the least and the most copies over every way
   the draws can go (:func:`every_draw`), or, past its bound or a sampled share, over
   several policies.

Nodes alike in everything filters and scores read (free room, requests, taints, preferred
affinity, domains, matching pods) form one class, scored once per copy: the cost is copies x
classes, not copies x nodes, and ties inside a class are between interchangeable nodes.

On more than 100 nodes the scheduler scores only a share of the feasible nodes from a
rotating start (schedule_one.go numFeasibleNodesToFind): there a count no order changes
(:func:`order_free`) is placed without scores (:mod:`gate.scheduler.placement.grouped`) but
under one hostname spread; other coupled copies are scored, per group of nodes sharing their
domains and scores where no score reads a hostname
(:class:`gate.scheduler.placement.classes.GroupedRun`; a hostname spread constraint's count is
part of the group), and where the share could change their count they are also placed with
the picks of
:data:`ANY_NODE` (docs/scheduler-rules.md).

Worked example (issue 23): n1 in zone a with 3 CPU free and one matching pod, n2 in zone b
with 4 CPU free, a zone spread of maxSkew 1 and ten copies of 1 CPU: the first copy is
refused on n1 (skew 1 + 1 - 0 = 2) and takes n2; then the zones take turns as the skew
allows, and 7 fit (``tests/test_placement_scores.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from gate.k8s.labels import HOSTNAME
from gate.model import NodeView
from gate.scheduler.placement.classes import (
    MIN_FEASIBLE_NODES_TO_FIND as MIN_FEASIBLE_NODES_TO_FIND,
)
from gate.scheduler.placement.classes import GroupedRun, ScoredRun, scored_run
from gate.scheduler.placement.classes import feasible_nodes_to_find as feasible_nodes_to_find
from gate.scheduler.placement.classes import nodes_to_filter as nodes_to_filter
from gate.scheduler.placement.classes import partly_scored as partly_scored
from gate.scheduler.placement.copyrules import CopyRules as CopyRules
from gate.scheduler.placement.copyrules import FitRange as FitRange
from gate.scheduler.placement.copyrules import Ledger as Ledger
from gate.scheduler.placement.copyrules import Placement as Placement
from gate.scheduler.placement.copyrules import ScoreRules as ScoreRules
from gate.scheduler.placement.copyrules import SpreadRule as SpreadRule
from gate.scheduler.placement.copyrules import capacity as capacity
from gate.scheduler.placement.copyrules import capacity_of as capacity_of
from gate.scheduler.placement.copyrules import set_bits as set_bits
from gate.scheduler.placement.copyrules import with_earlier_copies as with_earlier_copies
from gate.scheduler.placement.grouped import LabelBits as LabelBits
from gate.scheduler.placement.grouped import by_domain, filled
from gate.scheduler.placement.grouped import fill_order as fill_order
from gate.scheduler.plugins.interpodaffinity.copies import wider_than_a_node

TiePolicy = str | int
"""How a tie between nodes of the highest score is broken: ``"first"`` (the lowest node
position), ``"last"`` (the highest), or an int seeding a uniform draw (selectHost's)."""

POLICIES: tuple[TiePolicy, ...] = ("first", "last", 1, 2, 3)
"""The policies :func:`place_range` tries: the range found, not every path of the draw."""

ANY_NODE: tuple[TiePolicy, ...] = ("first", "last", 1, 2, 3, "fewest", "most")
"""Where the scheduler scores only a share of the feasible nodes, the policies that pick a
copy's node among every feasible one, scores aside: the lowest position, the highest, a
seeded draw, a node of the domains that hold the fewest or the most matching pods. Copies
a hostname rule couples, or whose TaintToleration or NodeAffinity raw scores differ between
nodes: there only the first two, one placement each over every feasible node."""


def place(
    wanted: int,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    candidates: int | None = None,
    *,
    ledger: Ledger | None = None,
    scores: ScoreRules | None = None,
    policy: TiePolicy = "first",
    count_only: bool = False,
    label_bits: LabelBits | None = None,
) -> Placement:
    """Copies of one pod on the ``candidates`` (a bitset over ``nodes`` of those that may
    take one: every node by default), each filtered, scored and selected as the module doc
    says, ties broken by ``policy``. ``label_bits``: the nodes by a label's values (built
    from ``nodes`` when not given), for copies placed by domain.

    Copies that no spread or zone-wide anti-affinity couples fill the nodes' capacities
    whatever the order: their count is ``min(wanted, sum of capacities)``, in arithmetic,
    and when they all fit a node's share is worked out only when asked (``count_only``
    false: the copies are then placed one by one, as scored)."""
    fitting = (1 << len(nodes)) - 1 if candidates is None else candidates
    if rules.follow_first:
        inner = replace(rules, follow_first=())
        found = [
            place(
                wanted,
                nodes,
                inner,
                domain,
                ledger=ledger,
                scores=scores,
                policy=policy,
                count_only=count_only,
                label_bits=label_bits,
            )
            for domain in scored_domains(
                nodes, inner, first_domains(nodes, rules.follow_first, fitting), scores, ledger
            )
        ]
        landed = [placement for placement in found if placement.fit > 0]
        return min(landed, key=lambda p: p.fit, default=Placement(wanted, 0, {}))
    if partly_scored(nodes, rules) and not scored_past_sample(rules):
        if uncoupled(rules):
            return filled(wanted, nodes, rules, fitting, ledger)
        return by_domain(wanted, nodes, rules, fitting, ledger, label_bits)
    if uncoupled(rules):
        caps = capacities(nodes, rules, fitting, ledger)
        room = sum(caps.values())
        if room <= wanted:  # every node fills up, whatever the order
            return Placement(wanted=wanted, fit=room, copies=caps)
        if count_only:
            return Placement(wanted=wanted, fit=wanted, copies={})
    run = scored_run(nodes, rules, scores or ScoreRules.of(rules.requests), fitting, ledger)
    return _placed(run, wanted, policy)


def _placed(run: ScoredRun, wanted: int, policy: TiePolicy, scored: bool = True) -> Placement:
    """The copies placed one by one in ``run``, ties broken by ``policy``; unless
    ``scored``, the node picked by ``policy`` among every feasible one (:data:`ANY_NODE`)."""
    draw = random.Random(policy) if isinstance(policy, int) else None
    tied = False
    for _ in range(wanted):
        if not scored:
            feasible = run.anywhere(policy)
            if not feasible:
                break
            run.take(_any(run, feasible, policy, draw))
            continue
        top = _best(run)
        if not top:
            break
        tied = tied or len(top) > 1
        run.take(_pick(top, policy, draw))
    return _placement(run, wanted, tied)


def _placement(run: ScoredRun, wanted: int, tied: bool) -> Placement:
    copies = {p: c for p, c in sorted(run.copies.items())}
    return Placement(wanted=wanted, fit=sum(copies.values()), copies=copies, tied=tied)


def _best(run: ScoredRun) -> list[set[int]]:
    """The classes of the highest total for the next copy, whose nodes selectHost draws
    among (none: no node passes). With one feasible node nothing is scored."""
    feasible = run.feasible()
    if len(feasible) == 1 and len(feasible[0][1]) == 1:
        return [feasible[0][1]]
    if not feasible:
        return []
    totals = run.totals(feasible)
    best = max(totals)
    return [members for (_, members), total in zip(feasible, totals, strict=True) if total == best]


DRAWN_STATES = 400
"""The most placements with a tie ahead that :func:`every_draw` walks before it gives up
(each is a copy of the run and a scoring of its feasible classes)."""


class _TooManyDraws(Exception):
    pass


def every_draw(run: ScoredRun, wanted: int) -> tuple[Placement, Placement] | None:
    """The placements of the fewest and of the most copies over every way selectHost can
    draw among tied nodes from ``run`` on (a node of each tied class: the nodes of a class
    are interchangeable); None past :data:`DRAWN_STATES` placements with a tie ahead. The
    scheduler draws each tie uniformly, so every path has a chance: the range is theirs,
    not the few paths the tie policies take."""
    seen: dict[tuple[tuple[int, int], ...], tuple[Placement, Placement]] = {}

    def walk(run: ScoredRun) -> tuple[Placement, Placement]:
        top = _best(run) if sum(run.copies.values()) < wanted else []
        while len(top) == 1:  # no draw: one way on, walked without copying the run
            run.take(min(top[0]))
            top = _best(run) if sum(run.copies.values()) < wanted else []
        if not top:
            done = _placement(run, wanted, False)
            return done, done
        key = tuple(sorted(run.copies.items()))
        found = seen.get(key)
        if found is not None:
            return found
        if len(seen) >= DRAWN_STATES:
            raise _TooManyDraws
        ends = []
        for members in top:
            branch = run.fresh()
            branch.take(min(members))
            ends.append(walk(branch))
        fewest = min((least for least, _ in ends), key=lambda p: p.fit)
        most = max((most for _, most in ends), key=lambda p: p.fit)
        found = seen[key] = (replace(fewest, tied=True), replace(most, tied=True))
        return found

    try:
        return walk(run)
    except _TooManyDraws:
        return None


def _feasible(run: ScoredRun) -> int:
    """The nodes feasible for the first copy (every class, not each group's best)."""
    return sum(len(members) for _, members in ScoredRun.feasible(run))


def _any(
    run: ScoredRun,
    feasible: Sequence[tuple[int, set[int]]],
    policy: TiePolicy,
    draw: random.Random | None,
) -> int:
    """The node ``policy`` picks among every feasible one, scores aside (:data:`ANY_NODE`);
    "fewest" and "most" weigh a node by the matching pods of its spread domains (ties: the
    lowest position)."""
    if policy in ("fewest", "most"):
        sign = 1 if policy == "fewest" else -1

        def held(p: int) -> int:
            labels = run.nodes[p].labels
            return sum(
                counts.get(labels.get(rule.topology_key, ""), 0)
                for counts, rule in zip(run.counts, run.rules.spread, strict=True)
            )

        return min((sign * held(p), min(members)) for p, members in feasible)[1]
    return _pick([members for _, members in feasible], policy, draw)


def first_domains(
    nodes: Sequence[NodeView], keys: Sequence[str], candidates: int | None
) -> list[int]:
    """The candidates (every node when None) by their values of ``keys``, as bitsets, the
    domain of the lowest position first: where a first copy lands, the later ones stay. A
    node lacking a key is in none (the affinity Filter refuses it)."""
    fitting = (1 << len(nodes)) - 1 if candidates is None else candidates
    domains: dict[tuple[str | None, ...], int] = {}
    for position in set_bits(fitting):
        labels = nodes[position].labels
        values = tuple(labels.get(key) for key in keys)
        if None not in values:
            domains[values] = domains.get(values, 0) | 1 << position
    return list(domains.values())


def scored_domains(
    nodes: Sequence[NodeView],
    rules: CopyRules,
    domains: Sequence[int],
    scores: ScoreRules | None,
    ledger: Ledger | None,
) -> list[int]:
    """The ``domains`` (bitsets over ``nodes``) the first copy can take as scored: those
    holding a node of its highest total, which selectHost draws among; every one where
    the scheduler scores only a share of the feasible nodes (numFeasibleNodesToFind), or
    where past 100 nodes no score was worked out (``scores`` None)."""
    sampled = partly_scored(nodes, rules)
    every = 0
    for domain in domains:
        every |= domain
    if not every or (sampled and scores is None):
        return list(domains)
    run = scored_run(nodes, rules, scores or ScoreRules.of(rules.requests), every, ledger)
    if sampled and _feasible(run) > feasible_nodes_to_find(nodes_to_filter(nodes, rules)):
        return list(domains)
    feasible = run.feasible()
    if not feasible:
        return list(domains)
    totals = run.totals(feasible)
    best = max(totals)
    top = 0
    for (_, members), total in zip(feasible, totals, strict=True):
        if total == best:
            for position in members:
                top |= 1 << position
    return [domain for domain in domains if domain & top]


def uncoupled(rules: CopyRules) -> bool:
    """Whether no copy can change another node's answer (no spread constraint, no
    anti-affinity wider than a node, no first copy's domain to follow): then the order of
    the copies cannot change their count, and no tie can."""
    return (
        not rules.spread and not wider_than_a_node(rules.one_per_domain) and not rules.follow_first
    )


def order_free(rules: CopyRules) -> bool:
    """Whether the count of copies is the same in any order: uncoupled copies; or one
    spread constraint, or one anti-affinity key wider than a node, and nothing else wider.

    One constraint: placing stops only when every domain with room has ``count = min +
    maxSkew``, so the least count is a full domain's, the least of ``existing + room`` over
    the domains, ``m``, whatever the order; each domain then ends at ``max(existing,
    min(existing + room, m + maxSkew))`` (``0 + maxSkew`` in place of ``m + maxSkew`` under
    fewer domains than ``minDomains``). One anti-affinity key: one copy in each domain
    with room."""
    wide = wider_than_a_node(rules.one_per_domain)
    if not rules.spread:
        return len(wide) <= 1
    return len(rules.spread) == 1 and not wide


def scored_past_sample(rules: CopyRules) -> bool:
    """Whether copies on more than 100 nodes are placed as scored: where an order can change
    their count, and under one hostname spread constraint. A count no order changes is
    placed without scores there, cheaply (:mod:`gate.scheduler.placement.grouped`): the nodes it
    takes, which only the run's later workloads see, are not knowable from a snapshot."""
    return not order_free(rules) or any(rule.topology_key == HOSTNAME for rule in rules.spread)


def capacities(
    nodes: Sequence[NodeView], rules: CopyRules, candidates: int, ledger: Ledger | None = None
) -> dict[int, int]:
    """The copies each candidate holds by its room alone (nodes holding none absent)."""
    found = {}
    room = capacity_of(rules, ledger)
    for position in set_bits(candidates):
        held = room(nodes[position])
        if held > 0:
            found[position] = held
    return found


def _pick(top: Sequence[set[int]], policy: TiePolicy, draw: random.Random | None) -> int:
    if policy == "last":
        return max(max(members) for members in top)
    if draw is None:
        return min(min(members) for members in top)
    tied = sorted(p for members in top for p in members)
    # A draw only between tied nodes: how many nodes were scored leaves the stream alone.
    return tied[draw.randrange(len(tied))] if len(tied) > 1 else tied[0]


def place_range(
    wanted: int,
    nodes: Sequence[NodeView],
    rules: CopyRules,
    candidates: int | None = None,
    *,
    ledger: Ledger | None = None,
    scores: ScoreRules | None = None,
    count_only: bool = False,
    label_bits: LabelBits | None = None,
) -> FitRange:
    """The copies placed every way the draws can go (:func:`every_draw`) while some draw
    was between nodes that are not interchangeable, or, past its bound or where the
    scheduler scores only a share, with each tie policy of :data:`POLICIES`; and, where
    the scheduler scores only a share of more feasible nodes than it looks for
    (``numFeasibleNodesToFind``), with each policy of :data:`ANY_NODE`: the least and
    the most found, and the placement of the least (ties: the earlier policy). Copies
    whose count no order changes (:func:`order_free`) are placed once. Copies held to
    the first one's domain (``rules.follow_first``) are placed in each domain the first
    can take as scored (:func:`scored_domains`): the range is over those domains and
    theirs."""
    if rules.follow_first:
        inner = replace(rules, follow_first=())
        ranges = [
            place_range(
                wanted,
                nodes,
                inner,
                domain,
                ledger=ledger,
                scores=scores,
                count_only=count_only,
                label_bits=label_bits,
            )
            for domain in scored_domains(
                nodes, inner, first_domains(nodes, rules.follow_first, candidates), scores, ledger
            )
        ]
        landed = [found for found in ranges if found.most > 0]
        if not landed:
            return FitRange(0, 0, Placement(wanted, 0, {}))
        fewest = min(landed, key=lambda found: found.least)
        return FitRange(fewest.least, max(found.most for found in landed), fewest.placement)
    first = place(
        wanted,
        nodes,
        rules,
        candidates,
        ledger=ledger,
        scores=scores,
        count_only=count_only,
        label_bits=label_bits,
    )
    sampled = partly_scored(nodes, rules)
    if order_free(rules) or not ((first.tied and first.fit > 0) or sampled):
        return FitRange(first.fit, first.fit, first)
    # The nodes described once for the other policies (the scored path: coupled copies).
    fitting = (1 << len(nodes)) - 1 if candidates is None else candidates
    start = scored_run(nodes, rules, scores or ScoreRules.of(rules.requests), fitting, ledger)
    found = [first]
    walked = None if sampled or not first.tied else every_draw(start.fresh(), wanted)
    if walked is not None:
        found += walked
    elif first.tied and first.fit > 0:
        found += [_placed(start.fresh(), wanted, policy) for policy in POLICIES[1:]]
    if sampled and _feasible(start) > feasible_nodes_to_find(nodes_to_filter(nodes, rules)):
        tried = ANY_NODE if isinstance(start, GroupedRun) and start.grouped else ANY_NODE[:2]
        found += [_placed(start.fresh(), wanted, policy, scored=False) for policy in tried]
    least = min(found, key=lambda p: p.fit)
    return FitRange(least.fit, max(p.fit for p in found), least)
