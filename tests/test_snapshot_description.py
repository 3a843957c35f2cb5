"""One description of a snapshot: the schema (gate/schemas/snapshot.schema.json) states the
envelope and the type of every field the checks read; the typed reader's structs check each
of those fields with the same type, the recorder writes the same arrays in the same order,
and keeps every field the schema describes."""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest

from gate.live.objects import LimitRange, Namespace, Node, Pod, Recorded, RuntimeClass
from gate.live.recorder import OPTIONAL_SECTIONS, recorded
from gate.live.recorder import SECTIONS as RECORDED_SECTIONS
from gate.snapshot import stream
from gate.snapshot.schema import schema
from gate.snapshot.state import AUTOSCALING_SECTIONS, READ_SECTIONS
from gate.snapshot.storage import STORAGE_SECTIONS
from tests.cluster_objects import realistic_namespace, realistic_node, realistic_pod

Shape = dict[str, Any]
"""A type, normalised: ``types`` (JSON type names), and ``properties`` and ``required``
of an object with named fields, ``values`` of a map, ``items`` of an array."""


def _from_schema(rule: dict[str, Any]) -> Shape:
    while "$ref" in rule:
        rule = schema()["$defs"][rule["$ref"].rsplit("/", 1)[1]]
    types = rule.get("type", [])
    shape: Shape = {"types": {types} if isinstance(types, str) else set(types)}
    if "const" in rule:
        shape["types"] = {"string"}
    if "properties" in rule:
        shape["properties"] = {k: _from_schema(v) for k, v in rule["properties"].items()}
        shape["required"] = set(rule.get("required", ()))
    if "additionalProperties" in rule:
        shape["values"] = _from_schema(rule["additionalProperties"])
    if "items" in rule:
        shape["items"] = _from_schema(rule["items"])
    return shape


_SCALARS = {
    mi.StrType: "string",
    mi.IntType: "integer",
    mi.FloatType: "number",
    mi.BoolType: "boolean",
    mi.NoneType: "null",
}


def _from_struct(info: mi.Type, owner: type | None = None, field: str = "") -> Shape:
    if isinstance(info, mi.RawType):  # kept as text, checked by its decoder (if at all)
        decoder = stream.CHECKED_AS.get((owner, field))  # type: ignore[arg-type]
        return {"types": set()} if decoder is None else _from_struct(mi.type_info(decoder.type))
    members = info.types if isinstance(info, mi.UnionType) else (info,)
    shape: Shape = {"types": set()}
    for member in members:
        if type(member) in _SCALARS:
            shape["types"].add(_SCALARS[type(member)])
        elif isinstance(member, mi.StructType):
            shape["types"].add("object")
            shape["properties"] = {
                f.encode_name: _from_struct(f.type, member.cls, f.name) for f in member.fields
            }
            shape["required"] = {f.encode_name for f in member.fields if f.required}
        elif isinstance(member, mi.DictType):
            shape["types"].add("object")
            shape["values"] = _from_struct(member.value_type)
        elif isinstance(member, mi.ListType):
            shape["types"].add("array")
            shape["items"] = _from_struct(member.item_type)
        else:
            raise AssertionError(f"no JSON type for {member}")
    if {"integer", "number"} <= shape["types"]:  # JSON Schema's number includes integers
        shape["types"].discard("integer")
    return shape


def _differences(expected: Shape, got: Shape, where: str) -> list[str]:
    """Where ``got`` (a struct) does not check what ``expected`` (the schema) describes.
    The struct may check more fields: anything it refuses, the reference reader answers."""
    found = []
    if expected["types"] and expected["types"] != got["types"]:
        found.append(f"{where}: {sorted(expected['types'])} != {sorted(got['types'])}")
    if "required" in expected and not expected["required"] <= got.get("required", set()):
        found.append(f"{where}: required {sorted(expected['required'])}")
    for name, rule in expected.get("properties", {}).items():
        if name not in got.get("properties", {}):
            found.append(f"{where}.{name}: not read")
            continue
        found += _differences(rule, got["properties"][name], f"{where}.{name}")
    for part in ("values", "items"):
        if part in expected:
            found += _differences(expected[part], got.get(part, {"types": set()}), where + part)
    return found


# The schema's object definitions and the structs that read them; ``required`` names are
# checked in code for the structs (a name must be there: _require_name).
PAIRS = [
    ("node", stream._Object, "a node of a List or a recording"),
    ("pod", stream._Object, "a pod of a kubectl List"),
    ("pod", stream._Pod, "a recorded pod"),
    ("namespace", stream._Object, "a namespace"),
]


@pytest.mark.parametrize(
    ("definition", "struct"), [p[:2] for p in PAIRS], ids=[p[2] for p in PAIRS]
)
def test_the_typed_reader_checks_every_field_the_schema_describes(
    definition: str, struct: type[msgspec.Struct]
) -> None:
    expected = _from_schema({"$ref": f"#/$defs/{definition}"})
    expected["required"] = set()
    expected["properties"]["metadata"]["required"] = set()
    expected["properties"]["kind"]["types"] = set()  # a const: compared in code
    assert _differences(expected, _from_struct(mi.type_info(struct)), definition) == []


def _checked(shape: Shape) -> Shape:
    """``shape`` without the fields the struct keeps unchecked (text it never decodes)."""
    pruned = dict(shape)
    if "properties" in shape:
        pruned["properties"] = {
            name: _checked(part)
            for name, part in shape["properties"].items()
            if part["types"] or "properties" in part
        }
    for part in ("values", "items"):
        if part in shape:
            pruned[part] = _checked(shape[part])
    return pruned


@pytest.mark.parametrize(
    ("definition", "struct"), [p[:2] for p in PAIRS], ids=[p[2] for p in PAIRS]
)
def test_the_typed_reader_checks_no_field_the_schema_leaves_unchecked(
    definition: str, struct: type[msgspec.Struct]
) -> None:
    """The other way round: what the reference reader accepts, and hands to the typed
    reader with only the spec and status members the schema describes for its kind
    (``_as_described``), the typed reader reads, so that every snapshot is built by it."""
    described = _from_schema({"$ref": f"#/$defs/{definition}"})
    read = _checked(_from_struct(mi.type_info(struct)))
    for part in ("spec", "status"):
        members = described["properties"].get(part, {}).get("properties", {})
        kept = read["properties"].pop(part)["properties"]
        if members:  # else handed over empty, which any struct reads
            read["properties"][part] = {
                "types": {"object"},
                "properties": {k: kept[k] for k in kept if k in members},
            }
    del read["properties"]["kind"]  # a const the reference checked; the reader compares it
    if definition != "node":  # _Object reads a node's own member of every object
        read["properties"].pop("scaleSet", None)
    assert _differences(read, described, definition) == []


def test_a_difference_is_found() -> None:
    """The comparison is not vacuous: a field of another type is named."""
    wrong = msgspec.defstruct("Wrong", [("metadata", int)])
    expected = _from_schema({"$ref": "#/$defs/namespace"})
    found = _differences(expected, _from_struct(mi.type_info(wrong)), "namespace")
    assert found[:3] == [
        "namespace.kind: not read",
        "namespace.metadata: ['object'] != ['integer']",
        "namespace.metadata: required ['name']",
    ]


def test_the_envelope_arrays_are_the_sections_the_recorder_writes() -> None:
    """The optional arrays follow: the PriorityClasses, written when the credentials may
    list them, and the autoscaler's, written only by ``fitgate snapshot --autoscaling``; then
    the storage objects', each written when the credentials may list its kind; then the
    PodDisruptionBudgets, written when they may list them."""
    layout = schema()["oneOf"][0]["properties"]
    arrays = [name for name, rule in layout.items() if rule.get("type") == "array"]
    sections = [*RECORDED_SECTIONS, *OPTIONAL_SECTIONS]
    assert arrays == list(READ_SECTIONS) == sections
    optional = ("priorityClasses", "resourceQuotas", *AUTOSCALING_SECTIONS, *STORAGE_SECTIONS)
    assert (*optional, "podDisruptionBudgets") == OPTIONAL_SECTIONS


def _every_field(rule: dict[str, Any]) -> Any:
    """A value with every field the schema describes, each of a type it allows."""
    while "$ref" in rule:
        rule = schema()["$defs"][rule["$ref"].rsplit("/", 1)[1]]
    if "const" in rule:
        return rule["const"]
    types = rule.get("type", [])
    kind = types if isinstance(types, str) else types[0]
    if "properties" in rule:
        return {name: _every_field(part) for name, part in rule["properties"].items()}
    if "additionalProperties" in rule:
        return {"example.com/key": _every_field(rule["additionalProperties"])}
    if "items" in rule:
        return [_every_field(rule["items"])]
    return {"string": "1", "integer": 1, "boolean": True, "array": [], "object": {}}[kind]


def _fields(value: Any, path: str = "") -> set[str]:
    if isinstance(value, dict):
        return {f for k, v in value.items() for f in {f"{path}.{k}"} | _fields(v, f"{path}.{k}")}
    if isinstance(value, list):
        return {f for v in value for f in _fields(v, path + "[]")}
    return set()


@pytest.mark.parametrize(
    ("definition", "item"), [("node", Node), ("pod", Pod), ("namespace", Namespace)]
)
def test_the_recorder_keeps_every_field_the_schema_describes(
    definition: str, item: type[Recorded]
) -> None:
    complete = _every_field({"$ref": f"#/$defs/{definition}"})
    if definition == "pod":
        for name in ("containers", "initContainers"):  # only host ports are ports in use
            complete["spec"][name][0]["ports"][0]["hostPort"] = 8080
        # Only what a resize reports is kept of a status: resources, a pending resize.
        for name in ("containerStatuses", "initContainerStatuses"):
            complete["status"][name][0]["resources"] = {"requests": {"cpu": "1"}}
        complete["status"]["conditions"][0]["type"] = "PodResizePending"
    assert _fields(complete) - _fields(recorded(item, complete)) == NOT_RECORDED[definition]


# Checked wherever they appear, but never read of an object already in the cluster.
_OWNED = {".metadata.namespace", ".metadata.deletionTimestamp", ".metadata.ownerReferences"}
_OWNERS = {".metadata.ownerReferences[].kind", ".metadata.ownerReferences[].name"}
_LIMITS = {  # requests only: the API server defaulted them from the limits already
    f"{place}.limits{key}"
    for place in (".spec.resources", ".spec.containers[].resources")
    for key in ("", ".example.com/key")
} | {f".spec.initContainers[].resources.limits{key}" for key in ("", ".example.com/key")}
# A node's providerID names its subscription: only the scale set's name is kept (scaleSet).
NOT_RECORDED = {
    "node": _OWNED | _OWNERS | {".spec.providerID"},
    "pod": _LIMITS,
    "namespace": _OWNED | _OWNERS,
}


def _sample(info: mi.Type, name: str) -> Any:
    """A value of the type ``info`` describes (the first member of a union that has one)."""
    for member in info.types if isinstance(info, mi.UnionType) else (info,):
        if isinstance(member, mi.StrType):
            return name
        if isinstance(member, mi.IntType):
            return 80
        if isinstance(member, mi.BoolType):
            return True
        if isinstance(member, mi.ListType):
            return [_sample(member.item_type, name)]
        if isinstance(member, mi.DictType):
            return {"app": _sample(member.value_type, name)}
        if isinstance(member, mi.StructType):
            return {}
    raise AssertionError(f"no sample of {info}")


def _every_named(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """An object with each of the struct's fields set, in reverse order, and a field
    nothing reads."""
    fields = mi.type_info(struct).fields  # type: ignore[attr-defined]
    named = {f.encode_name: _sample(f.type, f.encode_name) for f in reversed(fields)}
    return {"unread": "x"} | named


def _pod_with(path: str, part: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeName": "node-1"}
    pod: dict[str, Any] = {"metadata": {"name": "p", "namespace": "n"}, "spec": spec}
    if path == "ownerReferences":
        pod["metadata"]["ownerReferences"] = [part]
    elif path == "conditions":
        pod["status"] = {"conditions": [part | {"type": "PodResizePending"}]}
    elif path == "ports":
        spec["containers"] = [{"name": "app", "ports": [part]}]
    elif path == "weighted":
        spec["affinity"] = {"podAntiAffinity": {_PREFERRED: [part]}}
    else:
        terms = [part] if path == "term" else [{"labelSelector": part}]
        if path == "requirement":
            terms = [{"labelSelector": {"matchExpressions": [part]}}]
        spec["affinity"] = {"podAffinity": {_REQUIRED: terms}}
    return pod


_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _recorded(struct: type[msgspec.Struct], path: str) -> dict[str, Any]:
    part = _every_named(struct)
    if path == "taints":
        node = recorded(Node, {"metadata": {"name": "n"}, "spec": {"taints": [part]}})
        return dict(node["spec"]["taints"][0])
    if path == "tolerations":
        runtime_class = recorded(
            RuntimeClass,
            {"metadata": {"name": "r"}, "handler": "h", "scheduling": {"tolerations": [part]}},
        )
        return dict(runtime_class["scheduling"]["tolerations"][0])
    if path == "limits":
        limit_range = recorded(LimitRange, {"metadata": {"name": "l"}, "spec": {"limits": [part]}})
        return dict(limit_range["spec"]["limits"][0])
    pod = recorded(Pod, _pod_with(path, part))
    if path == "ownerReferences":
        return dict(pod["metadata"]["ownerReferences"][0])
    if path == "conditions":
        return dict(pod["status"]["conditions"][0])
    if path == "ports":
        return dict(pod["spec"]["containers"][0]["ports"][0])
    if path == "weighted":
        return dict(pod["spec"]["affinity"]["podAntiAffinity"][_PREFERRED][0])
    term = pod["spec"]["affinity"]["podAffinity"][_REQUIRED][0]
    if path == "term":
        return dict(term)
    if path == "selector":
        return dict(term["labelSelector"])
    return dict(term["labelSelector"]["matchExpressions"][0])


# The parts the recorder writes field by field, and the structs that describe them.
RECORDED_PARTS = [
    (stream.Taint, "taints", "a node's taint"),
    (stream.Toleration, "tolerations", "a RuntimeClass's toleration"),
    (stream.LimitItem, "limits", "a LimitRange's limit"),
    (stream.Term, "term", "a required pod affinity term"),
    (stream.WeightedTerm, "weighted", "a preferred pod affinity term"),
    (stream.Selector, "selector", "a term's label selector"),
    (stream.Requirement, "requirement", "a selector's requirement"),
    (stream.Owner, "ownerReferences", "a pod's owner"),
    (stream.Port, "ports", "a container's host port"),
    (stream.Condition, "conditions", "a pod's resize condition"),
]


@pytest.mark.parametrize(
    ("struct", "path"), [p[:2] for p in RECORDED_PARTS], ids=[p[2] for p in RECORDED_PARTS]
)
def test_the_recorder_writes_the_fields_of_the_typed_readers_struct_in_its_order(
    struct: type[msgspec.Struct], path: str
) -> None:
    assert list(_recorded(struct, path)) == list(stream.fields_of(struct))


def _undescribed(value: Any, shape: Shape, path: str) -> set[str]:
    """The fields of ``value`` that ``shape`` (a struct's) does not describe. A field the
    struct keeps as text with no decoder of its own describes everything under it."""
    if isinstance(value, dict) and "properties" in shape:
        found = set()
        for name, member in value.items():
            rule = shape["properties"].get(name)
            where = f"{path}.{name}"
            found |= {where} if rule is None else _undescribed(member, rule, where)
        return found
    if isinstance(value, dict) and "values" in shape:
        return {f for v in value.values() for f in _undescribed(v, shape["values"], path + "{}")}
    if isinstance(value, list) and "items" in shape:
        return {f for v in value for f in _undescribed(v, shape["items"], path + "[]")}
    return set()


def _host_port_pod() -> dict[str, Any]:
    pod = realistic_pod(1, "node-1")
    pod["spec"]["hostNetwork"] = True
    pod["spec"]["containers"][0]["ports"] = [
        {"containerPort": 80, "hostPort": 80, "hostIP": "10.0.0.1", "protocol": "TCP"}
    ]
    pod["metadata"]["deletionTimestamp"] = "2026-08-16T10:00:00Z"
    pod["status"]["containerStatuses"] = [
        {"name": "app", "resources": {"requests": {"cpu": "1"}}, "allocatedResources": {}}
    ]
    pod["status"]["conditions"] = [{"type": "PodResizePending", "reason": "Infeasible"}]
    return pod


# apiVersion is the recording's own; hostNetwork is kept for the reader of the file (the API
# server has already turned it into host ports, which are what NodePorts reads).
NOT_READ = {"node": {".apiVersion"}, "pod": {".apiVersion", ".spec.hostNetwork"}}
OBJECTS = [
    ("node", stream._Object, Node, realistic_node(0, system=True), "a node"),
    ("node", stream._Object, Node, _every_field({"$ref": "#/$defs/node"}), "any node"),
    ("pod", stream._Pod, Pod, _host_port_pod(), "a pod with host ports, resizing"),
    ("namespace", stream._Object, Namespace, realistic_namespace("team"), "a namespace"),
]


@pytest.mark.parametrize(
    ("definition", "struct", "item", "obj"),
    [o[:4] for o in OBJECTS],
    ids=[o[4] for o in OBJECTS],
)
def test_the_recorder_writes_no_field_the_typed_reader_does_not_read(
    definition: str, struct: type[msgspec.Struct], item: type[Recorded], obj: dict[str, Any]
) -> None:
    shape = _from_struct(mi.type_info(struct))
    found = _undescribed(recorded(item, obj), shape, "")
    assert found == NOT_READ.get(definition, {".apiVersion"})
