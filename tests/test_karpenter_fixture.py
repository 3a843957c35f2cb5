"""The recorded EKS cluster with Karpenter (fixtures/snapshots/eks-karpenter.json) and its
instance-type catalog (fixtures/catalogs/instance-types.json, in KWOK's format:
kubernetes-sigs/karpenter v1.8.3 kwok/cloudprovider/helpers.go), read as fitgate reads them:
what the provisioning decision is given."""

from __future__ import annotations

from gate.inputs.catalog import read_catalog
from gate.model.karpenter import NODEPOOL_LABEL, Requirement
from gate.model.taints import Taint
from gate.snapshot.load import load_snapshot
from tests.conftest import ROOT

SNAPSHOT = ROOT / "fixtures" / "snapshots" / "eks-karpenter.json"
CATALOG = ROOT / "fixtures" / "catalogs" / "instance-types.json"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"


def test_the_snapshot_records_two_pools_their_claims_and_one_node_class() -> None:
    snapshot = load_snapshot(str(SNAPSHOT))
    assert snapshot.autoscaling is not None and snapshot.autoscaling.status is None
    karpenter = snapshot.autoscaling.karpenter
    assert karpenter is not None
    default, gpu = karpenter.pools
    assert (default.name, default.weight, default.ready) == ("default", 10, True)
    assert default.limits == {"cpu": 64_000, "memory": 256 * 2**30}
    assert Requirement("karpenter.sh/capacity-type", "In", ("on-demand", "spot")) in (
        default.requirements
    )
    assert (gpu.name, gpu.weight, gpu.taints) == (
        "gpu",
        0,
        (Taint("nvidia.com/gpu", "true", "NoSchedule"),),
    )
    nodes = {n.name: n for n in snapshot.nodes}
    launched = [c for c in karpenter.claims if c.node_name]
    assert len(launched) == 4 and len(karpenter.claims) == 5
    for claim in launched:
        node = nodes[claim.node_name]
        assert node.labels[NODEPOOL_LABEL] == claim.pool
        assert node.labels[INSTANCE_TYPE] == claim.labels[INSTANCE_TYPE]
        assert node.allocatable["cpu"] == claim.allocatable["cpu"]
    in_flight = [c for c in karpenter.claims if not c.node_name]
    assert [(c.name, c.pool, c.labels[INSTANCE_TYPE]) for c in in_flight] == [
        ("default-q3v8h", "default", "m7g.xlarge")
    ]
    assert [(c.kind, c.name, c.ready) for c in karpenter.node_classes] == [
        ("EC2NodeClass", "default", True)
    ]
    assert [d.name for d in snapshot.autoscaling.daemon_sets] == [
        "aws-node",
        "kube-proxy",
        "nvidia-device-plugin",
    ]


def test_the_catalog_spans_two_architectures_three_zones_and_a_gpu_type() -> None:
    catalog = read_catalog(str(CATALOG))
    types = catalog.types
    assert len(types) == 12
    assert {t.labels["kubernetes.io/arch"] for t in types} == {"amd64", "arm64"}
    assert {o.zone for t in types for o in t.offerings} == {
        "us-east-1a",
        "us-east-1b",
        "us-east-1c",
    }
    assert {o.capacity_type for t in types for o in t.offerings} == {"on-demand", "spot"}
    assert [t.name for t in types if "nvidia.com/gpu" in t.capacity] == ["g5.2xlarge"]
    cpus = sorted(t.capacity["cpu"] for t in types)
    assert (cpus[0], cpus[-1]) == (2000, 96000)
    assert all(t.overhead["cpu"] < t.capacity["cpu"] for t in types)


def test_every_recorded_node_s_type_is_in_the_catalog_with_its_capacity() -> None:
    by_name = {t.name: t for t in read_catalog(str(CATALOG)).types}
    snapshot = load_snapshot(str(SNAPSHOT))
    for node in snapshot.nodes:
        kind = by_name[node.labels[INSTANCE_TYPE]]
        assert node.allocatable["pods"] == kind.capacity["pods"]
        assert node.allocatable["cpu"] == kind.capacity["cpu"] - kind.overhead["cpu"]
        assert node.labels["kubernetes.io/arch"] == kind.labels["kubernetes.io/arch"]
