"""A snapshot file's bytes -> :class:`~gate.clusterstate.Snapshot`, typed and streamed.

msgspec decodes each batch of objects (see :mod:`gate.jsonstream`) straight into structs
holding only the fields the checks read, skipping everything else without building it, and
checks the type of every field it keeps against the same rules as the snapshot schema. Pods
are reduced to per-node totals batch by batch, so memory holds the nodes, one batch and the
totals, never the pods. msgspec (C, maintained, typed decoding from bytes, faster than any
other Python JSON reader and without orjson's 2 GiB limit) is the only decoder that does
all of that in one pass.

Anything this reader does not accept raises :class:`NotAccepted`, and the caller reads the
file again with the reference reader (:func:`gate.snapshot.build_snapshot`), which decides
and words every error. So this reader only has to be exact about valid snapshots; for
anything unusual (a number where the schema also allows it but a struct field does not,
say) it may refuse and let the reference reader answer.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import msgspec
from msgspec import UNSET, Struct, UnsetType

from gate.clusterstate import (
    TERMINAL_PHASES,
    NodeTotals,
    Snapshot,
    admission,
    node_view,
    snapshot_info,
)
from gate.errors import QuantityError
from gate.jsonstream import WINDOW, Batch, StreamError, Value, members
from gate.model import HostPort, NodeView
from gate.resources import exact_list, pod_request_amounts, to_scheduler_units

Quantity = str | int | float
Resources = dict[str, Quantity] | None | UnsetType
_LIST_KIND = re.compile("List$")
_ADMISSION_KINDS = ("LimitRange", "RuntimeClass")


class NotAccepted(Exception):
    """The typed reader declines: the reference reader must read this file."""


class _Meta(Struct, gc=False):
    name: str | UnsetType = UNSET
    namespace: str | UnsetType = UNSET
    labels: dict[str, str] | UnsetType | None = UNSET


class _Taint(Struct, gc=False):
    key: str
    effect: str
    value: str | UnsetType = UNSET


class _Port(Struct, gc=False):
    containerPort: int | UnsetType = UNSET
    hostPort: int | UnsetType = UNSET
    hostIP: str | UnsetType = UNSET
    protocol: str | UnsetType = UNSET


class _Requirements(Struct, gc=False):
    requests: Resources = UNSET
    limits: Resources = UNSET


class _Container(Struct, gc=False):
    """What PodRequests and the used host ports read of a container. ``resources`` and
    ``ports`` are kept as JSON text: pods of one template repeat them, so each text is
    decoded (and its types checked) once, and the texts key the pod's cached totals."""

    resources: msgspec.Raw | UnsetType = UNSET
    ports: msgspec.Raw | UnsetType = UNSET
    restartPolicy: str | UnsetType = UNSET


class _Spec(Struct, gc=False):
    """A Node's and a Pod's spec in one: their field names do not overlap."""

    unschedulable: bool | UnsetType = UNSET
    taints: list[_Taint] | UnsetType | None = UNSET
    nodeName: str | UnsetType = UNSET
    containers: list[_Container] | UnsetType | None = UNSET
    initContainers: list[_Container] | UnsetType | None = UNSET
    overhead: msgspec.Raw | UnsetType = UNSET
    resources: msgspec.Raw | UnsetType = UNSET


class _Status(Struct, gc=False):
    phase: str | UnsetType = UNSET
    allocatable: Resources = UNSET
    capacity: Resources = UNSET


class _Object(Struct, gc=False):
    kind: str | UnsetType = UNSET
    metadata: _Meta | UnsetType = UNSET
    spec: _Spec | UnsetType = UNSET
    status: _Status | UnsetType = UNSET


_OBJECTS = msgspec.json.Decoder(list[_Object])
_SKIPPED = msgspec.json.Decoder(list[msgspec.Raw])
_EMPTY_SPEC = _Spec()
_EMPTY_STATUS = _Status()


def _decoder(key: str) -> msgspec.json.Decoder[list[Any]]:
    return _OBJECTS if key in ("items", "nodes", "pods") else _SKIPPED


def _set(value: Any) -> Any:
    """The value, or None for a field that is absent."""
    return None if value is UNSET else value


_RESOURCES = msgspec.json.Decoder(_Requirements | None)
_PORTS = msgspec.json.Decoder(list[_Port] | None)
_AMOUNTS = msgspec.json.Decoder(dict[str, Quantity] | None)
PodKey = tuple[object, ...]


@dataclass(slots=True)
class _Texts:
    """Decoded JSON texts by text, one table per field type: each is checked once."""

    resources: dict[bytes, _Requirements | None] = field(default_factory=dict)
    ports: dict[bytes, list[_Port] | None] = field(default_factory=dict)
    amounts: dict[bytes, dict[str, Quantity] | None] = field(default_factory=dict)

    def _text(self, raw: Any, table: dict[bytes, Any], decoder: Any) -> bytes | None:
        if raw is UNSET:
            return None
        text = bytes(raw)
        if text not in table:
            table[text] = decoder.decode(text)  # a ValidationError: the reference decides
        return text

    def container(self, container: _Container) -> tuple[object, ...]:
        return (
            self._text(container.resources, self.resources, _RESOURCES),
            self._text(container.ports, self.ports, _PORTS),
            _set(container.restartPolicy),
        )

    def pod_key(self, spec: _Spec) -> PodKey:
        """Everything PodRequests and the used ports read, as texts: pods of one template
        share it."""
        return (
            tuple(map(self.container, spec.containers or ())),
            tuple(map(self.container, spec.initContainers or ())),
            self._text(spec.resources, self.resources, _RESOURCES),
            self._text(spec.overhead, self.amounts, _AMOUNTS),
        )

    def _requirements(self, text: bytes | None) -> dict[str, Any] | None:
        decoded = self.resources.get(text) if text is not None else None
        return None if decoded is None else {"requests": _set(decoded.requests)}

    def spec(self, key: PodKey) -> dict[str, Any]:
        """The plain spec a key stands for, as :func:`pod_request_amounts` reads it."""
        containers, inits, resources, overhead = key

        def container(entry: Any) -> dict[str, Any]:
            built: dict[str, Any] = {"restartPolicy": entry[2]}
            requirements = self._requirements(entry[0])
            if requirements is not None:
                built["resources"] = requirements
            return built

        return {
            "containers": [container(c) for c in containers],  # type: ignore[attr-defined]
            "initContainers": [container(c) for c in inits],  # type: ignore[attr-defined]
            "resources": self._requirements(resources),  # type: ignore[arg-type]
            "overhead": None if overhead is None else self.amounts[overhead],  # type: ignore[index]
        }

    def used_ports(self, key: PodKey) -> list[HostPort]:
        containers, inits = key[0], key[1]
        found = []
        sidecars = [c for c in inits if c[2] == "Always"]  # type: ignore[attr-defined]
        for entry in [*containers, *sidecars]:  # type: ignore[misc]
            ports = self.ports[entry[1]] if entry[1] is not None else None
            for port in ports or ():
                if port.hostPort is not UNSET and port.hostPort > 0:
                    ip = port.hostIP if port.hostIP is not UNSET else ""
                    protocol = port.protocol if port.protocol is not UNSET else ""
                    found.append(HostPort(ip or "0.0.0.0", protocol or "TCP", port.hostPort))
        return found


@dataclass(slots=True)
class _PodTotals:
    """Counted pods by the node they name; which names are nodes is known only at the end."""

    by_node: dict[str, NodeTotals] = field(default_factory=dict)
    unreadable: set[str] = field(default_factory=set)
    texts: _Texts = field(default_factory=_Texts)
    totals: dict[PodKey, tuple[dict[str, int], list[HostPort]] | None] = field(default_factory=dict)

    def add(self, pod: _Object) -> None:
        _require_name(pod)
        spec = pod.spec if pod.spec is not UNSET else _EMPTY_SPEC
        status = pod.status if pod.status is not UNSET else _EMPTY_STATUS
        key = self.texts.pod_key(spec)  # checks every pod's fields, counted or not
        node = spec.nodeName
        if node is UNSET or not node or status.phase in TERMINAL_PHASES:
            return
        if key not in self.totals:
            try:
                requests = pod_request_amounts(self.texts.spec(key))
                self.totals[key] = (requests, self.texts.used_ports(key))
            except QuantityError:
                self.totals[key] = None
        totals = self.totals[key]
        if totals is None:  # an error only if the pod turns out to count
            self.unreadable.add(node)
            return
        self.by_node.setdefault(node, NodeTotals()).add(*totals)


def _require_name(obj: _Object) -> None:
    if obj.metadata is UNSET or not obj.metadata.name:
        raise NotAccepted


@dataclass(slots=True)
class _Node:
    metadata: dict[str, Any]
    spec: dict[str, Any]
    allocatable: dict[str, int]


def _node(obj: _Object) -> _Node:
    _require_name(obj)
    assert obj.metadata is not UNSET
    spec = obj.spec if obj.spec is not UNSET else _EMPTY_SPEC
    status = obj.status if obj.status is not UNSET else _EMPTY_STATUS
    allocatable = status.allocatable
    if allocatable is None or allocatable is UNSET:
        allocatable = status.capacity
    try:
        amounts = to_scheduler_units(exact_list(allocatable))
    except QuantityError:
        raise NotAccepted from None
    taints = [{"key": t.key, "effect": t.effect, "value": _set(t.value)} for t in spec.taints or ()]
    return _Node(
        metadata={"name": obj.metadata.name, "labels": _set(obj.metadata.labels)},
        spec={"taints": taints, "unschedulable": _set(spec.unschedulable)},
        allocatable=amounts,
    )


@dataclass(slots=True)
class _Objects:
    """What one array member held: nodes, pod totals and admission objects."""

    nodes: list[_Node] = field(default_factory=list)
    pods: _PodTotals = field(default_factory=_PodTotals)
    admission: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, obj: _Object, kind: str) -> None:
        if kind == "Node":
            self.nodes.append(_node(obj))
        elif kind == "Pod":
            self.pods.add(obj)


@dataclass(slots=True)
class _Reading:
    envelope: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, _Objects] = field(default_factory=dict)

    def batch(self, batch: Batch) -> None:
        objects = self.arrays.setdefault(batch.key, _Objects())
        if batch.key in ("limitRanges", "runtimeClasses"):
            objects.admission.setdefault(batch.key, []).extend(json.loads(batch.text))
        elif batch.key in ("nodes", "pods"):
            kind = "Node" if batch.key == "nodes" else "Pod"
            for obj in batch.items:
                if obj.kind is not UNSET and obj.kind != kind:
                    raise NotAccepted
                objects.add(obj, kind)
        elif batch.key == "items":
            self._items(objects, batch)

    def _items(self, objects: _Objects, batch: Batch) -> None:
        wanted = []
        for index, obj in enumerate(batch.items):
            if not obj.kind:  # absent (invalid) or empty (its List's kind applies)
                raise NotAccepted
            objects.add(obj, obj.kind)
            if obj.kind in _ADMISSION_KINDS:
                wanted.append(index)
        if wanted:  # rare, and read whole: the admission code reads plain objects
            plain = json.loads(batch.text)
            for index in wanted:
                objects.admission.setdefault(plain[index]["kind"], []).append(plain[index])


def _envelope_ok(envelope: Mapping[str, Any], arrays: Mapping[str, _Objects]) -> bool:
    """The schema's envelope rules, for the members this reader saw."""
    kind = envelope.get("kind")
    if kind == "ClusterSnapshot":
        source = envelope.get("source", {})
        return (
            envelope.get("apiVersion") == "fitgate/v1"
            and "nodes" in arrays
            and "pods" in arrays
            and not {"nodes", "pods", "limitRanges", "runtimeClasses"} & envelope.keys()
            and isinstance(envelope.get("capturedAt"), (str, type(None)))
            and isinstance(source, dict)
            and all(isinstance(source.get(k), (str, type(None))) for k in _SOURCE_KEYS)
        )
    return (
        isinstance(kind, str)
        and _LIST_KIND.search(kind) is not None
        and "items" in arrays
        and "items" not in envelope
    )


_SOURCE_KEYS = ("context", "server", "serverVersion")


def _snapshot(reading: _Reading, source: str) -> Snapshot:
    own = reading.envelope.get("kind") == "ClusterSnapshot"
    if own:
        nodes = reading.arrays["nodes"].nodes
        pods = reading.arrays["pods"].pods
        limit_ranges = reading.arrays.get("limitRanges", _Objects()).admission
        runtime_classes = reading.arrays.get("runtimeClasses", _Objects()).admission
        lr = limit_ranges.get("limitRanges", [])
        rc = runtime_classes.get("runtimeClasses", [])
    else:
        items = reading.arrays["items"]
        nodes, pods = items.nodes, items.pods
        lr, rc = items.admission.get("LimitRange", []), items.admission.get("RuntimeClass", [])
    names = [n.metadata["name"] for n in nodes]
    if len(set(names)) != len(names) or pods.unreadable & set(names):
        raise NotAccepted
    views: list[NodeView] = [
        node_view(n.metadata, n.spec, n.allocatable, pods.by_node.get(n.metadata["name"]))
        for n in nodes
    ]
    counted = sum(v.pod_count for v in views)
    return Snapshot(
        info=snapshot_info(reading.envelope, source, nodes=len(views), pods=counted),
        nodes=tuple(views),
        admission=admission(lr, rc),
    )


def read_snapshot(
    stream: BinaryIO, source: str, on_read: Callable[[int], None], window: int = WINDOW
) -> Snapshot:
    """The snapshot in ``stream``; :class:`NotAccepted` when the reference reader must say.
    ``window`` is how many bytes of the file are decoded at a time."""
    # Millions of short-lived containers and no reference cycles: the collector's passes
    # would find nothing and cost a fifth of the time. Switched back on however this ends.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _read(stream, source, on_read, window)
    finally:
        if collecting:
            gc.enable()


def _read(stream: BinaryIO, source: str, on_read: Callable[[int], None], window: int) -> Snapshot:
    reading = _Reading()
    seen: set[str] = set()
    try:
        for member in members(stream, _decoder, window, on_read):
            if isinstance(member, Value) or member.first:
                if member.key in seen:  # a repeated name: the reference keeps the last
                    raise NotAccepted
                seen.add(member.key)
            if isinstance(member, Value):
                reading.envelope[member.key] = json.loads(member.text)
            else:
                reading.batch(member)
    except (StreamError, msgspec.ValidationError, ValueError, RecursionError):
        raise NotAccepted from None
    if not _envelope_ok(reading.envelope, reading.arrays):
        raise NotAccepted
    return _snapshot(reading, source)
