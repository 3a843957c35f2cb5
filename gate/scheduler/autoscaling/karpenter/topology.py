"""The topology rules Karpenter applies to a new NodeClaim over zones and hostnames
(pkg/controllers/provisioning/scheduling/topology.go, topologygroup.go), read from the pod's
kube-scheduler cycle: its DoNotSchedule spreads, counted as Karpenter counts them
(:func:`spread_counts`), and its required pod (anti-)affinity (the InterPodAffinity PreFilter's
counts). The preferences Karpenter holds as required until relaxed (its ScheduleAnyway
spreads, its preferred pod (anti-)affinity terms) are counted the same way, the terms by the
PreFilter asked of each alone (:func:`held_zonal`): topology.go ``countDomains`` counts the
cluster's matching pods for every group, whatever the constraint's kind."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from gate.k8s.labels import HOSTNAME, ZONE
from gate.k8s.podaffinity import AffinityTerm
from gate.k8s.selectors import LabelSelector
from gate.k8s.spread import SpreadConstraint
from gate.model import INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD
from gate.model.taints import Taint
from gate.scheduler.autoscaling.karpenter.pools import untolerated
from gate.scheduler.autoscaling.karpenter.requirements import Req
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState
from gate.scheduler.plugins.interpodaffinity import prepare_affinity
from gate.scheduler.plugins.interpodaffinity.copies import cycle_anti_keys
from gate.scheduler.plugins.interpodaffinity.filtering import AffinityState, Pairs
from gate.scheduler.plugins.podtopologyspread import affinity_bits
from gate.scheduler.plugins.podtopologyspread.copies import admits, minimum
from gate.scheduler.plugins.podtopologyspread.filtering import SpreadState

TOPOLOGY = "unsatisfiable topology constraint"

EVERY_POD = LabelSelector(())
"""``labels.Everything()``, what ``TopologyListOptions`` lists under a null or empty
selector."""


@dataclass(frozen=True, slots=True)
class PoolZones:
    """topologydomaingroup.go ``TopologyDomainGroup`` for the zone: each zone the Ready
    NodePools reach, with the taints of each pool that reaches it."""

    taints: Mapping[str, frozenset[tuple[Taint, ...]]]

    @classmethod
    def of(cls, pools: Iterable[tuple[Iterable[str], tuple[Taint, ...]]]) -> PoolZones:
        """From each pool's zones and taints."""
        found: dict[str, set[tuple[Taint, ...]]] = {}
        for zones, taints in pools:
            for zone in zones:
                found.setdefault(zone, set()).add(taints)
        return cls({z: frozenset(t) for z, t in found.items()})

    @property
    def names(self) -> tuple[str, ...]:
        """Every zone, by name."""
        return tuple(sorted(self.taints))

    def tolerated(self, tolerations: Sequence[Mapping[str, Any]]) -> list[str]:
        """``ForEachDomain`` under ``Honor``: the zones some pool registers whose every
        taint the tolerations tolerate."""
        return [
            zone
            for zone in self.names
            if any(not untolerated(taints, tolerations) for taints in self.taints[zone])
        ]


def spread_counts(
    pod: PodProfile, constraint: SpreadConstraint, cluster: Cluster, pools: PoolZones
) -> dict[str, int]:
    """topology.go ``countDomains`` for one spread over zones, where Karpenter counts
    otherwise than the PodTopologySpread PreFilter:

    * topologygroup.go ``NewTopologyGroup`` registers the pools' zones through
      topologydomaingroup.go ``ForEachDomain``: under ``nodeTaintsPolicy: Honor`` only
      those of a pool whose every taint the pod tolerates (pkg/scheduling/taints.go
      ``ToleratesPod``: every effect, PreferNoSchedule included);
    * a node counts when it carries the spread's own key (not every key the pod's spreads
      name) and topologynodefilter.go ``Matches`` admits it: under ``Honor`` a node with an
      untolerated taint of any effect is left out, where the PreFilter reads NoSchedule and
      NoExecute alone;
    * the pods counted are the scheduled, non-terminating ones of the namespace its selector
      lists (``TopologyListOptions``): a null or empty selector lists them all, where the
      PreFilter counts none. Whether a copy counts itself is the selector's answer
      (``selects``: the null selector matches nothing, the empty one everything), as in
      the PreFilter."""
    key = constraint.topology_key
    nodes = cluster.index
    eligible = nodes.with_label(key)
    if constraint.honor_node_affinity:
        eligible &= affinity_bits(pod, nodes)
    zones = pools.names
    if constraint.honor_taints:
        eligible &= _karpenter_tolerated(pod, cluster)
        zones = tuple(pools.tolerated(pod.tolerations))
    counts = dict.fromkeys(zones, 0)
    for value, bits in nodes.label_values(key).items():
        if bits & eligible:
            counts.setdefault(value, 0)
    selector = constraint.selector
    listed = EVERY_POD if selector.nothing or selector.empty else selector
    index = cluster.others.pods
    for i in index.matching(frozenset({pod.namespace}), listed):
        node = index.node_of[i]
        if not index.pods[i].terminating and eligible >> node & 1:
            value = nodes.nodes[node].labels[key]
            counts[value] += 1
    return counts


def _karpenter_tolerated(pod: PodProfile, cluster: Cluster) -> int:
    """The nodes whose every taint, whatever its effect, the pod tolerates
    (``TopologyNodeFilter.Matches``, pkg/scheduling/taints.go ``Tolerates``)."""
    nodes = cluster.index
    bits = 0
    for class_bits, rep in nodes.taint_classes:
        if not untolerated(nodes.nodes[rep].taints, pod.tolerations):
            bits |= class_bits
    return bits


@dataclass(slots=True)
class _ZoneCounts:
    """The matching pods per zone; a copy that matches its own rule adds to its zone's
    count as it lands (topology.go ``Record``)."""

    counts: dict[str, int]
    self_match: bool

    def record(self, zone: str) -> None:
        if self.self_match:
            self.counts[zone] = self.counts.get(zone, 0) + 1

    def record_all(self, zones: Sequence[str]) -> None:
        """A copy lands on a claim that may still be in any of ``zones``: a spread or an
        affinity records only a known zone (topology.go ``Record``)."""


@dataclass(slots=True)
class Spread(_ZoneCounts):
    """The pod's DoNotSchedule spread over zones (topologygroup.go
    ``nextDomainTopologySpread``): counts per zone, existing matching pods first."""

    max_skew: int
    min_domains: int

    def minimum(self, pod_domains: Req) -> int:
        """``domainMinCount``: over the zones the pod may use; 0 below ``minDomains``."""
        return minimum(
            {z: c for z, c in self.counts.items() if pod_domains.has(z)}, self.min_domains
        )

    def next_zone(self, pod_domains: Req, zones: Sequence[str]) -> str:
        """The zone of ``zones`` with the fewest matching pods within the skew, the first
        in their order among equals (Go ranges over a map there)."""
        low = self.minimum(pod_domains)
        best, best_count = "", 2**31
        for zone in zones:
            count = self.counts.get(zone, 0) + (1 if self.self_match else 0)
            if admits(self.counts.get(zone, 0), self.self_match, low, self.max_skew) and (
                count < best_count
            ):
                best, best_count = zone, count
        return best

    def allows(self, zone: str, pod_domains: Req) -> bool:
        return True

    def domains(self, pod_domains: Req, zones: Sequence[str]) -> list[str]:
        """The zones a claim may take (``AddRequirements``): the one chosen, if any."""
        return _one(self.next_zone(pod_domains, zones))

    def error(self, pod_domains: Req, node_domains: Req) -> str:
        return topology_error("topology spread", self.counts, pod_domains, node_domains)


@dataclass(slots=True)
class AntiZone(_ZoneCounts):
    """The pod's required anti-affinity over zones, and existing pods' anti-affinity to it
    (topologygroup.go ``nextDomainAntiAffinity``): only zones with none of the pods it
    avoids. A copy matching its own term blocks the zone it lands in; Karpenter blocks every
    zone a claim could land in and launches the rest in later loops, so over its loops each
    copy takes an empty zone of its own (here the first by name).

    A term its copies do not match, or a preferred one (``held``), leaves a claim every
    zone it allows (``nextDomainAntiAffinity`` returns them all): the copies after the first
    that a held term blocks are relaxed in the same loop, not launched in later ones."""

    held: bool = False

    def allows(self, zone: str, pod_domains: Req) -> bool:
        return self.counts.get(zone, 0) == 0

    def next_zone(self, pod_domains: Req, zones: Sequence[str]) -> str:
        return next(iter(_open(self, pod_domains, zones)), "")

    def domains(self, pod_domains: Req, zones: Sequence[str]) -> list[str]:
        """The zones a claim may take (``AddRequirements``): those it allows, when held or
        not matching its copies, else the one chosen."""
        if self.held or not self.self_match:
            return _open(self, pod_domains, zones)
        return _one(self.next_zone(pod_domains, zones))

    def record_all(self, zones: Sequence[str]) -> None:
        """topology.go ``Record``: anti-affinity blocks every zone the claim could land in."""
        for zone in zones:
            self.record(zone)

    def error(self, pod_domains: Req, node_domains: Req) -> str:
        return topology_error("pod anti-affinity", self.counts, pod_domains, node_domains)


@dataclass(slots=True)
class AffinityZone(_ZoneCounts):
    """The pod's required affinity over zones (topologygroup.go ``nextDomainAffinity``):
    zones where the pods it wants run; with none in any zone the pod may use
    (``anyCompatiblePodDomain``), a pod matching its own terms may start in any of them, and
    the copies after it follow it there. A claim may take every zone
    where those pods run (``nextDomainAffinity`` returns them all), whether the term is
    required or preferred."""

    def allows(self, zone: str, pod_domains: Req) -> bool:
        if self.counts.get(zone, 0) > 0:
            return True
        return self.self_match and not any(
            n > 0 and pod_domains.has(z) for z, n in self.counts.items()
        )

    def next_zone(self, pod_domains: Req, zones: Sequence[str]) -> str:
        return next(iter(_open(self, pod_domains, zones)), "")

    def domains(self, pod_domains: Req, zones: Sequence[str]) -> list[str]:
        """The zones a claim may take (``AddRequirements``): those where the wanted pods
        run, else the one chosen (a first pod starts in one zone)."""
        running = [z for z in sorted(zones) if self.counts.get(z, 0) > 0 and pod_domains.has(z)]
        if running:
            return running
        return _one(self.next_zone(pod_domains, zones))

    def error(self, pod_domains: Req, node_domains: Req) -> str:
        return topology_error("pod affinity", self.counts, pod_domains, node_domains)


@dataclass(frozen=True, slots=True)
class HostAffinity:
    """The pod's required affinity over hostnames: a new node runs none of the pods it
    wants, so with such pods running no new claim takes it; with none, a pod matching its
    own terms starts one claim and the copies after it join that one."""

    counts: Mapping[str, int]
    self_match: bool
    landed: int = 0
    """The workload's copies existing nodes took, when its term selects them: topology.go
    ``Record`` counts them on those nodes' hostnames (after ``addToExistingNode``), so
    they are pods the term names running elsewhere. Which nodes took them is not known
    here: the error's counts name the hostnames of the pods running before."""

    def refuses(self, claims: int) -> bool:
        return any(self.counts.values()) or self.landed > 0 or not self.self_match or claims > 0

    def error(self, hostname: Req) -> str:
        return topology_error("pod affinity", self.counts, Req(HOSTNAME, True), hostname, HOSTNAME)


def _open(rule: AntiZone | AffinityZone, pod_domains: Req, zones: Sequence[str]) -> list[str]:
    """The zones, in the order given, that ``rule`` allows and the pod may use."""
    return [z for z in zones if rule.allows(z, pod_domains) and pod_domains.has(z)]


def _one(zone: str) -> list[str]:
    return [zone] if zone else []


def topology_error(
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


Zonal = Spread | AntiZone | AffinityZone


def zonal_rules(
    cycle: CycleState,
    pools: PoolZones,
    pod: PodProfile,
    cluster: Cluster,
    placed: Mapping[str, int] | None = None,
    preferred: bool = True,
) -> tuple[list[Zonal], int | None, HostAffinity | None]:
    """The zonal rules (spreads, then anti-affinity) and the most copies one claim may hold
    by the hostname spreads (each new claim is a new hostname domain, whose global minimum
    is 0) and a self-matching zonal anti-affinity (one copy a zone). ``pools``: the zones
    the NodePools reach; ``cluster``: the one ``cycle`` was prepared in. ``placed``: the
    workload's copies existing nodes took, by zone, counted where the copies match the
    rule's selector (topology.go ``Record`` after ``addToExistingNode``). The pod's
    preferences over hostnames cap a claim too until relaxed (:func:`preference_caps`);
    with ``preferred`` False the cap is the required rules' alone."""

    placed = placed or {}
    zones = pools.names
    spreads: list[Zonal] = []
    antis: list[Zonal] = []
    host: HostAffinity | None = None
    cap: int | None = None
    for prepared in cycle:
        state = prepared.state
        if prepared.plugin.name == INTER_POD_AFFINITY and isinstance(state, AffinityState):
            state = _recounted(pod, cluster, state)
            terms = [t for t in state.anti_affinity_terms if t.topology_key == ZONE]
            existing = {z: n for (k, z), n in state.existing_anti.items() if k == ZONE and n}
            if terms or existing:
                mine = ZONE in cycle_anti_keys(cycle, pod)
                antis.append(_anti_zone(state.anti_counts, existing, zones, mine, placed))
                if mine:
                    cap = 1
            keys = {t.topology_key for t in state.affinity_terms}
            if ZONE in keys:
                antis.append(_affinity_zone(state, placed))
            if HOSTNAME in keys:
                on = {h: n for (k, h), n in state.affinity_counts.items() if k == HOSTNAME}
                landed = sum(placed.values()) if state.self_match else 0
                host = HostAffinity(on, state.self_match, landed)
            continue
        if prepared.plugin.name != POD_TOPOLOGY_SPREAD or not isinstance(state, SpreadState):
            continue
        for i, constraint in enumerate(state.constraints):
            if constraint.topology_key == ZONE:
                counts = spread_counts(pod, constraint, cluster, pools)
                spreads.append(_spread(constraint, state.self_match[i], counts, placed))
            elif constraint.topology_key == HOSTNAME and state.self_match[i]:
                cap = lowest(cap, constraint.max_skew)
    if preferred:
        anti, soft = preference_caps(cycle, pod)
        cap = lowest(cap, anti[0], soft[0])
    return [*spreads, *antis], cap, host


def _spread(
    constraint: SpreadConstraint,
    self_match: bool,
    counts: dict[str, int],
    placed: Mapping[str, int],
) -> Spread:
    """The group of a spread over zones: its ``counts`` (:func:`spread_counts`),
    and the workload's copies existing nodes took where the pod matches its own selector."""
    if self_match:
        _add(counts, {z: n for z, n in placed.items() if z in counts})
    return Spread(
        counts=counts,
        self_match=self_match,
        max_skew=constraint.max_skew,
        min_domains=constraint.min_domains,
    )


def _anti_zone(
    avoided: Pairs,
    existing: Mapping[str, int],
    zones: Sequence[str],
    mine: bool,
    placed: Mapping[str, int],
    held: bool = False,
) -> AntiZone:
    """The group of anti-affinity over zones: the pods the pod's terms avoid (``avoided``,
    the PreFilter's pairs) and those whose own terms avoid it (``existing``), and the
    workload's copies existing nodes took when its terms match them (``mine``)."""
    counts = {z: 0 for z in zones}
    counts.update({z: n for (k, z), n in avoided.items() if k == ZONE})
    _add(counts, existing)
    if mine:
        _add(counts, placed)
    return AntiZone(counts, mine, held)


def _affinity_zone(state: AffinityState, placed: Mapping[str, int]) -> AffinityZone:
    """The group of affinity over zones: the pods the PreFilter counted, and the
    workload's copies existing nodes took when the pod matches its own terms."""
    wanted = {z: n for (k, z), n in state.affinity_counts.items() if k == ZONE}
    if state.self_match:
        _add(wanted, placed)
    return AffinityZone(wanted, state.self_match)


def lowest(*caps: int | None) -> int | None:
    """The tightest of some caps, None standing for none."""
    held = [c for c in caps if c is not None]
    return min(held) if held else None


def preference_caps(
    cycle: CycleState, pod: PodProfile
) -> tuple[tuple[int | None, ...], tuple[int | None, ...]]:
    """The most copies one claim may hold by the pod's preferences over hostnames, which
    Karpenter holds as required (the default PreferencePolicy Respect: topology.go
    ``newForTopologies`` takes the ScheduleAnyway spreads, ``newForAffinities`` the
    preferred terms) until a copy that fits nowhere is relaxed (preferences.go ``Relax``):
    a preferred anti-affinity over hostnames its own copies match leaves one copy a claim,
    a ScheduleAnyway spread over hostnames they match ``maxSkew``. A new claim is a new
    hostname, so they fail only where no new claim can be made (a pool's limits).

    Two sequences, index n the cap once n of them are relaxed: the preferred anti-affinity
    terms (``removePreferredPodAntiAffinityTerm``: the heaviest first, a stable sort) and the
    ScheduleAnyway spreads (``removeTopologySpreadScheduleAnyway``: the first one swapped
    with the last constraint listed, of either kind, and dropped)."""
    namespace_labels = next(
        (p.state.namespace_labels for p in cycle if isinstance(p.state, AffinityState)), None
    )
    terms = _heaviest(pod.preferred_pod_anti_affinity)
    mine = [
        t.topology_key == HOSTNAME and t.matches(pod.namespace, pod.labels, namespace_labels)
        for t in terms
    ]
    anti = tuple(1 if any(mine[n:]) else None for n in range(len(terms) + 1))
    soft = tuple(
        lowest(
            *(
                c.max_skew
                for c in spreads
                if c.topology_key == HOSTNAME and c.selector.matches(pod.labels)
            )
        )
        for spreads in _soft_steps(pod)
    )
    return anti, soft


@dataclass(frozen=True, slots=True)
class Held:
    """The pod's preferences over zones Karpenter holds as required (topology.go
    ``newForTopologies`` and ``newForAffinities`` under the default PreferencePolicy Respect)
    until ``Relax`` drops them, step by step: index n of each, those left once n of that
    kind are relaxed. A group is one object through every step: it keeps counting the
    copies that land once the pod no longer holds it (topology.go ``Update`` keeps the
    groups, ``Record`` counts every one)."""

    affinity: tuple[tuple[AffinityZone, ...], ...] = ((),)
    """The preferred pod-affinity terms over zones (``removePreferredPodAffinityTerm``)."""
    anti: tuple[tuple[AntiZone, ...], ...] = ((),)
    """The preferred anti-affinity terms over zones (``removePreferredPodAntiAffinityTerm``)."""
    spreads: tuple[tuple[Spread, ...], ...] = ((),)
    """The ScheduleAnyway spreads over zones (``removeTopologySpreadScheduleAnyway``)."""
    hosts: tuple[tuple[HostAffinity, ...], ...] = ((),)
    """The preferred pod-affinity terms over hostnames, relaxed in the same steps as those
    over zones (``removePreferredPodAffinityTerm`` takes the heaviest of either)."""

    def hosts_at(self, affinity: int) -> tuple[HostAffinity, ...]:
        """The hostname terms held once ``affinity`` preferred pod-affinity terms are
        relaxed."""
        return self.hosts[affinity] if affinity < len(self.hosts) else ()

    def at(self, affinity: int, anti: int, spreads: int) -> tuple[Zonal, ...]:
        """Those held once ``affinity``, ``anti`` and ``spreads`` of each are relaxed."""
        return (
            *_step(self.affinity, affinity),
            *_step(self.anti, anti),
            *_step(self.spreads, spreads),
        )

    @property
    def first(self) -> tuple[Zonal, ...]:
        """Every group, as the unrelaxed pod holds them."""
        return self.at(0, 0, 0)


def held_zonal(
    pod: PodProfile,
    cluster: Cluster,
    pools: PoolZones,
    placed: Mapping[str, int] | None = None,
) -> Held:
    """The pod's held preferences over zones (:class:`Held`), each group counted as the
    required ones are (``countDomains``): the cluster's matching pods, the zones the
    ``pools`` reach, and the workload's copies existing nodes took (``placed``) where they
    match it."""
    placed = placed or {}
    return Held(
        _preferred_affinity(pod, cluster, placed),
        _preferred_anti(pod, cluster, pools.names, placed),
        soft_zonal(pod, cluster, pools, placed),
        _preferred_host_affinity(pod, cluster, placed),
    )


def soft_zonal(
    pod: PodProfile,
    cluster: Cluster,
    pools: PoolZones,
    placed: Mapping[str, int] | None = None,
) -> tuple[tuple[Spread, ...], ...]:
    """The pod's ScheduleAnyway spreads over zones as they are relaxed (the order of
    :func:`preference_caps`), each counted as a DoNotSchedule one (:func:`_spread`)."""
    made = {
        id(c): _spread(
            c, c.selector.matches(pod.labels), spread_counts(pod, c, cluster, pools), placed or {}
        )
        for c in pod.soft_spread
        if c.topology_key == ZONE
    }
    return tuple(
        tuple(made[id(c)] for c in spreads if c.topology_key == ZONE)
        for spreads in _soft_steps(pod)
    )


def _preferred_affinity(
    pod: PodProfile, cluster: Cluster, placed: Mapping[str, int]
) -> tuple[tuple[AffinityZone, ...], ...]:
    """The preferred pod-affinity terms over zones, the heaviest dropped first (a stable
    sort); each counted by the InterPodAffinity PreFilter of the pod holding it alone as
    its required term (topologygroup.go ``nextDomainAffinity`` reads a preferred term's
    group as a required one's)."""
    groups: list[AffinityZone | None] = []
    for term in _heaviest(pod.preferred_pod_affinity):
        state = _affinity_alone(pod, cluster, term, anti=False)
        groups.append(None if state is None else _affinity_zone(state, placed))
    return _by_step(groups)


def _preferred_host_affinity(
    pod: PodProfile, cluster: Cluster, placed: Mapping[str, int]
) -> tuple[tuple[HostAffinity, ...], ...]:
    """The preferred pod-affinity terms over hostnames, the heaviest dropped first (a
    stable sort), each read as a required one (:class:`HostAffinity`): topology.go
    ``newForAffinities`` takes them under the default PreferencePolicy Respect, and
    topologygroup.go ``nextDomainAffinity`` gives a new claim's hostname (no pod runs
    there) only to a copy its term selects while none of the pods it names runs anywhere;
    a planned claim holds a copy, so one its term selects may join it."""
    groups: list[HostAffinity | None] = []
    for term in _heaviest(pod.preferred_pod_affinity):
        state = _affinity_alone(pod, cluster, term, anti=False, key=HOSTNAME)
        if state is None:
            groups.append(None)
            continue
        on = {h: n for (k, h), n in state.affinity_counts.items() if k == HOSTNAME}
        landed = sum(placed.values()) if state.self_match else 0
        groups.append(HostAffinity(on, state.self_match, landed))
    return _by_step(groups)


def _preferred_anti(
    pod: PodProfile, cluster: Cluster, zones: Sequence[str], placed: Mapping[str, int]
) -> tuple[tuple[AntiZone, ...], ...]:
    """The preferred anti-affinity terms over zones, the heaviest dropped first (a stable
    sort); each counted by the InterPodAffinity PreFilter of the pod holding it alone as
    its required term. Upstream tracks no inverse group for a preferred term
    (``updateInverseAntiAffinity``): the existing pods' anti-affinity is the required
    rules'."""
    groups: list[AntiZone | None] = []
    for term in _heaviest(pod.preferred_pod_anti_affinity):
        state = _affinity_alone(pod, cluster, term, anti=True)
        if state is None:
            groups.append(None)
            continue
        (listed,) = state.anti_affinity_terms
        # a term without a labelSelector selects no copy (selects: labels.Nothing)
        mine = not term.selector.nothing and listed.matches(
            pod.namespace, pod.labels, state.namespace_labels
        )
        groups.append(_anti_zone(state.anti_counts, {}, zones, mine, placed, held=True))
    return _by_step(groups)


_Group = TypeVar("_Group", AffinityZone, AntiZone, HostAffinity)


def _by_step(groups: Sequence[_Group | None]) -> tuple[tuple[_Group, ...], ...]:
    """The groups of the terms left once n are relaxed, at index n (None: a term over
    another key, relaxed in its turn)."""
    return tuple(tuple(g for g in groups[n:] if g is not None) for n in range(len(groups) + 1))


def _heaviest(terms: Sequence[tuple[int, AffinityTerm]]) -> list[AffinityTerm]:
    """preferences.go's order of removal: by weight, heaviest first, a stable sort."""
    return [t for _, t in sorted(terms, key=lambda wt: -wt[0])]


def _affinity_alone(
    pod: PodProfile, cluster: Cluster, term: AffinityTerm, anti: bool, key: str = ZONE
) -> AffinityState | None:
    """The InterPodAffinity PreFilter of the pod whose one required term is ``term``,
    counting as Karpenter counts (:func:`_recounted`); None for a term over another key
    than ``key``."""
    if term.topology_key != key:
        return None
    listed = _listing(term)
    alone = replace(
        pod,
        pod_affinity=() if anti else (listed,),
        pod_anti_affinity=(listed,) if anti else (),
    )
    state = prepare_affinity(alone, _counted_pods(cluster))
    if state is None or listed is term:
        return state
    return replace(state, self_match=False)


def _recounted(pod: PodProfile, cluster: Cluster, state: AffinityState) -> AffinityState:
    """The InterPodAffinity PreFilter's ``state`` for ``pod``, its counts of the pods the
    pod's own terms name taken again as topology.go ``countDomains`` takes them: no
    terminating pod (:func:`_counted_pods`) and every pod of a term's namespaces for a term
    without a labelSelector (:func:`_listing`). What the pod's copies match of their own
    terms stays the selectors' answer (``selects``), and existing pods' anti-affinity to the
    pod counts the terminating too (state.Cluster tracks them: ``updateInverseAffinities``)."""
    if not (pod.pod_affinity or pod.pod_anti_affinity):
        return state
    counted = _counted_pods(cluster)
    affinity = tuple(_listing(t) for t in pod.pod_affinity)
    anti = tuple(_listing(t) for t in pod.pod_anti_affinity)
    if counted is cluster and affinity == pod.pod_affinity and anti == pod.pod_anti_affinity:
        return state
    again = prepare_affinity(replace(pod, pod_affinity=affinity, pod_anti_affinity=anti), counted)
    if again is None:
        return state
    return replace(state, affinity_counts=again.affinity_counts, anti_counts=again.anti_counts)


def _listing(term: AffinityTerm) -> AffinityTerm:
    """topology.go ``TopologyListOptions``: a term without a labelSelector lists every pod
    of its namespaces."""
    if not term.selector.nothing:
        return term
    return AffinityTerm(term.namespaces, term.namespace_selector, EVERY_POD, term.topology_key)


_TERMINATING = "karpenter-terminating"


def _counted_pods(cluster: Cluster) -> Cluster:
    """The cluster without its terminating pods, which topology.go ``countDomains`` passes
    over for every group (``IgnoredForTopology``) where InterPodAffinity counts them."""
    memo = cluster.others.memo
    found = memo.get(_TERMINATING)
    if not isinstance(found, tuple):
        index = cluster.others.pods
        found = memo[_TERMINATING] = tuple(i for i, p in enumerate(index.pods) if p.terminating)
    return cluster.without(found) if found else cluster


def _step(steps: Sequence[tuple[Zonal, ...]], n: int) -> tuple[Zonal, ...]:
    return steps[n] if n < len(steps) else ()


def _soft_steps(pod: PodProfile) -> list[list[SpreadConstraint]]:
    """preferences.go ``removeTopologySpreadScheduleAnyway`` step by step: the
    ScheduleAnyway spreads left once n are relaxed, at index n. Each step swaps the first
    ScheduleAnyway constraint with the last constraint listed, of either kind, and drops
    it (``soft_spread_at``: where the soft ones stand)."""
    soft = iter(pod.soft_spread)
    at = pod.soft_spread_at
    if sum(at) != len(pod.soft_spread):  # a profile built without the listing
        at = (True,) * len(pod.soft_spread)
    listed = [next(soft) if is_soft else None for is_soft in at]
    steps = [[c for c in listed if c is not None]]
    while (first := next((i for i, c in enumerate(listed) if c is not None), None)) is not None:
        listed[first] = listed[-1]
        listed.pop()
        steps.append([c for c in listed if c is not None])
    return steps


def _add(counts: dict[str, int], more: Mapping[str, int]) -> None:
    for zone, n in more.items():
        counts[zone] = counts.get(zone, 0) + n
