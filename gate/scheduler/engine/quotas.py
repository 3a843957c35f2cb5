"""A workload's count once its namespace's ResourceQuotas have admitted its pods.

The API server admits a controller's pods one after another (:mod:`gate.k8s.quotaledger`);
a pod it refuses is never created, never Pending: the rollout just stops there. So the pods
that count are those created, and then placed: ``PARTIAL 2 of 3`` with the refusal of the
3rd as its message, or ``NO`` when not even the first is created (or the object itself is
refused by an object-count quota).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from gate.k8s.quotaledger import Admitted, QuotaLedger
from gate.k8s.volumes import PlainObject, ephemeral_claim, ephemeral_volumes
from gate.model import Quota, Verdict, WarningKind, Workload, WorkloadResult, WorkloadWarning
from gate.model.storage import StorageObjects
from gate.scheduler.engine.preemption import evicted
from gate.scheduler.framework.pods import copy_name, copy_namer, template_claims
from gate.scheduler.plugins.defaultpreemption import Victim

_CAPPED = frozenset({Verdict.YES, Verdict.SCALES, Verdict.PREEMPTS})
"""Verdicts that say every wanted pod lands (some by preemption): with fewer created, they
become PARTIAL."""


def new_claims(
    workload: Workload, storage: StorageObjects | None, wanted: int
) -> list[list[tuple[str, PlainObject]]] | None:
    """For each of a StatefulSet's ``wanted`` copies, the claims of its templates its
    controller creates before the copy's pod, by name (those of the run's,
    :func:`_created`); None when it creates none, or
    when the snapshot did not record the claims (then whether one exists is unknown)."""
    if not workload.claim_templates or storage is None or not storage.knows_claims:
        return None
    namespace, first = workload.namespace, workload.first_ordinal
    found: list[list[tuple[str, PlainObject]]] = []
    for ordinal in range(first, first + wanted):
        found.append(_created(storage, namespace, template_claims(workload, ordinal)))
    return found if any(found) else None


def _created(
    storage: StorageObjects, namespace: str, names: Iterable[str]
) -> list[tuple[str, PlainObject]]:
    """The claims among ``names`` that the run creates, by name: a claim the cluster holds
    is used as it is, and charged nothing."""
    return [(n, storage.claims[namespace, n]) for n in names if (namespace, n) in storage.created]


CLAIM_FAILED = (
    "create Claim {claim} for Pod {pod} in StatefulSet {statefulset} failed error: {error}"
)
"""stateful_pod_control.go recordClaimEvent: the controller's event when it fails to create
a copy's claim."""


def refused_claim(
    workload: Workload, storage: StorageObjects | None, wanted: int
) -> tuple[int, str] | None:
    """The first of a StatefulSet's ``wanted`` copies (its position) whose claim the API
    server refuses (:attr:`StorageObjects.refused`), with the controller's event for it (of
    the copy's first such claim, in the templates' order); None when every one is created.
    ``CreateStatefulPod`` creates the copy's claims before its pod and returns their error
    before the pod: that copy, and every one after it, never starts."""
    if not workload.claim_templates or storage is None or not storage.refused:
        return None
    namespace, first = workload.namespace, workload.first_ordinal
    for position in range(wanted):
        for name in template_claims(workload, first + position):
            error = storage.refused.get((namespace, name))
            if error is not None:
                pod = copy_name(workload, position)
                event = CLAIM_FAILED.format(
                    claim=name, pod=pod, statefulset=workload.name, error=error
                )
                return position, event
    return None


def claim_stopped(admitted: Admitted | None, position: int, message: str) -> Admitted:
    """``admitted`` (the copies before ``position`` against the quotas, None when no quota
    counted them) once the copy at ``position`` stops on a refused claim: a quota that
    refused an earlier copy speaks first; else every copy before it is created, and the
    claim's refusal is the message."""
    if admitted is not None and admitted.created < position:
        return admitted
    if admitted is None:
        return Admitted(position, (), message, room=position)
    room = None if admitted.room is None else min(admitted.room, position)
    return Admitted(position, admitted.quotas, message, room=room)


def ephemeral_new_claims(
    workload: Workload, storage: StorageObjects | None, wanted: int, first: str
) -> list[list[tuple[str, PlainObject]]]:
    """For each of the workload's ``wanted`` pods, the claims the ephemeral volume
    controller creates for it after it (``controller.go`` ``handleVolume``), by name: those
    the run made (:func:`gate.k8s.claims.ephemeral_claims`; a DaemonSet's first pod, named
    ``first``, stands for every node's, each of whose claims is charged alike)."""
    if storage is None:
        return []
    volumes = [v for _, v, _ in ephemeral_volumes(workload.pod_spec)]
    namespace, found = workload.namespace, []
    name = copy_namer(workload)
    for position in range(wanted):
        pod = first if workload.kind == "DaemonSet" else name(position)
        found.append(_created(storage, namespace, (ephemeral_claim(pod, v) for v in volumes)))
    return found


def admit_ephemeral(
    book: QuotaLedger,
    namespace: str,
    claims: Sequence[Sequence[tuple[str, PlainObject]]],
    admitted: Admitted | None,
    wanted: int,
) -> Admitted | None:
    """The created pods' ephemeral claims (``claims``, one entry a pod) against the
    quotas, after the pods: a pod whose claim is refused exists, and takes its quota, but
    never schedules (VolumeBinding waits for the claim), so the copies that count stop at
    the first such pod, and the claim's refusal is the message. Raises QuantityError."""
    created = wanted if admitted is None else admitted.created
    names = set(() if admitted is None else admitted.quotas)
    stopped: Admitted | None = None
    usable = created
    for position in range(min(created, len(claims))):
        counted, refusal = book.admit_claims(namespace, claims[position])
        names.update(counted)
        if stopped is None and refusal is not None:
            stopped, usable = refusal, position
    if not names:
        return admitted
    if stopped is None:
        found = admitted or Admitted(created, ())
        return replace(found, quotas=tuple(sorted(names)))
    room = None if admitted is None or admitted.room is None else min(admitted.room, usable)
    return Admitted(usable, tuple(sorted(names)), stopped.message, stopped.refused_by, room=room)


def quota_of(admitted: Admitted) -> Quota | None:
    """The report's part: the refusing quota, else every quota that counted the pods; none
    when no quota counted them (a copy stopped by a claim the API server refuses)."""
    if not admitted.quotas and admitted.refused_by is None:
        return None
    named = admitted.refused_by or ", ".join(admitted.quotas)
    return Quota(created=admitted.created, quota=named, message=admitted.message)


def limited(result: WorkloadResult, admitted: Admitted, wanted: int) -> WorkloadResult:
    """``result`` (of the ``admitted.created`` pods created) for the ``wanted`` pods: a
    count that every created pod placed becomes ``PARTIAL``, its message the refusal of the
    first pod not created; a result short of the created pods keeps the scheduler's message
    for the first that does not land, which comes before the refused one."""
    placed, created = result.placement, admitted.created
    placement = None
    if placed is not None:  # a DaemonSet's count is of nodes: no more than it created
        together = None if placed.together is None else min(placed.together, created)
        alone = min(placed.alone, created)
        placement = replace(placed, wanted=wanted, alone=alone, together=together)
    replicas = None if result.replicas is None else wanted
    limited_result = replace(
        result, replicas=replicas, placement=placement, quota=quota_of(admitted)
    )
    if created < wanted and result.verdict in _CAPPED:
        return replace(limited_result, verdict=Verdict.PARTIAL, message=admitted.message)
    return limited_result


def pinned_created(
    result: WorkloadResult, pinned: Sequence[Sequence[Victim]], created: int
) -> WorkloadResult:
    """A DaemonSet's ``result`` once the quotas let its controller create ``created`` of its
    pods, ``pinned`` the victims of each of its pods placed by preemption, in node order.
    Its controller creates the pods in slow-start batches, on its nodes in no set order
    (``daemon_controller.go`` syncNodes), so which nodes' pods exist is not known: the
    evictions are those of no more pods than it created (the first such nodes in node
    order), and a warning says how many of its pods evict at least and at most."""
    placed = result.placement
    if not pinned or placed is None or created >= placed.wanted:
        return result
    most = min(created, len(pinned))
    # the nodes its pod takes without evicting, or never takes, may hold every created pod
    least = max(0, created - (placed.wanted - len(pinned)))
    chosen = [victim for victims in pinned[:most] for victim in victims]
    return replace(
        result,
        preemption=evicted(chosen, most) if most else None,
        warnings=(*result.warnings, _unknown_nodes(created, placed.wanted, least, most)),
    )


def _unknown_nodes(created: int, wanted: int, least: int, most: int) -> WorkloadWarning:
    evicting = f"{most}" if least == most else f"{least} to {most}"
    return WorkloadWarning(
        WarningKind.PREEMPTION,
        f"the DaemonSet's controller creates {created} of its {wanted} pods, in slow-start "
        "batches on nodes in no set order: which nodes' pods are created is not known, so "
        f"{evicting} of them land by evicting pods of lower priority (those named evict on "
        "the first such nodes in node order)",
    )


def refused(result: WorkloadResult, admitted: Admitted, wanted: int) -> WorkloadResult:
    """A workload none of whose pods is created: ``NO``, with the API server's refusal.
    ``result`` is the workload judged as wanting none; no pod reaches the scheduler, so no
    node has an outcome for it, and the warning of what a scaled-up pod would meet is
    dropped; no pod of it evicts another."""
    placed = result.placement
    warnings = [w for w in result.warnings if w.kind is not WarningKind.IF_SCALED_UP]
    if admitted.held:
        warnings.append(_stalled(admitted.held))
    return replace(
        result,
        verdict=Verdict.NO,
        message=admitted.message,
        nodes=(),
        cause=None,
        preemption=None,
        replicas=None if result.replicas is None else wanted,
        placement=None if placed is None else replace(placed, wanted=wanted, alone=0),
        quota=quota_of(admitted),
        warnings=tuple(warnings),
    )


def _stalled(running: int) -> WorkloadWarning:
    return WorkloadWarning(
        WarningKind.ROLLOUT,
        f"the rollout cannot start: maxUnavailable 0 keeps its {running} running pod(s) until a "
        "new one is ready, and the namespace's quota has no room for a new pod beside them",
    )
