"""Complete a pod template as the API server completes a created pod.

A rendered manifest has not been through the API server, so before filtering we apply
what it would apply (docs/reference.md, "What is checked"):

* defaulting (``pkg/apis/core/v1/defaults.go``): container requests default to limits,
  ``hostNetwork`` host ports default to container ports, pod-level requests default;
* the pod strategy's PrepareForCreate, which merges matchLabelKeys into the selectors of
  pod affinity terms and topology spread constraints: only for the validation below (the
  scheduler's plugins read matchLabelKeys themselves);
* admission: LimitRanger (each LimitRange's defaults in turn; then their min, max and
  ratio checks, :mod:`gate.k8s.limitranger`), Priority (the PriorityClass's priority and
  preemptionPolicy, :mod:`gate.k8s.priority`), RuntimeClass (overhead, scheduling nodeSelector
  and tolerations; an overhead the pod writes must be the class's), DefaultTolerationSeconds
  (not-ready/unreachable);
* ValidatePod, which runs between the mutating and the validating admission plugins, on
  what the completion changed (the LimitRange defaults, the host ports, the merged
  selectors, the pod-level requests) and what a pod is held to and no template is (its
  images' spaces, a node named beside scheduling gates), or on the whole pod of a
  StatefulSet, whose API leaves its template's pod spec to its pods; every error listed as
  NewInvalid lists them.

Only the parts of the spec that change are copied; the input is never mutated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from gate.errors import QuantityError
from gate.k8s.labels import TAINT_NOT_READY, TAINT_UNREACHABLE
from gate.k8s.limitranger import accepted, range_defaults, range_violations
from gate.k8s.matching import NO_EXECUTE, scalar_text
from gate.k8s.podaffinity import PREFERRED, REQUIRED
from gate.k8s.podsecurity import LevelVersion, violation
from gate.k8s.priority import PriorityRefused, admit_priority
from gate.k8s.quantity import exact_text, parse_quantity
from gate.k8s.quota import forbidden
from gate.k8s.quotausage import HUGEPAGES, aggregate_limits, aggregate_requests
from gate.k8s.resources import (
    overcommit_allowed,
    pod_level_resource,
)
from gate.k8s.selectors import text_labels
from gate.k8s.validation import (
    PodIdentity,
    aggregate,
    host_port_conflicts,
    label_keys,
    pod_create_problems,
    pod_only_problems,
    pod_resource_consistency,
    pod_volume_problems,
    resource_requirements,
    to_milli,
)
from gate.model import AdmissionObjects, WarningKind, WorkloadWarning
from gate.untyped import mapping

Spec = dict[str, Any]


class AdmissionRefused(Exception):
    """An admission plugin would refuse to create the pod, or the pod the mutating plugins
    made would fail its validation (``invalid``): ``error`` is the API server's text after
    the pod's name, which :meth:`message` puts in. ``mutating``: a mutating plugin refuses
    it, before the API server generates a controller's pod its name, so the refusal names
    the pod by its ``generateName``."""

    def __init__(self, error: str, invalid: bool = False, mutating: bool = False) -> None:
        super().__init__(error)
        self.error, self.invalid, self.mutating = error, invalid, mutating

    def message(self, pod: str) -> str:
        """apierrors.NewForbidden's message (``pods "web-0" is forbidden: <error>``), or
        NewInvalid's for the pod's validation (``Pod "web-0" is invalid: <errors>``)."""
        return (
            f'Pod "{pod}" is invalid: {self.error}'
            if self.invalid
            else forbidden("pods", pod, self.error)
        )


DEFAULT_TOLERATION_KEYS = (TAINT_NOT_READY, TAINT_UNREACHABLE)


def _decoded_container(container: Mapping[str, Any], host_network: bool) -> dict[str, Any]:
    """SetDefaults_Pod/PodSpec for one container: a limit without a request is also the
    request, and under hostNetwork a port's hostPort defaults to its containerPort."""
    completed = dict(container)
    resources = mapping(container.get("resources"))
    limits = dict(mapping(resources.get("limits")))
    requests = dict(mapping(resources.get("requests")))
    for name, value in limits.items():
        requests.setdefault(name, value)
    completed["resources"] = {**resources, "limits": limits, "requests": requests}
    ports = container.get("ports")
    if host_network and isinstance(ports, list):
        completed["ports"] = [_host_network_port(p) for p in ports]
    return completed


def _limit_range_defaults(
    container: dict[str, Any], defaults: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """LimitRanger admission (mergeContainerResources, one LimitRange after another): missing
    limits and requests, each from the first LimitRange that has a default for it."""
    resources = mapping(container.get("resources"))
    limits = dict(mapping(resources.get("limits")))
    requests = dict(mapping(resources.get("requests")))
    for item in defaults:
        for name, value in mapping(item.get("default")).items():
            limits.setdefault(name, value)
        for name, value in mapping(item.get("defaultRequest")).items():
            requests.setdefault(name, value)
    return {**container, "resources": {**resources, "limits": limits, "requests": requests}}


def _rounded_to_milli(resources: object) -> object:
    """SetDefaults_ResourceList: every quantity rounded up (away from zero) to a whole
    number of thousandths, as the API server stores it: two containers of ``0.5m`` cpu
    are stored as ``1m`` each and request 2m together."""
    if not isinstance(resources, Mapping):
        return resources
    return {name: _rounded_quantity(value) for name, value in resources.items()}


def _rounded_quantity(value: object) -> object:
    try:
        return _rounded_hashable(value)
    except TypeError:  # not a quantity at all: reported when the requests are read
        return value


@lru_cache(maxsize=4096, typed=True)
def _rounded_hashable(value: object) -> object:
    if value is None:
        return value
    try:
        q = parse_quantity(value)
    except QuantityError:  # reported when the requests are read
        return value
    stored = to_milli(q)
    return value if stored == q else exact_text(stored)


def _round_resource_lists(spec: Spec) -> None:
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        for container in items if isinstance(items, list) else []:
            resources = container.get("resources") if isinstance(container, dict) else None
            if isinstance(resources, dict):
                for field_name in ("limits", "requests"):
                    if field_name in resources:
                        resources[field_name] = _rounded_to_milli(resources[field_name])
    if "overhead" in spec:
        spec["overhead"] = _rounded_to_milli(spec["overhead"])
    resources = spec.get("resources")
    if isinstance(resources, Mapping):
        spec["resources"] = {
            **resources,
            **{
                f: _rounded_to_milli(resources[f]) for f in ("limits", "requests") if f in resources
            },
        }


def _host_network_port(port: object) -> object:
    if isinstance(port, Mapping) and not port.get("hostPort"):
        return {**port, "hostPort": port.get("containerPort")}
    return port


def _pod_level_defaults(spec: Spec) -> None:
    """defaultHugePagePodLimits, then defaultPodRequests (pkg/apis/core/v1/defaults.go),
    once the pod sets pod-level resources. A hugepage size the containers limit, which the
    pod neither limits nor requests, takes their aggregate limit as its pod-level limit.
    Then, with a pod-level limit, a pod-level request left unset defaults to what the
    containers request for it in aggregate (every overcommittable pod-level resource they
    request, limited at pod level or not), else to the pod-level limit; hugepages, which
    cannot be overcommitted, only to the limit. It runs while the request is decoded,
    before any admission plugin adds LimitRange defaults to the containers: a request a
    LimitRange later gives a container is not in it. The aggregate keeps its Quantity's
    format (``DeepCopy``): two containers of ``1Gi`` default it to ``2Gi``."""
    resources = spec.get("resources")
    if not isinstance(resources, Mapping):
        return
    limits = dict(mapping(resources.get("limits")))
    requests = dict(mapping(resources.get("requests")))
    if not limits and not requests:
        return
    pages = {
        name: str(amount)
        for name, amount in aggregate_limits(spec).items()
        if name.startswith(HUGEPAGES) and name not in requests and name not in limits
    }
    if pages:
        resources = {**resources, "limits": {**limits, **pages}}
        limits.update(pages)
        spec["resources"] = resources
    if not limits:
        return
    for name, amount in aggregate_requests(spec).items():
        if name not in requests and pod_level_resource(name) and overcommit_allowed(name):
            requests[name] = str(amount)
    for name, value in limits.items():
        if pod_level_resource(name) and name not in requests:
            requests[name] = value
    spec["resources"] = {**resources, "requests": requests}


def _default_tolerations(tolerations: list[Any]) -> list[Any]:
    """DefaultTolerationSeconds: add not-ready/unreachable NoExecute for 300s unless a
    toleration with that key (or an empty key) and NoExecute (or empty) effect exists."""
    added = []
    for key in DEFAULT_TOLERATION_KEYS:
        covered = any(
            isinstance(t, Mapping)
            and (t.get("key") or "") in ("", key)
            and (t.get("effect") or "") in ("", NO_EXECUTE)
            for t in tolerations
        )
        if not covered:
            added.append(
                {"key": key, "operator": "Exists", "effect": NO_EXECUTE, "tolerationSeconds": 300}
            )
    return tolerations + added


def _admission(text: str) -> WorkloadWarning:
    return WorkloadWarning(WarningKind.ADMISSION, text)


def _runtime_class(
    spec: Spec, admission: AdmissionObjects, warnings: list[WorkloadWarning]
) -> None:
    name = spec.get("runtimeClassName")
    if not name:
        return
    runtime_class = admission.runtime_classes.get(str(name))
    if runtime_class is None:
        if admission.has_runtime_classes:  # prepareObjects: the class must exist
            raise AdmissionRefused(f'pod rejected: RuntimeClass "{name}" not found', mutating=True)
        else:
            warnings.append(
                _admission(f'RuntimeClass "{name}": overhead not applied (snapshot has none)')
            )
        return
    if runtime_class.get("overhead") is not None:  # setOverhead
        fixed = mapping(mapping(runtime_class.get("overhead")).get("podFixed"))
        if spec.get("overhead") is not None and not _same_amounts(fixed, spec["overhead"]):
            raise AdmissionRefused(_MISMATCH, mutating=True)
        if fixed and not spec.get("overhead"):
            spec["overhead"] = dict(fixed)
    scheduling = mapping(runtime_class.get("scheduling"))
    selector = mapping(scheduling.get("nodeSelector"))
    if selector:
        own = mapping(spec.get("nodeSelector"))
        for key, value in selector.items():
            if key in own and scalar_text(own[key]) != scalar_text(value):
                raise AdmissionRefused(
                    "conflict: "
                    f"runtimeClass.scheduling.nodeSelector[{key}] = {scalar_text(value)}; "
                    f"pod.spec.nodeSelector[{key}] = {scalar_text(own[key])}",
                    mutating=True,
                )
        spec["nodeSelector"] = {**own, **selector}
    extra = scheduling.get("tolerations")
    if isinstance(extra, list):
        current = list(spec.get("tolerations") or [])
        spec["tolerations"] = current + [t for t in extra if t not in current]


def _containers_made_invalid(
    written: Mapping[str, Any],
    undefaulted: Mapping[str, object],
    completed: Spec,
    limit_range_defaults: bool,
) -> list[str]:
    """ValidatePod, which runs after the mutating admission plugins, on the containers
    the completion changed: a request above the default limit a LimitRange gave beside it,
    and a host port the hostNetwork defaults made twice (AccumulateUniqueHostPorts). The
    template as written was validated when it was read, so only an error it did not have is
    new (a request against its state before the LimitRange defaults, a host port against
    the written one), in validateContainers' then validateInitContainers' order."""
    ports = completed.get("hostNetwork") is True
    if not limit_range_defaults and not ports:
        return []
    known = set(_container_errors(undefaulted, limit_range_defaults, False))
    known |= set(_container_errors(written, False, ports))
    found = _container_errors(completed, limit_range_defaults, ports)
    return [e for e in found if e not in known]


def _container_errors(spec: Mapping[str, Any], resources: bool, ports: bool) -> list[str]:
    """validateContainers' and validateInitContainers' errors of the containers' resources
    (``resources``) and host ports (``ports``): each container's resources, the regular
    containers' host ports together after them, an init container's alone after its own."""
    errors: list[object] = []
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        listed = (
            [c if isinstance(c, Mapping) else {} for c in items] if isinstance(items, list) else []
        )
        for index, container in enumerate(listed):
            if resources:
                errors += _requirement_errors(container, f"spec.{key}[{index}].resources")
            if ports and key == "initContainers":
                errors += host_port_conflicts([container], f"spec.{key}")
        if ports and key == "containers":
            errors += host_port_conflicts(listed, f"spec.{key}")
    return [str(e) for e in errors]


def _newly_inconsistent(written: Mapping[str, Any], completed: Spec) -> list[str]:
    """validatePodResourceConsistency on the pod as ValidatePod sees it, after the defaults
    applied while it is decoded (SetDefaults_Pod: a container's requests from its limits,
    the pod-level requests) and the LimitRange defaults: the errors the written template
    did not have."""
    if not isinstance(completed.get("resources"), Mapping):
        return []
    known = set(_consistency_errors(written))
    return [e for e in _consistency_errors(completed) if e not in known]


def _merged_label_keys(spec: Mapping[str, Any], labels: Mapping[str, str]) -> list[str]:
    """The pod strategy's PrepareForCreate (mutatePodAffinity, then
    mutateTopologySpreadConstraints with MatchLabelKeysInPodTopologySpreadSelectorMerge, on
    from v1.34) adds to a term's or constraint's labelSelector an expression ``key In
    (value)`` for each of its matchLabelKeys the pod's labels hold (``NotIn`` for
    mismatchLabelKeys); ValidatePodCreate then finds a key its matchLabels named again: the
    errors the template, validated unmerged, did not have, in validateAffinity's order
    (podAffinity, podAntiAffinity; required terms, then weighted) and then the
    constraints'."""
    found: list[str] = []
    for term, where, merged in _merged_terms(spec, labels):
        known = {str(e) for e in label_keys(term, where, term.get("labelSelector"))}
        found += [
            e
            for e in map(str, label_keys(merged, where, merged["labelSelector"]))
            if e not in known
        ]
    return found


def with_merged_label_keys(spec: Mapping[str, Any], labels: Mapping[str, str]) -> Spec:
    """The spec PrepareForCreate makes of ``spec`` for a pod labelled ``labels``: each
    term's and constraint's matchLabelKeys (and mismatchLabelKeys) merged into its
    labelSelector (:func:`_merged_label_keys`), the rest as it is."""
    merged: Spec = dict(spec)
    terms = {where: term for _, where, term in _merged_terms(spec, labels)}
    if not terms:
        return merged
    affinity = dict(mapping(spec.get("affinity")))
    for kind in ("podAffinity", "podAntiAffinity"):
        if not isinstance(affinity.get(kind), Mapping):
            continue
        block = dict(affinity[kind])
        for side in (REQUIRED, PREFERRED):
            items = block.get(side)
            if not isinstance(items, list):
                continue
            copied: list[Any] = []
            for i, item in enumerate(items):
                where = f"spec.affinity.{kind}.{side}[{i}]"
                if side == PREFERRED and isinstance(item, Mapping):
                    term = terms.get(f"{where}.podAffinityTerm")
                    item = item if term is None else {**item, "podAffinityTerm": term}
                else:
                    item = terms.get(where, item)
                copied.append(item)
            block[side] = copied
        affinity[kind] = block
    if "affinity" in spec:
        merged["affinity"] = affinity
    constraints = spec.get("topologySpreadConstraints")
    if isinstance(constraints, list):
        merged["topologySpreadConstraints"] = [
            {**c, "labelSelector": terms[f"spec.topologySpreadConstraints[{i}]"]["labelSelector"]}
            if f"spec.topologySpreadConstraints[{i}]" in terms
            else c
            for i, c in enumerate(constraints)
        ]
    return merged


def _merged_terms(
    spec: Mapping[str, Any], labels: Mapping[str, str]
) -> Iterable[tuple[Mapping[str, Any], str, dict[str, Any]]]:
    """Each term and constraint of ``spec`` that PrepareForCreate changes, as (the term,
    its field, the term merged), in validateAffinity's order and then the constraints'."""
    affinity = mapping(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        block = mapping(affinity.get(kind))
        required = block.get(REQUIRED)
        for i, term in enumerate(required if isinstance(required, list) else []):
            where = f"spec.affinity.{kind}.{REQUIRED}[{i}]"
            yield from _merged_term(mapping(term), where, labels)
        preferred = block.get(PREFERRED)
        for i, weighted in enumerate(preferred if isinstance(preferred, list) else []):
            where = f"spec.affinity.{kind}.{PREFERRED}[{i}].podAffinityTerm"
            yield from _merged_term(
                mapping(mapping(weighted).get("podAffinityTerm")), where, labels
            )
    constraints = spec.get("topologySpreadConstraints")
    for i, constraint in enumerate(constraints if isinstance(constraints, list) else []):
        keys = {k: mapping(constraint).get(k) for k in ("labelSelector", "matchLabelKeys")}
        yield from _merged_term(keys, f"spec.topologySpreadConstraints[{i}]", labels)


def _merged_term(
    term: Mapping[str, Any], field: str, labels: Mapping[str, str]
) -> Iterable[tuple[Mapping[str, Any], str, dict[str, Any]]]:
    """applyMatchLabelKeysAndMismatchLabelKeys (applyMatchLabelKeys for a constraint, which
    has no mismatchLabelKeys and whose own are merged alone)."""
    selector = term.get("labelSelector")
    if not isinstance(selector, Mapping):  # a nil selector is left as it is
        return
    added = [
        {"key": key, "operator": operator, "values": [labels[key]]}
        for side, operator in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn"))
        for key in _texts(term.get(side))
        if key in labels
    ]
    if not added:
        return
    expressions = selector.get("matchExpressions")
    written = expressions if isinstance(expressions, list) else []
    merged = {**selector, "matchExpressions": [*written, *added]}
    yield term, field, {**term, "labelSelector": merged}


def _texts(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _consistency_errors(spec: Mapping[str, Any]) -> list[str]:
    if not isinstance(spec.get("resources"), Mapping):
        return []
    return [str(e) for e in pod_resource_consistency(spec, "spec.resources")]


def _requirement_errors(container: Mapping[str, Any], field: str) -> list[object]:
    return list(resource_requirements(mapping(container.get("resources")), field, False))


def with_run_runtime_classes(
    admission: AdmissionObjects, bodies: Iterable[Mapping[str, Any]]
) -> AdmissionObjects:
    """The snapshot's RuntimeClasses and those among the run's manifests, which are applied
    with the workloads that name them (a chart ships its class beside them): a run's class
    replaces a recorded one of its name."""
    shipped = {
        str(name): body
        for body in bodies
        if body.get("kind") == "RuntimeClass"
        and str(body.get("apiVersion", "")).startswith("node.k8s.io/")
        and (name := mapping(body.get("metadata")).get("name"))
    }
    if not shipped:
        return admission
    return replace(admission, runtime_classes={**admission.runtime_classes, **shipped})


def with_run_limit_ranges(
    admission: AdmissionObjects, bodies: Iterable[Mapping[str, Any]]
) -> AdmissionObjects:
    """The snapshot's LimitRanges and those among the run's manifests: a LimitRange applied
    with a namespace's workloads is in force for the pods their controllers create after
    it, if the API server takes it (:func:`~gate.k8s.limitranger.accepted`). A run's
    LimitRange replaces a recorded one of its namespace and name; each namespace's are in
    name order, as the snapshot's are (the first to default a request sets it)."""
    shipped = [
        body
        for body in bodies
        if body.get("kind") == "LimitRange" and body.get("apiVersion") == "v1" and accepted(body)
    ]
    if not shipped:
        return admission
    by_namespace = {ns: list(ranges) for ns, ranges in admission.limit_ranges.items()}
    for body in shipped:
        metadata = mapping(body.get("metadata"))
        namespace = str(metadata.get("namespace") or "default")
        ranges = by_namespace.setdefault(namespace, [])
        name = metadata.get("name")
        same = [i for i, r in enumerate(ranges) if mapping(r.get("metadata")).get("name") == name]
        if same:
            ranges[same[0]] = body
        else:
            ranges.append(body)
    limit_ranges = {
        ns: tuple(sorted(ranges, key=lambda r: str(mapping(r.get("metadata")).get("name"))))
        for ns, ranges in by_namespace.items()
    }
    return replace(admission, limit_ranges=limit_ranges)


_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"


def _same_amounts(defined: Mapping[str, Any], written: object) -> bool:
    """apiequality.Semantic.DeepEqual of two resource lists: the same names, each quantity
    equal by value (an empty list is an absent one)."""
    other = mapping(written)
    if set(defined) != set(other):
        return False
    try:
        return all(parse_quantity(defined[n]) == parse_quantity(other[n]) for n in defined)
    except QuantityError:  # reported when the requests are read
        return False


def _validate_overhead(spec: Spec, admission: AdmissionObjects) -> None:
    """The RuntimeClass plugin's validateOverhead: an overhead the pod writes needs a
    RuntimeClass that defines one (a class the snapshot lacks is not known to lack it)."""
    name = spec.get("runtimeClassName")
    runtime_class = admission.runtime_classes.get(str(name)) if name else None
    if name and runtime_class is None:
        return
    defined = runtime_class is not None and runtime_class.get("overhead") is not None
    if not defined and spec.get("overhead") is not None:
        raise AdmissionRefused(
            "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
        )


def with_run_namespaces(
    admission: AdmissionObjects, bodies: Iterable[Mapping[str, Any]]
) -> AdmissionObjects:
    """The labels of the Namespaces among the run's manifests (the last of a name): applied
    with its workloads, a Namespace's labels are what the PodSecurity plugin reads for the
    pods their controllers create after it, in place of the recorded namespace's."""
    shipped = {
        str(mapping(body.get("metadata")).get("name")): text_labels(
            mapping(body.get("metadata")).get("labels")
        )
        for body in bodies
        if body.get("kind") == "Namespace" and body.get("apiVersion") == "v1"
    }
    if not shipped:
        return admission
    return replace(admission, namespaces={**admission.namespaces, **shipped})


def complete_pod_spec(
    spec: Mapping[str, Any],
    namespace: str,
    admission: AdmissionObjects,
    pod_level_resources: bool = True,
    labels: Mapping[str, str] | None = None,
    validated: bool = True,
    identity: PodIdentity | None = None,
    pod_security: LevelVersion | None = None,
    annotations: Mapping[str, str] | None = None,
) -> tuple[Spec, list[WorkloadWarning]]:
    """The pod spec the scheduler would see, and warnings about what could not be applied,
    in the API server's order: defaults applied while the request is decoded, then the
    admission plugins. ``pod_level_resources``: the PodLevelResources gate (on by default
    from v1.34); without it the API server drops ``spec.resources``. ``labels``: the pod's,
    which its selectors' matchLabelKeys read when it is created (None: not checked).
    ``validated``: the template was held to the pod's rules when it was read, so only an
    error the completion makes is new; a StatefulSet's is not (its API leaves its pod spec
    to the pods), and its pod is then validated whole, with the hostname and subdomain
    its controller gives it (``identity``; the template's own when None). ``pod_security``:
    the namespace's Pod Security enforce level, which checks the pod and its
    ``annotations`` (:mod:`gate.k8s.podsecurity`; None: its labels are not known). Raises
    :class:`AdmissionRefused` where an admission plugin would refuse the pod, or where the
    pod would fail its validation."""
    completed: Spec = dict(spec)
    warnings: list[WorkloadWarning] = []
    host_network = bool(spec.get("hostNetwork"))
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        if isinstance(items, list):
            completed[key] = [
                _decoded_container(c, host_network) if isinstance(c, Mapping) else c for c in items
            ]
    if pod_level_resources:
        _pod_level_defaults(completed)
    elif completed.pop("resources", None) is not None:
        warnings.append(
            _admission(
                "spec.resources (pod-level resources) is dropped by the API server before v1.34 "
                "(PodLevelResources off): the containers' requests count"
            )
        )
    _round_resource_lists(completed)
    limit_ranges = admission.limit_ranges.get(namespace, ())
    defaults = [d for d in map(range_defaults, limit_ranges) if d["default"] or d["defaultRequest"]]
    undefaulted = {key: completed.get(key) for key in ("containers", "initContainers")}
    for key in ("containers", "initContainers"):
        items = completed.get(key)
        if isinstance(items, list) and defaults:
            completed[key] = [
                _limit_range_defaults(c, defaults) if isinstance(c, dict) else c for c in items
            ]
    try:  # Priority runs before RuntimeClass in the API server's admission chain
        warnings += admit_priority(completed, admission)
    except PriorityRefused as exc:
        raise AdmissionRefused(str(exc), mutating=True) from exc
    _runtime_class(completed, admission, warnings)
    tolerations = completed.get("tolerations")
    completed["tolerations"] = _default_tolerations(
        list(tolerations) if isinstance(tolerations, list) else []
    )
    # ValidatePod's containers come before its pod-level resources
    if identity is not None and not identity.created:
        errors = []
    elif validated:
        errors = pod_volume_problems(completed)
        errors += _containers_made_invalid(spec, undefaulted, completed, bool(defaults))
        errors += _newly_inconsistent(spec, completed)
        if labels is not None:
            errors += _merged_label_keys(completed, labels)
        errors += pod_only_problems(completed)
    else:  # the merged selectors are validated in their place in ValidatePodSpec
        errors = pod_create_problems(
            with_merged_label_keys(completed, labels or {}), labels or {}, identity, annotations
        )
    invalid = aggregate(errors)
    if invalid is not None:
        raise AdmissionRefused(invalid, invalid=True)
    # The validating phase, in the API server's order (kube-apiserver's AllOrderedPlugins):
    # LimitRanger, PodSecurity, then RuntimeClass.
    violations = range_violations(completed, limit_ranges)
    if violations is not None:
        raise AdmissionRefused(violations)
    if pod_security is not None:
        refusal = violation(pod_security, annotations or {}, completed)
        if refusal is not None:
            raise AdmissionRefused(refusal)
    _validate_overhead(completed, admission)
    return completed, warnings
