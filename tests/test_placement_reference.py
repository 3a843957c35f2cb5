"""The fit range against the scheduler replayed node by node on small clusters.

A reference written straight from upstream, apart from the placement's classes and
groups: ``pkg/scheduler/schedule_one.go`` schedulePod (a lone feasible node is taken
unscored; otherwise prioritizeNodes, then selectHost draws among the nodes of the highest
total), the PodTopologySpread Filter (filtering.go: ``matchNum + selfMatch - minMatchNum >
maxSkew`` refuses) and the default profile's scores (TaintToleration weight 3 and
NodeAffinity weight 2 over DefaultNormalizeScore, NodeResourcesFit LeastAllocated and
BalancedAllocation weight 1, PodTopologySpread weight 2 over the ScheduleAnyway constraints
or the system defaults, scoring.go; InterPodAffinity weight 2 over a preferred anti-affinity
term, scoring.go) under required anti-affinity to the copies' own labels. Every draw is
walked, so the least and the most copies over every path are known exactly:
:func:`gate.scheduler.placement.copies.place_range` must find the same two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.k8s.labels import HOSTNAME
from gate.model import NodeView
from gate.scheduler.placement.copies import CopyRules, ScoreRules, SpreadRule, place_range
from gate.scheduler.plugins.interpodaffinity.scoring import AffinityScoring
from gate.scheduler.plugins.noderesources import SCORED
from gate.scheduler.plugins.podtopologyspread.scoring import SoftConstraint, SpreadScoring
from tests.builders import node

ZONE = "topology.kubernetes.io/zone"
GI = 2**30


@dataclass(frozen=True, slots=True)
class Pod:
    """The copies' pod: its requests, its DoNotSchedule and ScheduleAnyway constraints
    (topology key, maxSkew), all selecting the copies themselves."""

    cpu: int
    memory: int
    hard: tuple[tuple[str, int], ...]
    soft: tuple[tuple[str, int], ...]
    defaulted: bool = False  # no constraint of its own: the system defaults score it
    anti: str | None = None  # the key of a required anti-affinity term to its own labels
    preferred_anti: tuple[str, int] | None = None  # a preferred one's key and weight
    min_domains: int = 1  # every DoNotSchedule constraint's minDomains


SYSTEM_DEFAULTS = ((HOSTNAME, 3), (ZONE, 5))  # plugin.go systemDefaultConstraints


def _soft(pod: Pod) -> tuple[tuple[str, int], ...]:
    return SYSTEM_DEFAULTS if pod.defaulted and not pod.hard and not pod.soft else pod.soft


def _require_all(pod: Pod) -> bool:
    return bool(pod.hard or pod.soft)


@dataclass(frozen=True, slots=True)
class Cluster:
    nodes: tuple[NodeView, ...]
    matching: tuple[int, ...]  # by node, the bound pods every constraint's selector matches
    taints: tuple[int, ...]  # by node, its PreferNoSchedule taints the pod does not tolerate
    preferred: tuple[int, ...]  # by node, the weights of the preferred terms it matches


def _default_normalize(scores: Sequence[int], reverse: bool) -> list[int]:
    # helper/normalize_score.go DefaultNormalizeScore
    high = max(scores, default=0)
    if high == 0:
        return [100 if reverse else 0 for _ in scores]
    scaled = [100 * s // high for s in scores]
    return [100 - s for s in scaled] if reverse else scaled


def _least(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    # least_allocated.go leastResourceScorer, weight 1 per resource
    total = count = 0
    for r, a in zip(requested, allocatable, strict=True):
        if a == 0:
            continue
        total += 0 if r > a else (a - r) * 100 // a
        count += 1
    return total // count if count else 0


def _balanced(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    # balanced_allocation.go balancedResourceScorer
    fractions = [min(r / a, 1.0) for r, a in zip(requested, allocatable, strict=True) if a]
    std = abs((fractions[0] - fractions[1]) / 2) if len(fractions) == 2 else 0.0
    return int((1 - std) * 100)


def _domain_counts(
    cluster: Cluster, copies: Sequence[int], key: str, keys: Sequence[str]
) -> dict[str, int]:
    # filtering.go calPreFilterState: only nodes carrying every constraint's key count
    counts: dict[str, int] = {}
    for i, n in enumerate(cluster.nodes):
        if all(k in n.labels for k in keys):
            value = n.labels[key]
            counts[value] = counts.get(value, 0) + cluster.matching[i] + copies[i]
    return counts


def _fits(cluster: Cluster, pod: Pod, copies: Sequence[int], i: int) -> bool:
    n = cluster.nodes[i]
    held = copies[i] + 1
    if n.pod_count + held > n.allocatable["pods"]:
        return False
    for resource, each in (("cpu", pod.cpu), ("memory", pod.memory)):
        if n.requested.get(resource, 0) + held * each > n.allocatable[resource]:
            return False
    if pod.anti is not None:
        # filtering.go satisfyPodAntiAffinity and satisfyExistingPodsAntiAffinity: a
        # domain holding a matching pod (a copy carries the term too) is refused; a node
        # without the key is not
        value = n.labels.get(pod.anti)
        if value is not None and any(
            (cluster.matching[j] or copies[j]) and other.labels.get(pod.anti) == value
            for j, other in enumerate(cluster.nodes)
        ):
            return False
    keys = [key for key, _ in pod.hard]
    if not all(k in n.labels for k in keys):
        return False
    for key, skew in pod.hard:
        value = n.labels[key]
        counts = _domain_counts(cluster, copies, key, keys)
        # filtering.go minMatchNum: 0 while fewer domains than minDomains are eligible
        least = min(counts.values()) if len(counts) >= pod.min_domains else 0
        if counts[value] + 1 - least > skew:
            return False
    return True


def _spread_scores(
    cluster: Cluster, pod: Pod, copies: Sequence[int], feasible: Sequence[int]
) -> list[int]:
    # scoring.go initPreScoreState, Score and NormalizeScore, explicit constraints
    soft = _soft(pod)
    keys = [key for key, _ in soft] if _require_all(pod) else []
    kept = [i for i in feasible if all(k in cluster.nodes[i].labels for k in keys)]
    raw: dict[int, int] = {}
    for i in kept:
        labels = cluster.nodes[i].labels
        score = 0.0
        for key, skew in soft:
            if key not in labels:
                continue
            if key == HOSTNAME:
                size, count = len(kept), cluster.matching[i] + copies[i]
            else:
                size = len({cluster.nodes[j].labels.get(key, "") for j in kept})
                count = sum(
                    cluster.matching[j] + copies[j]
                    for j, other in enumerate(cluster.nodes)
                    if all(k in other.labels for k in keys)
                    and other.labels.get(key, "") == labels[key]
                )
            score += count * math.log(size + 2) + (skew - 1)
        raw[i] = math.floor(score + 0.5)
    low, high = min(raw.values(), default=0), max(raw.values(), default=0)
    return [
        0 if i not in raw else 100 if high == 0 else 100 * (high + low - raw[i]) // high
        for i in feasible
    ]


def _interpod_scores(
    cluster: Cluster, pod: Pod, copies: Sequence[int], feasible: Sequence[int]
) -> list[int]:
    # interpodaffinity/scoring.go processExistingPod: the pod's term takes its weight off
    # every node sharing a matching pod's domain, and a copy's own term takes it off again
    assert pod.preferred_anti is not None
    key, weight = pod.preferred_anti
    by_value: dict[str, int] = {}
    for j, other in enumerate(cluster.nodes):
        value = other.labels.get(key)
        if value is not None:
            lost = weight * cluster.matching[j] + 2 * weight * copies[j]
            by_value[value] = by_value.get(value, 0) - lost
    raw = [by_value.get(cluster.nodes[i].labels.get(key, ""), 0) for i in feasible]
    if not by_value:
        return [0 for _ in raw]  # PreScore found no term to count: Skip
    low, high = min(raw), max(raw)
    return [int(100 * ((r - low) / (high - low))) if high > low else 0 for r in raw]


def _totals(
    cluster: Cluster, pod: Pod, copies: Sequence[int], feasible: Sequence[int]
) -> list[int]:
    totals = []
    # resource_allocation.go: LeastAllocated reads requests with the non-zero defaults,
    # BalancedAllocation as written, and skips a best-effort pod
    nonzero = (pod.cpu or 100, pod.memory or 200 * 2**20)
    for i in feasible:
        n = cluster.nodes[i]
        allocatable = (n.allocatable["cpu"], n.allocatable["memory"])
        held = copies[i]
        least = [n.requested.get(r, 0) + (held + 1) * nonzero[k] for k, r in enumerate(SCORED)]
        total = _least(least, allocatable)
        if pod.cpu or pod.memory:
            wanted = (pod.cpu, pod.memory)
            balanced = [
                n.requested.get(r, 0) + (held + 1) * wanted[k] for k, r in enumerate(SCORED)
            ]
            total += _balanced(balanced, allocatable)
        totals.append(total)
    taints = _default_normalize([cluster.taints[i] for i in feasible], reverse=True)
    preferred = _default_normalize([cluster.preferred[i] for i in feasible], reverse=False)
    for k in range(len(feasible)):
        totals[k] += 3 * taints[k] + 2 * preferred[k]
    if pod.preferred_anti is not None:
        for k, score in enumerate(_interpod_scores(cluster, pod, copies, feasible)):
            totals[k] += 2 * score
    if _soft(pod):
        for k, score in enumerate(_spread_scores(cluster, pod, copies, feasible)):
            totals[k] += 2 * score
    return totals


def reference_range(cluster: Cluster, pod: Pod, wanted: int) -> tuple[int, int]:
    """The least and the most copies over every way selectHost can draw."""
    seen: dict[tuple[int, ...], tuple[int, int]] = {}

    def walk(copies: tuple[int, ...]) -> tuple[int, int]:
        placed = sum(copies)
        if placed == wanted:
            return placed, placed
        if copies in seen:
            return seen[copies]
        feasible = [i for i in range(len(cluster.nodes)) if _fits(cluster, pod, copies, i)]
        if not feasible:
            return placed, placed
        if len(feasible) == 1:
            top = feasible
        else:
            totals = _totals(cluster, pod, copies, feasible)
            top = [i for i, t in zip(feasible, totals, strict=True) if t == max(totals)]
        ends = [walk(tuple(c + (j == i) for j, c in enumerate(copies))) for i in top]
        found = seen[copies] = (min(e[0] for e in ends), max(e[1] for e in ends))
        return found

    return walk(tuple(0 for _ in cluster.nodes))


def fitgate_range(cluster: Cluster, pod: Pod, wanted: int) -> tuple[int, int]:
    nodes = cluster.nodes
    keys = [key for key, _ in pod.hard]
    hard = tuple(
        SpreadRule(key, skew, _domain_counts(cluster, [0] * len(nodes), key, keys), pod.min_domains)
        for key, skew in pod.hard
    )
    soft = tuple(
        SoftConstraint(
            key, skew, {i: m for i, m in enumerate(cluster.matching) if m}, self_match=True
        )
        for key, skew in _soft(pod)
    )
    position = {n.name: i for i, n in enumerate(nodes)}
    scores = replace(
        ScoreRules.of({"cpu": pod.cpu, "memory": pod.memory}),
        taints=lambda n: cluster.taints[position[n.name]],
        affinity=lambda n: cluster.preferred[position[n.name]],
        spread=SpreadScoring(soft, require_all=_require_all(pod), counted=-1) if soft else None,
    )
    if pod.preferred_anti is not None:
        key, weight = pod.preferred_anti
        existing: dict[str, int] = {}
        for i, n in enumerate(nodes):
            if key in n.labels and cluster.matching[i]:
                value = n.labels[key]
                existing[value] = existing.get(value, 0) - weight * cluster.matching[i]
        scores = replace(scores, interpod=AffinityScoring((key,), (existing,), (-2 * weight,)))
    candidates = (1 << len(nodes)) - 1
    if pod.anti is not None:
        for i in range(len(nodes)):
            if not _fits(cluster, replace(pod, hard=(), cpu=0, memory=0), [0] * len(nodes), i):
                candidates &= ~(1 << i)
    rules = CopyRules(
        {"cpu": pod.cpu, "memory": pod.memory},
        spread=hard,
        one_per_domain=() if pod.anti is None else (pod.anti,),
    )
    found = place_range(wanted, nodes, rules, candidates, scores=scores)
    return found.least, found.most


@st.composite
def _clusters(draw: st.DrawFn) -> Cluster:
    count = draw(st.integers(2, 5))
    nodes = []
    for i in range(count):
        name = f"n{i}"
        labels = {HOSTNAME: name}
        zone = draw(st.sampled_from(["a", "b", "c", None]))
        if zone is not None:
            labels[ZONE] = zone
        cpu = draw(st.sampled_from([2000, 4000]))
        memory = draw(st.sampled_from([4 * GI, 8 * GI]))
        nodes.append(
            node(
                name,
                cpu=cpu,
                memory=memory,
                pods=draw(st.integers(1, 4)),
                labels=labels,
                requested={
                    "cpu": draw(st.sampled_from([0, 500, 1000])),
                    "memory": draw(st.sampled_from([0, GI, 2 * GI])),
                },
            )
        )
    matching = tuple(draw(st.integers(0, 2)) for _ in nodes)
    taints = tuple(draw(st.sampled_from([0, 0, 1])) for _ in nodes)
    preferred = tuple(draw(st.sampled_from([0, 0, 5, 10])) for _ in nodes)
    return Cluster(tuple(nodes), matching, taints, preferred)


_CONSTRAINTS = st.lists(
    st.tuples(st.sampled_from([ZONE, HOSTNAME]), st.integers(1, 2)),
    max_size=2,
    unique_by=lambda c: c[0],
)


@settings(max_examples=150, deadline=None)
@given(
    cluster=_clusters(),
    cpu=st.sampled_from([0, 250, 500, 1000]),
    memory=st.sampled_from([0, GI // 2, GI]),
    defaulted=st.booleans(),
    anti=st.sampled_from([None, None, HOSTNAME, ZONE]),
    preferred_anti=st.sampled_from([None, None, (HOSTNAME, 10), (ZONE, 30)]),
    hard=_CONSTRAINTS,
    soft=_CONSTRAINTS,
    wanted=st.integers(2, 7),
    min_domains=st.sampled_from([1, 1, 2, 3, 4]),
)
def test_the_range_is_every_draw_of_the_scheduler_replayed(
    cluster: Cluster,
    cpu: int,
    memory: int,
    hard: list[tuple[str, int]],
    soft: list[tuple[str, int]],
    wanted: int,
    defaulted: bool,
    anti: str | None,
    preferred_anti: tuple[str, int] | None,
    min_domains: int,
) -> None:
    pod = Pod(cpu, memory, tuple(hard), tuple(soft), defaulted, anti, preferred_anti, min_domains)
    assert fitgate_range(cluster, pod, wanted) == reference_range(cluster, pod, wanted)
