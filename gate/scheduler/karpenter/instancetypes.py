"""Instance types against a NodeClaim's requirements and requests
(pkg/controllers/provisioning/scheduling/nodeclaim.go ``filterInstanceTypesByRequirements``
and ``InstanceTypeFilterError``; pkg/utils/resources/resources.go ``Fits``, ``String``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from gate.k8s.quantity import format_amount
from gate.scheduler.karpenter.pools import PoolType, min_values_unmet, offered
from gate.scheduler.karpenter.requirements import Reqs, intersects, text

MIN_VALUES = "minValues requirement is not met for label(s)"
"""cloudprovider/types.go ``SatisfiesMinValues`` (the default Strict ``MinValuesPolicy``)."""


def resources_text(amounts: Mapping[str, int]) -> str:
    """pkg/utils/resources/resources.go ``String``: the quantities as JSON, keys sorted."""
    shown = {r: format_amount(r, a) for r, a in sorted(amounts.items()) if a or r == "pods"}
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
    """How many copies a type holds beside the DaemonSet overhead."""
    count: int | None = None
    for r, amount in pod.items():
        if amount > 0:
            free = (it.allocatable.get(r, 0) - daemon.get(r, 0)) // amount
            count = free if count is None else min(count, free)
    return max(count if count is not None else 0, 0)


def filter_types(
    types: Sequence[PoolType], reqs: Reqs, total: Mapping[str, int], shown: Mapping[str, int]
) -> tuple[tuple[PoolType, ...], tuple[str, str] | None]:
    """nodeclaim.go ``filterInstanceTypesByRequirements`` and ``InstanceTypeFilterError``."""
    kept = []
    met = fit = has = met_fit = met_has = fit_has = False
    for it in types:
        compat = intersects(it.reqs, reqs) is None
        room_ok = fits(total, it.allocatable)
        offer = any(offered(reqs, o) for o, _ in it.offerings)
        met, fit, has = met or compat, fit or room_ok, has or offer
        met_fit = met_fit or (compat and room_ok and not offer)
        met_has = met_has or (compat and offer and not room_ok)
        fit_has = fit_has or (room_ok and offer and not compat)
        if compat and room_ok and offer:
            kept.append(it)
    unmet = min_values_unmet(kept, reqs) if kept else []
    if unmet:
        reason = MIN_VALUES
        said = f"{MIN_VALUES} (label(s)=[{' '.join(unmet)}])"
        return (), (reason, f"{said}, requirements={text(reqs)}, resources={resources_text(shown)}")
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
    said = f"{reason}, requirements={text(reqs)}, resources={resources_text(shown)}"
    if not fit and shown.get("cpu", 0) >= 10**9:  # 1M cores, in millicores
        said += " (CPU request >= 1 Million, m vs M typo?)"
    return (), (reason, said)
