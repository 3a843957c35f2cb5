"""Pod requests as the scheduler computes them.

Upstream: ``k8s.io/component-helpers/resource/helpers.go`` (PodRequests,
AggregateContainerRequests) and ``pkg/scheduler/framework/types.go`` (Resource.Add).
Quantities are summed exactly and converted to the scheduler's integers only at the end,
as upstream sums ``resource.Quantity`` values before calling ``MilliValue``/``Value``. The
values summed are the stored ones, which the API server has rounded up to thousandths
(:mod:`gate.k8s.completion` does the same for a template): two containers of ``0.5m`` cpu are
stored as ``1m`` each and request 2m.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any, TypeVar

from gate.k8s.names import label_key_ok
from gate.k8s.quantity import exact_text, parse_quantity, scheduler_amount
from gate.untyped import as_list, mapping

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
HUGEPAGES = "hugepages-"
NATIVE_CHECKED = (CPU, MEMORY, EPHEMERAL_STORAGE)

Exact = dict[str, Fraction]


def is_extended(name: str) -> bool:
    """IsExtendedResourceName: has a ``/``, outside ``kubernetes.io/``, a valid quota name
    (``requests.<name>`` a qualified name)."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return label_key_ok(f"requests.{name}")


def is_native(name: str) -> bool:
    """IsNativeResource: unqualified, or in ``kubernetes.io/``."""
    return "/" not in name or "kubernetes.io/" in name


def overcommit_allowed(name: str) -> bool:
    """IsOvercommitAllowed: a native resource other than hugepages; the others' requests
    must equal their limits."""
    return is_native(name) and not name.startswith(HUGEPAGES)


def is_scalar(name: str) -> bool:
    """IsScalarResourceName: extended, hugepages-*, *kubernetes.io/*, attachable-volumes-*."""
    return (
        is_extended(name)
        or name.startswith(HUGEPAGES)
        or "kubernetes.io/" in name
        or name.startswith("attachable-volumes-")
    )


def is_counted(name: str) -> bool:
    """Whether Resource.Add keeps this resource at all (``storage`` or ``foo`` it drops)."""
    return name in NATIVE_CHECKED or name == PODS or is_scalar(name)


def exact_list(resources: object) -> Exact:
    """A ResourceList as exact values. Raises QuantityError on a bad quantity."""
    if not isinstance(resources, Mapping):
        return {}
    return {str(k): parse_quantity(v) for k, v in resources.items() if v is not None}


def _add(total: Exact, extra: Mapping[str, Fraction]) -> None:
    for name, value in extra.items():
        found = total.get(name)
        # A first value is kept as it is: 0 + value is value, and a Fraction is immutable.
        total[name] = value if found is None else found + value


def _max(total: Exact, other: Mapping[str, Fraction]) -> None:
    for name, value in other.items():
        if name not in total or value > total[name]:
            total[name] = value


def _requests(container: object, non_missing: Mapping[str, Fraction] | None = None) -> Exact:
    """A container's requests; with ``non_missing`` (applyNonMissing), each of its
    resources the container does not name at all is added at that amount (a request
    written as ``0`` stays 0)."""
    found: Exact = {}
    if isinstance(container, Mapping):
        resources = container.get("resources")
        if isinstance(resources, Mapping):
            found = exact_list(resources.get("requests"))
    if non_missing:
        for name, amount in non_missing.items():
            if name not in found:
                found[name] = amount
    return found


def is_sidecar(container: Mapping[str, Any]) -> bool:
    """A restartable init container (``restartPolicy: Always``)."""
    return container.get("restartPolicy") == "Always"


def _containers(spec: Mapping[str, Any], key: str) -> Iterable[Mapping[str, Any]]:
    items = spec.get(key)
    return [c for c in items if isinstance(c, Mapping)] if isinstance(items, list) else []


def aggregate_container_requests(
    spec: Mapping[str, Any], non_missing: Mapping[str, Fraction] | None = None
) -> Exact:
    """Containers summed; init containers as the peak of what runs at once.

    Worked example (upstream test): init 5, sidecars 1 and 2, init 5, sidecar 3,
    container 1 -> containers+sidecars = 7, peak init = 5+1+2 = 8, request = 8.
    """
    return aggregate_containers(spec, lambda c: _requests(c, non_missing), _add, _max)


Amount = TypeVar("Amount")


def aggregate_containers(
    spec: Mapping[str, Any],
    read: Callable[[Mapping[str, Any]], dict[str, Amount]],
    add: Callable[[dict[str, Amount], Mapping[str, Amount]], None],
    peak: Callable[[dict[str, Amount], Mapping[str, Amount]], None],
) -> dict[str, Amount]:
    """AggregateContainerRequests / AggregateContainerLimits over any kind of amount (a
    container's ``read``, summed by ``add``, the larger kept by ``peak``): containers and
    restartable init containers (sidecars) summed; a regular init container runs beside the
    sidecars started before it, and the peak of those is the floor."""
    total: dict[str, Amount] = {}
    for container in _containers(spec, "containers"):
        add(total, read(container))
    sidecars: dict[str, Amount] = {}
    init_peak: dict[str, Amount] = {}
    for container in _containers(spec, "initContainers"):
        amounts = read(container)
        if is_sidecar(container):
            add(total, amounts)
            add(sidecars, amounts)
            in_flight = dict(sidecars)
        else:
            in_flight = dict(amounts)
            add(in_flight, sidecars)
        peak(init_peak, in_flight)
    peak(total, init_peak)
    return total


def with_status_resources(spec: Mapping[str, Any], status: object) -> Mapping[str, Any]:
    """PodRequests with UseStatusResources (in-place resize; InPlacePodVerticalScaling is
    on by default from v1.33): a container whose status reports ``resources`` requests,
    per resource, the largest of its spec's, its actual (``resources.requests``) and its
    allocated (``allocatedResources``) requests; while the resize is Infeasible the spec's
    are left out. Regular init containers are not resized. A pod that is not resizing
    reports its spec's values, so nothing changes for it."""
    if not isinstance(status, Mapping):
        return spec
    reported: dict[str, Mapping[str, Any]] = {}
    for key in ("containerStatuses", "initContainerStatuses"):
        entries = status.get(key)
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, Mapping) and isinstance(entry.get("resources"), Mapping):
                reported[str(entry.get("name"))] = entry
    if not reported:
        return spec
    infeasible = _resize_infeasible(status.get("conditions"))

    def adjusted(container: object, resizable: bool) -> object:
        entry = reported.get(str(container.get("name"))) if isinstance(container, Mapping) else None
        if entry is None or not resizable or not isinstance(container, Mapping):
            return container
        largest: Exact = {}
        _max(largest, exact_list(mapping(entry.get("resources")).get("requests")))
        _max(largest, exact_list(entry.get("allocatedResources")))
        if not infeasible:
            _max(largest, _requests(container))
        resources = mapping(container.get("resources"))
        requests = {name: exact_text(value) for name, value in largest.items()}
        return {**container, "resources": {**resources, "requests": requests}}

    containers, inits = spec.get("containers"), spec.get("initContainers")
    return {
        **spec,
        "containers": [adjusted(c, True) for c in as_list(containers)],
        "initContainers": [adjusted(c, _is_sidecar(c)) for c in as_list(inits)],
    }


def _resize_infeasible(conditions: object) -> bool:
    items = conditions if isinstance(conditions, list) else []
    return resize_infeasible(
        (c.get("type"), c.get("reason")) for c in items if isinstance(c, Mapping)
    )


def resize_infeasible(conditions: Iterable[tuple[object, object]]) -> bool:
    """IsPodResizeInfeasible over a pod's conditions as (type, reason): the first
    PodResizePending condition decides, a later one is not read."""
    for kind, reason in conditions:
        if kind == "PodResizePending":
            return reason == "Infeasible"
    return False


def _is_sidecar(container: object) -> bool:
    return isinstance(container, Mapping) and is_sidecar(container)


def pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource: cpu, memory and hugepages-*."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES)


def pod_requests(
    spec: Mapping[str, Any], non_missing: Mapping[str, Fraction] | None = None
) -> Exact:
    """PodRequests: containers aggregated, pod-level requests replacing cpu/memory/hugepages
    where set (PodLevelResources, on by default since v1.34), then ``spec.overhead`` added.
    ``non_missing``: PodResourcesOptions.NonMissingContainerRequests (``_requests``)."""
    total = aggregate_container_requests(spec, non_missing)
    pod_resources = spec.get("resources")
    if isinstance(pod_resources, Mapping):
        for name, value in exact_list(pod_resources.get("requests")).items():
            if pod_level_resource(name):
                total[name] = value
    _add(total, exact_list(spec.get("overhead")))
    return total


def to_scheduler_units(exact: Mapping[str, Fraction]) -> dict[str, int]:
    """Resource.Add: cpu to millicores, everything else to whole units, both rounded up
    (``scheduler_amount``); resources the scheduler does not track are dropped. Raises
    QuantityError past the scheduler's int64 (``cpu: "1e30"``)."""
    return {
        name: scheduler_amount(name, value) for name, value in exact.items() if is_counted(name)
    }


def pod_request_amounts(spec: Mapping[str, Any]) -> dict[str, int]:
    return to_scheduler_units(pod_requests(spec))


DEFAULT_MILLI_CPU_REQUEST = 100  # scheduler/util/pod_resources.go DefaultMilliCPURequest
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # DefaultMemoryRequest
NON_ZERO_DEFAULTS: Mapping[str, Fraction] = {
    CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
    MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
}
"""What a container that names no cpu or memory request is counted at by the scores."""


_ZERO = Fraction(0)


def _non_zero(total: Mapping[str, Fraction]) -> tuple[int, int]:
    return (
        scheduler_amount(CPU, total.get(CPU, _ZERO)),
        scheduler_amount(MEMORY, total.get(MEMORY, _ZERO)),
    )


def pod_nonzero_amounts(
    spec: Mapping[str, Any], incoming: tuple[int, int] | None = None
) -> tuple[int, int]:
    """A bound pod's cpu (millicores) and memory (bytes) as its node's ``NonZeroRequested``
    counts them (framework/types.go PodInfo.CalculateResource): PodRequests again with
    NonMissingContainerRequests of 100m cpu and 200Mi memory (getNonMissingContainerRequests);
    when the pod sets pod-level requests, only for a resource its requests lack altogether.
    Without pod-level requests that is the incoming pod's count
    (:func:`incoming_nonzero_amounts`), which ``incoming`` gives when already worked out.
    Pass the spec ``with_status_resources`` already applied. Raises QuantityError."""
    pod_resources = spec.get("resources")
    pod_level = isinstance(pod_resources, Mapping) and any(
        pod_level_resource(name) for name in exact_list(pod_resources.get("requests"))
    )
    if not pod_level:
        return (
            incoming if incoming is not None else _non_zero(pod_requests(spec, NON_ZERO_DEFAULTS))
        )
    requests = pod_requests(spec)
    non_missing = {n: a for n, a in NON_ZERO_DEFAULTS.items() if n not in requests}
    return _non_zero(pod_requests(spec, non_missing) if non_missing else requests)


def incoming_nonzero_amounts(spec: Mapping[str, Any]) -> tuple[int, int]:
    """The pod being scheduled's cpu and memory as NodeResourcesFit's score adds them
    (resource_allocation.go calculatePodResourceRequest, ``useRequested`` false): PodRequests
    with NonMissingContainerRequests of 100m cpu and 200Mi memory for every container,
    pod-level requests and overhead included. Raises QuantityError."""
    return _non_zero(pod_requests(spec, NON_ZERO_DEFAULTS))
