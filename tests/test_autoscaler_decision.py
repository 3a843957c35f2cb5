"""The scale-up decision (gate/scheduler/autoscaling/clusterautoscaler/decision.py) rule by rule,
against cluster-autoscaler-1.34.5: core/scaleup/orchestrator/orchestrator.go
(``filterValidScaleUpNodeGroups``, ``IsNodeGroupReadyToScaleUp``,
``IsNodeGroupResourceExceeded``), skippedreasons.go, core/scaleup/resource/manager.go,
estimator/binpacking_estimator.go, processors/status/eventing_scale_up_processor.go."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gate.model.autoscaling import AutoscalingConfig, ConfiguredGroup, NodeTemplate
from gate.model.taints import Taint
from gate.scheduler.autoscaling.clusterautoscaler.decision import Decision, ScaleUp, _least_waste
from tests.autoscaler_support import AKS_GPU, AKS_USER, Run, aks_node, owned_pod, spec
from tests.autoscaling_objects import (
    TEXT_STATUS,
    autoscaler_deployment,
    configmap_of,
    daemonset,
    status_configmap,
    status_group,
)
from tests.builders import api_node

GPU_TEMPLATE = AutoscalingConfig(
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
USERS = [aks_node(f"user-{i}") for i in range(3)]
DAEMONS = [owned_pod(f"proxy-{i}", f"user-{i}", "DaemonSet", "750m") for i in range(3)]


def _run(*groups: dict[str, Any], flags: tuple[str, ...] = ()) -> Run:
    objects = [status_configmap(*groups)]
    if flags:
        objects.append(autoscaler_deployment(*flags))
    return Run(USERS, objects, DAEMONS, config=GPU_TEMPLATE)


def _aks(
    target: int = 3, max_size: int = 10, gpu: dict[str, Any] | None = None, **user: Any
) -> list[dict[str, Any]]:
    gpu_group = status_group(AKS_GPU, target=0, max_size=4, **(gpu or {}))
    return [status_group(AKS_USER, target=target, max_size=max_size, **user), gpu_group]


TAINTED = "node(s) had untolerated taint(s)"


@pytest.mark.parametrize(
    ("groups", "flags", "copies", "decision"),
    [
        pytest.param(
            _aks(),
            (),
            10,
            Decision(10, (ScaleUp(AKS_USER, 4, 10, 3, 10),), 10),
            id="3 copies of 1 cpu per fresh node (4 cpu less 750m of DaemonSets): 4 nodes for 10",
        ),
        pytest.param(
            _aks(target=8),
            (),
            10,
            Decision(
                10,
                (ScaleUp(AKS_USER, 2, 6, 8, 10),),
                6,
                {"max node group size reached": 1, TAINTED: 1},
            ),
            id="a group near its maximum takes what its headroom holds",
        ),
        pytest.param(
            _aks(target=10),
            (),
            2,
            Decision(2, (), 0, {"max node group size reached": 1, TAINTED: 1}),
            id="a group at its maximum is skipped",
        ),
        pytest.param(
            _aks(scale_up="Backoff", backoff="QuotaExceeded"),
            (),
            2,
            Decision(2, (), 0, {"in backoff after failed scale-up": 1, TAINTED: 1}),
            id="a group in backoff is skipped",
        ),
        pytest.param(
            _aks(health="Unhealthy", scale_up="Backoff"),
            (),
            2,
            Decision(2, (), 0, {"not ready for scale-up": 1, TAINTED: 1}),
            id="an unhealthy group in backoff is not ready: health is checked first",
        ),
        pytest.param(
            _aks(),
            ("--cores-total=0:12",),
            2,
            Decision(2, (), 0, {"max cluster cpu limit reached": 2}),
            id="no core left for one more node: limits are checked before filters",
        ),
        pytest.param(
            _aks(),
            ("--cores-total=0:12", "--memory-total=0:24"),
            2,
            Decision(2, (), 0, {"max cluster cpu, memory limit reached": 2}),
            id="neither cores nor memory left",
        ),
        pytest.param(
            _aks(),
            ("--cores-total=0:20",),
            10,
            Decision(
                10,
                (ScaleUp(AKS_USER, 2, 6, 3, 10),),
                6,
                {"max cluster cpu limit reached": 2},
            ),
            id="the cores left cap the nodes, and then skip the other group",
        ),
        pytest.param(
            _aks(),
            ("--max-nodes-total=5",),
            10,
            Decision(
                10,
                (ScaleUp(AKS_USER, 2, 6, 3, 10),),
                6,
                {"max total nodes in cluster reached": 1},
            ),
            # static_autoscaler.go: the next loop starts with the Ready nodes at the total
            # (ScaleUpLimitedByMaxNodesTotal) and asks no group: that reason alone
            id="the total node count caps the nodes, then is the only reason",
        ),
        pytest.param(
            _aks(),
            ("--max-nodes-total=3",),
            2,
            Decision(2, (), 0, {"max total nodes in cluster reached": 1}),
            id="Ready nodes already at the total: that reason alone",
        ),
    ],
)
def test_scale_up_rules(
    groups: list[dict[str, Any]], flags: tuple[str, ...], copies: int, decision: Decision
) -> None:
    assert _run(*groups, flags=flags).decide(spec(cpu="1"), copies) == decision


NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
MAX_TOTAL = "max total nodes in cluster reached"


# static_autoscaler.go calls ScaleUp with the Ready nodes only; orchestrator.go counts
# len(nodes)+len(upcomingNodes) against --max-nodes-total (GetCappedNewNodeCount and the
# estimator's cluster_capacity_threshold.go), upcoming being each group's target less its
# registered nodes (clusterstate.go GetUpcomingNodes); resource/manager.go ResourcesLeft
# adds the capacity of those Ready nodes that are in no group.
@pytest.mark.parametrize(
    ("groups", "flags", "extra", "decision"),
    [
        pytest.param(
            _aks(),
            ("--max-nodes-total=5",),
            [api_node("old", taints=[NOT_READY_TAINT])],
            Decision(10, (ScaleUp(AKS_USER, 2, 6, 3, 10),), 6, {MAX_TOTAL: 1}),
            id="a NotReady node counts nowhere towards the total node count",
        ),
        pytest.param(
            _aks(target=5),
            ("--max-nodes-total=6",),
            [],
            Decision(10, (ScaleUp(AKS_USER, 1, 3, 5, 10),), 3, {MAX_TOTAL: 1}),
            id="nodes a group is still bringing up count towards the total node count",
        ),
        pytest.param(
            _aks(target=5),
            ("--max-nodes-total=5",),
            [],
            Decision(10, (), 0, {MAX_TOTAL: 1}),
            id="Ready and upcoming nodes at the total leave no node to add",
        ),
        pytest.param(
            _aks(),
            ("--cores-total=0:20",),
            [api_node("old", taints=[NOT_READY_TAINT])],
            Decision(
                10,
                (ScaleUp(AKS_USER, 2, 6, 3, 10),),
                6,
                {"max cluster cpu limit reached": 2},
            ),
            id="a NotReady node in no group is not counted against the cores limit",
        ),
    ],
)
def test_the_limits_count_the_nodes_cluster_autoscaler_counts(
    groups: list[dict[str, Any]],
    flags: tuple[str, ...],
    extra: list[dict[str, Any]],
    decision: Decision,
) -> None:
    objects = [status_configmap(*groups), autoscaler_deployment(*flags)]
    run = Run([*USERS, *extra], objects, DAEMONS, config=GPU_TEMPLATE)
    assert run.decide(spec(cpu="1"), 10) == decision


def test_the_template_s_filters_give_their_own_reasons() -> None:
    run = _run(*_aks())
    too_big = run.decide(spec(cpu="9"), 1)
    assert too_big == Decision(1, (), 0, {"Insufficient cpu": 1, TAINTED: 1})
    assert too_big.message == (
        "pod didn't trigger scale-up: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)"
    )
    elsewhere = run.decide(spec(nodeSelector={"pool": "cpu"}), 1)
    assert elsewhere.reasons == {"node(s) didn't match Pod's node affinity/selector": 1, TAINTED: 1}


def test_a_pod_tolerating_the_gpu_taint_may_use_either_group() -> None:
    gpu = spec(
        cpu="6",
        nodeSelector={"pool": "gpu"},
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}],
    )
    assert _run(*_aks()).decide(gpu, 3) == Decision(3, (ScaleUp(AKS_GPU, 3, 3, 0, 4),), 3)


def test_hostname_anti_affinity_takes_one_node_per_copy() -> None:
    labels = {"app": "web"}
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": "kubernetes.io/hostname"}
    anti = spec(
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    )
    assert _run(*_aks()).decide(anti, 5, labels) == Decision(
        5, (ScaleUp(AKS_USER, 5, 5, 3, 10),), 5
    )


def test_anti_affinity_selecting_its_own_namespace_by_label_takes_one_node_per_copy() -> None:
    """The term covers the pod's namespace only through its namespaceSelector: the
    scheduler reads the namespace's labels, so each fresh node takes one copy (read
    without them, the term matched no copy and a node took three)."""
    labels = {"app": "web"}
    term = {
        "labelSelector": {"matchLabels": labels},
        "namespaceSelector": {"matchLabels": {"team": "web"}},
        "topologyKey": "kubernetes.io/hostname",
    }
    anti = spec(
        cpu="1",
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
    )
    namespace = {"kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "web"}}}
    objects = [status_configmap(*_aks()), namespace]
    run = Run(USERS, objects, DAEMONS, config=GPU_TEMPLATE)
    assert run.decide(anti, 3, labels).scale_up == (ScaleUp(AKS_USER, 3, 3, 3, 10),)


def test_a_host_port_takes_one_node_per_copy() -> None:
    ported = spec()
    ported["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80}]
    assert _run(*_aks()).decide(ported, 2).scale_up == (ScaleUp(AKS_USER, 2, 2, 3, 10),)


def test_workloads_of_a_run_share_the_headroom_in_input_order() -> None:
    run = _run(*_aks(target=6))
    first = run.decide(spec(cpu="1"), 6)
    second = run.decide(spec(cpu="1"), 9)
    assert first.scale_up == (ScaleUp(AKS_USER, 2, 6, 6, 10),)
    assert second == Decision(
        9, (ScaleUp(AKS_USER, 2, 6, 8, 10),), 6, {"max node group size reached": 1, TAINTED: 1}
    )
    assert str(second.scale_up[0]) == f"{{{AKS_USER} 8->10 (max: 10)}}"
    assert second.message == (
        "pod didn't trigger scale-up: 1 max node group size reached, "
        "1 node(s) had untolerated taint(s)"
    )


def test_only_transient_blockers_are_transient() -> None:
    backoff = _run(*_aks(scale_up="Backoff", gpu={"scale_up": "Backoff"})).decide(spec(), 1)
    assert backoff.transient and backoff.message == (
        "pod didn't trigger scale-up: 2 in backoff after failed scale-up"
    )
    assert not _run(*_aks(target=10)).decide(spec(), 1).transient


def _unhealthy(how: str, target: int) -> list[dict[str, Any]]:
    """Both groups as ``how`` leaves them: unhealthy, in backoff, or with no health status."""
    groups = _aks(target=target, gpu={"scale_up": "Backoff"})
    if how == "Unhealthy":
        groups[0]["health"]["status"] = "Unhealthy"
    elif how == "Backoff":
        groups[0]["scaleUp"]["status"] = "Backoff"
    else:
        del groups[0]["health"]["status"]
    return groups


HOW = pytest.mark.parametrize(
    "how",
    ["Unhealthy", "Backoff", "no health.status"],
    ids=["an unhealthy group", "a group in backoff", "a group without a health status"],
)


@HOW
def test_a_group_at_its_maximum_does_not_recover_past_it(how: str) -> None:
    decision = _run(*_unhealthy(how, target=10)).decide(spec(), 1)
    assert decision.blocked == 1 and set(decision.reasons) <= {
        "not ready for scale-up",
        "in backoff after failed scale-up",
    }
    assert not decision.transient and not decision.recoverable


@HOW
def test_recovery_adds_no_more_than_a_group_s_headroom(how: str) -> None:
    """Target 8 of 10: recovered, two fresh nodes hold 6 copies of 1 cpu, not 10."""
    decision = _run(*_unhealthy(how, target=8)).decide(spec(cpu="1"), 10)
    assert decision.blocked == 10 and not decision.transient


@HOW
def test_copies_the_recovered_groups_would_take_are_transient(how: str) -> None:
    decision = _run(*_unhealthy(how, target=8)).decide(spec(cpu="1"), 6)
    assert decision.blocked == 6 and decision.transient


def test_a_group_without_node_info_stops_every_scale_up() -> None:
    run = Run(USERS, [status_configmap(*_aks())], DAEMONS)  # no template for the gpu group
    assert run.decide(spec(), 1) == Decision(1, unjudged=f"No node info for: {AKS_GPU}")


# core/scaleup/resource/manager.go ResourcesLeft: a limit enters the map only when its
# ``max > 0`` (and cloudprovider/resource_limiter.go keeps a 0 as given): --cores-total=0:0
# sets no cpu limit. Without a cpu or memory limit, coresMemoryTotal's "No node info" error
# is not returned, and filterValidScaleUpNodeGroups skips the group with no node info as
# NotReadyReason.
@pytest.mark.parametrize(
    ("flags", "templated", "decision"),
    [
        pytest.param(
            ("--cores-total=0:0",),
            True,
            Decision(10, (ScaleUp(AKS_USER, 4, 10, 3, 10),), 10),
            id="a maximum of 0 cores sets no cpu limit",
        ),
        pytest.param(
            ("--memory-total=0:0",),
            True,
            Decision(10, (ScaleUp(AKS_USER, 4, 10, 3, 10),), 10),
            id="a maximum of 0 GiB sets no memory limit",
        ),
        pytest.param(
            ("--cores-total=0:0", "--memory-total=0:12"),
            True,
            Decision(10, (), 0, {"max cluster memory limit reached": 2}),
            id="the memory limit still holds when the cpu one is 0",
        ),
        pytest.param(
            ("--cores-total=0:0", "--memory-total=0:0"),
            False,
            Decision(
                10,
                (ScaleUp(AKS_USER, 4, 10, 3, 10),),
                10,
            ),
            id="without cpu and memory limits a group with no node info is only skipped",
        ),
        pytest.param(
            ("--cores-total=0:0", "--memory-total=0:0"),
            False,
            Decision(12, (ScaleUp(AKS_USER, 4, 12, 3, 10),), 12),
            id="the group with no node info does not hold back the others",
        ),
    ],
)
def test_a_limit_of_zero_sets_no_limit(
    flags: tuple[str, ...], templated: bool, decision: Decision
) -> None:
    objects = [status_configmap(*_aks()), autoscaler_deployment(*flags)]
    run = Run(USERS, objects, DAEMONS, config=GPU_TEMPLATE if templated else None)
    assert run.decide(spec(cpu="1"), decision.wanted) == decision


def test_a_group_with_no_node_info_is_not_ready_when_no_limit_is_set() -> None:
    objects = [
        status_configmap(*_aks()),
        autoscaler_deployment("--cores-total=0:0", "--memory-total=0:0"),
    ]
    run = Run(USERS, objects, DAEMONS)
    assert run.decide(spec(cpu="9"), 1) == Decision(
        1, (), 0, {"Insufficient cpu": 1, "not ready for scale-up": 1}
    )
    assert any("skips it as not ready for scale-up" in w for w in run.groups.warnings)


def test_the_plain_text_status_decides_as_the_yaml_one() -> None:
    """The ≤ 1.29 text of tests/data: user 3 of 10 healthy, gpu unhealthy in backoff."""
    run = Run(USERS, [configmap_of(TEXT_STATUS)], DAEMONS, config=GPU_TEMPLATE)
    assert run.decide(spec(cpu="1"), 10) == Decision(10, (ScaleUp(AKS_USER, 4, 10, 3, 10),), 10)
    assert run.decide(spec(cpu="9"), 1).reasons == {
        "Insufficient cpu": 1,
        "not ready for scale-up": 1,
    }


def test_zone_anti_affinity_to_its_own_copies_takes_one_copy_a_zone() -> None:
    """A group's fresh nodes are copies of its template, in its zone: the binpacking
    estimator (estimator/binpacking_estimator.go) runs InterPodAffinity on each, and after
    the first copy the zone holds one it must avoid: one copy, the rest blocked by the
    filter's own reason."""
    zonal = AutoscalingConfig(
        groups=(
            ConfiguredGroup(
                AKS_GPU,
                template=NodeTemplate(
                    labels={"pool": "gpu", "topology.kubernetes.io/zone": "z1"},
                    allocatable={"cpu": 8000, "memory": 32 * 2**30, "pods": 30},
                ),
            ),
        )
    )
    run = Run(USERS, [status_configmap(*_aks())], DAEMONS, config=zonal)
    term = {
        "labelSelector": {"matchLabels": {"app": "solo"}},
        "topologyKey": "topology.kubernetes.io/zone",
    }
    anti = spec(
        nodeSelector={"pool": "gpu"},
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
    )
    assert run.decide(anti, 5, {"app": "solo"}) == Decision(
        5,
        (ScaleUp(AKS_GPU, 1, 1, 0, 4),),
        1,
        {
            "node(s) didn't match pod anti-affinity rules": 1,
            "node(s) didn't match Pod's node affinity/selector": 1,
        },
    )


AKS_BIG = "aks-big-12345678-vmss"
BIG_TEMPLATE = AutoscalingConfig(
    groups=(
        ConfiguredGroup(
            AKS_BIG,
            template=NodeTemplate(
                labels={"pool": "big"},
                allocatable={"cpu": 8000, "memory": 32 * 2**30, "pods": 30},
            ),
        ),
    )
)
BIG_ONE = ScaleUp(AKS_BIG, 1, 8, 0, 1)
USER_FOUR = ScaleUp(AKS_USER, 4, 10, 3, 10)
USER_REST = ScaleUp(AKS_USER, 1, 2, 3, 10)
EXPANDERS = [
    (
        "no cluster-autoscaler recorded (a managed one): random, every group that helps named",
        (),
        (BIG_ONE, USER_REST),
        (BIG_ONE, USER_FOUR),
    ),
    (
        # config/flags/flags.go: --expander defaults to least-waste in the binary
        "a recorded cluster-autoscaler without --expander runs least-waste",
        ("--max-nodes-total=100",),
        (BIG_ONE, USER_REST),
        (),
    ),
    (
        "random decides nothing from recorded state",
        ("--expander=random",),
        (BIG_ONE, USER_REST),
        (BIG_ONE, USER_FOUR),
    ),
    (
        "price decides nothing from recorded state",
        ("--expander=price",),
        (BIG_ONE, USER_REST),
        (BIG_ONE, USER_FOUR),
    ),
    (
        "most-pods takes the group that holds every copy",
        ("--expander=most-pods",),
        (USER_FOUR,),
        (),
    ),
    (
        # expander/leastnodes/leastnodes.go BestOptions: the options with the fewest nodes
        "least-nodes takes the group that adds one node before the one that adds four",
        ("--expander=least-nodes",),
        (BIG_ONE, USER_REST),
        (),
    ),
    (
        "least-waste takes the big node the copies fill",
        ("--expander", "least-waste"),
        (BIG_ONE, USER_REST),
        (),
    ),
    (
        "a chain narrows in order: most-pods first",
        ("--expander=most-pods,least-waste",),
        (USER_FOUR,),
        (),
    ),
]


@pytest.mark.parametrize(
    "reverse", [False, True], ids=["status lists user first", "status lists big first"]
)
@pytest.mark.parametrize(
    ("flags", "scale_up", "options"), [c[1:] for c in EXPANDERS], ids=[c[0] for c in EXPANDERS]
)
def test_the_expander_chooses_the_group_whatever_the_status_order(
    flags: tuple[str, ...],
    scale_up: tuple[ScaleUp, ...],
    options: tuple[ScaleUp, ...],
    reverse: bool,
) -> None:
    groups = [
        status_group(AKS_USER, target=3, max_size=10),
        status_group(AKS_BIG, target=0, max_size=1),
    ]
    objects = [status_configmap(*(groups[::-1] if reverse else groups))]
    if flags:
        objects.append(autoscaler_deployment(*flags))
    run = Run(USERS, objects, DAEMONS, config=BIG_TEMPLATE)
    decision = run.decide(spec(cpu="1"), 10)
    assert (decision.scale_up, decision.placed, decision.options) == (scale_up, 10, options)


# orchestrator.go ScaleUp: the estimator's options are capped by the groups' sizes, the
# total node count and --max-nodes-per-scaleup only (estimator/*_threshold.go); the
# expander chooses among them, and the cores and memory left cap the chosen one after
# (applyLimits, resource/manager.go ApplyLimits).
@pytest.mark.parametrize(
    ("flags", "decision"),
    [
        pytest.param(
            ("--expander=most-pods",),
            Decision(
                10,
                (ScaleUp(AKS_USER, 2, 6, 3, 10),),
                6,
                {"max cluster cpu limit reached": 2},
            ),
            id="most-pods counts the copies a group would hold before the cores left cap it",
        ),
        pytest.param(
            ("--expander=random",),
            Decision(
                10,
                (BIG_ONE,),
                8,
                {"max cluster cpu limit reached": 1, "max node group size reached": 1},
                options=(
                    BIG_ONE,
                    ScaleUp(AKS_USER, 2, 6, 3, 10),
                ),
            ),
            id="the groups named for an open choice say what the cores left let each add",
        ),
    ],
)
def test_the_expander_chooses_before_the_resource_limits_cap(
    flags: tuple[str, ...], decision: Decision
) -> None:
    groups = [
        status_group(AKS_USER, target=3, max_size=10),
        status_group(AKS_BIG, target=0, max_size=1),
    ]
    objects = [status_configmap(*groups), autoscaler_deployment("--cores-total=0:20", *flags)]
    run = Run(USERS, objects, DAEMONS, config=BIG_TEMPLATE)
    assert run.decide(spec(cpu="1"), 10) == decision


def test_a_daemonset_too_big_for_a_fresh_node_leaves_no_room_on_it() -> None:
    # simulator/node_info_utils.go podsExpectedOnFreshNode: every DaemonSet that would run
    # on the group's template is added to it, whether or not it fits (a group at zero
    # takes them all, as --force-ds does)
    huge = daemonset("huge", cpu="9", tolerations=[{"operator": "Exists"}])
    run = Run(USERS, [status_configmap(*_aks()), huge], DAEMONS, config=GPU_TEMPLATE)
    gpu = spec(
        cpu="1",
        nodeSelector={"pool": "gpu"},
        tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}],
    )
    assert run.decide(gpu, 1) == Decision(
        1,
        (),
        0,
        {"Insufficient cpu": 1, "node(s) didn't match Pod's node affinity/selector": 1},
    )


def test_least_waste_weighs_a_template_s_cpu_to_the_millicore() -> None:
    # expander/waste/waste.go resourcesForNode: the capacity's MilliValue, not the whole
    # cores the resource limits count (1100m is 1100, where the limits count 2 cores)
    small = AutoscalingConfig(
        groups=(
            ConfiguredGroup(
                AKS_BIG,
                template=NodeTemplate(
                    labels={"pool": "big"},
                    allocatable={"cpu": 1100, "memory": 4 * 2**30, "pods": 30},
                ),
            ),
        )
    )
    groups = [
        status_group(AKS_USER, target=3, max_size=10),
        status_group(AKS_BIG, target=0, max_size=1),
    ]
    objects = [status_configmap(*groups), autoscaler_deployment("--expander=least-waste")]
    run = Run(USERS, objects, DAEMONS, config=small)
    assert run.decide(spec(cpu="1"), 10).scale_up == (
        ScaleUp(AKS_BIG, 1, 1, 0, 1),
        ScaleUp(AKS_USER, 3, 9, 3, 10),
    )


AKS_BIG2 = "aks-bigtwo-12345678-vmss"


def test_a_choice_among_groups_no_copy_is_left_for_is_no_open_choice() -> None:
    # orchestrator.go ScaleUp: the expander chooses once a loop, for the pods still pending;
    # once the chosen groups hold every copy no loop is left to choose among the others
    twins = AutoscalingConfig(
        groups=(
            *BIG_TEMPLATE.groups,
            ConfiguredGroup(AKS_BIG2, template=BIG_TEMPLATE.groups[0].template),
        )
    )
    groups = [
        status_group(AKS_USER, target=3, max_size=10),
        status_group(AKS_BIG, target=0, max_size=1),
        status_group(AKS_BIG2, target=0, max_size=1),
    ]
    objects = [status_configmap(*groups), autoscaler_deployment("--expander=most-pods")]
    decision = Run(USERS, objects, DAEMONS, config=twins).decide(spec(cpu="1"), 10)
    assert (decision.scale_up, decision.options) == ((USER_FOUR,), ())


AKS_A = "aks-wastea-12345678-vmss"
AKS_B = "aks-wasteb-12345678-vmss"


def _two_templates(a: tuple[int, int], b: tuple[int, int]) -> AutoscalingConfig:
    """Groups A and B at zero whose templates have (millicores, MiB) of cpu and memory."""
    return AutoscalingConfig(
        groups=tuple(
            ConfiguredGroup(
                group,
                template=NodeTemplate(
                    labels={"pool": group},
                    allocatable={"cpu": cpu, "memory": mib * 2**20, "pods": 110},
                ),
            )
            for group, (cpu, mib) in ((AKS_A, a), (AKS_B, b))
        )
    )


# expander/waste/waste.go BestOptions: wastedCPU + wastedMemory in float64, compared with
# == and <. 63 copies of 100m and 128Mi (6300m, 8064Mi) on one fresh node of each group:
@pytest.mark.parametrize(
    ("a", "b", "scale_up"),
    [
        pytest.param(
            (7000, 10080),
            (9000, 8064),
            (ScaleUp(AKS_B, 1, 63, 0, 5),),
            # A wastes 0.1 + 0.2 = 0.30000000000000004, B 0.3 + 0.0 = 0.3 (3/10 both, exactly)
            id="float64 sums equal in exact arithmetic do not tie: the smaller one wins",
        ),
        pytest.param(
            (7000, 8064),
            (9000, 10080),
            (ScaleUp(AKS_A, 1, 63, 0, 5),),
            # A wastes 0.1 + 0.0 = 0.1, B 0.3 + 0.2 = 0.5
            id="the least waste wins",
        ),
    ],
)
def test_least_waste_adds_its_fractions_in_float64(
    a: tuple[int, int], b: tuple[int, int], scale_up: tuple[ScaleUp, ...]
) -> None:
    groups = [
        status_group(AKS_A, target=0, max_size=5),
        status_group(AKS_B, target=0, max_size=5),
    ]
    objects = [status_configmap(*groups), autoscaler_deployment("--expander=least-waste")]
    decision = Run([], objects, config=_two_templates(a, b)).decide(
        spec(cpu="100m", memory="128Mi"), 63
    )
    assert (decision.scale_up, decision.options) == (scale_up, ())


@pytest.mark.parametrize(
    ("scores", "kept"),
    [
        pytest.param(
            [("a", 0.5), ("b", 0.25), ("c", 0.25)], ["b", "c"], id="ties on the least are all kept"
        ),
        pytest.param(
            [("a", 0.0), ("b", 0.0)], ["a", "b"], id="a first score of 0 is kept and tied"
        ),
        pytest.param([("a", math.nan), ("b", 0.1)], ["a"], id="a NaN first option stays alone"),
        pytest.param([("a", 0.2), ("b", math.nan)], ["a"], id="a NaN later option is never kept"),
        pytest.param(
            [("a", math.inf), ("b", 2.0)], ["b"], id="an infinite waste loses to any finite one"
        ),
    ],
)
def test_least_waste_keeps_options_as_its_loop_does(
    scores: list[tuple[str, float]], kept: list[str]
) -> None:
    assert _least_waste(scores) == kept


def _pinned(*names: str) -> dict[str, Any]:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": list(names)}]}
    required = {"nodeSelectorTerms": [term]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}


# simulator/clustersnapshot/predicate/plugin_runner.go RunFiltersOnNode: a template that
# NodeAffinity's PreFilterResult leaves out fails with NewFailingPredicateError(..., nil
# reasons, "PreFilter filtered the Node out"), whose Reasons() are empty: ReasonsMessage
# counts the group under no reason. A PreFilter's own rejection keeps its reasons.
@pytest.mark.parametrize(
    ("names", "reasons"),
    [
        pytest.param(
            ("user-0",),
            {"in backoff after failed scale-up": 1},
            id="a template left out by a pod pinned to node names gives no reason",
        ),
        pytest.param(
            ("user-0", "user-1"),
            {"in backoff after failed scale-up": 1},
            id="a pin to several existing nodes leaves the template out too",
        ),
    ],
)
def test_a_template_left_out_by_name_is_rejected_under_no_reason(
    names: tuple[str, ...], reasons: dict[str, int]
) -> None:
    run = _run(*_aks(gpu={"scale_up": "Backoff"}))
    decision = run.decide(spec(cpu="9", affinity=_pinned(*names)), 1)
    assert (decision.blocked, decision.reasons) == (1, reasons)


def test_groups_that_all_give_no_reason_leave_the_event_s_list_empty() -> None:
    # eventing_scale_up_processor.go: "pod didn't trigger scale-up: %s" of ReasonsMessage,
    # strings.Join of no message at all
    decision = _run(*_aks()).decide(spec(cpu="9", affinity=_pinned("user-0")), 1)
    assert (decision.reasons, decision.message) == ({}, "pod didn't trigger scale-up: ")


def test_no_event_when_cluster_autoscaler_scales_nothing_at_all() -> None:
    run = Run(USERS, [status_configmap(*_aks())], DAEMONS)  # no template for the gpu group
    assert run.decide(spec(), 1).message == ""


def test_terms_pinning_no_common_name_keep_the_prefilter_s_reason() -> None:
    pinned = _pinned("user-0")
    terms = pinned["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    terms["nodeSelectorTerms"][0]["matchFields"].append(
        {"key": "metadata.name", "operator": "In", "values": ["user-1"]}
    )
    decision = _run(*_aks(gpu={"scale_up": "Backoff"})).decide(spec(cpu="9", affinity=pinned), 1)
    assert decision.reasons == {
        "pod affinity terms conflict": 1,
        "in backoff after failed scale-up": 1,
    }


def _zones_config(*zones: tuple[str, str, int]) -> AutoscalingConfig:
    """Groups at zero, one per (group, zone, millicores of its template)."""
    return AutoscalingConfig(
        groups=tuple(
            ConfiguredGroup(
                group,
                template=NodeTemplate(
                    labels={"pool": "zoned", "topology.kubernetes.io/zone": zone},
                    allocatable={"cpu": cpu, "memory": 32 * 2**30, "pods": 30},
                ),
            )
            for group, zone, cpu in zones
        )
    )


# estimator/binpacking_estimator.go: with required anti-affinity to its own copies over the
# zone, a group's second copy fails on the last new node and on a fresh one (left empty,
# uncounted): each group's option is 1 node, 1 pod, whatever its template holds; most-pods
# then sees a tie, and the choice stays open.
def test_each_zone_s_option_holds_one_copy_under_zone_anti_affinity() -> None:
    groups = [
        status_group(AKS_A, target=0, max_size=5),
        status_group(AKS_B, target=0, max_size=5),
    ]
    objects = [status_configmap(*groups), autoscaler_deployment("--expander=most-pods")]
    config = _zones_config((AKS_A, "z1", 8000), (AKS_B, "z2", 2000))
    term = {
        "labelSelector": {"matchLabels": {"app": "solo"}},
        "topologyKey": "topology.kubernetes.io/zone",
    }
    anti = spec(
        cpu="1",
        nodeSelector={"pool": "zoned"},
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
    )
    decision = Run([], objects, config=config).decide(anti, 3, {"app": "solo"})
    one_each = (ScaleUp(AKS_A, 1, 1, 0, 5), ScaleUp(AKS_B, 1, 1, 0, 5))
    assert (decision.scale_up, decision.placed, decision.options) == (one_each, 2, one_each)


AKS_WIDE = "aks-wide-12345678-vmss"
AKS_NARROWB = "aks-narrowb-12345678-vmss"
AKS_NARROWC = "aks-narrowc-12345678-vmss"


def _wide_and_narrow(*flags: str) -> Run:
    """A wide group (eight copies of 1 cpu a node, one node at most) and two narrow ones
    (one copy a node, ten and three at most), all at zero, beside three Ready nodes."""
    sizes = ((AKS_WIDE, 8500, 1), (AKS_NARROWB, 1500, 10), (AKS_NARROWC, 1500, 3))
    config = AutoscalingConfig(
        groups=tuple(
            ConfiguredGroup(
                group,
                template=NodeTemplate(
                    labels={"pool": group},
                    allocatable={"cpu": cpu, "memory": 64 * 2**30, "pods": 110},
                ),
            )
            for group, cpu, _ in sizes
        )
    )
    groups = [status_group(g, target=0, max_size=most) for g, _, most in sizes]
    objects = [status_configmap(*groups), autoscaler_deployment(*flags)]
    return Run(USERS, objects, DAEMONS, config=config)


# orchestrator.go ScaleUp: each loop's options come from the estimator as the cluster then
# stands; its node count (len(nodes)+len(upcomingNodes)) holds the nodes the loops before
# it added, so estimator/cluster_capacity_threshold.go NodeLimit leaves a later loop only
# what they left of --max-nodes-total.
@pytest.mark.parametrize(
    ("flags", "scale_up", "open_choice"),
    [
        pytest.param(
            ("--expander=most-pods", "--max-nodes-total=7"),
            (ScaleUp(AKS_WIDE, 1, 8, 0, 1), ScaleUp(AKS_NARROWB, 3, 3, 0, 10)),
            True,
            # the second loop's options hold three copies each (3 nodes left of 7): a tie
            id="a later loop weighs the options with the nodes the total still allows",
        ),
        pytest.param(
            ("--expander=most-pods", "--max-nodes-total=8"),
            (ScaleUp(AKS_WIDE, 1, 8, 0, 1), ScaleUp(AKS_NARROWB, 4, 4, 0, 10)),
            False,
            # 4 nodes left: the narrow group of ten holds all four copies, the other three
            id="with room left the later loop's choice is made",
        ),
    ],
)
def test_a_later_loop_weighs_its_options_after_the_earlier_loops_nodes(
    flags: tuple[str, ...], scale_up: tuple[ScaleUp, ...], open_choice: bool
) -> None:
    decision = _wide_and_narrow(*flags).decide(spec(cpu="1"), 12)
    assert (decision.scale_up, bool(decision.options)) == (scale_up, open_choice)


# estimator/cluster_capacity_threshold.go NodeLimit: a negative --max-nodes-total gives -1,
# and threshold_based_limiter.go then refuses every node; static_autoscaler.go and
# GetCappedNewNodeCount test the total only when above 0. No group has an option, and
# orchestrator.go GetRemainingPods gives a NotTriggerScaleUp only to pods no group's
# template takes.
@pytest.mark.parametrize(
    ("cpu", "decision", "message"),
    [
        pytest.param(
            "1",
            Decision(2, unjudged="--max-nodes-total=-1 lets its estimator add no node"),
            "",
            id="a negative total lets no group add a node, and the copies get no event",
        ),
        pytest.param(
            "64",
            Decision(2, (), 0, {"Insufficient cpu": 1, TAINTED: 1}),
            f"pod didn't trigger scale-up: 1 Insufficient cpu, 1 {TAINTED}",
            id="copies no template takes get their groups' reasons under a negative total",
        ),
    ],
)
def test_a_negative_total_adds_no_node(cpu: str, decision: Decision, message: str) -> None:
    decided = _run(*_aks(), flags=("--max-nodes-total=-1",)).decide(spec(cpu=cpu), 2)
    assert (decided, decided.message) == (decision, message)


# orchestrator.go ScaleUp asks UpcomingNodes before ResourcesLeft: a group still bringing up
# nodes (clusterstate.go GetUpcomingNodes: its target above its registered nodes) whose
# template CA cannot build fails the whole scale-up ("failed to find template node for node
# group"), limits or not; a group with no node info and nothing upcoming is only skipped.
@pytest.mark.parametrize(
    ("target", "decision"),
    [
        pytest.param(
            2,
            Decision(10, unjudged=f"failed to find template node for node group {AKS_GPU}"),
            id="a group bringing up nodes without node info stops every scale-up",
        ),
        pytest.param(
            0,
            Decision(10, (ScaleUp(AKS_USER, 4, 10, 3, 10),), 10),
            id="a group with no node info and nothing upcoming is only skipped",
        ),
    ],
)
def test_upcoming_nodes_of_a_group_without_node_info_stop_every_scale_up(
    target: int, decision: Decision
) -> None:
    groups = [
        status_group(AKS_USER, target=3, max_size=10),
        status_group(AKS_GPU, target=target, max_size=4),
    ]
    objects = [
        status_configmap(*groups),
        autoscaler_deployment("--cores-total=0:0", "--memory-total=0:0"),
    ]
    assert Run(USERS, objects, DAEMONS).decide(spec(cpu="1"), 10) == decision


def test_the_total_reached_comes_before_a_group_without_node_info() -> None:
    # static_autoscaler.go RunOnce: ScaleUpLimitedByMaxNodesTotal is decided before ScaleUp,
    # whose UpcomingNodes and ResourcesLeft would fail on the group CA has no template for
    objects = [
        status_configmap(*_aks()),
        autoscaler_deployment("--max-nodes-total=3", "--cores-total=0:100"),
    ]
    decision = Run(USERS, objects, DAEMONS).decide(spec(cpu="1"), 2)
    assert (decision, decision.message) == (
        Decision(2, reasons={"max total nodes in cluster reached": 1}),
        "pod didn't trigger scale-up: max total nodes in cluster reached",
    )
