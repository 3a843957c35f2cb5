"""What the volume plugins read of claims, volumes and classes, as upstream's helpers do.

Upstream ``k8s.io/component-helpers/storage/volume`` (v1.34.1): ``helpers.go``
(``GetPersistentVolumeClaimClass``, ``GetPersistentVolumeClass``, ``CheckNodeAffinity``,
``IsDelayBindingMode``) and ``pv_helpers.go`` (``FindMatchingVolume``,
``CheckVolumeModeMismatches``, ``CheckAccessModes``); ``pkg/apis/core/v1/helper``
(``MatchTopologySelectorTerms``); ``volumebinding/binder.go`` (``isPVCFullyBound``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from gate.errors import QuantityError
from gate.k8s.matching import SelectorTerm, parse_terms
from gate.k8s.quantity import parse_quantity
from gate.k8s.selectors import SelectorError, parse_selector
from gate.model.storage import Mount
from gate.untyped import as_list, mapping

PlainObject = Mapping[str, Any]

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
NO_PROVISIONER = "kubernetes.io/no-provisioner"
WAIT = "WaitForFirstConsumer"
AVAILABLE = "Available"
"""The phase of a volume bound to no claim, that a claim may bind."""
MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
"""v1.MigratedPluginsAnnotationKey: a CSINode's in-tree plugins migrated to CSI on its node."""
_CLASS_DEFAULTS = {"reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}


def defaulted_class(obj: PlainObject) -> PlainObject:
    """A StorageClass as the API server stores it (``pkg/apis/storage/v1/defaults.go``
    ``SetDefaults_StorageClass``): an unset ``reclaimPolicy`` is Delete, an unset
    ``volumeBindingMode`` Immediate."""
    return {**obj, **{k: v for k, v in _CLASS_DEFAULTS.items() if obj.get(k) is None}}


PENDING = "Pending"
"""The phase the API server gives a new volume, before the volume controller syncs it."""


def defaulted_volume(obj: PlainObject) -> PlainObject:
    """A PersistentVolume as the API server stores it when created
    (``pkg/apis/core/v1/defaults.go`` ``SetDefaults_PersistentVolume``; ``PrepareForCreate``
    resets its status): an unset ``persistentVolumeReclaimPolicy`` is Retain, an unset
    ``volumeMode`` Filesystem, and its phase Pending."""
    spec = dict(mapping(obj.get("spec")))
    if not spec.get("persistentVolumeReclaimPolicy"):  # a string: empty is unset
        spec["persistentVolumeReclaimPolicy"] = "Retain"
    if spec.get("volumeMode") is None:  # a pointer: only nil is unset
        spec["volumeMode"] = "Filesystem"
    return {**obj, "spec": spec, "status": {"phase": PENDING}}


EPHEMERAL = "ephemeral"
"""A generic ephemeral volume's source."""


def ephemeral_claim(pod: str, volume: str) -> str:
    """ephemeral.VolumeClaimName: the claim the ephemeral volume controller creates for the
    pod's generic ephemeral volume ``volume`` (``component-helpers/storage/ephemeral``)."""
    return f"{pod}-{volume}"


def ephemeral_volumes(spec: Mapping[str, Any]) -> tuple[tuple[int, str, Mapping[str, Any]], ...]:
    """The pod's generic ephemeral volumes as (position in ``volumes``, volume name, its
    ``volumeClaimTemplate``)."""
    found = []
    for i, volume in enumerate(as_list(spec.get("volumes"))):
        source = mapping(volume).get(EPHEMERAL)
        if isinstance(source, Mapping):
            name = mapping(volume).get("name")
            template = mapping(source.get("volumeClaimTemplate"))
            found.append((i, name if isinstance(name, str) else "", template))
    return tuple(found)


def claim_names(spec: Mapping[str, Any]) -> tuple[tuple[int, str], ...]:
    """The pod's ``persistentVolumeClaim`` volumes as (position in ``volumes``, claim name)."""
    found = []
    for i, volume in enumerate(as_list(spec.get("volumes"))):
        source = (
            mapping(volume).get("persistentVolumeClaim") if isinstance(volume, Mapping) else None
        )
        if isinstance(source, Mapping):
            name = source.get("claimName")
            found.append((i, name if isinstance(name, str) else ""))
    return tuple(found)


# The field naming the claim or disk of each source the volume plugins read, in the order
# upstream's helpers test them (a volume has one source).
_DISK_FIELD = {
    "persistentVolumeClaim": "claimName",
    EPHEMERAL: "",
    "gcePersistentDisk": "pdName",
    "awsElasticBlockStore": "volumeID",
    "azureDisk": "diskURI",
    "cinder": "volumeID",
    "portworxVolume": "volumeID",
    "rbd": "image",
    "iscsi": "iqn",
}
RBD_POOL = "rbd"
"""The pool the API server gives an RBD volume that names none (core/v1
``zz_generated.defaults.go``): the pods already running carry it, a manifest may not."""
MOUNTED_SOURCES = tuple(_DISK_FIELD)
"""The volume sources NodeVolumeLimits and VolumeRestrictions read; a pod whose volumes
hold none of them is nothing to them."""
_MOUNTED = frozenset(_DISK_FIELD)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def mount_of(volume: object) -> Mount | None:
    """The volume as the volume plugins read it, or None when its source is none of
    :data:`MOUNTED_SOURCES`."""
    if not isinstance(volume, Mapping) or _MOUNTED.isdisjoint(volume):
        return None  # most volumes (a ConfigMap's, a token's): one test instead of nine
    for source, disk_field in _DISK_FIELD.items():
        found = volume.get(source)
        if isinstance(found, Mapping):
            kind = found.get("kind")
            return Mount(
                name=_text(volume.get("name")),
                source=source,
                disk=_text(found.get(disk_field)) if disk_field else "",
                read_only=found.get("readOnly") is True,
                monitors=frozenset(m for m in as_list(found.get("monitors")) if isinstance(m, str)),
                pool=_text(found.get("pool")) or (RBD_POOL if source == "rbd" else ""),
                # the API server defaults an Azure Disk's kind to Shared (v1 defaults.go)
                managed=isinstance(kind, str) and kind.lower() == "managed",
            )
    return None


def mounts_of(volumes: object) -> tuple[Mount, ...]:
    """The pod's ``volumes`` the volume plugins read (:func:`mount_of`), in order."""
    found = (mount_of(v) for v in as_list(volumes))
    return tuple(m for m in found if m is not None)


def name_of(obj: PlainObject) -> str:
    name = mapping(obj.get("metadata")).get("name")
    return name if isinstance(name, str) else ""


def annotations_of(obj: PlainObject) -> Mapping[str, Any]:
    return mapping(mapping(obj.get("metadata")).get("annotations"))


def spec_of(obj: PlainObject) -> Mapping[str, Any]:
    return mapping(obj.get("spec"))


def claim_class(claim: PlainObject) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation, else ``spec.storageClassName``."""
    beta = annotations_of(claim).get(BETA_CLASS)
    if isinstance(beta, str):
        return beta
    name = spec_of(claim).get("storageClassName")
    return name if isinstance(name, str) else ""


def volume_class(volume: PlainObject) -> str:
    """GetPersistentVolumeClass, as :func:`claim_class`."""
    return claim_class(volume)


def fully_bound(claim: PlainObject) -> bool:
    """isPVCFullyBound: a volume named and the bind-completed annotation set."""
    return bool(spec_of(claim).get("volumeName")) and BIND_COMPLETED in annotations_of(claim)


def delay_binding(claim: PlainObject, classes: Mapping[str, PlainObject]) -> bool:
    """IsDelayBindingMode: the claim's class exists and waits for its first consumer; a
    claim without a class, or of a class not found, binds at once."""
    found = classes.get(claim_class(claim))
    return found is not None and found.get("volumeBindingMode") == WAIT


def node_affinity_ok(volume: PlainObject, labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity: ``spec.nodeAffinity.required``'s terms against the node's labels
    (a node known by its labels alone: ``matchFields`` meets an empty name)."""
    return terms_hold(node_affinity_terms(volume), labels)


def node_affinity_terms(volume: PlainObject) -> tuple[SelectorTerm, ...] | None:
    """The volume's ``spec.nodeAffinity.required`` terms parsed, None when it has none (it
    fits every node): what :func:`node_affinity_ok` reads, for a caller that asks it of
    many nodes."""
    affinity = spec_of(volume).get("nodeAffinity")
    if not isinstance(affinity, Mapping) or affinity.get("required") is None:
        return None
    return parse_terms(mapping(affinity.get("required")).get("nodeSelectorTerms"))


def terms_hold(terms: tuple[SelectorTerm, ...] | None, labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity on the terms :func:`node_affinity_terms` parsed."""
    return terms is None or any(term.matches(labels, "") for term in terms)


def topology_ok(terms: object, labels: Mapping[str, str]) -> bool:
    """MatchTopologySelectorTerms: no terms match every node; a term without expressions
    selects no node (validation lets it be); a term matches when every expression's key is
    a label of the node with one of its values; terms are ORed."""
    listed = as_list(terms)
    if not listed:
        return True
    for term in listed:
        expressions = as_list(mapping(term).get("matchLabelExpressions"))
        if expressions and all(
            labels.get(str(mapping(e).get("key"))) in as_list(mapping(e).get("values"))
            for e in expressions
        ):
            return True
    return False


def storage_request(obj: PlainObject) -> Fraction:
    """A claim's ``resources.requests.storage``, 0 when unset or unreadable."""
    raw = mapping(mapping(spec_of(obj).get("resources")).get("requests")).get("storage")
    return _quantity(raw)


def volume_capacity(volume: PlainObject) -> Fraction:
    return _quantity(mapping(spec_of(volume).get("capacity")).get("storage"))


def _quantity(raw: object) -> Fraction:
    try:
        return parse_quantity(raw)
    except QuantityError:
        return Fraction(0)


def _mode(spec: Mapping[str, Any]) -> object:
    return spec.get("volumeMode") or "Filesystem"


def _attributes_class(spec: Mapping[str, Any]) -> object:
    return spec.get("volumeAttributesClassName") or ""


def _bound_to(volume: PlainObject, claim: PlainObject) -> bool:
    """IsVolumeBoundToClaim: the volume's claimRef names the claim (and its uid, if set)."""
    ref = mapping(spec_of(volume).get("claimRef"))
    meta = mapping(claim.get("metadata"))
    if ref.get("name") != meta.get("name"):
        return False
    if (ref.get("namespace") or "") != (meta.get("namespace") or "default"):
        return False
    uid = ref.get("uid")
    return not uid or uid == meta.get("uid")


def matching_volume(
    claim: PlainObject,
    volumes: Sequence[PlainObject],
    labels: Mapping[str, str],
    chosen: set[str],
) -> PlainObject | None:
    """FindMatchingVolume for a node (delayed binding; VolumeAttributesClass is GA in
    v1.34, so a volume's attributes class must be the claim's): the volume already bound
    to the claim when its node affinity holds, else the smallest Available volume of the
    claim's class that fits it on the node."""
    claim_spec = spec_of(claim)
    wanted, wanted_class = storage_request(claim), claim_class(claim)
    raw_selector = claim_spec.get("selector")
    try:
        selector = None if raw_selector is None else parse_selector(raw_selector)
    except SelectorError:
        return None
    smallest: PlainObject | None = None
    for volume in volumes:
        spec, name = spec_of(volume), name_of(volume)
        if name in chosen or (spec.get("claimRef") is not None and not _bound_to(volume, claim)):
            continue
        size = volume_capacity(volume)
        if size < wanted or _mode(claim_spec) != _mode(spec):
            continue
        if _attributes_class(spec) != _attributes_class(claim_spec):
            continue
        if mapping(volume.get("metadata")).get("deletionTimestamp") is not None:
            continue
        placed = node_affinity_ok(volume, labels)
        if _bound_to(volume, claim):
            return volume if placed else None
        if mapping(volume.get("status")).get("phase") != AVAILABLE:
            continue
        volume_labels = mapping(mapping(volume.get("metadata")).get("labels"))
        if selector is not None and not selector.matches(volume_labels):
            continue
        if volume_class(volume) != wanted_class or not placed:
            continue
        modes = set(as_list(spec.get("accessModes")))
        if not set(as_list(claim_spec.get("accessModes"))) <= modes:
            continue
        if smallest is None or volume_capacity(smallest) > size:
            smallest = volume
    return smallest


def prebound_volume(claim: PlainObject, volumes: Iterable[PlainObject]) -> PlainObject | None:
    """The volume the volume controller binds a new claim to before a pod uses it, even one
    waiting for its first consumer (``pv_controller.go`` ``syncUnboundClaim``;
    ``findByClaim``: the volumes whose access modes hold the claim's, then
    FindMatchingVolume without a node): the first volume pre-bound to the claim by its
    ``claimRef`` that is large enough, of its volume mode and attributes class, and not
    being deleted; None for none."""
    claim_spec = spec_of(claim)
    wanted, modes = storage_request(claim), set(as_list(claim_spec.get("accessModes")))
    for volume in volumes:
        spec = spec_of(volume)
        if not _bound_to(volume, claim) or not modes <= set(as_list(spec.get("accessModes"))):
            continue
        if volume_capacity(volume) < wanted or _mode(claim_spec) != _mode(spec):
            continue
        if _attributes_class(spec) != _attributes_class(claim_spec):
            continue
        if mapping(volume.get("metadata")).get("deletionTimestamp") is None:
            return volume
    return None


def start_ordinal(statefulset: Mapping[str, Any]) -> int:
    """The ordinal of a StatefulSet's first copy (stateful_set_utils.go ``getStartOrdinal``):
    ``spec.ordinals.start``, 0 when unset."""
    start = mapping(mapping(statefulset.get("spec")).get("ordinals")).get("start")
    return start if isinstance(start, int) and not isinstance(start, bool) and start > 0 else 0


def copy_claim(template: str, statefulset: str, ordinal: int) -> str:
    """The claim a StatefulSet's copy uses (stateful_set_utils.go
    ``getPersistentVolumeClaimName``)."""
    return f"{template}-{statefulset}-{ordinal}"


def with_copy_claims(
    spec: Mapping[str, Any], templates: Sequence[str], statefulset: str, ordinal: int
) -> dict[str, Any]:
    """The pod spec as the StatefulSet controller gives copy ``ordinal`` its claims
    (stateful_set_utils.go ``updateStorage``): a volume per claim template, named as the
    template and mounting its claim, replacing a volume of that name, then the others."""
    claims = [
        {"name": t, "persistentVolumeClaim": {"claimName": copy_claim(t, statefulset, ordinal)}}
        for t in templates
    ]
    others = [
        v
        for v in as_list(spec.get("volumes"))
        if not (isinstance(v, Mapping) and v.get("name") in templates)
    ]
    return {**spec, "volumes": [*claims, *others]}
