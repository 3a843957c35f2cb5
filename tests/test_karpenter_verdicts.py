"""``fitgate check`` end to end on the recorded EKS cluster that grows through Karpenter
(fixtures/snapshots/eks-karpenter.json: NodePools ``default``, weight 10, cpu limit 64, and
``gpu``, tainted) with the catalog fixtures/catalogs/instance-types.json and the manifests
of fixtures/karpenter: SCALES with the NodePool and its instance types, NO with each
NodePool's refusal in Karpenter's words (sigs.k8s.io/karpenter v1.8.3
pkg/controllers/provisioning/scheduling/scheduler.go ``addToNewNodeClaim``, nodeclaim.go
``InstanceTypeFilterError``, events.go), PARTIAL once the pool's limits run out, the catalog
taken from the running nodes when none is given, a cluster with both cluster-autoscaler
groups and NodePools, ``--autoscaling off`` and the ``maxNewNodes`` budget."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.scheduler.autoscaling import verdicts
from tests.autoscaling_objects import status_configmap, status_group
from tests.builders import api_node, api_pod, cluster_snapshot, container
from tests.conftest import ROOT
from tests.deadline import deadline
from tests.karpenter_objects import node_pool, requirement
from tests.report_schema import validate_report

SNAPSHOT = "fixtures/snapshots/eks-karpenter.json"
CATALOG = "fixtures/catalogs/instance-types.json"
EC2_CATALOG = (
    "fixtures/catalogs/ec2/describe-instance-types.json",
    "fixtures/catalogs/ec2/describe-instance-type-offerings.json",
)
MANIFESTS = "fixtures/karpenter"
WEB = f"{MANIFESTS}/01-web-scales.yaml"
SOLVER = f"{MANIFESTS}/02-too-big.yaml"
RENDER = f"{MANIFESTS}/03-batch-beyond-limit.yaml"
NOW = datetime(2026, 8, 16, 10, 5, tzinfo=timezone.utc)
LIMITS = "all available instance types exceed limits for nodepool"
TAINT = "did not tolerate taint"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def check(
    *argv: str, snapshot: str = SNAPSHOT, catalog: str | tuple[str, ...] | None = CATALOG
) -> tuple[int, str, dict[str, Any]]:
    """Exit code, text and JSON report of ``check`` over ``argv``."""
    files = (catalog,) if isinstance(catalog, str) else catalog or ()
    given = tuple(arg for path in files for arg in ("--instance-types", path))
    out = io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={}, now=NOW)
    code = main(["check", *argv, *given, "--snapshot", snapshot, "--json", "-"], streams)
    report = json.loads(out.getvalue())
    validate_report(report)
    text = io.StringIO()
    streams = Streams(io.BytesIO(), text, io.StringIO(), env={}, now=NOW)
    assert main(["check", *argv, *given, "--snapshot", snapshot], streams) == code
    return code, text.getvalue(), report


def workload(report: dict[str, Any], name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [w for w in report["workloads"] if w["name"] == name]
    assert len(found) == 1
    return found[0]


def test_a_scale_up_s_instance_types_are_listed_to_a_bound_and_counted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With a bound of 3, the report lists 3 of the 6 types and counts them all; the text
    and a merge of shards say the same as without the bound."""
    _, whole_text, whole = check(RENDER)
    (unbounded,) = workload(whole, "render")["autoscale"]["scaleUp"]
    monkeypatch.setattr(verdicts, "TYPES_LISTED", 3)
    _, text, report = check(RENDER)
    (launch,) = workload(report, "render")["autoscale"]["scaleUp"]
    assert launch["instanceTypes"] == unbounded["instanceTypes"][:3]
    assert launch["instanceTypeCount"] == len(unbounded["instanceTypes"]) == 6
    assert "instanceTypeCount" not in unbounded
    assert text == whole_text
    shard = tmp_path / "s.json"
    argv = ["check", RENDER, "--instance-types", CATALOG, "--snapshot", SNAPSHOT]
    streams = Streams(io.BytesIO(), io.StringIO(), io.StringIO(), env={}, now=NOW)
    main([*argv, "--shard", "1/1", "--json", str(shard)], streams)
    merged = io.StringIO()
    main(
        ["merge", str(shard), "--json", "-"],
        Streams(io.BytesIO(), merged, io.StringIO(), env={}, now=NOW),
    )
    assert json.loads(merged.getvalue())["workloads"] == report["workloads"]


ANTI_AFFINITY = """\
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: {matchLabels: {app: web}}
              topologyKey: kubernetes.io/hostname
"""


@pytest.mark.parametrize(
    ("replicas", "spread", "nodes"),
    [
        pytest.param(2_147_483_647, "", 1000, id="2147483647 replicas on a pool without limits"),
        pytest.param(
            100_000, ANTI_AFFINITY, 1000, id="100000 replicas one per node on a pool without limits"
        ),
    ],
)
def test_a_pool_without_limits_stops_at_a_stated_bound(
    tmp_path: Path, replicas: int, spread: str, nodes: int
) -> None:
    document = json.loads((ROOT / SNAPSHOT).read_text(encoding="utf-8"))
    for pool in document["nodePools"]:
        pool["spec"].pop("limits", None)
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(document), encoding="utf-8")
    manifest = (
        (ROOT / WEB).read_text(encoding="utf-8").replace("replicas: 8", f"replicas: {replicas}")
    )
    manifest = manifest.replace(
        "    spec:\n      containers:", f"    spec:\n{spread}      containers:"
    )
    (tmp_path / "web.yaml").write_text(manifest, encoding="utf-8")
    with deadline(60):
        code, text, report = check(str(tmp_path / "web.yaml"), snapshot=str(snapshot))
    assert code == 1
    web = workload(report, "web")
    assert web["verdict"] == "PARTIAL"
    (launch,) = web["autoscale"]["scaleUp"]
    assert launch["nodes"] == nodes
    blocked = web["autoscale"]["blocked"]
    assert blocked["reasons"] == {"placement stopped at fitgate's bound": 1}
    assert (
        "fitgate stopped placing copies after 1000 new nodes for one workload"
        in (blocked["message"])
    )
    assert ' blocked: nodepool "default": fitgate stopped placing copies' in text


def test_copies_no_node_holds_go_to_the_heaviest_pool_that_fits_them() -> None:
    code, text, report = check(WEB)
    assert code == 0
    web = workload(report, "web")
    assert web["verdict"] == "SCALES"
    assert web["autoscale"]["fitsNow"] == 4
    (launch,) = web["autoscale"]["scaleUp"]
    # the four copies left need 8 cpu and the DaemonSets' 125m: more than an 8-cpu type
    # keeps (7775m), so one 16-cpu node; the 96-cpu type is past the pool's cpu limit
    assert (launch["kind"], launch["group"], launch["nodes"], launch["copies"]) == (
        "NodePool",
        "default",
        1,
        4,
    )
    assert (launch["from"], launch["to"], launch["max"]) == (3, 4, None)
    assert launch["instanceTypes"] == ["c7g.4xlarge", "c7i.4xlarge"]
    assert 'fits after scale-up: NodePool "default" +1 node (c7g.4xlarge, c7i.4xlarge)' in text


def test_a_pod_no_pool_takes_shows_each_pool_s_refusal_in_karpenter_s_words() -> None:
    code, text, report = check(SOLVER)
    assert code == 1
    solver = workload(report, "solver")
    assert solver["verdict"] == "NO"
    assert solver["message"].startswith("0/6 nodes are available: ")
    blocked = solver["autoscale"]["blocked"]
    assert blocked["reasons"] == {"no instance type has enough resources": 1, TAINT: 1}
    assert [(p["pool"], p["reason"]) for p in blocked["nodePools"]] == [
        ("default", "no instance type has enough resources"),
        ("gpu", TAINT),
    ]
    gpu = 'nodepool "gpu": did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)'
    assert gpu in text
    assert 'nodepool "default": no instance type has enough resources, requirements=' in text
    assert 'resources={"cpu":"100125m","memory":"64Gi","pods":"3"}' in text
    event = blocked["message"]
    assert event.startswith("Failed to schedule pod, no instance type has enough resources")
    assert event.endswith("; did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)")


def test_copies_past_the_pool_s_limits_are_blocked_by_them() -> None:
    code, text, report = check(RENDER)
    assert code == 1
    render = workload(report, "render")
    assert render["verdict"] == "PARTIAL"
    autoscale = render["autoscale"]
    (launch,) = autoscale["scaleUp"]
    # 64 cpu less the pool's 24 (three nodes and a claim in flight); each new claim takes
    # the largest capacity among its types (subtractMax): 16, 16, then 8
    assert (autoscale["fitsNow"], launch["nodes"], launch["copies"]) == (2, 3, 12)
    assert autoscale["blocked"]["copies"] == 26
    assert autoscale["blocked"]["reasons"] == {LIMITS: 1, TAINT: 1}
    assert f"{LIMITS} (NodePool=default)" in autoscale["blocked"]["message"]
    assert '14 of 40 pods fit: 2 now, 12 after NodePool "default" +3 nodes' in text


def test_the_run_s_workloads_share_the_pool_s_limits_in_input_order() -> None:
    _, text, report = check(MANIFESTS)
    web, render = workload(report, "web"), workload(report, "render")
    assert web["autoscale"]["scaleUp"][0]["nodes"] == 1
    render_launch = render["autoscale"]["scaleUp"][0]
    # web's node took 16 of the 40 cpu left, and its copies the room render had today
    assert (render["autoscale"]["fitsNow"], render_launch["nodes"]) == (0, 2)
    assert (render_launch["from"], render_launch["to"]) == (4, 6)
    assert report["summary"]["newNodes"] == 3
    assert "3 new node(s) after scale-up" in text


def test_without_a_catalog_the_running_types_are_the_catalog_and_the_report_says_so() -> None:
    _, text, report = check(WEB, catalog=None)
    said = " ".join(report["warnings"])
    assert "no instance-type catalog was given" in text
    assert "no instance-type catalog was given" in said
    assert "types running in the cluster" in said
    launch = workload(report, "web")["autoscale"]["scaleUp"][0]
    running = {"m7i.large", "m7i.xlarge", "m7g.2xlarge", "c7i.2xlarge", "g5.2xlarge"}
    assert launch["instanceTypes"] and set(launch["instanceTypes"]) <= running


def test_a_cluster_of_no_nodes_whose_karpenter_launches_them_is_judged(tmp_path: Path) -> None:
    """An EKS cluster whose Karpenter runs on Fargate has no nodes: provisioner.go
    ``Schedule`` still solves its pending pods with its Ready NodePools."""
    document = json.loads((ROOT / SNAPSHOT).read_text(encoding="utf-8"))
    document["nodes"] = []
    document["pods"] = [p for p in document["pods"] if not p["spec"].get("nodeName")]
    path = tmp_path / "fargate.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, _, report = check(WEB, snapshot=str(path))
    web = workload(report, "web")
    assert (code, web["verdict"]) == (0, "SCALES")
    assert web["autoscale"]["fitsNow"] == 0
    assert [s["group"] for s in web["autoscale"]["scaleUp"]] == ["default"]


def test_copies_fitting_only_on_addon_nodes_keep_karpenter_s_answer_for_the_rest(
    tmp_path: Path,
) -> None:
    """The copies no node but a CriticalAddonsOnly one takes are ADDON_ONLY; the rest are
    Karpenter's (it sees pending pods, whatever fits elsewhere): its launches and its
    refusal are reported, and ADDON_ONLY, the worse verdict, stays."""
    document = json.loads((ROOT / SNAPSHOT).read_text(encoding="utf-8"))
    for node in document["nodes"]:
        if not node["spec"].get("taints"):
            node["spec"]["taints"] = [
                {"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}
            ]
    path = tmp_path / "addons.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    manifest = tmp_path / "agent.yaml"
    manifest.write_text(
        json.dumps(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "agent", "namespace": "shop"},
                "spec": {
                    "replicas": 40,
                    "selector": {"matchLabels": {"app": "agent"}},
                    "template": {
                        "metadata": {"labels": {"app": "agent"}},
                        "spec": {
                            "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}],
                            "nodeSelector": {"kubernetes.io/arch": "amd64"},
                            "containers": [
                                container(requests={"cpu": "3", "memory": "1Gi"}, image="x")
                            ],
                        },
                    },
                },
            }
        ),
        encoding="utf-8",
    )
    code, text, report = check(str(manifest), snapshot=str(path))
    agent = workload(report, "agent")
    assert (code, agent["verdict"]) == (1, "ADDON_ONLY")
    autoscale = agent["autoscale"]
    assert (autoscale["fitsNow"], autoscale["blocked"]["copies"]) == (2, 26)
    assert [s["group"] for s in autoscale["scaleUp"]] == ["default"]
    assert LIMITS in autoscale["blocked"]["reasons"]
    assert '26 blocked: nodepool "default": ' + LIMITS in text


def test_autoscaling_off_judges_today_s_nodes_only() -> None:
    code, _, report = check(WEB, "--autoscaling", "off")
    web = workload(report, "web")
    assert (code, web["verdict"]) == (1, "PARTIAL")
    assert "autoscale" not in web


def test_the_budget_of_new_nodes_counts_the_pools_nodes(tmp_path: Path) -> None:
    config = tmp_path / "fitgate.yaml"
    config.write_text("autoscaling:\n  maxNewNodes: 0\n", encoding="utf-8")
    code, text, report = check(WEB, "--config", str(config))
    assert (code, report["summary"]["newNodes"]) == (1, 1)
    assert "budget 0 (autoscaling.maxNewNodes) exceeded" in text


def _mixed_snapshot(tmp_path: Path) -> str:
    """Two full AKS-style nodes of a CA group at 2 of max 3, and a Karpenter pool."""
    pool = "kubernetes.azure.com/agentpool"
    nodes = [
        api_node(f"aks-web-{i}", cpu="4", labels={pool: "web", "kubernetes.io/hostname": f"w{i}"})
        for i in range(2)
    ]
    group = status_group("aks-web-12345678-vmss", target=2, max_size=3)
    karpenter = node_pool("burst", requirement("kubernetes.io/arch", "In", "amd64"))
    document = cluster_snapshot(
        nodes, [], configMaps=[status_configmap(group)], nodePools=[karpenter]
    )
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def test_node_groups_take_copies_first_and_nodepools_what_they_leave(tmp_path: Path) -> None:
    manifests = tmp_path / "api.yaml"
    api = container(requests={"cpu": "3"})
    template = {"metadata": {"labels": {"app": "api"}}, "spec": {"containers": [api]}}
    manifests.write_text(
        json.dumps(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "api", "namespace": "app"},
                "spec": {
                    "replicas": 6,
                    "selector": {"matchLabels": {"app": "api"}},
                    "template": template,
                },
            }
        ),
        encoding="utf-8",
    )
    code, text, report = check(str(manifests), snapshot=_mixed_snapshot(tmp_path))
    api = workload(report, "api")
    assert (code, api["verdict"]) == (0, "SCALES")
    kinds = [(s["kind"], s["group"], s["nodes"], s["copies"]) for s in api["autoscale"]["scaleUp"]]
    assert kinds[0] == ("NodeGroup", "aks-web-12345678-vmss", 1, 1)
    assert kinds[1][:2] == ("NodePool", "burst")
    assert api["autoscale"]["fitsNow"] + sum(k[3] for k in kinds) == 6
    assert 'fits after scale-up: {aks-web-12345678-vmss 2->3 (max: 3)}, NodePool "burst"' in text


def test_the_fixture_run_matches_its_golden_reports(golden: Callable[[str, str], None]) -> None:
    _, text, report = check(MANIFESTS)
    golden("karpenter/check.txt", text)
    golden("karpenter/check.json", json.dumps(report, indent=2) + "\n")


def test_the_fixture_run_with_ec2_s_listing_matches_its_golden_reports(
    golden: Callable[[str, str], None],
) -> None:
    """The same cluster judged with EC2's listing and offerings, as the provider builds
    its types: the catalog and what it assumes are said on the snapshot line."""
    _, text, report = check(MANIFESTS, catalog=EC2_CATALOG)
    golden("karpenter/check-ec2.txt", text)
    golden("karpenter/check-ec2.json", json.dumps(report, indent=2) + "\n")
    assert "(EC2's describe-instance-types, built as karpenter-provider-aws v1.8" in text


def test_with_no_ready_nodepool_the_verdict_stays_today_s_with_a_warning_and_an_autoscale(
    tmp_path: Path,
) -> None:
    document = json.loads((ROOT / SNAPSHOT).read_text(encoding="utf-8"))
    for pool in document["nodePools"]:  # pkg/controllers/provisioning/provisioner.go NewScheduler
        for condition in pool["status"]["conditions"]:
            if condition["type"] == "NodeClassReady":
                condition["status"] = "False"
    path = tmp_path / "not-ready.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, text, report = check(WEB, snapshot=str(path))
    web = workload(report, "web")
    assert (code, web["verdict"]) == (1, "PARTIAL")
    # Karpenter was asked and refused: a script tells it from "not autoscaled"
    blocked = web["autoscale"]["blocked"]
    assert web["autoscale"]["scaleUp"] == []
    assert (blocked["reasons"], blocked["message"]) == ({"no nodepools found": 1}, "")
    assert blocked["copies"] == web["replicas"]["wanted"] - web["autoscale"]["fitsNow"]
    said = [w["text"] for w in web["warnings"] if w["kind"] == "autoscaling"]
    assert said == ["Karpenter would launch no node for its pods: no nodepools found"]
    assert "Karpenter would launch no node for its pods: no nodepools found" in text
    assert "NodeClassReady" in " ".join(report["warnings"])


def test_a_catalog_for_a_snapshot_without_nodepools_is_said_to_be_unused() -> None:
    code, text, report = check(
        "fixtures/autoscaling/01-web-scales.yaml", snapshot="fixtures/snapshots/aks-autoscaled.json"
    )
    said = [w for w in report["warnings"] if "instance-type catalog" in w]
    assert said == [
        f"the instance-type catalog {CATALOG} is not used: the snapshot recorded no Karpenter "
        "NodePool (record them with fitgate snapshot --autoscaling)"
    ]
    assert "is not used: the snapshot recorded no Karpenter NodePool" in text
    assert code == 0


def test_a_zonal_spread_counts_the_copies_today_s_nodes_took(tmp_path: Path) -> None:
    """Two copies land on the zone-a node; Karpenter's topology has recorded them
    (scheduler.go ``addToExistingNode``, topology.go ``Record``), so the other two go to
    zone-b, on one new node within the skew, not one node in each zone."""
    zone = "topology.kubernetes.io/zone"
    node = api_node("old-a", cpu="4", labels={zone: "us-east-1a", "kubernetes.io/hostname": "a"})
    pool = node_pool("burst", requirement(zone, "In", "us-east-1a", "us-east-1b"))
    path = tmp_path / "zonal.json"
    path.write_text(json.dumps(cluster_snapshot([node], [], nodePools=[pool])), encoding="utf-8")
    spread = {
        "maxSkew": 1,
        "topologyKey": zone,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "api"}},
    }
    spec = {
        "containers": [container(requests={"cpu": "1500m"})],
        "topologySpreadConstraints": [spread],
    }
    template = {"metadata": {"labels": {"app": "api"}}, "spec": spec}
    manifest = tmp_path / "api.yaml"
    manifest.write_text(
        json.dumps(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "api", "namespace": "app"},
                "spec": {
                    "replicas": 4,
                    "selector": {"matchLabels": {"app": "api"}},
                    "template": template,
                },
            }
        ),
        encoding="utf-8",
    )
    _, _, report = check(str(manifest), snapshot=str(path))
    autoscale = workload(report, "api")["autoscale"]
    assert autoscale["fitsNow"] == 2
    assert [(s["group"], s["nodes"], s["copies"]) for s in autoscale["scaleUp"]] == [
        ("burst", 1, 2)
    ]


def _api_pod(name: str, cpu: str, labels: dict[str, str], owner: str) -> dict[str, Any]:
    """A pod on the zone-a node ``old-a``, owned by the ReplicaSet ``owner``."""
    pod = api_pod(name, "old-a", namespace="app", containers=[container(requests={"cpu": cpu})])
    pod["metadata"]["labels"] = labels
    pod["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": owner}]
    return pod


ROLLOUT_CASES = [
    pytest.param(
        {"app": "api"},
        "legacy-5f6d",
        ("burst", 2, 3),
        id="another workload's two matching pods in zone a send the claims to b and c",
    ),
    pytest.param(
        {"app": "api", "pod-template-hash": "5f6d"},
        "api-5f6d",
        ("burst", 3, 3),
        id="the workload's own pods it replaces are not counted: a claim a zone",
    ),
]


@pytest.mark.parametrize(("labels", "owner", "launch"), ROLLOUT_CASES)
def test_a_scheduleanyway_zone_spread_counts_the_running_pods_the_rollout_keeps(
    tmp_path: Path, labels: dict[str, str], owner: str, launch: tuple[str, int, int]
) -> None:
    """topology.go ``countDomains`` counts the scheduled pods a held ScheduleAnyway spread
    selects, as kube-scheduler's PreFilter counts a DoNotSchedule one's in the cluster the
    workload's replaced pods leave: two in zone a, maxSkew 1, put the first copies in zone
    b and zone c and the third beside the first (topologygroup.go
    ``nextDomainTopologySpread``). The zone-a node is full of another pod."""
    zone = "topology.kubernetes.io/zone"
    node = api_node("old-a", cpu="4", labels={zone: "us-east-1a", "kubernetes.io/hostname": "a"})
    pods = [
        _api_pod("db", "3", {"app": "db"}, "db-0c1d"),
        *(_api_pod(f"api-{i}", "100m", labels, owner) for i in range(2)),
    ]
    pool = node_pool("burst", requirement(zone, "In", "us-east-1a", "us-east-1b", "us-east-1c"))
    path = tmp_path / "zonal.json"
    path.write_text(json.dumps(cluster_snapshot([node], pods, nodePools=[pool])), encoding="utf-8")
    spread = {
        "maxSkew": 1,
        "topologyKey": zone,
        "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": {"app": "api"}},
    }
    spec = {
        "containers": [container(requests={"cpu": "1500m"})],
        "topologySpreadConstraints": [spread],
    }
    manifest = tmp_path / "api.yaml"
    manifest.write_text(
        json.dumps(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "api", "namespace": "app"},
                "spec": {
                    "replicas": 3,
                    "selector": {"matchLabels": {"app": "api"}},
                    "template": {"metadata": {"labels": {"app": "api"}}, "spec": spec},
                },
            }
        ),
        encoding="utf-8",
    )
    _, _, report = check(str(manifest), snapshot=str(path))
    autoscale = workload(report, "api")["autoscale"]
    assert autoscale["fitsNow"] == 0
    assert [(s["group"], s["nodes"], s["copies"]) for s in autoscale["scaleUp"]] == [launch]
