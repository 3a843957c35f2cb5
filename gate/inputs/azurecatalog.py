"""Azure's SKU listing -> the instance types AKS node autoprovisioning (Karpenter's Azure
provider) builds from it.

The user records, once and offline, ``az vm list-skus --location <region> --output json``;
fitgate never calls a cloud API. Each SKU is built as karpenter-provider-azure v1.14.2
builds it for the default AKSNodeClass (Ubuntu, a 128 GB OS disk, GPU drivers installed):
which SKUs it offers (``pkg/providers/instancetype/instancetypes.go`` ``UpdateInstanceTypes``
416-461, ``isSupported`` 478-523, ``List`` 132-196 and its per-NodeClass filters 327-412),
their zones and offerings (218-323), requirements (``instancetype.go``
``computeRequirements`` 142-260), capacity (269-344) and overhead (kube-reserved by cores
and memory 346-371, eviction threshold 367-371). The size name is read as the SKU library
it uses reads it (github.com/Azure/skewer ``vmsize.go`` ``skuSizeScheme``). A NodeClass's
``maxPods`` is applied later, per pool (:func:`gate.scheduler.autoscaling.karpenter.pools.
allocatable`).

What the listing does not hold is assumed and said (:data:`ASSUMED`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.errors import UsageError
from gate.inputs.azuregpus import GPU_SIZES
from gate.k8s.labels import ARCH, INSTANCE_TYPE, REGION
from gate.model.karpenter import Catalog, InstanceType, Offering, Requirement

GROUP = "karpenter.azure.com"
AKS = "kubernetes.azure.com"
VM_MEMORY_OVERHEAD_PERCENT = 0.075
"""pkg/operator/options/options.go:110, the operator's default ``vmMemoryOverheadPercent``."""
OS_DISK_BYTES = 128 * 10**9
"""instancetype.go:338-340 ``ephemeralStorage``: the AKSNodeClass's ``osDiskSizeGB``
(aksnodeclass.go:72, default 128) in decimal GB."""
DEFAULT_PODS = 250
"""pkg/utils/utils.go:162-176 ``GetMaxPods`` with the operator's defaults, network plugin
``azure`` in mode ``overlay`` (options.go:114-116): consts.go ``DefaultOverlayMaxPods``."""
EVICTION_MEMORY = 750 * 2**20
"""instancetype.go:40-43, 367-371: ``memory.available`` 750Mi."""
ARCHITECTURES = {"x64": "amd64", "Arm64": "arm64"}
"""pkg/apis/v1beta1/labels.go:53-57 ``AzureToKubeArchitectures``; another value is kept as
written (instancetype.go:262-267)."""
RESTRICTED_SIZES = frozenset(
    {
        "Standard_A0",
        "Standard_A1",
        "Standard_A1_v2",
        "Standard_B1s",
        "Standard_B1ms",
        "Standard_F1",
        "Standard_F1s",
        "Basic_A0",
        "Basic_A1",
        "Basic_A2",
        "Basic_A3",
        "Basic_A4",
        "Standard_E64i_v3",
        "Standard_E64is_v3",
    }
)
"""skus.go:91-114: the sizes AKS does not allow and those Karpenter knows to misbehave."""
REGIONAL_ZONE = "0"
"""pkg/utils/zones/zones.go:29-33: the zone label of a VM in no availability zone."""
OS_SKU = "Ubuntu"
"""labels.go ``GetOSSKUFromImageFamily`` of the default image family ``Ubuntu``."""

_SIZE = re.compile(
    r"^([A-Z])([A-Z]?)([A-Z]?)([0-9]+)-?((?:[0-9]+)?)((?:[abcdeiflmnotspPr]+|C+|NP)?)_?"
    r"(?:NDR_)?(?:((?:xl_)?[A-Z]+[0-9]+[A-Z]*)_?)?(_cc_)?(_[0-9]+_)?(_MI300X_)?(_H100_)?"
    r"((?:[vV][1-9])?)?(_Promo)?\Z"
)
"""skewer ``vmsize.go`` ``skuSizeScheme``."""
_UNPARSABLE = {"M416s_8_v2": ("M", "", "", "s", "", "v2", "Ms_v2")}
"""skewer ``vmsize.go`` ``unParsableVMSizes``: family, subfamily, constrained cpus,
features, accelerator, version, series."""
_ACCELERATORS = {
    "NC6s_v3": "V100",
    "NC12s_v3": "V100",
    "NC24s_v3": "V100",
    "NC24rs_v3": "V100",
    "ND40rs_v2": "V100",
    "ND96asr_v4": "A100",
    "NV12s_v3": "M60",
    "NV24s_v3": "M60",
    "NV48s_v3": "M60",
    "NV4as_v4": "MI25",
    "NV8as_v4": "MI25",
    "NV16as_v4": "MI25",
    "NV32as_v4": "MI25",
}
"""skewer ``vmsize.go`` ``acceleratorTypeBySize``: sizes whose name carries no GPU model."""

ASSUMED = (
    "the SKU listing holds no prices: every offering is taken as priced (types order by name)",
    "capacity, quota and spot shortages are not recorded: every on-demand offering, and every "
    "spot offering of a LowPriorityCapable SKU, is taken as available",
    "an AKSNodeClass the snapshot does not hold is Ubuntu with a 128 GB OS disk and GPU "
    "drivers, and the cluster runs Azure CNI overlay (250 pods unless the AKSNodeClass sets "
    "maxPods)",
)


def _label(name: str) -> str:
    return f"{GROUP}/{name}"


SKU_LABELS = tuple(
    _label(name)
    for name in (
        "sku-name",
        "sku-family",
        "sku-series",
        "sku-version",
        "sku-cpu",
        "sku-memory",
        "sku-gpu-count",
        "sku-gpu-manufacturer",
        "sku-gpu-name",
        "sku-networking-accelerated",
        "sku-storage-premium-capable",
        "sku-storage-ephemeralos-maxsize",
        "sku-storage-ultra-ssd",
        "sku-hyperv-generation",
        "placement-scope",
    )
)
"""Every ``karpenter.azure.com/*`` key a type carries, with values or as ``DoesNotExist``
(instancetype.go:151-202)."""


@dataclass(frozen=True, slots=True)
class VMSize:
    """skewer ``VMSizeType``: the parts of a size name."""

    family: str
    constrained: str
    accelerator: str
    version: str
    series: str


def vm_size(size: str) -> VMSize | None:
    """skewer ``GetVMSize``: None when the name does not parse.

    >>> vm_size("D16plds_v5")
    VMSize(family='D', constrained='', accelerator='', version='v5', series='Dplds_v5')
    >>> vm_size("NC24ads_A100_v4").accelerator, vm_size("M8-2ms").constrained
    ('A100', '2')
    """
    found = _SIZE.match(size)
    if found is None:
        fixed = _UNPARSABLE.get(size)
        if fixed is None:
            return None
        family, subfamily, constrained, features, accelerator, version, series = fixed
        return VMSize(family, constrained, accelerator, version, series)
    parts = found.groups(default="")
    family, subfamily, features, version = parts[0], parts[1] + parts[2], parts[5], parts[11]
    if parts[6]:
        accelerator = parts[6].removeprefix("xl_")
    else:
        accelerator = _ACCELERATORS.get(size.removesuffix("_Promo"), "")
    series = family + subfamily + features + (f"_{version}" if version else "")
    return VMSize(family, parts[4], accelerator, version, series)


def sku_version(size: VMSize) -> str:
    """pkg/utils/utils.go:39-55 ``ExtractVersionFromVMSize``: the version without its
    ``v``, ``1`` when the name has none."""
    if not size.version:
        return "1"
    return size.version[1:] if size.version[0] in "vV" else ""


def tax(amount: float, brackets: Sequence[tuple[float, float]]) -> float:
    """instancetype.go:101-118 ``TaxBrackets.Calculate``, in float64 as Go computes it."""
    total, lower = 0.0, 0.0
    for upper, rate in brackets:
        if lower > amount:
            continue
        total += (min(upper, amount) - lower) * rate
        lower = upper
    return total


MEMORY_BRACKETS = ((4.0, 0.25), (8.0, 0.20), (16.0, 0.10), (128.0, 0.06), (math.inf, 0.02))
"""instancetype.go:46-68 ``reservedMemoryTaxGi``."""
CPU_BRACKETS = ((1.0, 0.06), (2.0, 0.04), (4.0, 0.02), (math.inf, 0.01))
"""instancetype.go:70-88 ``reservedCPUTaxVCPU``."""


def kube_reserved(vcpus: int, memory_gib: float) -> dict[str, int]:
    """instancetype.go:355-365 ``KubeReservedResources``: millicores and bytes.

    >>> kube_reserved(2, 8.0)
    {'cpu': 100, 'memory': 1932525568}
    """
    memory_mi = int(1024 * tax(memory_gib, MEMORY_BRACKETS))
    return {"cpu": int(1000 * tax(float(vcpus), CPU_BRACKETS)), "memory": memory_mi * 2**20}


def memory_capacity(memory_gib: float, overhead_percent: float) -> int:
    """instancetype.go:330-336 ``CalculateMemoryWithoutOverhead``: the whole GiB, less the
    VM overhead rounded up to a byte."""
    memory = int(memory_gib) * 2**30
    return memory - math.ceil(float(memory) * overhead_percent)


class Sku:
    """One SKU of the listing, read as skewer reads it (capability names matched
    case-insensitively, ``True`` by case-insensitive text)."""

    def __init__(self, entry: Mapping[str, Any]) -> None:
        self.entry = entry
        self.capabilities: dict[str, object] = {}
        for capability in entry.get("capabilities") or ():
            if isinstance(capability, Mapping) and isinstance(capability.get("name"), str):
                self.capabilities.setdefault(capability["name"].lower(), capability.get("value"))

    def text(self, name: str) -> str | None:
        value = self.capabilities.get(name.lower())
        return value if isinstance(value, str) else None

    def has(self, name: str) -> bool:
        """skewer ``HasCapability``."""
        return (self.text(name) or "").lower() == "true"

    def integer(self, name: str) -> int | None:
        """skewer ``GetCapabilityIntegerQuantity``: None when absent or not base-10."""
        text = self.text(name)
        if text is None or not re.fullmatch(r"[+-]?[0-9]+", text):
            return None
        return int(text)

    def number(self, name: str) -> float | None:
        text = self.text(name)
        try:
            return float(text) if text is not None else None
        except ValueError:
            return None

    def listed(self, name: str, value: str) -> bool:
        """skewer ``HasCapabilityWithSeparator``: the value's text contains ``value``."""
        text = self.text(name)
        return text is not None and value.lower() in re.sub(r"\s", "", text).lower()

    def restrictions(self) -> list[Mapping[str, Any]]:
        return [r for r in self.entry.get("restrictions") or () if isinstance(r, Mapping)]

    def location_restricted(self, region: str) -> bool:
        """skewer ``HasLocationRestriction``."""
        return any(
            r.get("type") == "Location" and any(_same(v, region) for v in r.get("values") or ())
            for r in self.restrictions()
        )

    def zones(self, region: str) -> list[str]:
        """skewer ``AvailabilityZones``: the region's zones less the restricted ones."""
        found: set[str] = set()
        restricted: set[str] = set()
        for info in self.entry.get("locationInfo") or ():
            if not isinstance(info, Mapping) or not _same(info.get("location"), region):
                continue
            found |= {str(z) for z in info.get("zones") or ()}
            for restriction in self.restrictions():
                if any(_same(v, region) for v in restriction.get("values") or ()):
                    details = restriction.get("restrictionInfo") or {}
                    restricted |= {str(z) for z in details.get("zones") or ()}
        return sorted(found - restricted)

    def ultra_ssd_in(self, zone: str) -> bool:
        """skewer ``HasCapabilityInZone(UltraSSDAvailable, zone)``."""
        for info in self.entry.get("locationInfo") or ():
            for detail in (info.get("zoneDetails") or ()) if isinstance(info, Mapping) else ():
                names = [str(n).lower() for n in detail.get("name") or ()]
                if zone.lower() in names and any(
                    str(c.get("name", "")).lower() == "ultrassdavailable"
                    and str(c.get("value", "")).lower() == "true"
                    for c in detail.get("capabilities") or ()
                ):
                    return True
        return False


def _same(location: object, region: str) -> bool:
    """skewer ``locationEquals``: spaces and case do not count."""
    return isinstance(location, str) and _normal(location) == _normal(region)


def _normal(location: str) -> str:
    return re.sub(r"\s", "", location).lower()


def gpu_entry(name: str) -> tuple[str, tuple[str, ...]] | None:
    """pkg/utils/gpu.go ``normalizeVMSize``: lower-cased, ``_promo`` trimmed."""
    return GPU_SIZES.get(name.lower().removesuffix("_promo"))


def offered(sku: Sku, name: str, size: VMSize, region: str) -> bool:
    """Whether the provider offers the SKU: ``UpdateInstanceTypes`` (instancetypes.go:
    433-445: restricted names, a location restriction, ``isSupported`` 478-523) and ``List``
    (183-189); the filters of ``List`` that depend on the NodeClass (327-412: GPU drivers,
    encryption at host) are applied per pool (:mod:`gate.scheduler.autoscaling.karpenter.
    aks`)."""
    if name in RESTRICTED_SIZES or sku.location_restricted(region):
        return False
    vcpus, memory, gpus = sku.integer("vCPUs"), sku.number("MemoryGB"), sku.integer("GPUs")
    if vcpus is None or vcpus < 2 or memory is None or memory < 3.5:
        return False
    registry = gpu_entry(name)
    if gpus is not None and gpus > 0 and registry is None:
        return False
    if size.constrained or str(sku.entry.get("size") or "").startswith(("DC", "EC")):
        return False
    return sku.text("CpuArchitectureType") is not None


def ephemeral_os_max_gb(sku: Sku) -> int:
    """instancetypes.go:532-565 ``FindMaxEphemeralSizeGBAndPlacement``: NVMe, else cache,
    else resource disk, in decimal GB (truncated); 0 without ephemeral OS disks."""
    if not sku.has("EphemeralOSDiskSupported"):
        return 0
    nvme = sku.integer("NvmeDiskSizeInMiB") or 0
    if nvme > 0 and sku.listed("SupportedEphemeralOSDiskPlacements", "NvmeDisk"):
        return nvme * 2**20 // 10**9
    cached = sku.integer("CachedDiskBytes") or 0
    if cached > 0:
        return cached // 10**9
    resource = sku.integer("MaxResourceVolumeMB") or 0
    return resource * 2**20 // 10**9 if resource > 0 else 0


def offerings(sku: Sku, region: str) -> tuple[Offering, ...]:
    """instancetypes.go:216-323: each zone ``<region>-<n>`` and the regional zone ``0``,
    on-demand and, for a LowPriorityCapable SKU, spot (an unavailable offering is left out:
    the type's requirements hold only available ones, instancetype.go:156-173)."""
    numbered = sku.zones(region)
    zones = [f"{region.lower()}-{z}" for z in numbered] + [REGIONAL_ZONE]
    kinds = [("on-demand", "regular")]
    if sku.has("LowPriorityCapable"):
        kinds.append(("spot", "spot"))
    found = []
    for zone in sorted(zones):
        regional = zone == REGIONAL_ZONE
        ultra = sku.has("UltraSSDAvailable") if regional else sku.ultra_ssd_in(zone[-1:])
        for kind, priority in kinds:
            requirements = (
                Requirement(f"{AKS}/scalesetpriority", "In", (priority,)),
                Requirement(f"{AKS}/priority", "In", (priority,)),
                Requirement(
                    _label("placement-scope"), "In", ("regional" if regional else "zonal",)
                ),
                Requirement(
                    _label("sku-storage-ultra-ssd"),
                    "In",
                    ("true", "false") if ultra else ("false",),
                ),
            )
            found.append(Offering(zone, kind, requirements=requirements))
    return tuple(found)


def instance_type(
    entry: Mapping[str, Any], region: str, overhead_percent: float
) -> InstanceType | None:
    """One SKU as the provider builds it; None when it offers no such type."""
    sku = Sku(entry)
    name = str(entry.get("name") or "")
    size = vm_size(str(entry.get("size") or ""))
    if size is None or not offered(sku, name, size, region):
        return None
    vcpus, memory_gib = sku.integer("vCPUs") or 0, sku.number("MemoryGB") or 0.0
    registry = gpu_entry(name)
    gpus = (sku.integer("GPUs") or 0) if registry else 0
    architecture = str(sku.text("CpuArchitectureType"))
    memory_mib = str(int(memory_gib * 1024))
    labels: dict[str, str] = {
        INSTANCE_TYPE: name,
        ARCH: ARCHITECTURES.get(architecture, architecture),
        REGION: region,
        _label("sku-name"): name,
        _label("sku-family"): size.family,
        _label("sku-series"): size.series,
        _label("sku-cpu"): str(vcpus),
        _label("sku-memory"): memory_mib,
        f"{AKS}/sku-cpu": str(vcpus),
        f"{AKS}/sku-memory": memory_mib,
        _label("sku-gpu-count"): str(gpus),
        _label("sku-storage-premium-capable"): _go_bool(sku.has("PremiumIO")),
        _label("sku-networking-accelerated"): _go_bool(sku.has("AcceleratedNetworkingEnabled")),
        f"{AKS}/os-sku": OS_SKU,
    }
    version = sku_version(size)
    if version:
        labels[_label("sku-version")] = version
    if registry:
        labels[_label("sku-gpu-manufacturer")] = registry[0]
        if size.accelerator:
            labels[_label("sku-gpu-name")] = size.accelerator
    ephemeral = ephemeral_os_max_gb(sku)
    if ephemeral > 0:
        labels[_label("sku-storage-ephemeralos-maxsize")] = str(ephemeral)
    offered_ = offerings(sku, region)
    generations = tuple(g for g in ("1", "2") if sku.listed("HyperVGenerations", f"V{g}"))
    requirements = [
        Requirement(f"{AKS}/mode", "In", ("system", "user")),
        Requirement(f"{AKS}/scalesetpriority", "In", ("regular", "spot")),
        Requirement(f"{AKS}/priority", "In", ("regular", "spot")),
        _union(_label("placement-scope"), offered_),
        _union(_label("sku-storage-ultra-ssd"), offered_),
    ]
    if generations:
        requirements.append(Requirement(_label("sku-hyperv-generation"), "In", generations))
    keys = {*labels, *(r.key for r in requirements)}
    absent = tuple(sorted(k for k in (*SKU_LABELS, f"{AKS}/fips_enabled") if k not in keys))

    capacity: dict[str, int] = {
        "cpu": vcpus * 1000,
        "memory": memory_capacity(memory_gib, overhead_percent),
        "ephemeral-storage": OS_DISK_BYTES,
        "pods": DEFAULT_PODS,
    }
    if registry and gpus:
        capacity["nvidia.com/gpu" if registry[0] == "nvidia" else "amd.com/gpu"] = gpus
    reserved = kube_reserved(vcpus, memory_gib)
    eviction = {"memory": EVICTION_MEMORY}
    return InstanceType(
        name=name,
        labels=labels,
        operating_systems=("linux",),
        capacity=capacity,
        overhead={r: reserved.get(r, 0) + eviction.get(r, 0) for r in reserved},
        offerings=offered_,
        absent=absent,
        kube_reserved=reserved,
        eviction_threshold=eviction,
        requirements=tuple(requirements),
        gpu_images=registry[1] if registry else (),
        capabilities=("EncryptionAtHostSupported",) if sku.has("EncryptionAtHostSupported") else (),
    )


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


def _union(key: str, found: Sequence[Offering]) -> Requirement:
    values = sorted({v for o in found for r in o.requirements if r.key == key for v in r.values})
    return Requirement(key, "In", tuple(values))


def is_sku_listing(document: object) -> bool:
    """``az vm list-skus``: an array of SKUs, each naming its ``resourceType``."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(e, Mapping) and "resourceType" in e for e in document)
    )


def region_of(source: str, machines: Sequence[Mapping[str, Any]]) -> str:
    """The one location the listing's VM SKUs name (``az vm list-skus --location L``)."""
    found = {
        _normal(str(location))
        for entry in machines
        for location in entry.get("locations") or ()
        if isinstance(location, str)
    }
    if len(found) != 1:
        named = ", ".join(sorted(found)) or "none"
        raise UsageError(
            f"{source}: the SKUs name {len(found)} locations ({named}): record one region "
            "with az vm list-skus --location <region> --output json"
        )
    return found.pop()


def azure_catalog(
    source: str,
    document: Sequence[Any],
    overhead_percent: float = VM_MEMORY_OVERHEAD_PERCENT,
) -> Catalog:
    """The catalog of the listed virtual-machine SKUs (other resource types, such as disks
    and availability sets, are no instance types)."""
    machines = [
        (index, entry)
        for index, entry in enumerate(document)
        if str(entry.get("resourceType") or "").lower() == "virtualmachines"
    ]
    if not machines:
        raise UsageError(f"{source}: no SKU of resource type virtualMachines")
    region = region_of(source, [entry for _, entry in machines])
    types: dict[str, InstanceType] = {}
    for index, entry in machines:
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise UsageError(f"{source}: [{index}]: no name")
        try:
            built = instance_type(entry, region, overhead_percent)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise UsageError(
                f"{source}: [{index}] ({name}): not as Azure describes a SKU: {exc}"
            ) from None
        if built is not None:
            if name in types:
                raise UsageError(f"{source}: [{index}]: {name!r} is listed twice")
            types[name] = built
    if not types:
        raise UsageError(f"{source}: no SKU AKS node autoprovisioning would launch")
    return Catalog(
        tuple(sorted(types.values(), key=lambda t: t.name)),
        source,
        provider="azure",
        assumed=ASSUMED,
    )
