"""Instance types against a NodeClaim's requirements and requests
(pkg/controllers/provisioning/scheduling/nodeclaim.go ``filterInstanceTypesByRequirements``
and ``InstanceTypeFilterError``; pkg/utils/resources/resources.go ``Fits``, ``String``).

The ``resources=`` of a refusal prints each quantity as Go's resource.Quantity does: its
value in its format (``String()``, CanonicalizeBytes), the format carried from the quantities
as written. Upstream (sigs.k8s.io/karpenter v1.8.3, k8s.io/apimachinery and
k8s.io/component-helpers v0.34.1):

* ``InstanceTypeFilterError.Error`` prints ``resources.String(resources.Merge(
  e.daemonRequests, e.podRequests))``: the NodeClaim's DaemonSet overhead first, then the
  pod's requests (nodeclaim.go). ``String`` is ``pretty.Concise``: the list as JSON, keys
  sorted, each value its ``String()``.
* ``Merge`` adds every list into an empty one in order, with ``Quantity.Add``
  (quantity.go), which keeps the receiver's format unless its value is zero, when it takes
  the added quantity's: a sum prints in the format of its first non-zero operand. So a
  resource the DaemonSets request prints in their format, any other in the pod's.
* The overhead is ``getDaemonOverhead`` (scheduler.go): ``RequestsForPods`` of the
  compatible DaemonSets' pods, a ``Merge`` of each one's ``Ceiling`` requests in the order
  the DaemonSets are listed (an informer's list, in no set order: fitgate takes the
  snapshot's); the pod's is ``RequestsForPods(pod)`` (scheduler.go
  ``updateCachedPodData``). ``RequestsForPods`` sets ``pods`` to
  ``NewQuantity(len(pods), DecimalExponent)``, so the count prints in DecimalExponent.
* ``Ceiling`` is component-helpers ``PodRequests``: ``AggregateContainerRequests`` adds the
  containers and sidecars with ``addResourceList`` (a first value copied, later ones
  ``Add``-ed), keeps the peak of the init containers with ``maxResourceList`` (the larger
  by ``Cmp`` replaces the smaller, with its own format; a tie keeps the earlier); set
  pod-level requests (cpu, memory, hugepages) replace the aggregate, format included; the
  ``overhead`` is then added with ``addResourceList``
  (:func:`gate.k8s.quotausage.pod_requests` follows these rules).
* Karpenter reads pods and DaemonSets back from the API server, which stores each quantity
  as its ``String()`` text: the format is that of the stored text (``1.5Ki`` is read back as
  ``1536``, DecimalSI; :meth:`gate.k8s.quotausage.Amount.stored`).

* ``String`` prints every entry of the list, zeros included (``"memory":"0"`` when only a
  DaemonSet's zero request names memory), and each exact value (``memory: 1.5`` prints
  ``1500m``).

Whether a type fits is judged on the scheduler's integers (cpu in millicores); the printed
list is the exact one. The pod's is worked out once per workload, when it first asks a pool
for a new claim (``PodProfile.stored_requests``), the DaemonSets' once per NodePool
(``Pool.daemon_requests``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from gate.k8s.resources import CPU, PODS
from gate.scheduler.autoscaling.karpenter.pools import (
    PoolType,
    Shown,
    min_values_unmet,
    offer_check,
)
from gate.scheduler.autoscaling.karpenter.requirements import Req, Reqs, intersects, text
from gate.scheduler.plugins.noderesources import copies_held

NO_ROOM = "no instance type has enough resources"
MILLION = Fraction(10**6)
"""``resource.MustParse("1M")``: the cpu request the m vs M hint starts at."""
MIN_VALUES = "minValues requirement is not met for label(s)"
"""cloudprovider/types.go ``SatisfiesMinValues`` (the default Strict ``MinValuesPolicy``)."""


def resources_text(amounts: Shown) -> str:
    """pkg/utils/resources/resources.go ``String``: the quantities as JSON, keys sorted,
    each its ``String()``, a zero printed as ``0``."""
    shown = {r: str(a) for r, a in sorted(amounts.items())}
    return json.dumps(shown, separators=(",", ":")) if shown else "{}"


def add(a: Mapping[str, int], b: Mapping[str, int], times: int = 1) -> dict[str, int]:
    total = dict(a)
    for r, amount in b.items():
        total[r] = total.get(r, 0) + times * amount
    return total


def fits(requests: Mapping[str, int], allocatable: Mapping[str, int]) -> bool:
    """resources.go ``Fits``."""
    return all(amount <= allocatable.get(r, 0) for r, amount in requests.items())


def room(it: PoolType, daemon: Mapping[str, int], pod: Mapping[str, int]) -> int:
    """How many copies a type holds beside the DaemonSet overhead: NodeResourcesFit's
    arithmetic, which ``resources.Fits`` shares, with the pod slots among the resources."""
    slots = it.allocatable.get(PODS, 0) - daemon.get(PODS, 0)
    return copies_held(pod, slots, lambda r: it.allocatable.get(r, 0) - daemon.get(r, 0))


Match = Callable[[PoolType], bool]
Offers = Callable[[Mapping[str, Req]], bool]


def matcher(reqs: Reqs) -> Match:
    """Whether a type's requirements intersect ``reqs``."""
    return lambda it: intersects(it.reqs, reqs) is None


def filter_types(
    types: Sequence[PoolType],
    reqs: Reqs,
    total: Mapping[str, int],
    shown: Shown,
    compat: Match | None = None,
    offers: Offers | None = None,
    pod: Shown | None = None,
) -> tuple[tuple[PoolType, ...], tuple[str, str] | None]:
    """nodeclaim.go ``filterInstanceTypesByRequirements`` and ``InstanceTypeFilterError``.
    ``compat`` and ``offers`` answer as :func:`matcher` and
    :func:`~gate.scheduler.autoscaling.karpenter.pools.offer_check` of ``reqs`` do (a caller may
    give memoized ones); ``shown`` is what the refusal prints (``Merge`` of the DaemonSets'
    and the pod's requests), ``pod`` the pod's own (None: ``shown``). The cheap test goes
    first; why no type is left is worked out only when none is."""
    compat = compat if compat is not None else matcher(reqs)
    offers = offers if offers is not None else offer_check(reqs)
    kept = [
        it
        for it in types
        if fits(total, it.allocatable) and compat(it) and any(offers(o) for o, _ in it.offerings)
    ]
    if kept:
        unmet = min_values_unmet(kept, reqs)
        if unmet:
            reason = MIN_VALUES
            said = f"{MIN_VALUES} (label(s)=[{' '.join(unmet)}])"
            return (), (
                reason,
                f"{said}, requirements={text(reqs)}, resources={resources_text(shown)}",
            )
        return tuple(kept), None
    met = fit = has = met_fit = met_has = fit_has = False
    for it in types:
        matched = compat(it)
        room_ok = fits(total, it.allocatable)
        offer = any(offers(o) for o, _ in it.offerings)
        met, fit, has = met or matched, fit or room_ok, has or offer
        met_fit = met_fit or (matched and room_ok and not offer)
        met_has = met_has or (matched and offer and not room_ok)
        fit_has = fit_has or (room_ok and offer and not matched)
    return (), no_type_left(reqs, shown, met, fit, has, met_fit, fit_has, met_has, pod)


def no_type_left(
    reqs: Reqs,
    shown: Shown,
    met: bool,
    fit: bool,
    has: bool,
    met_fit: bool,
    fit_has: bool,
    met_has: bool,
    pod: Shown | None = None,
) -> tuple[str, str]:
    """InstanceTypeFilterError's reason and text, from which of the three tests some type
    passed (``met`` the requirements, ``fit`` the resources, ``has`` an offering) and which
    pairs one type passed without the third. The m vs M hint reads the pod's own cpu
    request (``pod``; None: ``shown``), not the DaemonSets' shown with it, and only when
    the resources alone excluded every type (upstream appends it in that branch only)."""
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
        reason = NO_ROOM
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
    said = f"{reason}, requirements={text(reqs)}, resources={resources_text(shown)}"
    cpu = (shown if pod is None else pod).get(CPU)
    if reason == NO_ROOM and cpu is not None and cpu.value >= MILLION:
        said += " (CPU request >= 1 Million, m vs M typo?)"
    return reason, said
