"""What a pod counts in a ResourceQuota, as the API server's pod evaluator measures it.

Upstream: ``pkg/quota/v1/evaluator/core/pods.go`` (PodUsageFunc, podComputeUsageHelper) over
``component-helpers/resource/helpers.go`` (PodRequests, PodLimits, IsPodLevelResourcesSet).
Values keep the format the API server prints them in (:class:`Amount`): a sum keeps its first
value's format, as Go's Quantity.Add does. A client reads a created pod back from its stored
text (:meth:`Amount.stored`, :func:`stored_requests`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

from gate.k8s.quantity import DECIMAL_SI, go_quantity_text, parse_quantity, quantity_format
from gate.k8s.resources import (
    CPU,
    MEMORY,
    aggregate_containers,
    is_extended,
    pod_level_resource,
)
from gate.untyped import as_list, mapping

COUNT_PODS: Final = "count/pods"
"""The object count of pods (``generic.ObjectCountQuotaResourceNameFor``): every pod stored."""
PODS: Final = "pods"
REQUESTS, LIMITS, HUGEPAGES = "requests.", "limits.", "hugepages-"
EPHEMERAL: Final = "ephemeral-storage"


@dataclass(frozen=True, slots=True)
class Amount:
    """A quantity as resource.Quantity holds it: its value and the format it prints in."""

    value: Fraction
    format: str = DECIMAL_SI

    @classmethod
    def of(cls, raw: object) -> Amount:
        """A quantity as written (raises QuantityError where ParseQuantity fails)."""
        return cls(parse_quantity(raw), quantity_format(raw))

    @classmethod
    def stored(cls, raw: object) -> Amount:
        """A quantity as a client reads it back: the API server stores its String() text,
        which parses to the same value but not always in the same format (``1.5Ki`` is
        stored as ``1536``, DecimalSI; ``1.5e3`` as ``1500``)."""
        written = cls.of(raw)
        return cls(written.value, _read_back(written.value, written.format))

    def plus(self, other: Amount) -> Amount:
        """Quantity.Add: the sum keeps this value's format, unless this value is zero."""
        fmt = other.format if self.value == 0 else self.format
        return Amount(self.value + other.value, fmt)

    def minus(self, other: Amount) -> Amount:
        return Amount(self.value - other.value, self.format)

    def __str__(self) -> str:
        return go_quantity_text(self.value, self.format)


@lru_cache(maxsize=4096)
def _read_back(value: Fraction, fmt: str) -> str:
    # A cluster's objects repeat a few dozen quantities: each is printed and parsed once.
    return quantity_format(go_quantity_text(value, fmt))


Usage = dict[str, Amount]
ONE: Final = Amount(Fraction(1))
Read = Callable[[object], Amount]
"""How a quantity is read: as written (:meth:`Amount.of`) or as stored (:meth:`Amount.stored`)."""


def usage_list(value: object, read: Read = Amount.of) -> Usage:
    return {str(name): read(raw) for name, raw in mapping(value).items() if raw is not None}


def add_to(total: Usage, extra: Mapping[str, Amount]) -> None:
    """addResourceList: a first value is copied, later ones added to it."""
    for name, amount in extra.items():
        found = total.get(name)
        total[name] = amount if found is None else found.plus(amount)


def _max(total: Usage, other: Mapping[str, Amount]) -> None:
    """maxResourceList: the larger value, with its own format, replaces the smaller."""
    for name, amount in other.items():
        if name not in total or amount.value > total[name].value:
            total[name] = amount


def containers_of(spec: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [c for c in as_list(spec.get(key)) if isinstance(c, Mapping)]


def resources_of(container: Mapping[str, Any], side: str, read: Read = Amount.of) -> Usage:
    return usage_list(mapping(container.get("resources")).get(side), read)


def _aggregate(spec: Mapping[str, Any], side: str, read: Read = Amount.of) -> Usage:
    """AggregateContainerRequests / AggregateContainerLimits, in amounts that keep their
    format."""
    return aggregate_containers(spec, lambda c: resources_of(c, side, read), add_to, _max)


def aggregate_requests(spec: Mapping[str, Any]) -> Usage:
    """AggregateContainerRequests of the pod as written, in amounts that keep their format."""
    return _aggregate(spec, "requests")


def aggregate_limits(spec: Mapping[str, Any]) -> Usage:
    """AggregateContainerLimits of the pod as written, in amounts that keep their format."""
    return _aggregate(spec, "limits")


def pod_requests(spec: Mapping[str, Any], read: Read = Amount.of) -> Usage:
    """PodRequests: the containers' aggregate, pod-level requests in place of it where set
    (cpu, memory, hugepages), then the overhead added. ``read``: :meth:`Amount.stored` for
    a pod as a client of the API server reads it."""
    total = _aggregate(spec, "requests", read)
    for name, amount in resources_of(spec, "requests", read).items():
        if pod_level_resource(name):
            total[name] = amount
    add_to(total, usage_list(spec.get("overhead"), read))
    return total


def stored_requests(spec: Mapping[str, Any]) -> Usage:
    """PodRequests of the pod a client of the API server reads back (Karpenter:
    ``resources.Ceiling``): exact values, zeros kept, each in the format it prints in.
    Raises QuantityError."""
    return pod_requests(spec, Amount.stored)


def pod_limits(spec: Mapping[str, Any]) -> Usage:
    """PodLimits: as :func:`pod_requests`, but the overhead is added only to the non-zero
    limits the pod sets."""
    total = _aggregate(spec, "limits")
    for name, amount in resources_of(spec, "limits").items():
        if pod_level_resource(name):
            total[name] = amount
    for name, amount in usage_list(spec.get("overhead")).items():
        if name in total and total[name].value != 0:
            total[name] = total[name].plus(amount)
    return total


def compute_usage(requests: Mapping[str, Amount], limits: Mapping[str, Amount]) -> Usage:
    """podComputeUsageHelper: ``pods``, the bare and ``requests.`` names of cpu, memory,
    ephemeral-storage and hugepages, their ``limits.`` names, and ``requests.<name>`` of an
    extended resource (its only quota name: extended resources are not overcommitted)."""
    result: Usage = {PODS: ONE}
    for name in (CPU, MEMORY, EPHEMERAL):
        if name in requests:
            result[name] = result[REQUESTS + name] = requests[name]
        if name in limits:
            result[LIMITS + name] = limits[name]
    for name, amount in requests.items():
        if name.startswith(HUGEPAGES):
            result[name] = result[REQUESTS + name] = amount
        if is_extended(name):
            result[REQUESTS + name] = amount
    return result


def pod_usage(spec: Mapping[str, Any]) -> Usage:
    """PodUsageFunc for a pod being created (never terminal): its object count and its
    compute usage."""
    return {COUNT_PODS: ONE, **compute_usage(pod_requests(spec), pod_limits(spec))}


def pod_level_set(spec: Mapping[str, Any]) -> bool:
    """IsPodLevelResourcesSet: ``spec.resources`` requests or limits cpu, memory or
    hugepages."""
    resources = mapping(spec.get("resources"))
    sides = (mapping(resources.get("requests")), mapping(resources.get("limits")))
    return any(pod_level_resource(str(name)) for side in sides for name in side)
