"""Karpenter's provisioning decision for copies no existing node takes (gate/scheduler/
karpenter/), on the small catalog of tests/karpenter_support.py, against sigs.k8s.io/karpenter
v1.8.3: pkg/controllers/provisioning/provisioner.go ``NewScheduler`` (Ready, dynamic pools,
weight then name desc), scheduling/scheduler.go ``addToNewNodeClaim`` (limits first,
``subtractMax``), scheduling/nodeclaim.go ``CanAdd`` and ``InstanceTypeFilterError``,
scheduling/preferences.go (relaxation), scheduling/topologygroup.go (spread), and the
scheduling suite (scheduling/suite_test.go "Limits", "Daemonsets", "Taints",
"Preferential Fallback", "Topology") for the situations."""

from __future__ import annotations

import time
from typing import Any

import pytest

from gate.model.karpenter import (
    Catalog,
    KarpenterState,
    NodeClaim,
    NodeClass,
    NodePool,
    Requirement,
)
from gate.model.taints import Taint
from gate.scheduler.autoscaling.karpenter import Provisioner
from gate.scheduler.autoscaling.karpenter.decision import PoolDecision, PoolScaleUp
from gate.scheduler.autoscaling.karpenter.provisioner import _Claim, _Variant
from gate.scheduler.autoscaling.karpenter.topology import TOPOLOGY, AntiZone, Spread, Zonal
from gate.scheduler.autoscaling.karpenter.volumetopology import MATCH_FIELDS
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.plugins import prepare
from tests.builders import api_pod
from tests.karpenter_support import (
    ARCH,
    CATALOG,
    INSTANCE_TYPE,
    MI,
    ZONE,
    Run,
    daemon_set,
    instance_type,
    karpenter_node,
    spec,
)

LIMITS = "all available instance types exceed limits for nodepool"
NO_ROOM = "no instance type has enough resources"
ALL_1CPU = (
    "c-2x",
    "c-2x-arm",
    "m-2x",
    "m-2x-arm",
    "c-4x",
    "c-4x-arm",
    "m-4x",
    "m-4x-arm",
    "r-4x",
    "c-8x",
    "m-8x",
    "g-4x",
)
"""Every type of the catalog holds a 1 cpu / 1Gi copy; by price (spot), then name."""
APP = {"app": "web"}
TAINT = Taint("dedicated", "gpu", "NoSchedule")
_MIN3 = Requirement(INSTANCE_TYPE, "Exists", (), 3)


def _in(key: str, *values: str) -> Requirement:
    return Requirement(key, "In", values)


def _web(name: str, node: str) -> dict[str, Any]:
    pod = api_pod(name, node)
    pod["metadata"]["labels"] = APP
    return pod


def _spread(key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule") -> dict[str, Any]:
    return {
        "maxSkew": skew,
        "topologyKey": key,
        "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": APP},
    }


def _affinity(required: list[list[str]], preferred: list[tuple[int, str]]) -> dict[str, Any]:
    """Required terms on the arch, each ``[arch, ...]``; preferred ``(weight, zone)``."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": ARCH, "operator": "In", "values": arches}]}
                    for arches in required
                ]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": weight,
                    "preference": {
                        "matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]
                    },
                }
                for weight, zone in preferred
            ],
        }
    }


_NAME_IN = {"key": "metadata.name", "operator": "In", "values": ["node-1"]}


def _fields(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
        }
    }


PREFERRED_ANTI = {
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 100,
                "podAffinityTerm": {
                    "topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchLabels": APP},
                },
            }
        ]
    }
}
"""A preferred anti-affinity over hostnames to the pod's own copies."""

CASES = [
    pytest.param(
        Run((NodePool("a"), NodePool("b"), NodePool("heavy", weight=10))),
        spec(),
        1,
        PoolDecision(1, (PoolScaleUp("heavy", 1, 1, ALL_1CPU),), 1),
        id="the heaviest pool takes it (provisioner.go OrderByWeight)",
    ),
    pytest.param(
        Run((NodePool("a"), NodePool("b"))),
        spec(),
        1,
        PoolDecision(1, (PoolScaleUp("b", 1, 1, ALL_1CPU),), 1),
        id="equal weights: by name, descending (pkg/utils/nodepool/nodepool.go OrderByWeight)",
    ),
    pytest.param(
        Run((NodePool("static", weight=100, replicas=2), NodePool("default"))),
        spec(),
        1,
        PoolDecision(1, (PoolScaleUp("default", 1, 1, ALL_1CPU),), 1),
        id="a static pool provisions nothing for pods",
    ),
    pytest.param(
        Run((NodePool("broken", weight=100, ready=False), NodePool("default"))),
        spec(),
        1,
        PoolDecision(1, (PoolScaleUp("default", 1, 1, ALL_1CPU),), 1),
        id="a pool not Ready is ignored",
    ),
    pytest.param(
        Run((NodePool("broken", ready=False, not_ready="Ready is False"),)),
        spec(),
        3,
        PoolDecision(3, unjudged="no nodepools found"),
        id="no Ready pool: Karpenter only logs",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(),
        10,
        PoolDecision(
            10,
            (
                PoolScaleUp(
                    "default",
                    2,
                    10,
                    ("c-4x", "c-4x-arm", "m-4x", "m-4x-arm", "r-4x", "c-8x", "m-8x", "g-4x"),
                ),
            ),
            10,
        ),
        id="a claim holds as many as its roomiest type (8 cpu: 7 copies), then a new one",
    ),
    pytest.param(
        Run((NodePool("default", limits={"cpu": 8000}),)),
        spec(),
        10,
        PoolDecision(
            10,
            (PoolScaleUp("default", 1, 7, ("c-8x", "m-8x")),),
            7,
            (("default", LIMITS, f"{LIMITS} (NodePool=default)"),),
        ),
        id="a claim subtracts its largest type (subtractMax): the limit is spent by one",
    ),
    pytest.param(
        Run(
            (NodePool("default", limits={"cpu": 4000}),),
            nodes=[karpenter_node("n1", "default", "zone-a")],
        ),
        spec(),
        1,
        PoolDecision(1, errors=(("default", LIMITS, f"{LIMITS} (NodePool=default)"),)),
        id="limits exhausted by the pool's nodes' capacity, checked before CanAdd",
    ),
    pytest.param(
        Run(
            (NodePool("default", limits={"cpu": 16000}),),
            state=KarpenterState(
                (NodePool("default", limits={"cpu": 16000}),),
                (NodeClaim("launching", "default", capacity={"cpu": 16000}),),
            ),
        ),
        spec(),
        1,
        PoolDecision(1, errors=(("default", LIMITS, f"{LIMITS} (NodePool=default)"),)),
        id="an in-flight NodeClaim counts against the limits",
    ),
    # provisioner.go Schedule: the scheduler gets nodes.Active(), none MarkedForDeletion
    # (statenode.go Deleted: a NodeClaim with a deletionTimestamp or InstanceTerminating)
    pytest.param(
        Run(
            (NodePool("default", limits={"cpu": 16000}),),
            state=KarpenterState(
                (NodePool("default", limits={"cpu": 16000}),),
                (NodeClaim("leaving", "default", capacity={"cpu": 16000}, deleting=True),),
            ),
        ),
        spec(),
        1,
        PoolDecision(1, (PoolScaleUp("default", 1, 1, ALL_1CPU),), 1),
        id="a NodeClaim being deleted does not count against the limits",
    ),
    pytest.param(
        Run(
            (NodePool("default", limits={"cpu": 4000}),),
            nodes=[karpenter_node("n1", "default", "zone-a")],
            state=KarpenterState(
                (NodePool("default", limits={"cpu": 4000}),),
                (NodeClaim("c1", "default", node_name="n1", deleting=True),),
            ),
        ),
        spec(),
        1,
        PoolDecision(
            1, (PoolScaleUp("default", 1, 1, tuple(t for t in ALL_1CPU if "8x" not in t)),), 1
        ),
        id="nor does the node of a NodeClaim being deleted",
    ),
    pytest.param(
        Run((NodePool("default", limits={"cpu": 4000}),)),
        spec(cpu="6"),
        1,
        PoolDecision(
            1,
            errors=(
                (
                    "default",
                    NO_ROOM,
                    f"{NO_ROOM}, requirements=karpenter.sh/nodepool In [default], "
                    'resources={"cpu":"6","memory":"1Gi","pods":"1"}',
                ),
            ),
        ),
        id="limits drop the types above them (8 cpu): none left holds 6 cpu",
    ),
    pytest.param(
        Run(
            (NodePool("default", limits={"nodes": 1}),),
            nodes=[karpenter_node("n1", "default", "zone-a")],
        ),
        spec(cpu="3"),
        2,
        PoolDecision(2, (PoolScaleUp("default", 1, 2, ("c-8x", "m-8x")),), 2),
        id="limits.nodes is not enforced: a type's capacity has no nodes",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(nodeSelector={"team": "x"}),
        2,
        PoolDecision(
            2,
            errors=(
                (
                    "default",
                    "incompatible requirements",
                    'incompatible requirements, label "team" does not have known values',
                ),
            ),
        ),
        id="a label no pool defines (requirements.go Compatible)",
    ),
    pytest.param(
        Run((NodePool("default", labels={"team": "x"}),)),
        spec(nodeSelector={"team": "x"}),
        1,
        PoolDecision(1, (PoolScaleUp("default", 1, 1, ALL_1CPU),), 1),
        id="a pool's label is a requirement the pod may select",
    ),
    pytest.param(
        Run(
            (
                NodePool("arm", requirements=(_in(ARCH, "arm64"),)),
                NodePool("tainted", weight=5, taints=(TAINT,)),
            )
        ),
        spec(nodeSelector={ARCH: "amd64"}),
        2,
        PoolDecision(
            2,
            errors=(
                (
                    "tainted",
                    "did not tolerate taint",
                    "did not tolerate taint (taint=dedicated=gpu:NoSchedule)",
                ),
                (
                    "arm",
                    "incompatible requirements",
                    "incompatible requirements, key kubernetes.io/arch, "
                    "kubernetes.io/arch In [amd64] not in kubernetes.io/arch In [arm64]",
                ),
            ),
        ),
        id="taint not tolerated, In mismatch: each pool's error in pool order",
    ),
    pytest.param(
        Run((NodePool("tainted", taints=(TAINT,)),)),
        spec(tolerations=[{"key": "dedicated", "operator": "Exists"}]),
        1,
        PoolDecision(1, (PoolScaleUp("tainted", 1, 1, ALL_1CPU),), 1),
        id="a tolerated taint",
    ),
    pytest.param(
        Run((NodePool("soft", taints=(Taint("spot", "yes", "PreferNoSchedule"),)),)),
        spec(),
        1,
        PoolDecision(1, (PoolScaleUp("soft", 1, 1, ALL_1CPU),), 1),
        id="PreferNoSchedule refuses the pod until relaxation tolerates it (preferences.go)",
    ),
    pytest.param(
        Run(
            (NodePool("default", requirements=(_in(INSTANCE_TYPE, "c-2x"), _in(ARCH, "amd64"))),),
            daemon_sets=(
                daemon_set("agent", 500, 100 * MI),
                daemon_set("arm-agent", 500, 100 * MI, nodeSelector={ARCH: "arm64"}),
                daemon_set("gpu-agent", 500, 100 * MI, nodeSelector={"gpu": "true"}),
            ),
        ),
        spec(cpu="1500m"),
        1,
        PoolDecision(
            1,
            errors=(
                (
                    "default",
                    NO_ROOM,
                    f"{NO_ROOM}, requirements=karpenter.sh/nodepool In [default], "
                    "kubernetes.io/arch In [amd64], node.kubernetes.io/instance-type In [c-2x], "
                    'resources={"cpu":"2","memory":"1124Mi","pods":"2"}',
                ),
            ),
        ),
        id="the DaemonSet overhead tips the only type over (isDaemonPodCompatible)",
    ),
    pytest.param(
        Run((NodePool("default", requirements=(_in(INSTANCE_TYPE, "c-2x"),)),)),
        spec(cpu="1500m"),
        1,
        PoolDecision(1, (PoolScaleUp("default", 1, 1, ("c-2x",)),), 1),
        id="without the DaemonSet it fits",
    ),
    # pkg/apis/v1/labels.go: the hostname is not among WellKnownLabels and a template has
    # no hostname requirement, so isDaemonPodCompatible finds a DaemonSet pinned to one node
    # "does not have known values" and leaves its requests out of the overhead.
    pytest.param(
        Run(
            (NodePool("default", requirements=(_in(INSTANCE_TYPE, "c-2x"),)),),
            daemon_sets=(
                daemon_set("pinned", 500, 100 * MI, nodeSelector={"kubernetes.io/hostname": "a"}),
            ),
        ),
        spec(cpu="1500m"),
        1,
        PoolDecision(1, (PoolScaleUp("default", 1, 1, ("c-2x",)),), 1),
        id="a DaemonSet pinned to a hostname adds no overhead to a new node",
    ),
    # scheduler.go isDaemonPodCompatible reads NewStrictPodRequirements, MatchExpressions
    # alone: a DaemonSet pinned by matchFields (as its controller pins each of its pods) has
    # no requirement, so its requests count on every pool
    pytest.param(
        Run(
            (NodePool("default", requirements=(_in(INSTANCE_TYPE, "c-2x"),)),),
            daemon_sets=(
                daemon_set(
                    "by-name",
                    500,
                    100 * MI,
                    affinity=_fields({"matchFields": [_NAME_IN]}),
                ),
            ),
        ),
        spec(cpu="1500m"),
        1,
        PoolDecision(
            1,
            errors=(
                (
                    "default",
                    NO_ROOM,
                    f"{NO_ROOM}, requirements=karpenter.sh/nodepool In [default], "
                    "node.kubernetes.io/instance-type In [c-2x], "
                    'resources={"cpu":"2","memory":"1124Mi","pods":"2"}',
                ),
            ),
        ),
        id="a DaemonSet pinned by matchFields alone adds its overhead to every new node",
    ),
    # scheduling/nodeclaim.go InstanceTypeFilterError.Error: the m vs M hint reads the pod's
    # own cpu request, the resources shown add the DaemonSets' (each quantity in its format:
    # 1M cores as written, the DaemonSet's 1 core plus 999999 in the DaemonSet's DecimalSI)
    pytest.param(
        Run((NodePool("default"),)),
        spec(cpu="1M"),
        1,
        PoolDecision(
            1,
            errors=(
                (
                    "default",
                    NO_ROOM,
                    f"{NO_ROOM}, requirements=karpenter.sh/nodepool In [default], "
                    'resources={"cpu":"1M","memory":"1Gi","pods":"1"} '
                    "(CPU request >= 1 Million, m vs M typo?)",
                ),
            ),
        ),
        id="a pod asking a million cores is told of the m vs M typo",
    ),
    pytest.param(
        Run((NodePool("default"),), daemon_sets=(daemon_set("agent", 1000, MI),)),
        spec(cpu="999999"),
        1,
        PoolDecision(
            1,
            errors=(
                (
                    "default",
                    NO_ROOM,
                    f"{NO_ROOM}, requirements=karpenter.sh/nodepool In [default], "
                    'resources={"cpu":"1M","memory":"1025Mi","pods":"2"}',
                ),
            ),
        ),
        id="the DaemonSets' cpu does not bring the m vs M hint",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(
            containers=[
                {
                    "name": "c",
                    "image": "i",
                    "resources": {
                        "requests": {"cpu": "1", "nvidia.com/gpu": "1"},
                        "limits": {"nvidia.com/gpu": "1"},
                    },
                }
            ]
        ),
        2,
        PoolDecision(2, (PoolScaleUp("default", 2, 2, ("g-4x",)),), 2),
        id="an extended resource only one type has",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(
            cpu="100m",
            memory="100Mi",
            affinity={
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "topologyKey": "kubernetes.io/hostname",
                            "labelSelector": {"matchLabels": APP},
                        }
                    ]
                }
            },
        ),
        3,
        PoolDecision(3, (PoolScaleUp("default", 3, 3, ALL_1CPU),), 3),
        id="hostname anti-affinity to itself: one node per copy",
    ),
    # topology.go newForAffinities takes the preferred terms too (PreferencePolicy
    # Respect); a new claim never fails them, so preferences.go Relax never drops them
    pytest.param(
        Run((NodePool("default"),)),
        spec(
            cpu="100m",
            memory="100Mi",
            affinity={
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 100,
                            "podAffinityTerm": {
                                "topologyKey": "kubernetes.io/hostname",
                                "labelSelector": {"matchLabels": APP},
                            },
                        }
                    ]
                }
            },
        ),
        3,
        PoolDecision(3, (PoolScaleUp("default", 3, 3, ALL_1CPU),), 3),
        id="preferred hostname anti-affinity to itself: one node per copy too",
    ),
    # preferences.go Relax drops the preferred anti-affinity once a pool's limits refuse a
    # new claim; the relaxed copy then joins a planned one (scheduler.go addToInflightNode)
    pytest.param(
        Run((NodePool("default", limits={"cpu": 8000}),)),
        spec(cpu="100m", memory="100Mi", affinity=PREFERRED_ANTI),
        3,
        PoolDecision(3, (PoolScaleUp("default", 1, 3, ALL_1CPU),), 3),
        id="with the limits spent the relaxed copies join the one claim they allowed",
    ),
    pytest.param(
        Run((NodePool("default", limits={"cpu": 16000}),)),
        spec(cpu="100m", memory="100Mi", affinity=PREFERRED_ANTI),
        3,
        PoolDecision(3, (PoolScaleUp("default", 2, 3, ALL_1CPU),), 3),
        id="the limits allow two claims and the third copy joins the first",
    ),
    pytest.param(
        Run((NodePool("default", limits={"cpu": 8000}),)),
        spec(
            cpu="100m",
            memory="100Mi",
            topologySpreadConstraints=[_spread("kubernetes.io/hostname", 2, "ScheduleAnyway")],
        ),
        5,
        PoolDecision(5, (PoolScaleUp("default", 1, 5, ALL_1CPU),), 5),
        id="a ScheduleAnyway hostname spread is dropped too once the limits refuse a claim",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(
            cpu="100m",
            memory="100Mi",
            topologySpreadConstraints=[_spread("kubernetes.io/hostname", 2, "ScheduleAnyway")],
        ),
        5,
        PoolDecision(5, (PoolScaleUp("default", 3, 5, ALL_1CPU),), 5),
        id="a ScheduleAnyway hostname spread maxSkew 2 is held as a DoNotSchedule one",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(
            cpu="100m",
            memory="100Mi",
            topologySpreadConstraints=[_spread("kubernetes.io/hostname", 2)],
        ),
        5,
        PoolDecision(5, (PoolScaleUp("default", 3, 5, ALL_1CPU),), 5),
        id="hostname spread maxSkew 2: each new claim a domain of two",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(affinity=_affinity([["ppc64le"], ["arm64"]], [(10, "zone-c")])),
        1,
        PoolDecision(
            1, (PoolScaleUp("default", 1, 1, ("c-2x-arm", "m-2x-arm", "c-4x-arm", "m-4x-arm")),), 1
        ),
        id="relaxed: the first required term, then the preferred zone, are dropped",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(affinity=_affinity([["ppc64le"]], [])),
        1,
        PoolDecision(
            1,
            errors=(
                (
                    "default",
                    "no instance type met all requirements",
                    "no instance type met all requirements, requirements=karpenter.sh/nodepool "
                    'In [default], kubernetes.io/arch In [ppc64le], resources={"cpu":"1",'
                    '"memory":"1Gi","pods":"1"}',
                ),
            ),
        ),
        id="no type of the arch: InstanceTypeFilterError",
    ),
    pytest.param(
        Run((NodePool("default", requirements=(_MIN3,)),)),
        spec(),
        10,
        PoolDecision(10, (PoolScaleUp("default", 4, 10, ALL_1CPU),), 10),
        id="minValues 3 types: a claim stops at 3 copies, where three types still hold them",
    ),
    pytest.param(
        Run((NodePool("default", requirements=(_MIN3,)),)),
        spec(cpu="5"),
        1,
        PoolDecision(
            1,
            errors=(
                (
                    "default",
                    "minValues requirement is not met for label(s)",
                    "minValues requirement is not met for label(s) (label(s)=[node.kubernetes."
                    "io/instance-type]), requirements=karpenter.sh/nodepool In [default], "
                    "node.kubernetes.io/instance-type Exists minValues 3, "
                    'resources={"cpu":"5","memory":"1Gi","pods":"1"}',
                ),
            ),
        ),
        id="minValues: two types hold 5 cpu, three are wanted (SatisfiesMinValues)",
    ),
]


@pytest.mark.parametrize(("run", "pod", "copies", "decision"), CASES)
def test_decide(run: Run, pod: dict[str, Any], copies: int, decision: PoolDecision) -> None:
    assert run.decide(pod, copies, APP) == decision


def test_anti_affinity_selecting_its_own_namespace_by_label_takes_one_node_per_copy() -> None:
    """The term covers the pod's namespace only through its namespaceSelector: the
    scheduler reads the namespace's labels, so each claim takes one copy (read without
    them, the term matched no copy and one claim took all three)."""
    term = {
        "topologyKey": "kubernetes.io/hostname",
        "labelSelector": {"matchLabels": APP},
        "namespaceSelector": {"matchLabels": {"team": "web"}},
    }
    anti = spec(
        cpu="100m",
        memory="100Mi",
        affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
    )
    namespace = {"kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "web"}}}
    run = Run((NodePool("default"),), namespaces=[namespace])
    assert run.decide(anti, 3, APP) == PoolDecision(3, (PoolScaleUp("default", 3, 3, ALL_1CPU),), 3)


def test_notes_say_what_is_ignored() -> None:
    run = Run(
        (
            NodePool("static", replicas=2),
            NodePool("broken", ready=False, not_ready="NodeClassReady is False"),
            NodePool("leaving", weight=100, deleting=True),
            NodePool("nothing", requirements=(_in(INSTANCE_TYPE, "z-99x"),)),
            NodePool("default"),
        )
    )
    assert run.provisioner.notes == (
        "NodePools are judged with the instance types of test catalog (KWOK's JSON)",
        "NodePool static is static (replicas: 2): it provisions no node for pods",
        "NodePool broken is not Ready (NodeClassReady is False): Karpenter ignores it",
        "NodePool leaving is being deleted: Karpenter ignores it",
        "NodePool nothing: its requirements filter out every instance type: Karpenter skips it",
    )


def test_a_pool_being_deleted_takes_no_copy() -> None:
    """provisioner.go ``NewScheduler``: only pools whose ``DeletionTimestamp`` is zero."""
    run = Run((NodePool("leaving", weight=100, deleting=True), NodePool("default")))
    (scale_up,) = run.decide(spec(), 1).scale_up
    assert scale_up.pool == "default"


def test_every_pool_filtered_out() -> None:
    """scheduler.go ``add``: no template left."""
    run = Run((NodePool("nothing", requirements=(_in(INSTANCE_TYPE, "z-99x"),)),))
    said = "nodepool requirements filtered out all available instance types"
    assert run.decide(spec(), 1).errors == (("", said, said),)


def test_message_and_reasons_for_a_pod_no_pool_takes() -> None:
    """events.go ``PodFailedToScheduleEvent``: the pools' errors joined by multierr."""
    run = Run(
        (
            NodePool("arm", requirements=(_in(ARCH, "arm64"),)),
            NodePool("gpu", weight=5, taints=(TAINT,)),
            NodePool("full", weight=1, limits={"cpu": 0}),
        )
    )
    decision = run.decide(spec(nodeSelector={ARCH: "amd64"}), 4)
    assert decision.blocked == 4 and decision.nodes == 0
    assert decision.reasons == {
        "did not tolerate taint": 1,
        LIMITS: 1,
        "incompatible requirements": 1,
    }
    assert decision.message == (
        "Failed to schedule pod, did not tolerate taint (taint=dedicated=gpu:NoSchedule); "
        f"{LIMITS} (NodePool=full); incompatible requirements, key kubernetes.io/arch, "
        "kubernetes.io/arch In [amd64] not in kubernetes.io/arch In [arm64]"
    )


def test_remaining_limits_are_shared_by_the_run_in_order() -> None:
    """The scheduler's ``remainingResources`` persist over the pods of one Solve."""
    run = Run((NodePool("default", limits={"cpu": 16000}),))
    first = run.decide(spec(), 10)
    assert first.scale_up == (PoolScaleUp("default", 2, 10, ALL_1CPU[4:]),)
    second = run.decide(spec(), 1)
    assert second.placed == 0
    assert second.errors == (("default", LIMITS, f"{LIMITS} (NodePool=default)"),)


def test_zonal_spread_over_two_zonal_pools() -> None:
    """topologygroup.go ``nextDomainTopologySpread``: two matching pods already in zone-a;
    a zone-b pool (heavier) takes copies while the skew allows, the zone-a pool the next."""
    nodes = [karpenter_node("n-a", "old", "zone-a"), karpenter_node("n-b", "old", "zone-b")]
    pools = (
        NodePool("in-b", weight=10, requirements=(_in(ZONE, "zone-b"),)),
        NodePool("in-a", requirements=(_in(ZONE, "zone-a"),)),
    )
    run = Run(pools, nodes=nodes, pods=[_web("w1", "n-a"), _web("w2", "n-a")])
    decision = run.decide(spec(cpu="3", topologySpreadConstraints=[_spread()]), 4, APP)
    assert [(s.pool, s.nodes, s.copies) for s in decision.scale_up] == [
        ("in-b", 2, 3),
        ("in-a", 1, 1),
    ]
    assert decision.placed == 4


def test_a_planned_claim_refuses_a_preference_its_types_do_not_meet() -> None:
    """nodeclaim.go ``CanAdd`` filters a planned claim's types by the pod's requirements
    again (``filterInstanceTypesByRequirements``). The first copy's preferred type ``big``
    (zone-b only) breaks the skew there and relaxes into a ``small`` claim in zone-a; the
    second copy, preference on, finds no ``big`` among that claim's types (its pool asks
    only the arch) and gets one in zone-b."""
    catalog = Catalog(
        (
            instance_type("small", 4, 8, zones=("zone-a", "zone-b"), spot=False),
            instance_type("big", 16, 32, "arm64", zones=("zone-b",), spot=False),
        ),
        "t",
    )
    nodes = [karpenter_node("n-a", "old", "zone-a"), karpenter_node("n-b", "old", "zone-b")]
    pools = (
        NodePool("small", weight=10, requirements=(_in(ARCH, "amd64"),)),
        NodePool("big", requirements=(_in(ARCH, "arm64"),)),
    )
    run = Run(pools, nodes=nodes, pods=[_web("w1", "n-b")], catalog=catalog)
    prefer = {"matchExpressions": [{"key": INSTANCE_TYPE, "operator": "In", "values": ["big"]}]}
    affinity = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": prefer}]
        }
    }
    pod = spec(topologySpreadConstraints=[_spread()], affinity=affinity)
    decision = run.decide(pod, 2, APP)
    assert [(s.pool, s.nodes, s.copies) for s in decision.scale_up] == [
        ("small", 1, 1),
        ("big", 1, 1),
    ]


def test_zonal_spread_one_pool_spreads_over_its_offerings() -> None:
    """A pool with both zones: copies alternate between them, one 7-cpu copy a node."""
    run = Run((NodePool("default"),))
    decision = run.decide(spec(cpu="7", topologySpreadConstraints=[_spread()]), 4, APP)
    assert decision == PoolDecision(4, (PoolScaleUp("default", 4, 4, ("c-8x", "m-8x")),), 4)


def test_zonal_spread_blocked() -> None:
    """The only pool is in zone-a, where two copies already run; zone-b is a domain with
    none, registered by an existing node there (topology.go ``countDomains``): the skew
    refuses. Without that node zone-b is no domain (``buildDomainGroups`` reads the pool's
    zones) and the copy goes to zone-a."""
    nodes = [karpenter_node("n-a", "old", "zone-a"), karpenter_node("n-b", "old", "zone-b")]
    run = Run(
        (NodePool("in-a", requirements=(_in(ZONE, "zone-a"),)),),
        nodes=nodes,
        pods=[_web("w1", "n-a"), _web("w2", "n-a")],
        catalog=Catalog(CATALOG.types, "t"),
    )
    decision = run.decide(spec(topologySpreadConstraints=[_spread()]), 1, APP)
    assert decision.errors == (
        (
            "in-a",
            "unsatisfiable topology constraint",
            "unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/"
            "zone (counts = zone-a: 2, zone-b: 0, podDomains = topology.kubernetes.io/zone Exists, "
            "nodeDomains = topology.kubernetes.io/zone In [zone-a]",
        ),
    )


def test_catalog_from_running_nodes() -> None:
    """No catalog: the types running in the cluster, at their nodes' allocatable."""
    nodes = [
        karpenter_node("n1", "default", "zone-a"),
        karpenter_node("n2", "default", "zone-b", cpu="8", memory="16Gi", kind="c-8x"),
    ]
    run = Run((NodePool("default"),), nodes=nodes, catalog=None)
    assert run.provisioner.notes == (
        "no instance-type catalog was given: NodePools are judged with the types running in "
        "the cluster (c-4x, c-8x), at their nodes' allocatable",
    )
    # both nodes list allocatable 3900m / 7Gi: three 1-cpu copies a node
    assert run.decide(spec(), 5) == PoolDecision(
        5, (PoolScaleUp("default", 2, 5, ("c-4x", "c-8x")),), 5
    )


def test_node_class_overrides_allocatable() -> None:
    """The NodeClass's kubelet settings: maxPods, and reserved amounts replacing overhead."""
    pool = NodePool("default", node_class=("karpenter.k8s.aws", "EC2NodeClass", "small"))
    state = KarpenterState(
        (pool,),
        node_classes=(NodeClass("EC2NodeClass", "small", max_pods=4, kube_reserved={"cpu": 1000}),),
    )
    run = Run((pool,), state=state)
    decision = run.decide(spec(cpu="100m", memory="100Mi"), 10)
    assert decision.nodes == 3 and decision.placed == 10  # four pods a node


def test_a_claim_offers_its_600_cheapest_types() -> None:
    """scheduler.go ``TruncateInstanceTypes`` (provisioner.go: ``MaxInstanceTypes``, 600 in
    nodeclaimtemplate.go): a NodeClaim is launched with its cheapest 600 types only."""
    types = tuple(instance_type(f"t{i:03d}", 2 + i, 4, spot=False) for i in range(601))
    decision = Run((NodePool("default"),), catalog=Catalog(types, "t")).decide(spec(), 1)
    (scale_up,) = decision.scale_up
    assert len(scale_up.instance_types) == 600
    assert scale_up.instance_types[0] == "t000" and "t600" not in scale_up.instance_types


def test_a_thousand_copies_decide_fast() -> None:
    """1,000 copies, three pools, a 50-type catalog: well under a second."""
    types = tuple(
        instance_type(f"t{i:02d}", 2 + i % 8 * 2, 4 + i % 5 * 8, "arm64" if i % 3 else "amd64")
        for i in range(50)
    )
    pools = (
        NodePool("a", weight=10, requirements=(_in(ARCH, "arm64"),), limits={"cpu": 200_000}),
        NodePool("b", weight=5),
        NodePool("c"),
    )
    run = Run(pools, catalog=Catalog(types, "t"))
    start = time.perf_counter()
    decision = run.decide(spec(cpu="500m", memory="512Mi"), 1000)
    elapsed = time.perf_counter() - start
    assert decision.placed == 1000
    assert elapsed < 0.5


RESTRICTED = (
    "ignoring pod, label is restricted; specify a well known label or a custom label that "
    "does not use a restricted domain (label={key})"
)


def _required(key: str, operator: str, *values: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": key, "operator": operator, "values": list(values)}]}
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
        }
    }


_IN_ZONE = {"key": ZONE, "operator": "In", "values": ["zone-a"]}


@pytest.mark.parametrize(
    ("pod", "unjudged"),
    [
        # suite_test.go "should not schedule pods that have node selectors with restricted
        # labels": the hostname is restricted, not well-known
        pytest.param(
            spec(nodeSelector={"kubernetes.io/hostname": "node-1"}),
            RESTRICTED.format(key="kubernetes.io/hostname"),
            id="a pod pinned to a hostname is ignored",
        ),
        # "... with restricted domains", whatever the operator
        pytest.param(
            spec(affinity=_required("node-role.kubernetes.io/control-plane", "DoesNotExist")),
            RESTRICTED.format(key="node-role.kubernetes.io/control-plane"),
            id="a required term on a node-role label is ignored even when negative",
        ),
        pytest.param(
            spec(nodeSelector={"karpenter.sh/custom": "x", "k8s.io/custom": "y"}),
            RESTRICTED.format(key="k8s.io/custom")
            + "; label is restricted; specify a well known label or a custom label that does "
            "not use a restricted domain (label=karpenter.sh/custom)",
            id="each restricted selector key is said, sorted",
        ),
        # nodeclaim_validation.go ValidateRequirement: a bound must be a positive integer
        pytest.param(
            spec(affinity=_required("example.com/generation", "Gt", "-1")),
            "ignoring pod, key example.com/generation with operator Gt must have a single "
            "positive integer value",
            id="a negative Gt bound is ignored",
        ),
        # provisioner.go validateNodeSelectorTerm: a term's MatchFields, before its
        # expressions; the requirements (scheduling/requirements.go newPodRequirements) read
        # MatchExpressions only, so the pod is refused rather than judged without its fields
        pytest.param(
            spec(affinity=_fields({"matchFields": [_NAME_IN]})),
            f"ignoring pod, {MATCH_FIELDS}",
            id="a required term with matchFields is ignored",
        ),
        pytest.param(
            spec(
                affinity=_fields(
                    {"matchExpressions": [_IN_ZONE]},
                    {
                        "matchFields": [_NAME_IN],
                        "matchExpressions": [
                            {"key": "example.com/generation", "operator": "Lt", "values": ["-1"]}
                        ],
                    },
                )
            ),
            f"ignoring pod, {MATCH_FIELDS}; key example.com/generation with operator Lt must "
            "have a single positive integer value",
            id="matchFields in a later term is said before that term's expressions",
        ),
        pytest.param(
            spec(affinity=_fields({"matchFields": [], "matchExpressions": [_IN_ZONE]})),
            "",
            id="an empty matchFields is not stored and is not refused",
        ),
        pytest.param(
            spec(
                affinity={
                    "nodeAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 1, "preference": {"matchFields": [_NAME_IN]}}
                        ]
                    }
                }
            ),
            "",
            id="a preferred term's matchFields is not validated",
        ),
        # nodeclaim_validation.go validateWellKnownValues: an In on the capacity type must
        # name one of its known values (labels.go WellKnownValuesForRequirements)
        pytest.param(
            spec(nodeSelector={"karpenter.sh/capacity-type": "spot-instance"}),
            "ignoring pod, no valid values found in [spot-instance] for "
            "karpenter.sh/capacity-type, expected one of: map[on-demand:{} reserved:{} "
            "spot:{}], got: [spot-instance]",
            id="a selector on a capacity type Karpenter does not know is ignored",
        ),
        pytest.param(
            spec(affinity=_required("karpenter.sh/capacity-type", "In", "preemptible", "lowpri")),
            "ignoring pod, no valid values found in [preemptible lowpri] for "
            "karpenter.sh/capacity-type, expected one of: map[on-demand:{} reserved:{} "
            "spot:{}], got: [preemptible lowpri]",
            id="a required term naming only unknown capacity types is ignored",
        ),
        pytest.param(
            spec(affinity=_required("karpenter.sh/capacity-type", "In", "preemptible", "spot")),
            "",
            id="one known capacity type among unknown ones is enough",
        ),
        pytest.param(
            spec(affinity=_required("karpenter.sh/capacity-type", "NotIn", "preemptible")),
            "",
            id="only In is held to the known capacity types",
        ),
        # provisioner.go validateKarpenterManagedLabelCanExist
        pytest.param(
            spec(affinity=_required("karpenter.sh/nodepool", "DoesNotExist")),
            "ignoring pod, configured to not run on a Karpenter provisioned node "
            "(requirement=karpenter.sh/nodepool DoesNotExist)",
            id="a pod keeping off Karpenter's nodes is ignored",
        ),
        # "should schedule pods that have node selectors with label in restricted domains
        # exceptions list", and aliases are read as the well-known key
        pytest.param(
            spec(affinity=_required("node.kubernetes.io/custom", "DoesNotExist")),
            "",
            id="the node.kubernetes.io domain is an exception",
        ),
        pytest.param(
            spec(nodeSelector={"failure-domain.beta.kubernetes.io/zone": "test-zone-a"}),
            "",
            id="the beta zone label is the well-known zone",
        ),
    ],
)
def test_pods_karpenter_ignores(pod: dict[str, Any], unjudged: str) -> None:
    """provisioner.go ``Validate``: the pod gets no NodeClaim and is said to be ignored."""
    decision = Run((NodePool("default"),)).decide(pod, 1)
    assert decision.unjudged == unjudged
    assert decision.scale_up == () or not unjudged


def test_a_pod_validate_refuses_is_ignored_before_nodepools_are_looked_for() -> None:
    """provisioner.go ``Schedule``: ``GetPendingPods`` (``Validate``) runs before
    ``NewScheduler`` returns ``no nodepools found``."""
    pod = spec(affinity=_required("karpenter.sh/nodepool", "DoesNotExist"))
    decision = Run((NodePool("broken", ready=False),)).decide(pod, 1)
    assert decision.unjudged == (
        "ignoring pod, configured to not run on a Karpenter provisioned node "
        "(requirement=karpenter.sh/nodepool DoesNotExist)"
    )


@pytest.mark.parametrize(
    ("selector", "order"),
    [
        pytest.param(
            {},
            ("c-4x", "c-4x-arm", "m-4x", "m-4x-arm", "r-4x", "c-8x", "m-8x", "g-4x"),
            id="spot prices first; the GPU type has no spot offering",
        ),
        pytest.param(
            {"karpenter.sh/capacity-type": "on-demand"},
            ("c-4x", "c-4x-arm", "g-4x", "m-4x", "m-4x-arm", "r-4x", "c-8x", "m-8x"),
            id="on-demand only: by on-demand price, then name",
        ),
    ],
)
def test_instance_types_by_price_then_name(
    selector: dict[str, str], order: tuple[str, ...]
) -> None:
    """cloudprovider/types.go ``OrderByPrice``: the cheapest available offering compatible
    with the claim, ties by name."""
    run = Run((NodePool("default"),))
    decision = run.decide(spec(cpu="3", nodeSelector=selector), 1)
    assert decision.scale_up == (PoolScaleUp("default", 1, 1, order),)


def _ported(cpu: str = "100m") -> dict[str, Any]:
    container = {
        "name": "c",
        "image": "i",
        "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}},
        "ports": [{"containerPort": 8080, "hostPort": 8080}],
    }
    return {"containers": [container]}


def test_a_host_port_takes_a_node_per_copy() -> None:
    """hostportusage.go ``Conflicts``: a second copy's port conflicts with the first's."""
    run = Run((NodePool("default"),))
    assert run.decide(_ported(), 3) == PoolDecision(3, (PoolScaleUp("default", 3, 3, ALL_1CPU),), 3)


def test_a_daemon_set_holding_the_host_port_refuses_the_pod() -> None:
    """scheduler.go ``getDaemonHostPortUsage``: the ports of the pool's DaemonSets."""
    run = Run((NodePool("default"),), daemon_sets=(daemon_set("proxy", 100, 10 * MI, **_ported()),))
    assert run.decide(_ported(), 1).errors == (
        (
            "default",
            "pod hostport conflicts with existing hostport configuration",
            "checking host port usage, pod hostport conflicts with existing hostport "
            "configuration (existing-hostport-ip=0.0.0.0, existing-hostport-port=8080, "
            "existing-hostport-protocol=TCP, pod-hostport-ip=0.0.0.0, pod-hostport-port=8080, "
            "pod-hostport-protocol=TCP)",
        ),
    )


def test_pods_per_core_caps_pods_below_max_pods() -> None:
    """The NodeClass's podsPerCore times the cores, when lower than maxPods."""
    pool = NodePool(
        "default",
        requirements=(_in(INSTANCE_TYPE, "c-4x"),),
        node_class=("karpenter.k8s.aws", "EC2NodeClass", "dense"),
    )
    state = KarpenterState(
        (pool,), node_classes=(NodeClass("EC2NodeClass", "dense", max_pods=20, pods_per_core=2),)
    )
    decision = Run((pool,), state=state).decide(spec(cpu="10m", memory="10Mi"), 16)
    assert (decision.nodes, decision.placed) == (2, 16)  # 4 cores x 2 = 8 pods a node


@pytest.mark.parametrize(
    ("node_class", "copies_a_node"),
    [
        pytest.param(NodeClass("EC2NodeClass", "nc"), 3, id="the catalog's overhead: 100m, 10Mi"),
        pytest.param(
            NodeClass("EC2NodeClass", "nc", kube_reserved={"memory": 2560 * MI}),
            2,
            id="kubeReserved memory replaces the memory overhead: 5.5Gi left",
        ),
        pytest.param(
            NodeClass(
                "EC2NodeClass",
                "nc",
                system_reserved={"memory": 512 * MI},
                eviction_hard={"memory.available": 512 * MI},
            ),
            3,
            id="systemReserved + evictionHard memory.available: 7Gi left",
        ),
        pytest.param(
            NodeClass("EC2NodeClass", "nc", eviction_percent={"memory.available": "30%"}),
            2,
            id="an evictionHard percentage of the capacity: 5.6Gi left",
        ),
    ],
)
def test_node_class_reserved_amounts(node_class: NodeClass, copies_a_node: int) -> None:
    """c-4x (4 cpu, 8Gi) and 1 cpu / 2Gi copies: memory decides between two and three."""
    pool = NodePool(
        "default",
        requirements=(_in(INSTANCE_TYPE, "c-4x"),),
        node_class=("karpenter.k8s.aws", "EC2NodeClass", "nc"),
    )
    run = Run((pool,), state=KarpenterState((pool,), node_classes=(node_class,)))
    decision = run.decide(spec(cpu="1", memory="2Gi"), copies_a_node)
    assert (decision.nodes, decision.placed) == (1, copies_a_node)
    assert run.decide(spec(cpu="1", memory="2Gi"), copies_a_node + 1).nodes == 2


ZONE_ANTI = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": ZONE, "labelSelector": {"matchLabels": APP}}
        ]
    }
}
ANTI_BLOCKED = (
    "unsatisfiable topology constraint for pod anti-affinity, key=topology.kubernetes.io/zone "
    "(counts = zone-a: 1, zone-b: 1, podDomains = topology.kubernetes.io/zone Exists, "
    "nodeDomains = topology.kubernetes.io/zone Exists"
)


@pytest.mark.parametrize(
    ("running", "placed"),
    [
        pytest.param(0, 2, id="two zones: two copies, one a zone; the third stays pending"),
        pytest.param(1, 1, id="a copy already runs in zone-a: one more, in zone-b"),
    ],
)
def test_zonal_anti_affinity_to_itself(running: int, placed: int) -> None:
    """topologygroup.go ``nextDomainAntiAffinity``: only zones with none of its pods."""
    nodes = [karpenter_node("n-a", "old", "zone-a")]
    pods = [_web(f"w{i}", "n-a") for i in range(running)]
    run = Run((NodePool("default"),), nodes=nodes, pods=pods)
    decision = run.decide(spec(affinity=ZONE_ANTI), 3, APP)
    assert (decision.placed, decision.nodes) == (placed, placed)
    assert decision.errors == (("default", "unsatisfiable topology constraint", ANTI_BLOCKED),)


def _affinity_to(key: str, labels: dict[str, str]) -> dict[str, Any]:
    term = {"topologyKey": key, "labelSelector": {"matchLabels": labels}}
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _db_run() -> Run:
    db = api_pod("db-1", "n-b")
    db["metadata"]["labels"] = {"app": "db"}
    nodes = [karpenter_node("n-a", "old", "zone-a"), karpenter_node("n-b", "old", "zone-b")]
    return Run((NodePool("default"),), nodes=nodes, pods=[db])


def test_zonal_affinity_follows_the_pods_it_wants() -> None:
    """topologygroup.go ``nextDomainAffinity``: the database runs in zone-b; the types only
    zone-a offers (m-4x-arm) are left out."""
    decision = _db_run().decide(spec(cpu="3", affinity=_affinity_to(ZONE, {"app": "db"})), 3, APP)
    assert decision == PoolDecision(
        3,
        (
            PoolScaleUp(
                "default", 2, 3, ("c-4x", "c-4x-arm", "m-4x", "r-4x", "c-8x", "m-8x", "g-4x")
            ),
        ),
        3,
    )


def test_hostname_affinity_to_running_pods_gets_no_new_node() -> None:
    """A new node runs none of the pods wanted on the same host."""
    pod = spec(affinity=_affinity_to("kubernetes.io/hostname", {"app": "db"}))
    assert _db_run().decide(pod, 1, APP).errors == (
        (
            "default",
            "unsatisfiable topology constraint",
            "unsatisfiable topology constraint for pod affinity, key=kubernetes.io/hostname "
            "(counts = n-b: 1, podDomains = kubernetes.io/hostname Exists, nodeDomains = "
            "kubernetes.io/hostname In [hostname-placeholder-0001]",
        ),
    )


def test_a_pool_whose_taint_refuses_the_pod_still_numbers_a_hostname() -> None:
    """scheduler.go ``addToNewNodeClaim`` calls ``NewNodeClaim`` (the next placeholder)
    before ``CanAdd`` asks the taints: the tainted pool (first by name, descending) takes
    0001, the next pool 0002."""
    db = api_pod("db-1", "n-b")
    db["metadata"]["labels"] = {"app": "db"}
    nodes = [karpenter_node("n-b", "old", "zone-b")]
    pools = (NodePool("z-tainted", taints=(TAINT,)), NodePool("b"))
    pod = spec(affinity=_affinity_to("kubernetes.io/hostname", {"app": "db"}))
    errors = Run(pools, nodes=nodes, pods=[db]).decide(pod, 1, APP).errors
    assert [e[2].rsplit(" ", 1)[-1] for e in errors] == [
        "(taint=dedicated=gpu:NoSchedule)",
        "[hostname-placeholder-0002]",
    ]


def test_a_prefer_no_schedule_taint_of_a_pool_left_out_still_adds_a_relaxation() -> None:
    """scheduler.go ``NewScheduler`` asks every Ready pool for a PreferNoSchedule taint,
    also one whose requirements leave it no type: the toleration is one more attempt, whose
    claim is the next placeholder."""
    db = api_pod("db-1", "n-b")
    db["metadata"]["labels"] = {"app": "db"}
    nodes = [karpenter_node("n-b", "old", "zone-b")]
    soft = Taint("spot", "yes", "PreferNoSchedule")
    left_out = NodePool("z-none", taints=(soft,), requirements=(_in(INSTANCE_TYPE, "none"),))
    pod = spec(affinity=_affinity_to("kubernetes.io/hostname", {"app": "db"}))
    errors = Run((left_out, NodePool("b")), nodes=nodes, pods=[db]).decide(pod, 1, APP).errors
    assert [e[2].rsplit(" ", 1)[-1] for e in errors] == ["[hostname-placeholder-0002]"]


def test_hostname_affinity_to_itself_fills_one_node() -> None:
    """The first copy starts a claim; the others may only join it (7 fit an 8-cpu type)."""
    pod = spec(affinity=_affinity_to("kubernetes.io/hostname", APP))
    decision = _db_run().decide(pod, 10, APP)
    assert (decision.nodes, decision.placed) == (1, 7)
    assert decision.reasons == {"unsatisfiable topology constraint": 1}


ONE_ZONE = Catalog(
    tuple(
        instance_type(
            t.name,
            t.capacity["cpu"] // 1000,
            t.capacity["memory"] // 2**30,
            t.labels[ARCH],
            zones=("zone-a",),
        )
        for t in CATALOG.types
        if "nvidia.com/gpu" not in t.capacity
    ),
    "one zone",
)


@pytest.mark.parametrize(
    ("pool", "cpu", "memory", "copies"),
    [
        pytest.param(NodePool("p"), "1", "1Gi", 25, id="plain"),
        pytest.param(NodePool("p", limits={"cpu": 40_000}), "1", "3Gi", 40, id="limits"),
        pytest.param(NodePool("p", requirements=(_MIN3,)), "700m", "2Gi", 30, id="minValues"),
        pytest.param(
            NodePool("p", requirements=(_in(ARCH, "arm64"),), limits={"memory": 40 * 2**30}),
            "300m",
            "1Gi",
            60,
            id="arm, memory limit",
        ),
    ],
)
def test_claims_filled_in_arithmetic_as_one_at_a_time(
    pool: NodePool, cpu: str, memory: str, copies: int
) -> None:
    """The arithmetic fill gives what placing copies one at a time gives: a spread of
    maxSkew 1000 over the one zone forces the latter."""
    daemons = (daemon_set("agent", 200, 256 * MI),)
    plain = Run((pool,), catalog=ONE_ZONE, daemon_sets=daemons).decide(spec(cpu, memory), copies)
    spread = _spread(skew=1000)
    one_by_one = Run((pool,), catalog=ONE_ZONE, daemon_sets=daemons).decide(
        spec(cpu, memory, topologySpreadConstraints=[spread]), copies, APP
    )
    assert plain == one_by_one


def test_no_nodepool_recorded_is_no_provisioner() -> None:
    assert Provisioner.of(KarpenterState(), CATALOG, (), ()) is None


def test_nothing_left_to_decide() -> None:
    assert Run((NodePool("default"),)).decide(spec(), 0) == PoolDecision(0)


def test_no_catalog_and_no_typed_node() -> None:
    """No catalog and no node naming its type: every pool is left with none."""
    run = Run((NodePool("default"),), catalog=None)
    assert run.provisioner.notes[0].startswith(
        "no instance-type catalog was given: NodePools are judged with the types running in "
        "the cluster (none)"
    )
    said = "nodepool requirements filtered out all available instance types"
    assert run.decide(spec(), 2) == PoolDecision(2, errors=(("", said, said),))


SUMMARIES: list[tuple[str, PoolDecision, tuple[int, int, dict[str, int], str]]] = [
    (
        "every copy placed: nothing blocked, no event",
        PoolDecision(3, (PoolScaleUp("a", 1, 2, ("m1",)), PoolScaleUp("b", 1, 1, ("m1",))), 3),
        (0, 2, {}, ""),
    ),
    (
        "copies left: each pool's error joined after the event's opening, reasons counted",
        PoolDecision(
            5,
            (PoolScaleUp("a", 2, 2, ("m1",)),),
            2,
            (("a", LIMITS, f"{LIMITS} (NodePool=a)"), ("b", LIMITS, f"{LIMITS} (NodePool=b)")),
        ),
        (
            3,
            2,
            {LIMITS: 2},
            f"Failed to schedule pod, {LIMITS} (NodePool=a); {LIMITS} (NodePool=b)",
        ),
    ),
    (
        "copies left without an error from any pool make no event",
        PoolDecision(2, unjudged="no nodepools found"),
        (2, 0, {}, ""),
    ),
]


@pytest.mark.parametrize(
    ("decision", "expected"), [c[1:] for c in SUMMARIES], ids=[c[0] for c in SUMMARIES]
)
def test_what_a_pool_decision_sums_up(
    decision: PoolDecision, expected: tuple[int, int, dict[str, int], str]
) -> None:
    assert (decision.blocked, decision.nodes, decision.reasons, decision.message) == expected


@pytest.mark.parametrize(
    ("landed", "claims"),
    [
        pytest.param({}, [("default", 2, 2)], id="none on existing nodes: one claim a zone"),
        # zone-a holds one copy already: both go to zone-b, on one claim within the skew
        pytest.param({"zone-a": 1}, [("default", 1, 2)], id="copies placed now count"),
    ],
)
def test_zonal_spread_counts_the_copies_existing_nodes_took(
    landed: dict[str, int], claims: list[tuple[str, int, int]]
) -> None:
    """scheduler.go ``add``: ``addToExistingNode`` first, its copies recorded by the topology
    (topology.go ``Record``), then ``addToInflightNode`` and ``addToNewNodeClaim`` for the
    rest: a claim joins a zone while ``count - min <= maxSkew``."""
    run = Run((NodePool("default"),))
    profile = pod_profile(spec(cpu="1", topologySpreadConstraints=[_spread()]), "default", APP)
    cycle = prepare(profile, run.cluster)
    decision = run.provisioner.decide(cycle, profile, 2, landed, cluster=run.cluster)
    assert [(s.pool, s.nodes, s.copies) for s in decision.scale_up] == claims


TWO_SERVED = Catalog(
    (
        instance_type("small", 4, 8, zones=("zone-b",), spot=False),
        instance_type("arm", 4, 8, "arm64", zones=("zone-a",), spot=False),
        instance_type("ab", 4, 8, zones=("zone-a", "zone-b"), spot=False),
        instance_type("c", 4, 8, zones=("zone-c",), spot=False),
    ),
    "t",
)
"""Types of 4 cpu: one in zone-b, an arm64 one in zone-a, one in zone-a and zone-b, one in
zone-c; no spot offering."""
UNSERVED = "no instance type met the scheduling requirements or had a required offering"
"""nodeclaim.go ``InstanceTypeFilterError.Error``: no type of the claim meets its zone (a
type's requirements hold its offerings' zones) nor has an offering there."""


def _types(*names: str) -> Requirement:
    return _in(INSTANCE_TYPE, *names)


UNSERVED_ZONE_CASES = [
    pytest.param(
        Run((NodePool("default", requirements=(_in(ZONE, "zone-a", "zone-b", "zone-x"),)),)),
        spec(topologySpreadConstraints=[_spread()]),
        3,
        [("default", 2, 2)],
        (UNSERVED, "topology.kubernetes.io/zone In [zone-x], resources="),
        id="a zone the pool names where no type is offered holds the minimum and is chosen",
    ),
    pytest.param(
        Run(
            (NodePool("default", requirements=(_in(ARCH, "amd64"), _types("small"))),),
            catalog=TWO_SERVED,
        ),
        spec(cpu="3", topologySpreadConstraints=[_spread()]),
        2,
        [("default", 1, 1)],
        (UNSERVED, "topology.kubernetes.io/zone In [zone-a], resources="),
        id="a zone only a type the pool does not suit is offered in is a domain, and chosen",
    ),
    pytest.param(
        Run(
            (
                NodePool(
                    "default", requirements=(_in(ZONE, "zone-a", "zone-b", "zone-x"), _types("ab"))
                ),
            ),
            catalog=TWO_SERVED,
        ),
        spec(cpu="3", topologySpreadConstraints=[_spread(skew=2)]),
        5,
        [("default", 2, 2)],
        (UNSERVED, "topology.kubernetes.io/zone In [zone-x], resources="),
        id="maxSkew 2: the third claim goes to the emptier unserved zone, not a served one",
    ),
    pytest.param(
        Run(
            (
                NodePool("first", weight=10, requirements=(_types("ab"),)),
                NodePool("second", requirements=(_types("c"),)),
            ),
            catalog=TWO_SERVED,
        ),
        spec(cpu="3", topologySpreadConstraints=[_spread(skew=2)]),
        3,
        [("first", 2, 2), ("second", 1, 1)],
        None,
        id="the heavier pool chooses the emptier zone it is not offered in; the next pool takes it",
    ),
    pytest.param(
        Run(
            (NodePool("default", requirements=(_in(ZONE, "zone-a", "zone-b", "zone-x"),)),),
            nodes=[karpenter_node("n-x", "old", "zone-x")],
            pods=[_web("w-x", "n-x")],
        ),
        spec(topologySpreadConstraints=[_spread()]),
        5,
        [("default", 2, 4)],
        (UNSERVED, "topology.kubernetes.io/zone In [zone-x], resources="),
        id="an unserved zone holding a copy is chosen only once the served zones catch up",
    ),
    pytest.param(
        Run((NodePool("default"),), nodes=[karpenter_node("n-z", "old", "zone-z")]),
        spec(topologySpreadConstraints=[_spread()]),
        3,
        [("default", 2, 2)],
        (UNSERVED, "topology.kubernetes.io/zone In [zone-z], resources="),
        id="an existing node's zone no type is offered in is a domain a pool may choose",
    ),
    pytest.param(
        Run(
            (NodePool("default", requirements=(_in(ZONE, "zone-a", "zone-b"),)),),
            nodes=[karpenter_node("n-z", "old", "zone-z")],
        ),
        spec(topologySpreadConstraints=[_spread()]),
        3,
        [("default", 2, 2)],
        (TOPOLOGY, "zone-z: 0, podDomains = topology.kubernetes.io/zone Exists, "),
        id="a pool whose requirements leave that zone out never chooses it",
    ),
]


def _claims_or_error(
    run: Run,
    pod: dict[str, Any],
    copies: int,
    claims: list[tuple[str, int, int]],
    error: tuple[str, str] | None,
) -> None:
    """The claims Karpenter makes for ``copies`` of ``pod``, and then either every copy
    placed or the one error (its reason, and a part of its text) the rest meet."""
    decision = run.decide(pod, copies, APP)
    assert [(s.pool, s.nodes, s.copies) for s in decision.scale_up] == claims
    if error is None:
        assert (decision.placed, decision.errors) == (copies, ())
        return
    ((_, reason, text),) = decision.errors
    assert (reason, error[1] in text) == (error[0], True)


@pytest.mark.parametrize(("run", "pod", "copies", "claims", "error"), UNSERVED_ZONE_CASES)
def test_a_spread_may_choose_a_zone_no_type_serves(
    run: Run,
    pod: dict[str, Any],
    copies: int,
    claims: list[tuple[str, int, int]],
    error: tuple[str, str] | None,
) -> None:
    """topology.go ``buildDomainGroups``: a spread's domains are, for each Ready pool, its
    requirements intersected with each type the provider lists for it (suited to the pool
    or not), and the zones its requirements name ``In`` whether or not a type is offered
    there. scheduling/nodeclaim.go ``CanAdd`` then asks topology.go ``AddRequirements``
    with ``nodeDomains`` the claim's requirements (nodeclaimtemplate.go
    ``NewNodeClaimTemplate``: the pool's requirements and labels, with the pod's; no type's
    offerings): topologygroup.go ``nextDomainTopologySpread`` takes the domain with the
    fewest matching pods within ``maxSkew`` of the minimum, offered or not. A zone no type
    serves is then chosen like any other, and ``filterInstanceTypesByRequirements`` finds no
    type there: the claim fails with ``InstanceTypeFilterError``, not a topology error.
    Such a zone never gains a copy, so it holds the minimum and is the emptiest zone once
    the served ones hold one more; among zones counted alike Karpenter's choice is Go's map
    order, and the copy is tried again until a served one comes up (here the served zone).
    An existing node's zone is a domain too (topology.go ``countDomains``) when the claim's
    requirements allow it (kubernetes-sigs/karpenter#3272, "Impossible topology domains are
    included in topology spreads", shows the error)."""
    _claims_or_error(run, pod, copies, claims, error)


THREE_ZONES = Catalog((instance_type("c-4x", 4, 8, zones=("zone-a", "zone-b", "zone-c")),), "t")
"""One type offered in three zones."""
SOFT_ZONAL = spec(
    cpu="100m", memory="100Mi", topologySpreadConstraints=[_spread(when="ScheduleAnyway")]
)
"""A small copy with a ScheduleAnyway zone spread, maxSkew 1, over the copies."""

SOFT_ZONAL_CASES = [
    pytest.param(
        Run((NodePool("default"),), catalog=THREE_ZONES),
        3,
        [("default", 3, 3)],
        id="three copies spread over a pool's three zones take a claim each as if required",
    ),
    pytest.param(
        Run((NodePool("in-a", requirements=(_in(ZONE, "zone-a"),)),), catalog=THREE_ZONES),
        3,
        [("in-a", 1, 3)],
        id="a pool in one zone holds all three copies on one claim when the spread is alone",
    ),
    pytest.param(
        Run(
            (NodePool("in-a", requirements=(_in(ZONE, "zone-a"),)),),
            nodes=[karpenter_node("n-b", "old", "zone-b"), karpenter_node("n-c", "old", "zone-c")],
            catalog=THREE_ZONES,
        ),
        3,
        [("in-a", 1, 3)],
        id="a pool in one zone beside empty zones relaxes the spread and joins the one claim",
    ),
]


@pytest.mark.parametrize(("run", "copies", "claims"), SOFT_ZONAL_CASES)
def test_a_scheduleanyway_zone_spread_is_held_until_relaxed(
    run: Run, copies: int, claims: list[tuple[str, int, int]]
) -> None:
    """topology.go ``newForTopologies`` takes the ScheduleAnyway spreads under the default
    PreferencePolicy Respect, so ``nextDomainTopologySpread`` pins each claim to the zone
    with the fewest copies; where no offered zone keeps the skew, preferences.go ``Relax``
    (``removeTopologySpreadScheduleAnyway``) drops the spread and the copy joins a planned
    claim (scheduling/topology_test.go "should violate max-skew when unsat = schedule anyway
    (capacity type)", here over zones)."""
    decision = run.decide(SOFT_ZONAL, copies, APP)
    assert [(s.pool, s.nodes, s.copies) for s in decision.scale_up] == claims
    assert decision.placed == copies


def _labelled(name: str, node: str, labels: dict[str, str]) -> dict[str, Any]:
    pod = api_pod(name, node)
    pod["metadata"]["labels"] = labels
    return pod


def _three_zones_beside(*pods: tuple[str, dict[str, str]]) -> Run:
    """A pool of :data:`THREE_ZONES` beside a full node in each zone, ``pods`` running on
    them as (zone, labels)."""
    nodes = [karpenter_node(f"n-{z}", "old", f"zone-{z}") for z in "abc"]
    running = [_labelled(f"p{i}", f"n-{z}", labels) for i, (z, labels) in enumerate(pods)]
    return Run((NodePool("default"),), nodes=nodes, pods=running, catalog=THREE_ZONES)


RUNNING_SOFT_ZONAL_CASES = [
    pytest.param(
        _three_zones_beside(("a", APP), ("a", APP)),
        [("default", 2, 3)],
        id="two running copies in zone a send the first claims to b and c, the third joins b",
    ),
    pytest.param(
        _three_zones_beside(("a", {"app": "db"}), ("a", {"app": "db"})),
        [("default", 3, 3)],
        id="running pods the selector does not match leave a claim a zone",
    ),
]


@pytest.mark.parametrize(("run", "claims"), RUNNING_SOFT_ZONAL_CASES)
def test_a_held_scheduleanyway_zone_spread_counts_the_running_matching_pods(
    run: Run, claims: list[tuple[str, int, int]]
) -> None:
    """topology.go ``Update`` takes a ScheduleAnyway spread's group (``newForTopologies``)
    and ``countDomains`` counts every scheduled pod of its namespace its selector matches,
    by its node's zone, as for a DoNotSchedule one: with zone-a at 2, maxSkew 1, the first
    copy goes to zone-b, the second (zone-b then at the skew) to zone-c, and the third,
    the minimum now 1, joins the claim in zone-b (topologygroup.go
    ``nextDomainTopologySpread``)."""
    decision = run.decide(SOFT_ZONAL, 3, APP)
    assert [(s.pool, s.nodes, s.copies) for s in decision.scale_up] == claims
    assert decision.placed == 3


ZONED = Catalog(
    tuple(instance_type(f"t-{z}", 4, 8, zones=(f"zone-{z}",)) for z in "abc"),
    "t",
)
"""A type a zone: a claim's types say which zone it may land in."""
DB = {"app": "db"}


def _preferred_term(kind: str, *terms: tuple[int, dict[str, str]]) -> dict[str, Any]:
    """Preferred ``kind`` terms over zones, each (weight, labels of the pods it names)."""
    return {
        kind: {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": weight,
                    "podAffinityTerm": {"labelSelector": {"matchLabels": m}, "topologyKey": ZONE},
                }
                for weight, m in terms
            ]
        }
    }


def _zoned_beside(*pods: tuple[str, dict[str, str]]) -> Run:
    nodes = [karpenter_node(f"n-{z}", "old", f"zone-{z}") for z in "abc"]
    running = [_labelled(f"p{i}", f"n-{z}", labels) for i, (z, labels) in enumerate(pods)]
    return Run((NodePool("default"),), nodes=nodes, pods=running, catalog=ZONED)


ALL_ZONES = ("t-a", "t-b", "t-c")
PREFERRED_ZONAL_CASES = [
    pytest.param(
        _zoned_beside(("b", DB)),
        _preferred_term("podAffinity", (10, DB)),
        1,
        (1, 1, ("t-b",)),
        id="a preferred zonal affinity to pods running in zone b puts the claim in zone b",
    ),
    pytest.param(
        _zoned_beside(("b", DB), ("c", DB)),
        _preferred_term("podAffinity", (10, DB)),
        1,
        (1, 1, ("t-b", "t-c")),
        id="a preferred zonal affinity to pods in zones b and c leaves the claim both",
    ),
    pytest.param(
        _zoned_beside(),
        _preferred_term("podAffinity", (10, DB)),
        1,
        (1, 1, ALL_ZONES),
        id="a preferred zonal affinity no pod satisfies is relaxed and the claim left unzoned",
    ),
    pytest.param(
        _zoned_beside(("c", DB)),
        _preferred_term("podAffinity", (5, DB), (10, {"app": "none"})),
        1,
        (1, 1, ("t-c",)),
        id="the heaviest preferred affinity term is relaxed first and the lighter one holds",
    ),
    pytest.param(
        _zoned_beside(("a", DB)),
        _preferred_term("podAntiAffinity", (10, DB)),
        1,
        (1, 1, ("t-b", "t-c")),
        id="a preferred zonal anti-affinity to pods in zone a keeps the claim out of zone a",
    ),
    pytest.param(
        _zoned_beside(("a", DB), ("b", DB), ("c", DB)),
        _preferred_term("podAntiAffinity", (10, DB)),
        1,
        (1, 1, ALL_ZONES),
        id="a preferred zonal anti-affinity every zone breaks is relaxed",
    ),
    pytest.param(
        _zoned_beside(("b", DB)),
        _preferred_term("podAffinity", (1, DB)) | _preferred_term("podAntiAffinity", (100, DB)),
        1,
        (1, 1, ("t-a", "t-c")),
        id="preferred affinity is relaxed before preferred anti-affinity whatever the weights",
    ),
    pytest.param(
        _zoned_beside(),
        _preferred_term("podAntiAffinity", (10, APP)),
        3,
        (1, 3, ALL_ZONES),
        id="the first copy of a self anti-affinity blocks every zone its claim may take and "
        "the others, relaxed, join it",
    ),
    pytest.param(
        _zoned_beside(("a", APP)),
        _preferred_term("podAntiAffinity", (10, APP)),
        3,
        (1, 3, ("t-b", "t-c")),
        id="a running copy in zone a keeps the one claim of a self anti-affinity out of it",
    ),
]


@pytest.mark.parametrize(("run", "affinity", "copies", "launch"), PREFERRED_ZONAL_CASES)
def test_preferred_zonal_pod_affinity_is_held_until_relaxed(
    run: Run, affinity: dict[str, Any], copies: int, launch: tuple[int, int, tuple[str, ...]]
) -> None:
    """topology.go ``newForAffinities`` takes the preferred terms under PreferencePolicy
    Respect and ``countDomains`` counts the pods they name by zone; topologygroup.go
    ``nextDomainAffinity`` keeps the zones holding some, ``nextDomainAntiAffinity`` those
    holding none, and ``AddRequirements`` gives the claim them all (its types those offered
    there); ``Record`` has an anti-affinity its copy matches block every zone of the claim.
    Where no zone is left, preferences.go ``Relax`` drops the preferred affinity terms
    (``removePreferredPodAffinityTerm``), then the anti-affinity ones
    (``removePreferredPodAntiAffinityTerm``), each kind heaviest first."""
    decision = run.decide(spec(affinity=affinity), copies, APP)
    (scale_up,) = decision.scale_up
    assert (scale_up.nodes, scale_up.copies, scale_up.instance_types) == launch


def _required_term(kind: str, labels: dict[str, str]) -> dict[str, Any]:
    """A required ``kind`` term over zones naming the pods with ``labels``."""
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": ZONE}
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


REQUIRED_ZONAL_CASES = [
    pytest.param(
        _zoned_beside(("b", DB), ("c", DB)),
        _required_term("podAffinity", DB),
        2,
        (1, 2, ("t-b", "t-c")),
        id="a required zonal affinity to pods in zones b and c leaves the claim both",
    ),
    pytest.param(
        _zoned_beside(("b", DB)),
        _required_term("podAffinity", DB),
        1,
        (1, 1, ("t-b",)),
        id="a required zonal affinity to pods in zone b alone puts the claim in zone b",
    ),
    pytest.param(
        _zoned_beside(("a", DB)),
        _required_term("podAntiAffinity", DB),
        2,
        (1, 2, ("t-b", "t-c")),
        id="a required zonal anti-affinity to other pods in zone a leaves the claim b and c",
    ),
    pytest.param(
        _zoned_beside(),
        _required_term("podAffinity", APP),
        2,
        (1, 2, ("t-a",)),
        id="a required zonal affinity to itself with none running starts in one zone",
    ),
]


@pytest.mark.parametrize(("run", "affinity", "copies", "launch"), REQUIRED_ZONAL_CASES)
def test_required_zonal_pod_affinity_leaves_a_claim_every_zone_it_allows(
    run: Run, affinity: dict[str, Any], copies: int, launch: tuple[int, int, tuple[str, ...]]
) -> None:
    """topologygroup.go ``nextDomainAffinity`` returns every zone holding the pods the term
    names, ``nextDomainAntiAffinity`` every zone holding none, and topology.go
    ``AddRequirements`` gives the claim that set (its types those offered there); a pod
    its own affinity selects with none running bootstraps one zone. A copy its own
    anti-affinity does not select records nothing (``Record``), so the next joins."""
    decision = run.decide(spec(affinity=affinity), copies, APP)
    (scale_up,) = decision.scale_up
    assert (scale_up.nodes, scale_up.copies, scale_up.instance_types) == launch


SOFT_TAINT = Taint("spot", "yes", "PreferNoSchedule")


def _zone_node(zone: str, *taints: Taint, **labels: str) -> dict[str, Any]:
    """A node in ``zone`` (``n-<zone>``), tainted ``taints``, with more ``labels``."""
    made = karpenter_node(f"n-{zone}", "old", f"zone-{zone}")
    made["metadata"]["labels"].update(labels)
    made["spec"]["taints"] = [{"key": t.key, "value": t.value, "effect": t.effect} for t in taints]
    return made


def _zone_spread(**more: Any) -> dict[str, Any]:
    """A DoNotSchedule spread over zones, maxSkew 1, selecting the web pods unless ``more``
    says otherwise."""
    return {
        "maxSkew": 1,
        "topologyKey": ZONE,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": APP},
        **more,
    }


def _spread_run(
    nodes: list[dict[str, Any]],
    running: list[tuple[str, dict[str, str]]],
    pools: tuple[NodePool, ...] = (NodePool("default"),),
) -> Run:
    """``pools`` over :data:`ZONED` beside ``nodes``, with two pods a (zone, labels) of
    ``running`` on ``n-<zone>``."""
    pods = [
        _labelled(f"p{i}-{j}", f"n-{z}", labels)
        for i, (z, labels) in enumerate(running)
        for j in range(2)
    ]
    return Run(pools, nodes=nodes, pods=pods, catalog=ZONED)


UNTAINTED = [_zone_node(z) for z in "abc"]
HONOR = {"nodeTaintsPolicy": "Honor"}
TAINTED_POOL = NodePool("tainted", weight=5, requirements=(_in(ZONE, "zone-c"),), taints=(TAINT,))
SOFT_POOL = NodePool("soft", weight=5, requirements=(_in(ZONE, "zone-c"),), taints=(SOFT_TAINT,))
AB_POOL = NodePool("default", requirements=(_in(ZONE, "zone-a", "zone-b"),))
KARPENTER_COUNTS = [
    pytest.param(
        _spread_run([_zone_node("a", SOFT_TAINT), *UNTAINTED[1:]], [("a", APP)]),
        _zone_spread(**HONOR),
        ("t-a",),
        id="under nodeTaintsPolicy Honor a node with an untolerated PreferNoSchedule taint is "
        "left out of the counts",
    ),
    pytest.param(
        _spread_run([_zone_node("a", SOFT_TAINT), *UNTAINTED[1:]], [("a", APP)]),
        _zone_spread(),
        ("t-b",),
        id="under the default nodeTaintsPolicy Ignore that node's pods count",
    ),
    pytest.param(
        _spread_run([_zone_node("a", TAINT), *UNTAINTED[1:]], [("a", APP)]),
        _zone_spread(**HONOR),
        ("t-a",),
        id="under nodeTaintsPolicy Honor a node with an untolerated NoSchedule taint is left out "
        "as kube-scheduler leaves it out",
    ),
    pytest.param(
        _spread_run(UNTAINTED[:2], [("a", APP), ("b", APP)], (TAINTED_POOL, AB_POOL)),
        _zone_spread(**HONOR),
        ("t-a",),
        id="under nodeTaintsPolicy Honor a zone only a pool with an untolerated taint reaches "
        "holds no minimum",
    ),
    pytest.param(
        _spread_run(UNTAINTED[:2], [("a", APP), ("b", APP)], (SOFT_POOL, AB_POOL)),
        _zone_spread(**HONOR),
        ("t-a",),
        id="a pool's PreferNoSchedule taint leaves its zone out too",
    ),
    pytest.param(
        _spread_run(UNTAINTED[:2], [("a", APP), ("b", APP)], (TAINTED_POOL, AB_POOL)),
        _zone_spread(),
        None,
        id="under nodeTaintsPolicy Ignore that empty zone holds the minimum at 0 and no claim "
        "is within the skew",
    ),
    pytest.param(
        _spread_run(UNTAINTED, [("a", DB)]),
        {k: v for k, v in _zone_spread().items() if k != "labelSelector"},
        ("t-b",),
        id="a spread without a labelSelector counts every pod of the namespace",
    ),
    pytest.param(
        _spread_run(UNTAINTED, [("a", DB)]),
        _zone_spread(labelSelector={}),
        ("t-b",),
        id="a spread with an empty labelSelector counts every pod of the namespace",
    ),
    pytest.param(
        _spread_run([_zone_node("a"), *(_zone_node(z, rack="r1") for z in "bc")], [("a", APP)]),
        [_zone_spread(), {**_zone_spread(), "topologyKey": "rack"}],
        ("t-b",),
        id="a node lacking another spread's key still counts in the zone spread",
    ),
]


@pytest.mark.parametrize(("run", "spreads", "launch"), KARPENTER_COUNTS)
def test_a_zone_spread_counts_as_karpenter_counts(
    run: Run, spreads: dict[str, Any] | list[dict[str, Any]], launch: tuple[str, ...] | None
) -> None:
    """topology.go ``countDomains``: the pods ``TopologyListOptions`` lists (a null or empty
    selector lists every pod of the namespace), on the nodes carrying the group's own key
    that topologynodefilter.go ``Matches`` admits (under ``Honor`` pkg/scheduling/taints.go
    ``Tolerates``: every taint effect); topologygroup.go ``NewTopologyGroup`` registers the
    pools' zones through topologydomaingroup.go ``ForEachDomain`` (under ``Honor`` the zones
    of a pool whose taints the pod tolerates). The zone takes the claim's types; with
    ``launch`` None no claim is made."""
    constraints = spreads if isinstance(spreads, list) else [spreads]
    decision = run.decide(spec(topologySpreadConstraints=constraints), 1, APP)
    found = tuple(s.instance_types for s in decision.scale_up)
    assert found == (() if launch is None else (launch,))


UNZONED_JOINS = [
    pytest.param(
        AntiZone({"zone-a": 1, "zone-b": 0, "zone-c": 0}, True, held=True),
        ("", ("zone-b", "zone-c"), ("t-b", "t-c")),
        id="a held anti-affinity leaves the claim the zones it allows",
    ),
    pytest.param(
        Spread({"zone-a": 2, "zone-b": 0, "zone-c": 1}, True, max_skew=1, min_domains=1),
        ("zone-b", (), ("t-b",)),
        id="a held spread pins the claim to the zone with the fewest",
    ),
    pytest.param(
        AntiZone({"zone-a": 1, "zone-b": 1, "zone-c": 1}, True, held=True),
        None,
        id="a rule allowing none of the claim's zones refuses the copy",
    ),
    pytest.param(
        Spread({"zone-a": 1, "zone-b": 1, "zone-c": 1, "zone-x": 0}, True, 2, 1),
        None,
        id="a spread whose emptiest zone no type serves chooses it, and the copy is refused",
    ),
    pytest.param(
        AntiZone({"zone-a": 1, "zone-b": 0, "zone-c": 1, "zone-x": 0}, True, held=True),
        ("", ("zone-b", "zone-x"), ("t-b",)),
        id="a held anti-affinity leaves the claim an unserved zone it allows too",
    ),
]


@pytest.mark.parametrize(("rule", "joined"), UNZONED_JOINS)
def test_a_copy_holding_a_zonal_rule_narrows_a_claim_without_a_zone(
    rule: Zonal, joined: tuple[str, tuple[str, ...], tuple[str, ...]] | None
) -> None:
    """nodeclaim.go ``CanAdd`` asks topology.go ``AddRequirements`` of every copy joining a
    claim: one planned once a copy's zonal preferences were relaxed has no zone yet, so the
    copy's rules narrow it (its types those offered there) or refuse the copy. They choose
    among their domains that the claim's requirements allow (``nodeDomains``), offered or
    not: a zone no type serves fails ``filterInstanceTypesByRequirements`` when it is all
    that is left."""
    provisioner = Run((NodePool("default"),), catalog=ZONED).provisioner
    (pool,) = provisioner.pools
    claim = _Claim(pool, pool.reqs, pool.types, 1)
    variant = _Variant({}, {}, (), zonal=(rule,))
    done = provisioner._join(claim, variant, {"cpu": 1000, "pods": 1}, [rule], None, [rule])
    found = (claim.zone, claim.zones, tuple(t.name for t in claim.types))
    assert (found if done else None) == joined


BOOTSTRAP_CASES = [
    pytest.param(
        {"zone-b"},
        ("t-b",),
        id="pods it selects running only in zones the pod may not use leave it to start in "
        "one it may",
    ),
    pytest.param(
        {"zone-a", "zone-b"},
        ("t-a",),
        id="pods it selects running in a zone the pod may use hold it there",
    ),
]


@pytest.mark.parametrize(("allowed", "launch"), BOOTSTRAP_CASES)
def test_a_self_affinity_starts_where_none_of_its_pods_run_within_the_pods_zones(
    allowed: set[str], launch: tuple[str, ...]
) -> None:
    """topologygroup.go ``nextDomainAffinity``: a pod its own zonal affinity selects may
    start in a zone of its own when no zone it may use (``anyCompatiblePodDomain``, over
    the pod's strict requirements) holds a pod the term selects."""
    run = _spread_run(UNTAINTED, [("a", APP)])
    zone_in = {"key": ZONE, "operator": "In", "values": sorted(allowed)}
    node_affinity = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [zone_in]}]
        }
    }
    affinity = {**_required_term("podAffinity", APP), "nodeAffinity": node_affinity}
    decision = run.decide(spec(affinity=affinity), 1, APP)
    assert tuple(s.instance_types for s in decision.scale_up) == (launch,)


def _terminating(pod: dict[str, Any]) -> dict[str, Any]:
    pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return pod


def _zoned_with(*pods: dict[str, Any]) -> Run:
    """The :data:`ZONED` pool beside a node a zone (``n-a`` .. ``n-c``) running ``pods``."""
    nodes = [karpenter_node(f"n-{z}", "old", f"zone-{z}") for z in "abc"]
    return Run((NodePool("default"),), nodes=nodes, pods=list(pods), catalog=ZONED)


NO_SELECTOR = {
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": ZONE}]}
}
AFFINITY_COUNTED = [
    pytest.param(
        _zoned_with(_terminating(_labelled("db", "n-a", DB))),
        _required_term("podAntiAffinity", DB),
        ALL_ZONES,
        id="a terminating pod does not block its zone for a required zonal anti-affinity",
    ),
    pytest.param(
        _zoned_with(_labelled("db", "n-a", DB)),
        _required_term("podAntiAffinity", DB),
        ("t-b", "t-c"),
        id="a running pod blocks its zone for a required zonal anti-affinity",
    ),
    pytest.param(
        _zoned_with(_terminating(_labelled("db", "n-b", DB)), _labelled("db2", "n-c", DB)),
        _required_term("podAffinity", DB),
        ("t-c",),
        id="a terminating pod does not draw a required zonal affinity to its zone",
    ),
    pytest.param(
        _zoned_with(_terminating(_labelled("db", "n-b", DB))),
        _preferred_term("podAffinity", (10, DB)),
        ALL_ZONES,
        id="a preferred zonal affinity only a terminating pod would satisfy is relaxed",
    ),
    pytest.param(
        _zoned_with(_labelled("other", "n-a", DB)),
        NO_SELECTOR,
        ("t-b", "t-c"),
        id="a required zonal anti-affinity without a labelSelector avoids every pod of the "
        "namespace",
    ),
    pytest.param(
        _zoned_with(_labelled("other", "n-a", DB)),
        {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "podAffinityTerm": {"topologyKey": ZONE}}
                ]
            }
        },
        ("t-b", "t-c"),
        id="so does a preferred one, held",
    ),
]


@pytest.mark.parametrize(("run", "affinity", "launch"), AFFINITY_COUNTED)
def test_zonal_pod_affinity_counts_as_karpenter_counts(
    run: Run, affinity: dict[str, Any], launch: tuple[str, ...]
) -> None:
    """topology.go ``countDomains`` counts every group's pods alike: the scheduled ones not
    terminating (``IgnoredForTopology``), where kube-scheduler's InterPodAffinity counts the
    terminating too, listed by ``TopologyListOptions`` (a term without a labelSelector lists
    every pod of its namespaces, where kube-scheduler's matches none); whether a copy
    counts itself is the selector's own answer (``selects``: the null one never)."""
    decision = run.decide(spec(affinity=affinity), 1, APP)
    assert tuple(s.instance_types for s in decision.scale_up) == (launch,)


def _preferred_arch(*weighted: tuple[int, str]) -> dict[str, Any]:
    """Preferred node-affinity terms, each ``(weight, arch)``."""
    return {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": weight,
                "preference": {
                    "matchExpressions": [{"key": ARCH, "operator": "In", "values": [arch]}]
                },
            }
            for weight, arch in weighted
        ]
    }


def _either_arch() -> dict[str, Any]:
    """Required node-affinity terms: amd64, or else arm64."""
    required = _affinity([["amd64"], ["arm64"]], [])["nodeAffinity"]
    return {
        "requiredDuringSchedulingIgnoredDuringExecution": required[
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]
    }


def _preferred_pod_affinity(*weighted: tuple[int, str, dict[str, str]]) -> dict[str, Any]:
    """Preferred pod-affinity terms, each ``(weight, topologyKey, matchLabels)``."""
    return {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": weight,
                "podAffinityTerm": {"topologyKey": key, "labelSelector": {"matchLabels": labels}},
            }
            for weight, key, labels in weighted
        ]
    }


AMD_3CPU = ("c-4x", "m-4x", "r-4x", "c-8x", "m-8x", "g-4x")
"""The amd64 types holding a 3-cpu copy, by price."""
ARM_3CPU = ("c-4x-arm", "m-4x-arm")
"""The arm64 types holding a 3-cpu copy, by price."""
DB = {"app": "db"}
SOFT_TAINT = Taint("spot", "yes", "PreferNoSchedule")

RELAXATION_CASES = [
    pytest.param(
        Run((NodePool("default"),)),
        spec(cpu="3", affinity={"nodeAffinity": _preferred_arch((50, "ppc64le"), (10, "arm64"))}),
        1,
        [("default", 1, 1, ARM_3CPU)],
        id="preferred node affinity: the heaviest is held first and dropped first",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(cpu="3", affinity={"nodeAffinity": _preferred_arch((10, "arm64"), (10, "ppc64le"))}),
        1,
        [("default", 1, 1, ARM_3CPU)],
        id="preferred node affinity of equal weights: the first written is held",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(
            cpu="3",
            affinity={
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 50, "preference": {"matchFields": [_NAME_IN]}},
                        *_preferred_arch((10, "arm64"))[
                            "preferredDuringSchedulingIgnoredDuringExecution"
                        ],
                    ]
                }
            },
        ),
        1,
        [
            (
                "default",
                1,
                1,
                ("c-4x", "c-4x-arm", "m-4x", "m-4x-arm", "r-4x", "c-8x", "m-8x", "g-4x"),
            )
        ],
        id="a heaviest preference of matchFields alone holds nothing: no lighter one is read",
    ),
    pytest.param(
        Run((NodePool("default"),)),
        spec(
            cpu="3", affinity={"nodeAffinity": {**_either_arch(), **_preferred_arch((10, "arm64"))}}
        ),
        1,
        [("default", 1, 1, ARM_3CPU)],
        id="the first required term is dropped before the preferred node affinity",
    ),
    pytest.param(
        Run(
            (
                NodePool("soft", taints=(SOFT_TAINT,)),
                NodePool("plain", requirements=(_in(ARCH, "amd64"),)),
            )
        ),
        spec(cpu="3", affinity={"nodeAffinity": _preferred_arch((10, "arm64"))}),
        1,
        [("plain", 1, 1, AMD_3CPU)],
        id="PreferNoSchedule is tolerated last: the preferred arch is dropped before it",
    ),
    pytest.param(
        _db_run(),
        spec(
            cpu="3",
            affinity={
                "nodeAffinity": _either_arch(),
                "podAffinity": _preferred_pod_affinity((10, "kubernetes.io/hostname", DB)),
            },
        ),
        1,
        [("default", 1, 1, ARM_3CPU)],
        id="hostname affinity to pods running elsewhere is held: the first required term goes",
    ),
    pytest.param(
        _db_run(),
        spec(
            cpu="3",
            affinity={
                "nodeAffinity": _either_arch(),
                "podAffinity": _preferred_pod_affinity((10, "kubernetes.io/hostname", APP)),
            },
        ),
        4,
        [("default", 3, 4, ("c-4x-arm", "m-4x-arm", "c-8x", "m-8x"))],
        id="hostname affinity to itself: one claim holds what it can, the next drops a term",
    ),
    pytest.param(
        _db_run(),
        spec(
            cpu="3",
            affinity={
                "nodeAffinity": _either_arch(),
                "podAffinity": _preferred_pod_affinity(
                    (50, "kubernetes.io/hostname", DB), (10, ZONE, DB)
                ),
            },
        ),
        1,
        [("default", 1, 1, ("c-4x-arm",))],
        id="the heavier hostname term is dropped first; the zonal one keeps zone-b",
    ),
    pytest.param(
        _db_run(),
        spec(
            cpu="3",
            affinity={
                "nodeAffinity": _either_arch(),
                "podAffinity": _preferred_pod_affinity(
                    (50, ZONE, DB), (10, "kubernetes.io/hostname", DB)
                ),
            },
        ),
        1,
        [("default", 1, 1, ARM_3CPU)],
        id="the heavier zonal term is dropped first, then the hostname one: any zone",
    ),
]


@pytest.mark.parametrize(("run", "pod", "copies", "claims"), RELAXATION_CASES)
def test_relaxation_order(
    run: Run, pod: dict[str, Any], copies: int, claims: list[tuple[str, int, int, tuple[str, ...]]]
) -> None:
    """scheduling/preferences.go ``Relax``, one step per failed attempt, always the first of
    ``removeRequiredNodeAffinityTerm`` (the first term, while another remains),
    ``removePreferredPodAffinityTerm``, ``removePreferredPodAntiAffinityTerm`` (each the
    heaviest left, ``sort.SliceStable`` by weight descending), ``removePreferredNodeAffinityTerm``
    (likewise), ``removeTopologySpreadScheduleAnyway`` and, when a Ready pool taints
    PreferNoSchedule (scheduler.go ``NewScheduler``), ``toleratePreferNoScheduleTaints``
    that applies. pkg/scheduling/requirements.go ``newPodRequirements`` holds the heaviest
    preferred node-affinity term (``MatchExpressions`` alone) as required. topology.go
    ``newForAffinities`` holds every preferred pod-affinity term (PreferencePolicy Respect),
    over hostnames too: topologygroup.go ``nextDomainAffinity`` gives a new claim's hostname
    only to a copy the term selects while no pod it names runs anywhere (a planned claim
    holding such a copy may take more), so a term over hostnames fails every new claim
    until relaxed, and the required terms before it go first. The catalog's arm64 types
    holding 3 cpu are 4-cpu ones: one copy each; its 8-cpu amd64 types hold two."""
    decision = run.decide(pod, copies, APP)
    got = [(s.pool, s.nodes, s.copies, s.instance_types) for s in decision.scale_up]
    assert (got, decision.placed) == (claims, copies)


@pytest.mark.parametrize(
    ("toleration", "placeholder"),
    [
        pytest.param({"operator": "Exists", "effect": "PreferNoSchedule"}, 1, id="the same"),
        pytest.param(
            {"key": "", "operator": "Exists", "effect": "PreferNoSchedule", "value": ""},
            1,
            id="empty key and value written out are the same",
        ),
        pytest.param(
            {"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"},
            2,
            id="a keyed one is not: the relaxation adds its own, one more attempt",
        ),
        pytest.param({"operator": "Exists"}, 2, id="one of every effect is not either"),
    ],
)
def test_the_prefer_no_schedule_toleration_is_added_unless_the_pod_has_it(
    toleration: dict[str, Any], placeholder: int
) -> None:
    """preferences.go ``toleratePreferNoScheduleTaints`` relaxes nothing when one of the
    pod's tolerations ``MatchToleration`` (k8s.io/api core/v1 toleration.go: the same key,
    effect, operator and value) its ``Exists``/``PreferNoSchedule`` one. A copy with
    hostname affinity to a pod running elsewhere fails every attempt; each attempt numbers
    a new claim's hostname, which the last error names."""
    db = api_pod("db-1", "n-b")
    db["metadata"]["labels"] = DB
    run = Run(
        (NodePool("b", taints=(SOFT_TAINT,)),),
        nodes=[karpenter_node("n-b", "old", "zone-b")],
        pods=[db],
    )
    pod = spec(affinity=_affinity_to("kubernetes.io/hostname", DB), tolerations=[toleration])
    ((_, _, said),) = run.decide(pod, 1, APP).errors
    assert said.endswith(f"[hostname-placeholder-{placeholder:04d}]")


HOSTNAME_SELF = {"podAffinity": _affinity_to("kubernetes.io/hostname", APP)["podAffinity"]}
"""A required pod affinity over hostnames to the pod's own copies."""
HOSTNAME_SELF_PREFERRED = {
    "nodeAffinity": _either_arch(),
    "podAffinity": _preferred_pod_affinity((10, "kubernetes.io/hostname", APP)),
}
"""Amd64 or else arm64, and a preferred pod affinity over hostnames to the pod's own copies."""


@pytest.mark.parametrize(
    ("affinity", "landed", "claims", "reason"),
    [
        pytest.param(
            HOSTNAME_SELF, {}, [("default", 1, 3, ("c-8x", "m-8x"))], None, id="none landed"
        ),
        pytest.param(
            HOSTNAME_SELF,
            {"zone-a": 2},
            [],
            TOPOLOGY,
            id="copies on an existing node: the rest must join them there, no new claim",
        ),
        pytest.param(
            HOSTNAME_SELF_PREFERRED,
            {"zone-a": 1},
            [("default", 3, 3, ARM_3CPU)],
            None,
            id="preferred: held until relaxed, the amd64 term dropped before it",
        ),
    ],
)
def test_hostname_affinity_counts_the_copies_existing_nodes_took(
    affinity: dict[str, Any],
    landed: dict[str, int],
    claims: list[tuple[str, int, int, tuple[str, ...]]],
    reason: str | None,
) -> None:
    """scheduler.go ``add`` places copies on existing nodes first (``addToExistingNode``) and
    topology.go ``Record`` counts each in every group that selects it: on that node's
    hostname. topologygroup.go ``nextDomainAffinity`` then gives a new claim's hostname to a
    self-selecting copy only while every domain is empty, so a required term leaves the
    rest pending and a preferred one holds until ``Relax`` drops it (the first required
    node-affinity term first). The copies ask 2.5 cpu: three fit an 8-cpu type."""
    run = Run((NodePool("default"),))
    profile = pod_profile(spec(cpu="2500m", affinity=affinity), "default", APP)
    cycle = prepare(profile, run.cluster)
    decision = run.provisioner.decide(cycle, profile, 3, landed, cluster=run.cluster)
    got = [(s.pool, s.nodes, s.copies, s.instance_types) for s in decision.scale_up]
    assert (got, decision.reasons) == (claims, {reason: 1} if reason else {})


def _db_in(zone: str) -> Run:
    """A default pool over the catalog's zones (zone-a, zone-b) and a database pod on an
    existing node in ``zone``."""
    db = api_pod("db-1", "n-db")
    db["metadata"]["labels"] = DB
    return Run((NodePool("default"),), nodes=[karpenter_node("n-db", "old", zone)], pods=[db])


AFFINITY_UNSERVED_CASES = [
    pytest.param(
        _db_in("zone-z"),
        spec(affinity=_required_term("podAffinity", DB)),
        1,
        [],
        (UNSERVED, "topology.kubernetes.io/zone In [zone-z], resources="),
        id="affinity to pods running only where no type is offered: the type error",
    ),
    pytest.param(
        _db_in("zone-b"),
        spec(affinity=_required_term("podAffinity", DB)),
        1,
        [("default", 1, 1)],
        None,
        id="affinity to pods in a served zone",
    ),
    pytest.param(
        Run((NodePool("default", requirements=(_in(ZONE, "zone-a", "zone-b", "zone-x"),)),)),
        spec(affinity=_required_term("podAntiAffinity", APP)),
        3,
        [("default", 2, 2)],
        (UNSERVED, "topology.kubernetes.io/zone In [zone-x], resources="),
        id="anti-affinity to itself: served zones first, then the unserved one fails",
    ),
]


@pytest.mark.parametrize(("run", "pod", "copies", "claims", "error"), AFFINITY_UNSERVED_CASES)
def test_pod_affinity_over_zones_may_choose_a_zone_no_type_serves(
    run: Run,
    pod: dict[str, Any],
    copies: int,
    claims: list[tuple[str, int, int]],
    error: tuple[str, str] | None,
) -> None:
    """topologygroup.go ``nextDomainAffinity`` and ``nextDomainAntiAffinity`` return the
    domains (topology.go ``buildDomainGroups``, the existing nodes' zones: ``countDomains``)
    that ``nodeDomains`` (the claim's requirements, not its types' offerings) allows and the
    rule admits; a claim left only zones no type serves fails in
    ``filterInstanceTypesByRequirements`` with the ``InstanceTypeFilterError`` of those
    zones, not with a topology error. A copy of a self-selecting anti-affinity takes a
    served zone first (Karpenter offers every empty zone and the claim lands in a served
    one)."""
    _claims_or_error(run, pod, copies, claims, error)
