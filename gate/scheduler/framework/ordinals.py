"""The copies of a workload whose pod mounts claims: a StatefulSet's after the first, each
with its own claims; the copies of any workload with generic ephemeral volumes, each with
the claims the ephemeral volume controller created for it (``<pod>-<volume>``, its pod named
as :func:`gate.scheduler.framework.pods.copy_name` names it); the copies of any workload
sharing a claim.

Its controller gives the copy of ordinal i the claims ``<template>-<statefulset>-<i>``
(``stateful_set_utils.go`` ``updateStorage``), creating those that do not exist before
the copy (``gate.k8s.claims.statefulset_claims`` adds them to the run's storage objects);
so copy i's pod is the first copy's with other claims, judged by the filters as its own
pod. The ordinals run from ``spec.ordinals.start`` (0 when unset, ``getStartOrdinal``).
Under ``OrderedReady`` (the default ``podManagementPolicy``) a copy starts only once the
one before it runs, so the count stops at the first copy that fits no node, even when a
later one would; under ``Parallel`` every copy is tried.

The copies are placed one by one (``gate.scheduler.engine.claimed``), each against the
cluster as recorded (less the workload's running pods it replaces) beside the copies placed
before it: their room, their domains as the inter-pod PreFilters count them and, where
their claims can take an available volume or count against an attach limit, the volumes
they took.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from gate.k8s.podlabels import copy_labels
from gate.k8s.volumes import (
    delay_binding,
    ephemeral_claim,
    ephemeral_volumes,
    spec_of,
    with_copy_claims,
)
from gate.model import ReplicaFit, WarningKind, Workload, WorkloadWarning
from gate.model.storage import StorageObjects
from gate.scheduler.framework.pods import (
    Pod,
    copy_namer,
    pod_profile,
    template_claims,
    with_ephemeral_of,
    with_volumes_of,
)
from gate.scheduler.framework.profile import PodProfile
from gate.untyped import as_list

READ_WRITE_ONCE, READ_WRITE_ONCE_POD = "ReadWriteOnce", "ReadWriteOncePod"
SHARED_ONCE = (
    'claim "{claim}" is ReadWriteOnce: copies on another node than the first cannot attach '
    "it, which no filter checks (kubelet's attach fails)"
)


BOUND_FIRST = (
    'claim "{claim}" is new, of an Immediate StorageClass (or of none): in a live cluster '
    "the PersistentVolume controller binds it before its pod is scheduled, where its class "
    "provisions (and the pod then follows its volume); fitgate judges it unbound, as the "
    "scheduler meets the pod the moment both are created"
)


def bound_first(
    claims: Iterable[str], namespace: str, storage: StorageObjects
) -> list[WorkloadWarning]:
    """The run's new claims among ``claims`` that VolumeBinding's PreFilter finds unbound
    and not waiting for their first consumer (``pod has unbound immediate
    PersistentVolumeClaims``): a live cluster binds them first."""
    found = []
    for name in claims:
        claim = storage.claims.get((namespace, name))
        if (namespace, name) not in storage.created or claim is None:
            continue
        if not delay_binding(claim, storage.classes):
            found.append(WorkloadWarning(WarningKind.NOT_MODELLED, BOUND_FIRST.format(claim=name)))
    return found


def ordinal_pod(
    pod: Pod,
    workload: Workload,
    ordinal: int,
    relabelled: bool = False,
    names: Callable[[int], str] | None = None,
) -> Pod:
    """Copy ``ordinal``'s pod: the first copy's, mounting its own claims; ``relabelled``:
    with its own labels of those that differ by copy (:func:`gate.k8s.podlabels.copy_labels`),
    its selectors' ``matchLabelKeys`` merged with them again. ``names``: the workload's
    :func:`~gate.scheduler.framework.pods.copy_namer`, made once for a walk over its
    copies."""
    spec = with_copy_claims(pod.spec, workload.claim_templates, workload.name, ordinal)
    if not relabelled:
        profile = with_volumes_of(pod.profile, spec)
    else:
        own = copy_labels(workload.kind, workload.name, ordinal, indexed=workload.indexed)
        labels = {**pod.profile.labels, **own}
        profile = pod_profile(spec, pod.profile.namespace, labels, pinned=pod.profile.pinned)
    if pod.profile.pod_name:  # its generic ephemeral volumes' claims are its own too
        name = (names or copy_namer(workload))(ordinal - workload.first_ordinal)
        profile = with_ephemeral_of(profile, spec, name)
    return Pod(spec, profile, pod.warnings)


def copy_pod_labels(pod: Pod, workload: Workload, ordinal: int) -> Mapping[str, str]:
    """The labels of copy ``ordinal`` of the workload whose first copy is ``pod``."""
    own = copy_labels(workload.kind, workload.name, ordinal, indexed=workload.indexed)
    return {**pod.profile.labels, **own} if own else pod.profile.labels


def ordinal_claims(workload: Workload, ordinal: int) -> str:
    """The claims copy ``ordinal`` mounts, as a report names them."""
    return ", ".join(template_claims(workload, ordinal))


def own_claims(
    workload: Workload,
    pod: PodProfile,
    ordinal: int,
    names: Callable[[int], str] | None = None,
) -> tuple[str, ...]:
    """The claims made for copy ``ordinal`` alone, of the workload whose first copy is
    ``pod``: a StatefulSet's from its templates, and those of its generic ephemeral volumes
    when they are judged (:func:`gate.k8s.claims.ephemeral_claims`). ``names``: as for
    :func:`ordinal_pod`."""
    made = template_claims(workload, ordinal)
    if not pod.pod_name:
        return made
    name = (names or copy_namer(workload))(ordinal - workload.first_ordinal)
    return (*made, *(ephemeral_claim(name, v) for _, v, _ in ephemeral_volumes(workload.pod_spec)))


def ordinals_to_try(workload: Workload) -> range:
    """The ordinals of the copies after the first (``replicas`` of them from the first's)."""
    first = workload.first_ordinal
    return range(first + 1, first + (workload.replicas or 0))


def recounted(placement: ReplicaFit, copies: int) -> ReplicaFit:
    """The placement once its copies, each with its own claims, were counted one by one to
    ``copies``: alone, and beside the run's other new workloads as many fewer as the count
    found there."""
    if copies <= placement.fit:
        return capped(placement, copies)
    short = 0 if placement.together is None else max(0, placement.alone - placement.together)
    return replace(
        placement,
        alone=copies,
        together=None if placement.together is None else max(0, copies - short),
        most=None,
    )


def capped(placement: ReplicaFit, copies: int) -> ReplicaFit:
    """The placement with at most ``copies`` copies."""
    return replace(
        placement,
        alone=min(placement.alone, copies),
        together=None if placement.together is None else min(placement.together, copies),
        most=None if placement.most is None else min(placement.most, copies),
    )


def shared_claims(
    pod: Pod, workload: Workload, storage: StorageObjects
) -> list[tuple[str, set[str]]]:
    """The claims every copy mounts (not a StatefulSet's own), with their access modes."""
    own = set(template_claims(workload, workload.first_ordinal))
    found = []
    for name in pod.profile.claims:
        claim = storage.claims.get((workload.namespace, name))
        if name not in own and claim is not None:
            found.append((name, {str(m) for m in as_list(spec_of(claim).get("accessModes"))}))
    return found


def once_warnings(shared: list[tuple[str, set[str]]]) -> list[WorkloadWarning]:
    """The claims only one node can attach, for a workload of several copies."""
    return [
        WorkloadWarning(WarningKind.NOT_MODELLED, SHARED_ONCE.format(claim=name))
        for name, modes in shared
        if modes == {READ_WRITE_ONCE}
    ]
