"""Karpenter's objects of a snapshot -> :class:`~gate.model.karpenter.KarpenterState`.

A snapshot (a ``kubectl get -o json`` List or fitgate's ClusterSnapshot) may hold
``karpenter.sh/v1`` NodePools and NodeClaims, and a provider's NodeClass objects: AWS's
``EC2NodeClass`` (``karpenter.k8s.aws/v1``) and Azure's ``AKSNodeClass``
(``karpenter.azure.com/v1beta1`` or ``v1alpha2``; AKS node autoprovisioning is Karpenter).
They are kept whole by the readers (:mod:`gate.snapshot.stream`) and read here once into
typed values. What the API server would refuse (its CRD's validation) is a
:class:`~gate.errors.SnapshotError` of one line naming the object and the field: a gate
that read a pool's limits as none would answer wrongly.

Upstream: kubernetes-sigs/karpenter v1.8.3 pkg/apis/v1/nodepool.go (the spec and its CRD
rules), nodeclaim.go (``NodeSelectorRequirementWithMinValues``), nodepool_status.go (the
conditions), labels.go; aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go
(``KubeletConfiguration``); Azure/karpenter-provider-azure pkg/apis/v1beta1/aksnodeclass.go
(``spec.maxPods``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from gate.errors import QuantityError, SnapshotError
from gate.k8s.labels import (
    ARCH,
    BETA_ARCH,
    BETA_INSTANCE_TYPE,
    BETA_OS,
    BETA_REGION,
    BETA_ZONE,
    HOSTNAME,
    INSTANCE_TYPE,
    OS,
    REGION,
    WINDOWS_BUILD,
    ZONE,
)
from gate.k8s.matching import TAINT_EFFECTS
from gate.k8s.quantity import NEGATIVE, parse_quantity, whole_value
from gate.k8s.resources import exact_list, to_scheduler_units
from gate.model.karpenter import (
    CAPACITY_TYPE_LABEL,
    NODEPOOL_LABEL,
    KarpenterState,
    NodeClaim,
    NodeClass,
    NodePool,
)
from gate.model.karpenter import Requirement as KarpenterRequirement
from gate.model.taints import Taint
from gate.snapshot.fields import Fields

NODE_POOL, NODE_CLAIM = "NodePool", "NodeClaim"
EC2_NODE_CLASS, AKS_NODE_CLASS = "EC2NodeClass", "AKSNodeClass"
KARPENTER_KINDS = (NODE_POOL, NODE_CLAIM, EC2_NODE_CLASS, AKS_NODE_CLASS)
GROUPS: Mapping[str, str] = {
    NODE_POOL: "karpenter.sh",
    NODE_CLAIM: "karpenter.sh",
    EC2_NODE_CLASS: "karpenter.k8s.aws",
    AKS_NODE_CLASS: "karpenter.azure.com",
}
"""Each kind's API group: another project's kind of the same name (a ``NodePool`` of some
other group) is not Karpenter's, and is passed over."""
READY_CONDITIONS = ("Ready", "ValidationSucceeded", "NodeClassReady")
"""pkg/apis/v1/nodepool_status.go: a pool provisions only when all three are True (v1.8's
provisioner reads ``Ready``, which its status controller sets from the other two)."""
OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
"""The ``operator`` enum of ``NodeSelectorRequirement`` in the NodePool CRD."""
EVICTION_SIGNALS = frozenset(
    {
        "memory.available",
        "nodefs.available",
        "nodefs.inodesFree",
        "imagefs.available",
        "imagefs.inodesFree",
        "pid.available",
    }
)
"""ec2nodeclass.go: the keys ``evictionHard`` and ``evictionSoft`` may hold."""
RESERVED_KEYS = frozenset({"cpu", "memory", "ephemeral-storage", "pid"})
"""ec2nodeclass.go: the keys ``kubeReserved`` and ``systemReserved`` may hold."""


KUBERNETES_LABELS = frozenset(
    {
        BETA_INSTANCE_TYPE,
        BETA_REGION,
        BETA_OS,
        BETA_ARCH,
        BETA_ZONE,
        ZONE,
        REGION,
        INSTANCE_TYPE,
        ARCH,
        OS,
        WINDOWS_BUILD,
    }
)
"""The ``kubernetes.io`` labels a NodePool's template may name (the CRD's rule on
``metadata.labels`` and on a requirement's ``key``)."""


def restricted(key: str) -> str | None:
    """Why the NodePool CRD (pkg/apis/crds/karpenter.sh_nodepools.yaml) refuses ``key`` as
    a template label or a requirement's key, in its words; None when it does not. The
    domain is what precedes the first ``/`` (the whole key without one), as the rules'
    ``find("^([^/]+)")`` takes it.

    >>> restricted("kubernetes.io/hostname"), restricted("team"), restricted("x.k8s.io/a")
    ('label "kubernetes.io/hostname" is restricted', None, 'label domain "k8s.io" is restricted')
    """
    domain = key.split("/", 1)[0]
    if key in (NODEPOOL_LABEL, HOSTNAME):  # the most specific rule first
        return f'label "{key}" is restricted'
    if not (
        key in KUBERNETES_LABELS
        or domain.endswith(("node.kubernetes.io", "node-restriction.kubernetes.io"))
        or not domain.endswith("kubernetes.io")
    ):
        return 'label domain "kubernetes.io" is restricted'
    if domain.endswith("k8s.io") and not domain.endswith("kops.k8s.io"):
        return 'label domain "k8s.io" is restricted'
    if key not in (CAPACITY_TYPE_LABEL, NODEPOOL_LABEL) and domain.endswith("karpenter.sh"):
        return 'label domain "karpenter.sh" is restricted'
    return None


class _Read(Fields):
    """Typed reads of one Karpenter object: lists, bounded integers, string maps, amounts,
    taints and conditions."""

    def __init__(self, kind: str, obj: Mapping[str, Any]) -> None:
        meta = obj.get("metadata")
        self.meta: Mapping[str, Any] = meta if isinstance(meta, Mapping) else {}
        name = self.meta.get("name")
        self.name = name if isinstance(name, str) else ""
        self.where = f'{kind} "{self.name or "?"}"'
        if not self.name:
            raise self.fail("metadata.name", "missing")

    def items(self, value: object, path: str) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, "not a list")
        return value

    def text(self, value: object, path: str) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(path, f"not a string: {_shown(value)}")
        return value

    def integer(self, value: object, path: str, low: int, high: int | None = None) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"not an integer: {_shown(value)}")
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise self.fail(path, f"{value} is not {bound}")
        return value

    def flag(self, value: object, path: str) -> bool:
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self.fail(path, f"not a boolean: {_shown(value)}")
        return value

    def strings(self, value: object, path: str) -> dict[str, str]:
        data = self.mapping(value, path)
        for key, item in data.items():
            if not isinstance(item, str):
                raise self.fail(f"{path}[{shown_key(key)}]", f"not a string: {_shown(item)}")
        return dict(data)

    def amounts(self, value: object, path: str, *, nonnegative: bool = False) -> dict[str, int]:
        """A ResourceList in scheduler units (what the scheduler does not track is dropped,
        as :func:`~gate.k8s.resources.to_scheduler_units` drops it); ``nonnegative``: a
        negative amount is refused, as the API server refuses one in a node's status."""
        try:
            exact = exact_list(self.mapping(value, path))
        except QuantityError as exc:
            raise self.fail(path, str(exc)) from None
        if nonnegative:
            for key, amount in exact.items():
                if amount < 0:
                    raise self.fail(f"{path}[{shown_key(key)}]", f"negative: {NEGATIVE}")
        return to_scheduler_units(exact)

    def taints(self, value: object, path: str) -> tuple[Taint, ...]:
        taints = []
        for index, item in enumerate(self.items(value, path)):
            at = f"{path}[{index}]"
            taint = self.mapping(item, at)
            key = self.text(taint.get("key"), f"{at}.key")
            effect = self.text(taint.get("effect"), f"{at}.effect")
            if not key:
                raise self.fail(f"{at}.key", "missing")
            if effect not in TAINT_EFFECTS:
                raise self.fail(f"{at}.effect", f"not one of {', '.join(sorted(TAINT_EFFECTS))}")
            value_ = self.text(taint.get("value"), f"{at}.value")
            taints.append(Taint(key=key, value=value_, effect=effect))
        return tuple(taints)

    def conditions(self, status: Mapping[str, Any]) -> dict[str, str]:
        """``status.conditions`` as type -> status; the last of a repeated type wins."""
        found: dict[str, str] = {}
        for index, item in enumerate(self.items(status.get("conditions"), "status.conditions")):
            at = f"status.conditions[{index}]"
            condition = self.mapping(item, at)
            kind = self.text(condition.get("type"), f"{at}.type")
            found[kind] = self.text(condition.get("status"), f"{at}.status")
        return found


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]+")


def shown_key(key: str) -> str:
    """A map key in a message's field path: as written when plain, else quoted, so that a
    message stays on one line whatever a key holds.

    >>> shown_key("memory.available"), shown_key("a\\nb")
    ('memory.available', '"a\\\\nb"')
    """
    return key if _PLAIN_KEY.fullmatch(key) else json.dumps(key)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _requirement(read: _Read, item: object, at: str) -> KarpenterRequirement:
    """One ``NodeSelectorRequirementWithMinValues`` under the CRD's rules
    (pkg/apis/v1/nodepool.go, the XValidations on ``requirements``)."""
    data = read.mapping(item, at)
    key = read.text(data.get("key"), f"{at}.key")
    if not key:
        raise read.fail(f"{at}.key", "missing")
    why = restricted(key)
    if why:
        raise read.fail(f"{at}.key", why)
    operator = read.text(data.get("operator"), f"{at}.operator")
    if operator not in OPERATORS:
        raise read.fail(
            f"{at}.operator", f"{operator!r} is not one of {', '.join(sorted(OPERATORS))}"
        )
    values = read.items(data.get("values"), f"{at}.values")
    for index, value in enumerate(values):
        read.text(value, f"{at}.values[{index}]")
    min_values = read.integer(data.get("minValues"), f"{at}.minValues", 1, 50)
    if operator == "In" and not values:
        raise read.fail(f"{at}.values", "requirements with operator 'In' must have a value defined")
    if operator in ("Gt", "Lt") and (
        len(values) != 1 or not str(values[0]).isdigit() or not str(values[0]).isascii()
    ):
        raise read.fail(
            f"{at}.values",
            "requirements operator 'Gt' or 'Lt' must have a single positive integer value",
        )
    if operator == "In" and min_values is not None and len(values) < min_values:
        raise read.fail(
            f"{at}.minValues",
            "requirements with 'minValues' must have at least that many values specified in "
            "the 'values' field",
        )
    return KarpenterRequirement(key, operator, tuple(values), min_values)


def _readiness(conditions: Mapping[str, str]) -> tuple[bool, str]:
    for kind in READY_CONDITIONS:
        status = conditions.get(kind)
        if status is None:
            return False, f"{kind} is missing"
        if status != "True":
            return False, f"{kind} is {status or 'empty'}"
    return True, ""


def _limits(read: _Read, value: object) -> dict[str, int] | None:
    """``spec.limits`` in scheduler units, ``nodes`` kept as a count (the scheduler does
    not track it, Karpenter checks it when it creates a node)."""
    if value is None:
        return None
    limits = read.amounts(value, "spec.limits")
    nodes = read.mapping(value, "spec.limits").get("nodes")
    if nodes is not None:  # parsed already, by amounts
        limits["nodes"] = whole_value(parse_quantity(nodes))
    return limits


def node_pool(obj: Mapping[str, Any]) -> NodePool:
    """A NodePool (pkg/apis/v1/nodepool.go): its template, limits, weight and readiness."""
    read = _Read(NODE_POOL, obj)
    spec = read.mapping(obj.get("spec"), "spec")
    template = read.mapping(spec.get("template"), "spec.template")
    meta = read.mapping(template.get("metadata"), "spec.template.metadata")
    pod = read.mapping(template.get("spec"), "spec.template.spec")
    at = "spec.template.spec.requirements"
    requirements = tuple(
        _requirement(read, item, f"{at}[{index}]")
        for index, item in enumerate(read.items(pod.get("requirements"), at))
    )
    ref = read.mapping(pod.get("nodeClassRef"), "spec.template.spec.nodeClassRef")
    node_class = tuple(
        read.text(ref.get(key), f"spec.template.spec.nodeClassRef.{key}")
        for key in ("group", "kind", "name")
    )
    status = read.mapping(obj.get("status"), "status")
    ready, not_ready = _readiness(read.conditions(status))
    labels = read.strings(meta.get("labels"), "spec.template.metadata.labels")
    for key in labels:
        why = restricted(key)
        if why:
            raise read.fail(f"spec.template.metadata.labels[{shown_key(key)}]", why)
    replicas = read.integer(spec.get("replicas"), "spec.replicas", 0)
    limits = _limits(read, spec.get("limits"))
    if replicas is not None and spec.get("weight") is not None:  # nodepool.go's XValidations
        raise read.fail("spec.weight", "'weight' is not supported on static NodePools")
    if replicas is not None and limits and set(limits) != {"nodes"}:
        raise read.fail("spec.limits", "only 'limits.nodes' is supported on static NodePools")
    return NodePool(
        name=read.name,
        weight=read.integer(spec.get("weight"), "spec.weight", 1, 100) or 0,
        labels=labels,
        requirements=requirements,
        taints=read.taints(pod.get("taints"), "spec.template.spec.taints"),
        startup_taints=read.taints(pod.get("startupTaints"), "spec.template.spec.startupTaints"),
        limits=limits,
        node_class=(node_class[0], node_class[1], node_class[2]),
        ready=ready,
        not_ready=not_ready,
        replicas=replicas,
        deleting=read.meta.get("deletionTimestamp") is not None,
    )


def node_claim(obj: Mapping[str, Any]) -> NodeClaim:
    """A NodeClaim (pkg/apis/v1/nodeclaim.go): its pool, labels, taints and, once launched,
    its capacity, allocatable and node."""
    read = _Read(NODE_CLAIM, obj)
    labels = read.strings(read.meta.get("labels"), "metadata.labels")
    spec = read.mapping(obj.get("spec"), "spec")
    status = read.mapping(obj.get("status"), "status")
    return NodeClaim(
        name=read.name,
        pool=labels.get(NODEPOOL_LABEL, ""),
        labels=labels,
        taints=read.taints(spec.get("taints"), "spec.taints"),
        capacity=read.amounts(status.get("capacity"), "status.capacity", nonnegative=True),
        allocatable=read.amounts(status.get("allocatable"), "status.allocatable", nonnegative=True),
        node_name=read.text(status.get("nodeName"), "status.nodeName"),
        deleting=read.meta.get("deletionTimestamp") is not None
        or read.conditions(status).get("InstanceTerminating") == "True",
    )


def _reserved(read: _Read, value: object, path: str) -> dict[str, int]:
    data = read.strings(value, path)
    for key in data:
        if key not in RESERVED_KEYS:
            raise read.fail(path, f"valid keys are {', '.join(sorted(RESERVED_KEYS))}: not {key!r}")
        if data[key].startswith("-"):
            raise read.fail(f"{path}[{shown_key(key)}]", "cannot be a negative resource quantity")
    return read.amounts(data, path)


def _eviction(read: _Read, value: object, path: str) -> tuple[dict[str, int], dict[str, str]]:
    """``evictionHard`` or ``evictionSoft``: an absolute threshold as a whole amount, a
    percentage as written
    (it is a share of the instance's capacity)."""
    absolute, percent = {}, {}
    for key, text in read.strings(value, path).items():
        if key not in EVICTION_SIGNALS:
            raise read.fail(
                path, f"valid keys are {', '.join(sorted(EVICTION_SIGNALS))}: not {key!r}"
            )
        if text.endswith("%"):
            percent[key] = text
            continue
        try:
            absolute[key] = whole_value(parse_quantity(text))
        except QuantityError as exc:
            raise read.fail(f"{path}[{shown_key(key)}]", str(exc)) from None
    return absolute, percent


EPHEMERAL_BLOCK_DEVICE = "/dev/xvda"
"""karpenter-provider-aws amifamily/al2023.go ``EphemeralBlockDevice``."""


def _root_volume(read: _Read, value: object, path: str) -> int | None:
    """types.go ``ephemeralStorage`` (357-393): the size of the first mapping marked
    ``rootVolume``, else of the first named AL2023's ephemeral block device; either counts
    only with a ``volumeSize`` (None: the AMI family's default)."""
    sizes: list[tuple[bool, str, int | None]] = []
    for index, item in enumerate(read.items(value, path)):
        at = f"{path}[{index}]"
        mapping = read.mapping(item, at)
        ebs = read.mapping(mapping.get("ebs"), f"{at}.ebs")
        written = read.text(ebs.get("volumeSize"), f"{at}.ebs.volumeSize")
        size = None
        if written:
            try:
                size = whole_value(parse_quantity(written))
            except QuantityError as exc:
                raise read.fail(f"{at}.ebs.volumeSize", str(exc)) from None
        root = read.flag(mapping.get("rootVolume"), f"{at}.rootVolume")
        sizes.append((root, read.text(mapping.get("deviceName"), f"{at}.deviceName"), size))
    root_volume = next((size for root, _, size in sizes if root), None)
    if root_volume is not None:
        return root_volume
    return next((size for _, name, size in sizes if name == EPHEMERAL_BLOCK_DEVICE), None)


def node_class(kind: str, obj: Mapping[str, Any]) -> NodeClass:
    """An ``EC2NodeClass`` (its ``spec.kubelet``: maxPods, podsPerCore, the reserved
    amounts, evictionHard and evictionSoft; its ephemeral storage volume; the zone IDs of
    its ``status.subnets``) or an ``AKSNodeClass`` (``spec.maxPods``, ``imageFamily``,
    ``osDiskSizeGB``, ``security.encryptionAtHost``, ``gpu.mode``; its kubelet settings
    reserve nothing); ready when its ``Ready`` condition is True."""
    read = _Read(kind, obj)
    spec = read.mapping(obj.get("spec"), "spec")
    kubelet = read.mapping(spec.get("kubelet"), "spec.kubelet")
    ready = read.conditions(read.mapping(obj.get("status"), "status")).get("Ready") == "True"
    if kind == AKS_NODE_CLASS:
        return NodeClass(
            kind=kind,
            name=read.name,
            max_pods=read.integer(spec.get("maxPods"), "spec.maxPods", 10, 250),
            ready=ready,
            image_family=read.text(spec.get("imageFamily"), "spec.imageFamily"),
            os_disk_gb=read.integer(spec.get("osDiskSizeGB"), "spec.osDiskSizeGB", 30, 2048),
            encryption_at_host=read.flag(
                read.mapping(spec.get("security"), "spec.security").get("encryptionAtHost"),
                "spec.security.encryptionAtHost",
            ),
            gpu_driver=read.text(
                read.mapping(spec.get("gpu"), "spec.gpu").get("mode"), "spec.gpu.mode"
            )
            != "None",
        )
    absolute, percent = _eviction(read, kubelet.get("evictionHard"), "spec.kubelet.evictionHard")
    soft, soft_percent = _eviction(read, kubelet.get("evictionSoft"), "spec.kubelet.evictionSoft")
    status = read.mapping(obj.get("status"), "status")
    zone_ids: dict[str, str] = {}
    for index, item in enumerate(read.items(status.get("subnets"), "status.subnets")):
        subnet = read.mapping(item, f"status.subnets[{index}]")
        zone = read.text(subnet.get("zone"), f"status.subnets[{index}].zone")
        zone_id = read.text(subnet.get("zoneID"), f"status.subnets[{index}].zoneID")
        if zone and zone_id:
            zone_ids[zone] = zone_id
    return NodeClass(
        kind=kind,
        name=read.name,
        max_pods=read.integer(kubelet.get("maxPods"), "spec.kubelet.maxPods", 0),
        pods_per_core=read.integer(kubelet.get("podsPerCore"), "spec.kubelet.podsPerCore", 0),
        kube_reserved=_reserved(read, kubelet.get("kubeReserved"), "spec.kubelet.kubeReserved"),
        system_reserved=_reserved(
            read, kubelet.get("systemReserved"), "spec.kubelet.systemReserved"
        ),
        eviction_hard=absolute,
        eviction_percent=percent,
        ready=ready,
        zone_ids=zone_ids,
        eviction_soft=soft,
        eviction_soft_percent=soft_percent,
        root_volume=_root_volume(read, spec.get("blockDeviceMappings"), "spec.blockDeviceMappings"),
    )


def is_karpenter(kind: str, obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` is of Karpenter's group for its kind (an object with no
    ``apiVersion``, as a hand-written List may hold, is taken as Karpenter's)."""
    version = obj.get("apiVersion")
    if not isinstance(version, str) or not version:
        return True
    group, slash, _ = version.partition("/")
    return bool(slash) and group == GROUPS[kind]


def karpenter_state(objects: Mapping[str, Iterable[Any]]) -> KarpenterState | None:
    """The Karpenter state of a snapshot's objects by kind (:data:`KARPENTER_KINDS`); None
    when it recorded none of them."""
    by_kind = {
        kind: [o for o in objects.get(kind, ()) if isinstance(o, Mapping) and is_karpenter(kind, o)]
        for kind in KARPENTER_KINDS
    }
    if not any(by_kind.values()):
        return None
    state = KarpenterState(
        pools=tuple(map(node_pool, by_kind[NODE_POOL])),
        claims=tuple(map(node_claim, by_kind[NODE_CLAIM])),
        node_classes=tuple(
            node_class(kind, o) for kind in (EC2_NODE_CLASS, AKS_NODE_CLASS) for o in by_kind[kind]
        ),
    )
    _once(
        [(NODE_POOL, p.name) for p in state.pools]
        + [(NODE_CLAIM, c.name) for c in state.claims]
        + [(c.kind, c.name) for c in state.node_classes]
    )
    return state


def _once(objects: Iterable[tuple[str, str]]) -> None:
    """Every object once by kind and name: these kinds are cluster-scoped, and the API
    server holds one object per name (two NodePools of one name would double its limits)."""
    seen: set[tuple[str, str]] = set()
    for kind, name in objects:
        if (kind, name) in seen:
            raise SnapshotError(f'{kind} "{name}": recorded twice; a cluster holds one of a name')
        seen.add((kind, name))
