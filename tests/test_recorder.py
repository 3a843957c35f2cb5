"""The recorder: only the fields the checks read reach the file, the file appears whole or not
at all, and replaying it gives the live run's verdicts."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.live.objects import Pod
from gate.live.recorder import SECTIONS, Recording, file_line, recorded, render_snapshot
from gate.model import HostPort, PreferringPod
from gate.snapshot.load import load_snapshot
from tests.apiserver import LIMIT_RANGES, NAMESPACES, NODES, PODS, RUNTIME_CLASSES, ApiState
from tests.cluster_objects import STAMP, realistic_namespace, realistic_node, realistic_pod
from tests.conftest import ROOT
from tests.live import AKS, aks_document, live_cluster, run, serve_snapshot

SECRET = "s3cr3t-9f2c41"
ZONE = "topology.kubernetes.io/zone"
NOW = datetime(2026, 8, 16, 12, 0, 0, 123456, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _hidden(kind: str, **fields: Any) -> dict[str, Any]:
    """An object with the secret in the metadata every object can carry."""
    metadata = {
        "name": f"{kind}-1",
        "annotations": {"kubectl.kubernetes.io/last-applied-configuration": SECRET},
        "labels": {"owner": SECRET},
        "managedFields": [{"manager": SECRET, "fieldsV1": {f"f:{SECRET}": {}}}],
        "uid": SECRET,
    }
    return {"metadata": metadata, **fields}


def _limit_range() -> dict[str, Any]:
    limit_range = _hidden(
        "defaults",
        spec={
            "limits": [
                {
                    "type": "Container",
                    "default": {"cpu": "500m"},
                    "defaultRequest": {"cpu": "100m"},
                    "maxLimitRequestRatio": {"cpu": "10"},
                }
            ]
        },
    )
    limit_range["metadata"]["namespace"] = "team-01"
    return limit_range


def _runtime_class() -> dict[str, Any]:
    return _hidden(
        "kata",
        handler="kata",
        overhead={"podFixed": {"cpu": "250m", "memory": "120Mi"}},
        scheduling={
            "nodeSelector": {"sandbox": "true"},
            "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}],
        },
    )


def test_the_recording_leaks_nothing_and_keeps_what_the_checks_read(tmp_path: Path) -> None:
    state = ApiState()
    state.serve(NODES, [realistic_node(0, SECRET, system=True), realistic_node(1, SECRET)])
    state.serve(PODS, [realistic_pod(i, "aks-user-000001", SECRET) for i in range(3)])
    state.serve(NAMESPACES, [realistic_namespace("team-00", SECRET)])
    state.serve(LIMIT_RANGES, [_limit_range()])
    state.serve(RUNTIME_CLASSES, [_runtime_class()])
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state, context="aks-prod") as live:
        code, out, _ = run(["snapshot", "-o", str(path)], live.env, NOW)
    assert code == 0
    assert out == f"recorded 2 nodes and 3 pods of context aks-prod ({live.url}) to {path}\n"
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text
    document = json.loads(text)
    assert {k: document[k] for k in ("apiVersion", "kind", "capturedAt", "source")} == {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "capturedAt": "2026-08-16T12:00:00Z",
        "source": {"context": "aks-prod", "server": live.url, "serverVersion": "v1.33.4"},
    }
    assert document["nodes"][0] == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "aks-system-000000",
            "labels": {
                "kubernetes.io/hostname": "aks-system-000000",
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "Standard_D8s_v5",
                "topology.kubernetes.io/zone": "westeurope-1",
                "agentpool": "system",
            },
        },
        "spec": {
            "taints": [{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}]
        },
        "status": {
            "allocatable": {"cpu": "7820m", "memory": "28892272Ki", "pods": "110"},
            "capacity": {"cpu": "8", "memory": "32864896Ki", "pods": "110"},
        },
    }
    assert document["pods"][0] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-0000000",
            "namespace": "team-00",
            "labels": {"app": "web", "pod-template-hash": "6d4cf56db6", "team": "payments"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "web-6d4cf56db6"}],
        },
        "spec": {
            "nodeName": "aks-user-000001",
            "affinity": {
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 10,
                            "podAffinityTerm": {
                                "topologyKey": "topology.kubernetes.io/zone",
                                "labelSelector": {"matchLabels": {"app": "cache"}},
                            },
                        }
                    ]
                },
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "topologyKey": "kubernetes.io/hostname",
                            "matchLabelKeys": ["pod-template-hash"],
                            "labelSelector": {
                                "matchLabels": {"app": "web"},
                                "matchExpressions": [
                                    {"key": "tier", "operator": "NotIn", "values": ["batch"]}
                                ],
                            },
                        }
                    ],
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 50,
                            "podAffinityTerm": {
                                "topologyKey": "topology.kubernetes.io/zone",
                                "labelSelector": {"matchLabels": {"app": "web"}},
                            },
                        }
                    ],
                },
            },
            "containers": [
                {
                    "name": "app",
                    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}},
                },
                {
                    "name": "metrics",
                    "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}},
                },
            ],
            "initContainers": [
                {
                    "name": "mesh-proxy",
                    "restartPolicy": "Always",
                    "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
                }
            ],
        },
        "status": {"phase": "Running"},
    }
    assert document["namespaces"] == [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": "team-00",
                "labels": {"kubernetes.io/metadata.name": "team-00", "team": "payments"},
            },
        }
    ]
    assert document["limitRanges"] == [
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "defaults-1", "namespace": "team-01"},
            "spec": {
                "limits": [
                    {
                        "type": "Container",
                        "default": {"cpu": "500m"},
                        "defaultRequest": {"cpu": "100m"},
                        "maxLimitRequestRatio": {"cpu": "10"},
                    }
                ]
            },
        }
    ]
    assert document["runtimeClasses"] == [
        {
            "apiVersion": "node.k8s.io/v1",
            "kind": "RuntimeClass",
            "metadata": {"name": "kata-1"},
            "handler": "kata",
            "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
            "scheduling": {
                "nodeSelector": {"sandbox": "true"},
                "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}],
            },
        }
    ]
    assert STAMP not in text  # no timestamps of the objects either


def test_a_host_network_pod_keeps_its_host_ports_only(tmp_path: Path) -> None:
    pod = realistic_pod(0, "aks-user-000001")
    pod["spec"]["hostNetwork"] = True
    host_port = {"containerPort": 9100, "hostPort": 9100, "hostIP": "10.0.0.4", "protocol": "UDP"}
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 8080, "name": "http"}, host_port]
    state = ApiState()
    state.serve(NODES, [realistic_node(1)])
    state.serve(PODS, [pod])
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        assert run(["snapshot", "-o", str(path)], live.env)[0] == 0
    spec = json.loads(path.read_text(encoding="utf-8"))["pods"][0]["spec"]
    assert spec["hostNetwork"] is True
    assert spec["containers"][0]["ports"] == [host_port]  # ports without a host port: unused
    used = load_snapshot(str(path)).nodes[0].used_ports
    assert used == frozenset({HostPort(ip="10.0.0.4", protocol="UDP", port=9100)})


def _reports(tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    recorded = tmp_path / "recorded.json"
    state = serve_snapshot(ApiState(), aks_document())
    with live_cluster(tmp_path, state, context="aks-prod") as live:
        code, out, _ = run(["check", "fixtures/manifests", "--json", "-"], live.env, NOW)
        assert code == 1
        assert run(["snapshot", "-o", str(recorded)], live.env, NOW)[0] == 0
    replayed = run(["check", "fixtures/manifests", "--snapshot", str(recorded), "--json", "-"], {})
    fixture = run(["check", "fixtures/manifests", "--snapshot", str(AKS), "--json", "-"], {})
    assert replayed[0] == fixture[0] == 1
    return json.loads(out), json.loads(replayed[1]), json.loads(fixture[1])


def test_live_and_replayed_verdicts_are_equal(tmp_path: Path) -> None:
    live, replayed, fixture = _reports(tmp_path)
    assert live["workloads"] == replayed["workloads"] == fixture["workloads"]
    assert {v for w in live["workloads"] for v in [w["verdict"]]} == {
        "YES",
        "NO",
        "ADDON_ONLY",
        "PARTIAL",
        "ERROR",
        "SKIPPED",
    }
    assert live["snapshot"]["context"] == replayed["snapshot"]["context"] == "aks-prod"
    assert live["snapshot"]["server"] == replayed["snapshot"]["server"]
    assert live["snapshot"]["server"].startswith("http://127.0.0.1:")
    assert live["snapshot"]["serverVersion"] == "v1.33.4"
    assert live["snapshot"]["capturedAt"] == replayed["snapshot"]["capturedAt"]
    assert (live["snapshot"]["nodes"], live["snapshot"]["pods"]) == (
        fixture["snapshot"]["nodes"],
        fixture["snapshot"]["pods"],
    )


def test_a_failed_read_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out" / "snapshot.json"
    path.parent.mkdir()
    path.write_text("previous snapshot\n", encoding="utf-8")
    state = ApiState()
    state.faults[PODS] = [403]  # nodes are read, then the pods list fails
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "-o", str(path)], live.env)
    assert code == 2 and "listing pods: forbidden (403)" in err
    assert path.read_text(encoding="utf-8") == "previous snapshot\n"
    assert os.listdir(path.parent) == ["snapshot.json"]


def test_an_unwritable_destination_fails_before_reading(tmp_path: Path) -> None:
    with live_cluster(tmp_path) as live:
        code, _, err = run(["snapshot", "-o", str(tmp_path / "no" / "s.json")], live.env)
    assert code == 2
    assert err == f"fitgate: {tmp_path / 'no' / 's.json'}: cannot write the snapshot: " + (
        "No such file or directory\n"
    )
    assert live.state.requests == []


def test_the_written_file_is_complete_shareable_and_loads(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, serve_snapshot(ApiState(), aks_document())) as live:
        assert run(["snapshot", "-o", str(path)], live.env, NOW)[0] == 0
    assert sorted(os.listdir(tmp_path)) == ["kubeconfig", "snapshot.json"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    info = load_snapshot(str(path)).info
    assert (info.context, info.captured_at, info.server_version) == (
        "test",
        "2026-08-16T12:00:00Z",
        "v1.33.4",
    )


def _recording(**sections: list[Any]) -> Recording:
    arrays = {key: [msgspec.json.encode(o) for o in sections.get(key, [])] for key in SECTIONS}
    return Recording("2026-08-16T12:00:00Z", "test", "https://k8s", "v1.33.4", arrays)


@pytest.mark.parametrize(
    "sections",
    [
        {"nodes": [], "pods": []},
        {"nodes": [{"a": 1}], "pods": [], "limitRanges": [{"b": [1, 2]}, {"c": None}]},
        {"nodes": [{"a": "é"}], "pods": [{"x": 1}, {"y": 2}], "runtimeClasses": []},
    ],
    ids=["empty sections", "one item and two items", "non-ASCII text"],
)
def test_one_object_per_line_is_valid_json(sections: dict[str, list[Any]]) -> None:
    recording = _recording(**sections)
    text = "".join(render_snapshot(recording))
    document = json.loads(text)
    assert document == msgspec.json.decode(recording.document())
    assert document == {
        **recording.head(),
        **{key: sections.get(key, []) for key in SECTIONS},
    }
    item_lines = [line.strip().rstrip(",") for line in text.splitlines() if line[:5] == "    {"]
    assert [json.loads(line) for line in item_lines] == [
        item for key in SECTIONS for item in sections.get(key, [])
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(JSON)
def test_a_line_is_what_json_dumps_writes(value: Any) -> None:
    """The file keeps the bytes fitgate has always written: json.dumps's spacing and
    escapes, ASCII only (floats aside, which no recorded field holds)."""
    assert file_line(msgspec.json.encode(value)) == json.dumps(value)


def test_the_recording_keeps_what_the_inter_pod_filters_read(tmp_path: Path) -> None:
    """Labels, owners, deletion and the required and preferred terms of each pod, and the
    namespaces' labels, load from the recording as the live read saw them."""
    deleting = realistic_pod(1, "aks-user-000001", SECRET)
    deleting["metadata"]["deletionTimestamp"] = STAMP
    state = ApiState()
    state.serve(NODES, [realistic_node(1, SECRET)])
    state.serve(PODS, [realistic_pod(0, "aks-user-000001", SECRET), deleting])
    state.serve(NAMESPACES, [realistic_namespace(f"team-0{i}", SECRET) for i in range(2)])
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        assert run(["snapshot", "-o", str(path)], live.env, NOW)[0] == 0
    snapshot = load_snapshot(str(path))
    apart = {
        "labelSelector": {
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["batch"]}],
        },
        "topologyKey": "kubernetes.io/hostname",
        "matchLabelKeys": ["pod-template-hash"],
    }
    cache, web = {"matchLabels": {"app": "cache"}}, {"matchLabels": {"app": "web"}}
    assert snapshot.pods == tuple(
        PreferringPod(
            namespace=f"team-0{i}",
            name=f"web-000000{i}",
            node="aks-user-000001",
            labels={"app": "web", "pod-template-hash": "6d4cf56db6", "team": "payments"},
            owners=(("ReplicaSet", "web-6d4cf56db6"),),
            terminating=i == 1,
            anti_affinity_terms=(apart,),
            preferred_affinity_terms=((10, {"labelSelector": cache, "topologyKey": ZONE}),),
            preferred_anti_affinity_terms=((50, {"labelSelector": web, "topologyKey": ZONE}),),
            requests={"cpu": 250 + 10 + 50, "memory": (256 + 32 + 64) * 2**20},
        )
        for i in range(2)
    )
    assert snapshot.namespaces == {
        f"team-0{i}": {"kubernetes.io/metadata.name": f"team-0{i}", "team": "payments"}
        for i in range(2)
    }
    assert SECRET not in path.read_text(encoding="utf-8")


def test_a_cluster_without_namespaces_served_records_an_empty_list(tmp_path: Path) -> None:
    """A live read always lists namespaces: its recording says which exist, even none."""
    state = ApiState()
    state.serve(NODES, [realistic_node(1)])
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        assert run(["snapshot", "-o", str(path)], live.env, NOW)[0] == 0
    assert json.loads(path.read_text(encoding="utf-8"))["namespaces"] == []
    assert load_snapshot(str(path)).namespaces == {}


def test_a_recording_to_dash_goes_to_standard_output_and_no_file_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    state = serve_snapshot(ApiState(), aks_document())
    with live_cluster(tmp_path, state, context="aks-prod") as live:
        code, out, _ = run(["snapshot", "-o", "-"], live.env, NOW)
        assert run(["snapshot", "-o", "file.json"], live.env, NOW)[0] == 0
    assert code == 0 and not (tmp_path / "-").exists()
    assert out == (tmp_path / "file.json").read_text(encoding="utf-8")


def test_a_port_is_recorded_only_when_it_claims_a_host_port() -> None:
    """k8s/ports.py's rule, as every reader applies it: a positive hostPort."""
    ports = [{"containerPort": 80 + n, "hostPort": port} for n, port in enumerate((-1, 0, 8082))]
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "ports": ports}]}}
    kept = recorded(Pod, pod)["spec"]["containers"][0]["ports"]
    assert kept == [{"containerPort": 82, "hostPort": 8082}]


def test_a_recording_reads_as_the_kubectl_list_of_the_same_pods(tmp_path: Path) -> None:
    """What the score reads of a pod already placed (its preferred terms too) is the same
    whether the pod was recorded or listed by kubectl."""
    node, pods = realistic_node(1, SECRET), [realistic_pod(i, "aks-user-000001") for i in range(2)]
    state = ApiState()
    state.serve(NODES, [node])
    state.serve(PODS, pods)
    recording = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        assert run(["snapshot", "-o", str(recording)], live.env, NOW)[0] == 0
    listed = tmp_path / "list.json"
    lists = [("NodeList", [node]), ("PodList", pods)]
    items = [{"kind": kind, "apiVersion": "v1", "items": objects} for kind, objects in lists]
    listed.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": items}))
    read = load_snapshot(str(recording)).pods
    assert read == load_snapshot(str(listed)).pods
    assert [(p.preferred_affinity_terms, p.preferred_anti_affinity_terms) for p in read] == [
        (
            ((10, {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": ZONE}),),
            ((50, {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ZONE}),),
        )
    ] * 2
