"""A Ready NodePool as Karpenter's scheduler holds it (``sigs.k8s.io/karpenter`` v1.8):
its NodeClaim template's requirements (pkg/controllers/provisioning/scheduling/
nodeclaimtemplate.go ``NewNodeClaimTemplate``: the pool's requirements, its labels and
``karpenter.sh/nodepool`` and the NodeClass label, each ``In``), its instance types
pre-filtered by them (provisioner.go ``NewScheduler``: ``filterInstanceTypesByRequirements``
with no requests), each type's allocatable as the pool's NodeClass changes it, and the
DaemonSet overhead of a fresh node (scheduler.go ``getDaemonOverhead``,
``getDaemonHostPortUsage``, ``isDaemonPodCompatible``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gate.k8s.labels import INSTANCE_TYPE, OS, ZONE
from gate.k8s.matching import PREFER_NO_SCHEDULE, tolerates
from gate.k8s.nodeterms import Expression, written_node_affinity
from gate.k8s.quantity import DECIMAL_EXPONENT
from gate.k8s.quotausage import Amount, add_to
from gate.model import HostPort
from gate.model.autoscaling import DaemonSet
from gate.model.karpenter import (
    CAPACITY_TYPE_LABEL,
    NODEPOOL_LABEL,
    InstanceType,
    NodeClass,
    NodePool,
    Offering,
)
from gate.model.taints import Taint
from gate.scheduler.autoscaling.karpenter.aks import for_node_class
from gate.scheduler.autoscaling.karpenter.requirements import (
    DOES_NOT_EXIST,
    IN,
    Req,
    Reqs,
    compatible,
    from_labels,
    get,
    intersects,
    merged,
    of,
)
from gate.scheduler.framework.pods import pod_profile

TOLERATE_PREFER_NO_SCHEDULE = {"operator": "Exists", "effect": PREFER_NO_SCHEDULE}
"""preferences.go ``toleratePreferNoScheduleTaints``: the toleration relaxation adds."""
ZONE_ID = "topology.k8s.aws/zone-id"
"""karpenter-provider-aws v1.8.8 pkg/apis/v1/labels.go ``LabelTopologyZoneID``: a type's zone
IDs (types.go:214-223) and each offering's (offering/offering.go:155-157), from the
EC2NodeClass's ``status.subnets``."""


def same_toleration(toleration: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """k8s.io/api core/v1 toleration.go ``MatchToleration``: the same key, effect, operator
    and value, an absent one the empty string (``tolerationSeconds`` is not compared)."""
    return all(
        (toleration.get(f) or "") == (other.get(f) or "")
        for f in ("key", "effect", "operator", "value")
    )


@dataclass(frozen=True, slots=True)
class PoolType:
    """An instance type as one pool sees it: its requirements (pkg/cloudprovider/types.go:
    its labels, os, and the zones and capacity types of its offerings), its available
    offerings (requirements, price), capacity and allocatable (capacity less overhead)."""

    name: str
    reqs: Mapping[str, Req]
    offerings: tuple[tuple[Mapping[str, Req], float], ...]
    capacity: Mapping[str, int]
    allocatable: Mapping[str, int]


def offering_reqs(offering: Offering) -> dict[str, Req]:
    labels = {CAPACITY_TYPE_LABEL: offering.capacity_type}
    if offering.zone:
        labels[ZONE] = offering.zone
    return merged(from_labels(labels), (Req.of(r) for r in offering.requirements))


def type_reqs(it: InstanceType) -> dict[str, Req]:
    reqs = merged(from_labels({INSTANCE_TYPE: it.name, **it.labels}))
    reqs = merged(reqs, [Req.new(OS, IN, it.operating_systems)])
    if it.absent:
        reqs = merged(reqs, [Req.new(key, DOES_NOT_EXIST, ()) for key in it.absent])
    if it.requirements:
        reqs = merged(reqs, (Req.of(r) for r in it.requirements))
    zones = sorted({o.zone for o in it.offerings if o.zone})
    kinds = sorted({o.capacity_type for o in it.offerings})
    if zones:
        reqs = merged(reqs, [Req.new(ZONE, IN, zones)])
    if kinds:
        reqs = merged(reqs, [Req.new(CAPACITY_TYPE_LABEL, IN, kinds)])
    return reqs


SIGNALS = {"memory.available": "memory", "nodefs.available": "ephemeral-storage"}
"""The kubelet's eviction signals and the resource each one holds back."""


def _percent(text: str) -> Fraction | None:
    try:
        return Fraction(text.strip().rstrip("%")) / 100 if text.strip().endswith("%") else None
    except (ValueError, ZeroDivisionError):
        return None


def _thresholds(
    amounts: Mapping[str, int], percents: Mapping[str, str], capacity: Mapping[str, int]
) -> dict[str, int]:
    held: dict[str, int] = {}
    for signal, amount in amounts.items():
        held[SIGNALS.get(signal, signal)] = amount
    for signal, written in percents.items():
        resource = SIGNALS.get(signal, signal)
        share = _percent(written)
        if share is not None:
            share = Fraction(0) if share == 1 else share
            held[resource] = math.ceil(share * capacity.get(resource, 0))
    return held


def eviction(node_class: NodeClass, capacity: Mapping[str, int]) -> dict[str, int]:
    """The eviction thresholds by the resource each signal holds back (``memory.available``
    is ``memory``): absolute ones, and percentages of the capacity rounded up, ``100%``
    none (types.go ``computeEvictionSignal``, ``mustParsePercentage``); per resource the
    larger of ``evictionHard`` and ``evictionSoft`` (types.go ``evictionThreshold``:
    ``MaxResources``, every AMI family but Bottlerocket enabling the soft ones)."""
    hard = _thresholds(node_class.eviction_hard, node_class.eviction_percent, capacity)
    soft = _thresholds(node_class.eviction_soft, node_class.eviction_soft_percent, capacity)
    return {r: max(hard.get(r, 0), soft.get(r, 0)) for r in hard.keys() | soft.keys()}


def provider_allocatable(it: InstanceType, node_class: NodeClass | None) -> dict[str, int]:
    """A type a provider built from a cloud listing, as karpenter-provider-aws v1.8.8
    builds it for the pool's EC2NodeClass (pkg/providers/instancetype/types.go): ``pods``
    is ``maxPods`` when set, capped by ``podsPerCore`` times the vCPUs (468-482); each key of
    ``kubeReserved`` replaces the computed one (526-528), ``systemReserved`` is the
    NodeClass's alone (493-497), and ``evictionHard`` replaces the default threshold of the
    signal it names, a percentage of the capacity rounded up, ``100%`` none (531-558,
    583-605). Kube-reserved memory keeps the ENI-limited pods whatever ``maxPods`` says
    (146)."""
    capacity = dict(it.capacity)
    kube = dict(it.kube_reserved or {})
    system: dict[str, int] = {}
    held = dict(it.eviction_threshold or {})
    if node_class is not None:
        if node_class.root_volume is not None:
            # types.go 357-393 and 533: the volume is the ephemeral storage, whose default
            # eviction threshold is 10 percent of it (the catalog built it for 20Gi)
            capacity["ephemeral-storage"] = node_class.root_volume
            held["ephemeral-storage"] = math.ceil(node_class.root_volume / 100 * 10)
        if node_class.max_pods is not None:
            capacity["pods"] = node_class.max_pods
        if node_class.pods_per_core:
            cores = capacity.get("cpu", 0) // 1000
            capacity["pods"] = min(node_class.pods_per_core * cores, capacity.get("pods", 0))
        kube.update(node_class.kube_reserved)
        system = dict(node_class.system_reserved)
        held.update(eviction(node_class, capacity))
    parts = (kube, system, held)
    return {r: a - sum(p.get(r, 0) for p in parts) for r, a in capacity.items()}


def allocatable(it: InstanceType, node_class: NodeClass | None) -> dict[str, int]:
    """Capacity less overhead; the NodeClass's kubelet settings replace the overhead of the
    resources they name (kubeReserved + systemReserved + evictionHard) and cap ``pods``
    (``maxPods``, and ``podsPerCore`` times the cores, the lower). A type built from a
    provider's listing follows its provider's rules (:func:`provider_allocatable`)."""
    if it.kube_reserved is not None:
        return provider_allocatable(it, node_class)
    overhead = dict(it.overhead)
    capacity = dict(it.capacity)
    if node_class is not None:
        parts = (
            node_class.kube_reserved,
            node_class.system_reserved,
            eviction(node_class, capacity),
        )
        for resource in {r for part in parts for r in part}:
            overhead[resource] = sum(part.get(resource, 0) for part in parts)
        caps = []
        if node_class.max_pods is not None:
            caps.append(node_class.max_pods)
        if node_class.pods_per_core is not None:
            caps.append(node_class.pods_per_core * (capacity.get("cpu", 0) // 1000))
        if caps:
            capacity["pods"] = min(caps)
    return {r: amount - overhead.get(r, 0) for r, amount in capacity.items()}


def untolerated(taints: Iterable[Taint], tolerations: Sequence[Mapping[str, Any]]) -> list[str]:
    """pkg/scheduling/taints.go ``Tolerates``: every taint (whatever its effect) must be
    tolerated; each one that is not gives ``did not tolerate taint (taint=k=v:Effect)``."""
    return [
        f"did not tolerate taint (taint={taint})"
        for taint in taints
        if not any(tolerates(t, taint) for t in tolerations)
    ]


def term_reqs(expressions: Sequence[Expression]) -> list[Req]:
    """``NewNodeSelectorRequirements`` of one term's ``matchExpressions``."""
    return [Req.new(e.key, e.operator, list(e.values)) for e in expressions]


def selector_reqs(spec: Mapping[str, Any]) -> dict[str, Req]:
    selector = spec.get("nodeSelector")
    if not isinstance(selector, Mapping):
        return {}
    return from_labels({str(k): str(v) for k, v in selector.items()})


Shown = Mapping[str, Amount]
"""Requests as a refusal prints them: exact, each in its format."""


def merge(*lists: Shown) -> dict[str, Amount]:
    """resources.go ``Merge``: each list added in order into an empty one (Quantity.Add),
    zeros kept."""
    total: dict[str, Amount] = {}
    for amounts in lists:
        add_to(total, amounts)
    return total


def requests_for_pods(*requests: Shown) -> dict[str, Amount]:
    """resources.go ``RequestsForPods`` of pods whose ``Ceiling`` requests are given: their
    ``Merge`` with ``pods`` set to their count in DecimalExponent."""
    merged = merge(*requests)
    merged["pods"] = Amount(Fraction(len(requests)), DECIMAL_EXPONENT)
    return merged


@dataclass(frozen=True, slots=True)
class Pool:
    """A Ready dynamic NodePool's template (module doc)."""

    name: str
    weight: int
    reqs: Mapping[str, Req]
    taints: tuple[Taint, ...]
    types: tuple[PoolType, ...]
    limits: Mapping[str, int] | None
    daemon: Mapping[str, int]
    daemon_ports: frozenset[HostPort]
    exceeded: str = ""
    """Why Karpenter would fail to create the claims its simulation plans in this pool:
    its usage already exceeds a limit the simulation does not check (``nodes``)."""
    refusal: str = ""
    """Why the pool takes no copy whatever it asks, when its requirements name provider
    labels the catalog cannot judge (:mod:`.unjudged`)."""
    daemon_requests: Mapping[str, Amount] = field(default_factory=dict)
    """``daemon`` as a refusal prints it: ``RequestsForPods`` of the compatible DaemonSets'
    exact requests, zeros and formats kept (:mod:`.instancetypes`)."""


def template_reqs(pool: NodePool) -> dict[str, Req]:
    labels = {**pool.labels, NODEPOOL_LABEL: pool.name}
    group, kind, name = pool.node_class
    if group and kind:
        labels[f"{group}/{kind.lower()}"] = name
    return merged(of(pool.requirements), from_labels(labels).values())


@dataclass(slots=True)
class TypeMemo:
    """A run's catalog as every pool sees it, built once: each type's requirements and
    offerings do not depend on the pool, and its allocatable only on the pool's NodeClass.
    Offerings of equal requirements are one object (a catalog of 700 types offers a few
    dozen zone and capacity-type pairs), so a claim asks each pair once
    (:func:`offer_check`)."""

    offerings: dict[Hashable, dict[str, Req]] = field(default_factory=dict)
    parts: dict[
        int, tuple[InstanceType, Mapping[str, Req], tuple[tuple[Mapping[str, Req], float], ...]]
    ] = field(default_factory=dict)
    types: dict[tuple[int, int], PoolType] = field(default_factory=dict)
    zoned: dict[tuple[int, str], Mapping[str, Req]] = field(default_factory=dict)
    variants: dict[tuple[int, int], InstanceType] = field(default_factory=dict)
    """Each type as a NodeClass has the provider list it (:func:`.aks.for_node_class`)."""

    def offering(self, offering: Offering) -> Mapping[str, Req]:
        key = (offering.capacity_type, offering.zone, offering.requirements)
        try:
            found = self.offerings.get(key)
        except TypeError:  # requirements built with lists: not shared, still right
            return offering_reqs(offering)
        if found is None:
            found = self.offerings[key] = offering_reqs(offering)
        return found

    def type_parts(
        self, it: InstanceType
    ) -> tuple[Mapping[str, Req], tuple[tuple[Mapping[str, Req], float], ...]]:
        found = self.parts.get(id(it))
        if found is None:
            offerings = tuple((self.offering(o), o.price) for o in it.offerings if o.available)
            # the type is kept beside its parts: its id stays its own while the memo lives
            found = self.parts[id(it)] = (it, type_reqs(it), offerings)
        return found[1], found[2]

    def pool_type(self, it: InstanceType, node_class: NodeClass | None) -> PoolType | None:
        """The type with the NodeClass's allocatable; None when that is negative."""
        key = (id(it), id(node_class))
        found = self.types.get(key)
        if found is None:
            listed = for_node_class(it, node_class)
            if listed is None:
                return None
            it = self.variants.setdefault(key, listed)
            it_reqs, offerings = self.type_parts(it)
            alloc = allocatable(it, node_class)
            if any(amount < 0 for amount in alloc.values()):
                return None
            if node_class is not None and node_class.zone_ids:
                it_reqs, offerings = self.zone_ids(it_reqs, offerings, node_class.zone_ids)
            found = self.types[key] = PoolType(
                it.name, it_reqs, offerings, dict(it.capacity), alloc
            )
        return found

    def zone_ids(
        self,
        it_reqs: Mapping[str, Req],
        offerings: tuple[tuple[Mapping[str, Req], float], ...],
        zone_ids: Mapping[str, str],
    ) -> tuple[Mapping[str, Req], tuple[tuple[Mapping[str, Req], float], ...]]:
        """The type and its offerings with the zone IDs the NodeClass's subnets record: the
        type holds those of its zones (types.go:214-223: none known, no requirement; a type
        of no recorded zone is in every one), each offering its zone's (offering.go:155-157)."""
        if ZONE in it_reqs:
            zones = get(it_reqs, ZONE).values
            ids = sorted({zone_ids[z] for z in zones if z in zone_ids})
        else:
            ids = sorted(set(zone_ids.values()))
        if ids:
            it_reqs = merged(it_reqs, [Req.new(ZONE_ID, IN, ids)])
        zoned = []
        for reqs, price in offerings:
            zone = next(iter(reqs[ZONE].values), "") if ZONE in reqs else ""
            if zone not in zone_ids:
                zoned.append((reqs, price))
                continue
            found = self.zoned.get((id(reqs), zone_ids[zone]))
            if found is None:
                found = merged(reqs, [Req.new(ZONE_ID, IN, [zone_ids[zone]])])
                # keyed by the shared offering's id: the offering stays in self.offerings
                self.zoned[(id(reqs), zone_ids[zone])] = found
            zoned.append((found, price))
        return it_reqs, tuple(zoned)


def pool_types(
    reqs: Reqs,
    catalog: Iterable[InstanceType],
    node_class: NodeClass | None,
    memo: TypeMemo | None = None,
) -> tuple[PoolType, ...]:
    """``filterInstanceTypesByRequirements`` with no requests: types whose requirements
    intersect the pool's, with an available offering compatible with them."""
    memo = memo if memo is not None else TypeMemo()
    kept = []
    for it in catalog:
        # as the NodeClass has the provider list it: its labels, zone IDs and allocatable
        pool_type = memo.pool_type(it, node_class)
        if pool_type is not None and intersects(pool_type.reqs, reqs) is None:
            kept.append(pool_type)
    offers = offer_check(reqs)
    kept = [t for t in kept if any(offers(o) for o, _ in t.offerings)]
    return () if min_values_unmet(kept, reqs) else tuple(kept)


def domain_zones(
    reqs: Reqs, catalog: Iterable[InstanceType], node_class: NodeClass | None, memo: TypeMemo
) -> set[str]:
    """topology.go ``buildDomainGroups`` for the zone, of one pool whose instance types
    resolve: the values of the pool's zone requirement intersected with each type's (every
    type the provider lists for the pool, whether or not it suits the pool otherwise), and
    the zones the pool names ``In``, whether or not a type is offered there. A zonal spread
    counts each at its matching pods, so a zone no type reaches holds its minimum at 0."""
    zones: set[str] = set()
    pool_zone = reqs.get(ZONE)
    listed = False
    for it in catalog:
        pool_type = memo.pool_type(it, node_class)
        if pool_type is None:
            continue
        listed = True
        type_zone = pool_type.reqs.get(ZONE)
        if type_zone is None:
            if pool_zone is not None:
                zones.update(pool_zone.values)  # Values() of the pool's own, as upstream reads it
            continue
        both = type_zone if pool_zone is None else pool_zone.intersection(type_zone)
        zones.update(both.values)
    if listed and pool_zone is not None and pool_zone.operator == IN:
        zones.update(pool_zone.values)
    return zones


def min_values_unmet(types: Sequence[PoolType], reqs: Reqs) -> list[str]:
    """cloudprovider/types.go ``SatisfiesMinValues``: the keys whose ``minValues`` the types'
    distinct values fall short of (sorted; upstream lists them in map order)."""
    unmet = []
    for key, req in reqs.items():
        if req.min_values is not None:
            seen = {v for it in types for v in get(it.reqs, key).values}
            if len(seen) < req.min_values:
                unmet.append(key)
    return sorted(unmet)


def offered(reqs: Reqs, offering: Mapping[str, Req]) -> bool:
    """``requirements.IsCompatible(offering.Requirements, AllowUndefinedWellKnownLabels)``:
    the offering's keys are zone, capacity type and the provider's (all well-known)."""
    return intersects(reqs, offering) is None


def offer_check(
    reqs: Reqs, memo: dict[int, bool] | None = None
) -> Callable[[Mapping[str, Req]], bool]:
    """:func:`offered` against ``reqs``, each offering object asked once (``memo``, by the
    offering's id, may be shared by every check of requirements alike on the offerings'
    keys); :class:`TypeMemo` makes offerings of equal requirements one object."""
    seen: dict[int, bool] = memo if memo is not None else {}

    def check(offering: Mapping[str, Req]) -> bool:
        found = seen.get(id(offering))
        if found is None:
            found = seen[id(offering)] = intersects(reqs, offering) is None
        return found

    return check


def daemon_compatible(
    ds: DaemonSet, reqs: Reqs, taints: Sequence[Taint], allowed: frozenset[str]
) -> bool:
    """``isDaemonPodCompatible``: tolerates the pool's taints (PreferNoSchedule tolerated)
    and its strict requirements are compatible, trying each required term in turn."""
    tolerations = [*(ds.pod_spec.get("tolerations") or []), TOLERATE_PREFER_NO_SCHEDULE]
    if untolerated(taints, [t for t in tolerations if isinstance(t, Mapping)]):
        return False
    required = written_node_affinity(ds.pod_spec).required
    base = selector_reqs(ds.pod_spec)
    for term in required or [()]:
        if compatible(reqs, merged(base, term_reqs(term)), allowed) is None:
            return True
    return False


def daemon_pod_spec(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """pkg/utils/daemonset/daemonset.go ``PodForDaemonSet``: the template's spec with each
    container's and init container's limits standing for the requests it lacks
    (``mergeResourceLimitsIntoRequests``), as the API server defaults a created pod's; the
    DaemonSet's template is never defaulted so."""
    merged = dict(spec)
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if isinstance(containers, list):
            merged[key] = [_limits_as_requests(c) for c in containers]
    return merged


def _limits_as_requests(container: object) -> object:
    if not isinstance(container, Mapping):
        return container
    resources = container.get("resources")
    if not isinstance(resources, Mapping) or not isinstance(resources.get("limits"), Mapping):
        return container
    requests = resources.get("requests")
    merged = {**resources["limits"], **(requests if isinstance(requests, Mapping) else {})}
    return {**container, "resources": {**resources, "requests": merged}}


def make_pool(
    pool: NodePool,
    catalog: Iterable[InstanceType],
    node_class: NodeClass | None,
    daemon_sets: Iterable[DaemonSet],
    allowed: frozenset[str],
    memo: TypeMemo | None = None,
) -> Pool:
    reqs = template_reqs(pool)
    daemon: dict[str, int] = {"pods": 0}
    stored: list[Mapping[str, Amount]] = []
    ports: set[HostPort] = set()
    for ds in daemon_sets:
        if not daemon_compatible(ds, reqs, pool.taints, allowed):
            continue
        profile = pod_profile(daemon_pod_spec(ds.pod_spec), ds.namespace, pinned=True)
        if profile.dra_requirements:
            # scheduler.go getDaemonOverhead, getDaemonHostPortUsage: with IgnoreDRARequests
            # (its default) such a DaemonSet counts neither its requests nor its ports
            continue
        for resource, amount in profile.requests.items():
            if amount:
                daemon[resource] = daemon.get(resource, 0) + amount
        stored.append(profile.stored_requests())
        daemon["pods"] += 1
        ports.update(profile.regular_ports)
    return Pool(
        pool.name,
        pool.weight,
        reqs,
        pool.taints,
        pool_types(reqs, catalog, node_class, memo),
        pool.limits,
        daemon,
        frozenset(ports),
        daemon_requests=requests_for_pods(*stored),
    )
