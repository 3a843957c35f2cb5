"""The typed streaming reader gives the reference reader's snapshot, whatever the file's
layout and however it is cut into batches, and hands invalid files to the reference reader,
whose messages name the object and the field."""

from __future__ import annotations

import io
import json
import mmap
import os
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.generate import LIST_FILE, SNAPSHOT_FILE, ensure_case
from benchmarks.sizes import SIZES
from gate.errors import SnapshotError
from gate.k8s.ports import pod_host_ports
from gate.k8s.resources import pod_request_amounts
from gate.k8s.volumes import mounts_of
from gate.model import ExistingPod, PreferringPod
from gate.snapshot import stream
from gate.snapshot.jsonstream import Batch, FileRegion, Value, _value_end, members
from gate.snapshot.load import build_snapshot, load_snapshot
from gate.snapshot.stream import NotAccepted, _decoder, read_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.conftest import ROOT

FIXTURES = sorted((ROOT / "fixtures" / "snapshots").glob("*.json"))
LAYOUTS: dict[str, dict[str, Any]] = {
    "kubectl": {"indent": 4},
    "compact": {"separators": (",", ":")},
    "spaced": {},
    "two": {"indent": 2, "ensure_ascii": False},
}


def fast(data: bytes, window: int = 1 << 20) -> Any:
    return read_snapshot(io.BytesIO(data), "snap.json", lambda n: None, window)


def as_list(snapshot: dict[str, Any]) -> dict[str, Any]:
    items = snapshot["nodes"] + snapshot["pods"] + snapshot.get("limitRanges", [])
    items += [{"kind": "Namespace", **n} for n in snapshot.get("namespaces", [])]
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {}}


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_fixtures_read_alike(path: Path, layout: str) -> None:
    document = json.loads(path.read_text())
    for shape in (document, as_list(document)):
        data = json.dumps(shape, **LAYOUTS[layout]).encode()
        assert fast(data) == build_snapshot(shape, "snap.json")
        assert fast(data, window=64) == build_snapshot(shape, "snap.json")


def test_generated_case_reads_alike(tmp_path: Path) -> None:
    case = ensure_case(SIZES["tiny"], tmp_path)
    for name in (LIST_FILE, SNAPSHOT_FILE):
        data = (case / name).read_bytes()
        reference = build_snapshot(json.loads(data), "snap.json")
        assert fast(data) == reference
        assert fast(data, window=4096) == reference  # many batches, guesses and scans


names = st.sampled_from(["a", "b", "c", "d"])
TAINTED = [{"key": "k", "value": "v", "effect": "NoExecute"}]
quantities = st.sampled_from(["1", "500m", "0.5", "2Gi", "100Mi", "1e3", 3, 0.25])
phases = st.sampled_from(["Running", "Pending", "Succeeded", "Failed", "Unknown"])
tricky = st.text(alphabet='{}[],:"\\ \n\u00e9ab', max_size=12)
label_maps = st.one_of(
    st.none(),
    st.sampled_from([{}, {"app": "web"}, {"app": "web", "tier": "front"}]),
    st.dictionaries(names, tricky, max_size=2),
)
selectors: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.builds(dict, matchLabels=label_maps),
    st.just({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "db"]}]}),
    st.just({"matchExpressions": [{"key": "app", "operator": "Exists", "values": None}]}),
)
terms = st.lists(
    st.fixed_dictionaries(
        {"topologyKey": st.sampled_from(["kubernetes.io/hostname", "zone"])},
        optional={
            "labelSelector": selectors,
            "namespaceSelector": selectors,
            "namespaces": st.one_of(st.none(), st.lists(names, max_size=2)),
            "matchLabelKeys": st.just(["pod-template-hash"]),
            "mismatchLabelKeys": st.none(),
        },
    ),
    min_size=1,
    max_size=2,
)
weighted_terms = st.lists(
    st.fixed_dictionaries(
        {"weight": st.integers(1, 100), "podAffinityTerm": terms.map(lambda found: found[0])}
    ),
    min_size=1,
    max_size=2,
)
owners = st.one_of(
    st.none(),
    st.just([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u"}]),
    st.just([{"kind": "Node", "name": "a"}, {"kind": "DaemonSet", "name": "logs"}]),
)


@st.composite
def affinities(draw: st.DrawFn) -> dict[str, Any]:
    affinity: dict[str, Any] = {}
    for name in ("podAffinity", "podAntiAffinity"):
        required = draw(st.one_of(st.none(), st.just([]), terms, terms))
        preferred = draw(st.one_of(st.none(), st.just([]), weighted_terms))
        if required is not None or preferred is not None or draw(st.booleans()):
            affinity[name] = {"requiredDuringSchedulingIgnoredDuringExecution": required}
            if preferred is not None:
                affinity[name][PREFERRED] = preferred
    if draw(st.booleans()):
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": None}
    return affinity


@st.composite
def pod_metadata(draw: st.DrawFn, pod: dict[str, Any]) -> dict[str, Any]:
    """The parts the inter-pod filters read: labels, owners, deletion, affinity terms."""
    metadata = pod["metadata"]
    for key, values in (("labels", label_maps), ("ownerReferences", owners)):
        value = draw(values)
        if value is not None or draw(st.booleans()):
            metadata[key] = value
    if draw(st.booleans()):
        metadata["deletionTimestamp"] = draw(st.sampled_from([None, "2026-08-16T10:00:00Z"]))
    affinity = draw(st.one_of(st.none(), affinities(), affinities()))
    if affinity is not None or draw(st.booleans()):
        pod["spec"]["affinity"] = affinity
    return pod


namespace_lists = st.one_of(
    st.none(),
    st.lists(
        st.builds(
            lambda name, labels: {"metadata": {"name": name, "labels": labels}},
            names,
            label_maps,
        ),
        max_size=3,
    ),
)


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    node_names = draw(st.lists(names, min_size=0, max_size=4, unique=True))
    nodes = [
        api_node(
            n,
            cpu=str(draw(st.integers(1, 8))),
            labels={"zone": draw(tricky)},
            taints=draw(st.sampled_from([None, TAINTED])),
            unschedulable=draw(st.booleans()),
        )
        for n in node_names
    ]
    pods = []
    for number in range(draw(st.integers(0, 8))):
        requests = {"cpu": draw(quantities), "memory": draw(quantities)}
        ports = draw(st.sampled_from([[], [{"containerPort": 80, "hostPort": 8080}]]))
        sidecar = draw(st.booleans())
        init = [container("init", requests, restartPolicy="Always")] if sidecar else []
        pod = api_pod(
            f"p{number}-{draw(tricky)}",
            draw(st.one_of(st.none(), names, st.just("elsewhere"))),
            namespace=draw(names),
            phase=draw(phases),
            containers=[container("c", requests, ports=ports)],
            initContainers=init,
        )
        pods.append(draw(pod_metadata(pod)))
    namespaces = draw(namespace_lists)
    extra = {} if namespaces is None else {"namespaces": namespaces}
    return cluster_snapshot(nodes, pods, **extra)


@settings(max_examples=120, deadline=None)
@given(clusters(), st.sampled_from(list(LAYOUTS)), st.booleans(), st.integers(16, 4096))
def test_any_cluster_reads_alike(
    snapshot: dict[str, Any], layout: str, kubectl: bool, window: int
) -> None:
    shape = as_list(snapshot) if kubectl else snapshot
    data = json.dumps(shape, **LAYOUTS[layout]).encode()
    assert fast(data, window) == build_snapshot(shape, "snap.json")


def aks() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / FIXTURES[0]).read_text())
    return loaded


def mutate_node_cpu(doc: dict[str, Any]) -> None:
    doc["nodes"][4]["status"]["allocatable"]["cpu"] = "two"


def mutate_pod_quantity(doc: dict[str, Any]) -> None:
    doc["pods"][2]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1 core"}}


def mutate_name_type(doc: dict[str, Any]) -> None:
    doc["pods"][1]["metadata"]["name"] = 7


def mutate_duplicate(doc: dict[str, Any]) -> None:
    doc["nodes"].append(doc["nodes"][0])


def mutate_taint(doc: dict[str, Any]) -> None:
    doc["nodes"][0]["spec"]["taints"] = [{"effect": "NoSchedule"}]


def mutate_envelope(doc: dict[str, Any]) -> None:
    doc["apiVersion"] = "v2"


def mutate_float_port(doc: dict[str, Any]) -> None:
    """Valid for the schema ("integer" takes 80.0) though not for a typed field."""
    doc["pods"][0]["spec"]["containers"][0]["ports"] = [{"containerPort": 80.0}]


@pytest.mark.parametrize(
    "mutate",
    [
        mutate_node_cpu,
        mutate_pod_quantity,
        mutate_name_type,
        mutate_duplicate,
        mutate_taint,
        mutate_envelope,
        mutate_float_port,
    ],
)
@pytest.mark.parametrize("kubectl", [False, True], ids=["ClusterSnapshot", "List"])
def test_what_the_fast_reader_refuses_the_reference_answers(
    tmp_path: Path, mutate: Any, kubectl: bool
) -> None:
    document = aks()
    mutate(document)
    shape = as_list(document) if kubectl else document
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(shape, indent=4))
    try:
        expected: Any = build_snapshot(json.loads(path.read_text()), str(path))
    except SnapshotError as exc:
        expected = str(exc)
    try:
        got: Any = load_snapshot(str(path))
    except SnapshotError as exc:
        got = str(exc)
    assert got == expected


def test_messages_name_object_and_field(tmp_path: Path) -> None:
    document = aks()
    mutate_node_cpu(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SnapshotError, match=r'nodes\[4\] \(Node "aks-user-1"\): status.alloc'):
        load_snapshot(str(path))


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"[]",
        b"{",
        b'{"kind": "List", "items": [',
        b'{"a": 1} x',
        b"\xff\xfe{}",
        b'{"kind": "List", "items": [{"kind": "Node"},]}',
        b'{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a"}},]}',
        b'{"kind": "List", "items": [1, , 2]}',
    ],
)
def test_broken_files_are_one_clear_error(tmp_path: Path, text: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text)
    with pytest.raises(SnapshotError, match=str(path)):
        load_snapshot(str(path))


def test_the_stream_reader_declines_rather_than_guess() -> None:
    with pytest.raises(NotAccepted):
        read_snapshot(io.BytesIO(b'{"kind": "List", "items": 5}'), "s", lambda n: None)


def test_members_cut_arrays_between_elements_only() -> None:
    tricky_text = '}, {"apiVersion": "x"}], "pods": ['
    items = [{"apiVersion": "v1", "note": tricky_text, "n": i} for i in range(50)]
    document = {"head": {"a": [1, {"b": "]"}]}, "items": items, "tail": "x"}
    for layout in LAYOUTS.values():
        stream = io.BytesIO(json.dumps(document, **layout).encode())
        got: dict[str, Any] = {}
        for member in members(stream, _decoder, window=256):
            if isinstance(member, Value):
                got[member.key] = json.loads(member.text)
            else:
                assert isinstance(member, Batch)
                got.setdefault(member.key, []).extend(json.loads(member.text))
        assert got == document


def _file(tmp_path: Path, document: dict[str, Any]) -> str:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(document))
    return str(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"pods": None}, "pods: None is not of type 'array'", id="pods-null"),
        pytest.param({"nodes": {}}, "nodes: {} is not of type 'array'", id="nodes-object"),
        pytest.param({"capturedAt": []}, "capturedAt: [] is not of type", id="captured-at-list"),
    ],
)
def test_an_envelope_error_names_its_field(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    document = {**aks(), **change}
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(_file(tmp_path, document))
    assert message in str(raised.value)


def test_an_envelope_without_pods_says_so(tmp_path: Path) -> None:
    document = aks()
    del document["pods"]
    with pytest.raises(SnapshotError, match="'pods' is a required property"):
        load_snapshot(_file(tmp_path, document))


def test_node_and_pod_lists_read_as_the_api_returns_them(tmp_path: Path) -> None:
    """The items of a NodeList/PodList carry no kind; a List may hold such lists."""
    document = aks()
    expected = build_snapshot(as_list(document), "snap.json")

    def bare(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in o.items() if k != "kind"} for o in objects]

    node_list = {"kind": "NodeList", "apiVersion": "v1", "items": bare(document["nodes"])}
    pod_list = {"kind": "PodList", "apiVersion": "v1", "items": bare(document["pods"])}
    nested = {"kind": "List", "apiVersion": "v1", "items": [node_list, pod_list]}
    assert load_snapshot(_file(tmp_path, nested)).nodes == expected.nodes
    alone = load_snapshot(_file(tmp_path, node_list))
    assert [n.name for n in alone.nodes] == [n.name for n in expected.nodes]


@pytest.mark.parametrize(
    ("text", "end"),
    [
        pytest.param(b'{"a": {"b": "}}}}', None, id="brackets in a string the window cuts"),
        pytest.param(b'{"a": "\\', None, id="an escape the window cuts"),
        pytest.param(b'"}]', None, id="a string value the window cuts"),
        pytest.param(b'{"a": "}}"} x', 11, id="brackets in a whole string"),
        pytest.param(b'"" ', 2, id="an empty string"),
    ],
)
def test_where_a_value_ends_is_not_guessed_from_a_cut_string(text: bytes, end: int | None) -> None:
    """Brackets inside a string the window cuts are text, not structure: the value's end
    is unknown until more of the file is read."""
    assert _value_end(text, 0) == end


TERMINAL = ("Succeeded", "Failed")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _counted_by_hand(snapshot: dict[str, Any]) -> dict[str, tuple[dict[str, int], int, set[Any]]]:
    """Each node's totals summed pod by pod, as the scheduler's NodeInfo.AddPod does: the
    readers' one reduction is held to this plain one."""
    nodes = {n["metadata"]["name"] for n in snapshot["nodes"]}
    totals: dict[str, tuple[dict[str, int], int, set[Any]]] = {}
    for pod in snapshot["pods"]:
        node, phase = pod["spec"].get("nodeName"), pod["status"].get("phase")
        if node not in nodes or phase in TERMINAL:
            continue
        requested, count, ports = totals.get(node, ({}, 0, set()))
        for name, amount in pod_request_amounts(pod["spec"]).items():
            requested[name] = requested.get(name, 0) + amount
        totals[node] = (requested, count + 1, ports | set(pod_host_ports(pod["spec"])))
    return totals


@settings(max_examples=80, deadline=None)
@given(clusters(), st.booleans())
def test_node_totals_and_counted_pods_are_the_pods_read_one_by_one(
    snapshot: dict[str, Any], kubectl: bool
) -> None:
    shape = as_list(snapshot) if kubectl else snapshot
    read = fast(json.dumps(shape).encode())
    by_hand = _counted_by_hand(snapshot)
    for node in read.nodes:
        requested, count, ports = by_hand.get(node.name, ({}, 0, set()))
        assert (dict(node.requested), node.pod_count, set(node.used_ports)) == (
            {name: amount for name, amount in sorted(requested.items())},
            count,
            ports,
        )
    assert read.pods == _existing_by_hand(snapshot)


def _existing_by_hand(snapshot: dict[str, Any]) -> tuple[ExistingPod, ...]:
    """The counted pods as the inter-pod filters read them, written out field by field."""
    nodes = {n["metadata"]["name"] for n in snapshot["nodes"]}
    found = []
    for pod in snapshot["pods"]:
        metadata, spec = pod["metadata"], pod["spec"]
        if spec.get("nodeName") not in nodes or pod["status"].get("phase") in TERMINAL:
            continue
        affinity = spec.get("affinity") or {}
        terms = {
            name: tuple((affinity.get(name) or {}).get(REQUIRED) or ())
            for name in ("podAffinity", "podAntiAffinity")
        }
        weighted = {
            name: tuple(
                (item["weight"], item["podAffinityTerm"])
                for item in (affinity.get(name) or {}).get(PREFERRED) or ()
            )
            for name in ("podAffinity", "podAntiAffinity")
        }
        existing = ExistingPod(
            namespace=metadata.get("namespace") or "default",
            name=metadata["name"],
            node=spec["nodeName"],
            labels=metadata.get("labels") or {},
            owners=tuple((o["kind"], o["name"]) for o in metadata.get("ownerReferences") or ()),
            terminating=metadata.get("deletionTimestamp") is not None,
            affinity_terms=terms["podAffinity"],
            anti_affinity_terms=terms["podAntiAffinity"],
            requests=pod_request_amounts(spec),
            ports=pod_host_ports(spec),
        )
        if weighted["podAffinity"] or weighted["podAntiAffinity"]:
            existing = PreferringPod(
                **{f.name: getattr(existing, f.name) for f in fields(existing)},
                preferred_affinity_terms=weighted["podAffinity"],
                preferred_anti_affinity_terms=weighted["podAntiAffinity"],
            )
        found.append(existing)
    return tuple(found)


@pytest.mark.parametrize("kubectl", [False, True], ids=["ClusterSnapshot", "List"])
def test_fields_of_another_kind_are_not_read(tmp_path: Path, kubectl: bool) -> None:
    """The typed reader reads a Node's and a Pod's fields with one struct; a pod that
    carries a node's fields (of types no node has) reads as it does without them."""
    document, plain = aks(), aks()
    document["items"] = [{"not": "an object of a List"}]  # unknown to a recording: not read
    document["pods"][0]["spec"]["taints"] = "none"
    document["pods"][0]["status"]["allocatable"] = 5
    document["nodes"][0]["spec"]["containers"] = {"not": "a list"}
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(as_list(document) if kubectl else document))
    expected = build_snapshot(as_list(plain) if kubectl else plain, str(path))
    assert load_snapshot(str(path)) == expected


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("spec.containers.0.name", 7, r"pods\[0\] .*spec.containers\[0\].name: 7 is not of type"),
        ("status.conditions", [{"type": 5}], r"pods\[0\] .*status.conditions\[0\].type: 5"),
        ("status.containerStatuses", [{"name": None}], r"status.containerStatuses\[0\].name"),
        (
            "spec.affinity.podAntiAffinity." + PREFERRED,
            [{"weight": "50", "podAffinityTerm": {}}],
            r"pods\[0\] .*spec.affinity.podAntiAffinity.preferredDuringScheduling"
            r"IgnoredDuringExecution\[0\].weight: '50' is not of type 'integer'$",
        ),
        (
            "spec.affinity.podAffinity." + PREFERRED,
            [{"weight": 5, "podAffinityTerm": {"topologyKey": 1}}],
            r"podAffinityTerm.topologyKey: 1 is not of type 'string'$",
        ),
    ],
)
def test_a_field_the_typed_reader_checks_is_checked_by_the_schema_too(
    tmp_path: Path, where: str, value: Any, message: str
) -> None:
    document = aks()
    *parents, last = where.split(".")
    place: Any = document["pods"][0]
    for key in parents:
        place = place[int(key)] if key.isdigit() else place.setdefault(key, {})
    place[last] = value
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(document))
    with pytest.raises(SnapshotError, match=message):
        load_snapshot(str(path))


@pytest.mark.parametrize(
    "text",
    [
        b'[{"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}}]',
        b'[{"name": "\\ud800", "rbd": {"image": "i", "monitors": ["m"]}}]',
        b'[{"name": "n", "cinder": {"volumeID": "v", "size": NaN}}]',
        b'[{"name": "n", "iscsi": {"iqn": "q", "lun": 1e400}}]',
        b'[{"name": "a", "name": "b", "azureDisk": {"diskURI": "d", "kind": "Managed"}}]',
        b'[{"name": "n", "rbd": {"image": "i", "pool": %s}}]' % (b"9" * 5000),
        b"[" * 200 + b"]" * 200,
        b"null",
    ],
    ids=[
        "a claim is read as json reads it",
        "a lone surrogate is read as json reads it",
        "a NaN is read as json reads it",
        "a number out of a float's range is read as json reads it",
        "a repeated name keeps its last value as json keeps it",
        "an integer longer than Python converts is refused as json refuses it",
        "a deep nesting is read as json reads it",
        "no volumes are read as json reads them",
    ],
)
def test_a_pods_volumes_are_read_as_json_reads_them(text: bytes) -> None:
    try:
        expected = json.loads(text)
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            stream._plain_volumes(text)
        return
    read = stream._plain_volumes(text)
    assert repr(read) == repr(expected)
    assert mounts_of(read) == mounts_of(expected)


def _members_of(source: Any, window: int) -> tuple[list[tuple[str, Any]], int]:
    """The members read from ``source`` (key, value or elements), and the bytes reported read."""
    read: list[int] = []
    got: list[tuple[str, Any]] = []
    for member in members(source, _decoder, window=window, on_read=read.append):
        got.append((member.key, json.loads(member.text)))
    return got, sum(read)


def _tricky_document(count: int) -> dict[str, Any]:
    tricky_text = '}, {"apiVersion": "x"}], "pods": ['
    items = [{"apiVersion": "v1", "note": tricky_text * (i % 7), "n": i} for i in range(count)]
    return {"head": {"a": [1, {"b": "]"}]}, "items": items, "tail": "x"}


@pytest.mark.parametrize("window", [256, 5_000, 1 << 20], ids=["256 B", "5 kB", "1 MiB"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_file_mapped_window_by_window_reads_as_a_stream(
    tmp_path: Path, window: int, layout: str
) -> None:
    """A regular file is mapped, not copied: windows past the first 4 kB start at an
    offset the mapping must align; the members and the bytes reported read are the
    stream's."""
    text = json.dumps(_tricky_document(2_000), **LAYOUTS[layout]).encode()
    path = tmp_path / "list.json"
    path.write_bytes(text)
    with path.open("rb") as handle:
        assert FileRegion.of(handle) is not None
        mapped = _members_of(handle, window)
    assert mapped == _members_of(io.BytesIO(text), window)
    assert mapped[1] == len(text)


@pytest.mark.parametrize("window", [256, 5_000], ids=["256 B", "5 kB"])
def test_a_region_of_a_file_between_a_prefix_and_a_suffix_reads_as_its_text(
    tmp_path: Path, window: int
) -> None:
    """What a second reader reads: the bytes from a cut on (or up to it), made a whole JSON
    text by a prefix or a suffix; the windows over them are copied, the rest mapped."""
    document = _tricky_document(1_500)
    text = json.dumps(document, indent=4).encode()
    path = tmp_path / "list.json"
    path.write_bytes(text)
    cut = text.index(b"},\n", len(text) // 2) + 1  # the comma between two items
    parts = [
        (0, cut, b"", b"]}", text[:cut] + b"]}"),
        (cut + 1, None, b'{"items":[', b"", b'{"items":[' + text[cut + 1 :]),
    ]
    for start, end, prefix, suffix, whole in parts:
        with path.open("rb") as handle:
            read = _members_of(FileRegion(handle, start, end, prefix, suffix), window)
        assert read == _members_of(io.BytesIO(whole), window)
        assert read[1] == len(whole)


def test_a_file_that_cannot_be_mapped_is_read_from_its_copied_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise OSError(19, "No such device")  # a file system that maps no file

    text = json.dumps(_tricky_document(500), indent=4).encode()
    path = tmp_path / "list.json"
    path.write_bytes(text)
    monkeypatch.setattr(mmap, "mmap", refused)
    with path.open("rb") as handle:
        assert _members_of(handle, 5_000) == _members_of(io.BytesIO(text), 5_000)


def test_a_pipe_is_read_as_a_stream(tmp_path: Path) -> None:
    reading, writing = os.pipe()
    with open(reading, "rb") as handle, open(writing, "wb") as sink:
        assert FileRegion.of(handle) is None
        sink.write(b"{}")


NAMES = ["aks-user-1", "aks-system-0", "ip-10-0-12-37", "aks-user-0", "gpu-0", "a"]


@settings(max_examples=40)
@given(st.permutations(NAMES), st.permutations(range(len(NAMES))))
def test_a_snapshot_holds_its_nodes_in_name_order_whatever_order_a_file_lists_them(
    names: list[str], pod_order: list[int]
) -> None:
    # The API server lists nodes by name; a file that lists them otherwise gives the same
    # snapshot, so that no answer depends on the order of recorded objects.
    pods = [
        api_pod(f"p{i}", NAMES[i], containers=[container(requests={"cpu": "100m"})])
        for i in pod_order
    ]
    recorded = cluster_snapshot([api_node(name) for name in names], pods)
    by_name = cluster_snapshot([api_node(name) for name in sorted(NAMES)], pods)
    for shape in (recorded, as_list(recorded)):
        snapshot = build_snapshot(shape, "snap.json")
        assert [node.name for node in snapshot.nodes] == sorted(NAMES)
        assert snapshot.nodes == build_snapshot(by_name, "snap.json").nodes
        assert fast(json.dumps(shape).encode()).nodes == snapshot.nodes
