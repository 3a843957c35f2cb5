"""A requirement on a provider's labels that the catalog cannot judge fails closed for its
pool (gate/scheduler/autoscaling/karpenter/unjudged.py). Upstream, karpenter-provider-aws
v1.8.8 pkg/providers/instancetype/types.go:181-211 puts every ``karpenter.k8s.aws/*`` key on
every type (``DoesNotExist`` when it has no value), so such a requirement always narrows the
types; sigs.k8s.io/karpenter v1.8.3 pkg/scheduling/requirements.go ``Intersects`` compares
only the keys both sides hold, so against types without the keys it would keep them all."""

from __future__ import annotations

import pytest

from gate.inputs.catalog import read_catalogs
from gate.model.karpenter import Catalog, NodePool, Requirement
from gate.model.taints import Taint
from gate.scheduler.autoscaling.karpenter.unjudged import UNJUDGED
from tests.conftest import ROOT
from tests.karpenter_support import CATALOG, Run, karpenter_node, spec

EKS = ("karpenter.k8s.aws", "EC2NodeClass", "default")
AKS = ("karpenter.azure.com", "AKSNodeClass", "default")
CATEGORY = "karpenter.k8s.aws/instance-category"
FAMILY = "karpenter.k8s.aws/instance-family"
EC2 = read_catalogs([(str(ROOT / "tests" / "data" / "ec2" / "describe-instance-types.json"), None)])
RECORD = (
    "record EC2's listing (aws ec2 describe-instance-types --output json) and give it with "
    "--instance-types"
)
FILTERED = "nodepool requirements filtered out all available instance types"


def _pool(*requirements: Requirement, name: str = "default", weight: int = 0) -> NodePool:
    return NodePool(name, weight, requirements=requirements, node_class=EKS)


def _said(whose: str, requirement: str, types: str = "the instance types of test catalog") -> str:
    return (
        f"{whose} requirement {requirement} cannot be judged with {types}, which carry no EKS "
        f"instance-type labels: {RECORD}"
    )


def test_a_pool_on_a_provider_label_the_kwok_catalog_lacks_takes_no_copy() -> None:
    run = Run((_pool(Requirement(CATEGORY, "In", ("c", "m", "r"))),))
    decision = run.decide(spec(), 3)
    assert (decision.placed, decision.scale_up) == (0, ())
    text = _said("NodePool", f"{CATEGORY} In [c m r]")
    assert decision.errors == (("default", UNJUDGED, text),)
    assert decision.message == f"Failed to schedule pod, {text}"


def test_the_running_types_cannot_judge_a_family_either() -> None:
    nodes = [karpenter_node("n1", "default", "zone-a", kind="g5.xlarge")]
    run = Run((_pool(Requirement(FAMILY, "In", ("r8g",))),), nodes=nodes, catalog=None)
    decision = run.decide(spec(cpu="100m", memory="100Mi"), 1)
    running = "the instance types running in the cluster"  # said once, not "of the ... types"
    assert decision.errors == (
        ("default", UNJUDGED, _said("NodePool", f"{FAMILY} In [r8g]", running)),
    )


def test_a_pod_selecting_a_provider_label_is_blocked_not_scaled() -> None:
    run = Run((_pool(),))
    pod = spec(nodeSelector={"karpenter.k8s.aws/instance-gpu-count": "1"})
    decision = run.decide(pod, 2)
    text = _said("the pod's", "karpenter.k8s.aws/instance-gpu-count In [1]")
    assert (decision.placed, decision.errors) == (0, (("default", UNJUDGED, text),))


def test_a_pool_the_pod_cannot_tolerate_says_so_first() -> None:
    """nodeclaim.go ``CanAdd``: taints before requirements."""
    taint = Taint("dedicated", "gpu", "NoSchedule")
    run = Run((NodePool("gpu", taints=(taint,), node_class=EKS),))
    pod = spec(nodeSelector={FAMILY: "g5"})
    assert [e[1] for e in run.decide(pod, 1).errors] == ["did not tolerate taint"]


def test_the_node_class_label_karpenter_adds_is_judged() -> None:
    """nodeclaimtemplate.go: the NodeClass label is the template's own, not a type's."""
    run = Run((_pool(),))
    pod = spec(nodeSelector={"karpenter.k8s.aws/ec2nodeclass": "default"})
    assert run.decide(pod, 1).placed == 1


def test_another_pool_still_takes_what_the_unjudged_one_cannot() -> None:
    run = Run(
        (
            _pool(Requirement(CATEGORY, "In", ("c",)), name="compute", weight=10),
            _pool(name="default"),
        )
    )
    decision = run.decide(spec(), 2)
    assert decision.placed == 2
    assert [s.pool for s in decision.scale_up] == ["default"]


def test_an_aks_pool_names_azure_s_labels() -> None:
    pool = NodePool(
        "default",
        requirements=(Requirement("karpenter.azure.com/sku-family", "In", ("D",)),),
        node_class=AKS,
    )
    (error,) = Run((pool,)).decide(spec(), 1).errors
    assert error[1] == UNJUDGED
    assert "karpenter.azure.com/sku-family In [D]" in error[2] and "AKS" in error[2]


@pytest.mark.parametrize(
    ("requirement", "catalog", "placed", "reason"),
    [
        pytest.param(Requirement(FAMILY, "In", ("r8g",)), EC2, 0, FILTERED, id="EC2: no r8g"),
        pytest.param(Requirement(FAMILY, "In", ("c6g",)), EC2, 1, None, id="EC2: c6g is there"),
        pytest.param(
            Requirement(FAMILY, "In", ("c6g",)), CATALOG, 0, UNJUDGED, id="KWOK: unjudged"
        ),
    ],
)
def test_with_ec2_s_listing_the_same_requirement_is_judged(
    requirement: Requirement, catalog: Catalog, placed: int, reason: str | None
) -> None:
    decision = Run((_pool(requirement),), catalog=catalog).decide(spec(), 1)
    assert decision.placed == placed
    assert [e[1] for e in decision.errors] == ([reason] if reason else [])
