"""``fitgate snapshot --autoscaling``: the cluster-autoscaler's objects recorded read-only,
list only, keeping only what gate/snapshot/autoscaling.py reads (gate/live/autoscaled.py);
shapes from cluster-autoscaler-1.34.5 (clusterstate/api/types.go, config/flags/flags.go,
cloudprovider/clusterapi/README.md)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.live.autoscaled import Deployment, MachineDeployment, StatusConfigMap
from gate.live.recorder import recorded
from gate.model.autoscaling import AutoscalerStatus, Flags, Limits, StatusGroup
from gate.snapshot.load import load_snapshot
from tests.apiserver import (
    AUTOSCALING_READER,
    CONFIG_MAPS,
    DAEMON_SETS,
    DEPLOYMENTS,
    MACHINE_DEPLOYMENTS,
    ApiState,
)
from tests.autoscaling_objects import (
    autoscaler_deployment,
    daemonset,
    machine_deployment,
    status_configmap,
    status_group,
)
from tests.conftest import ROOT
from tests.live import aks_document, live_cluster, run, serve_snapshot

NOW = datetime(2026, 8, 16, 10, 1, 0, tzinfo=timezone.utc)
SECRET = "s3cr3t-77aa"
GROUP = "aks-user-12345678-vmss"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _other_configmap() -> dict[str, Any]:
    return {
        "kind": "ConfigMap",
        "metadata": {"namespace": "kube-system", "name": "coredns", "annotations": {"a": SECRET}},
        "data": {"Corefile": SECRET},
    }


def _state(
    permissions: frozenset[tuple[str, str, str, str]] = AUTOSCALING_READER,
    document: dict[str, Any] | None = None,
) -> ApiState:
    state = serve_snapshot(ApiState(), document or aks_document())
    state.permissions = permissions
    status = status_configmap(status_group(GROUP, target=3, min_size=1, max_size=10))
    status["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = SECRET
    state.serve(CONFIG_MAPS, [status, _other_configmap()])
    proxy = daemonset("kube-proxy")
    proxy["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "K", "value": SECRET}]
    state.serve(DAEMON_SETS, [proxy])
    other = autoscaler_deployment(f"--token={SECRET}", image="coredns")
    other["spec"]["template"]["spec"]["containers"][0]["command"] = ["coredns"]
    other["metadata"]["name"] = "coredns"
    state.serve(DEPLOYMENTS, [autoscaler_deployment("--max-nodes-total=20"), other])
    state.missing.add(MACHINE_DEPLOYMENTS)  # Cluster API is not installed
    return state


def test_the_autoscaler_objects_are_recorded_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, _state()) as live:
        code, _, err = run(["snapshot", "--autoscaling", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text
    document = json.loads(text)
    assert document["machineDeployments"] == []
    assert document["deployments"][1] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "coredns", "namespace": "kube-system"},
        "spec": {"template": {"spec": {}}},
    }
    state = load_snapshot(str(path)).autoscaling
    assert state is not None
    assert state.status == AutoscalerStatus(
        (StatusGroup(GROUP, "Healthy", 3, 1, 10, ready=3, scale_up="NoActivity"),),
        "yaml",
        "Running",
        datetime(2026, 8, 16, 10, 0, tzinfo=timezone.utc),
    )
    assert state.flags == Flags(
        limits=Limits(max_nodes_total=20),
        deployment='Deployment "kube-system/cluster-autoscaler"',
        expander=("least-waste",),
    )
    assert [(d.name, d.requests) for d in state.daemon_sets] == [
        ("kube-proxy", {"cpu": 100, "memory": 64 * 2**20})
    ]


SUBSCRIPTION = "0b1f6471-1bf0-4dda-aec3-cb9272f09590"
RESOURCE_GROUP = "MC_rg-prod_aks-prod_westeurope"


def test_a_node_s_provider_id_is_recorded_as_its_scale_set_only(tmp_path: Path) -> None:
    """The providerID names the subscription and the resource group: neither is written,
    only the scale set's name, which matches the node to its group without pool labels."""
    document = aks_document()
    node = document["nodes"][0]
    node["metadata"]["labels"] = {"kubernetes.io/hostname": node["metadata"]["name"]}
    node.setdefault("spec", {})["providerID"] = (
        f"azure:///subscriptions/{SUBSCRIPTION}/resourceGroups/{RESOURCE_GROUP}/providers/"
        f"Microsoft.Compute/virtualMachineScaleSets/{GROUP}/virtualMachines/3"
    )
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, _state(document=document)) as live:
        code, _, err = run(["snapshot", "--autoscaling", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert SUBSCRIPTION not in text
    assert RESOURCE_GROUP not in text
    assert "providerID" not in text
    recorded_node = json.loads(text)["nodes"][0]
    assert recorded_node["scaleSet"] == GROUP
    snapshot = load_snapshot(str(path))
    assert snapshot.nodes[0].scale_set == GROUP


def test_without_the_flag_nothing_of_the_autoscaler_is_asked_or_written(tmp_path: Path) -> None:
    state = _state()
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        assert run(["snapshot", "-o", str(path)], live.env, NOW)[0] == 0
    asked = {p for _, p in state.seen()}
    assert not asked & {CONFIG_MAPS, DAEMON_SETS, DEPLOYMENTS, MACHINE_DEPLOYMENTS}
    assert "configMaps" not in json.loads(path.read_text(encoding="utf-8"))


def test_missing_list_permissions_are_named_before_anything_is_read(tmp_path: Path) -> None:
    state = _state(permissions=AUTOSCALING_READER - {("list", "apps", "daemonsets", "")})
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "--autoscaling", "-o", str(tmp_path / "s")], live.env, NOW)
    assert code == 2
    assert "may not list daemonsets.apps" in err
    assert not (tmp_path / "s").exists()


def test_a_server_ignoring_the_selector_leaks_no_other_configmap() -> None:
    assert recorded(StatusConfigMap, _other_configmap()) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "coredns", "namespace": "kube-system"},
    }


def test_only_the_autoscaler_container_of_a_deployment_is_kept() -> None:
    other = autoscaler_deployment(f"--token={SECRET}", image="coredns")
    other["spec"]["template"]["spec"]["containers"][0]["command"] = ["coredns"]
    assert SECRET not in json.dumps(recorded(Deployment, other))


def test_a_machine_deployment_keeps_only_the_autoscaler_s_annotations() -> None:
    md = machine_deployment(
        "w",
        2,
        **{
            "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "5",
            "capacity.cluster-autoscaler.kubernetes.io/cpu": "8",
            "note": SECRET,
        },
    )
    assert recorded(MachineDeployment, md)["metadata"]["annotations"] == {
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "5",
        "capacity.cluster-autoscaler.kubernetes.io/cpu": "8",
    }
