"""Azure's SKU listing as karpenter-provider-azure v1.14.2 builds instance types from it
(gate/inputs/azurecatalog.py). fixtures/catalogs/aks/list-skus.json is, as ``az vm list-skus
--location southcentralus --output json`` prints it, that tag's pkg/fake/
zz_generated.sku.southcentralus.go (its 20 SKUs, generated from the real API) followed by
seven SKUs shaped as the API gives them to cover what the fake lacks (a zone restriction with
zoneDetails, a location restriction, a second Arm64 size, a GPU size the registry lacks, a
size without spot capacity, an AMD GPU, an NVIDIA size without Azure Linux drivers) and one
disk SKU (``az vm list-skus`` lists every resource type). Expected values are those the
provider's own tests assert (pkg/providers/instancetype/suite_test.go) or worked by hand from
the lines cited."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.errors import UsageError
from gate.inputs.azurecatalog import (
    ASSUMED,
    SKU_LABELS,
    Sku,
    azure_catalog,
    ephemeral_os_max_gb,
    kube_reserved,
    memory_capacity,
    vm_size,
)
from gate.inputs.catalog import read_catalogs
from gate.inputs.config import Config, with_catalog
from gate.model.karpenter import (
    Catalog,
    InstanceType,
    KarpenterState,
    NodeClass,
    NodePool,
    Requirement,
)
from gate.scheduler.autoscaling.karpenter.catalog import catalog_note
from gate.scheduler.autoscaling.karpenter.pools import TypeMemo, allocatable, type_reqs
from gate.scheduler.autoscaling.karpenter.unjudged import UNJUDGED
from tests.conftest import ROOT
from tests.karpenter_support import CATALOG, Run, karpenter_node, spec

LISTING = ROOT / "fixtures" / "catalogs" / "aks" / "list-skus.json"
AZ = "karpenter.azure.com"
AKS = "kubernetes.azure.com"
AKS_CLASS = ("karpenter.azure.com", "AKSNodeClass", "default")
MI, GI = 2**20, 2**30
FILTERED = "nodepool requirements filtered out all available instance types"


def _catalog(*paths: Path) -> Catalog:
    return read_catalogs([(str(p), None) for p in paths])


CATALOG_AKS = _catalog(LISTING)
BUILT = {t.name: t for t in CATALOG_AKS.types}


def _entries() -> list[dict[str, Any]]:
    return list(json.loads(LISTING.read_text(encoding="utf-8")))


def _entry(name: str) -> dict[str, Any]:
    return next(e for e in _entries() if e["name"] == name)


def _values(it: InstanceType, key: str) -> tuple[str, ...]:
    return tuple(sorted(type_reqs(it)[key].values))


def test_the_listing_is_recognised_by_its_shape_and_names_its_kind() -> None:
    assert CATALOG_AKS.provider == "azure" and CATALOG_AKS.assumed == ASSUMED
    assert CATALOG_AKS.sha256 is not None
    assert catalog_note(CATALOG_AKS).startswith(
        f"NodePools are judged with the instance types of {LISTING} (az vm list-skus, built "
        "as karpenter-provider-azure v1.14 builds them); assumed: the SKU listing holds no "
        "prices"
    )


def test_only_the_sizes_the_provider_offers_are_types() -> None:
    """skus.go:91-114 (A0, B1s restricted), instancetypes.go:442 (a location restriction:
    E8s_v5), 478-523 (M8-2ms constrained, DC8s_v3 confidential, NV4as_v4 a GPU size not in
    the registry); the disk SKU is no virtual machine. What depends on the NodeClass is left
    to each pool (the AMD NV4ads_V710_v5 below)."""
    assert sorted(BUILT) == [
        "Standard_B20ms",
        "Standard_D128ds_v6",
        "Standard_D16plds_v5",
        "Standard_D2_v2",
        "Standard_D2_v3",
        "Standard_D2_v5",
        "Standard_D2as_v6",
        "Standard_D2s_v3",
        "Standard_D4ps_v5",
        "Standard_D4s_v3",
        "Standard_D64s_v3",
        "Standard_D8s_v5",
        "Standard_DS2_v2",
        "Standard_E4d_v5",
        "Standard_F16s_v2",
        "Standard_F4s_v2",
        "Standard_NC16as_T4_v3",
        "Standard_NC24ads_A100_v4",
        "Standard_NC6",
        "Standard_NC6s_v3",
        "Standard_NV4ads_V710_v5",
    ]


@pytest.mark.parametrize(
    ("name", "labels"),
    [
        pytest.param(
            "Standard_D2_v2",
            {
                "sku-name": "Standard_D2_v2",
                "sku-family": "D",
                "sku-series": "D_v2",
                "sku-version": "2",
                "sku-cpu": "2",
                "sku-memory": "7168",
                "sku-gpu-count": "0",
                "sku-storage-premium-capable": "false",
                "sku-networking-accelerated": "true",
            },
            id="D2_v2 as the provider's suite asserts it (suite_test.go:3140-3180)",
        ),
        pytest.param(
            "Standard_NC24ads_A100_v4",
            {
                "sku-name": "Standard_NC24ads_A100_v4",
                "sku-family": "N",
                "sku-series": "NCads_v4",
                "sku-version": "4",
                "sku-cpu": "24",
                "sku-memory": "225280",
                "sku-gpu-count": "1",
                "sku-gpu-manufacturer": "nvidia",
                "sku-gpu-name": "A100",
                "sku-storage-ephemeralos-maxsize": "274",
                "sku-storage-premium-capable": "true",
                "sku-networking-accelerated": "true",
            },
            id="an NVIDIA A100 size: its GPU parsed from the name",
        ),
        pytest.param(
            "Standard_D16plds_v5",
            {
                "sku-family": "D",
                "sku-series": "Dplds_v5",
                "sku-version": "5",
                "sku-cpu": "16",
                "sku-memory": "32768",
                "sku-gpu-count": "0",
                "sku-storage-ephemeralos-maxsize": "429",
            },
            id="an Arm64 size",
        ),
        pytest.param(
            "Standard_B20ms",
            {"sku-family": "B", "sku-series": "Bms", "sku-version": "1"},
            id="a size with no version is version 1 (utils.go:39-55)",
        ),
        pytest.param(
            "Standard_NC6s_v3",
            {"sku-gpu-name": "V100", "sku-gpu-count": "1", "sku-gpu-manufacturer": "nvidia"},
            id="a GPU the name does not carry comes from skewer's table",
        ),
    ],
)
def test_each_type_carries_the_sku_labels(name: str, labels: dict[str, str]) -> None:
    """instancetype.go:142-260 ``computeRequirements``."""
    built = BUILT[name]
    assert {k: built.labels[f"{AZ}/{k}"] for k in labels} == labels
    for key in ("sku-cpu", "sku-memory"):  # the AKS domain repeats them (176-177)
        assert built.labels[f"{AKS}/{key}"] == built.labels[f"{AZ}/{key}"]
    assert built.labels[f"{AKS}/os-sku"] == "Ubuntu"
    assert built.labels["topology.kubernetes.io/region"] == "southcentralus"


@pytest.mark.parametrize(
    ("name", "arch", "generations", "absent"),
    [
        pytest.param(
            "Standard_D2_v2",
            "amd64",
            ("1",),
            {"sku-gpu-manufacturer", "sku-gpu-name", "sku-storage-ephemeralos-maxsize"},
            id="D2_v2 is Hyper-V generation 1 and has no ephemeral OS disk",
        ),
        pytest.param(
            "Standard_NC24ads_A100_v4",
            "amd64",
            ("2",),
            set(),
            id="the A100 size is generation 2",
        ),
        pytest.param(
            "Standard_D4ps_v5",
            "arm64",
            ("2",),
            {"sku-gpu-manufacturer", "sku-gpu-name", "sku-storage-ephemeralos-maxsize"},
            id="an Arm64 size is arm64",
        ),
    ],
)
def test_multi_valued_and_absent_requirements(
    name: str, arch: str, generations: tuple[str, ...], absent: set[str]
) -> None:
    """instancetype.go:151-202: arch (labels.go:53-57), Hyper-V generations, mode, priority;
    a key with no value is ``DoesNotExist``."""
    built = BUILT[name]
    assert built.labels["kubernetes.io/arch"] == arch
    assert _values(built, f"{AZ}/sku-hyperv-generation") == generations
    assert _values(built, f"{AKS}/mode") == ("system", "user")
    assert _values(built, f"{AKS}/scalesetpriority") == ("regular", "spot")
    assert set(built.absent) == {f"{AZ}/{k}" for k in absent} | {f"{AKS}/fips_enabled"}


@pytest.mark.parametrize(
    ("name", "zones", "kinds", "ultra"),
    [
        pytest.param(
            "Standard_D2s_v3",
            ("0", "southcentralus-1", "southcentralus-2", "southcentralus-3"),
            ("on-demand", "spot"),
            {"0": ("true", "false"), "southcentralus-1": ("false",)},
            id="each zone and the regional zone 0, on-demand and spot",
        ),
        pytest.param(
            "Standard_NC6s_v3",
            ("0",),
            ("on-demand", "spot"),
            {"0": ("true", "false")},
            id="a size in no zone is regional only",
        ),
        pytest.param(
            "Standard_D8s_v5",
            ("0", "southcentralus-2", "southcentralus-3"),
            ("on-demand", "spot"),
            {"0": ("false",), "southcentralus-2": ("true", "false")},
            id="a zone restriction removes its zone; ultra SSD by zone from zoneDetails",
        ),
        pytest.param(
            "Standard_F4s_v2",
            ("0", "southcentralus-1", "southcentralus-2", "southcentralus-3"),
            ("on-demand",),
            {},
            id="a size that is not LowPriorityCapable has no spot offering",
        ),
    ],
)
def test_zones_and_offerings(
    name: str, zones: tuple[str, ...], kinds: tuple[str, ...], ultra: dict[str, tuple[str, ...]]
) -> None:
    """instancetypes.go:216-323 (zones.go:29-55, skewer ``AvailabilityZones``) and the
    ultra-SSD values (577-590)."""
    built = BUILT[name]
    assert tuple(sorted({o.zone for o in built.offerings})) == zones
    assert tuple(sorted({o.capacity_type for o in built.offerings})) == kinds
    for offering in built.offerings:
        scope = "regional" if offering.zone == "0" else "zonal"
        found = {r.key: r.values for r in offering.requirements}
        assert found[f"{AZ}/placement-scope"] == (scope,)
        if offering.zone in ultra:
            assert found[f"{AZ}/sku-storage-ultra-ssd"] == ultra[offering.zone]


@pytest.mark.parametrize(
    ("name", "capacity", "allocatable_"),
    [
        pytest.param(
            "Standard_D2s_v3",
            {"cpu": 2000, "memory": 7945689497, "ephemeral-storage": 128 * 10**9, "pods": 250},
            {"cpu": 1900, "memory": 5226731929, "ephemeral-storage": 128 * 10**9, "pods": 250},
            id="2 vCPU 8 GiB: 100m and 1843Mi kube-reserved, 750Mi eviction",
        ),
        pytest.param(
            "Standard_D2_v2",
            {"cpu": 2000, "memory": 6952478310, "ephemeral-storage": 128 * 10**9, "pods": 250},
            {"cpu": 1900, "memory": 6952478310 - 1638 * MI - 750 * MI},
            id="7 GiB: kube-reserved 1638Mi",
        ),
        pytest.param(
            "Standard_NC24ads_A100_v4",
            {"cpu": 24000, "nvidia.com/gpu": 1, "pods": 250},
            {"cpu": 23660, "nvidia.com/gpu": 1},
            id="24 vCPU: 340m; the GPU is nvidia.com/gpu",
        ),
        pytest.param(
            "Standard_D16plds_v5",
            {"cpu": 16000, "memory": 32 * GI - 2576980378},
            {"cpu": 15740},
            id="Arm64 has no extra memory held back",
        ),
    ],
)
def test_capacity_and_allocatable(
    name: str, capacity: dict[str, int], allocatable_: dict[str, int]
) -> None:
    """instancetype.go:269-344 (capacity: memory less ceil(7.5 %), 128G OS disk, 250 pods),
    346-371 (kube-reserved by vCPU and GiB brackets, eviction 750Mi, no system-reserved)."""
    built = BUILT[name]
    assert {k: built.capacity[k] for k in capacity} == capacity
    found = allocatable(built, None)
    assert {k: found[k] for k in allocatable_} == allocatable_


@pytest.mark.parametrize(
    ("vcpus", "memory", "cpu", "mebibytes"),
    [
        pytest.param(4, 7.0, 140, 1638, id="4 cores 7 GiB: 140m 1638Mi"),
        pytest.param(2, 8.0, 100, 1843, id="2 cores 8 GiB: 100m 1843Mi"),
        pytest.param(3, 64.0, 120, 5611, id="3 cores 64 GiB: 120m 5611Mi"),
    ],
)
def test_kube_reserved_as_the_provider_s_tests_assert(
    vcpus: int, memory: float, cpu: int, mebibytes: int
) -> None:
    """suite_test.go:3396-3440 ``KubeReservedResources``."""
    assert kube_reserved(vcpus, memory) == {"cpu": cpu, "memory": mebibytes * MI}


def test_memory_without_overhead_is_the_whole_gib() -> None:
    """suite_test.go:3170-3175 with ``VMMemoryOverheadPercent`` 0: 7 GiB and 220 GiB."""
    assert memory_capacity(7.0, 0) == 7 * GI
    assert memory_capacity(220.0, 0) == 220 * GI


@pytest.mark.parametrize(
    ("name", "size"),
    [
        ("Standard_B20ms", 32),
        ("Standard_D128ds_v6", 7559),
        ("Standard_D16plds_v5", 429),
        ("Standard_D2as_v6", 0),
        ("Standard_NC24ads_A100_v4", 274),
        ("Standard_D64s_v3", 1717),
        ("Standard_A0", 0),
        ("Standard_D2_v2", 0),
    ],
    ids=lambda v: str(v),
)
def test_ephemeral_os_disk_sizes_as_the_provider_s_tests_assert(name: str, size: int) -> None:
    """suite_test.go:985-1010 ``FindMaxEphemeralSizeGBAndPlacement``."""
    assert ephemeral_os_max_gb(Sku(_entry(name))) == size


@pytest.mark.parametrize(
    ("size", "series", "constrained", "accelerator"),
    [
        ("D2s_v3", "Ds_v3", "", ""),
        ("M8-2ms", "Mms", "2", ""),
        ("NC24ads_A100_v4", "NCads_v4", "", "A100"),
        ("NC288ds_xl_RTXPRO6000BSE_v6", "NCds_v6", "", "RTXPRO6000BSE"),
        ("M416s_8_v2", "Ms_v2", "", ""),
        ("DC8s_v3", "DCs_v3", "", ""),
    ],
    ids=lambda v: str(v),
)
def test_size_names_parse_as_skewer_parses_them(
    size: str, series: str, constrained: str, accelerator: str
) -> None:
    parsed = vm_size(size)
    assert parsed is not None
    assert (parsed.series, parsed.constrained, parsed.accelerator) == (
        series,
        constrained,
        accelerator,
    )


def test_a_name_skewer_cannot_parse_is_no_type() -> None:
    assert vm_size("standard_lowercase") is None


def _types_taken(*requirements: Requirement, pod: dict[str, Any] | None = None) -> set[str]:
    """The types a new node of the pool may take for a 1-cpu pod."""
    pool = NodePool("default", requirements=requirements, node_class=AKS_CLASS)
    decision = Run((pool,), catalog=CATALOG_AKS).decide(pod or spec(), 1)
    return {t for launch in decision.scale_up for t in launch.instance_types}


def _in(key: str, *values: str) -> Requirement:
    return Requirement(key, "In", values)


@pytest.mark.parametrize(
    ("requirements", "pod", "types"),
    [
        pytest.param(
            (_in(f"{AZ}/sku-family", "E", "F"),),
            None,
            {"Standard_E4d_v5", "Standard_F16s_v2", "Standard_F4s_v2"},
            id="families E and F",
        ),
        pytest.param(
            (Requirement(f"{AZ}/sku-cpu", "Gt", ("16",)),),
            None,
            {
                "Standard_B20ms",
                "Standard_D128ds_v6",
                "Standard_D64s_v3",
                "Standard_NC24ads_A100_v4",
            },
            id="more than 16 vCPUs",
        ),
        pytest.param(
            (_in("kubernetes.io/arch", "arm64"),),
            None,
            {"Standard_D16plds_v5", "Standard_D4ps_v5"},
            id="Arm64 only",
        ),
        pytest.param(
            (Requirement(f"{AZ}/sku-gpu-count", "Gt", ("0",)),),
            None,
            {
                "Standard_NC16as_T4_v3",
                "Standard_NC24ads_A100_v4",
                "Standard_NC6",
                "Standard_NC6s_v3",
            },
            id="a GPU",
        ),
        pytest.param(
            (),
            spec(nodeSelector={f"{AZ}/sku-gpu-name": "A100"}),
            {"Standard_NC24ads_A100_v4"},
            id="a pod selecting a GPU name the NodePool does not name",
        ),
        pytest.param(
            (_in(f"{AZ}/sku-version", "5"), _in(f"{AZ}/sku-family", "D")),
            None,
            {"Standard_D16plds_v5", "Standard_D2_v5", "Standard_D4ps_v5", "Standard_D8s_v5"},
            id="version 5 of family D",
        ),
        pytest.param(
            (_in("karpenter.sh/capacity-type", "spot"), _in(f"{AZ}/sku-family", "F")),
            None,
            {"Standard_F16s_v2"},
            id="spot F: the size without spot capacity is left out",
        ),
        pytest.param(
            (_in(f"{AZ}/sku-storage-ephemeralos-maxsize", "53"),),
            None,
            {"Standard_D2s_v3"},
            id="an ephemeral OS disk size",
        ),
    ],
)
def test_node_pools_restricted_by_sku_labels(
    requirements: tuple[Requirement, ...], pod: dict[str, Any] | None, types: set[str]
) -> None:
    assert _types_taken(*requirements, pod=pod) == types


def test_a_family_no_listed_sku_has_leaves_the_pool_no_type() -> None:
    """provisioner.go ``NewScheduler`` drops the pool; scheduler.go ``add``: no template."""
    pool = NodePool("default", requirements=(_in(f"{AZ}/sku-family", "L"),), node_class=AKS_CLASS)
    decision = Run((pool,), catalog=CATALOG_AKS).decide(spec(), 2)
    assert decision.placed == 0 and decision.scale_up == ()
    assert decision.errors == (("", FILTERED, FILTERED),)


def test_an_aks_node_class_s_max_pods_replaces_the_network_default() -> None:
    """utils.go:162-176 ``GetMaxPods``: ``spec.maxPods`` before the network plugin's 250;
    nothing else of the AKSNodeClass changes the amounts (instancetype.go:346-371)."""
    built = BUILT["Standard_D2s_v3"]
    node_class = NodeClass("AKSNodeClass", "default", max_pods=30)
    assert allocatable(built, node_class) == {**allocatable(built, None), "pods": 30}


AZURE_LINUX = NodeClass("AKSNodeClass", "default", image_family="AzureLinux", os_disk_gb=256)


def test_an_azure_linux_node_class_labels_its_types_and_keeps_gpu_sizes_with_drivers() -> None:
    """instancetypes.go:335-349 (a GPU size needs drivers on the image: NC6 has Ubuntu's
    only), labels.go ``GetOSSKUFromImageFamily``, instancetype.go:338-340 (the OS disk)."""
    memo = TypeMemo()
    assert memo.pool_type(BUILT["Standard_NC6"], AZURE_LINUX) is None
    assert memo.pool_type(BUILT["Standard_NC6"], None) is not None
    a100 = memo.pool_type(BUILT["Standard_NC24ads_A100_v4"], AZURE_LINUX)
    assert a100 is not None
    assert a100.reqs[f"{AKS}/os-sku"].values == {"AzureLinux"}
    assert (
        a100.capacity["ephemeral-storage"] == a100.allocatable["ephemeral-storage"] == 256 * 10**9
    )


@pytest.mark.parametrize(
    ("node_class", "placed"),
    [
        pytest.param(AZURE_LINUX, 1, id="an Azure Linux NodeClass launches it"),
        pytest.param(NodeClass("AKSNodeClass", "default"), 0, id="the default Ubuntu does not"),
    ],
)
def test_a_pod_selecting_the_os_sku(node_class: NodeClass, placed: int) -> None:
    pool = NodePool("default", node_class=AKS_CLASS)
    state = KarpenterState((pool,), node_classes=(node_class,))
    pod = spec(nodeSelector={f"{AKS}/os-sku": "AzureLinux"})
    assert Run((pool,), catalog=CATALOG_AKS, state=state).decide(pod, 1).placed == placed


@pytest.mark.parametrize(
    ("name", "node_class", "listed"),
    [
        pytest.param("Standard_NV4ads_V710_v5", None, False, id="an AMD GPU: no drivers"),
        pytest.param(
            "Standard_NV4ads_V710_v5",
            NodeClass("AKSNodeClass", "default", gpu_driver=False),
            True,
            id="GPU mode None offers every GPU size (386-399)",
        ),
        pytest.param(
            "Standard_D2_v2",
            NodeClass("AKSNodeClass", "default", encryption_at_host=True),
            False,
            id="encryption at host drops a size without it (351-367)",
        ),
        pytest.param(
            "Standard_D2s_v3",
            NodeClass("AKSNodeClass", "default", encryption_at_host=True),
            True,
            id="and keeps one with it",
        ),
    ],
)
def test_the_node_class_filters(name: str, node_class: NodeClass | None, listed: bool) -> None:
    """instancetypes.go:327-412 ``isInstanceTypeSupportedByFilters``, per AKSNodeClass."""
    assert (TypeMemo().pool_type(BUILT[name], node_class) is not None) == listed


def test_with_kwok_s_json_an_aks_pool_s_sku_requirement_fails_closed_saying_how_to_record() -> None:
    pool = NodePool("default", requirements=(_in(f"{AZ}/sku-family", "D"),), node_class=AKS_CLASS)
    (error,) = Run((pool,), catalog=CATALOG).decide(spec(), 1).errors
    assert error[1] == UNJUDGED
    assert error[2].endswith(
        "record the region's SKUs (az vm list-skus --location <region> --output json) and "
        "give them with --instance-types"
    )


def test_with_the_sku_listing_the_same_requirement_is_judged() -> None:
    pool = NodePool("default", requirements=(_in(f"{AZ}/sku-family", "D"),), node_class=AKS_CLASS)
    decision = Run((pool,), catalog=CATALOG_AKS).decide(spec(), 1)
    assert decision.placed == 1 and decision.errors == ()


@pytest.mark.parametrize(
    ("documents", "message"),
    [
        pytest.param(
            [[{**_entry("Standard_D2s_v3"), "locations": ["eastus"]}, _entry("Standard_D2_v2")]],
            "a.json: the SKUs name 2 locations (eastus, southcentralus): record one region with "
            "az vm list-skus --location <region> --output json",
            id="two regions",
        ),
        pytest.param(
            [[{**_entry("Standard_A0")}]],
            "a.json: no SKU AKS node autoprovisioning would launch",
            id="nothing the provider offers",
        ),
        pytest.param(
            [[{"name": "Premium_LRS", "resourceType": "disks"}]],
            "a.json: no SKU of resource type virtualMachines",
            id="only disks",
        ),
        pytest.param(
            [[_entry("Standard_D2s_v3")], [_entry("Standard_D2_v2")]],
            "a.json, b.json: an az vm list-skus listing is given alone (one region)",
            id="two listings",
        ),
        pytest.param(
            [[_entry("Standard_D2s_v3"), _entry("Standard_D2s_v3")]],
            "a.json: [1]: 'Standard_D2s_v3' is listed twice",
            id="a SKU listed twice",
        ),
    ],
)
def test_a_listing_it_cannot_read_is_refused_in_one_line(
    tmp_path: Path, documents: list[object], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    names = []
    for name, document in zip("ab", documents, strict=False):
        Path(f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
        names.append(f"{name}.json")
    with pytest.raises(UsageError) as raised:
        with_catalog(Config(), names)
    assert str(raised.value) == message


_SIZES = st.builds(
    lambda family, cpus, features, version: f"{family}{cpus}{features}{version}",
    st.sampled_from(["D", "E", "F", "B", "L"]),
    st.integers(2, 416),
    st.sampled_from(["", "s", "ds", "pls", "as", "ads", "lds"]),
    st.sampled_from(["", "_v2", "_v3", "_v5", "_v6"]),
)


@given(
    size=_SIZES,
    memory=st.integers(4, 12_000),
    half=st.booleans(),
    arch=st.sampled_from(["x64", "Arm64"]),
    zones=st.sets(st.sampled_from(["1", "2", "3"])),
    spot=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_every_built_sku_carries_each_sku_label_once_and_holds_back_less_than_it_has(
    size: str, memory: int, half: bool, arch: str, zones: set[str], spot: bool
) -> None:
    """instancetype.go:151-202: each ``karpenter.azure.com/sku-*`` key is on the type once,
    with values or ``DoesNotExist``; 269-371: what is held back is less than the capacity."""
    cpus = int("".join(c for c in size.split("_")[0] if c.isdigit()))
    entry = {
        **_entry("Standard_D2s_v3"),
        "name": f"Standard_{size}",
        "size": size,
        "locationInfo": [{"location": "southcentralus", "zones": sorted(zones)}],
    }
    entry["capabilities"] = [
        {"name": "vCPUs", "value": str(cpus)},
        {"name": "MemoryGB", "value": f"{memory}.5" if half else str(memory)},
        {"name": "CpuArchitectureType", "value": arch},
        {"name": "LowPriorityCapable", "value": "True" if spot else "False"},
    ]
    built = azure_catalog("s.json", [entry]).types[0]
    keys = [*built.labels, *built.absent, *(r.key for r in built.requirements)]
    for key in SKU_LABELS:
        assert keys.count(key) == 1, key
    assert len(built.offerings) == (len(zones) + 1) * (2 if spot else 1)
    found = allocatable(built, None)
    for resource in ("cpu", "memory"):
        assert 0 < found[resource] < built.capacity[resource]


def test_a_listing_of_more_virtual_machines_than_a_catalog_holds_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bounded by its virtual-machine SKUs (27 here): a region's disks do not count."""
    monkeypatch.setattr("gate.inputs.catalog.MAX_CATALOG_TYPES", 27)
    assert len(_catalog(LISTING).types) == 21
    monkeypatch.setattr("gate.inputs.catalog.MAX_CATALOG_TYPES", 26)
    with pytest.raises(UsageError) as raised:
        _catalog(LISTING)
    assert str(raised.value) == (
        f"{LISTING}: 27 virtual-machine SKUs, more than the 26 instance types a catalog may hold"
    )


@pytest.mark.parametrize(
    ("group", "placed"),
    [
        pytest.param("MC_prod_aks_southcentralus", 1, id="the cluster's node resource group"),
        pytest.param("MC_other", 0, id="another cluster's"),
    ],
)
def test_the_cluster_label_is_the_node_resource_group_the_nodes_carry(
    group: str, placed: int
) -> None:
    """instancetype.go:181 ``AKSLabelCluster``: the operator's node resource group, which the
    SKU listing lacks and every AKS node is labelled with."""
    node = karpenter_node("aks-system-0", "system", "southcentralus-1")
    node["metadata"]["labels"][f"{AKS}/cluster"] = "MC_prod_aks_southcentralus"
    pool = NodePool("default", node_class=AKS_CLASS)
    run = Run((pool,), nodes=[node], catalog=CATALOG_AKS)
    assert run.decide(spec(nodeSelector={f"{AKS}/cluster": group}), 1).placed == placed
