"""Warnings for what a template asks of the scheduler that fitgate does not filter on.

A template that uses one of these is never a silent YES: its result names the filter
that was not run (the README's "Limits").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.k8s.resources import is_sidecar
from gate.model import WarningKind, WorkloadWarning
from gate.untyped import as_list, mapping

ZERO_REQUEST = "a zero request fits every node and is evicted later"
DEFAULT_SCHEDULER = "default-scheduler"

# Volume sources the volume filters (VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
# VolumeZone) act on; configMap, secret, emptyDir, hostPath and friends they ignore.
SCHEDULED_VOLUME_SOURCES = (
    "persistentVolumeClaim",
    "ephemeral",
    "csi",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "azureDisk",
    "cinder",
    "rbd",
    "iscsi",
)


CLAIM_TEMPLATES_WARNING = "volumeClaimTemplates:"
"""How the warning of a StatefulSet's claim templates begins: it is dropped when the first
copy's claims were recorded and are judged."""
CLAIM_SOURCE = "persistentVolumeClaim"
VOLUME_FILTERS = "VolumeBinding, VolumeZone, NodeVolumeLimits, VolumeRestrictions"
RECORD_STORAGE = (
    "to check claims, give the snapshot the cluster's PersistentVolumes, "
    "PersistentVolumeClaims and StorageClasses "
    "(kubectl get nodes,pods,pv,pvc,storageclass,csinode,csidriver -A -o json)"
)
CLAIM_TEMPLATES_UNCHECKED = (
    f"{CLAIM_TEMPLATES_WARNING} volume filters ({VOLUME_FILTERS}) not checked; {RECORD_STORAGE}"
)
"""A StatefulSet's claim templates judged without the cluster's storage objects."""
# The sources each filter judges: VolumeRestrictions' disk conflicts against the node's
# pods (volume_restrictions.go needsRestrictionsCheck), NodeVolumeLimits' attach limits
# (the in-tree plugins migrated to CSI, csi.go), which need the CSINodes.
CONFLICT_CHECKED = ("awsElasticBlockStore", "gcePersistentDisk", "iscsi", "rbd")
LIMITED = ("awsElasticBlockStore", "azureDisk", "cinder", "gcePersistentDisk", CLAIM_SOURCE)
RECORD_LIMITS = (
    "attach limits (NodeVolumeLimits) not checked for volumes ({kinds}): give the snapshot "
    "the cluster's CSINodes (kubectl get ...,csinode -o json)"
)
NOT_JUDGED = (
    "volumes ({kinds}) not checked (a generic ephemeral volume's claim is created with its "
    "pod; an inline CSI volume is read by no filter)"
)
EPHEMERAL_SOURCE = "ephemeral"
"""A generic ephemeral volume: judged as the claim created for it when the claims were
recorded (VolumeBinding, NodeVolumeLimits), else not checked."""
CLAIMS_PARTLY = RECORD_LIMITS.format(kinds=CLAIM_SOURCE)
"""The warning of a claim judged without attach limits (the snapshot recorded no CSINodes)."""


def _missing_requests(spec: Mapping[str, Any]) -> list[WorkloadWarning]:
    pod_requests = mapping(mapping(spec.get("resources")).get("requests"))
    containers = [c for c in as_list(spec.get("containers")) if isinstance(c, Mapping)]
    containers += [
        c for c in as_list(spec.get("initContainers")) if isinstance(c, Mapping) and is_sidecar(c)
    ]
    warnings = []
    for container in containers:
        resources = mapping(container.get("resources"))
        requests = mapping(resources.get("requests"))
        limits = mapping(resources.get("limits"))
        missing = [
            r
            for r in ("cpu", "memory")
            if r not in requests and r not in limits and r not in pod_requests
        ]
        if missing:
            name = container.get("name") or "?"
            text = f'container "{name}" has no {" or ".join(missing)} request: {ZERO_REQUEST}'
            warnings.append(WorkloadWarning(WarningKind.ZERO_REQUEST, text))
    return warnings


def _affinity_warnings(spec: Mapping[str, Any], namespaces_unknown: bool) -> list[WorkloadWarning]:
    affinity = mapping(spec.get("affinity"))
    warnings = []
    node_affinity = mapping(affinity.get("nodeAffinity"))
    if node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"):
        warnings.append(
            _not_modelled("preferred node affinity is a score, not a filter: not evaluated")
        )
    for key, plugin in (("podAffinity", "pod affinity"), ("podAntiAffinity", "pod anti-affinity")):
        section = mapping(affinity.get(key))
        if section.get("preferredDuringSchedulingIgnoredDuringExecution"):
            warnings.append(
                _not_modelled(f"preferred {plugin} is a score, not a filter: not evaluated")
            )
        required = as_list(section.get("requiredDuringSchedulingIgnoredDuringExecution"))
        selectors = [mapping(t).get("namespaceSelector") for t in required]
        if namespaces_unknown and any(mapping(s) for s in selectors):
            warnings.append(
                _not_modelled(
                    f"{plugin} namespaceSelector: the snapshot recorded no namespaces, "
                    "so it selects none"
                )
            )
    return warnings


def _spread_warnings(spec: Mapping[str, Any]) -> list[WorkloadWarning]:
    """ScheduleAnyway constraints only score nodes (PodTopologySpread's Score)."""
    constraints = [
        c for c in as_list(spec.get("topologySpreadConstraints")) if isinstance(c, Mapping)
    ]
    keys = sorted(
        {
            str(c.get("topologyKey"))
            for c in constraints
            if c.get("whenUnsatisfiable") == "ScheduleAnyway"
        }
    )
    if not keys:
        return []
    text = f"topology spread over {', '.join(keys)} with ScheduleAnyway is a score, "
    return [_not_modelled(text + "not a filter: not evaluated")]


def _volume_warnings(
    spec: Mapping[str, Any], storage_known: bool, limits_known: bool
) -> list[WorkloadWarning]:
    """What the volume filters cannot judge of the template's volumes: a claim without the
    claims, volumes and classes recorded; an attach limit without the CSINodes; a generic
    ephemeral volume without the claims recorded (its claim is judged as the one created
    for its pod otherwise), an inline CSI volume, whose count no filter reads."""
    volumes = [v for v in as_list(spec.get("volumes")) if isinstance(v, Mapping)]
    kinds = sorted({k for v in volumes for k in SCHEDULED_VOLUME_SOURCES if k in v})
    warnings = []
    if CLAIM_SOURCE in kinds and not storage_known:
        text = f"volumes ({CLAIM_SOURCE}) not checked ({VOLUME_FILTERS} need the claims)"
        warnings.append(_not_modelled(f"{text}; {RECORD_STORAGE}"))
        kinds.remove(CLAIM_SOURCE)
    claimed = (*LIMITED, EPHEMERAL_SOURCE) if storage_known else LIMITED
    unjudged = [k for k in kinds if k not in CONFLICT_CHECKED and k not in claimed]
    if unjudged:
        warnings.append(_not_modelled(NOT_JUDGED.format(kinds=", ".join(unjudged))))
    limited = [k for k in kinds if k in claimed]
    if limited and not limits_known:
        warnings.append(_not_modelled(RECORD_LIMITS.format(kinds=", ".join(limited))))
    return warnings


def _not_modelled(text: str) -> WorkloadWarning:
    return WorkloadWarning(WarningKind.NOT_MODELLED, text)


def _scheduling(text: str) -> WorkloadWarning:
    return WorkloadWarning(WarningKind.SCHEDULING, text)


def scheduling_gates(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of the template's scheduling gates, in their order. The SchedulingGates
    PreEnqueue plugin holds such a pod out of the scheduling queue until the controller that
    owns each gate removes it; the pod is then scheduled as any other, so it is judged as it
    will be then, and its result names the gates (no warning: the verdict says it).

    >>> scheduling_gates({"schedulingGates": [{"name": "example.com/quota-check"}, {}]})
    ('example.com/quota-check',)
    """
    gates = (mapping(g).get("name") for g in as_list(spec.get("schedulingGates")))
    return tuple(g for g in gates if isinstance(g, str) and g)


def unchecked_warnings(
    spec: Mapping[str, Any],
    completed: Mapping[str, Any] | None = None,
    namespaces_unknown: bool = False,
    storage_known: bool = False,
    limits_known: bool = False,
) -> list[WorkloadWarning]:
    """Warnings for the template as written, in a fixed order; missing requests are judged
    on the ``completed`` spec when given, where a LimitRange default is a request.
    ``namespaces_unknown``: the snapshot recorded no namespaces (their labels unknown);
    ``storage_known``: it recorded the claims, volumes and classes (the volume plugins
    judge ``persistentVolumeClaim`` volumes); ``limits_known``: it recorded the CSINodes
    (NodeVolumeLimits counts attach limits)."""
    requests_from = spec if completed is None else completed
    warnings = _missing_requests(requests_from) + _affinity_warnings(spec, namespaces_unknown)
    warnings += _spread_warnings(spec)
    warnings += _volume_warnings(spec, storage_known, limits_known)
    if spec.get("resourceClaims"):
        warnings.append(
            _not_modelled("resource claims not checked (DynamicResources filter not modelled)")
        )
    scheduler = spec.get("schedulerName")
    if scheduler and scheduler != DEFAULT_SCHEDULER:
        warnings.append(
            _scheduling(f'schedulerName "{scheduler}": evaluated with default-scheduler rules')
        )
    if spec.get("nodeName"):
        warnings.append(
            _scheduling(
                "spec.nodeName is set: such a pod bypasses kube-scheduler and the kubelet admits it"
            )
        )
    return warnings
