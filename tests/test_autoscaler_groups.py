"""Node groups and their template nodes (gate/scheduler/autoscaling/clusterautoscaler/groups.py,
templates.py), as cluster-autoscaler-1.34.5 builds them: simulator/node_info_utils.go
(``SanitizedTemplateNodeInfoFromNodeInfo``, ``podsExpectedOnFreshNode``),
utils/taints/taints.go (``SanitizeTaints``),
processors/nodeinfosprovider/mixed_nodeinfos_processor.go (which member)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gate.k8s.version import dialect_for
from gate.live.objects import Node
from gate.live.recorder import recorded
from gate.model.autoscaling import AutoscalingConfig, ConfiguredGroup, NodeTemplate
from gate.model.taints import Taint
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, ScaleUp
from gate.scheduler.autoscaling.clusterautoscaler.groups import node_groups
from gate.scheduler.autoscaling.clusterautoscaler.matching import Index, default_match
from gate.scheduler.framework.cluster import Cluster
from gate.snapshot.load import build_snapshot
from gate.snapshot.stream import scale_set_of
from tests.autoscaler_support import (
    AKS_GPU,
    AKS_USER,
    VERSION,
    Run,
    aks_node,
    owned_pod,
    spec,
)
from tests.autoscaling_objects import (
    autoscaler_deployment,
    daemonset,
    machine_deployment,
    status_configmap,
    status_group,
)
from tests.builders import api_node, cluster_snapshot, node

TEMPLATE = "template-node-for-" + AKS_USER


def _taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def test_the_template_is_the_first_usable_member_sanitised() -> None:
    """Cordoned, NotReady and starting members are passed over (a node with a startup taint
    is not among the Ready nodes CA builds templates from); condition and CA taints go. The
    members are in name order, as a snapshot holds its nodes."""
    nodes = [
        aks_node("cordoned", unschedulable=True),
        aks_node("not-ready", taints=[_taint("node.kubernetes.io/not-ready", effect="NoExecute")]),
        aks_node("cni", taints=[_taint("startup-taint.cluster-autoscaler.kubernetes.io/cni")]),
        aks_node("booting", taints=[_taint("example.com/booting", "1")]),
        aks_node(
            "good",
            taints=[
                _taint("node.kubernetes.io/memory-pressure"),
                _taint("DeletionCandidateOfClusterAutoscaler", "1", "PreferNoSchedule"),
                _taint("dedicated", "web"),
            ],
        ),
    ]
    objects = [
        status_configmap(status_group(AKS_USER, target=5, max_size=10)),
        autoscaler_deployment("--startup-taint=example.com/booting"),
    ]
    (group,) = Run(nodes, objects).groups.groups
    assert group.members == ("booting", "cni", "cordoned", "good", "not-ready")
    assert group.template is not None
    template = group.template.node
    assert (template.name, group.template.source) == (TEMPLATE, "member good")
    assert template.taints == (Taint("dedicated", "web", "NoSchedule"),)
    assert template.labels == {
        "kubernetes.azure.com/agentpool": "user",
        "kubernetes.io/hostname": TEMPLATE,
        "cluster-autoscaler.kubernetes.io/template-node": "true",
    }


def test_the_template_keeps_the_member_s_daemonset_and_mirror_pods_only() -> None:
    pods = [
        owned_pod("kube-proxy-x", "a", "DaemonSet", "500m", "128Mi"),
        owned_pod("etcd-a", "a", "Node", "250m"),
        owned_pod("web-1", "a", "ReplicaSet", "2"),
    ]
    run = Run(
        [aks_node("a")], [status_configmap(status_group(AKS_USER, target=1, max_size=3))], pods
    )
    template = run.groups.groups[0].template
    assert template is not None
    assert (template.node.requested, template.node.pod_count) == (
        {"cpu": 750, "memory": 128 * 2**20},
        2,
    )
    assert (template.cores, template.memory) == (4, 8 * 2**30)


def test_a_group_at_zero_takes_its_configured_template_and_the_daemonsets_it_would_run() -> None:
    config = AutoscalingConfig(
        groups=(
            ConfiguredGroup(
                AKS_GPU,
                template=NodeTemplate(
                    labels={"pool": "gpu"},
                    taints=(Taint("nvidia.com/gpu", "true", "NoSchedule"),),
                    allocatable={"cpu": 8000, "memory": 32 * 2**30, "pods": 30},
                ),
            ),
        )
    )
    objects = [
        status_configmap(status_group(AKS_GPU, target=0, max_size=4)),
        daemonset("everywhere", tolerations=[{"operator": "Exists"}]),
        daemonset("untolerating"),
        daemonset("elsewhere", nodeSelector={"pool": "cpu"}, tolerations=[{"operator": "Exists"}]),
        daemonset("huge", cpu="9", tolerations=[{"operator": "Exists"}]),
    ]
    groups = Run([api_node("system")], objects, config=config).groups
    template = groups.groups[0].template
    assert template is not None
    assert (template.source, template.node.requested, template.node.pod_count) == (
        ".fitgate.yaml",
        {"cpu": 9100, "memory": 128 * 2**20},
        2,
    )
    assert template.too_big == ("kube-system/huge",)
    assert groups.warnings == (
        f"node group {AKS_GPU}: DaemonSet(s) kube-system/huge do not fit a fresh node",
    )
    assert groups.ungrouped[0].name == "system"


def test_a_group_without_member_or_template_is_named_in_a_warning() -> None:
    groups = Run(
        [aks_node("a")], [status_configmap(status_group(AKS_GPU, target=2, max_size=4))]
    ).groups
    assert groups.groups[0].template is None
    assert groups.warnings == (
        f"node group {AKS_GPU}: no node of the snapshot matches it (target 2); "
        "set autoscaling.groups[].match",
        f"node group {AKS_GPU}: no template (no Ready member, none configured): "
        # its target of 2 is upcoming: orchestrator.go UpcomingNodes fails first
        "cluster-autoscaler fails its scale-up with "
        f"`failed to find template node for node group {AKS_GPU}` (nodes are upcoming)",
        "1 node(s) of an autoscaled pool match no node group: a",
    )


def test_a_configured_match_overrides_the_provider_s_naming() -> None:
    config = AutoscalingConfig(groups=(ConfiguredGroup("workers", match=("pool", "w")),))
    nodes = [aks_node("a", labels={"pool": "w"}), aks_node("b")]
    run = Run(
        nodes, [status_configmap(status_group("workers", target=1, max_size=3))], config=config
    )
    assert run.groups.groups[0].members == ("a",)


def _with_template(cpu: int) -> list[str]:
    """The warnings of a group of two 4-cpu nodes configured with a template of ``cpu``."""
    template = NodeTemplate(allocatable={"cpu": cpu * 1000, "memory": 8 * 2**30, "pods": 110})
    config = AutoscalingConfig(
        groups=(ConfiguredGroup("workers", match=("pool", "w"), template=template),)
    )
    nodes = [aks_node(name, labels={"pool": "w"}) for name in ("a", "b")]
    run = Run(
        nodes, [status_configmap(status_group("workers", target=2, max_size=3))], config=config
    )
    return list(run.groups.warnings)


def test_a_configured_template_larger_than_every_node_of_its_group_is_named() -> None:
    assert _with_template(300_000) == [
        "node group workers: the configured template's allocatable cpu is larger than any of "
        "its 2 node(s) has: a fresh node is judged as .fitgate.yaml says "
        "(autoscaling.groups[].template)"
    ]


def test_a_configured_template_no_larger_than_its_group_s_nodes_is_not_warned() -> None:
    assert _with_template(4) == []


def test_provider_naming_matches_members() -> None:
    eks = "eks-batch-3ec6b2a4-1d2c-4b8e-9a3f-0123456789ab"
    gke = "https://www.googleapis.com/compute/v1/projects/p/zones/europe-west1-b/instanceGroups/gke-prod-web-1a2b3c4d-grp"
    cases = [
        (AKS_USER, node("x", labels={"kubernetes.azure.com/agentpool": "user"}), True),
        (AKS_USER, node("x", labels={"agentpool": "user"}), True),
        (AKS_USER, node("x", labels={"kubernetes.azure.com/agentpool": "gpu"}), False),
        # No pool label: the scale set of the providerID; a label, when there, decides.
        (AKS_USER, replace(node("x", labels={}), scale_set=AKS_USER), True),
        (AKS_USER, replace(node("x", labels={}), scale_set=AKS_GPU), False),
        (AKS_USER, replace(node("x", labels={"agentpool": "gpu"}), scale_set=AKS_USER), False),
        (AKS_USER, node("x", labels={}), False),
        (eks, node("x", labels={"eks.amazonaws.com/nodegroup": "batch"}), True),
        (eks, node("x", labels={"eks.amazonaws.com/nodegroup": "web"}), False),
        (
            "eksctl-c-nodegroup-ng1-NodeGroup-ABC",
            node("x", labels={"alpha.eksctl.io/nodegroup-name": "ng1"}),
            True,
        ),
        (
            gke,
            node("gke-prod-web-1a2b3c4d-x7q2", labels={"cloud.google.com/gke-nodepool": "web"}),
            True,
        ),
        (
            gke,
            node("gke-prod-web-9f8e7d6c-x7q2", labels={"cloud.google.com/gke-nodepool": "web"}),
            False,
        ),
    ]
    assert [default_match(group, n) for group, n, _ in cases] == [want for _, _, want in cases]


def test_the_index_finds_exactly_the_members_the_naming_matches() -> None:
    """The per-group look-up is the per-node rule, for every group and node shape above."""
    eks = "eks-batch-3ec6b2a4-1d2c-4b8e-9a3f-0123456789ab"
    gke = "projects/p/zones/z/instanceGroups/gke-prod-web-1a2b3c4d-grp"
    nodes = [
        node("a", labels={"kubernetes.azure.com/agentpool": "user"}),
        node("b", labels={"agentpool": "user"}),
        node("c", labels={"eks.amazonaws.com/nodegroup": "batch"}),
        node("d", labels={"alpha.eksctl.io/nodegroup-name": "ng1"}),
        node("gke-prod-web-1a2b3c4d-x7q2", labels={"cloud.google.com/gke-nodepool": "web"}),
        node("gke-prod-web-1a2b3c4d-y", labels={}),
        node("e", labels={"kubernetes.azure.com/agentpool": "gpu"}),
        replace(node("f", labels={}), scale_set=AKS_USER),
        replace(node("g", labels={"agentpool": "gpu"}), scale_set=AKS_USER),
    ]
    index = Index(nodes, ())
    for group in (AKS_USER, AKS_GPU, eks, "eksctl-c-nodegroup-ng1-NodeGroup-ABC", gke, "other"):
        assert index.candidates(group) == [n for n in nodes if default_match(group, n)], group


SUBSCRIPTION = "0b1f6471-1bf0-4dda-aec3-cb9272f09590"


def _provider_id(scale_set: str) -> str:
    return (
        f"azure:///subscriptions/{SUBSCRIPTION}/resourceGroups/mc_rg_aks_westeurope/providers/"
        f"Microsoft.Compute/virtualMachineScaleSets/{scale_set}/virtualMachines/3"
    )


def _unlabelled(name: str, provider_id: str) -> dict[str, Any]:
    """A node of no pool label (a cluster whose labels were changed, say)."""
    made = api_node(name, labels={"kubernetes.io/hostname": name})
    made.setdefault("spec", {})["providerID"] = provider_id
    return made


def _members(document: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    snapshot = build_snapshot(document, "s.json")
    assert snapshot.autoscaling is not None
    cluster = Cluster.of(snapshot)
    groups = node_groups(snapshot.autoscaling, AutoscalingConfig(), cluster, dialect_for(VERSION))
    return {g.status.name: g.members for g in groups.groups}


def test_an_unlabelled_aks_node_is_matched_by_its_provider_id() -> None:
    """cloudprovider/azure/azure_util.go: the node's scale set is the providerID's
    ``virtualMachineScaleSets/<name>``, compared lowercased; from a kubectl List (which
    carries the providerID) and from a recording (which keeps only the name)."""
    nodes = [
        _unlabelled("user-0", _provider_id("AKS-USER-12345678-VMSS")),
        _unlabelled("aws-0", "aws:///eu-west-1a/i-0123456789abcdef0"),
        aks_node("gpu-0", pool="gpu"),
    ]
    status = status_configmap(
        status_group(AKS_USER, target=1, max_size=10), status_group(AKS_GPU, target=1, max_size=3)
    )
    listed = {"apiVersion": "v1", "kind": "List", "items": [*nodes, status]}
    recording = cluster_snapshot(
        [recorded(Node, n) for n in nodes], server_version=VERSION, configMaps=[status]
    )
    assert "providerID" not in str(recording) and SUBSCRIPTION not in str(recording)
    want = {AKS_USER: ("user-0",), AKS_GPU: ("gpu-0",)}
    assert _members(listed) == _members(recording) == want


def test_only_an_azure_scale_set_provider_id_names_a_scale_set() -> None:
    assert scale_set_of(_provider_id(AKS_USER)) == AKS_USER
    for other in (
        "aws:///eu-west-1a/i-0123456789abcdef0",
        "gce://project/europe-west1-b/gke-prod-web-1a2b3c4d-x7q2",
        f"azure:///subscriptions/{SUBSCRIPTION}/resourceGroups/rg/providers/"
        "Microsoft.Compute/virtualMachines/aks-user-12345678-vm0",  # an availability set
        "",
    ):
        assert scale_set_of(other) is None, other


def test_cluster_api_groups_come_from_machine_deployments_without_a_status() -> None:
    """cloudprovider/clusterapi: a MachineDeployment with both size annotations is a group;
    at zero, its capacity annotations are its template (README.md, "Scale from zero")."""
    annotations = {
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "0",
        "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "3",
        "capacity.cluster-autoscaler.kubernetes.io/cpu": "4",
        "capacity.cluster-autoscaler.kubernetes.io/memory": "16Gi",
        "capacity.cluster-autoscaler.kubernetes.io/labels": "pool=workers",
    }
    run = Run([api_node("control")], [machine_deployment("workers", 0, **annotations)])
    (group,) = run.groups.groups
    assert (group.id, group.status.target, group.status.max_size) == (
        "MachineDeployment/capi/workers",
        0,
        3,
    )
    assert group.template is not None and group.template.source == "MachineDeployment annotations"
    assert run.decide(spec(cpu="3"), 2) == Decision(
        2, (ScaleUp("MachineDeployment/capi/workers", 2, 2, 0, 3),), 2
    )
