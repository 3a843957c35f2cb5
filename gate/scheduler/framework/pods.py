"""Pod preparation: a workload's template -> the pod the scheduler would see -> what the
filters read of it.

The template is completed as the API server would complete the pod
(:mod:`gate.k8s.completion`), a DaemonSet's pods get the tolerations its controller adds,
and the spec is parsed once into a :class:`PodProfile`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import Any

from gate.k8s.completion import complete_pod_spec
from gate.k8s.labels import (
    TAINT_DISK_PRESSURE,
    TAINT_MEMORY_PRESSURE,
    TAINT_NETWORK_UNAVAILABLE,
    TAINT_NOT_READY,
    TAINT_PID_PRESSURE,
    TAINT_UNREACHABLE,
    TAINT_UNSCHEDULABLE,
)
from gate.k8s.matching import (
    NO_EXECUTE,
    NO_SCHEDULE,
    name_narrowing,
    parse_terms,
    preferred_node_terms,
    required_terms,
    scalar_text,
)
from gate.k8s.nodeterms import written_node_affinity
from gate.k8s.podaffinity import POD_AFFINITY, POD_ANTI_AFFINITY, pod_terms, preferred_pod_terms
from gate.k8s.podnames import pod_name, pod_name_admitted
from gate.k8s.podsecurity import (
    POD_CONTROLLER_KINDS,
    LevelVersion,
    enforce_policy,
    warn_policy,
    would_violate,
)
from gate.k8s.ports import pod_host_ports, regular_host_ports
from gate.k8s.quotausage import stored_requests
from gate.k8s.resources import (
    incoming_nonzero_amounts,
    pod_nonzero_amounts,
    pod_request_amounts,
)
from gate.k8s.selectors import SelectorError
from gate.k8s.spread import SCHEDULE_ANYWAY, SpreadConstraint, hard_constraints
from gate.k8s.validation import PodIdentity, with_apparmor_fields
from gate.k8s.version import Dialect
from gate.k8s.volumes import (
    EPHEMERAL,
    claim_names,
    copy_claim,
    ephemeral_claim,
    ephemeral_volumes,
    mounts_of,
    with_copy_claims,
)
from gate.k8s.warnings import CLAIM_TEMPLATES_WARNING, unchecked_warnings
from gate.model import AdmissionObjects, WarningKind, Workload, WorkloadWarning
from gate.model.storage import StorageObjects
from gate.scheduler.framework.profile import PodProfile, frozen

# DaemonSet controller, pkg/controller/daemon/util/daemonset_util.go AddOrUpdateDaemonPodTolerations
DAEMONSET_TOLERATIONS: tuple[tuple[str, str], ...] = (
    (TAINT_NOT_READY, NO_EXECUTE),
    (TAINT_UNREACHABLE, NO_EXECUTE),
    (TAINT_DISK_PRESSURE, NO_SCHEDULE),
    (TAINT_MEMORY_PRESSURE, NO_SCHEDULE),
    (TAINT_PID_PRESSURE, NO_SCHEDULE),
    (TAINT_UNSCHEDULABLE, NO_SCHEDULE),
)
DAEMONSET_HOST_NETWORK_TOLERATION = (TAINT_NETWORK_UNAVAILABLE, NO_SCHEDULE)


@dataclass(frozen=True, slots=True)
class Pod:
    """One workload's pod, ready for the filters: the completed ``spec``, its ``profile``,
    and every warning about it so far (the template's, completion's, what is not checked)."""

    spec: Mapping[str, Any]
    profile: PodProfile
    warnings: tuple[WorkloadWarning, ...]


def daemonset_tolerations(spec: Mapping[str, Any]) -> list[Any]:
    """AddOrUpdateDaemonPodTolerations: Exists tolerations replace same key+effect ones."""
    wanted = list(DAEMONSET_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(DAEMONSET_HOST_NETWORK_TOLERATION)
    current = [t for t in spec.get("tolerations") or [] if isinstance(t, Mapping)]
    for key, effect in wanted:
        current = [t for t in current if not (t.get("key") == key and t.get("effect") == effect)]
        current.append({"key": key, "operator": "Exists", "effect": effect})
    return current


def _text_map(value: object) -> dict[str, str]:
    """A map[string]string as the API server stores it: a null value is the empty string."""
    if not isinstance(value, Mapping):
        return {}
    return {str(k): scalar_text(v) for k, v in value.items()}


def _label_keys(node_selector: Mapping[str, str], terms: list[Any] | None) -> frozenset[str]:
    """Every label key the pod's nodeSelector and required affinity terms read."""
    keys = set(node_selector)
    for term in terms or []:
        expressions = term.get("matchExpressions") if isinstance(term, Mapping) else None
        for expression in expressions if isinstance(expressions, list) else []:
            if isinstance(expression, Mapping):
                keys.add(scalar_text(expression.get("key")))
    return frozenset(keys)


def _soft_spread(
    spec: Mapping[str, Any], labels: Mapping[str, str]
) -> tuple[tuple[SpreadConstraint, ...], str]:
    """The ScheduleAnyway constraints, or why one of their selectors is refused: the score
    alone reads them, and only when it runs, so the error waits for it."""
    try:
        return hard_constraints(spec, labels, SCHEDULE_ANYWAY), ""
    except SelectorError as exc:
        return (), str(exc)


def pod_profile(
    spec: Mapping[str, Any],
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    pinned: bool = False,
) -> PodProfile:
    """What the filters read of a completed pod spec, in ``namespace`` with ``labels``
    (``pinned``: a DaemonSet's pod). Raises QuantityError on a request the scheduler cannot
    hold, SelectorError on a label selector the API server refuses."""
    terms = required_terms(spec)
    node_selector = _text_map(spec.get("nodeSelector"))
    labels = dict(labels or {})
    priority = spec.get("priority")
    listed = spec.get("topologySpreadConstraints")
    soft_spread, soft_spread_error = _soft_spread(spec, labels)
    nonzero = incoming_nonzero_amounts(spec)
    return PodProfile(
        namespace=namespace,
        labels=labels,
        spread=hard_constraints(spec, labels),
        pod_affinity=pod_terms(spec, POD_AFFINITY, namespace, labels),
        pod_anti_affinity=pod_terms(spec, POD_ANTI_AFFINITY, namespace, labels),
        pinned=pinned,
        node_name=str(spec.get("nodeName") or ""),
        tolerations=tuple(t for t in spec.get("tolerations") or [] if isinstance(t, Mapping)),
        node_selector=node_selector,
        affinity_terms=None if terms is None else parse_terms(terms),
        written_terms=frozen(terms),
        wanted_ports=pod_host_ports(spec),
        regular_ports=regular_host_ports(spec),
        dra_requirements=dra_requirements(spec),
        requests=pod_request_amounts(spec),
        label_keys=_label_keys(node_selector, terms),
        by_name=depends_on_name(spec),
        names=name_narrowing(terms) if terms else None,
        nonzero=nonzero,
        bound_nonzero=pod_nonzero_amounts(spec, nonzero),
        priority=priority if isinstance(priority, int) and not isinstance(priority, bool) else None,
        node_affinity=written_node_affinity(spec),
        preferred_node_terms=preferred_node_terms(spec),
        preferred_pod_affinity=preferred_pod_terms(spec, POD_AFFINITY, namespace, labels),
        preferred_pod_anti_affinity=preferred_pod_terms(spec, POD_ANTI_AFFINITY, namespace, labels),
        spread_listed=isinstance(listed, list) and bool(listed),
        soft_spread=soft_spread,
        soft_spread_error=soft_spread_error,
        soft_spread_at=tuple(
            c.get("whenUnsatisfiable") == SCHEDULE_ANYWAY
            for c in (listed if isinstance(listed, list) else [])
            if isinstance(c, Mapping)
        ),
        preemption_policy=str(spec.get("preemptionPolicy") or ""),
        claims=_claims(spec),
        mounts=mounts_of(spec.get("volumes")),
        stored_requests=cache(partial(stored_requests, spec)),
    )


def dra_requirements(spec: Mapping[str, Any]) -> bool:
    """sigs.k8s.io/karpenter v1.8 pkg/utils/pod/scheduling.go ``HasDRARequirements``:
    whether any init container (sidecar or not) or container lists ``resources.claims``; the
    pod's own ``resourceClaims`` alone do not count."""
    for key in ("initContainers", "containers"):
        containers = spec.get(key)
        for container in containers if isinstance(containers, list) else []:
            resources = container.get("resources") if isinstance(container, Mapping) else None
            claims = resources.get("claims") if isinstance(resources, Mapping) else None
            if isinstance(claims, list) and claims:
                return True
    return False


def _claims(spec: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(name for _, name in claim_names(spec))


def with_volumes_of(profile: PodProfile, spec: Mapping[str, Any]) -> PodProfile:
    """``profile`` of a pod whose spec is ``spec``, which differs from the profiled one in
    its volumes alone (what a copy with claims of its own changes): parsed once, the rest
    kept."""
    return replace(profile, claims=_claims(spec), mounts=mounts_of(spec.get("volumes")))


def with_ephemeral_of(profile: PodProfile, spec: Mapping[str, Any], name: str) -> PodProfile:
    """``profile`` of the pod ``name`` whose spec is ``spec``, its generic ephemeral volumes
    reading the claims created for it (``<pod>-<volume>``, ephemeral.VolumeClaimName): its
    ephemeral mounts name their claim, and VolumeBinding reads them among its claims in
    ``volumes``' order. ``profile`` itself for a pod without one."""
    found = ephemeral_volumes(spec)
    if not found:
        return profile
    own = {i: ephemeral_claim(name, volume) for i, volume, _ in found}
    claims = dict(claim_names(spec))
    ordered = tuple(own.get(i) or claims[i] for i in sorted({*own, *claims}))
    mounts = tuple(
        replace(m, disk=ephemeral_claim(name, m.name)) if m.source == EPHEMERAL else m
        for m in mounts_of(spec.get("volumes"))
    )
    return replace(
        profile,
        pod_name=name,
        ephemeral_claims=tuple(own.values()),
        volume_claims=ordered,
        mounts=mounts,
    )


def template_text(workload: Workload) -> str:
    """The text that stands for the workload's pod template (a Deployment's ReplicaSet is
    named by its hash)."""
    return json.dumps(workload.pod_spec, sort_keys=True, default=str)


def copy_namer(workload: Workload, generated: bool = True) -> Callable[[int], str]:
    """:func:`copy_name` of the workload's pods by position, the template's text made once
    for all of them (a walk over its copies names each)."""
    template = template_text(workload)
    name = pod_name if generated else pod_name_admitted
    kind, owner, first, indexed = (
        workload.kind,
        workload.name,
        workload.first_ordinal,
        workload.indexed,
    )
    return lambda position: name(kind, owner, position + first, template, indexed)


def copy_name(workload: Workload, position: int, generated: bool = True) -> str:
    """The name of the workload's pod at ``position`` (0 for the first it creates).
    ``generated`` false: the name before the API server generates one (a mutating
    admission plugin's refusal quotes it)."""
    return copy_namer(workload, generated)(position)


def ephemeral_pods(workload: Workload) -> list[tuple[str, str, Mapping[str, Any]]]:
    """The pods whose generic ephemeral volumes the run's claims are created for, as
    (namespace, name, spec): each copy the workload starts with (a DaemonSet's first pod
    stands for every node's, whose claims differ by name alone); none without such a
    volume."""
    spec = workload.pod_spec
    if not ephemeral_volumes(spec):
        return []
    copies = 1 if workload.kind == "DaemonSet" else max(1, workload.replicas or 0)
    name = copy_namer(workload)
    return [(workload.namespace, name(i), spec) for i in range(copies)]


def depends_on_name(spec: Mapping[str, Any]) -> bool:
    """Whether a node's name decides the answer (``nodeName``, ``matchFields``): then the
    pod is filtered node by node, not per class of nodes."""
    terms = required_terms(spec) or []
    return bool(spec.get("nodeName")) or any(
        isinstance(t, Mapping) and t.get("matchFields") for t in terms
    )


def prepare_pod(
    workload: Workload,
    admission: AdmissionObjects,
    dialect: Dialect,
    namespaces_unknown: bool = False,
    storage: StorageObjects | None = None,
    namespace_labels: Mapping[str, str] | None = None,
) -> Pod:
    """The workload's pod as the scheduler would receive it. Raises AdmissionRefused where
    the API server would refuse it, QuantityError on a request the scheduler cannot hold,
    SelectorError on a label selector it refuses. ``namespaces_unknown``: the snapshot
    recorded no namespaces; ``storage``: its storage objects (a StatefulSet's first copy
    then mounts its own claims when they exist); ``namespace_labels``: its namespace's
    labels, which set the Pod Security levels that check it and warn of it (None: not
    known, not checked)."""
    labels = {**workload.labels, **workload.controller_labels}
    spec, warnings = complete_pod_spec(
        workload.pod_spec,
        workload.namespace,
        admission,
        pod_level_resources=dialect.pod_level_resources,
        labels=labels,
        validated=workload.kind != "StatefulSet",
        identity=(
            PodIdentity(copy_name(workload, 0), workload.service_name, workload.replicas != 0)
            if workload.kind == "StatefulSet"
            else None
        ),
        pod_security=(
            None
            if namespace_labels is None
            else enforce_policy(namespace_labels, dialect.server_minor)
        ),
        annotations=workload.pod_annotations,
    )
    if namespace_labels is not None:
        warn = warn_policy(namespace_labels, dialect.server_minor)
        warnings += pod_security_warning(workload, warn, spec)
    daemonset = workload.kind == "DaemonSet"
    if daemonset:
        spec["tolerations"] = daemonset_tolerations(spec)
    profile = pod_profile(spec, workload.namespace, labels, pinned=daemonset)
    storage_known = storage is not None and storage.knows_claims
    written, own = workload.pod_spec, workload.warnings
    if storage is not None and storage_known and _claims_exist(workload, storage):
        first = workload.first_ordinal
        written = with_copy_claims(written, workload.claim_templates, workload.name, first)
        spec = with_copy_claims(spec, workload.claim_templates, workload.name, first)
        profile = with_volumes_of(profile, spec)
        own = tuple(w for w in own if not w.text.startswith(CLAIM_TEMPLATES_WARNING))
    if storage_known and ephemeral_volumes(spec):
        profile = with_ephemeral_of(profile, spec, copy_name(workload, 0))
    limits_known = storage is not None and "CSINode" in storage.recorded
    unchecked = unchecked_warnings(written, spec, namespaces_unknown, storage_known, limits_known)
    return Pod(spec, profile, (*own, *warnings, *unchecked))


def pod_security_warning(
    workload: Workload, policy: LevelVersion, completed: Mapping[str, Any]
) -> list[WorkloadWarning]:
    """The PodSecurity plugin's warning at the namespace's warn level ``policy`` as the
    workload is written, which kubectl prints (admission/admission.go): a Pod's, once its
    enforce level took it, of the pod as completed and stored (ValidatePod); a
    controller's, of its template as written (ValidatePodController, which only warns:
    a template is not defaulted as a pod is, so hostNetwork gives its ports no hostPort).
    The warnings of a controller's pods reach no one; other kinds are not checked."""
    annotations = workload.pod_annotations
    if workload.kind == "Pod":
        text = would_violate(policy, annotations, with_apparmor_fields(annotations, completed))
    elif workload.kind in POD_CONTROLLER_KINDS:
        text = would_violate(policy, annotations, workload.pod_spec)
    else:
        return []
    return [] if text is None else [WorkloadWarning(WarningKind.ADMISSION, text)]


def template_claims(workload: Workload, ordinal: int) -> tuple[str, ...]:
    """The claims of the StatefulSet's templates that copy ``ordinal`` mounts, in the
    templates' order (:func:`gate.k8s.volumes.copy_claim`)."""
    return tuple(copy_claim(t, workload.name, ordinal) for t in workload.claim_templates)


def _claims_exist(workload: Workload, storage: StorageObjects) -> bool:
    """Whether the StatefulSet's first copy's claims were all recorded: only then are they
    judged (a claim its controller would create from the template is not modelled)."""
    names = template_claims(workload, workload.first_ordinal)
    return bool(names) and all((workload.namespace, n) in storage.claims for n in names)
