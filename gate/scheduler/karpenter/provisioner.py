"""Would Karpenter launch nodes for a workload's copies that fit no existing node?

``sigs.k8s.io/karpenter`` v1.8, pkg/controllers/provisioning/scheduling/scheduler.go
``Scheduler.add``: each pod goes to one of the NodeClaims this run already plans (fewest
pods first), else to a new NodeClaim of the first NodePool (weight desc, then name desc:
provisioner.go ``NewScheduler``, ``OrderByWeight``) that takes it. A pool first drops the
instance types whose capacity exceeds what its ``spec.limits`` leave
(``filterByRemainingResources``: ``all available instance types exceed limits for
nodepool``), then ``NodeClaim.CanAdd`` (nodeclaim.go) checks, in order, its taints
(pkg/scheduling/taints.go), host ports (hostportusage.go), requirements
(pkg/scheduling/requirements.go ``Compatible``), topology (topology.go, topologygroup.go)
and the instance types with room for the DaemonSet overhead and the claim's pods and an
available offering (``filterInstanceTypesByRequirements``, ``InstanceTypeFilterError``). A
new claim subtracts the largest capacity of its remaining types from the pool's limits
(``subtractMax``); the run's workloads share what is left, in call order. ``limits.nodes``
is not enforced by the simulation (docs/autoscalers.md, Corrections §1).

A pod that fits nowhere is relaxed (preferences.go ``Relax``): its first required node
affinity term dropped while another remains, then its heaviest preferred node affinity term
(the heaviest one is read as required at first), then PreferNoSchedule taints tolerated
when some pool has one; the errors reported are those of the last attempt, one per pool in
pool order, joined ``; `` after ``Failed to schedule pod, `` (events.go).

Copies are alike: with no zonal rule coupling them a claim is filled in arithmetic (as many
copies as its roomiest type holds, capped by the hostname rules); with a zonal spread,
affinity or anti-affinity they are placed one at a time. docs/karpenter.md lists what is
modelled and what is not.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gate.autoscaling import DaemonSet
from gate.k8s.quantity import format_amount
from gate.karpenter import NODEPOOL_LABEL, Catalog, KarpenterState, NodePool
from gate.model import INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD, HostPort, NodeView
from gate.scheduler.framework import CycleState
from gate.scheduler.karpenter.catalog import NOTE as RUNNING_NOTE
from gate.scheduler.karpenter.catalog import capacity_of, running_catalog
from gate.scheduler.karpenter.pools import (
    PREFER_NO_SCHEDULE,
    TOLERATE_PREFER_NO_SCHEDULE,
    Pool,
    PoolType,
    make_pool,
    min_values_unmet,
    node_affinity,
    offered,
    selector_reqs,
    term_reqs,
    untolerated,
)
from gate.scheduler.karpenter.requirements import (
    HOSTNAME,
    IN,
    ZONE,
    Req,
    Reqs,
    compatible,
    get,
    intersects,
    merged,
    text,
    well_known,
)
from gate.scheduler.plugins.interpodaffinity.filtering import AffinityState
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState
from gate.scheduler.profile import PodProfile

NO_NODEPOOLS = "no nodepools found"
"""provisioner.go ``Schedule``: with no Ready NodePool Karpenter logs this and publishes no
event."""
FILTERED_ALL = "nodepool requirements filtered out all available instance types"
"""scheduler.go ``add``: every Ready pool's requirements filtered out every type."""
LIMITS = "all available instance types exceed limits for nodepool"
TAINT = "did not tolerate taint"
REQUIREMENTS = "incompatible requirements"
HOST_PORT = "pod hostport conflicts with existing hostport configuration"
TOPOLOGY = "unsatisfiable topology constraint"
FAILED = "Failed to schedule pod, "
MIN_VALUES = "minValues requirement is not met for label(s)"
"""cloudprovider/types.go ``SatisfiesMinValues`` (the default Strict ``MinValuesPolicy``)."""


@dataclass(frozen=True, slots=True)
class PoolScaleUp:
    """A NodePool launching ``nodes`` new nodes holding ``copies`` copies; ``instance_types``
    the types a new node may take, in Karpenter's order (price, then name)."""

    pool: str
    nodes: int
    copies: int
    instance_types: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PoolDecision:
    """For ``wanted`` copies that fit no existing node: the pools that launch nodes for
    them, how many are ``placed``, and for the first copy no pool takes, each Ready pool's
    error in pool order as ``(pool, reason, text)``: ``reason`` a short stable key,
    ``text`` Karpenter's own. ``unjudged``: why nothing can be judged."""

    wanted: int
    scale_up: tuple[PoolScaleUp, ...] = ()
    placed: int = 0
    errors: tuple[tuple[str, str, str], ...] = ()
    unjudged: str = ""

    @property
    def blocked(self) -> int:
        return self.wanted - self.placed

    @property
    def nodes(self) -> int:
        return sum(s.nodes for s in self.scale_up)

    @property
    def reasons(self) -> dict[str, int]:
        """Each reason with the number of pools giving it."""
        return dict(Counter(reason for _, reason, _ in self.errors))

    @property
    def message(self) -> str:
        """Karpenter's FailedScheduling event for a blocked copy ("" when none is)."""
        if not self.blocked or not self.errors:
            return ""
        return FAILED + "; ".join(t for _, _, t in self.errors)


def _resources(amounts: Mapping[str, int]) -> str:
    """pkg/utils/resources/resources.go ``String``: the quantities as JSON, keys sorted."""
    shown = {r: format_amount(r, a) for r, a in sorted(amounts.items()) if a or r == "pods"}
    return json.dumps(shown, separators=(",", ":")) if shown else "{}"


def _add(a: Mapping[str, int], b: Mapping[str, int], times: int = 1) -> dict[str, int]:
    total = dict(a)
    for r, amount in b.items():
        total[r] = total.get(r, 0) + times * amount
    return total


def _fits(requests: Mapping[str, int], allocatable: Mapping[str, int]) -> bool:
    """resources.go ``Fits``."""
    return all(amount <= allocatable.get(r, 0) for r, amount in requests.items())


def _room(it: PoolType, daemon: Mapping[str, int], pod: Mapping[str, int]) -> int:
    """How many copies a type holds beside the DaemonSet overhead."""
    count: int | None = None
    for r, amount in pod.items():
        if amount > 0:
            free = (it.allocatable.get(r, 0) - daemon.get(r, 0)) // amount
            count = free if count is None else min(count, free)
    return max(count if count is not None else 0, 0)


def _filter_error(
    types: Sequence[PoolType], reqs: Reqs, total: Mapping[str, int], shown: Mapping[str, int]
) -> tuple[tuple[PoolType, ...], tuple[str, str] | None]:
    """nodeclaim.go ``filterInstanceTypesByRequirements`` and ``InstanceTypeFilterError``."""
    kept = []
    met = fit = has = met_fit = met_has = fit_has = False
    for it in types:
        compat = intersects(it.reqs, reqs) is None
        fits = _fits(total, it.allocatable)
        offer = any(offered(reqs, o) for o, _ in it.offerings)
        met, fit, has = met or compat, fit or fits, has or offer
        met_fit = met_fit or (compat and fits and not offer)
        met_has = met_has or (compat and offer and not fits)
        fit_has = fit_has or (fits and offer and not compat)
        if compat and fits and offer:
            kept.append(it)
    unmet = min_values_unmet(kept, reqs) if kept else []
    if unmet:
        reason = MIN_VALUES
        said = f"{MIN_VALUES} (label(s)=[{' '.join(unmet)}])"
        return (), (reason, f"{said}, requirements={text(reqs)}, resources={_resources(shown)}")
    if kept:
        return tuple(kept), None
    if not met and not fit and not has:
        reason = (
            "no instance type met the scheduling requirements or had enough resources "
            "or had a required offering"
        )
    elif not met and not fit:
        reason = "no instance type met the scheduling requirements or had enough resources"
    elif not met and not has:
        reason = "no instance type met the scheduling requirements or had a required offering"
    elif not fit and not has:
        reason = "no instance type had enough resources or had a required offering"
    elif not met:
        reason = "no instance type met all requirements"
    elif not fit:
        reason = "no instance type has enough resources"
    elif not has:
        reason = "no instance type has the required offering"
    elif met_fit:
        reason = (
            "no instance type which met the scheduling requirements and had enough "
            "resources, had a required offering"
        )
    elif fit_has:
        reason = (
            "no instance type which had enough resources and the required offering met "
            "the scheduling requirements"
        )
    elif met_has:
        reason = (
            "no instance type which met the scheduling requirements and the required "
            "offering had the required resources"
        )
    else:
        reason = "no instance type met the requirements/resources/offering tuple"
    said = f"{reason}, requirements={text(reqs)}, resources={_resources(shown)}"
    if not fit and shown.get("cpu", 0) >= 10**9:  # 1M cores, in millicores
        said += " (CPU request >= 1 Million, m vs M typo?)"
    return (), (reason, said)


def _order(claims: Sequence[_Claim]) -> tuple[str, ...]:
    """cloudprovider ``InstanceTypes.OrderByPrice`` over the types the claims may take: each
    at its cheapest available offering compatible with a claim holding it, then by name."""
    prices: dict[str, float] = {}
    for claim in claims:
        for it in claim.types:
            found = [p for o, p in it.offerings if offered(claim.reqs, o)]
            cheapest = min(found) if found else float("inf")
            prices[it.name] = min(prices.get(it.name, cheapest), cheapest)
    return tuple(sorted(prices, key=lambda name: (prices[name], name)))


def _conflict(wanted: Sequence[HostPort], used: frozenset[HostPort]) -> bool:
    """hostportusage.go ``Conflicts``: same port and protocol, same IP or either 0.0.0.0."""
    for port in wanted:
        for other in used:
            same = port.port == other.port and port.protocol == other.protocol
            if same and (port.ip == other.ip or "0.0.0.0" in (port.ip, other.ip)):
                return True
    return False


@dataclass(frozen=True, slots=True)
class _Variant:
    """The pod as one relaxation step leaves it: its requirements (nodeSelector, the
    heaviest preferred term, the first required term), its strict ones, its tolerations."""

    reqs: Mapping[str, Req]
    strict: Mapping[str, Req]
    tolerations: tuple[Mapping[str, Any], ...]


def _variants(spec: Mapping[str, Any], pod: PodProfile, pns: bool) -> Iterator[_Variant]:
    """preferences.go ``Relax``, node affinity and PreferNoSchedule (module doc)."""
    required, preferred = node_affinity(spec)
    preferred = sorted(preferred, key=lambda t: -_weight(t))
    tolerations = tuple(pod.tolerations)
    base = selector_reqs(spec)
    while True:
        strict = merged(base, term_reqs(required[0]) if required else [])
        reqs = strict
        if preferred:
            pref = preferred[0].get("preference")
            reqs = merged(base, term_reqs(pref) if isinstance(pref, Mapping) else [])
            reqs = merged(reqs, term_reqs(required[0]) if required else [])
        yield _Variant(reqs, strict, tolerations)
        if len(required) > 1:
            required = required[1:]
        elif preferred:
            preferred = preferred[1:]
        elif pns and TOLERATE_PREFER_NO_SCHEDULE not in tolerations:
            tolerations = (*tolerations, TOLERATE_PREFER_NO_SCHEDULE)
        else:
            return


def _weight(term: Mapping[str, Any]) -> int:
    weight = term.get("weight")
    return weight if isinstance(weight, int) else 0


@dataclass(slots=True)
class _Claim:
    """A NodeClaim this workload plans: its pool, requirements, remaining type options
    (those fitting its pods) and pods; ``zone`` when a zonal spread pinned it."""

    pool: Pool
    reqs: Mapping[str, Req]
    types: tuple[PoolType, ...]
    pods: int
    zone: str = ""
    full: bool = False


@dataclass(slots=True)
class _Spread:
    """The pod's DoNotSchedule spread over zones (topologygroup.go
    ``nextDomainTopologySpread``): counts per zone, existing matching pods first."""

    max_skew: int
    min_domains: int
    self_match: bool
    counts: dict[str, int]

    def minimum(self, pod_domains: Req) -> int:
        """``domainMinCount``: over the zones the pod may use; 0 below ``minDomains``."""
        counts = [c for z, c in self.counts.items() if pod_domains.has(z)]
        if len(counts) < self.min_domains or not counts:
            return 0
        return min(counts)

    def next_zone(self, pod_domains: Req, zones: Sequence[str]) -> str:
        low = self.minimum(pod_domains)
        best, best_count = "", 2**31
        for zone in sorted(zones):
            count = self.counts.get(zone, 0) + (1 if self.self_match else 0)
            if count - low <= self.max_skew and count < best_count:
                best, best_count = zone, count
        return best

    def allows(self, zone: str) -> bool:
        return True

    def record(self, zone: str) -> None:
        if self.self_match:
            self.counts[zone] = self.counts.get(zone, 0) + 1

    def error(self, pod_domains: Req, node_domains: Req) -> str:
        return _topology_error("topology spread", self.counts, pod_domains, node_domains)


@dataclass(slots=True)
class _AntiZone:
    """The pod's required anti-affinity over zones, and existing pods' anti-affinity to it
    (topologygroup.go ``nextDomainAntiAffinity``): only zones with none of the pods it
    avoids. A copy matching its own term blocks the zone it lands in; Karpenter blocks every
    zone a claim could land in and launches the rest in later loops, so over its loops each
    copy takes an empty zone of its own (here the first by name)."""

    counts: dict[str, int]
    self_match: bool

    def allows(self, zone: str) -> bool:
        return self.counts.get(zone, 0) == 0

    def next_zone(self, pod_domains: Req, zones: Sequence[str]) -> str:
        return next((z for z in sorted(zones) if self.allows(z) and pod_domains.has(z)), "")

    def record(self, zone: str) -> None:
        if self.self_match:
            self.counts[zone] = self.counts.get(zone, 0) + 1

    def error(self, pod_domains: Req, node_domains: Req) -> str:
        return _topology_error("pod anti-affinity", self.counts, pod_domains, node_domains)


@dataclass(slots=True)
class _AffinityZone:
    """The pod's required affinity over zones (topologygroup.go ``nextDomainAffinity``):
    zones where the pods it wants run; with none anywhere, a pod matching its own terms may
    start in any zone, and the copies after it follow it there."""

    counts: dict[str, int]
    self_match: bool

    def allows(self, zone: str) -> bool:
        if self.counts.get(zone, 0) > 0:
            return True
        return self.self_match and not any(self.counts.values())

    def next_zone(self, pod_domains: Req, zones: Sequence[str]) -> str:
        return next((z for z in sorted(zones) if self.allows(z) and pod_domains.has(z)), "")

    def record(self, zone: str) -> None:
        if self.self_match:
            self.counts[zone] = self.counts.get(zone, 0) + 1

    def error(self, pod_domains: Req, node_domains: Req) -> str:
        return _topology_error("pod affinity", self.counts, pod_domains, node_domains)


@dataclass(frozen=True, slots=True)
class _HostAffinity:
    """The pod's required affinity over hostnames: a new node runs none of the pods it
    wants, so with such pods running no new claim takes it; with none, a pod matching its
    own terms starts one claim and the copies after it join that one."""

    counts: Mapping[str, int]
    self_match: bool

    def refuses(self, claims: int) -> bool:
        return any(self.counts.values()) or not self.self_match or claims > 0

    def error(self, hostname: Req) -> str:
        return _topology_error("pod affinity", self.counts, Req(HOSTNAME, True), hostname, HOSTNAME)


def _topology_error(
    kind: str, domains: Mapping[str, int], pod: Req, node: Req, key: str = ZONE
) -> str:
    """topology.go ``topologyError.Error`` (its parenthesis left open, as upstream's)."""
    counts = sorted(domains.items())
    shown = ", ".join(f"{z}: {c}" for z, c in counts[:25])
    if len(counts) > 25:
        shown += f" and {len(counts) - 25} other(s)"
    return (
        f"{TOPOLOGY} for {kind}, key={key} (counts = {shown}, "
        f"podDomains = {pod}, nodeDomains = {node}"
    )


Zonal = _Spread | _AntiZone | _AffinityZone


def _spreads(
    cycle: CycleState, zones: Sequence[str], pod: PodProfile
) -> tuple[list[Zonal], int | None, _HostAffinity | None]:
    """The zonal rules (spreads, then anti-affinity) and the most copies one claim may hold
    by the hostname spreads (each new claim is a new hostname domain, whose global minimum
    is 0) and a self-matching zonal anti-affinity (one copy a zone)."""
    spreads: list[Zonal] = []
    antis: list[Zonal] = []
    host: _HostAffinity | None = None
    cap: int | None = None
    for prepared in cycle:
        state = prepared.state
        if prepared.plugin.name == INTER_POD_AFFINITY and isinstance(state, AffinityState):
            terms = [t for t in state.anti_affinity_terms if t.topology_key == ZONE]
            existing = {z: n for (k, z), n in state.existing_anti.items() if k == ZONE and n}
            if terms or existing:
                counts = {z: 0 for z in zones}
                counts.update({z: n for (k, z), n in state.anti_counts.items() if k == ZONE})
                for z, n in existing.items():
                    counts[z] = counts.get(z, 0) + n
                mine = any(t.matches(pod.namespace, pod.labels) for t in terms)
                antis.append(_AntiZone(counts, mine))
                if mine:
                    cap = 1
            keys = {t.topology_key for t in state.affinity_terms}
            if ZONE in keys:
                wanted = {z: n for (k, z), n in state.affinity_counts.items() if k == ZONE}
                antis.append(_AffinityZone(wanted, state.self_match))
            if HOSTNAME in keys:
                on = {h: n for (k, h), n in state.affinity_counts.items() if k == HOSTNAME}
                host = _HostAffinity(on, state.self_match)
            continue
        if prepared.plugin.name != POD_TOPOLOGY_SPREAD or not isinstance(state, SpreadState):
            continue
        for i, constraint in enumerate(state.constraints):
            if constraint.topology_key == ZONE:
                counts = {z: 0 for z in zones}
                counts.update(state.counts[i])
                spreads.append(
                    _Spread(
                        constraint.max_skew,
                        constraint.min_domains,
                        state.self_match[i],
                        counts,
                    )
                )
            elif constraint.topology_key == HOSTNAME and state.self_match[i]:
                cap = constraint.max_skew if cap is None else min(cap, constraint.max_skew)
    return [*spreads, *antis], cap, host


Attempt = tuple[_Claim | None, list[tuple[str, str, str]]]


@dataclass(slots=True)
class Provisioner:
    """One run's Karpenter: its Ready dynamic NodePools in order, what their limits leave
    (shared by the run's workloads in call order), and what the run must say (``notes``)."""

    pools: tuple[Pool, ...]
    remaining: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    unjudged: str = ""
    allowed: frozenset[str] = frozenset()
    zones: tuple[str, ...] = ()
    placeholders: int = 0
    host: _HostAffinity | None = None
    """The workload being decided's affinity over hostnames."""
    planned: int = 0
    """The claims the workload being decided plans so far."""
    """nodeclaim.go ``NewNodeClaim``: the hostname placeholders numbered so far."""

    @classmethod
    def of(
        cls,
        state: KarpenterState,
        catalog: Catalog | None,
        daemon_sets: tuple[DaemonSet, ...],
        nodes: tuple[NodeView, ...],
    ) -> Provisioner | None:
        """The run's Karpenter, or None when the snapshot recorded no NodePool."""
        if not state.pools:
            return None
        notes: list[str] = []
        if catalog is None:
            catalog = running_catalog(nodes)
            names = ", ".join(t.name for t in catalog.types) or "none"
            notes.append(RUNNING_NOTE.format(types=names))
        extra = {k for t in catalog.types for k in t.labels}
        extra |= {r.key for t in catalog.types for o in t.offerings for r in o.requirements}
        allowed = well_known(extra)
        ready: list[NodePool] = []
        for pool in state.pools:
            if pool.replicas is not None:
                notes.append(
                    f"NodePool {pool.name} is static (replicas: {pool.replicas}): "
                    "it provisions no node for pods"
                )
            elif not pool.ready:
                why = f" ({pool.not_ready})" if pool.not_ready else ""
                notes.append(f"NodePool {pool.name} is not Ready{why}: Karpenter ignores it")
            else:
                ready.append(pool)
        ready.sort(key=lambda p: p.name, reverse=True)
        ready.sort(key=lambda p: -p.weight)
        classes = {(c.kind, c.name): c for c in state.node_classes}
        pools = []
        for pool in ready:
            node_class = classes.get((pool.node_class[1], pool.node_class[2]))
            made = make_pool(pool, catalog.types, node_class, daemon_sets, allowed)
            if not made.types:
                notes.append(
                    f"NodePool {pool.name}: its requirements filter out every instance "
                    "type: Karpenter skips it"
                )
                continue
            pools.append(made)
        remaining = {p.name: dict(p.limits) for p in pools if p.limits is not None}
        for node in nodes:
            left = remaining.get(node.labels.get(NODEPOOL_LABEL, ""))
            if left is not None:
                _subtract(left, capacity_of(node))
        for claim in state.claims:
            left = remaining.get(claim.pool)
            if left is not None and not claim.node_name:
                _subtract(left, claim.capacity)
        zones = {z for p in pools for t in p.types for z in _zones(merged(p.reqs, t.reqs.values()))}
        return cls(
            tuple(pools),
            remaining,
            tuple(notes),
            "" if ready else NO_NODEPOOLS,
            allowed,
            tuple(sorted(zones)),
        )

    def decide(
        self, spec: Mapping[str, Any], cycle: CycleState, pod: PodProfile, left: int
    ) -> PoolDecision:
        """Where the ``left`` copies of the workload's pod (prepared as ``cycle``) go when no
        existing node takes them; the pools' remaining limits are updated."""
        if left <= 0:
            return PoolDecision(0)
        if self.unjudged:
            return PoolDecision(left, unjudged=self.unjudged)
        if not self.pools:
            return PoolDecision(left, errors=(("", FILTERED_ALL, FILTERED_ALL),))
        requests = {r: a for r, a in pod.requests.items() if a}
        requests["pods"] = 1
        spreads, cap, self.host = _spreads(cycle, self.zones, pod)
        if pod.wanted_ports or any(
            t.topology_key == HOSTNAME and t.matches(pod.namespace, pod.labels)
            for t in pod.pod_anti_affinity
        ):
            cap = 1
        pns = any(t.effect == PREFER_NO_SCHEDULE for p in self.pools for t in p.taints)
        variants = list(_variants(spec, pod, pns))
        claims: list[_Claim] = []
        self.planned = 0
        placed = 0
        errors: list[tuple[str, str, str]] = []
        while placed < left:
            claim, errors = self._place(claims, variants, pod, requests, spreads, cap)
            if claim is None:
                break
            if not spreads and claim.pods == 1 and claim is claims[-1]:
                more = self._fill(claim, requests, left - placed, cap)
                placed += more
            else:
                placed += 1
        by_pool: dict[str, list[_Claim]] = {}
        for claim in claims:
            by_pool.setdefault(claim.pool.name, []).append(claim)
        scale_up = []
        for pool in self.pools:
            mine = by_pool.get(pool.name)
            if not mine:
                continue
            scale_up.append(
                PoolScaleUp(pool.name, len(mine), sum(c.pods for c in mine), _order(mine))
            )
        return PoolDecision(left, tuple(scale_up), placed, tuple(errors) if placed < left else ())

    def _fill(self, claim: _Claim, requests: Mapping[str, int], left: int, cap: int | None) -> int:
        """A new claim filled in arithmetic: as many copies as its roomiest type holds."""
        rooms = {it.name: _room(it, claim.pool.daemon, requests) for it in claim.types}
        count = min(left, max(rooms.values(), default=1))
        if cap is not None:
            count = min(count, cap)
        count = max(count, 1)
        if any(r.min_values is not None for r in claim.reqs.values()):
            for size in sorted({min(r, count) for r in rooms.values()}, reverse=True):
                kept = [it for it in claim.types if rooms[it.name] >= size]
                if size == 1 or not min_values_unmet(kept, claim.reqs):
                    count = size
                    break
        claim.pods = count
        claim.types = tuple(it for it in claim.types if rooms[it.name] >= count)
        claim.full = True
        return count

    def _place(
        self,
        claims: list[_Claim],
        variants: Sequence[_Variant],
        pod: PodProfile,
        requests: Mapping[str, int],
        spreads: list[Zonal],
        cap: int | None,
    ) -> Attempt:
        """``Scheduler.add`` for one copy, relaxed step by step (``trySchedule``)."""
        errors: list[tuple[str, str, str]] = []
        for variant in variants:
            for claim in sorted((c for c in claims if not c.full), key=lambda c: c.pods):
                if self._join(claim, variant, requests, spreads, cap):
                    return claim, []
            errors = []
            for pool in self.pools:
                made = self._new(pool, variant, pod, requests, spreads)
                if isinstance(made, _Claim):
                    claims.append(made)
                    self.planned = len(claims)
                    left = self.remaining.get(pool.name)
                    if left is not None:
                        _subtract_max(left, made.types)
                    self._record(made, spreads)
                    return made, []
                errors.append((pool.name, *made))
        return None, errors

    def _join(
        self,
        claim: _Claim,
        variant: _Variant,
        requests: Mapping[str, int],
        spreads: list[Zonal],
        cap: int | None,
    ) -> bool:
        """``NodeClaim.CanAdd`` then ``Add`` for one more copy on a planned claim."""
        if cap is not None and claim.pods >= cap:
            claim.full = True
            return False
        if untolerated(claim.pool.taints, variant.tolerations):
            return False
        if compatible(claim.reqs, variant.reqs, self.allowed) is not None:
            return False
        reqs = merged(claim.reqs, variant.reqs.values())
        pod_domains = get(variant.strict, ZONE)
        for spread in spreads:
            if claim.zone and spread.next_zone(pod_domains, [claim.zone]) != claim.zone:
                return False
        total = _add(claim.pool.daemon, requests, claim.pods + 1)
        types = tuple(it for it in claim.types if _fits(total, it.allocatable))
        if not types or min_values_unmet(types, reqs):
            claim.full = True
            return False
        claim.reqs, claim.types, claim.pods = reqs, types, claim.pods + 1
        self._record(claim, spreads)
        return True

    def _record(self, claim: _Claim, spreads: list[Zonal]) -> None:
        for spread in spreads:
            if claim.zone:
                spread.record(claim.zone)

    def _new(
        self,
        pool: Pool,
        variant: _Variant,
        pod: PodProfile,
        requests: Mapping[str, int],
        spreads: list[Zonal],
    ) -> _Claim | tuple[str, str]:
        """``addToNewNodeClaim`` for one pool: a claim holding the copy, or the pool's
        (reason, text)."""
        types: Sequence[PoolType] = pool.types
        left = self.remaining.get(pool.name)
        if left is not None:
            types = [t for t in types if all(t.capacity.get(r, 0) <= a for r, a in left.items())]
            if not types:
                return LIMITS, f"{LIMITS} (NodePool={pool.name})"
        refused = untolerated(pool.taints, variant.tolerations)
        if refused:
            return TAINT, "; ".join(refused)
        if _conflict(pod.wanted_ports, pool.daemon_ports):
            return HOST_PORT, f"checking host port usage, {HOST_PORT}"
        self.placeholders += 1  # NewNodeClaim: every claim tried is a new hostname
        hostname = Req.new(HOSTNAME, IN, [f"hostname-placeholder-{self.placeholders:04d}"])
        claim_reqs = merged(pool.reqs, [hostname])
        failed = compatible(claim_reqs, variant.reqs, self.allowed)
        if failed is not None:
            return REQUIREMENTS, f"{REQUIREMENTS}, {failed}"
        reqs = merged(claim_reqs, variant.reqs.values())
        if self.host is not None and self.host.refuses(self.planned):
            return TOPOLOGY, self.host.error(hostname)
        zone = ""
        total = _add(pool.daemon, requests)
        for spread in spreads:
            node_domains = get(reqs, ZONE)
            offered_zones = {
                z
                for it in types
                if intersects(it.reqs, reqs) is None and _fits(total, it.allocatable)
                for o, _ in it.offerings
                if offered(reqs, o)
                for z in get(o, ZONE).values
                if node_domains.has(z)
            }
            pod_domains = get(variant.strict, ZONE)
            candidates = sorted(z for z in offered_zones if all(r.allows(z) for r in spreads))
            zone = spread.next_zone(pod_domains, candidates)
            if not zone:
                return TOPOLOGY, spread.error(pod_domains, node_domains)
            reqs = merged(reqs, [Req.new(ZONE, IN, [zone])])
        kept, error = _filter_error(types, reqs, total, total)
        if error is not None:
            return error
        return _Claim(pool, reqs, kept, 1, zone)


def _zones(reqs: Reqs) -> frozenset[str]:
    """topology.go ``buildDomainGroups``: the zones a pool's requirements and a type's allow."""
    zone = reqs.get(ZONE)
    return zone.values if zone is not None and not zone.complement else frozenset()


def _subtract(left: dict[str, int], amounts: Mapping[str, int]) -> None:
    """resources.go ``Subtract``: only the limited resources."""
    for r in left:
        left[r] -= amounts.get(r, 0)


def _subtract_max(left: dict[str, int], types: Sequence[PoolType]) -> None:
    """scheduler.go ``subtractMax``: the largest capacity of the claim's types, per
    resource."""
    for r in left:
        left[r] -= max((t.capacity.get(r, 0) for t in types), default=0)
