"""EC2's listing as karpenter-provider-aws v1.8.8 builds instance types from it
(gate/inputs/ec2catalog.py). tests/data/ec2/describe-instance-types.json and
describe-instance-type-offerings.json are that tag's pkg/fake/zz_generated.describe_instance_
types.go written as the CLI prints it; tests/data/ec2/instance-types.md the sections of its
generated reference (website/content/en/v1.8/reference/instance-types.md) for those types:
labels and allocatable as the provider computes them for the default EC2NodeClass."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from gate.errors import UsageError
from gate.inputs.catalog import read_catalogs
from gate.inputs.config import Config, with_catalog
from gate.inputs.ec2catalog import ASSUMED, NO_ZONES, kube_reserved_cpu
from gate.k8s.quantity import parse_quantity
from gate.k8s.resources import to_scheduler_units
from gate.model.karpenter import Catalog, NodeClass, NodePool, Requirement
from gate.scheduler.autoscaling.karpenter.pools import allocatable
from tests.conftest import ROOT
from tests.karpenter_support import Run, spec

DATA = ROOT / "tests" / "data" / "ec2"
LISTING = DATA / "describe-instance-types.json"
OFFERINGS = DATA / "describe-instance-type-offerings.json"
REFERENCE = DATA / "instance-types.md"
ZONES_OF_M5 = ["test-zone-1a", "test-zone-1a-local", "test-zone-1b", "test-zone-1c"]
MI, GI = 2**20, 2**30
AWS = "karpenter.k8s.aws"
FROM_TABLES = {f"{AWS}/instance-network-bandwidth", "vpc.amazonaws.com/pod-eni"}
"""What the provider takes from its generated tables (zz_generated.bandwidth.go,
zz_generated.vpclimits.go), not from the listing: the fake listing has no
``BaselineBandwidthInGbps`` and no listing has branch interfaces."""


def _catalog(*paths: Path) -> Catalog:
    return read_catalogs([(str(p), None) for p in paths])


LISTED = {t.name: t for t in _catalog(LISTING).types}
OFFERED = {t.name: t for t in _catalog(LISTING, OFFERINGS).types}


def _described(name: str) -> dict[str, Any]:
    for info in json.loads(LISTING.read_text(encoding="utf-8"))["InstanceTypes"]:
        if info["InstanceType"] == name:
            return dict(info)
    raise KeyError(name)


def _reference(path: Path = REFERENCE) -> dict[str, tuple[dict[str, str], dict[str, int]]]:
    found = {}
    for section in re.split(r"(?m)^(?=### `)", path.read_text(encoding="utf-8"))[1:]:
        name = section.split("`")[1]
        labels, resources = section.split("#### Resources")
        rows = re.compile(r"(?m)^ \|([a-z][^|]+)\|([^|]*)\|$")
        amounts = {k: parse_quantity(v) for k, v in rows.findall(resources)}
        found[name] = (dict(rows.findall(labels)), to_scheduler_units(amounts))
    return found


REFERENCE_TYPES = _reference()


@pytest.mark.parametrize("name", sorted(REFERENCE_TYPES))
def test_each_type_has_the_labels_and_allocatable_the_provider_documents(name: str) -> None:
    """types.go:158-299 computeRequirements, 320-338 computeCapacity, 499-558 overhead: the
    single-valued requirements and the allocatable of the generated reference."""
    labels, resources = REFERENCE_TYPES[name]
    built = LISTED[name]
    ours = {**built.labels, "kubernetes.io/os": built.operating_systems[0]}
    assert {k: v for k, v in ours.items() if k not in FROM_TABLES} == {
        k: v for k, v in labels.items() if k not in FROM_TABLES
    }
    assert allocatable(built, None) == {k: v for k, v in resources.items() if k not in FROM_TABLES}
    assert not set(built.labels) & set(built.absent)


FIXTURE = ROOT / "fixtures" / "catalogs" / "ec2"
FIXTURE_TYPES = _reference(DATA / "fixture-instance-types.md")
FIXTURE_BUILT = {
    t.name: t
    for t in _catalog(
        FIXTURE / "describe-instance-types.json", FIXTURE / "describe-instance-type-offerings.json"
    ).types
}


@pytest.mark.parametrize("name", sorted(FIXTURE_TYPES))
def test_the_fixture_listing_builds_what_the_provider_documents(name: str) -> None:
    """The shipped example listing, with its network cards' baseline bandwidth: every
    label the reference gives, the bandwidth too (zz_generated.bandwidth.go is EC2's
    baseline bandwidth)."""
    labels, resources = FIXTURE_TYPES[name]
    built = FIXTURE_BUILT[name]
    ours = {**built.labels, "kubernetes.io/os": "linux"}
    del ours["topology.kubernetes.io/region"]
    assert ours == labels
    pod_eni = "vpc.amazonaws.com/pod-eni"
    assert allocatable(built, None) == {k: v for k, v in resources.items() if k != pod_eni}
    assert built.labels["topology.kubernetes.io/region"] == "us-east-1"


@pytest.mark.parametrize(
    ("name", "memory_mi", "pods", "kube_cpu", "kube_memory_mi"),
    [
        # 8192 MiB less ceil(8192 x 0.075) = 615 (types.go:344-354); 3 ENIs x (10 - 1) + 2
        # (560-575); 70m = 60 + 10 (508-525); 11 x 29 + 255 (500-502)
        pytest.param("m5.large", 7577, 29, 70, 574, id="m5.large: the default EC2NodeClass"),
        # Graviton: 4096 - 64 (CMA, 346-349) = 4032, less ceil(302.4)
        pytest.param("c6g.large", 3729, 29, 70, 574, id="c6g.large is Graviton: less 64 MiB"),
        pytest.param("t4g.medium", 3729, 17, 70, 442, id="t4g.medium: 3 ENIs of 6 addresses"),
        # 32 vCPUs: 60 + 10 + 10 + 28000 x 0.25 %; 4 ENIs x 14 + 2
        pytest.param("g4dn.8xlarge", 121241, 58, 150, 893, id="g4dn.8xlarge has one T4"),
        # 128 vCPUs: 60 + 10 + 10 + 310; the default card's 8 ENIs, not all 16: 8 x 49 + 2
        pytest.param("m6idn.32xlarge", 484966, 394, 390, 4589, id="m6idn.32xlarge counts one card"),
        pytest.param("inf2.xlarge", 15155, 58, 80, 893, id="inf2.xlarge has one Inferentia2"),
    ],
)
def test_the_provider_arithmetic_by_hand(
    name: str, memory_mi: int, pods: int, kube_cpu: int, kube_memory_mi: int
) -> None:
    built = LISTED[name]
    assert built.capacity["memory"] == memory_mi * MI
    assert built.capacity["pods"] == pods
    assert built.kube_reserved == {
        "cpu": kube_cpu,
        "memory": kube_memory_mi * MI,
        "ephemeral-storage": GI,
    }
    # evictionThreshold (531-558): 100Mi, and 10 % of the 20Gi AL2023 root volume
    assert built.eviction_threshold == {"memory": 100 * MI, "ephemeral-storage": 2 * GI}


def test_kube_reserved_cpu_brackets() -> None:
    """types.go:508-525, truncated to whole millicores per bracket."""
    assert [kube_reserved_cpu(n) for n in (1, 2, 3, 4, 8, 48, 96, 192)] == [
        60,
        70,
        75,
        80,
        90,
        190,
        310,
        550,
    ]


def test_gpu_neuron_and_efa_capacity() -> None:
    """types.go:404-466: GPUs by manufacturer, Neuron devices and cores, EFA interfaces."""
    assert LISTED["p3.8xlarge"].capacity["nvidia.com/gpu"] == 4
    assert LISTED["g4ad.16xlarge"].capacity["amd.com/gpu"] == 4
    assert LISTED["dl1.24xlarge"].capacity["habana.ai/gaudi"] == 8
    assert LISTED["inf2.24xlarge"].capacity["aws.amazon.com/neuron"] == 6
    assert LISTED["inf2.24xlarge"].capacity["aws.amazon.com/neuroncore"] == 12
    assert LISTED["dl1.24xlarge"].capacity["vpc.amazonaws.com/efa"] == 4
    # four GPUs of one kind: the GPU labels are there (one GpuInfo entry, 259-266)
    assert LISTED["p3.8xlarge"].labels[f"{AWS}/instance-gpu-count"] == "4"
    assert f"{AWS}/instance-gpu-count" in LISTED["m5.large"].absent


def _node_class(**kubelet: Any) -> NodeClass:
    return NodeClass("EC2NodeClass", "default", **kubelet)


@pytest.mark.parametrize(
    ("node_class", "changed"),
    [
        # 468-482: maxPods replaces the ENI count; kube-reserved memory keeps it (146)
        pytest.param(_node_class(max_pods=110), {"pods": 110}, id="maxPods changes pods only"),
        # podsPerCore caps the ENI count at 2 x 2 vCPUs
        pytest.param(_node_class(pods_per_core=2), {"pods": 4}, id="podsPerCore caps the pods"),
        pytest.param(
            _node_class(pods_per_core=20), {}, id="podsPerCore above the ENI count changes nothing"
        ),
        # 526-528: each kubeReserved key replaces the computed one, and only that one
        pytest.param(
            _node_class(kube_reserved={"cpu": 200}), {"cpu": 1800}, id="kubeReserved cpu alone"
        ),
        pytest.param(
            _node_class(kube_reserved={"memory": 100 * MI}),
            {"memory": (7577 - 100 - 100) * MI},
            id="kubeReserved memory keeps the eviction threshold",
        ),
        # 493-497: systemReserved adds to the rest
        pytest.param(
            _node_class(system_reserved={"memory": 200 * MI}),
            {"memory": (7577 - 574 - 100 - 200) * MI},
            id="systemReserved is held back besides",
        ),
        # 531-558, 583-605: the override replaces the default even when smaller
        # the snapshot keys evictionHard by the kubelet's signal, as the NodeClass writes it
        pytest.param(
            _node_class(eviction_hard={"memory.available": 50 * MI}),
            {"memory": (7577 - 574 - 50) * MI},
            id="evictionHard memory.available replaces the 100Mi",
        ),
        pytest.param(
            _node_class(eviction_hard={"nodefs.available": 3 * GI}),
            {"ephemeral-storage": 16 * GI},
            id="evictionHard nodefs.available replaces the 10 percent",
        ),
        # 540-555: AL2023 enables evictionSoft; per resource the larger of the hard and the
        # soft threshold replaces the default
        pytest.param(
            _node_class(eviction_soft={"memory.available": 500 * MI}),
            {"memory": (7577 - 574 - 500) * MI},
            id="evictionSoft memory.available replaces the 100Mi",
        ),
        pytest.param(
            _node_class(
                eviction_hard={"memory.available": 300 * MI},
                eviction_soft={"memory.available": 200 * MI},
            ),
            {"memory": (7577 - 574 - 300) * MI},
            id="the larger of the hard and the soft threshold is held back",
        ),
        pytest.param(
            _node_class(
                eviction_hard={"nodefs.available": GI},
                eviction_soft_percent={"nodefs.available": "15%"},
            ),
            {"ephemeral-storage": 20 * GI - GI - math.ceil(20 * GI * 15 / 100)},
            id="a soft percentage above a hard amount is held back",
        ),
        # 357-393, 533: the NodeClass's root volume is the ephemeral storage, and the default
        # nodefs threshold is 10 percent of it
        pytest.param(
            _node_class(root_volume=100 * GI),
            {"ephemeral-storage": 100 * GI - GI - 10 * GI},
            id="the root volume sets the ephemeral storage and its default threshold",
        ),
        pytest.param(
            _node_class(root_volume=100 * GI, eviction_percent={"nodefs.available": "5%"}),
            {"ephemeral-storage": 100 * GI - GI - 5 * GI},
            id="a nodefs percentage is of the root volume",
        ),
        pytest.param(
            _node_class(eviction_percent={"nodefs.available": "5%"}),
            {"ephemeral-storage": 20 * GI - GI - 1073741824},
            id="a percentage is of the capacity",
        ),
        pytest.param(
            _node_class(eviction_percent={"nodefs.available": "100%"}),
            {"ephemeral-storage": 19 * GI},
            id="100 percent disables the threshold",
        ),
    ],
)
def test_the_ec2_node_class_kubelet(node_class: NodeClass, changed: dict[str, int]) -> None:
    base = allocatable(LISTED["m5.large"], None)
    assert base == {
        "cpu": 1930,
        "memory": 6903 * MI,
        "ephemeral-storage": 17 * GI,
        "pods": 29,
    }
    assert allocatable(LISTED["m5.large"], node_class) == {**base, **changed}


def test_offerings_give_zones_and_the_region() -> None:
    """instancetype.go:273-324: each type in the zones its offerings name; a type no
    offering names has no available offering and is not a type a pool can launch."""
    m5 = OFFERED["m5.large"]
    assert sorted({o.zone for o in m5.offerings}) == ZONES_OF_M5
    assert {o.capacity_type for o in m5.offerings} == {"on-demand", "spot"}
    assert "t4g.medium" in LISTED and "t4g.medium" not in OFFERED
    assert _catalog(LISTING, OFFERINGS).assumed == ASSUMED
    listed_only = _catalog(LISTING)
    assert listed_only.assumed == (*ASSUMED, NO_ZONES)
    assert {o.zone for t in listed_only.types for o in t.offerings} == {""}
    assert listed_only.provider == "aws"
    assert listed_only.source == str(LISTING)


def _listing(tmp_path: Path, *types: dict[str, Any]) -> Path:
    path = tmp_path / "types.json"
    path.write_text(json.dumps({"InstanceTypes": list(types)}), encoding="utf-8")
    return path


def test_types_karpenter_does_not_list_are_dropped(tmp_path: Path) -> None:
    """instancetype.go:239-252: hvm, and x86_64 or arm64 only (``mac1.metal``)."""
    mac = {
        **_described("m5.metal"),
        "InstanceType": "mac1.metal",
        "ProcessorInfo": {"SupportedArchitectures": ["x86_64_mac"], "Manufacturer": "Intel"},
    }
    paravirtual = {
        **_described("m5.large"),
        "InstanceType": "m1.small",
        "SupportedVirtualizationTypes": ["paravirtual"],
    }
    catalog = _catalog(_listing(tmp_path, mac, paravirtual, _described("m5.large")))
    assert [t.name for t in catalog.types] == ["m5.large"]


@pytest.mark.parametrize(
    ("documents", "message"),
    [
        pytest.param(
            [{"Reservations": []}],
            "a.json: not an instance-type catalog: expected KWOK's JSON array, `aws ec2 "
            "describe-instance-types --output json`, `aws ec2 describe-instance-type-"
            "offerings --location-type availability-zone --output json` or `az vm list-skus "
            "--location <region> --output json`",
            id="a file of no known shape names what was expected",
        ),
        pytest.param(
            [{"InstanceTypeOfferings": []}],
            "a.json: offerings alone name no instance type: give the describe-instance-types "
            "listing too",
            id="offerings alone",
        ),
        pytest.param(
            [[], {"InstanceTypes": []}],
            "a.json, b.json: a KWOK catalog is given alone; EC2 listings may be given with "
            "their offerings",
            id="KWOK beside a listing",
        ),
        pytest.param(
            [
                {"InstanceTypes": [{"InstanceType": "m5.large"}]},
                {"InstanceTypeOfferings": [{"InstanceType": "m5.large", "LocationType": "region"}]},
            ],
            "b.json: InstanceTypeOfferings[0].LocationType: 'region': record the offerings "
            "with --location-type availability-zone",
            id="offerings by region",
        ),
        pytest.param(
            [{"InstanceTypes": [{"InstanceType": "m5.large"}, {"InstanceType": "m5.large"}]}],
            "a.json: InstanceTypes[1]: 'm5.large' is listed twice (also in a.json)",
            id="a type listed twice",
        ),
        pytest.param(
            [{"InstanceTypes": [{**_described("m5.large"), "VCpuInfo": {"DefaultVCpus": "2"}}]}],
            "a.json: InstanceTypes[0] (m5.large): not as EC2 describes a type: "
            "VCpuInfo.DefaultVCpus is not a whole number",
            id="a malformed type",
        ),
    ],
)
def test_a_file_is_recognised_by_its_shape_or_refused_in_one_line(
    tmp_path: Path, documents: list[object], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    names = []
    for name, document in zip("ab", documents, strict=False):
        Path(f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
        names.append(f"{name}.json")
    with pytest.raises(UsageError) as raised:
        with_catalog(Config(), names)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def _in(key: str, *values: str) -> Requirement:
    return Requirement(key, "In", values)


FILTERED = "nodepool requirements filtered out all available instance types"


def _types_taken(*requirements: Requirement, pod: dict[str, Any] | None = None) -> set[str]:
    """The types a new node of the pool may take for a 1-cpu pod."""
    run = Run((NodePool("default", requirements=requirements),), catalog=_catalog(LISTING))
    decision = run.decide(pod or spec(cpu="1", memory="1Gi"), 1)
    return {t for launch in decision.scale_up for t in launch.instance_types}


@pytest.mark.parametrize(
    ("requirements", "pod", "types"),
    [
        pytest.param(
            (_in(f"{AWS}/instance-category", "c", "m", "r"),),
            None,
            {"c6g.large", "m5.large", "m5.xlarge", "m5.metal", "m6idn.32xlarge", "m7i-flex.large"},
            id="category c, m, r is offered no g, p or t",
        ),
        pytest.param(
            (_in(f"{AWS}/instance-family", "c6g", "t4g"),),
            None,
            {"c6g.large", "t4g.small", "t4g.medium", "t4g.xlarge"},
            id="families",
        ),
        pytest.param(
            (Requirement(f"{AWS}/instance-generation", "Gt", ("5",)),),
            None,
            {"c6g.large", "m6idn.32xlarge", "m7i-flex.large"},
            id="generation above 5",
        ),
        pytest.param(
            (_in("kubernetes.io/arch", "arm64"),),
            None,
            {"c6g.large", "t4g.small", "t4g.medium", "t4g.xlarge"},
            id="Graviton only",
        ),
        pytest.param(
            (),
            spec(nodeSelector={f"{AWS}/instance-gpu-manufacturer": "nvidia"}),
            {"g4dn.8xlarge", "p3.8xlarge"},
            id="a pod selecting a GPU manufacturer a NodePool does not name",
        ),
        pytest.param(
            (Requirement(f"{AWS}/instance-gpu-count", "Gt", ("1",)),),
            None,
            {"p3.8xlarge", "g4ad.16xlarge", "dl1.24xlarge"},
            id="more than one GPU: types without the label are excluded",
        ),
        pytest.param(
            (Requirement(f"{AWS}/instance-gpu-count", "DoesNotExist"),),
            spec(cpu="1", memory="1Gi", nodeSelector={"kubernetes.io/arch": "amd64"}),
            {
                "inf2.xlarge",
                "inf2.24xlarge",
                "m5.large",
                "m5.xlarge",
                "m5.metal",
                "m6idn.32xlarge",
                "m7i-flex.large",
                "t3.large",
                "trn1.2xlarge",
            },
            id="no GPU at all",
        ),
    ],
)
def test_node_pools_restricted_by_provider_labels(
    requirements: tuple[Requirement, ...], pod: dict[str, Any] | None, types: set[str]
) -> None:
    assert _types_taken(*requirements, pod=pod) == types


def test_a_family_no_listed_type_has_leaves_the_pool_no_type() -> None:
    """provisioner.go ``NewScheduler`` drops the pool; scheduler.go ``add``: no template."""
    run = Run(
        (NodePool("default", requirements=(_in(f"{AWS}/instance-family", "r8g"),)),),
        catalog=_catalog(LISTING),
    )
    decision = run.decide(spec(), 2)
    assert decision.placed == 0 and decision.scale_up == ()
    assert decision.errors == (("", FILTERED, FILTERED),)
