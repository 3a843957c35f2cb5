"""A snapshot file's bytes -> :class:`~gate.model.Snapshot`, typed and streamed.

msgspec decodes each batch of objects (see :mod:`gate.snapshot.jsonstream`) straight into structs
holding only the fields the checks read, skipping everything else without building it, and
checks the type of every field it keeps against the same rules as the snapshot schema. Pods
are reduced to per-node totals batch by batch, so memory holds the nodes, one batch and the
totals, never the pods' objects: of each counted pod only a small
:class:`~gate.model.ExistingPod` is kept, whose labels, owners and affinity terms are shared
with the other pods of its workload. msgspec (C, maintained, typed decoding from bytes,
faster than any other Python JSON reader and without orjson's 2 GiB limit) is the only
decoder that does all of that in one pass.

Anything this reader does not accept raises :class:`NotAccepted`, and the caller reads the
file again with the reference reader (:func:`gate.snapshot.load.build_snapshot`), which decides
and words every error. So this reader only has to be exact about valid snapshots; for
anything unusual (a number where the schema also allows it but a struct field does not,
say) it may refuse and let the reference reader answer. What the reference reader accepts
it hands back here, put plainly: this module builds every snapshot.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from itertools import islice
from typing import Any, BinaryIO

import msgspec
from msgspec import UNSET, Struct, UnsetType

from gate.errors import QuantityError
from gate.inputs.surrogates import may_hold_surrogates, replace_lone_surrogates
from gate.k8s.ports import pod_host_ports
from gate.k8s.quantity import NEGATIVE
from gate.k8s.resources import (
    exact_list,
    pod_nonzero_amounts,
    pod_request_amounts,
    resize_infeasible,
    to_scheduler_units,
    with_status_resources,
)
from gate.k8s.volumes import MOUNTED_SOURCES, mounts_of
from gate.model import (
    ExistingPod,
    HostPort,
    NodeView,
    PreferringPod,
    Snapshot,
    UnfrozenPod,
    WeightedTerms,
)
from gate.model.encoded import compact, decoded, deferred
from gate.model.storage import STORAGE_KINDS, Mount
from gate.snapshot.autoscaling import AUTOSCALING_KINDS, autoscaling_state
from gate.snapshot.disruption import DISRUPTION_KIND, DISRUPTION_SECTIONS, disruption_budgets
from gate.snapshot.jsonstream import WINDOW, Batch, FileRegion, StreamError, Value, members
from gate.snapshot.schema import envelope_ok
from gate.snapshot.state import (
    READ_SECTIONS,
    TERMINAL_PHASES,
    Interned,
    NodeTotals,
    admission,
    node_view,
    snapshot_info,
)
from gate.snapshot.storage import KEPT_AS_TEXT, STORAGE_SECTIONS, KeyedText, storage_objects

Quantity = str | int | float
Resources = dict[str, Quantity] | None | UnsetType
_ADMISSION_KINDS = ("LimitRange", "RuntimeClass", "PriorityClass", "ResourceQuota")
_WHOLE_KINDS = (*_ADMISSION_KINDS, *AUTOSCALING_KINDS, *STORAGE_KINDS, DISRUPTION_KIND)
"""Kinds read as plain objects: the admission, autoscaler, volume and preemption code read
them so."""


_MOUNTING_TEXTS = tuple(b'"' + source.encode() + b'"' for source in MOUNTED_SOURCES)
"""What a ``volumes`` text that may name a claim or an in-tree disk holds, one of them (see
:data:`MOUNTED_SOURCES`)."""
_MOUNTING = re.compile(b"|".join(map(re.escape, _MOUNTING_TEXTS)))
_ARRAY_OR_NULL = frozenset(b"[n")
"""The first byte of a JSON array or null: all the schema asks of a pod's ``volumes``."""


class NotAccepted(Exception):
    """The typed reader declines: the reference reader must read this file."""


class _Meta(Struct, gc=False):
    """Any object's metadata. Labels and owners are kept as JSON text: the pods of one
    workload repeat them, so each text is decoded (and its types checked) once."""

    name: str | UnsetType = UNSET
    namespace: str | UnsetType = UNSET
    labels: msgspec.Raw | UnsetType = UNSET
    ownerReferences: msgspec.Raw | UnsetType = UNSET
    deletionTimestamp: str | UnsetType | None = UNSET


class Owner(Struct, gc=False):
    kind: str | UnsetType = UNSET
    name: str | UnsetType = UNSET


class Requirement(Struct, gc=False):
    key: str | UnsetType = UNSET
    operator: str | UnsetType = UNSET
    values: list[str] | UnsetType | None = UNSET


class Selector(Struct, gc=False):
    matchLabels: dict[str, str] | UnsetType | None = UNSET
    matchExpressions: list[Requirement] | UnsetType | None = UNSET


class Term(Struct, gc=False):
    """A required pod (anti-)affinity term: decoded only to check its types; the term
    itself is kept as the API server stored it."""

    namespaces: list[str] | UnsetType | None = UNSET
    topologyKey: str | UnsetType = UNSET
    matchLabelKeys: list[str] | UnsetType | None = UNSET
    mismatchLabelKeys: list[str] | UnsetType | None = UNSET
    labelSelector: Selector | UnsetType | None = UNSET
    namespaceSelector: Selector | UnsetType | None = UNSET


class WeightedTerm(Struct, gc=False):
    """A preferred pod (anti-)affinity term: decoded only to check its types, as a
    :class:`Term` is."""

    weight: int | UnsetType = UNSET
    podAffinityTerm: Term | UnsetType = UNSET


class _PodAffinity(Struct, gc=False):
    requiredDuringSchedulingIgnoredDuringExecution: msgspec.Raw | UnsetType = UNSET
    preferredDuringSchedulingIgnoredDuringExecution: msgspec.Raw | UnsetType = UNSET


class _Affinity(Struct, gc=False):
    """Only the pod (anti-)affinity: a DaemonSet pod's node affinity names its own node,
    and is skipped unread."""

    podAffinity: _PodAffinity | UnsetType | None = UNSET
    podAntiAffinity: _PodAffinity | UnsetType | None = UNSET


class Taint(Struct, gc=False, kw_only=True):
    key: str
    value: str | UnsetType = UNSET
    effect: str


class Port(Struct, gc=False):
    containerPort: int | UnsetType = UNSET
    hostPort: int | UnsetType = UNSET
    hostIP: str | UnsetType = UNSET
    protocol: str | UnsetType = UNSET


class _Requirements(Struct, gc=False):
    requests: Resources = UNSET
    limits: Resources = UNSET


class _Container(Struct, gc=False):
    """What PodRequests and the used host ports read of a container."""

    name: str | UnsetType = UNSET
    resources: _Requirements | UnsetType | None = UNSET
    ports: list[Port] | UnsetType | None = UNSET
    restartPolicy: str | UnsetType = UNSET


class _ContainerTexts(Struct, gc=False):
    """A container of a full API object, as kubectl lists it: its image, env and probes are
    skipped unread, and what the checks read is kept as text (see :class:`_Spec`)."""

    name: str | UnsetType = UNSET
    resources: msgspec.Raw | UnsetType = UNSET
    ports: msgspec.Raw | UnsetType = UNSET
    restartPolicy: str | UnsetType = UNSET


class _Spec(Struct, gc=False):
    """A Node's and a Pod's spec in one (a List mixes them; their field names do not
    overlap). What a pod's requests and ports depend on is kept as JSON text: pods of one
    template repeat it, so each text is decoded (and its types checked) once, and the texts
    key the pod's totals. A container's text, not the list's: kubectl's containers also
    hold env and image, which differ from pod to pod."""

    unschedulable: bool | UnsetType = UNSET
    taints: list[Taint] | UnsetType | None = UNSET
    providerID: str | UnsetType = UNSET
    nodeName: str | UnsetType = UNSET
    affinity: _Affinity | UnsetType | None = UNSET
    containers: list[_ContainerTexts] | UnsetType | None = UNSET
    initContainers: list[_ContainerTexts] | UnsetType | None = UNSET
    overhead: msgspec.Raw | UnsetType = UNSET
    resources: msgspec.Raw | UnsetType = UNSET
    volumes: msgspec.Raw | UnsetType = UNSET
    priority: int | UnsetType | None = UNSET


class _PodSpec(Struct, gc=False):
    """A pod of fitgate's own recording: its containers hold only what the checks read, so
    the whole list's text keys the pod's totals (as :class:`_Spec`'s texts do)."""

    nodeName: str | UnsetType = UNSET
    affinity: _Affinity | UnsetType | None = UNSET
    containers: msgspec.Raw | UnsetType = UNSET
    initContainers: msgspec.Raw | UnsetType = UNSET
    overhead: msgspec.Raw | UnsetType = UNSET
    resources: msgspec.Raw | UnsetType = UNSET
    volumes: msgspec.Raw | UnsetType = UNSET
    priority: int | UnsetType | None = UNSET


class ContainerStatus(Struct, gc=False):
    """What an in-place resize reports of a container (see ``with_status_resources``)."""

    name: str | UnsetType = UNSET
    resources: msgspec.Raw | UnsetType = UNSET
    allocatedResources: msgspec.Raw | UnsetType = UNSET


class Condition(Struct, gc=False):
    type: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET


class _Status(Struct, gc=False):
    """A Node's and a Pod's status in one, as :class:`_Spec`."""

    phase: str | UnsetType = UNSET
    allocatable: Resources = UNSET
    capacity: Resources = UNSET
    containerStatuses: list[ContainerStatus] | UnsetType | None = UNSET
    initContainerStatuses: list[ContainerStatus] | UnsetType | None = UNSET
    conditions: list[Condition] | UnsetType | None = UNSET
    startTime: str | UnsetType | None = UNSET


class Toleration(Struct, gc=False):
    """A toleration a RuntimeClass adds to its pods. The typed reader reads admission
    objects whole (the admission code reads plain objects); the recorder keeps these."""

    key: str | UnsetType = UNSET
    operator: str | UnsetType = UNSET
    value: str | UnsetType = UNSET
    effect: str | UnsetType = UNSET
    tolerationSeconds: int | UnsetType | None = UNSET


class LimitItem(Struct, gc=False):
    """A LimitRange's limit, what the LimitRanger admission plugin defaults requests from
    and holds a pod's to; read whole, as :class:`Toleration`."""

    type: str | UnsetType = UNSET
    default: Resources = UNSET
    defaultRequest: Resources = UNSET
    max: Resources = UNSET
    min: Resources = UNSET
    maxLimitRequestRatio: Resources = UNSET


def fields_of(struct: type[Struct]) -> tuple[str, ...]:
    """A struct's fields as JSON names them, in its order: the order the recorder writes.

    >>> fields_of(Taint)
    ('key', 'value', 'effect')
    """
    return tuple(f.encode_name for f in msgspec.structs.fields(struct))


class _Object(Struct, gc=False):
    kind: str | UnsetType = UNSET
    metadata: _Meta | UnsetType = UNSET
    spec: _Spec | UnsetType = UNSET
    status: _Status | UnsetType = UNSET
    scaleSet: str | UnsetType = UNSET
    """A recorded node's Azure scale set (:func:`scale_set_of`): fitgate's own field."""


class _Pod(Struct, gc=False):
    kind: str | UnsetType = UNSET
    metadata: _Meta | UnsetType = UNSET
    spec: _PodSpec | UnsetType = UNSET
    status: _Status | UnsetType = UNSET


_OBJECTS = msgspec.json.Decoder(list[_Object])
_PODS = msgspec.json.Decoder(list[_Pod])
_SKIPPED = msgspec.json.Decoder(list[msgspec.Raw])
_EMPTY_SPEC = _Spec()
_EMPTY_STATUS = _Status()


def _decoder(key: str) -> msgspec.json.Decoder[list[Any]]:
    if key == "pods":
        return _PODS
    read = key == "items" or READ_SECTIONS.get(key, _WHOLE_KINDS[0]) not in _WHOLE_KINDS
    return _OBJECTS if read else _SKIPPED


def _set(value: Any) -> Any:
    """The value, or None for a field that is absent."""
    return None if value is UNSET else value


# A Raw's text is taken as ``b"" + raw`` here and below: concatenation reads the buffer
# directly, where ``bytes(raw)`` first tries the other ways it can build bytes (2.3 times as
# long, and each of a List's pods has five texts or more).
def _text(raw: msgspec.Raw | UnsetType) -> bytes | None:
    return None if raw is UNSET else b"" + raw


Resized = tuple[tuple[tuple[str | None, bytes, bytes | None], ...], bool]
PodKey = tuple[
    bytes | None,
    bytes | None,
    bytes | None,
    bytes | None,
    Resized | None,
]


def _resized(status: _Status | UnsetType) -> Resized | None:
    """The containers whose status reports resources, and whether the resize is
    Infeasible; None for the pods that are not resizing (nearly all)."""
    if status is UNSET:
        return None
    entries = status.containerStatuses or []
    if status.initContainerStatuses:
        entries = [*entries, *status.initContainerStatuses]
    for entry in entries:  # a plain loop: every running pod has statuses, few resize
        if entry.resources is not UNSET:
            break
    else:
        return None
    reported = tuple(
        (_set(entry.name), bytes(entry.resources), _text(entry.allocatedResources))
        for entry in entries
        if entry.resources is not UNSET
    )
    infeasible = resize_infeasible((c.type, c.reason) for c in status.conditions or ())
    return reported, infeasible


def _pod_key(spec: _Spec | _PodSpec, status: _Status | UnsetType) -> PodKey:
    """Everything PodRequests and the used ports read, as texts: pods of one template
    share it."""
    if isinstance(spec, _PodSpec):  # once per pod: written out rather than four calls
        containers, inits = spec.containers, spec.initContainers
        resources, overhead = spec.resources, spec.overhead
        return (
            None if containers is UNSET else b"" + containers,
            None if inits is UNSET else b"" + inits,
            None if resources is UNSET else b"" + resources,
            None if overhead is UNSET else b"" + overhead,
            _resized(status),
        )
    listed, listed_inits = spec.containers, spec.initContainers
    return (
        _ENCODE(listed) if listed else None,
        _ENCODE(listed_inits) if listed_inits else None,
        _text(spec.resources),
        _text(spec.overhead),
        _resized(status),
    )


_ENCODE = msgspec.json.Encoder().encode
"""A List pod's containers as the text of what the checks read of each (see :class:`_Spec`):
the names and policies encoded, the kept texts as written. One text, read back as a
recorded pod's containers are (``_CONTAINERS``): a tuple of texts a container took a fifth
longer to build and hash, and its look-up compared them one by one."""


_CONTAINERS = msgspec.json.Decoder(list[_Container] | None)
_RESOURCES = msgspec.json.Decoder(_Requirements | None)
_AMOUNTS = msgspec.json.Decoder(dict[str, Quantity] | None)
_PORTS = msgspec.json.Decoder(list[Port] | None)
PodTotals = tuple[dict[str, int], tuple[HostPort, ...], tuple[int, int] | None]


def _plain_container(container: _Container) -> dict[str, Any]:
    """A container as :func:`pod_request_amounts` and :func:`pod_host_ports` read it."""
    built: dict[str, Any] = {
        "name": _set(container.name),
        "restartPolicy": _set(container.restartPolicy),
        "ports": [
            {"hostPort": _set(p.hostPort), "hostIP": _set(p.hostIP), "protocol": _set(p.protocol)}
            for p in container.ports or ()
        ],
    }
    if container.resources is not None and container.resources is not UNSET:
        built["resources"] = {"requests": _set(container.resources.requests)}
    return built


def _containers(text: bytes | None) -> list[_Container]:
    """A key's containers, decoded and type-checked (a ValidationError otherwise)."""
    return [] if text is None else _CONTAINERS.decode(text) or []


def _plain_status(resized: Resized | None) -> dict[str, Any] | None:
    """The status a key stands for, as :func:`with_status_resources` reads it."""
    if resized is None:
        return None
    reported, infeasible = resized
    statuses = [
        {
            "name": name,
            "resources": json.loads(resources),
            "allocatedResources": None if allocated is None else json.loads(allocated),
        }
        for name, resources, allocated in reported
    ]
    conditions = [{"type": "PodResizePending", "reason": "Infeasible"}] if infeasible else []
    return {"containerStatuses": statuses, "conditions": conditions}


def _pod_totals(key: PodKey) -> PodTotals | None:
    """What pods with these texts request, which host ports they use and their cpu and
    memory as the resource scores count them (``pod_nonzero_amounts``; None when the same as
    its requests', as ``ExistingPod.nonzero``); None when a quantity does not parse. A text
    of the wrong types raises ValidationError."""
    containers, inits = _containers(key[0]), _containers(key[1])
    resources = _RESOURCES.decode(key[2]) if key[2] is not None else None
    overhead = _AMOUNTS.decode(key[3]) if key[3] is not None else None
    spec = {
        "containers": [_plain_container(c) for c in containers],
        "initContainers": [_plain_container(c) for c in inits],
        "resources": None if resources is None else {"requests": _set(resources.requests)},
        "overhead": overhead,
    }
    try:
        resized = with_status_resources(spec, _plain_status(key[4]))
        requests = pod_request_amounts(resized)
        nonzero: tuple[int, int] | None = pod_nonzero_amounts(resized)
    except QuantityError:
        return None
    if nonzero == (requests.get("cpu", 0), requests.get("memory", 0)):
        nonzero = None
    return requests, pod_host_ports(spec), nonzero


_LABELS = msgspec.json.Decoder(dict[str, str] | None)
_OWNERS = msgspec.json.Decoder(list[Owner] | None)
_TERMS = msgspec.json.Decoder(list[Term] | None)
_WEIGHTED = msgspec.json.Decoder(list[WeightedTerm] | None)
_VOLUMES = msgspec.json.Decoder(list[msgspec.Raw] | None)
"""What a pod's ``volumes`` is checked as: a valid JSON text is one when its first byte
is (``_ARRAY_OR_NULL``), so that byte is what every pod's is checked by."""

CHECKED_AS: dict[tuple[type[Struct], str], msgspec.json.Decoder[Any]] = {
    (_Spec, "volumes"): _VOLUMES,
    (_PodSpec, "volumes"): _VOLUMES,
    (_Meta, "labels"): _LABELS,
    (_Meta, "ownerReferences"): _OWNERS,
    (_PodAffinity, "requiredDuringSchedulingIgnoredDuringExecution"): _TERMS,
    (_PodAffinity, "preferredDuringSchedulingIgnoredDuringExecution"): _WEIGHTED,
    (_ContainerTexts, "resources"): _RESOURCES,
    (_ContainerTexts, "ports"): _PORTS,
    (_Spec, "overhead"): _AMOUNTS,
    (_Spec, "resources"): _RESOURCES,
    (_PodSpec, "containers"): _CONTAINERS,
    (_PodSpec, "initContainers"): _CONTAINERS,
    (_PodSpec, "overhead"): _AMOUNTS,
    (_PodSpec, "resources"): _RESOURCES,
}
"""The decoder that checks each field kept as JSON text. With the structs, the typed
reader's description of a snapshot; tests/test_snapshot_description.py holds it to the
schema's."""


def _labels(meta: _Meta) -> dict[str, str]:
    """The labels of a node or a namespace, its owners checked as the schema checks any
    object's (a pod's are read by :class:`_Shared`)."""
    if meta.ownerReferences is not UNSET:
        _OWNERS.decode(meta.ownerReferences)
    return {} if meta.labels is UNSET else _LABELS.decode(meta.labels) or {}


def _owners(raw: bytes) -> tuple[tuple[str, str], ...]:
    return tuple((_set(o.kind) or "", _set(o.name) or "") for o in _OWNERS.decode(raw) or ())


def whole_numbers(value: Any) -> Any:
    """``value`` with every float that is a whole number as an int: JSON has one kind of
    number, and the schema's ``integer`` takes ``80.0``, where a typed field takes 80 (one
    that fits in 64 bits, as msgspec's integers do). The int is that of the float's shortest
    text, as a quantity reads a number (``3.393005574133505e+16`` is 33930055741335050,
    not the binary float's 33930055741335048). The typed reader keeps some parts of a pod as
    the plain values the API server stored (its affinity terms): read so too, they are the
    same whichever reader reads the file."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(Decimal(float.__repr__(value)))
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


def _terms(raw: bytes) -> tuple[Mapping[str, Any], ...]:
    """The terms as stored (after checking their types, which the plain decode does not)."""
    _TERMS.decode(raw)
    terms: list[Mapping[str, Any]] | None = whole_numbers(msgspec.json.decode(raw))
    return tuple(terms or ())


def _weighted(raw: bytes) -> WeightedTerms:
    """The preferred terms as ``(weight, podAffinityTerm)``, the term as stored (after
    checking their types). A missing weight or term is kept as the API's zero value."""
    _WEIGHTED.decode(raw)
    items: list[dict[str, Any]] | None = whole_numbers(msgspec.json.decode(raw))
    return tuple((i.get("weight") or 0, i.get("podAffinityTerm") or _NOTHING) for i in items or ())


_NOTHING: dict[str, Any] = {}
_Parts = tuple[
    str,
    Mapping[str, str],
    tuple[tuple[str, str], ...],
    tuple[Mapping[str, Any], ...],
    tuple[Mapping[str, Any], ...],
    Mapping[str, int],
    tuple[HostPort, ...],
    tuple[int, int] | None,
    tuple[WeightedTerms, WeightedTerms] | None,
    int,
]
_Texts = tuple[bytes | None, bytes | None, bytes | None, bytes | None]


def _affinity_texts(affinity: _Affinity) -> _Texts | None:
    """The required and preferred terms' texts of the pod (anti-)affinity; None when it
    has none, so a pod without them keys its parts as one without an affinity."""
    pod, anti = affinity.podAffinity, affinity.podAntiAffinity
    texts = (
        _text(pod.requiredDuringSchedulingIgnoredDuringExecution) if pod else None,
        _text(anti.requiredDuringSchedulingIgnoredDuringExecution) if anti else None,
        _text(pod.preferredDuringSchedulingIgnoredDuringExecution) if pod else None,
        _text(anti.preferredDuringSchedulingIgnoredDuringExecution) if anti else None,
    )
    return None if texts == (None, None, None, None) else texts


def _compiled_loop() -> Callable[[tuple[Any, ...], _PodTotals, list[Any], int], int] | None:
    try:
        from gate.snapshot._pods import counted as found
    except ImportError:  # installed without a C compiler: the pods are added in Python
        return None
    return found


counted = _compiled_loop()
"""The compiled loop that adds a List's pods (``_pods.c``), if installed."""
_POD_RULES = (
    UNSET,
    NotAccepted,
    _ENCODE,
    _EMPTY_SPEC,
    _resized,
    _affinity_texts,
    TERMINAL_PHASES,
    _MOUNTING_TEXTS,
    _ARRAY_OR_NULL,
)
"""What the compiled loop reads, in its order (``_pods.c``): it calls these where
:meth:`_PodTotals.add` does, so each rule is written here only."""


@dataclass(slots=True)
class _Shared:
    """The parts the pods of one workload share, one object each, by their JSON texts:
    every distinct text is decoded and type-checked once, counted pod or not. A pod holds
    its parts' number: the pods are built at the end (:meth:`_PodTotals.existing`), and a
    part's key is all another reader of the same file needs to find it again."""

    numbers: dict[tuple[Any, ...], int] = field(default_factory=dict)
    keys: list[tuple[Any, ...]] = field(default_factory=list)
    parts: list[_Parts] = field(default_factory=list)
    labels: Interned = field(default_factory=Interned)
    owners: Interned = field(default_factory=Interned)
    terms: Interned = field(default_factory=Interned)
    weighted: Interned = field(default_factory=Interned)

    def sharing(self) -> _Shared:
        """Parts numbered apart from these, decoded from the same texts as these were."""
        return _Shared(
            labels=self.labels, owners=self.owners, terms=self.terms, weighted=self.weighted
        )

    def number(
        self, meta: _Meta, spec: _Spec | _PodSpec, template: int, totals: PodTotals | None
    ) -> int:
        """The number of the parts of a pod whose requests and host ports are ``template``'s
        (``totals``). Runs for each of a List's pods: the texts are taken inline."""
        affinity = spec.affinity
        labels, owners = meta.labels, meta.ownerReferences
        key = (
            meta.namespace,
            None if labels is UNSET else b"" + labels,
            None if owners is UNSET else b"" + owners,
            _affinity_texts(affinity) if affinity else None,
            spec.priority,
            template,
        )
        number = self.numbers.get(key)
        if number is None:
            number = self.add(key, totals)
        return number

    def add(self, key: tuple[Any, ...], totals: PodTotals | None) -> int:
        number = self.numbers[key] = len(self.parts)
        self.keys.append(key)
        self.parts.append(self._parts(key, totals))
        return number

    def _parts(self, key: tuple[Any, ...], totals: PodTotals | None) -> _Parts:
        namespace, labels, owners, texts, priority, _ = key
        affinity, anti_affinity, preferred, preferred_anti = texts or (None, None, None, None)
        return (
            sys.intern(_set(namespace) or "default"),
            _NOTHING if labels is None else self.labels.get(labels, lambda: _decoded(labels)),
            () if owners is None else self.owners.get(owners, lambda: _owners(owners)),
            self._terms(affinity),
            self._terms(anti_affinity),
            totals[0] if totals else _NOTHING,
            totals[1] if totals else (),
            totals[2] if totals else None,
            None
            if preferred is None and preferred_anti is None
            else self._preferred(preferred, preferred_anti),
            priority or 0,
        )

    def _terms(self, text: bytes | None) -> tuple[Mapping[str, Any], ...]:
        return () if text is None else self.terms.get(text, lambda: _terms(text))

    def _preferred(
        self, affinity: bytes | None, anti_affinity: bytes | None
    ) -> tuple[WeightedTerms, WeightedTerms] | None:
        """The preferred terms of both kinds; None when there are none (an empty or null
        list), so that the pod is built as one without them."""
        found = (self._weighted(affinity), self._weighted(anti_affinity))
        return found if found[0] or found[1] else None

    def _weighted(self, text: bytes | None) -> WeightedTerms:
        # Interned apart from the required terms: the same text decodes to another shape.
        return () if text is None else self.weighted.get(text, lambda: _weighted(text))


def _decoded(labels: bytes) -> dict[str, str]:
    return _LABELS.decode(labels) or _NOTHING


_COLUMNS = ("names", "nodes", "terminating", "started", "parts")
"""The counted pods' columns (:class:`_PodTotals`), in the order they are packed."""
_PACKED = frozenset({*_COLUMNS, "mounted"})
_PACK = msgspec.msgpack.Encoder().encode
_COLUMNS_PACKED = msgspec.msgpack.Decoder(
    tuple[list[str], list[str], list[bool], list[str | None], list[int]]
)
_MOUNTED_PACKED = msgspec.msgpack.Decoder(dict[int, tuple[Mount, ...]])


@dataclass(slots=True)
class _PodTotals:
    """Counted pods by the node they name; which names are nodes is known only at the end.
    A pod is kept as its template's number, and each node's pods are summed at the end,
    one resource at a time. The counted pods themselves are kept column by column (name,
    node, whether terminating, the number of their shared parts) and built at the end:
    columns are what a second reader of the file hands over (:meth:`joined`)."""

    templates: dict[PodKey, int] = field(default_factory=dict)
    totals: list[PodTotals | None] = field(default_factory=list)
    on_node: dict[str, list[int]] = field(default_factory=dict)
    unreadable: set[str] = field(default_factory=set)
    names: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    terminating: list[bool] = field(default_factory=list)
    started: list[str | None] = field(default_factory=list)
    parts: list[int] = field(default_factory=list)
    shared: _Shared = field(default_factory=_Shared)
    built: list[ExistingPod] = field(default_factory=list)
    mounting: dict[int, bytes] = field(default_factory=dict)
    """The ``volumes`` text of the counted pods (by their place in ``names``) whose volumes
    name a claim or an in-tree disk: few pods do, and only theirs is decoded."""
    mounted: dict[int, tuple[Mount, ...]] = field(default_factory=dict)
    """What those pods mount (:meth:`decode_mounts`), by the same places: each reader of a
    file cut in two decodes its own pods' before the parts are joined, and hands over the
    mounts instead of the texts."""
    known: dict[PodKey, PodTotals | None] = field(default_factory=dict)
    """The totals of every template's texts decoded so far, by them: shared by the readings
    of one process's pieces of a file (:meth:`sharing`), so that each decodes a text once."""

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (a second reader's hand-over) with its columns and mounts packed by
        msgpack: the large case's second part, 84,000 pods, took 0.14 s to pickle and
        0.10 s to unpickle, and with them packed 0.07 s and 0.07 s (each pickled object is
        also remembered by the pickle, and a packed column is one object)."""
        state = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _PACKED}
        state["packed"] = _PACK(tuple(getattr(self, name) for name in _COLUMNS))
        state["mounted"] = _PACK(self.mounted)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        columns = _COLUMNS_PACKED.decode(state.pop("packed"))
        state["mounted"] = _MOUNTED_PACKED.decode(state["mounted"])
        for name, value in (*state.items(), *zip(_COLUMNS, columns, strict=True)):
            setattr(self, name, value)

    def add(self, pod: _Object | _Pod) -> None:
        meta = pod.metadata
        if meta is UNSET or not meta.name:  # _require_name, written out: once per pod
            raise NotAccepted
        spec = pod.spec if pod.spec is not UNSET else _EMPTY_SPEC
        key = _pod_key(spec, pod.status)
        template = self.templates.get(key)
        if template is None:
            template = self._template(key)
        totals = self.totals[template]
        node = spec.nodeName if spec.nodeName is not UNSET else ""
        parts = self.shared.number(meta, spec, template, totals)  # checks every pod's fields
        volumes = spec.volumes
        if volumes is not UNSET and memoryview(volumes)[0] not in _ARRAY_OR_NULL:
            raise NotAccepted
        if not node:
            return
        if pod.status is not UNSET and pod.status.phase in TERMINAL_PHASES:
            return
        if totals is None:  # an error only if the pod turns out to count
            self.unreadable.add(node)
            return
        node = sys.intern(node)
        pods = self.on_node.get(node)
        if pods is None:
            pods = self.on_node[node] = []
        pods.append(template)
        if volumes is not UNSET and _MOUNTING.search(volumes) is not None:
            self.mounting[len(self.names)] = bytes(volumes)
        self.names.append(meta.name or "")
        self.nodes.append(node)
        deleted = meta.deletionTimestamp
        self.terminating.append(deleted is not UNSET and deleted is not None)
        started = None if pod.status is UNSET else pod.status.startTime
        self.started.append(None if started is UNSET else started)
        self.parts.append(parts)

    def add_all(self, items: list[Any], start: int) -> int:
        """Add the items from ``start`` up to the first that is not a Pod; its position
        (``len(items)`` when every one was). The compiled loop (``_pods.c``) adds them as
        :meth:`add` does, where it is installed."""
        if counted is not None:
            return counted(_POD_RULES, self, items, start)
        for position in range(start, len(items)):
            pod = items[position]
            if pod.kind != "Pod":
                return position
            self.add(pod)
        return len(items)

    def _template(self, key: PodKey, totals: PodTotals | UnsetType | None = UNSET) -> int:
        """The number of the pods with these texts; ``totals`` when already known."""
        template = self.templates.get(key)
        if template is None:  # checks every pod's fields, counted or not
            template = self.templates[key] = len(self.totals)
            if totals is UNSET:
                totals = self.known.get(key, UNSET)
                if totals is UNSET:
                    totals = self.known[key] = _pod_totals(key)
            self.totals.append(totals)
        return template

    def sharing(self) -> _PodTotals:
        """No pods, numbered apart from these, decoding no text these decoded."""
        return _PodTotals(known=self.known, shared=self.shared.sharing())

    def joined(self, later: _PodTotals) -> None:
        """Add the pods ``later`` read from the rest of the file, as if read here."""
        templates = [
            self._template(key, totals)
            for key, totals in zip(later.templates, later.totals, strict=True)
        ]
        parts = []
        for key in later.shared.keys:
            *texts, template = key
            renumbered = (*texts, templates[template])
            number = self.shared.numbers.get(renumbered)
            if number is None:
                number = self.shared.add(renumbered, self.totals[templates[template]])
            parts.append(number)
        self.unreadable |= later.unreadable
        for node, numbers in later.on_node.items():
            node = sys.intern(node)
            self.on_node.setdefault(node, []).extend(map(templates.__getitem__, numbers))
        self.decode_mounts()  # in file order: this part's pods before the later part's
        later.decode_mounts()
        self.mounted.update((len(self.names) + i, found) for i, found in later.mounted.items())
        self.names += later.names
        self.nodes += map(sys.intern, later.nodes)
        self.terminating += later.terminating
        self.started += later.started
        self.parts += map(parts.__getitem__, later.parts)

    def build(self) -> None:
        """Build the counted pods read since the last call: a process that waits for
        another's part builds its own meanwhile."""
        start, shared = len(self.built), self.shared.parts
        self.built += [
            UnfrozenPod(*fields).frozen()
            if preferred is None
            else PreferringPod(*fields, *preferred)
            for fields, preferred in (
                # positional: the dataclass's order, cheaper than keywords
                (
                    (
                        ns,
                        name,
                        node,
                        labels,
                        owners,
                        deleted,
                        terms,
                        anti,
                        requests,
                        ports,
                        non0,
                        priority,
                        started,
                    ),
                    preferred,
                )
                for name, node, deleted, started, (
                    ns,
                    labels,
                    owners,
                    terms,
                    anti,
                    requests,
                    ports,
                    non0,
                    preferred,
                    priority,
                ) in zip(
                    islice(self.names, start, None),
                    islice(self.nodes, start, None),
                    islice(self.terminating, start, None),
                    islice(self.started, start, None),
                    map(shared.__getitem__, islice(self.parts, start, None)),
                    strict=True,
                )
            )
        ]

    def existing(self, nodes: set[str]) -> tuple[ExistingPod, ...]:
        """The counted pods on ``nodes``, in file order."""
        self.build()
        return tuple([pod for pod in self.built if pod.node in nodes])

    def decode_mounts(self) -> None:
        """Decode what the pods read since the last call mount (:attr:`mounted`)."""
        for position, text in self.mounting.items():
            try:
                mounts = mounts_of(_plain_volumes(text))
            except ValueError:  # the reference reader says what is wrong with it
                raise NotAccepted from None
            if mounts:
                self.mounted[position] = mounts
        self.mounting.clear()

    def mounts(self, nodes: set[str]) -> dict[tuple[str, str], tuple[Mount, ...]]:
        """What the counted pods on ``nodes`` mount of claims and in-tree disks."""
        self.build()
        self.decode_mounts()
        built = self.built
        found = {}
        for position, mounts in self.mounted.items():
            pod = built[position]
            if pod.node in nodes:
                found[pod.namespace, pod.name] = mounts
        return found

    def by_node(self) -> dict[str, NodeTotals]:
        """Each node's totals: the one place the counted pods are summed, for every path
        (a file, a live read, a document the reference reader checked)."""
        readable = [t or ({}, (), None) for t in self.totals]
        names = [frozenset(requests) for requests, _, _ in readable]
        ports = [frozenset(used) for _, used, _ in readable]
        scored = [nonzero or (r.get("cpu", 0), r.get("memory", 0)) for r, _, nonzero in readable]
        non0_cpu = [cpu for cpu, _ in scored]
        non0_memory = [memory for _, memory in scored]
        amounts = {
            name: [requests.get(name, 0) for requests, _, _ in readable]
            for name in sorted(set().union(*names))
        }
        summed = {}
        for node, templates in self.on_node.items():
            requested = frozenset().union(*map(names.__getitem__, templates))
            summed[node] = NodeTotals(
                requested={
                    name: sum(map(amounts[name].__getitem__, templates))
                    for name in sorted(requested)
                },
                pods=len(templates),
                ports=set().union(*map(ports.__getitem__, templates)),
                nonzero=(
                    sum(map(non0_cpu.__getitem__, templates)),
                    sum(map(non0_memory.__getitem__, templates)),
                ),
            )
        return summed


def _plain_volumes(text: bytes) -> Any:
    """A ``volumes`` text as ``json.loads`` reads it (raising its ValueError), read by
    msgspec in a third of the time where the two agree (:mod:`gate.model.encoded`)."""
    kept: Any = deferred(text)
    return decoded(kept) if isinstance(kept, bytes) else kept


def _require_name(obj: _Object | _Pod) -> None:
    if obj.metadata is UNSET or not obj.metadata.name:
        raise NotAccepted


@dataclass(slots=True)
class _Node:
    metadata: dict[str, Any]
    spec: dict[str, Any]
    allocatable: dict[str, int]
    capacity: tuple[int, int] | None = None
    scale_set: str | None = None


_SCALE_SET = re.compile(
    r"azure://.*/providers/Microsoft\.Compute/virtualMachineScaleSets/(?P<name>[^/]+)/",
    re.IGNORECASE,
)


def scale_set_of(provider_id: str) -> str | None:
    """The Azure scale set of a node's ``spec.providerID``
    (``azure:///subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Compute/
    virtualMachineScaleSets/<name>/virtualMachines/<n>``), lowercased as cluster-autoscaler
    compares it (cloudprovider/azure/azure_util.go); None for any other providerID. Only
    the name is kept: never the subscription or the resource group."""
    found = _SCALE_SET.match(provider_id)
    return found["name"].lower() if found else None


def counted_capacity(capacity: object) -> tuple[int, int] | None:
    """A node's ``status.capacity`` as cluster-autoscaler counts it towards
    ``--cores-total`` and ``--memory-total`` (core/utils/utils.go ``GetNodeCoresAndMemory``,
    cluster-autoscaler-1.34.5): cpu in whole cores and memory in bytes, each rounded up as
    Quantity.Value rounds, 0 when absent. None: the node lists no capacity.
    Raises QuantityError for a cpu or memory that is no quantity, or a negative one (the
    API server never holds a Node with one)."""
    if not isinstance(capacity, dict):
        return None
    return _counted_pair(capacity.get("cpu"), capacity.get("memory"))


@lru_cache(maxsize=256)  # a pool's nodes list the same capacity: 5,000 nodes, a few pairs
def _counted_pair(cpu: object, memory: object) -> tuple[int, int]:
    listed = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    exact = exact_list(listed)
    for name, amount in exact.items():  # the API server's validation refuses it in a Node
        if amount < 0:
            raise QuantityError(f"{name}: quantity {str(listed[name])[:40]!r} {NEGATIVE}")
    cores, bytes_ = (-(-exact.get(k, Fraction(0)) // 1) for k in ("cpu", "memory"))
    return max(int(cores), 0), max(int(bytes_), 0)


def _node(obj: _Object, units: dict[tuple[Any, ...], dict[str, int]]) -> _Node:
    """``units``: allocatable lists already converted; the nodes of a pool repeat them."""
    _require_name(obj)
    assert obj.metadata is not UNSET
    spec = obj.spec if obj.spec is not UNSET else _EMPTY_SPEC
    status = obj.status if obj.status is not UNSET else _EMPTY_STATUS
    allocatable = status.allocatable
    if allocatable is None or allocatable is UNSET:
        allocatable = status.capacity
    listed = tuple(allocatable.items()) if isinstance(allocatable, dict) else ()
    amounts = units.get(listed)
    if amounts is None:
        try:
            amounts = units[listed] = to_scheduler_units(exact_list(allocatable))
        except QuantityError:
            raise NotAccepted from None
    try:
        capacity = counted_capacity(status.capacity)
    except QuantityError:
        raise NotAccepted from None
    taints = [{"key": t.key, "effect": t.effect, "value": _set(t.value)} for t in spec.taints or ()]
    scale_set = None if spec.providerID is UNSET else scale_set_of(spec.providerID)
    if scale_set is None and obj.scaleSet is not UNSET:
        scale_set = obj.scaleSet.lower()
    return _Node(
        metadata={"name": obj.metadata.name, "labels": _labels(obj.metadata)},
        spec={"taints": taints, "unschedulable": _set(spec.unschedulable)},
        allocatable=amounts,
        capacity=capacity,
        scale_set=scale_set,
    )


@dataclass(slots=True)
class _Objects:
    """What one array member held: nodes, pod totals and admission objects."""

    nodes: list[_Node] = field(default_factory=list)
    pods: _PodTotals = field(default_factory=_PodTotals)
    admission: dict[str, list[Any]] = field(default_factory=dict)
    units: dict[tuple[Any, ...], dict[str, int]] = field(default_factory=dict)
    namespaces: dict[str, Mapping[str, str]] | None = None

    def add(self, obj: _Object | _Pod, kind: str) -> None:
        if kind == "Node":
            assert isinstance(obj, _Object)  # the "pods" array is the only one read as _Pod
            self.nodes.append(_node(obj, self.units))
        elif kind == "Pod":
            self.pods.add(obj)
        elif kind == "Namespace":
            _require_name(obj)
            assert obj.metadata is not UNSET and obj.metadata.name
            if self.namespaces is None:
                self.namespaces = {}
            self.namespaces[obj.metadata.name] = _labels(obj.metadata)

    def joined(self, later: _Objects) -> _Objects:
        """These objects followed by ``later``'s (the rest of the same array)."""
        self.nodes += later.nodes
        self.pods.joined(later.pods)
        for kind, objects in later.admission.items():
            self.admission.setdefault(kind, []).extend(objects)
        if later.namespaces is not None:  # a name listed again keeps its last labels
            self.namespaces = {**(self.namespaces or {}), **later.namespaces}
        return self


@dataclass(slots=True)
class Reading:
    """What the typed reader kept of a file (or of a part of one): its members' names in
    file order, the values that are not arrays, and what each array held."""

    names: list[str] = field(default_factory=list)
    envelope: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, _Objects] = field(default_factory=dict)

    def joined(self, later: Reading, key: str) -> Reading:
        """This reading and ``later``'s, when this one read a file up to a cut between two
        elements of its array ``key`` and ``later`` read the rest of it as the same array:
        the whole file's reading, as one reader would have made it; :class:`NotAccepted`
        when the parts do not make up such a file (see :mod:`gate.snapshot.halves`)."""
        if self.names[-1:] != [key] or later.names[:1] != [key]:
            raise NotAccepted
        if set(self.names) & set(later.names) != {key}:
            raise NotAccepted
        arrays = dict(self.arrays)
        for name, objects in later.arrays.items():
            arrays[name] = arrays[name].joined(objects) if name in arrays else objects
        return Reading(
            names=[*self.names, *later.names[1:]],
            envelope={**self.envelope, **later.envelope},
            arrays=arrays,
        )

    def build_pods(self) -> None:
        """Build the counted pods read so far, and decode what they mount (see
        :meth:`_PodTotals.build`)."""
        for objects in self.arrays.values():
            objects.pods.build()
        self.decode_mounts()

    def decode_mounts(self) -> None:
        """Decode what the counted pods read so far mount (see :meth:`_PodTotals.decode_mounts`)."""
        for objects in self.arrays.values():
            objects.pods.decode_mounts()

    def handed_over(self) -> Reading:
        """This reading without what only its own reader needs (the decoded texts kept to
        share them), its pods' mounts decoded, to send to another process."""
        self.decode_mounts()
        for objects in self.arrays.values():
            objects.units = {}
            objects.pods.shared = _Shared(keys=objects.pods.shared.keys)
            objects.pods.known = {}
        return self

    def sharing(self, key: str) -> Reading:
        """An empty reading of the array ``key``, for another piece of the same file read
        by this process: it decodes none of the texts this one did."""
        other = Reading(names=[key])
        objects = self.arrays.get(key)
        if objects is not None:
            other.arrays[key] = _Objects(pods=objects.pods.sharing(), units=objects.units)
        return other

    def batch(self, batch: Batch) -> None:
        objects = self.arrays.setdefault(batch.key, _Objects())
        kind = READ_SECTIONS.get(batch.key)
        if kind in KEPT_AS_TEXT:  # by the thousand: kept as texts (gate.snapshot.storage)
            objects.admission.setdefault(kind, []).extend(map(_kept, batch.items))
        elif kind in _WHOLE_KINDS:  # read whole: the admission code reads plain objects
            objects.admission.setdefault(kind, []).extend(json.loads(batch.text))
        elif kind is not None:
            for obj in batch.items:
                if obj.kind is not UNSET and obj.kind != kind:
                    raise NotAccepted
                objects.add(obj, kind)
        elif batch.key == "items":
            self._items(objects, batch)

    def _items(self, objects: _Objects, batch: Batch) -> None:
        wanted = []
        items, add_pods = batch.items, objects.pods.add_all
        index = 0
        while (index := add_pods(items, index)) < len(items):  # nearly every item is a pod
            obj = items[index]
            kind = obj.kind
            # Absent or empty (its List's kind applies), or a List of its own: the reference
            # reader flattens those.
            if not kind or kind.endswith("List"):
                raise NotAccepted
            objects.add(obj, kind)
            if kind in _WHOLE_KINDS:
                wanted.append(index)
            index += 1
        if wanted:  # rare: only these items' texts are decoded again
            # compacted once for the batch: each item's text is then kept as it is
            texts = _SKIPPED.decode(compact(batch.text))
            for index in wanted:
                item = batch.items[index]
                kind = item.kind
                if kind in KEPT_AS_TEXT:
                    kept = _with_key(item.metadata, _kept(texts[index]))
                    objects.admission.setdefault(kind, []).append(kept)
                else:  # the admission code reads plain objects
                    plain = json.loads(b"" + texts[index])
                    objects.admission.setdefault(kind, []).append(plain)


def _with_key(
    meta: _Meta | UnsetType, kept: bytes | Mapping[str, Any]
) -> KeyedText | bytes | Mapping[str, Any]:
    """A List's storage object kept as text, with the name and namespace its item was
    decoded with (:data:`~gate.snapshot.storage.KeyedText`): they key it, and its text is
    not decoded again for them. One without a name, or decoded already, is kept as it is
    (and keyed as a recording's is)."""
    if not isinstance(kept, bytes) or meta is UNSET or not meta.name:
        return kept
    return meta.name, sys.intern(meta.namespace or "default"), kept


def _kept(raw: msgspec.Raw) -> bytes | Mapping[str, Any]:
    """A storage object's text as :func:`~gate.model.encoded.deferred` keeps it: copied
    out of the window it views, compacted when it spans lines (a kubectl List indents
    them)."""
    text = b"" + raw
    return deferred(compact(text) if b"\n" in text else text)


def _snapshot(reading: Reading, source: str) -> Snapshot:
    own = reading.envelope.get("kind") == "ClusterSnapshot"
    arrays = reading.arrays
    autoscaling = _autoscaling_objects(reading, own)
    if own:
        nodes, pods = arrays["nodes"].nodes, arrays["pods"].pods
        lr = arrays.get("limitRanges", _Objects()).admission.get("LimitRange", [])
        rc = arrays.get("runtimeClasses", _Objects()).admission.get("RuntimeClass", [])
        classes = arrays.get("priorityClasses")
        pc = None if classes is None else classes.admission.get("PriorityClass", [])
        quotas = arrays.get("resourceQuotas")
        rq = None if quotas is None else quotas.admission.get("ResourceQuota", [])
        listed = arrays.get("namespaces")
        namespaces = None if listed is None else listed.namespaces or {}
    else:
        items = arrays["items"]
        nodes, pods = items.nodes, items.pods
        lr, rc = items.admission.get("LimitRange", []), items.admission.get("RuntimeClass", [])
        pc = items.admission.get("PriorityClass") or None  # a List of them holds the system two
        rq = items.admission.get("ResourceQuota")
        namespaces = items.namespaces
    names = [n.metadata["name"] for n in nodes]
    if len(set(names)) != len(names) or pods.unreadable & set(names):
        raise NotAccepted
    # In name order, as the API server lists them, whatever order a file records: copies of
    # earlier workloads that tie are placed by node order, and no answer may depend on it.
    nodes = sorted(nodes, key=lambda n: n.metadata["name"])
    by_node = pods.by_node()
    views: list[NodeView] = [
        node_view(
            n.metadata,
            n.spec,
            n.allocatable,
            by_node.get(n.metadata["name"]),
            n.capacity,
            n.scale_set,
        )
        for n in nodes
    ]
    counted = sum(v.pod_count for v in views)
    node_names = set(names)
    return Snapshot(
        info=snapshot_info(reading.envelope, source, nodes=len(views), pods=counted),
        nodes=tuple(views),
        admission=admission(lr, rc, pc, rq),
        pods=pods.existing(node_names),
        mounts=pods.mounts(node_names),
        namespaces=namespaces,
        autoscaling=autoscaling_state(autoscaling),
        storage=storage_objects(_storage_objects(reading, own)),
        disruption_budgets=disruption_budgets(_disruption_items(reading, own)),
    )


def _disruption_items(reading: Reading, own: bool) -> list[Any]:
    """The PodDisruptionBudgets as plain objects, none when the snapshot lists none."""
    if own:
        key = next(iter(DISRUPTION_SECTIONS))
        return (
            reading.arrays[key].admission.get(DISRUPTION_KIND, []) if key in reading.arrays else []
        )
    return reading.arrays.get("items", _Objects()).admission.get(DISRUPTION_KIND, [])


def _autoscaling_objects(reading: Reading, own: bool) -> dict[str, list[Any]]:
    """The autoscaler's objects by kind: a ClusterSnapshot's arrays, a List's items."""
    if not own:
        whole = reading.arrays.get("items", _Objects()).admission
        return {kind: whole.get(kind, []) for kind in AUTOSCALING_KINDS}
    return {
        kind: reading.arrays.get(key, _Objects()).admission.get(kind, [])
        for key, kind in READ_SECTIONS.items()
        if kind in AUTOSCALING_KINDS
    }


# The kinds ``kubectl get nodes,pods,pv,pvc,storageclass,csinode,csidriver -A -o json``
# lists: a List holding any storage object is taken to have listed all of them (an empty
# kind writes no item).
_LISTED_TOGETHER = (
    "PersistentVolume",
    "PersistentVolumeClaim",
    "StorageClass",
    "CSINode",
    "CSIDriver",
)


def _storage_objects(reading: Reading, own: bool) -> dict[str, list[Any]]:
    """The storage objects by kind, a kind absent when the snapshot did not list it."""
    if own:
        return {
            kind: reading.arrays[key].admission.get(kind, [])
            for key, kind in STORAGE_SECTIONS.items()
            if key in reading.arrays
        }
    whole = reading.arrays.get("items", _Objects()).admission
    found = {kind: whole[kind] for kind in STORAGE_KINDS if kind in whole}
    if found:
        found = {kind: [] for kind in _LISTED_TOGETHER} | found
    return found


def _envelope_value(text: bytes) -> Any:
    """A member that is not an array, as the reference reader reads it: a lone surrogate
    (which JSON's escapes can spell, and msgspec refuses in the arrays) as U+FFFD."""
    value = json.loads(text)
    return replace_lone_surrogates(value) if may_hold_surrogates(text) else value


def read_snapshot(
    stream: BinaryIO, source: str, on_read: Callable[[int], None], window: int = WINDOW
) -> Snapshot:
    """The snapshot in ``stream``; :class:`NotAccepted` when the reference reader must say.
    ``window`` is how many bytes of the file are decoded at a time. Millions of
    short-lived containers and no reference cycles: the run reads it with the cycle
    collector off (:func:`gate.run.without_cycle_collection`)."""
    return snapshot_of(read_part(stream, on_read, window), source)


def read_part(
    stream: BinaryIO | FileRegion, on_read: Callable[[int], None], window: int = WINDOW
) -> Reading:
    """What ``stream``, a whole snapshot or a part made whole (see
    :mod:`gate.snapshot.halves`), holds; :class:`NotAccepted` as :func:`read_snapshot`."""
    reading = Reading()
    try:
        for member in members(stream, _decoder, window, on_read):
            if isinstance(member, Value) or member.first:
                if member.key in reading.names:  # a repeated name: the reference keeps the last
                    raise NotAccepted
                reading.names.append(member.key)
            if isinstance(member, Value):
                reading.envelope[member.key] = _envelope_value(member.text)
            else:
                reading.batch(member)
    except (StreamError, msgspec.ValidationError, ValueError, RecursionError):
        raise NotAccepted from None
    return reading


def read_more(
    reading: Reading,
    stream: BinaryIO | FileRegion,
    key: str,
    on_read: Callable[[int], None] = lambda n: None,
    window: int = WINDOW,
) -> Reading:
    """``reading``, whose last member is the array ``key``, continued by the elements
    ``stream`` holds: a snapshot whose only member is that array (a piece of a file cut
    many times, see :mod:`gate.snapshot.halves`); :class:`NotAccepted` when it holds
    anything else, or the elements are not what :func:`read_part` accepts."""
    if reading.names[-1:] != [key]:
        raise NotAccepted
    try:
        for member in members(stream, _decoder, window, on_read):
            if not isinstance(member, Batch) or member.key != key:
                raise NotAccepted
            reading.batch(member)
    except (StreamError, msgspec.ValidationError, ValueError, RecursionError):
        raise NotAccepted from None
    return reading


def snapshot_of(reading: Reading, source: str) -> Snapshot:
    """The snapshot a whole file's reading makes; :class:`NotAccepted` as
    :func:`read_snapshot`."""
    # The arrays were read as batches and their objects checked one by one: as members of
    # the envelope, any list stands for them.
    if not envelope_ok({**{key: [] for key in reading.arrays}, **reading.envelope}):
        raise NotAccepted
    return _snapshot(reading, source)
