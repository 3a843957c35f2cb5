"""Would Karpenter launch nodes for a workload's copies that fit no existing node?

``sigs.k8s.io/karpenter`` v1.8, pkg/controllers/provisioning/scheduling/scheduler.go
``Scheduler.add``: each pod goes to one of the NodeClaims this run already plans (fewest
pods first), else to a new NodeClaim of the first NodePool (weight desc, then name desc:
provisioner.go ``NewScheduler``, ``OrderByWeight``) that takes it. A pool first drops the
instance types whose capacity exceeds what its ``spec.limits`` leave
(``filterByRemainingResources``: ``all available instance types exceed limits for
nodepool``), then ``NodeClaim.CanAdd`` (nodeclaim.go) checks, in order, its taints
(pkg/scheduling/taints.go), host ports (hostportusage.go: the regular containers' alone,
:func:`host_port_conflict`), requirements
(pkg/scheduling/requirements.go ``Compatible``), topology (topology.go, topologygroup.go)
and the instance types with room for the DaemonSet overhead and the claim's pods and an
available offering (``filterInstanceTypesByRequirements``, ``InstanceTypeFilterError``). A
new claim subtracts the largest capacity of its remaining types from the pool's limits
(``subtractMax``); the run's workloads share what is left, in call order. ``limits.nodes``
is not enforced by the simulation: instance capacity has no ``nodes``.

A pod whose containers consume DRA claims goes nowhere (``add``, ``IgnoreDRARequests``
true by default: :data:`DRA`), and a DaemonSet whose containers do adds no overhead.

A pod that fits nowhere is relaxed (preferences.go ``Relax``): its first required node
affinity term dropped while another remains, then its preferred pod (anti-)affinity terms
(anti-affinity over hostnames caps a claim until dropped, affinity over hostnames refuses
a new claim unless the copy starts the pods it names), then its heaviest preferred node
affinity term (the heaviest one is read as required at first), then its ScheduleAnyway
spreads, then PreferNoSchedule taints tolerated when some pool has one; the errors
reported are those of the last attempt, one per pool in pool order, joined ``; `` after
``Failed to schedule pod, `` (events.go).

Copies are alike: with no zonal rule coupling them a claim is filled in arithmetic (as many
copies as its roomiest type holds, capped by the hostname rules); with a zonal spread,
affinity or anti-affinity they are placed one at a time. docs/karpenter.md lists what is
modelled and what is not.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gate.k8s.labels import HOSTNAME, ZONE
from gate.k8s.matching import PREFER_NO_SCHEDULE
from gate.k8s.ports import karpenter_matches, parsed_ip
from gate.model import HostPort, NodeView
from gate.model.autoscaling import DaemonSet
from gate.model.karpenter import NODEPOOL_LABEL, Catalog, KarpenterState, NodePool
from gate.model.taints import Taint
from gate.scheduler.autoscaling.karpenter.aks import with_cluster
from gate.scheduler.autoscaling.karpenter.catalog import NOTE as RUNNING_NOTE
from gate.scheduler.autoscaling.karpenter.catalog import (
    capacity_of,
    catalog_note,
    running_catalog,
)
from gate.scheduler.autoscaling.karpenter.decision import PoolDecision, PoolScaleUp
from gate.scheduler.autoscaling.karpenter.instancetypes import (
    Match,
    Offers,
    add,
    filter_types,
    fits,
    room,
)
from gate.scheduler.autoscaling.karpenter.pools import (
    TOLERATE_PREFER_NO_SCHEDULE,
    ZONE_ID,
    Pool,
    PoolType,
    TypeMemo,
    domain_zones,
    make_pool,
    merge,
    min_values_unmet,
    offer_check,
    requests_for_pods,
    same_toleration,
    template_reqs,
    term_reqs,
    untolerated,
)
from gate.scheduler.autoscaling.karpenter.requirements import (
    IN,
    Req,
    Reqs,
    compatible,
    from_labels,
    get,
    intersects,
    merged,
    well_known,
)
from gate.scheduler.autoscaling.karpenter.topology import (
    TOPOLOGY,
    Held,
    HostAffinity,
    PoolZones,
    Spread,
    Zonal,
    held_zonal,
    lowest,
    preference_caps,
    zonal_rules,
)
from gate.scheduler.autoscaling.karpenter.unjudged import (
    PROVIDERS,
    UNJUDGED,
    Provider,
    carried,
    provider_of,
    unjudged_keys,
    unjudged_text,
)
from gate.scheduler.autoscaling.karpenter.volumetopology import (
    IGNORED,
    ignored,
    invalid,
    volume_requirements,
)
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState
from gate.scheduler.plugins.interpodaffinity.copies import cycle_anti_keys, one_per_node
from gate.scheduler.plugins.nodeports import copies_collide

NO_NODEPOOLS = "no nodepools found"
"""provisioner.go ``Schedule``: with no Ready NodePool Karpenter logs this and publishes no
event."""
FILTERED_ALL = "nodepool requirements filtered out all available instance types"
"""scheduler.go ``add``: every Ready pool's requirements filtered out every type."""
DRA = "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter"
"""scheduler.go ``add`` with ``IgnoreDRARequests`` (its default): a pod whose containers or
init containers list ``resources.claims`` (``HasDRARequirements``) goes on no node."""
LIMITS = "all available instance types exceed limits for nodepool"
TAINT = "did not tolerate taint"
REQUIREMENTS = "incompatible requirements"
HOST_PORT = "pod hostport conflicts with existing hostport configuration"


def go_ip(text: str) -> str:
    """``net.IP.String`` of ``net.ParseIP(text)``: an IPv4 address (mapped or not) dotted,
    any other compressed in lower case, an address Go cannot parse ``<nil>``."""
    parsed = parsed_ip(text)
    if parsed is None:
        return "<nil>"
    if parsed[:12] == bytes(10) + b"\xff\xff":
        return str(ipaddress.IPv4Address(parsed[12:]))
    return str(ipaddress.IPv6Address(parsed))


def host_port_conflict(wanted: Sequence[HostPort], used: Iterable[HostPort]) -> str:
    """hostportusage.go ``Conflicts``: the first wanted port (in the containers' order)
    that matches one in use, as serrors.Wrap prints it: the error, then its values sorted
    by key. Upstream ranges over the using pods in map order; of several ports in use
    that match, the first in sorted order is named. Empty when none matches."""
    taken = sorted(used, key=lambda p: (p.ip, p.port, p.protocol))
    for port in wanted:
        for other in taken:
            if karpenter_matches(port, other):
                return (
                    f"{HOST_PORT} (existing-hostport-ip={go_ip(other.ip)}, "
                    f"existing-hostport-port={other.port}, "
                    f"existing-hostport-protocol={other.protocol}, "
                    f"pod-hostport-ip={go_ip(port.ip)}, pod-hostport-port={port.port}, "
                    f"pod-hostport-protocol={port.protocol})"
                )
    return ""


MAX_NEW_NODES = 1000
"""fitgate's bound on the NodeClaims one workload's copies may plan (cluster-autoscaler's
``--max-nodes-per-scaleup`` default is the same): a NodePool without limits would otherwise
plan one claim after another for 2,147,483,647 replicas. Copies past it are blocked."""
BOUNDED = "placement stopped at fitgate's bound"
BOUNDED_TEXT = (
    "fitgate stopped placing copies after {nodes} new nodes for one workload (its bound on "
    "what one workload may add; the pool has no limit that stops it sooner)"
)


MAX_INSTANCE_TYPES = 600
"""nodeclaimtemplate.go ``MaxInstanceTypes``: the types a NodeClaim is launched with."""


def _order(claims: Sequence[_Claim], offers: Callable[[Reqs], Offers]) -> tuple[str, ...]:
    """cloudprovider ``InstanceTypes.OrderByPrice`` over the types the claims may take: each
    at its cheapest available offering compatible with a claim holding it, then by name;
    each claim keeps its :data:`MAX_INSTANCE_TYPES` cheapest (scheduler.go
    ``TruncateInstanceTypes``)."""
    prices: dict[str, float] = {}
    for claim in claims:
        offered = offers(claim.reqs)
        mine: dict[str, float] = {}
        for it in claim.types:
            found = [p for o, p in it.offerings if offered(o)]
            mine[it.name] = min(found) if found else float("inf")
        for name in sorted(mine, key=lambda n: (mine[n], n))[:MAX_INSTANCE_TYPES]:
            prices[name] = min(prices.get(name, mine[name]), mine[name])
    return tuple(sorted(prices, key=lambda name: (prices[name], name)))


@dataclass(frozen=True, slots=True)
class _Variant:
    """The pod as one relaxation step leaves it: its requirements (nodeSelector, the
    heaviest preferred term, the first required term), its strict ones, its tolerations,
    and the most copies one claim may hold (its required rules' and the preferences over
    hostnames not yet relaxed: :func:`~.topology.preference_caps`)."""

    reqs: Mapping[str, Req]
    strict: Mapping[str, Req]
    tolerations: tuple[Mapping[str, Any], ...]
    cap: int | None = None
    zonal: tuple[Zonal, ...] = ()
    """The preferences over zones not yet relaxed (:class:`~.topology.Held`), held as the
    required zonal rules are."""
    hosts: tuple[HostAffinity, ...] = ()
    """The preferred pod-affinity terms over hostnames not yet relaxed, held as the
    required one is."""


def _variants(
    pod: PodProfile,
    pns: bool,
    volumes: Sequence[Req] = (),
    cap: int | None = None,
    anti: Sequence[int | None] = (None,),
    soft: Sequence[int | None] = (None,),
    held: Held | None = None,
) -> Iterator[_Variant]:
    """preferences.go ``Relax`` in its order: the first required node-affinity term while
    another remains, each preferred pod-affinity term, each preferred anti-affinity term
    (``anti``: the cap as they go), each preferred node-affinity term, each ScheduleAnyway
    spread (``soft``), then PreferNoSchedule taints tolerated; ``volumes``: the requirements
    the pod's volumes add to every required term (:mod:`.volumetopology`), kept through every
    relaxation; ``cap``: the required rules' cap on the copies a claim holds; ``held``: the
    preferences over zones and the preferred pod-affinity terms over hostnames left as the
    same steps go (a preferred term over another key holds nothing here: its step is taken,
    the pod unchanged); the toleration is added unless the pod has it already
    (``MatchToleration``)."""
    required = pod.node_affinity.required
    preferred = sorted(pod.node_affinity.preferred, key=lambda t: -t.weight)
    tolerations = tuple(pod.tolerations)
    base = merged(from_labels(pod.node_selector), volumes)
    held = held or Held()
    n_affinity, n_anti, n_soft = 0, 0, 0
    while True:
        strict = merged(base, term_reqs(required[0]) if required else [])
        reqs = strict
        if preferred:
            pref = preferred[0].expressions
            reqs = merged(base, term_reqs(pref) if pref is not None else [])
            reqs = merged(reqs, term_reqs(required[0]) if required else [])
        yield _Variant(
            reqs,
            strict,
            tolerations,
            lowest(cap, anti[n_anti], soft[n_soft]),
            held.at(n_affinity, n_anti, n_soft),
            held.hosts_at(n_affinity),
        )
        if len(required) > 1:
            required = required[1:]
        elif n_affinity < len(pod.preferred_pod_affinity):
            n_affinity += 1
        elif n_anti < len(anti) - 1:
            n_anti += 1
        elif preferred:
            preferred = preferred[1:]
        elif n_soft < len(soft) - 1:
            n_soft += 1
        elif pns and not any(same_toleration(t, TOLERATE_PREFER_NO_SCHEDULE) for t in tolerations):
            tolerations = (*tolerations, TOLERATE_PREFER_NO_SCHEDULE)
        else:
            return


@dataclass(slots=True)
class _Claim:
    """A NodeClaim this workload plans: its pool, requirements, remaining type options
    (those fitting its pods) and pods; ``zone`` when a zonal rule pinned it, ``zones`` when
    a held preference left it several (topology.go ``AddRequirements``)."""

    pool: Pool
    reqs: Mapping[str, Req]
    types: tuple[PoolType, ...]
    pods: int
    zone: str = ""
    full: bool = False
    zones: tuple[str, ...] = ()


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
    zones: PoolZones = field(default_factory=lambda: PoolZones({}))
    """The zones the Ready NodePools reach, with their taints (topology.go
    ``buildDomainGroups``)."""
    placeholders: int = 0
    """nodeclaim.go ``NewNodeClaim``: the hostname placeholders numbered so far."""
    host: HostAffinity | None = None
    """The workload being decided's affinity over hostnames."""
    node_zones: frozenset[str] = frozenset()
    """The zones of the existing nodes carrying the zone label: domains of every pod
    (anti-)affinity group (topology.go ``countDomains``, no node filter for them)."""
    planned: int = 0
    """The claims the workload being decided plans so far."""
    type_keys: frozenset[str] = frozenset()
    """Every key of the pools' types' requirements: only these decide whether a type
    intersects a claim's requirements."""
    offer_keys: frozenset[str] = frozenset()
    """Every key of the pools' types' offerings, likewise."""
    _matches: dict[Hashable, dict[int, bool]] = field(default_factory=dict)
    """Whether a type intersects a claim's requirements, by those requirements on
    :attr:`type_keys` and the type's id: the claims of a run's workloads ask about the same
    few requirement sets over and over, each time of hundreds of types."""
    _offers: dict[Hashable, dict[int, bool]] = field(default_factory=dict)
    """Whether an offering is compatible with a claim's requirements, likewise."""
    _within: dict[str, tuple[tuple[int, ...], tuple[PoolType, ...]]] = field(default_factory=dict)
    """Each limited pool's types within what its limits leave, and what they left then:
    they change only when the pool plans a claim."""
    _zones: dict[Hashable, tuple[Sequence[PoolType], frozenset[str]]] = field(default_factory=dict)
    """The zones offered (:meth:`_offered_zones`) by the types asked, the requirements on
    :attr:`type_keys`, :attr:`offer_keys` and the zone, and the total: the claims of a run's
    workloads ask the same pool's types the same question over and over. The types are kept
    beside the answer so their id stays theirs while the memo lives."""
    catalog: Catalog | None = None
    known: frozenset[str] = frozenset()
    """Every key the catalog's types carry (:func:`~.unjudged.carried`)."""
    providers: dict[str, Provider] = field(default_factory=dict)
    """Each pool's cloud provider, as its NodeClass names it."""
    judged: dict[str, frozenset[str]] = field(default_factory=dict)
    """Each pool's provider keys judged though the catalog's types lack them: the zone ID,
    when its EC2NodeClass's subnets record them."""
    prefer_no_schedule: bool = False
    """Whether a Ready NodePool, whether or not its types are left, taints PreferNoSchedule
    (scheduler.go ``NewScheduler`` asks every pool it is given, templates or not)."""

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
        elif not catalog.from_cluster:
            notes.append(catalog_note(catalog))
            catalog = with_cluster(catalog, nodes)
        recorded = any(c.zone_ids for c in state.node_classes)
        zone_ids = frozenset({ZONE_ID}) if recorded else frozenset()
        allowed = well_known(carried(catalog) | zone_ids)
        ready: list[NodePool] = []
        unresolved: set[str] = set()
        classes = {(c.kind, c.name): c for c in state.node_classes}
        for pool in state.pools:
            group, kind, name = pool.node_class
            node_class = classes.get((kind, name))
            if pool.replicas is not None:
                notes.append(
                    f"NodePool {pool.name} is static (replicas: {pool.replicas}): "
                    "it provisions no node for pods"
                )
            elif not pool.ready:
                why = f" ({pool.not_ready})" if pool.not_ready else ""
                notes.append(f"NodePool {pool.name} is not Ready{why}: Karpenter ignores it")
            elif pool.deleting:
                # provisioner.go NewScheduler keeps only pools whose DeletionTimestamp is zero
                notes.append(f"NodePool {pool.name} is being deleted: Karpenter ignores it")
            elif group in PROVIDERS and state.node_classes and node_class is None:
                # the provider resolves no instance type without its NodeClass
                # (karpenter-provider-aws cloudprovider.go GetInstanceTypes: NotFound -> none)
                # and provisioner.go NewScheduler skips the pool
                notes.append(
                    f"NodePool {pool.name}: its {kind} {name} is not in the snapshot: "
                    "Karpenter resolves no instance type for it and skips it"
                )
                ready.append(pool)
                unresolved.add(pool.name)
            elif node_class is not None and not node_class.ready:
                # the NodePool's NodeClassReady follows its NodeClass's Ready
                notes.append(
                    f"NodePool {pool.name}: its {kind} {name} is not Ready: Karpenter ignores it"
                )
            else:
                ready.append(pool)
        ready.sort(key=lambda p: p.name, reverse=True)
        ready.sort(key=lambda p: -p.weight)
        pools = []
        memo = TypeMemo()
        known = carried(catalog)
        providers: dict[str, Provider] = {}
        judged: dict[str, frozenset[str]] = {}
        zones: list[tuple[set[str], tuple[Taint, ...]]] = []
        for pool in ready:
            if pool.name in unresolved:
                continue
            node_class = classes.get((pool.node_class[1], pool.node_class[2]))
            reached = domain_zones(template_reqs(pool), catalog.types, node_class, memo)
            zones.append((reached, pool.taints))
            provider = provider_of(pool)
            if provider is not None:
                providers[pool.name] = provider
                if node_class is not None and node_class.zone_ids:
                    judged[pool.name] = zone_ids
                pool_known = known | judged.get(pool.name, frozenset())
                keys = unjudged_keys(provider, (r.key for r in pool.requirements), pool_known)
                if keys:
                    said = [Req.of(r) for r in pool.requirements if r.key in keys]
                    made = make_pool(pool, (), node_class, daemon_sets, allowed, memo)
                    refusal = unjudged_text("NodePool", said, provider, catalog)
                    pools.append(replace(made, refusal=refusal))
                    continue
            made = make_pool(pool, catalog.types, node_class, daemon_sets, allowed, memo)
            if not made.types:
                notes.append(
                    f"NodePool {pool.name}: its requirements filter out every instance "
                    "type: Karpenter skips it"
                )
                continue
            pools.append(made)
        remaining = {p.name: dict(p.limits) for p in pools if p.limits is not None}
        # provisioner.go Schedule hands the scheduler the Active nodes only: none whose
        # NodeClaim is deleting (statenode.go MarkedForDeletion, Deleted)
        leaving = _leaving(state)
        for node in nodes:
            left = remaining.get(node.labels.get(NODEPOOL_LABEL, ""))
            if left is not None and node.name not in leaving:
                _subtract(left, capacity_of(node))
        for claim in state.claims:
            left = remaining.get(claim.pool)
            if left is not None and not claim.node_name and not claim.deleting:
                _subtract(left, claim.capacity)
        pools = [_exceeded(p, nodes, state) for p in pools]
        types = {id(t): t for p in pools for t in p.types}.values()
        return cls(
            tuple(pools),
            remaining,
            tuple(notes),
            "" if ready else NO_NODEPOOLS,
            allowed,
            PoolZones.of(zones),
            type_keys=frozenset(k for t in types for k in t.reqs),
            offer_keys=frozenset(k for t in types for o, _ in t.offerings for k in o),
            catalog=catalog,
            known=known,
            providers=providers,
            judged=judged,
            prefer_no_schedule=any(t.effect == PREFER_NO_SCHEDULE for p in ready for t in p.taints),
        )

    def _match(self, reqs: Reqs) -> Match:
        """Whether a pool's type intersects ``reqs`` (:func:`~.instancetypes.matcher`)."""
        key = tuple(sorted((k, r) for k, r in reqs.items() if k in self.type_keys))
        seen = self._matches.get(key)
        if seen is None:
            seen = self._matches[key] = {}
        on_types = dict(key)
        memo = seen

        def match(it: PoolType) -> bool:
            found = memo.get(id(it))
            if found is None:
                found = memo[id(it)] = intersects(it.reqs, on_types) is None
            return found

        return match

    def _offered(self, reqs: Reqs) -> Offers:
        """Whether a pool's type's offering is compatible with ``reqs`` (``offered``)."""
        key = tuple(sorted((k, r) for k, r in reqs.items() if k in self.offer_keys))
        seen = self._offers.get(key)
        if seen is None:
            seen = self._offers[key] = {}
        return offer_check(dict(key), seen)

    def _within_limits(self, pool: Pool, left: Mapping[str, int]) -> tuple[PoolType, ...]:
        """``filterByRemainingResources``: the pool's types whose capacity ``left`` holds."""
        amounts = tuple(left.values())
        cached = self._within.get(pool.name)
        if cached is not None and cached[0] == amounts:
            return cached[1]
        types = tuple(
            t for t in pool.types if all(t.capacity.get(r, 0) <= a for r, a in left.items())
        )
        self._within[pool.name] = (amounts, types)
        return types

    def decide(
        self,
        cycle: CycleState,
        pod: PodProfile,
        left: int,
        landed: Mapping[str, int] | None = None,
        *,
        cluster: Cluster,
    ) -> PoolDecision:
        """Where the ``left`` copies of the workload's pod (prepared as ``cycle`` in
        ``cluster``) go when no existing node takes them; the pools' remaining limits are
        updated. ``landed``: the copies existing nodes took, by zone (Karpenter's scheduler
        places them there first, ``addToExistingNode``, and its topology records them);
        ``cluster``: the nodes and pods the held preferences count
        (:func:`~.topology.held_zonal`)."""
        if left <= 0:
            return PoolDecision(0)
        # provisioner.go Schedule: GetPendingPods leaves out the pods Validate refuses
        # before NewScheduler looks for a NodePool
        refused = ignored(cycle)
        wrong = invalid(pod, next(_variants(pod, False)).reqs)
        if wrong:
            # provisioner.go Validate: multierr.Combine, the claims' errors last
            if refused:
                wrong.append(refused.removeprefix(IGNORED.format(why="")))
            return PoolDecision(left, unjudged=IGNORED.format(why="; ".join(wrong)))
        if refused:
            return PoolDecision(left, unjudged=refused)
        if self.unjudged:
            return PoolDecision(left, unjudged=self.unjudged)
        if pod.dra_requirements:
            # scheduler.go add asks this first, and trySchedule relaxes nothing after it
            return PoolDecision(left, errors=(("", DRA, DRA),))
        if not self.pools:
            return PoolDecision(left, errors=(("", FILTERED_ALL, FILTERED_ALL),))
        requests = {r: a for r, a in pod.requests.items() if a}
        requests["pods"] = 1
        self.node_zones = frozenset(cluster.index.label_values(ZONE))
        spreads, cap, self.host = zonal_rules(
            cycle, self.zones, pod, cluster, landed or {}, preferred=False
        )
        # a port matches itself under Karpenter's rule too (gate.k8s.ports)
        if copies_collide(pod.regular_ports) or one_per_node(cycle_anti_keys(cycle, pod)):
            cap = 1
        anti, soft = preference_caps(cycle, pod)
        held = held_zonal(pod, cluster, self.zones, landed or {})
        volumes = volume_requirements(cycle)
        variants = list(_variants(pod, self.prefer_no_schedule, volumes, cap, anti, soft, held))
        coupled = bool(spreads or held.first)
        claims: list[_Claim] = []
        self.planned = 0
        placed = 0
        errors: list[tuple[str, str, str]] = []
        while placed < left:
            grow = len(claims) < MAX_NEW_NODES
            claim, errors = self._place(claims, variants, pod, requests, spreads, cap, grow)
            if claim is None:
                if not grow:
                    last = claims[-1].pool.name
                    errors = [(last, BOUNDED, BOUNDED_TEXT.format(nodes=MAX_NEW_NODES))]
                break
            if not coupled and claim.pods == 1 and claim is claims[-1]:
                more = self._fill(claim, requests, left - placed, variants[0].cap, cap)
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
                PoolScaleUp(
                    pool.name, len(mine), sum(c.pods for c in mine), _order(mine, self._offered)
                )
            )
        return PoolDecision(left, tuple(scale_up), placed, tuple(errors) if placed < left else ())

    def _fill(
        self,
        claim: _Claim,
        requests: Mapping[str, int],
        left: int,
        cap: int | None,
        required: int | None,
    ) -> int:
        """A new claim filled in arithmetic: as many copies as its roomiest type holds and
        the unrelaxed pod's ``cap`` allows; full unless a preference (not the ``required``
        rules) is what stopped it, which a relaxed copy may join later."""
        rooms = {it.name: room(it, claim.pool.daemon, requests) for it in claim.types}
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
        claim.full = cap is None or count < cap or (required is not None and count >= required)
        return count

    def _place(
        self,
        claims: list[_Claim],
        variants: Sequence[_Variant],
        pod: PodProfile,
        requests: Mapping[str, int],
        spreads: list[Zonal],
        cap: int | None,
        grow: bool = True,
    ) -> Attempt:
        """``Scheduler.add`` for one copy, relaxed step by step (``trySchedule``); with
        ``grow`` False, on the planned claims only (:data:`MAX_NEW_NODES`)."""
        errors: list[tuple[str, str, str]] = []
        # a relaxed spread's group still counts the copies that land (topology.go Record)
        counted = [*spreads, *variants[0].zonal]
        for variant in variants:
            held = [*spreads, *variant.zonal]
            for claim in sorted((c for c in claims if not c.full), key=lambda c: c.pods):
                if self._join(claim, variant, requests, held, cap, counted):
                    return claim, []
            errors = []
            if not grow:
                continue
            for pool in self.pools:
                made = self._new(pool, variant, pod, requests, held)
                if isinstance(made, _Claim) and pool.exceeded:
                    return None, [(pool.name, EXCEEDED, pool.exceeded)]
                if isinstance(made, _Claim):
                    claims.append(made)
                    self.planned = len(claims)
                    left = self.remaining.get(pool.name)
                    if left is not None:
                        _subtract_max(left, made.types)
                    self._record(made, counted)
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
        counted: list[Zonal],
    ) -> bool:
        """``NodeClaim.CanAdd`` then ``Add`` for one more copy on a planned claim; ``cap``
        the required rules' (a claim at it is full), the variant's own may be tighter;
        ``spreads`` the zonal rules the copy holds, ``counted`` those its landing counts in."""
        if variant.cap is not None and claim.pods >= variant.cap:
            claim.full = cap is not None and claim.pods >= cap
            return False
        if untolerated(claim.pool.taints, variant.tolerations):
            return False
        if compatible(claim.reqs, variant.reqs, self.allowed) is not None:
            return False
        if any(not host.self_match for host in variant.hosts):
            # nextDomainAffinity: the claim's hostname holds none of the pods the held term
            # names (it holds copies, which that term does not select)
            return False
        reqs = merged(claim.reqs, variant.reqs.values())
        pod_domains = get(variant.strict, ZONE)
        zones = [claim.zone] if claim.zone else list(claim.zones)
        total = add(claim.pool.daemon, requests, claim.pods + 1)
        if spreads and not zones:
            # a claim made once a copy's zonal preferences were relaxed has no zone: the
            # copy's rules narrow it as they would a new claim's (among the zones its
            # requirements allow, offered or not), or refuse it
            offered_zones = self._offered_zones(claim.types, reqs, total)
            if not offered_zones:
                return False
            node_domains = get(reqs, ZONE)
            domains = {*self.zones.names, *self.node_zones, *(z for r in spreads for z in r.counts)}
            zones = _offered_first((z for z in domains if node_domains.has(z)), offered_zones)
        if zones and spreads:
            for spread in spreads:
                allowed = [
                    z
                    for z in zones
                    if _allowed(z, spreads, pod_domains)
                    and (z in spread.counts or not isinstance(spread, Spread))
                ]
                zones = spread.domains(pod_domains, allowed)
                if not zones:
                    return False
            if not claim.zone:  # a pinned claim's requirements name its zone already
                reqs = merged(reqs, [Req.new(ZONE, IN, zones)])
        # filterInstanceTypesByRequirements: the claim's types asked again with the copy's
        # requirements, which may name a key the claim's do not (a preference)
        match, offered = self._match(reqs), self._offered(reqs)
        types = tuple(
            it
            for it in claim.types
            if fits(total, it.allocatable)
            and match(it)
            and any(offered(o) for o, _ in it.offerings)
        )
        if not types or min_values_unmet(types, reqs):
            # full when the room is what fails; a looser variant may join otherwise
            roomy = [it for it in claim.types if fits(total, it.allocatable)]
            claim.full = not roomy or bool(min_values_unmet(roomy, claim.reqs))
            return False
        claim.reqs, claim.types, claim.pods = reqs, types, claim.pods + 1
        if zones and not claim.zone:
            claim.zone, claim.zones = _pinned(zones)
        self._record(claim, counted)
        return True

    def _record(self, claim: _Claim, spreads: list[Zonal]) -> None:
        for spread in spreads:
            if claim.zone:
                spread.record(claim.zone)
            elif claim.zones:
                spread.record_all(claim.zones)

    def _offered_zones(
        self, types: Sequence[PoolType], reqs: Reqs, total: Mapping[str, int]
    ) -> frozenset[str]:
        """The zones ``reqs`` allow where one of ``types`` that ``reqs`` match and that holds
        ``total`` has an available offering compatible with them."""
        node_domains = get(reqs, ZONE)
        key = (
            id(types),
            tuple(sorted((k, r) for k, r in reqs.items() if k in self.type_keys)),
            tuple(sorted((k, r) for k, r in reqs.items() if k in self.offer_keys)),
            node_domains,
            tuple(sorted(total.items())),
        )
        cached = self._zones.get(key)
        if cached is not None and cached[0] is types:
            return cached[1]
        match, offered = self._match(reqs), self._offered(reqs)
        zones = frozenset(
            z
            for it in types
            if match(it) and fits(total, it.allocatable)
            for o, _ in it.offerings
            if offered(o)
            for z in get(o, ZONE).values
            if node_domains.has(z)
        )
        self._zones[key] = (types, zones)
        return zones

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
        if pool.refusal:
            return UNJUDGED, pool.refusal
        types: Sequence[PoolType] = pool.types
        left = self.remaining.get(pool.name)
        if left is not None:
            types = self._within_limits(pool, left)
            if not types:
                return LIMITS, f"{LIMITS} (NodePool={pool.name})"
        self.placeholders += 1  # NewNodeClaim, before CanAdd: every claim tried is a hostname
        refused = untolerated(pool.taints, variant.tolerations)
        if refused:
            return TAINT, "; ".join(refused)
        clash = host_port_conflict(pod.regular_ports, pool.daemon_ports)
        if clash:
            return HOST_PORT, f"checking host port usage, {clash}"
        provider = self.providers.get(pool.name)
        if provider is not None and self.catalog is not None:
            # where CanAdd asks the requirements: taints and host ports are judged first
            known = self.known | self.judged.get(pool.name, frozenset())
            keys = unjudged_keys(provider, variant.reqs, known)
            if keys:
                said = [variant.reqs[k] for k in keys]
                return UNJUDGED, unjudged_text("the pod's", said, provider, self.catalog)
        hostname = Req.new(HOSTNAME, IN, [f"hostname-placeholder-{self.placeholders:04d}"])
        claim_reqs = merged(pool.reqs, [hostname])
        failed = compatible(claim_reqs, variant.reqs, self.allowed)
        if failed is not None:
            return REQUIREMENTS, f"{REQUIREMENTS}, {failed}"
        reqs = merged(claim_reqs, variant.reqs.values())
        for host in (self.host, *variant.hosts):
            if host is not None and host.refuses(self.planned):
                return TOPOLOGY, host.error(hostname)
        zones: list[str] = []
        total = add(pool.daemon, requests)
        pod_domains = get(variant.strict, ZONE)
        for spread in spreads:
            node_domains = get(reqs, ZONE)
            offered_zones = self._offered_zones(types, reqs, total)
            # a rule chooses among its domains the claim's requirements allow, offered or
            # not (topologygroup.go nextDomain* read nodeDomains, the template's and the
            # pod's requirements): a zone no type serves may be chosen
            reach = set(spread.counts)
            if not isinstance(spread, Spread):
                reach |= {*self.zones.names, *self.node_zones}
            reach = {z for z in reach if node_domains.has(z)}
            candidates = _offered_first(
                (z for z in reach if _allowed(z, spreads, pod_domains)), offered_zones
            )
            zones = spread.domains(pod_domains, candidates)
            if not zones:
                return TOPOLOGY, spread.error(pod_domains, node_domains)
            reqs = merged(reqs, [Req.new(ZONE, IN, zones)])
        asked = requests_for_pods(pod.stored_requests())
        shown = merge(pool.daemon_requests, asked)
        kept, error = filter_types(
            types, reqs, total, shown, self._match(reqs), self._offered(reqs), asked
        )
        if error is not None:
            return error
        zone, several = _pinned(zones)
        return _Claim(pool, reqs, kept, 1, zone, zones=several)


def _allowed(zone: str, rules: Sequence[Zonal], pod_domains: Req) -> bool:
    return all(r.allows(zone, pod_domains) for r in rules)


def _offered_first(zones: Iterable[str], offered: frozenset[str]) -> list[str]:
    """The zones by name, those ``offered`` first: where Karpenter's choice among equally
    counted zones is Go's map order, a zone no type serves fails the claim, and the copy
    is tried again until a served one comes up (scheduler.go ``Solve`` requeues it while
    others land, and the next provisioning loop tries it anew)."""
    return sorted(zones, key=lambda z: (z not in offered, z))


def _pinned(zones: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """A claim's zone when ``zones`` is one, else the several it may still take."""
    return (zones[0], ()) if len(zones) == 1 else ("", tuple(zones))


EXCEEDED = "resource usage exceeds limit"
"""provisioner.go ``Create``: ``Limits.ExceededBy`` of the pool's usage, nodes counted."""


def _exceeded(pool: Pool, nodes: Sequence[NodeView], state: KarpenterState) -> Pool:
    """The pool, with what stops Karpenter creating its claims: ``limits.nodes`` below the
    nodes it has. The simulation never checks ``nodes`` (no type has that capacity), so the
    claims are planned and their creation fails (provisioner.go ``CreateNodeClaims`` and
    ``Create``; nodepool.go ``ExceededBy``: usage above the limit, serrors' values sorted by
    key). The usage is cluster.go ``updateNodePoolResources``': one a state node (a Node,
    or a NodeClaim not yet registered) whose capacity lists some resource and which is not
    marked for deletion (its NodeClaim deleting), so a claim not yet launched counts none."""
    limit = (pool.limits or {}).get("nodes")
    if limit is None:
        return pool
    leaving = _leaving(state)
    count = sum(
        1
        for n in nodes
        if n.labels.get(NODEPOOL_LABEL) == pool.name and n.name not in leaving and capacity_of(n)
    )
    count += sum(
        1
        for c in state.claims
        if c.pool == pool.name and not c.node_name and not c.deleting and c.capacity
    )
    if count <= limit:
        return pool
    text = f"creating node claim, {EXCEEDED} (limit={limit}, resource-name=nodes, usage={count})"
    return replace(pool, exceeded=text)


def _leaving(state: KarpenterState) -> set[str]:
    """The nodes whose NodeClaim is being deleted: marked for deletion (statenode.go
    ``MarkedForDeletion``, ``Deleted``), so neither Active nor counted in a pool's usage."""
    return {c.node_name for c in state.claims if c.deleting and c.node_name}


def _subtract(left: dict[str, int], amounts: Mapping[str, int]) -> None:
    """resources.go ``Subtract``: only the limited resources."""
    for r in left:
        left[r] -= amounts.get(r, 0)


def _subtract_max(left: dict[str, int], types: Sequence[PoolType]) -> None:
    """scheduler.go ``subtractMax``: the largest capacity of the claim's types, per
    resource."""
    for r in left:
        left[r] -= max((t.capacity.get(r, 0) for t in types), default=0)
