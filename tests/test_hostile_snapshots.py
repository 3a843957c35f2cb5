"""A snapshot file damaged anywhere is read or refused with one clear error, never a
traceback, and the typed reader agrees with the reference reader on whatever both accept."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gate.errors import SnapshotError
from gate.inputs.surrogates import replace_lone_surrogates
from gate.snapshot import jsonstream
from gate.snapshot import load as load_module
from gate.snapshot.load import CANNOT_READ, build_snapshot, load_snapshot
from tests.conftest import ROOT
from tests.deadline import deadline
from tests.test_hostile_manifests import damage, paths, values

AKS = json.loads((ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json").read_text())


def resizing(document: dict[str, Any]) -> dict[str, Any]:
    """The fixture with one pod in the middle of an in-place resize, so that its status
    fields are there to be damaged too."""
    pod = next(p for p in document["pods"] if p["spec"].get("nodeName"))
    name = pod["spec"]["containers"][0]["name"]
    pod["status"]["containerStatuses"] = [
        {"name": name, "resources": {"requests": {"cpu": "1"}}, "allocatedResources": {"cpu": "1"}}
    ]
    pod["status"]["conditions"] = [{"type": "PodResizePending", "reason": "Infeasible"}]
    return document


def with_inter_pod_fields(document: dict[str, Any]) -> dict[str, Any]:
    """The fixture with what the inter-pod filters read: a pod's labels, owners, deletion
    and required terms, and namespaces with labels, so that they are there to be damaged."""
    pod = [p for p in document["pods"] if p["spec"].get("nodeName")][1]
    pod["metadata"]["labels"] = {"app": "web", "tier": "front"}
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web-1"}]
    pod["metadata"]["deletionTimestamp"] = "2026-08-16T10:00:00Z"
    selector = {
        "matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}],
    }
    term = {
        "labelSelector": selector,
        "namespaceSelector": {"matchLabels": {"team": "a"}},
        "namespaces": ["default"],
        "topologyKey": "kubernetes.io/hostname",
        "matchLabelKeys": ["pod-template-hash"],
        "mismatchLabelKeys": ["tenant"],
    }
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    pod["spec"]["affinity"] = {"podAntiAffinity": {required: [term]}}
    document["namespaces"] = [
        {"kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "a"}}}
    ]
    return document


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    damages=st.lists(st.tuples(st.integers(min_value=0), values), min_size=1, max_size=3),
    as_list=st.booleans(),
)
# a pod's memory request made a whole float past 2**53: both readers take its shortest text
@example(damages=[(5579, 3.393005574133505e16)], as_list=False)
# and a pod's anti-affinity term made one (a term is kept as stored): both read it alike
@example(damages=[(1051, {"": 2.716506825113959e16})], as_list=True)
# a node's capacity made Infinity, which Python's decoder takes and JSON has not
@example(damages=[(66, float("inf"))], as_list=False)
def test_damaged_snapshots_are_read_or_refused_clearly(
    tmp_path: Path, damages: list[tuple[int, Any]], as_list: bool
) -> None:
    document = with_inter_pod_fields(resizing(copy.deepcopy(AKS)))
    if as_list:
        items = document["nodes"] + document["pods"] + document["namespaces"]
        document = {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}
    for choice, value in damages:
        places = paths(document)
        damage(document, places[choice % len(places)], value)
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(document))
    try:
        loaded = load_snapshot(str(path))
    except SnapshotError as exc:
        message = str(exc)
        assert message.startswith(str(path)) and "\n" not in message
        # Worded by the reference reader: whatever it accepts, the typed reader builds.
        assert CANNOT_READ not in message
        return
    # As the reference reader reads it: lone surrogates (a damage can be one) are U+FFFD.
    document = replace_lone_surrogates(json.loads(path.read_text()))
    assert loaded == build_snapshot(document, str(path))


def _aks() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json").read_text(encoding="utf-8")
    )
    return loaded


def _capture(document: dict[str, Any], value: Any) -> None:
    document["capturedAt"] = value


def _negative_cpu(document: dict[str, Any], value: Any) -> None:
    document["nodes"][0]["status"]["allocatable"]["cpu"] = value


def _negative_capacity(document: dict[str, Any], value: Any) -> None:
    document["nodes"][0]["status"]["capacity"]["cpu"] = value


@pytest.mark.parametrize(
    ("change", "value", "message"),
    [
        (_capture, "not a date", "capturedAt: 'not a date' is not an RFC 3339 time"),
        (_capture, "2026-08-16", "capturedAt: '2026-08-16' is not an RFC 3339 time"),
        (_negative_cpu, "-1", "node 'aks-system-0': status.allocatable.cpu is negative"),
        (
            _negative_capacity,
            "-1000",
            "nodes[0] (Node \"aks-system-0\"): status.capacity: cpu: quantity '-1000' must be "
            "greater than or equal to 0",
        ),
    ],
    ids=[
        "a capture time that is no time",
        "a date without a time",
        "negative allocatable cpu",
        "negative cpu capacity, which would get past coresTotal",
    ],
)
def test_what_no_api_server_writes_is_refused_in_one_line(
    tmp_path: Path, change: Any, value: Any, message: str
) -> None:
    document = _aks()
    change(document, value)
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path))
    assert str(raised.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    "captured",
    ["2026-08-16T10:00:00Z", "2026-08-16T10:00:00.123456789Z", "2026-08-16T12:00:00+02:00"],
)
def test_rfc3339_capture_times_are_read(tmp_path: Path, captured: str) -> None:
    document = _aks()
    document["capturedAt"] = captured
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert load_snapshot(str(path)).info.captured_at == captured


def test_a_value_longer_than_any_object_is_refused_as_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 3 MB label against a bound of 64 KiB (8 MiB in use, where a 30 MB label took
    3.6 GB and 18 s): refused once the bound is passed, not read whole again."""
    monkeypatch.setattr(jsonstream, "MAX_VALUE", 64 * 1024)
    document = _aks()
    document["nodes"][0]["metadata"]["labels"]["big"] = "x" * 3_000_000
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path))
    assert str(raised.value) == (
        f"{path}: nodes: a value longer than 0 MiB: no object the API server holds is larger "
        "than 1.5 MiB"
    )


def test_a_pipe_that_never_ends_is_refused_at_the_snapshot_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(load_module, "MAX_SNAPSHOT_BYTES", 4 << 20)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    def endless() -> None:
        with contextlib.suppress(OSError), open(pipe, "wb") as out:
            out.write(b'{"kind": "List", "apiVersion": "v1", "items": [')
            node = json.dumps(_aks()["nodes"][0]).encode()
            while True:
                out.write(node + b", ")

    writer = threading.Thread(target=endless, daemon=True)
    writer.start()
    with deadline(60), pytest.raises(SnapshotError) as raised:
        load_snapshot(str(pipe))
    assert str(raised.value) == f"{pipe}: items: longer than 4 MiB: not a snapshot of a cluster"
    writer.join(10)


def test_an_integer_past_pythons_digit_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    text = json.dumps(_aks()).replace('"pods": "110"', '"pods": ' + "9" * 5_000, 1)
    path = tmp_path / "snap.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path))
    message = str(raised.value)
    assert message.startswith(f"{path}: not a JSON snapshot: Exceeds the limit")
    assert "\n" not in message


@pytest.mark.parametrize("as_list", [False, True], ids=["snapshot", "list"])
def test_a_lone_surrogate_outside_the_arrays_reads_as_a_replacement_character(
    tmp_path: Path, as_list: bool
) -> None:
    """Both readers agree on a lone surrogate in a member that is not an array (the
    typed reader decodes those with the stdlib, which keeps it)."""
    document = _aks()
    if as_list:
        document = {"kind": "List", "metadata": {"note": "\udc80"}, "items": document["nodes"]}
    else:
        document["source"]["context"] = "ctx-\udc80"
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(document))  # ASCII: the surrogate is the escape \udc80
    loaded = load_snapshot(str(path))
    assert loaded == build_snapshot(replace_lone_surrogates(document), str(path))
    if not as_list:
        assert loaded.info.context == "ctx-\ufffd"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_number_json_has_not_is_refused_as_not_json(tmp_path: Path, constant: str) -> None:
    """Python's decoder takes NaN and the infinities; JSON, the API server and the typed
    reader do not (a node's capacity of Infinity was read by neither reader alike)."""
    document = copy.deepcopy(AKS)
    document["nodes"][1]["status"]["capacity"]["ephemeral-storage"] = "PLACEHOLDER"
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(document).replace('"PLACEHOLDER"', constant))
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path))
    assert str(raised.value) == (
        f"{path}: not a JSON snapshot: {constant} is not JSON (JSON has no NaN or infinite number)"
    )
