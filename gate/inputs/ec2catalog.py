"""EC2's own listing -> the instance types Karpenter's AWS provider builds from it.

The user records, once and offline, ``aws ec2 describe-instance-types --output json`` (and,
for zones, ``aws ec2 describe-instance-type-offerings --location-type availability-zone
--output json``); fitgate never calls a cloud API. Each type is built as
karpenter-provider-aws v1.8.8 builds it for the default EC2NodeClass (AL2023, no
blockDeviceMappings): ``pkg/providers/instancetype/types.go`` ``NewInstanceType`` (123-155),
its requirements (``computeRequirements``, 158-299), capacity (``computeCapacity``,
320-338) and overhead (kube-reserved 499-529, eviction threshold 531-558). A NodeClass's
kubelet settings are applied later, per pool (:func:`gate.scheduler.autoscaling.karpenter.
pools.allocatable`).

What the listing does not hold is assumed and said (:data:`ASSUMED`): every offering has a
price and spot capacity, no zone is short of capacity, and without an offerings listing a
type is offered in every zone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gate.errors import UsageError
from gate.k8s.labels import ARCH, INSTANCE_TYPE, REGION, WINDOWS_BUILD
from gate.model.karpenter import Catalog, InstanceType, Offering

AWS_GROUP = "karpenter.k8s.aws"
VM_MEMORY_OVERHEAD_PERCENT = 0.075
"""pkg/operator/options/options.go:54, the operator's default ``vmMemoryOverheadPercent``."""
GRAVITON_CMA_MIB = 64
"""types.go:346-349: "Gravitons have an extra 64 MiB of cma reserved memory"."""
EPHEMERAL_STORAGE = 20 * 2**30
"""AL2023's root volume (amifamily/al2023.go ``DefaultBlockDeviceMappings``: 20Gi), the
ephemeral storage when the EC2NodeClass sizes none (a pool's NodeClass may replace it:
:func:`gate.scheduler.autoscaling.karpenter.pools.provider_allocatable`)."""
ARCHITECTURES = {"x86_64": "amd64", "arm64": "arm64"}
"""pkg/apis/v1/labels.go ``AWSToKubeArchitectures``; instancetype.go:239-252 lists only
these (``mac1.metal``'s ``x86_64_mac`` is no Karpenter type)."""
CAPACITY_TYPES = ("on-demand", "spot")
"""types.go:166-171: the usage classes a type may be launched with."""
GPU_RESOURCES = {"NVIDIA": "nvidia.com/gpu", "AMD": "amd.com/gpu", "Habana": "habana.ai/gaudi"}
"""types.go:404-458, by ``GpuInfo.Gpus[].Manufacturer``."""
_SCHEME = re.compile(r"(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.")
"""types.go:49 ``instanceTypeScheme``."""
REQUIRED = (
    ("VCpuInfo", "DefaultVCpus"),
    ("MemoryInfo", "SizeInMiB"),
    ("NetworkInfo", "Ipv4AddressesPerInterface"),
)
"""What the provider reads of every type without checking (types.go:340-354, 560-575)."""
_REGION = re.compile(r"^([a-z]{2}(?:-[a-z]+)+-[0-9]+)")

ASSUMED = (
    "the EC2 listing holds no prices: every offering is taken as priced (types order by name)",
    "spot capacity and insufficient-capacity errors are not recorded: every offering is "
    "taken as available",
    "the EC2NodeClass is taken as AL2023 (a root volume of 20Gi unless its "
    "blockDeviceMappings size one) with subnets in every listed zone",
)
NO_ZONES = (
    "no describe-instance-type-offerings listing was given: every type is taken as offered "
    "in every zone"
)

_LABELS = (
    "instance-category",
    "instance-family",
    "instance-generation",
    "instance-size",
    "instance-cpu",
    "instance-cpu-manufacturer",
    "instance-cpu-sustained-clock-speed-mhz",
    "instance-memory",
    "instance-ebs-bandwidth",
    "instance-network-bandwidth",
    "instance-local-nvme",
    "instance-capability-flex",
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
    "instance-accelerator-name",
    "instance-accelerator-manufacturer",
    "instance-accelerator-count",
    "instance-hypervisor",
    "instance-encryption-in-transit-supported",
    "capacity-reservation-id",
    "capacity-reservation-type",
)
PROVIDER_LABELS = tuple(f"{AWS_GROUP}/{name}" for name in _LABELS)
"""Every ``karpenter.k8s.aws/*`` key a type carries, with a value or as ``DoesNotExist``
(types.go:181-211); all are well-known (pkg/apis/v1/labels.go:29-57)."""


def _label(name: str) -> str:
    return f"{AWS_GROUP}/{name}"


def _kebab(text: object) -> str:
    """types.go:577-579 ``lowerKabobCase``."""
    return str(text or "").lower().replace(" ", "-")


def _get(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _int(data: Any, *path: str) -> int | None:
    value = _get(data, *path)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def architecture(info: Mapping[str, Any]) -> str | None:
    """types.go:311-318 ``getArchitecture``: the first supported architecture Karpenter
    knows; None for a type it does not list."""
    for name in _get(info, "ProcessorInfo", "SupportedArchitectures") or ():
        if name in ARCHITECTURES:
            return ARCHITECTURES[name]
    return None


def eni_pods(info: Mapping[str, Any], reserved_enis: int = 0) -> int:
    """types.go:560-575 ``ENILimitedPods``: the default network card's interfaces (less the
    reserved ones) times their IPv4 addresses less one, plus two."""
    network = _get(info, "NetworkInfo") or {}
    cards = network.get("NetworkCards") or []
    index = network.get("DefaultNetworkCardIndex") or 0
    interfaces = _int(cards[index], "MaximumNetworkInterfaces") if index < len(cards) else None
    if interfaces is None:
        interfaces = _int(network, "MaximumNetworkInterfaces") or 0
    usable = max(interfaces - reserved_enis, 0)
    if usable == 0:
        return 0
    return usable * ((_int(network, "Ipv4AddressesPerInterface") or 0) - 1) + 2


def memory_capacity(info: Mapping[str, Any], overhead_percent: float) -> int:
    """types.go:344-354 ``memory``, in bytes: the listed MiB, less 64 MiB on arm64, less
    the VM overhead rounded up to a MiB (in float64, as Go computes it)."""
    mib = _int(info, "MemoryInfo", "SizeInMiB") or 0
    arches = _get(info, "ProcessorInfo", "SupportedArchitectures") or []
    if arches and arches[0] == "arm64":
        mib -= GRAVITON_CMA_MIB
    overhead = math.ceil(float(mib * 2**20) * overhead_percent / 1024 / 1024)
    return (mib - overhead) * 2**20


def kube_reserved_cpu(vcpus: int) -> int:
    """types.go:508-525, in millicores: 6 % of the first core, 1 % of the second, 0.5 % of
    the next two, 0.25 % above, each bracket truncated.

    >>> [kube_reserved_cpu(n) for n in (1, 2, 4, 8, 96)]
    [60, 70, 80, 90, 310]
    """
    millis, total = vcpus * 1000, 0
    for start, end, share in (
        (0, 1000, 0.06),
        (1000, 2000, 0.01),
        (2000, 4000, 0.005),
        (4000, 1 << 31, 0.0025),
    ):
        if millis >= start:
            span = float(min(millis, end) - start)
            total += int(span * share)
    return total


def instance_type(
    info: Mapping[str, Any], zones: Sequence[str], region: str, overhead_percent: float
) -> InstanceType | None:
    """One described type as the provider builds it; None when Karpenter lists no such
    type (not hvm, or no architecture it knows)."""
    name = str(info.get("InstanceType") or "")
    arch = architecture(info)
    if not name or arch is None or "hvm" not in (info.get("SupportedVirtualizationTypes") or ()):
        return None
    for path in REQUIRED:
        if _int(info, *path) is None:
            raise ValueError(f"{'.'.join(path)} is not a whole number")
    vcpus = _int(info, "VCpuInfo", "DefaultVCpus") or 0
    labels: dict[str, str] = {INSTANCE_TYPE: name, ARCH: arch}
    if region:
        labels[REGION] = region
    labels[_label("instance-cpu")] = str(vcpus)
    labels[_label("instance-memory")] = str(_int(info, "MemoryInfo", "SizeInMiB") or 0)
    found = _SCHEME.match(name)
    if found:
        labels[_label("instance-category")] = found.group(1)
        labels[_label("instance-generation")] = found.group(3)
    parts = name.split(".")
    if len(parts) == 2:
        labels[_label("instance-family")], labels[_label("instance-size")] = parts
    storage = _get(info, "InstanceStorageInfo")
    if (
        isinstance(storage, Mapping)
        and storage.get("NvmeSupport") != "unsupported"
        and _int(storage, "TotalSizeInGB") is not None
    ):
        labels[_label("instance-local-nvme")] = str(storage["TotalSizeInGB"])
    labels[_label("instance-capability-flex")] = "true" if "-flex" in parts[0] else "false"
    cards = _get(info, "NetworkInfo", "NetworkCards") or []
    bandwidth = [_get(c, "BaselineBandwidthInGbps") for c in cards]
    if bandwidth and all(isinstance(b, (int, float)) for b in bandwidth):
        # the provider's table (zz_generated.bandwidth.go) is EC2's baseline bandwidth
        labels[_label("instance-network-bandwidth")] = str(round(sum(bandwidth) * 1000))
    gpus = _get(info, "GpuInfo", "Gpus") or []
    if len(gpus) == 1:
        gpu = gpus[0]
        labels[_label("instance-gpu-name")] = _kebab(gpu.get("Name"))
        labels[_label("instance-gpu-manufacturer")] = _kebab(gpu.get("Manufacturer"))
        labels[_label("instance-gpu-count")] = str(_int(gpu, "Count") or 0)
        labels[_label("instance-gpu-memory")] = str(_int(gpu, "MemoryInfo", "SizeInMiB") or 0)
    neuron = _get(info, "NeuronInfo", "NeuronDevices")
    accelerators = _get(info, "InferenceAcceleratorInfo", "Accelerators") or []
    if len(accelerators) == 1 and neuron is None:
        accelerator = accelerators[0]
        labels[_label("instance-accelerator-name")] = _kebab(accelerator.get("Name"))
        labels[_label("instance-accelerator-manufacturer")] = _kebab(
            accelerator.get("Manufacturer")
        )
        labels[_label("instance-accelerator-count")] = str(_int(accelerator, "Count") or 0)
    if isinstance(neuron, list) and len(neuron) == 1:
        labels[_label("instance-accelerator-name")] = _kebab(neuron[0].get("Name"))
        labels[_label("instance-accelerator-manufacturer")] = "aws"
        labels[_label("instance-accelerator-count")] = str(_int(neuron[0], "Count") or 0)
    processor = _get(info, "ProcessorInfo") or {}
    labels[_label("instance-cpu-manufacturer")] = _kebab(processor.get("Manufacturer"))
    clock = processor.get("SustainedClockSpeedInGhz")
    ghz = clock if isinstance(clock, (int, float)) else 0.0
    labels[_label("instance-cpu-sustained-clock-speed-mhz")] = str(_go_round(ghz * 1000))
    ebs = _get(info, "EbsInfo") or {}
    maximum = _int(ebs, "EbsOptimizedInfo", "MaximumBandwidthInMbps")
    if ebs.get("EbsOptimizedSupport") == "default" and maximum is not None:
        labels[_label("instance-ebs-bandwidth")] = str(maximum)
    labels[_label("instance-hypervisor")] = str(info.get("Hypervisor") or "")
    encrypted = _get(info, "NetworkInfo", "EncryptionInTransitSupported") is True
    labels[_label("instance-encryption-in-transit-supported")] = "true" if encrypted else "false"
    absent = tuple(sorted(k for k in (*PROVIDER_LABELS, WINDOWS_BUILD) if k not in labels))

    memory = memory_capacity(info, overhead_percent)
    eni = eni_pods(info)
    capacity: dict[str, int] = {
        "cpu": vcpus * 1000,
        "memory": memory,
        "ephemeral-storage": EPHEMERAL_STORAGE,
        "pods": eni,
    }
    for gpu in gpus:
        resource = GPU_RESOURCES.get(str(gpu.get("Manufacturer")))
        if resource:
            capacity[resource] = capacity.get(resource, 0) + (_int(gpu, "Count") or 0)
    if isinstance(neuron, list) and neuron:
        capacity["aws.amazon.com/neuron"] = sum(_int(d, "Count") or 0 for d in neuron)
        cores = _int(neuron[0], "CoreInfo", "Count") or 0
        capacity["aws.amazon.com/neuroncore"] = (_int(neuron[0], "Count") or 0) * cores
    efa = _int(info, "NetworkInfo", "EfaInfo", "MaximumEfaInterfaces")
    if efa:
        capacity["vpc.amazonaws.com/efa"] = efa
    kube_reserved = {
        "cpu": kube_reserved_cpu(vcpus),
        "memory": (11 * eni + 255) * 2**20,
        "ephemeral-storage": 2**30,
    }
    eviction = {"memory": 100 * 2**20, "ephemeral-storage": math.ceil(EPHEMERAL_STORAGE / 10)}
    overhead = {r: kube_reserved.get(r, 0) + eviction.get(r, 0) for r in kube_reserved}
    kinds = [k for k in CAPACITY_TYPES if k in (info.get("SupportedUsageClasses") or ())]
    offerings = tuple(Offering(zone, kind) for zone in (zones or [""]) for kind in kinds)
    return InstanceType(
        name=name,
        labels=labels,
        operating_systems=("linux",),
        capacity={r: a for r, a in capacity.items() if a or r in ("pods",)},
        overhead=overhead,
        offerings=offerings,
        absent=absent,
        kube_reserved=kube_reserved,
        eviction_threshold=eviction,
    )


def _go_round(value: float) -> int:
    """Go's ``math.Round``: half away from zero."""
    return math.floor(abs(value) + 0.5) * (1 if value >= 0 else -1)


def region_of(zones: Sequence[str]) -> str:
    """The region the offerings' zones name (``us-east-1a`` -> ``us-east-1``); "" when
    they name none or several."""
    regions = {m.group(1) for z in zones if (m := _REGION.match(z))}
    return regions.pop() if len(regions) == 1 else ""


def is_listing(document: object) -> bool:
    return isinstance(document, Mapping) and isinstance(document.get("InstanceTypes"), list)


def is_offerings(document: object) -> bool:
    return isinstance(document, Mapping) and isinstance(document.get("InstanceTypeOfferings"), list)


def offering_zones(document: Mapping[str, Any], source: str) -> dict[str, list[str]]:
    """``describe-instance-type-offerings --location-type availability-zone``: each type's
    zones (instancetype.go:273-324)."""
    zones: dict[str, list[str]] = {}
    for index, entry in enumerate(document["InstanceTypeOfferings"]):
        where = f"{source}: InstanceTypeOfferings[{index}]"
        if not isinstance(entry, Mapping):
            raise UsageError(f"{where}: not an object")
        kind = entry.get("LocationType")
        if kind is not None and kind != "availability-zone":
            raise UsageError(
                f"{where}.LocationType: {kind!r}: record the offerings with "
                "--location-type availability-zone"
            )
        name, zone = entry.get("InstanceType"), entry.get("Location")
        if not isinstance(name, str) or not isinstance(zone, str) or not name or not zone:
            raise UsageError(f"{where}: an offering names its InstanceType and Location")
        zones.setdefault(name, []).append(zone)
    return zones


def ec2_catalog(
    listings: Sequence[tuple[str, Mapping[str, Any]]],
    offerings: Sequence[tuple[str, Mapping[str, Any]]],
    overhead_percent: float = VM_MEMORY_OVERHEAD_PERCENT,
) -> Catalog:
    """The catalog of the described types (every listing, each file named as given), in
    the zones the offerings give them (a type no offering names is in none)."""
    zones: dict[str, list[str]] = {}
    for source, document in offerings:
        for name, found in offering_zones(document, source).items():
            zones.setdefault(name, []).extend(found)
    every_zone = sorted({z for found in zones.values() for z in found})
    region = region_of(every_zone)
    types: list[InstanceType] = []
    seen: dict[str, str] = {}
    for source, document in listings:
        for index, info in enumerate(document["InstanceTypes"]):
            if not isinstance(info, Mapping) or not isinstance(info.get("InstanceType"), str):
                raise UsageError(f"{source}: InstanceTypes[{index}]: no InstanceType")
            name = info["InstanceType"]
            if name in seen:
                raise UsageError(
                    f"{source}: InstanceTypes[{index}]: {name!r} is listed twice "
                    f"(also in {seen[name]})"
                )
            seen[name] = source
            if offerings and not zones.get(name):
                continue  # offered in no zone: no offering can ever be available
            try:
                built = instance_type(
                    info, sorted(set(zones.get(name, []))), region, overhead_percent
                )
            except (TypeError, ValueError, AttributeError, IndexError, KeyError) as exc:
                raise UsageError(
                    f"{source}: InstanceTypes[{index}] ({name}): not as EC2 describes a type: {exc}"
                ) from None
            if built is not None:
                types.append(built)
    if not types:
        raise UsageError(f"{listings[0][0]}: no instance type Karpenter would launch")
    sources = [s for s, _ in (*listings, *offerings)]
    assumed = ASSUMED if offerings else (*ASSUMED, NO_ZONES)
    return Catalog(
        tuple(sorted(types, key=lambda t: t.name)),
        ", ".join(sources),
        provider="aws",
        assumed=assumed,
    )
