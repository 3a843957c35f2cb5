"""``topology.k8s.aws/zone-id`` is judged from the EC2NodeClass's ``status.subnets``, as
karpenter-provider-aws v1.8.8 gives it: a type carries the zone IDs of its zones that a subnet
records (pkg/providers/instancetype/types.go:214-223, none recorded: no requirement), each
offering its zone's (offering/offering.go:155-157), and the key is well-known
(pkg/apis/v1/labels.go:31). With no zone ID recorded nothing can tell, and a requirement on it
fails closed (gate/scheduler/autoscaling/karpenter/unjudged.py)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.catalog import read_catalogs
from gate.model.karpenter import KarpenterState, NodeClass, NodePool, Requirement
from gate.scheduler.autoscaling.karpenter.pools import ZONE_ID, TypeMemo
from gate.scheduler.autoscaling.karpenter.unjudged import UNJUDGED
from tests.conftest import ROOT
from tests.karpenter_support import Run, spec

DATA = ROOT / "tests" / "data" / "ec2"
EC2 = read_catalogs(
    [
        (str(DATA / "describe-instance-types.json"), None),
        (str(DATA / "describe-instance-type-offerings.json"), None),
    ]
)
EKS = ("karpenter.k8s.aws", "EC2NodeClass", "default")
M5 = Requirement("node.kubernetes.io/instance-type", "In", ("m5.large",))
IDS = {"test-zone-1a": "tz1-az1", "test-zone-1b": "tz1-az2"}
NO_TYPE = "no instance type met all requirements"
"""scheduling/nodeclaim.go ``InstanceTypeFilterError``: the claim's requirements admit the
key (it is well-known), no type's zone IDs hold the value."""


def _run(zone_ids: dict[str, str], *requirements: Requirement) -> Run:
    pool = NodePool(
        "default",
        requirements=(M5, *requirements),
        node_class=EKS,
    )
    node_class = NodeClass("EC2NodeClass", "default", zone_ids=zone_ids)
    state = KarpenterState((pool,), node_classes=(node_class,))
    return Run((pool,), catalog=EC2, state=state)


def _zone_id(value: str) -> dict[str, Any]:
    return spec(nodeSelector={ZONE_ID: value})


@pytest.mark.parametrize(
    ("zone_ids", "pod", "placed", "reason"),
    [
        pytest.param(IDS, _zone_id("tz1-az2"), 1, None, id="a recorded zone ID is launched"),
        pytest.param(IDS, _zone_id("tz1-az9"), 0, NO_TYPE, id="a zone ID no subnet has is refused"),
        pytest.param({}, _zone_id("tz1-az2"), 0, UNJUDGED, id="no zone ID recorded fails closed"),
        pytest.param({}, spec(), 1, None, id="a pod not asking for one is judged as before"),
    ],
)
def test_a_pod_selecting_a_zone_id(
    zone_ids: dict[str, str], pod: dict[str, Any], placed: int, reason: str | None
) -> None:
    decision = _run(zone_ids).decide(pod, 1)
    assert decision.placed == placed
    assert [e[1] for e in decision.errors] == ([reason] if reason else [])


def test_a_node_pool_restricted_to_a_zone_id_is_judged() -> None:
    run = _run(IDS, Requirement(ZONE_ID, "In", ("tz1-az1",)))
    assert run.decide(spec(), 1).placed == 1
    run = _run(IDS, Requirement(ZONE_ID, "In", ("tz1-az7",)))
    assert run.decide(spec(), 1).placed == 0


def test_the_type_and_its_offerings_carry_the_zone_ids_of_their_zones() -> None:
    (m5,) = [t for t in EC2.types if t.name == "m5.large"]
    pool_type = TypeMemo().pool_type(m5, NodeClass("EC2NodeClass", "default", zone_ids=IDS))
    assert pool_type is not None
    assert sorted(pool_type.reqs[ZONE_ID].values) == ["tz1-az1", "tz1-az2"]
    by_zone = {
        next(iter(reqs["topology.kubernetes.io/zone"].values)): reqs.get(ZONE_ID)
        for reqs, _ in pool_type.offerings
    }
    assert by_zone["test-zone-1a"] is not None
    assert sorted(by_zone["test-zone-1a"].values) == ["tz1-az1"]
    assert by_zone["test-zone-1c"] is None


def test_a_type_listed_without_offerings_holds_every_recorded_zone_id() -> None:
    """Without an offerings listing a type is in every zone, so in every subnet's."""
    listed = read_catalogs([(str(DATA / "describe-instance-types.json"), None)])
    (m5,) = [t for t in listed.types if t.name == "m5.large"]
    pool_type = TypeMemo().pool_type(m5, NodeClass("EC2NodeClass", "default", zone_ids=IDS))
    assert pool_type is not None
    assert sorted(pool_type.reqs[ZONE_ID].values) == ["tz1-az1", "tz1-az2"]
