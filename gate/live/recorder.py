"""API objects -> the fields the checks read, and the ClusterSnapshot file (SPEC section 3).

Every object is rebuilt from an allow-list of fields, never copied and pruned: whatever the
API server adds (env values, annotations, images, managedFields, volumes) cannot reach the
file, so a recording can be committed as a fixture or handed between CI jobs. The fields of
taints, tolerations, limits, affinity terms, selectors, owners, ports and conditions are the
typed reader's structs' (:mod:`gate.snapshot.stream`), in their order. The live
reader evaluates the very same minimised objects, so a replay gives the live run's verdicts.
"""

from __future__ import annotations

import json
import os
import tempfile
import typing
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime, timezone
from typing import IO, Any

import msgspec

from gate.errors import UsageError
from gate.snapshot.state import SECTIONS as snapshot_sections
from gate.snapshot.stream import (
    Condition,
    LimitItem,
    Owner,
    Port,
    Requirement,
    Selector,
    Taint,
    Term,
    Toleration,
    fields_of,
)

Obj = dict[str, Any]
SECTIONS = tuple(snapshot_sections)  # the file's arrays of objects, in the readers' order
_TAINT_FIELDS = fields_of(Taint)
_TOLERATION_FIELDS = fields_of(Toleration)
_LIMIT_FIELDS = fields_of(LimitItem)
_TERM_SELECTORS = tuple(
    f.encode_name for f in msgspec.structs.fields(Term) if Selector in typing.get_args(f.type)
)
_TERM_FIELDS = tuple(name for name in fields_of(Term) if name not in _TERM_SELECTORS)
_SELECTOR_LABELS, _SELECTOR_EXPRESSIONS = fields_of(Selector)
_REQUIREMENT_FIELDS = fields_of(Requirement)
_OWNER_FIELDS = fields_of(Owner)
_CONDITION_FIELDS = fields_of(Condition)
_PORT_CLAIM = ("containerPort", "hostPort")  # always written: what a port in use is
_PORT_OPTIONAL = tuple(name for name in fields_of(Port) if name not in _PORT_CLAIM)
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _items(value: object) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _pick(source: Mapping[str, Any], names: Iterable[str]) -> Obj:
    return {name: source[name] for name in names if source.get(name) is not None}


def _resource_list(value: object) -> Obj | None:
    """A ResourceList copied key by key (names and quantities, nothing else can hide there)."""
    return dict(value) if isinstance(value, Mapping) else None


# Pods are the hot path (150k in a large cluster): plain lookups, no generic helpers. Items
# are decoded API JSON; a value of the wrong type raises, and the reader reports the item.


def _requests(resources: Mapping[str, Any]) -> Obj:
    """Requests only: the API server has already defaulted every missing request from its
    limit, and the scheduler counts nothing else of a pod already on a node."""
    requests = resources.get("requests")
    return {"requests": requests} if requests is not None else {}


def _host_ports(ports: list[Mapping[str, Any]]) -> list[Obj]:
    """Ports that claim a host port: the only ones NodePorts reads (the API server has
    already defaulted hostPort to containerPort for hostNetwork pods)."""
    return [_port(p) for p in ports if p.get("hostPort")]


def _port(port: Mapping[str, Any]) -> Obj:
    out: Obj = {"containerPort": port.get("containerPort"), "hostPort": port["hostPort"]}
    for name in _PORT_OPTIONAL:
        value = port.get(name)
        if value is not None:
            out[name] = value
    return out


def _container(container: Mapping[str, Any]) -> Obj:
    """Name, restartPolicy (sidecars), requests and host ports: what the checks count."""
    out: Obj = {"name": container.get("name")}
    policy = container.get("restartPolicy")
    if policy is not None:
        out["restartPolicy"] = policy
    resources = container.get("resources")
    if resources and "requests" in resources:
        out["resources"] = _requests(resources)
    ports = container.get("ports")
    if ports:
        host_ports = _host_ports(ports)
        if host_ports:
            out["ports"] = host_ports
    return out


def _metadata(metadata: Mapping[str, Any], namespaced: bool) -> Obj:
    return _pick(metadata, ("name", "namespace") if namespaced else ("name",))


def minimal_node(node: Mapping[str, Any]) -> Obj:
    """Name, labels, taints, unschedulable, allocatable and capacity."""
    metadata, spec, status = (_mapping(node.get(k)) for k in ("metadata", "spec", "status"))
    out_metadata = _metadata(metadata, namespaced=False)
    if isinstance(metadata.get("labels"), Mapping):
        out_metadata["labels"] = dict(metadata["labels"])
    out_spec = _pick(spec, ("unschedulable",))
    if "taints" in spec:
        out_spec["taints"] = [_pick(t, _TAINT_FIELDS) for t in _items(spec["taints"])]
    out_status = {}
    for name in ("allocatable", "capacity"):
        amounts = _resource_list(status.get(name))
        if amounts is not None:
            out_status[name] = amounts
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": out_metadata,
        "spec": out_spec,
        "status": out_status,
    }


def _selector(selector: Mapping[str, Any]) -> Obj:
    out: Obj = {}
    if isinstance(selector.get(_SELECTOR_LABELS), Mapping):
        out[_SELECTOR_LABELS] = dict(selector[_SELECTOR_LABELS])
    if _SELECTOR_EXPRESSIONS in selector:
        expressions = _items(selector[_SELECTOR_EXPRESSIONS])
        out[_SELECTOR_EXPRESSIONS] = [_pick(e, _REQUIREMENT_FIELDS) for e in expressions]
    return out


def _term(term: Mapping[str, Any]) -> Obj:
    """A required pod (anti-)affinity term, field by field."""
    out = _pick(term, _TERM_FIELDS)
    for name in _TERM_SELECTORS:
        if isinstance(term.get(name), Mapping):
            out[name] = _selector(term[name])
    return out


def _pod_affinity(affinity: Mapping[str, Any]) -> Obj:
    """The required pod affinity and anti-affinity terms: what InterPodAffinity reads of a
    pod already on a node. Node affinity and preferred terms are never read of such a pod."""
    out: Obj = {}
    for name in ("podAffinity", "podAntiAffinity"):
        required = _mapping(affinity.get(name)).get(_REQUIRED)
        if required:
            out[name] = {_REQUIRED: [_term(t) for t in _items(required)]}
    return out


def _pod_spec(spec: Mapping[str, Any]) -> Obj:
    out: Obj = {}
    node_name = spec.get("nodeName")
    if node_name is not None:
        out["nodeName"] = node_name
    affinity = _pod_affinity(_mapping(spec.get("affinity")))
    if affinity:
        out["affinity"] = affinity
    if spec.get("hostNetwork"):
        out["hostNetwork"] = True
    containers = spec.get("containers")
    if containers is not None:
        out["containers"] = [_container(c) for c in containers]
    init_containers = spec.get("initContainers")
    if init_containers is not None:
        out["initContainers"] = [_container(c) for c in init_containers]
    overhead = spec.get("overhead")
    if overhead is not None:
        out["overhead"] = overhead
    resources = spec.get("resources")
    if resources and "requests" in resources:
        out["resources"] = _requests(resources)
    return out


def minimal_pod(pod: Mapping[str, Any]) -> Obj:
    """Namespace, name, labels, owners (kind and name), whether it is being deleted, the
    requests-relevant spec, its required pod (anti-)affinity, and the phase."""
    metadata = pod.get("metadata") or {}
    out_metadata: Obj = {"name": metadata.get("name"), "namespace": metadata.get("namespace")}
    labels = metadata.get("labels")
    if labels:
        out_metadata["labels"] = dict(labels)
    owners = metadata.get("ownerReferences")
    if owners:
        out_metadata["ownerReferences"] = [
            {name: o.get(name) for name in _OWNER_FIELDS} for o in owners
        ]
    deleted = metadata.get("deletionTimestamp")
    if deleted is not None:
        out_metadata["deletionTimestamp"] = deleted
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": out_metadata,
        "spec": _pod_spec(pod.get("spec") or {}),
        "status": _pod_status(_mapping(pod.get("status"))),
    }


def _pod_status(status: Mapping[str, Any]) -> Obj:
    """The phase, and what an in-place resize reports (containers' actual and allocated
    resources, an Infeasible resize), which the scheduler counts while a pod resizes."""
    out: Obj = {}
    if status.get("phase") is not None:
        out["phase"] = status["phase"]
    for key in ("containerStatuses", "initContainerStatuses"):
        reported = [
            {
                "name": entry.get("name"),
                "resources": _pick(entry["resources"], ("requests",)),
                **({"allocatedResources": entry["allocatedResources"]}
                   if entry.get("allocatedResources") is not None else {}),
            }
            for entry in _items(status.get(key))
            if isinstance(entry.get("resources"), Mapping)
        ]  # fmt: skip
        if reported:
            out[key] = reported
    resize = [
        {name: c.get(name) for name in _CONDITION_FIELDS}
        for c in _items(status.get("conditions"))
        if c.get("type") == "PodResizePending"
    ]
    if resize:
        out["conditions"] = resize
    return out


def minimal_namespace(namespace: Mapping[str, Any]) -> Obj:
    """Name and labels: what a namespaceSelector matches."""
    metadata = _mapping(namespace.get("metadata"))
    out_metadata = _metadata(metadata, namespaced=False)
    if isinstance(metadata.get("labels"), Mapping):
        out_metadata["labels"] = dict(metadata["labels"])
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": out_metadata}


def minimal_limit_range(limit_range: Mapping[str, Any]) -> Obj:
    """The limits the LimitRanger admission plugin defaults requests from."""
    limits = _items(_mapping(limit_range.get("spec")).get("limits"))
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": _metadata(_mapping(limit_range.get("metadata")), namespaced=True),
        "spec": {"limits": [_pick(item, _LIMIT_FIELDS) for item in limits]},
    }


def minimal_runtime_class(runtime_class: Mapping[str, Any]) -> Obj:
    """Handler, pod overhead, and the scheduling constraints the RuntimeClass plugin merges."""
    out: Obj = {
        "apiVersion": "node.k8s.io/v1",
        "kind": "RuntimeClass",
        "metadata": _metadata(_mapping(runtime_class.get("metadata")), namespaced=False),
    }
    out.update(_pick(runtime_class, ("handler",)))
    pod_fixed = _resource_list(_mapping(runtime_class.get("overhead")).get("podFixed"))
    if pod_fixed is not None:
        out["overhead"] = {"podFixed": pod_fixed}
    scheduling = _mapping(runtime_class.get("scheduling"))
    if scheduling:
        out_scheduling: Obj = {}
        if isinstance(scheduling.get("nodeSelector"), Mapping):
            out_scheduling["nodeSelector"] = dict(scheduling["nodeSelector"])
        if "tolerations" in scheduling:
            tolerations = _items(scheduling["tolerations"])
            out_scheduling["tolerations"] = [_pick(t, _TOLERATION_FIELDS) for t in tolerations]
        out["scheduling"] = out_scheduling
    return out


def timestamp(moment: datetime) -> str:
    """``2026-08-16T10:00:00Z``: UTC, whole seconds."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def cluster_snapshot(
    *,
    captured_at: datetime,
    context: str,
    server: str,
    server_version: str | None,
    nodes: Sequence[Obj],
    pods: Sequence[Obj],
    namespaces: Sequence[Obj],
    limit_ranges: Sequence[Obj],
    runtime_classes: Sequence[Obj],
) -> Obj:
    """The ClusterSnapshot document of already minimised objects."""
    return {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "capturedAt": timestamp(captured_at),
        "source": {"context": context, "server": server, "serverVersion": server_version},
        "nodes": list(nodes),
        "pods": list(pods),
        "namespaces": list(namespaces),
        "limitRanges": list(limit_ranges),
        "runtimeClasses": list(runtime_classes),
    }


def render_snapshot(document: Mapping[str, Any]) -> Iterator[str]:
    """JSON with one object per line: reviewable diffs for a committed fixture, and the C
    encoder per object (``json.dump`` with an indent falls back to pure Python)."""
    head = [(k, v) for k, v in document.items() if k not in SECTIONS]
    yield "{\n"
    for key, value in head:
        yield f"  {json.dumps(key)}: {json.dumps(value)},\n"
    sections = [k for k in SECTIONS if k in document]
    for number, key in enumerate(sections, start=1):
        items = document[key]
        yield f"  {json.dumps(key)}: [" + ("\n" if items else "")
        for index, item in enumerate(items, start=1):
            yield "    " + json.dumps(item) + (",\n" if index < len(items) else "\n")
        yield ("  ]" if items else "]") + (",\n" if number < len(sections) else "\n")
    yield "}\n"


@contextmanager
def atomic_output(path: str) -> Iterator[IO[str]]:
    """A temporary file beside ``path``, moved over it only when the block succeeds: a reader
    never sees half a snapshot. Opened first, so an unwritable place fails before any read."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory
        )
    except OSError as exc:
        raise UsageError(f"{path}: cannot write the snapshot: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as output:
            yield output
            output.flush()
            os.fsync(output.fileno())
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide a file meant to be shared
        os.replace(temporary, path)
    except OSError as exc:
        with suppress(OSError):
            os.unlink(temporary)
        raise UsageError(f"{path}: cannot write the snapshot: {exc.strerror}") from None
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def write_snapshot(document: Mapping[str, Any], output: IO[str]) -> None:
    for chunk in render_snapshot(document):
        output.write(chunk)
