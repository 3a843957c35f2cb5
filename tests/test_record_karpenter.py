"""``fitgate snapshot --autoscaling`` records Karpenter's objects read-only, list only,
keeping only what gate/snapshot/karpenter.py reads (gate/live/autoscaled.py), through the
real kubernetes client against tests/apiserver.py; shapes from kubernetes-sigs/karpenter
v1.8.3 pkg/apis/v1/nodepool.go and nodeclaim.go, aws/karpenter-provider-aws
pkg/apis/v1/ec2nodeclass.go, Azure/karpenter-provider-azure pkg/apis/v1beta1/aksnodeclass.go."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.snapshot.load import load_snapshot, snapshot_of_document
from tests.apiserver import (
    AKS_NODE_CLASSES,
    AUTOSCALING_READER,
    CONFIG_MAPS,
    DAEMON_SETS,
    DEPLOYMENTS,
    EC2_NODE_CLASSES,
    KARPENTER_PATHS,
    KARPENTER_READER,
    MACHINE_DEPLOYMENTS,
    NODE_CLAIMS,
    NODE_POOLS,
    ApiState,
)
from tests.autoscaling_objects import daemonset
from tests.conftest import ROOT
from tests.karpenter_objects import (
    aks_node_class,
    ec2_node_class,
    node_claim,
    node_pool,
    requirement,
)
from tests.live import aks_document, live_cluster, run, serve_snapshot

NOW = datetime(2026, 8, 16, 10, 1, 0, tzinfo=timezone.utc)
SECRET = "s3cr3t-k4rp"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _objects() -> dict[str, list[dict[str, Any]]]:
    pool = node_pool(
        "default",
        requirement("kubernetes.io/arch", "In", "amd64", "arm64", min_values=2),
        requirement("karpenter.sh/capacity-type", "In", "on-demand", "spot"),
        weight=10,
        limits={"cpu": "1000", "memory": "4000Gi"},
        taints=[{"key": "team", "value": "web", "effect": "NoSchedule"}],
    )
    pool["metadata"]["annotations"]["note"] = SECRET
    gpu = node_pool(
        "gpu",
        requirement("karpenter.k8s.aws/instance-gpu-count", "Gt", "0"),
        ready={"Ready": "False", "ValidationSucceeded": "True", "NodeClassReady": "True"},
    )
    claim = node_claim(
        "default-abc12",
        "default",
        "aks-user-12345678-vmss000000",
        capacity={"cpu": "4", "memory": "16Gi", "pods": "110"},
        allocatable={"cpu": "3900m", "memory": "15Gi", "pods": "110"},
    )
    claim["status"]["providerID"] = f"aws:///us-east-1a/i-{SECRET}"
    ec2 = ec2_node_class(
        maxPods=58,
        kubeReserved={"cpu": "80m"},
        evictionHard={"memory.available": "5%"},
        evictionSoft={"memory.available": "500Mi"},
    )
    ec2["spec"]["userData"] = SECRET
    ec2["spec"]["blockDeviceMappings"] = [
        {
            "deviceName": "/dev/xvda",
            "rootVolume": True,
            "ebs": {"volumeSize": "100Gi", "kmsKeyID": SECRET},
        }
    ]
    aks = aks_node_class(max_pods=30)
    aks["spec"] |= {"security": {"encryptionAtHost": True}, "gpu": {"mode": "None"}}
    ec2["status"]["subnets"] = [
        {"id": f"subnet-{SECRET}", "zone": "us-east-1a", "zoneID": "use1-az1"},
        {"id": "subnet-0b2", "zone": "us-east-1b"},
    ]
    return {
        NODE_POOLS: [pool, gpu],
        NODE_CLAIMS: [claim, node_claim("default-xyz98", "default")],
        EC2_NODE_CLASSES: [ec2],
        AKS_NODE_CLASSES: [aks],
    }


def _state(permissions: frozenset[tuple[str, str, str, str]] = KARPENTER_READER) -> ApiState:
    state = serve_snapshot(ApiState(), aks_document())
    state.permissions = permissions
    state.serve(CONFIG_MAPS, [])
    state.serve(DAEMON_SETS, [daemonset("kube-proxy")])
    state.serve(DEPLOYMENTS, [])
    state.missing.add(MACHINE_DEPLOYMENTS)
    for path, objects in _objects().items():
        state.serve(path, objects)
    return state


def test_karpenter_s_objects_are_recorded_and_read_back_alike(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, _state()) as live:
        code, _, err = run(["snapshot", "--autoscaling", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text
    replayed = load_snapshot(str(path)).autoscaling
    objects = [o for items in _objects().values() for o in items]
    listed = snapshot_of_document(
        {"apiVersion": "v1", "kind": "List", "items": [*aks_document()["nodes"], *objects]}, "l"
    ).autoscaling
    assert replayed is not None and listed is not None
    assert replayed.karpenter == listed.karpenter
    assert replayed.karpenter is not None
    assert [p.name for p in replayed.karpenter.pools] == ["default", "gpu"]
    assert replayed.karpenter.pools[1].not_ready == "Ready is False"
    ec2, aks = replayed.karpenter.node_classes
    assert ec2.zone_ids == {"us-east-1a": "use1-az1"}
    assert ec2.eviction_soft == {"memory.available": 500 * 2**20}
    assert ec2.root_volume == 100 * 2**30
    assert (aks.image_family, aks.os_disk_gb) == ("AzureLinux", 128)
    assert (aks.encryption_at_host, aks.gpu_driver) == (True, False)
    assert [d.name for d in replayed.daemon_sets] == ["kube-proxy"]
    document = json.loads(text)
    assert list(document)[-4:] == ["nodePools", "nodeClaims", "ec2NodeClasses", "aksNodeClasses"]
    assert document["nodeClaims"][1] == {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {"name": "default-xyz98", "labels": {"karpenter.sh/nodepool": "default"}},
        "spec": {},
        "status": {},
    }


def test_a_cluster_without_karpenter_answers_404_read_as_none(tmp_path: Path) -> None:
    state = _state()
    state.missing.update(KARPENTER_PATHS)
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "--autoscaling", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    document = json.loads(path.read_text(encoding="utf-8"))
    assert [document[k] for k in ("nodePools", "nodeClaims", "ec2NodeClasses")] == [[], [], []]
    snapshot = load_snapshot(str(path))
    assert snapshot.autoscaling is not None and snapshot.autoscaling.karpenter is None


def test_credentials_without_karpenter_s_grants_record_without_it(tmp_path: Path) -> None:
    """An API server answers 403, not 404, for a resource it does not serve to an identity
    granted nothing on it: the lists are not asked for, and said so."""
    state = _state(permissions=AUTOSCALING_READER)
    path = tmp_path / "snapshot.json"
    with live_cluster(tmp_path, state) as live:
        code, _, err = run(["snapshot", "--autoscaling", "-o", str(path)], live.env, NOW)
    assert code == 0, err
    assert "may not list nodepools.karpenter.sh: nodepools not recorded" in err
    asked = {p for _, p in state.seen()}
    assert not asked & set(KARPENTER_PATHS)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert "nodePools" not in document and "daemonSets" in document


def test_nothing_of_karpenter_is_asked_without_the_flag(tmp_path: Path) -> None:
    state = _state()
    with live_cluster(tmp_path, state) as live:
        assert run(["snapshot", "-o", str(tmp_path / "s.json")], live.env, NOW)[0] == 0
    assert not {p for _, p in state.seen()} & set(KARPENTER_PATHS)
    assert {m for m, _ in state.seen()} <= {"GET", "POST"}
