"""What the inter-pod filters read of a snapshot: every counted pod with its labels, owners,
deletion and required pod (anti-)affinity terms, and the namespaces with their labels. Both
readers give the same values, from a kubectl List and from a recording, and a recording made
before namespaces were read still loads."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gate.errors import SnapshotError
from gate.model import ExistingPod, HostPort, Snapshot
from gate.snapshot.load import build_snapshot, load_snapshot
from gate.snapshot.stream import read_snapshot
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.conftest import ROOT
from tests.test_snapshot_stream import as_list

OLD_RECORDING = ROOT / "tests" / "data" / "snapshots" / "recorded-before-namespaces.json"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
HOSTNAME_APART = {
    "labelSelector": {"matchLabels": {"app": "web"}},
    "topologyKey": "kubernetes.io/hostname",
    "matchLabelKeys": ["pod-template-hash"],
}
NEAR_CACHE = {
    "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["cache"]}]},
    "namespaceSelector": {"matchLabels": {"team": "payments"}},
    "topologyKey": "topology.kubernetes.io/zone",
}
WEB_LABELS = {"app": "web", "pod-template-hash": "6d4cf56db6"}
NO_REQUESTS = (100, 200 * 1024 * 1024)  # the scores' count of a container naming none


def web_pod(name: str, node: str | None, **status: Any) -> dict[str, Any]:
    """A pod of a Deployment with hostname anti-affinity and affinity to a cache's zone."""
    pod = api_pod(name, node, namespace="payments", **status)
    pod["metadata"].update(
        labels=dict(WEB_LABELS),
        ownerReferences=[
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-6d4cf56db6", "uid": "1"}
        ],
    )
    pod["spec"]["affinity"] = copy.deepcopy(
        {
            "podAffinity": {REQUIRED: [NEAR_CACHE]},
            "podAntiAffinity": {REQUIRED: [HOSTNAME_APART], "preferredDuringScheduling": []},
        }
    )
    return pod


def namespace(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def expected_web(name: str, node: str, *, terminating: bool = False) -> ExistingPod:
    return ExistingPod(
        namespace="payments",
        name=name,
        node=node,
        labels=WEB_LABELS,
        owners=(("ReplicaSet", "web-6d4cf56db6"),),
        terminating=terminating,
        affinity_terms=(NEAR_CACHE,),
        anti_affinity_terms=(HOSTNAME_APART,),
        nonzero=NO_REQUESTS,
    )


def cluster() -> dict[str, Any]:
    deleting = web_pod("web-3", "a")
    deleting["metadata"]["deletionTimestamp"] = "2026-08-16T09:59:00Z"
    exporter = container("c", {"cpu": "100m"}, ports=[{"containerPort": 9100, "hostPort": 9100}])
    plain = api_pod("job-1", "b", namespace="batch", containers=[exporter])
    return cluster_snapshot(
        [api_node("a"), api_node("b")],
        [
            web_pod("web-1", "a"),
            web_pod("web-2", "b"),
            deleting,
            web_pod("web-4", None, phase="Pending"),
            web_pod("web-5", "a", phase="Succeeded"),
            web_pod("web-6", "gone"),
            plain,
        ],
        namespaces=[namespace("payments", team="payments"), namespace("batch")],
    )


def both_readers(document: dict[str, Any]) -> Snapshot:
    """The snapshot both readers build from the document, which must be the same."""
    reference = build_snapshot(document, "snap.json")
    data = json.dumps(document, indent=4).encode()
    assert read_snapshot(io.BytesIO(data), "snap.json", lambda n: None) == reference
    return reference


@pytest.mark.parametrize("kubectl", [False, True], ids=["a recording", "a kubectl List"])
def test_every_counted_pod_is_kept_with_what_the_inter_pod_filters_read(kubectl: bool) -> None:
    document = cluster()
    snapshot = both_readers(as_list(document) if kubectl else document)
    assert snapshot.pods == (
        expected_web("web-1", "a"),
        expected_web("web-2", "b"),
        expected_web("web-3", "a", terminating=True),
        ExistingPod(
            namespace="batch",
            name="job-1",
            node="b",
            labels={},
            requests={"cpu": 100},
            ports=(HostPort("0.0.0.0", "TCP", 9100),),
            nonzero=NO_REQUESTS,  # 100m as written, memory counted at 200Mi
        ),
    )
    assert snapshot.namespaces == {"payments": {"team": "payments"}, "batch": {}}


@pytest.mark.parametrize(
    ("namespaces", "expected"),
    [
        pytest.param(None, None, id="a recording without namespaces has none"),
        pytest.param([], {}, id="a recording of no namespace has an empty map"),
        pytest.param(
            [namespace("a", x="1"), namespace("a", x="2")],
            {"a": {"x": "2"}},
            id="a namespace listed twice keeps its last labels",
        ),
        pytest.param(
            [{"metadata": {"name": "a", "labels": None}}], {"a": {}}, id="null labels are none"
        ),
    ],
)
def test_namespaces_of_a_recording(
    namespaces: list[dict[str, Any]] | None, expected: dict[str, Any] | None
) -> None:
    extra: dict[str, Any] = {} if namespaces is None else {"namespaces": namespaces}
    document = cluster_snapshot([api_node("a")], [], **extra)
    assert both_readers(document).namespaces == expected


def test_a_list_without_namespace_items_has_no_namespaces() -> None:
    """``kubectl get nodes,pods -A -o json`` lists no namespaces: which labels they carry is
    unknown, not empty."""
    document = cluster()
    del document["namespaces"]
    assert both_readers(as_list(document)).namespaces is None


def test_a_recording_made_before_namespaces_were_read_still_loads() -> None:
    snapshot = load_snapshot(str(OLD_RECORDING))
    assert snapshot.namespaces is None
    assert snapshot.pods == (
        ExistingPod(
            namespace="team-00",
            name="web-0000000",
            node="aks-user-000001",
            labels={},
            owners=(("ReplicaSet", "web-6d4cf56db6"),),
            requests={"cpu": 250, "memory": 256 * 2**20},
        ),
    )
    assert snapshot == build_snapshot(json.loads(OLD_RECORDING.read_text()), str(OLD_RECORDING))


def test_pods_of_one_workload_share_their_labels_and_terms() -> None:
    """150,000 pods must not hold 150,000 label maps: equal parts are one object (and in
    the typed reader, the requests of pods of one template too)."""
    document = cluster_snapshot([api_node("a")], [web_pod(f"web-{i}", "a") for i in range(50)])
    readers: tuple[Callable[[], Snapshot], ...] = (
        lambda: build_snapshot(document, "snap.json"),
        lambda: read_snapshot(io.BytesIO(json.dumps(document).encode()), "s", lambda n: None),
    )
    for reader in readers:
        pods = reader().pods
        assert len(pods) == 50
        for part in ("labels", "owners", "affinity_terms", "anti_affinity_terms"):
            assert len({id(getattr(p, part)) for p in pods}) == 1, part


def _damaged(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    document = cluster()
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        pytest.param(
            ("pods", 0, "metadata", "labels", "app"),
            7,
            "pods[0] (Pod \"payments/web-1\"): metadata.labels.app: 7 is not of type 'string'",
            id="a label value that is not a string",
        ),
        pytest.param(
            ("pods", 6, "metadata", "labels"),
            ["app"],
            "pods[6] (Pod \"batch/job-1\"): metadata.labels: ['app'] is not of type 'object', "
            "'null'",
            id="labels that are a list, on a pod that no filter would match",
        ),
        pytest.param(
            ("pods", 1, "metadata", "ownerReferences", 0, "kind"),
            1,
            'pods[1] (Pod "payments/web-2"): metadata.ownerReferences[0].kind: 1 is not of type '
            "'string'",
            id="an owner kind that is a number",
        ),
        pytest.param(
            ("pods", 2, "metadata", "deletionTimestamp"),
            True,
            'pods[2] (Pod "payments/web-3"): metadata.deletionTimestamp: True is not of type '
            "'string', 'null'",
            id="a deletion timestamp that is a boolean",
        ),
        pytest.param(
            ("pods", 0, "spec", "affinity", "podAntiAffinity", REQUIRED, 0, "topologyKey"),
            5,
            'pods[0] (Pod "payments/web-1"): spec.affinity.podAntiAffinity.'
            f"{REQUIRED}[0].topologyKey: 5 is not of type 'string'",
            id="a topology key that is a number",
        ),
        pytest.param(
            ("pods", 4, "spec", "affinity", "podAffinity", REQUIRED, 0, "namespaceSelector"),
            "payments",
            'pods[4] (Pod "payments/web-5"): spec.affinity.podAffinity.'
            f"{REQUIRED}[0].namespaceSelector: 'payments' is not of type 'object', 'null'",
            id="a namespace selector that is a string, on a pod that has finished",
        ),
        pytest.param(
            ("pods", 0, "spec", "affinity", "podAffinity", REQUIRED),
            {"topologyKey": "zone"},
            'pods[0] (Pod "payments/web-1"): spec.affinity.podAffinity.'
            f"{REQUIRED}: {{'topologyKey': 'zone'}} is not of type 'array', 'null'",
            id="required terms that are one object",
        ),
        pytest.param(
            ("namespaces", 0, "metadata", "labels", "team"),
            None,
            'namespaces[0] (Namespace "payments"): metadata.labels.team: None is not of type '
            "'string'",
            id="a namespace label that is null",
        ),
        pytest.param(
            ("namespaces", 1, "metadata", "name"),
            "",
            "namespaces[1] (Namespace \"\"): metadata.name: '' should be non-empty",
            id="a namespace without a name",
        ),
        pytest.param(
            ("namespaces",),
            {},
            "snapshot: namespaces: {} is not of type 'array'",
            id="namespaces that are not a list",
        ),
    ],
)
@pytest.mark.parametrize("kubectl", [False, True], ids=["recording", "List"])
def test_a_field_of_the_wrong_type_is_one_line_naming_object_and_field(
    tmp_path: Path, path: tuple[Any, ...], value: Any, message: str, kubectl: bool
) -> None:
    document = _damaged(path, value)
    if kubectl and path == ("namespaces",):
        pytest.skip("a List has no namespaces member")
    path_ = tmp_path / "snap.json"
    path_.write_text(json.dumps(as_list(document) if kubectl else document))
    with pytest.raises(SnapshotError) as raised:
        load_snapshot(str(path_))
    assert str(raised.value) == f"{path_}: {message}"
