"""The PersistentVolumeClaims among a run's own manifests, added to the snapshot's.

A chart ships a claim beside the Deployment that mounts it: the claim does not exist in
the cluster yet, and the volume plugins must meet it as the API server stores it the
moment it is created, not report it missing. It is new, so unbound: no volume has been
bound to it (``pv.kubernetes.io/bind-completed`` is not kept from the manifest), and the
binder decides as its class binds (WaitForFirstConsumer: where its first pod lands;
Immediate: before its pod is scheduled, which the scheduler sees as ``pod has unbound
immediate PersistentVolumeClaims``). A claim naming no class gets the default one, as the
DefaultStorageClass admission plugin gives it
(``plugin/pkg/admission/storage/storageclass/setdefault``, ``GetDefaultClass``: the
classes annotated default, the newest first, then by name: a creation time counts whole
seconds, and a class recorded without one is the oldest). A claim of the run that the
cluster already holds (its namespace and name recorded) is not created again: the
recorded one stands, as it does for a StatefulSet's. A StatefulSet's claims are created
the same way from its ``volumeClaimTemplates``, for each copy below ``replicas`` whose
claim does not exist, unless the API server refuses it (``StorageObjects.refused`` keeps
its refusal: the copy never starts). A StorageClass the run ships (a chart's own class) is
there before its claims, as the API server stores it (its defaults set): the binder reads
a claim's class by name, and a shipped class annotated default is the newest default; a
class the cluster already holds is not created again (the recorded one stands: a class's
provisioner, parameters and binding mode cannot change). A pod's generic ephemeral volumes
get theirs the same way, one claim per pod and per volume (:func:`ephemeral_claims`).
A PersistentVolume the run ships (a chart's local volume beside its claim) is there as the
volume controller leaves it once created (:func:`synced_volume`): Available when it names
no claim, or names one by name alone (pre-bound: only that claim may bind it); a volume the
cluster already holds is not created again (the recorded one stands). A new claim waiting for
its first consumer that a volume is pre-bound to is bound to it by the volume controller at
once, before any pod uses it (:func:`prebound`).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import replace
from typing import Any

from gate.k8s.podlabels import stand_in_uid
from gate.k8s.validation import (
    aggregate,
    invalid_object,
    persistent_volume_claim_problems,
    persistent_volume_problems,
)
from gate.k8s.volumes import (
    AVAILABLE,
    BETA_CLASS,
    BIND_COMPLETED,
    PlainObject,
    annotations_of,
    copy_claim,
    defaulted_class,
    defaulted_volume,
    delay_binding,
    ephemeral_claim,
    ephemeral_volumes,
    name_of,
    prebound_volume,
    spec_of,
    start_ordinal,
)
from gate.model.encoded import holding, with_objects
from gate.model.storage import StorageObjects
from gate.untyped import as_list, mapping

DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
FOLLOWED_COPIES = 10_000
"""The most copies fitgate follows one by one, each with claims of its own (a StatefulSet's
``volumeClaimTemplates``, a pod's generic ephemeral volumes) or set apart from the others:
a claim object a copy, and a walk over the copies, for a count the API server accepts up
to 2,147,483,647."""
FOLLOWED_COPIES_TEXT = (
    "{copies} copies with claims of their own: fitgate creates and follows the claims of at "
    f"most {FOLLOWED_COPIES:,} copies, so it cannot judge these"
)
BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
RELEASED = "Released"
BOUND = "Bound"
_SERVER_SET = frozenset({"uid", "deletionTimestamp", "deletionGracePeriodSeconds"})


def is_default(storage_class: PlainObject) -> bool:
    """IsDefaultAnnotation."""
    notes = annotations_of(storage_class)
    return notes.get(DEFAULT_CLASS) == "true" or notes.get(BETA_DEFAULT_CLASS) == "true"


def default_class(
    classes: Mapping[str, PlainObject], created: Container[str] = frozenset()
) -> str | None:
    """GetDefaultClass: the newest default class, then the first by name; the classes
    named in ``created`` (the run's, created together now) are newer than any recorded."""
    defaults = [c for c in classes.values() if is_default(c)]
    if not defaults:
        return None

    def age(storage_class: PlainObject) -> tuple[bool, str]:
        if name_of(storage_class) in created:  # the server stamps it, whatever was written
            return True, ""
        stamp = mapping(storage_class.get("metadata")).get("creationTimestamp")
        return False, str(stamp or "")

    newest = max(age(c) for c in defaults)
    return min(name_of(c) for c in defaults if age(c) == newest)


def created_claim(
    body: Mapping[str, Any],
    classes: Mapping[str, PlainObject],
    created: Container[str] = frozenset(),
) -> PlainObject:
    """The claim as the API server stores it when created: its namespace set, no binder's
    note, the default class when it names none; none of what the server sets itself kept
    from the manifest (its status, reset by ``PrepareForCreate``; its deletion, cleared by
    ``BeforeCreate``; its uid, a new one that no volume's ``claimRef`` names yet).
    ``created``: the classes the run ships (:func:`default_class`)."""
    metadata = {k: v for k, v in mapping(body.get("metadata")).items() if k not in _SERVER_SET}
    metadata["namespace"] = metadata.get("namespace") or "default"
    notes = {k: v for k, v in annotations_of(body).items() if k != BIND_COMPLETED}
    metadata["annotations"] = notes
    spec = dict(mapping(body.get("spec")))
    if spec.get("storageClassName") is None and BETA_CLASS not in notes:
        chosen = default_class(classes, created)
        if chosen is not None:
            spec["storageClassName"] = chosen
    created = {k: v for k, v in body.items() if k != "status"}
    return {**created, "metadata": metadata, "spec": spec}


def with_run_claims(
    storage: StorageObjects | None, bodies: Iterable[Mapping[str, Any]]
) -> StorageObjects | None:
    """The snapshot's storage objects with the run's classes and claims added (module
    doc); as they were when the run has none, or when the snapshot recorded no claims (then
    nothing about claims is judged)."""
    if storage is None or not storage.knows_claims:
        return storage
    bodies = list(bodies)
    shipped = run_classes(storage.classes, bodies)
    classes = {**storage.classes, **shipped} if shipped else storage.classes
    added: dict[tuple[str, str], PlainObject] = {}
    for body in bodies:
        if body.get("kind") != "PersistentVolumeClaim" or body.get("apiVersion") != "v1":
            continue
        claim = created_claim(body, classes, shipped)
        key = str(mapping(claim["metadata"])["namespace"]), name_of(claim)
        # creating a claim that exists is refused, and applying it changes none of its
        # spec (immutable): its pods meet the recorded claim; nor is one the API server
        # refuses created
        if key[1] and key not in storage.claims and not persistent_volume_claim_problems(claim):
            added[key] = claim
    existing = {*storage.claims, *added}  # the keys alone: nothing is decoded
    refused: dict[tuple[str, str], str] = {}
    for body in bodies:
        if body.get("kind") == "StatefulSet":
            created = statefulset_claims(body, existing, classes, shipped)
            for key, claim in created.items():
                problem = refusal(claim)
                if problem is None:
                    added[key] = claim
                else:
                    refused[key] = problem
            existing.update(created)
    claims = with_objects(storage.claims, added) if added else storage.claims
    volumes = run_volumes(storage.volumes, bodies, claims)
    every = with_objects(storage.volumes, volumes) if volumes else storage.volumes
    bound, taken = prebound(added, every, classes)
    if bound:
        added.update(bound)
        volumes.update(taken)
        claims = with_objects(storage.claims, added)
    if not added and not shipped and not volumes and not refused:
        return storage
    return replace(
        storage,
        refused={**storage.refused, **refused} if refused else storage.refused,
        volumes=with_objects(storage.volumes, volumes) if volumes else storage.volumes,
        claims=claims,
        classes=classes,
        created=storage.created | frozenset(added),
    )


def prebound(
    added: Mapping[tuple[str, str], PlainObject],
    volumes: Mapping[str, PlainObject],
    classes: Mapping[str, PlainObject],
) -> tuple[dict[tuple[str, str], PlainObject], dict[str, PlainObject]]:
    """The run's new claims waiting for their first consumer that the volume controller
    binds at once to a volume pre-bound to them (:func:`gate.k8s.volumes.prebound_volume`),
    and those volumes, each as the binding leaves it (``bind``: the claim bound and its
    binding complete, the volume Bound). A new Immediate claim is left unbound, as
    fitgate judges it (module doc)."""
    waiting = {k: c for k, c in added.items() if delay_binding(c, classes)}
    if not waiting:
        return {}, {}
    found: dict[tuple[str, str], list[PlainObject]] = {}
    # a pre-bound volume is Available: only those are decoded, once for every claim
    for volume in holding(volumes, AVAILABLE):
        ref = spec_of(volume).get("claimRef")
        if isinstance(ref, Mapping):
            key = str(ref.get("namespace") or ""), str(ref.get("name") or "")
            if key in waiting:
                found.setdefault(key, []).append(volume)
    bound: dict[tuple[str, str], PlainObject] = {}
    taken: dict[str, PlainObject] = {}
    for key, candidates in found.items():
        claim = waiting[key]
        chosen = prebound_volume(claim, (v for v in candidates if name_of(v) not in taken))
        if chosen is None:
            continue
        notes = {**annotations_of(claim), BOUND_BY_CONTROLLER: "yes", BIND_COMPLETED: "yes"}
        metadata = {**mapping(claim.get("metadata")), "annotations": notes}
        volume_spec = spec_of(chosen)
        status = {
            "phase": BOUND,
            "accessModes": volume_spec.get("accessModes"),
            "capacity": volume_spec.get("capacity"),
        }
        spec = {**spec_of(claim), "volumeName": name_of(chosen)}
        bound[key] = {**claim, "metadata": metadata, "spec": spec, "status": status}
        taken[name_of(chosen)] = _phase(chosen, BOUND)
    return bound, taken


def run_volumes(
    recorded: Container[str],
    bodies: Iterable[Mapping[str, Any]],
    claims: Mapping[tuple[str, str], PlainObject],
) -> dict[str, PlainObject]:
    """The PersistentVolumes among the run's manifests that the cluster does not hold and
    the API server takes, by name, as the volume controller leaves them once created
    (:func:`synced_volume`) beside ``claims`` (the cluster's and the run's)."""
    shipped: dict[str, PlainObject] = {}
    for body in bodies:
        if body.get("kind") != "PersistentVolume" or body.get("apiVersion") != "v1":
            continue
        name = name_of(body)
        # a volume the API server refuses is never created
        if name and name not in recorded and not persistent_volume_problems(body):
            shipped[name] = synced_volume(created_volume(body), claims)
    return shipped


def created_volume(body: Mapping[str, Any]) -> PlainObject:
    """The volume as the API server stores it when created: its defaults set
    (:func:`gate.k8s.volumes.defaulted_volume`), no namespace (a volume belongs to none:
    ``BeforeCreate`` clears it), none of what the server sets itself kept."""
    metadata = {
        k: v
        for k, v in mapping(body.get("metadata")).items()
        if k not in _SERVER_SET and k != "namespace"
    }
    return defaulted_volume({**body, "metadata": metadata})


def synced_volume(
    volume: PlainObject, claims: Mapping[tuple[str, str], PlainObject]
) -> PlainObject:
    """The new volume as the volume controller's first sync leaves it
    (``pkg/controller/volume/persistentvolume/pv_controller.go`` ``syncVolume``): naming no
    claim, or one by name without its uid (pre-bound), it is Available; naming a claim by
    its uid that does not exist (none of that name, or another of that uid), Released;
    naming an existing claim bound to it, Bound; one not bound yet, Pending (the claim's
    sync binds it); one bound to another volume, unbound (``unbindVolume``): Available,
    pre-bound to the claim, or bound to none when the controller had bound it; a volume
    provisioned for it with the Delete policy, Released (and then deleted)."""
    spec = spec_of(volume)
    ref = spec.get("claimRef")
    if not isinstance(ref, Mapping) or not ref.get("uid"):
        return _phase(volume, AVAILABLE)
    key = str(ref.get("namespace") or ""), str(ref.get("name") or "")
    claim = claims.get(key)
    if claim is None or mapping(claim.get("metadata")).get("uid") != ref["uid"]:
        return _phase(volume, RELEASED)
    bound = spec_of(claim).get("volumeName")
    if not bound:
        return volume
    if bound == name_of(volume):
        return _phase(volume, BOUND)
    notes = annotations_of(volume)
    if PROVISIONED_BY in notes and spec.get("persistentVolumeReclaimPolicy") == "Delete":
        return _phase(volume, RELEASED)
    by_controller = BOUND_BY_CONTROLLER in notes
    unbound = {k: v for k, v in spec.items() if k != "claimRef"}
    if not by_controller:
        unbound["claimRef"] = {k: v for k, v in ref.items() if k != "uid"}
    metadata = dict(mapping(volume.get("metadata")))
    metadata["annotations"] = {k: v for k, v in notes.items() if k != BOUND_BY_CONTROLLER}
    return _phase({**volume, "metadata": metadata, "spec": unbound}, AVAILABLE)


def _phase(volume: PlainObject, phase: str) -> PlainObject:
    return {**volume, "status": {**mapping(volume.get("status")), "phase": phase}}


def run_classes(
    recorded: Container[str], bodies: Iterable[Mapping[str, Any]]
) -> dict[str, PlainObject]:
    """The StorageClasses among the run's manifests that the cluster does not hold, by
    name, as the API server stores them (module doc)."""
    shipped: dict[str, PlainObject] = {}
    for body in bodies:
        if body.get("kind") != "StorageClass" or body.get("apiVersion") != "storage.k8s.io/v1":
            continue
        name = name_of(body)
        if name and name not in recorded:
            shipped[name] = defaulted_class(body)
    return shipped


def statefulset_claims(
    body: Mapping[str, Any],
    claims: Container[tuple[str, str]],
    classes: Mapping[str, PlainObject],
    created: Container[str] = frozenset(),
) -> dict[tuple[str, str], PlainObject]:
    """The claims a StatefulSet's controller creates before its copies
    (``stateful_set_control.go`` ``createPersistentVolumeClaims``): copy i's
    ``<template>-<statefulset>-<i>`` for each ``volumeClaimTemplates`` entry and each
    of its ordinals (``replicas`` of them from ``spec.ordinals.start``), from the
    template's spec, where no claim of that name exists (an existing one is used as it is,
    whatever its class)."""
    metadata = mapping(body.get("metadata"))
    spec = mapping(body.get("spec"))
    statefulset, namespace = metadata.get("name"), metadata.get("namespace") or "default"
    replicas = spec.get("replicas", 1)
    if not isinstance(statefulset, str) or not isinstance(replicas, int):
        return {}
    if replicas > FOLLOWED_COPIES:  # judged as an ERROR, never placed
        return {}
    made = {}
    for template in as_list(spec.get("volumeClaimTemplates")):
        template_meta = mapping(mapping(template).get("metadata"))
        template_name = template_meta.get("name")
        if not isinstance(template_name, str) or not template_name:
            continue
        first = start_ordinal(body)
        for ordinal in range(first, first + max(0, replicas)):
            name = copy_claim(template_name, statefulset, ordinal)
            if (str(namespace), name) in claims:
                continue
            claim = {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {**template_meta, "name": name, "namespace": namespace},
                "spec": mapping(mapping(template).get("spec")),
            }
            made[str(namespace), name] = created_claim(claim, classes, created)
    return made


def refusal(claim: PlainObject) -> str | None:
    """The API server's refusal of a new claim (ValidatePersistentVolumeClaim, apierrors
    NewInvalid), None when it takes it."""
    errors = aggregate(persistent_volume_claim_problems(claim))
    return (
        None if errors is None else invalid_object("PersistentVolumeClaim", name_of(claim), errors)
    )


def pod_uid(namespace: str, pod: str) -> str:
    """The stand-in UID of the run's pod ``pod`` in ``namespace``: what the owner reference
    of its ephemeral volumes' claims names (:func:`owned_by`)."""
    return stand_in_uid("Pod", f"{namespace}/{pod}")


def owned_by(claim: PlainObject, namespace: str, pod: str) -> bool:
    """ephemeral.VolumeIsForPod: the claim is in the pod's namespace and the pod controls it
    (``metav1.IsControlledBy``: its controller reference names the pod's UID). A claim the
    cluster holds already never is: the pod is new, and so is its UID."""
    metadata = mapping(claim.get("metadata"))
    if (metadata.get("namespace") or "default") != namespace:
        return False
    uid = pod_uid(namespace, pod)
    return any(
        mapping(ref).get("controller") is True and mapping(ref).get("uid") == uid
        for ref in as_list(metadata.get("ownerReferences"))
    )


def ephemeral_claims(
    namespace: str,
    pod: str,
    spec: Mapping[str, Any],
    claims: Container[tuple[str, str]],
    classes: Mapping[str, PlainObject],
    created: Container[str] = frozenset(),
) -> dict[tuple[str, str], PlainObject]:
    """The claims the ephemeral volume controller creates for the pod ``pod`` whose spec is
    ``spec`` (``pkg/controller/volume/ephemeral/controller.go`` ``handleVolume``): for each
    generic ephemeral volume, ``<pod>-<volume>`` with the labels and annotations of its
    template's metadata, the template's spec as written and the pod as its controlling
    owner, as the API server stores it created (:func:`created_claim`); none where a claim of
    that name exists (the controller leaves it, and VolumeBinding finds it is not the
    pod's)."""
    made = {}
    for _, volume, template in ephemeral_volumes(spec):
        name = ephemeral_claim(pod, volume)
        if (namespace, name) in claims:
            continue
        template_meta = mapping(template.get("metadata"))
        owner = {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": pod,
            "uid": pod_uid(namespace, pod),
            "controller": True,
            "blockOwnerDeletion": True,
        }
        metadata = {
            "name": name,
            "namespace": namespace,
            "labels": mapping(template_meta.get("labels")),
            "annotations": mapping(template_meta.get("annotations")),
            "ownerReferences": [owner],
        }
        claim = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": metadata,
            "spec": mapping(template.get("spec")),
        }
        made[namespace, name] = created_claim(claim, classes, created)
    return made


def with_ephemeral_claims(
    storage: StorageObjects | None,
    pods: Iterable[tuple[str, str, Mapping[str, Any]]],
    shipped: Container[str] = frozenset(),
) -> StorageObjects | None:
    """The storage objects with the claims of the run's pods' generic ephemeral volumes
    added (:func:`ephemeral_claims`), each pod given as (namespace, name, spec); as they
    were when the snapshot recorded no claims. ``shipped``: the classes the run ships."""
    if storage is None or not storage.knows_claims:
        return storage
    added: dict[tuple[str, str], PlainObject] = {}
    for namespace, pod, spec in pods:
        made = ephemeral_claims(namespace, pod, spec, storage.claims, storage.classes, shipped)
        added.update(made)
    if not added:
        return storage
    return replace(
        storage,
        claims=with_objects(storage.claims, added),
        created=storage.created | frozenset(added),
    )
