"""Documents -> workloads, from one table of where each kind keeps its pod template."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from gate.errors import QuantityError
from gate.inputs.counts import BadCount, read_count
from gate.inputs.custom_kinds import (
    WORKLOAD_REF_KINDS,
    CustomKind,
    KindTable,
    api_group,
    kind_table,
    pod_template_path,
    templates,
)
from gate.inputs.positions import document_field
from gate.inputs.scaling import (
    max_surge,
    max_unavailable,
    queue_of,
    rolling_update,
    wanted_pods,
)
from gate.inputs.shape import METADATA, POD_SPEC, shape_problem
from gate.k8s.claims import FOLLOWED_COPIES, FOLLOWED_COPIES_TEXT
from gate.k8s.podlabels import GENERATION_ANNOTATION, controller_labels
from gate.k8s.quantity import NEGATIVE, nonnegative_quantity, parse_quantity
from gate.k8s.selectors import text_labels
from gate.k8s.validation import (
    pod_template_problem,
    workload_problem,
)
from gate.k8s.volumes import ephemeral_volumes, start_ordinal
from gate.k8s.warnings import CLAIM_TEMPLATES_UNCHECKED
from gate.model import (
    Document,
    FieldLocation,
    Location,
    Scaling,
    Source,
    Verdict,
    WarningKind,
    Workload,
    WorkloadResult,
    WorkloadWarning,
)
from gate.untyped import at

Path = tuple[str, ...]
Rules = Literal["kind", "template", "none"]

# kind -> (path to the pod spec, path to the replica count or None, default replicas)
TEMPLATE_PATHS: dict[str, tuple[Path, Path | None, int | None]] = {
    "Pod": (("spec",), None, 1),
    "Deployment": (("spec", "template", "spec"), ("spec", "replicas"), 1),
    "ReplicaSet": (("spec", "template", "spec"), ("spec", "replicas"), 1),
    "StatefulSet": (("spec", "template", "spec"), ("spec", "replicas"), 1),
    "ReplicationController": (("spec", "template", "spec"), ("spec", "replicas"), 1),
    "DaemonSet": (("spec", "template", "spec"), None, None),
    "Job": (("spec", "template", "spec"), ("spec", "parallelism"), 1),
    "CronJob": (
        ("spec", "jobTemplate", "spec", "template", "spec"),
        ("spec", "jobTemplate", "spec", "parallelism"),
        1,
    ),
    "PodTemplate": (("template", "spec"), None, None),
}

SKIP_ANNOTATION = "fitgate.dev/skip"
BUILT_IN_COUNTS = frozenset(
    {"Pod", "Deployment", "ReplicaSet", "StatefulSet", "ReplicationController", "Job", "CronJob"}
)
"""Kinds whose wanted pods follow their controller's rules (:mod:`gate.inputs.scaling`)."""


@dataclass(frozen=True, slots=True)
class Unevaluated:
    """A document that is (or claims to be) a workload but is not evaluated: ``ERROR``
    when it cannot be read as one, ``SKIPPED`` when its annotation asks so or when its
    kind is unknown but carries a pod template (then ``warning``: the reason is also a
    warning, so that no report passes over it)."""

    verdict: Verdict
    kind: str
    namespace: str
    name: str
    location: Location
    reason: str
    warning: bool = False
    field_at: FieldLocation | None = None
    """The field the reason names, when it is one of the document's (a replica count)."""

    def result(self) -> WorkloadResult:
        """The verdict every report shows for it, with the reason in the document's place."""
        return WorkloadResult(
            kind=self.kind,
            namespace=self.namespace,
            name=self.name,
            location=self.location,
            replicas=None,
            verdict=self.verdict,
            reason=self.reason,
            warnings=(WorkloadWarning(WarningKind.NOT_MODELLED, self.reason),)
            if self.warning
            else (),
            field_at=self.field_at,
        )


@dataclass(frozen=True, slots=True)
class OtherDocument:
    """A document without a pod template (Service, ConfigMap, CRD...): counted, not checked."""

    kind: str


Extracted = Workload | Unevaluated | OtherDocument


def _identity(body: Mapping[str, Any]) -> tuple[str, str, str]:
    """Kind, namespace and name; a value that is not text counts as absent (such a
    document is refused by :data:`~gate.inputs.shape.METADATA` before it is shown)."""
    metadata = body.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    generated = _text(metadata.get("generateName"))
    name = _text(metadata.get("name")) or (f"{generated}*" if generated else "(unnamed)")
    namespace = _text(metadata.get("namespace")) or "default"
    return _text(body.get("kind")), namespace, name


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


_QUANTITY_FIELDS: tuple[Path, ...] = (("resources", "requests"), ("resources", "limits"))


def _quantity_problem(spec: Mapping[str, Any], prefix: str, signed: bool) -> str | None:
    """The first resource quantity the API server refuses (one that does not parse, or,
    unless ``signed``, a negative one), named by its field path. ``signed``: the template is
    held to the API server's validation, which words a negative quantity itself, beside
    its other errors."""
    places: list[tuple[str, object]] = [
        (f"{prefix}.overhead", spec.get("overhead")),
        (f"{prefix}.resources.requests", at(spec, ("resources", "requests"))),
        (f"{prefix}.resources.limits", at(spec, ("resources", "limits"))),
    ]
    for key in ("initContainers", "containers"):
        items = spec.get(key)
        if items is not None and not isinstance(items, list):
            return f"{prefix}.{key}: expected a list"
        for i, container in enumerate(items or []):
            if not isinstance(container, Mapping):
                return f"{prefix}.{key}[{i}]: expected a mapping"
            for path in _QUANTITY_FIELDS:
                places.append((f"{prefix}.{key}[{i}].{'.'.join(path)}", at(container, path)))
    for where, resources in places:
        if resources is None:
            continue
        if not isinstance(resources, Mapping):
            return f"{where}: expected a mapping of resource quantities"
        for name, value in resources.items():
            try:
                parse_quantity(value) if signed else nonnegative_quantity(value)
            except QuantityError as exc:
                return f"{where}.{name}: {exc}"
    return None


def _unreadable(
    kind: str, namespace: str, name: str, location: Location, reason: str
) -> Unevaluated:
    return Unevaluated(Verdict.ERROR, kind, namespace, name, location, reason)


def _bad_count(
    body: Mapping[str, Any],
    location: Location,
    bad: BadCount,
    source: Source | None,
    label: str = "",
) -> Unevaluated:
    """A workload whose replica-like field holds no count: an ERROR naming the field and
    its value, pointing at the field's line."""
    kind, namespace, name = _identity(body)
    name = f"{name} [{label}]" if label else name
    at = document_field(source, bad.path, bad.field)
    return Unevaluated(Verdict.ERROR, kind, namespace, name, location, str(bad), field_at=at)


def _queued(kind: str, body: Mapping[str, Any]) -> tuple[WorkloadWarning, ...]:
    """The note on a suspended Job that a Kueue queue resumes when it admits it."""
    queue = queue_of(kind, body)
    if queue is None:
        return ()
    text = (
        f"suspended, for Kueue queue {queue} to resume on admission: judged as resumed "
        "(the queue's ResourceFlavor may add node labels and tolerations)"
    )
    return (WorkloadWarning(WarningKind.SCHEDULING, text),)


def _annotations(body: Mapping[str, Any]) -> Mapping[str, Any]:
    annotations = at(body, ("metadata", "annotations"))
    return annotations if isinstance(annotations, Mapping) else {}


def _skip(body: Mapping[str, Any], location: Location) -> Unevaluated | None:
    """A workload's document that is not evaluated: metadata of a type the API server
    refuses (an ERROR), or the skip annotation (SKIPPED)."""
    problem = shape_problem(body.get("metadata"), METADATA, "metadata")
    if problem:
        kind, namespace, name = _identity(body)
        return _unreadable(kind, namespace, name, location, problem)
    annotations = _annotations(body)
    if SKIP_ANNOTATION not in annotations:
        return None
    kind, namespace, name = _identity(body)
    reason = str(annotations[SKIP_ANNOTATION] or "").strip() or "skipped by annotation"
    reason = f"{SKIP_ANNOTATION}: {reason}"
    return Unevaluated(Verdict.SKIPPED, kind, namespace, name, location, reason)


def _template_labels(body: Mapping[str, Any], field: str) -> dict[str, str]:
    """The labels beside the pod template's ``spec`` (``spec.template.metadata.labels`` for
    ``spec.template.spec``, ``metadata.labels`` for a Pod's ``spec``); none when the
    template is not reached by plain field names."""
    return text_labels(_written_labels(body, field))


def _written_labels(body: Mapping[str, Any], field: str) -> object:
    path = tuple(field.split("."))
    if path[-1:] != ("spec",) or any(not part.isidentifier() for part in path):
        return None
    return at(body, (*path[:-1], "metadata", "labels"))


def _template_annotations(body: Mapping[str, Any], field: str) -> dict[str, str]:
    """The annotations beside the pod template's ``spec``, read as :func:`_written_labels`
    reads its labels."""
    path = tuple(field.split("."))
    if path[-1:] != ("spec",) or any(not part.isidentifier() for part in path):
        return {}
    return text_labels(at(body, (*path[:-1], "metadata", "annotations")))


def _refused(
    kind: str, body: Mapping[str, Any], spec: Mapping[str, Any], field: str, rules: Rules
) -> str | None:
    """What the API server's validation refuses in the template (:mod:`gate.k8s.validation`):
    with the kind's own rules on it (selector, restart policy) for a built-in kind read at
    its usual path, the template's alone for one read elsewhere. A custom kind's template
    is its own API's to validate (Knative names the containers a manifest leaves unnamed),
    so it is not held to a pod's rules here."""
    if rules == "kind":
        return workload_problem(kind, body, spec)
    if rules == "template":
        return pod_template_problem(spec, field, _written_labels(body, field))
    return None


def _workload(
    body: Mapping[str, Any],
    location: Location,
    spec: object,
    field: str,
    replicas: int | None,
    label: str = "",
    source: Source | None = None,
    rules: Rules = "none",
) -> Workload | Unevaluated:
    """The pod template at ``field`` of a document, checked, as a workload (or why not);
    ``source`` is where the document's text is; ``rules`` says which of the API server's
    validations hold it (:func:`_refused`)."""
    kind, namespace, name = _identity(body)
    if label:
        name = f"{name} [{label}]"
    if not isinstance(spec, Mapping):
        return _unreadable(kind, namespace, name, location, f"{field}: missing or not a mapping")
    containers = spec.get("containers")
    if not isinstance(containers, list) or not containers:
        return _unreadable(kind, namespace, name, location, f"{field}.containers: missing or empty")
    problem = (
        shape_problem(spec, POD_SPEC, field)
        or _quantity_problem(spec, field, signed=rules != "none")
        or _refused(kind, body, spec, field, rules)
    )
    if problem:
        return _unreadable(kind, namespace, name, location, problem)
    labels = _template_labels(body, field)
    added = _controller_labels(kind, name, body, labels) if rules == "kind" else {}
    if replicas is not None and replicas > FOLLOWED_COPIES and _claims_own(kind, body, spec):
        text = FOLLOWED_COPIES_TEXT.format(copies=f"{replicas:,}")
        return _unreadable(kind, namespace, name, location, text)
    warnings = list(_queued(kind, body))
    if kind == "StatefulSet" and at(body, ("spec", "volumeClaimTemplates")):
        warnings.append(WorkloadWarning(WarningKind.NOT_MODELLED, CLAIM_TEMPLATES_UNCHECKED))
    surge = max_surge(kind, body, replicas or 0)
    node_surge = _node_surge(kind, body)
    return Workload(
        kind=kind,
        namespace=namespace,
        name=name,
        location=location,
        replicas=replicas,
        pod_spec=spec,
        annotations={str(k): str(v) for k, v in _annotations(body).items()},
        pod_annotations=_template_annotations(body, field),
        warnings=tuple(warnings),
        labels=labels,
        scaling=(
            Scaling(
                surge=surge,
                unavailable=_unavailable(kind, body, replicas or 0, surge),
                rolling_update=_written_rollout(kind, body),
                node_surge=node_surge,
            )
            if surge or node_surge is not None
            else None
        ),
        source=source,
        template=field,
        claim_templates=_claim_templates(kind, body),
        overlaps=_overlaps(kind, body),
        parallel=kind == "StatefulSet" and at(body, ("spec", "podManagementPolicy")) == "Parallel",
        first_ordinal=start_ordinal(body) if kind == "StatefulSet" else 0,
        indexed=_indexed(kind, body),
        controller_labels=added,
        paused=kind == "Deployment" and at(body, ("spec", "paused")) is True,
        service_name=_service_name(kind, body),
    )


def _controller_labels(
    kind: str, name: str, body: Mapping[str, Any], labels: Mapping[str, str]
) -> dict[str, str]:
    job = {"Job": ("spec",), "CronJob": ("spec", "jobTemplate", "spec")}.get(kind)
    manual = job is not None and at(body, (*job, "manualSelector")) is True
    return controller_labels(
        kind,
        name,
        labels,
        manual_selector=manual,
        first_ordinal=start_ordinal(body) if kind == "StatefulSet" else 0,
        indexed=_indexed(kind, body),
        generation=_template_generation(body),
    )


def _service_name(kind: str, body: Mapping[str, Any]) -> str:
    service = at(body, ("spec", "serviceName")) if kind == "StatefulSet" else None
    return service if isinstance(service, str) else ""


def _template_generation(body: Mapping[str, Any]) -> int:
    """A new DaemonSet's template generation: 1, or the ``deprecated.daemonset.template.
    generation`` annotation its manifest gives when that is more (the apps/v1 conversion
    reads it; the registry's PrepareForCreate raises one below 1 to 1)."""
    written = _annotations(body).get(GENERATION_ANNOTATION)
    digits = written.strip() if isinstance(written, str) else ""
    return max(int(digits), 1) if digits.isdigit() and digits.isascii() else 1


def _indexed(kind: str, body: Mapping[str, Any]) -> bool:
    """A Job, or a CronJob's Job, whose ``completionMode`` is ``Indexed``."""
    job = {"Job": ("spec",), "CronJob": ("spec", "jobTemplate", "spec")}.get(kind)
    return job is not None and at(body, (*job, "completionMode")) == "Indexed"


def _unavailable(kind: str, body: Mapping[str, Any], wanted: int, surge: int) -> int | None:
    """A Deployment's ``maxUnavailable``; None for a DaemonSet, whose surge replaces its
    pod node by node (its controller is not modelled here)."""
    return max_unavailable(body, wanted, surge) if kind == "Deployment" else None


def _written_rollout(kind: str, body: Mapping[str, Any]) -> tuple[object, object] | None:
    """A Deployment's ``maxSurge`` and ``maxUnavailable`` as written."""
    update = rolling_update(kind, body) if kind == "Deployment" else None
    if update is None:
        return None
    return at(update, ("maxSurge",)), at(update, ("maxUnavailable",))


def _node_surge(kind: str, body: Mapping[str, Any]) -> object:
    """A DaemonSet's ``maxSurge`` as written, when it is not 0 (nor ``"0%"``): the number
    of nodes it is a part of is known only to the scheduler's stage."""
    update = rolling_update(kind, body) if kind == "DaemonSet" else None
    surge = None if update is None else at(update, ("maxSurge",))
    return None if surge in (None, 0, "0%") or isinstance(surge, bool) else surge


def _overlaps(kind: str, body: Mapping[str, Any]) -> bool:
    """A CronJob whose next Job starts while the last one runs: ``concurrencyPolicy``
    ``Allow`` (the default). ``Forbid`` starts none until the running Job ends and
    ``Replace`` deletes it first (pkg/controller/cronjob/cronjob_controllerv2.go
    syncCronJob): either way its pods are gone when the new ones start."""
    if kind != "CronJob":
        return False
    return at(body, ("spec", "concurrencyPolicy")) in (None, "Allow")


def _claim_templates(kind: str, body: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of a StatefulSet's ``volumeClaimTemplates``, in their order."""
    if kind != "StatefulSet":
        return ()
    templates = at(body, ("spec", "volumeClaimTemplates"))
    items = templates if isinstance(templates, list) else []
    names = (at(t, ("metadata", "name")) for t in items if isinstance(t, Mapping))
    return tuple(n for n in names if isinstance(n, str) and n)


def _claims_own(kind: str, body: Mapping[str, Any], spec: Mapping[str, Any]) -> bool:
    """Whether each copy has claims of its own: a StatefulSet's claim templates, a pod's
    generic ephemeral volumes."""
    return bool(_claim_templates(kind, body)) or bool(ephemeral_volumes(spec))


def extract(
    document: Document, template_paths: Mapping[str, tuple[Path, Path | None, int | None]]
) -> Extracted:
    """A document of a core kind (or of a kind given by ``--template-path``)."""
    body = document.body
    location = document.location
    if body is None:
        verdict = Verdict.ERROR if document.skipped is None else Verdict.SKIPPED
        reason = document.error or document.skipped or "unreadable"
        return Unevaluated(verdict, "Document", "", str(location), location, reason)
    kind = _identity(body)[0]
    entry = template_paths.get(kind)
    if entry is None:
        return OtherDocument(kind or "(no kind)")
    skipped = _skip(body, location)
    if skipped:
        return skipped
    spec_path, replicas_path, default_replicas = entry
    replicas: int | BadCount | None = default_replicas
    usual = template_paths.get(kind) == TEMPLATE_PATHS.get(kind)
    rules: Rules = "kind" if usual else "template" if kind in TEMPLATE_PATHS else "none"
    if kind in BUILT_IN_COUNTS and usual:
        replicas = wanted_pods(kind, body)
    elif replicas_path:
        found = read_count(body, replicas_path, -1)
        replicas = default_replicas if found == -1 else found
    spec = at(body, spec_path)
    field = ".".join(spec_path)
    if isinstance(replicas, BadCount):
        return _refused_count(body, location, replicas, document.source, (spec, field, rules))
    return _workload(body, location, spec, field, replicas, "", document.source, rules)


def _refused_count(
    body: Mapping[str, Any],
    location: Location,
    bad: BadCount,
    source: Source | None,
    template: tuple[object, str, Rules],
) -> Unevaluated:
    """A workload whose count is none: a negative one the API server validates is one of
    the field errors it lists, in its place among the others (:mod:`gate.k8s.validation`
    states it), when the workload is read far enough for them; the API server's refusal of
    it alone points at its line, and so does a count no validation reaches."""
    spec, field, rules = template
    if rules == "kind" and str(bad).endswith(NEGATIVE):
        found = _workload(body, location, spec, field, None, "", source, rules)
        if isinstance(found, Unevaluated) and str(bad) in found.reason:
            if found.reason.endswith(f" is invalid: {bad}"):
                return replace(_bad_count(body, location, bad, source), reason=found.reason)
            return found
    return _bad_count(body, location, bad, source)


def _custom(
    body: Mapping[str, Any], location: Location, row: CustomKind, source: Source | None
) -> Iterator[Workload | Unevaluated]:
    """One workload per pod template of a custom kind (see :mod:`gate.inputs.custom_kinds`)."""
    kind, namespace, name = _identity(body)
    for found in templates(body, row):
        if isinstance(found, str):
            yield _unreadable(kind, namespace, name, location, found)
        elif isinstance(found.replicas, BadCount):
            yield _bad_count(body, location, found.replicas, source, found.label)
        else:
            spec, field = found.spec, found.field
            yield _workload(body, location, spec, field, found.replicas, found.label, source)


def _unknown(body: Mapping[str, Any], location: Location) -> Unevaluated | None:
    """A document of a kind fitgate does not know that visibly carries a pod template: not
    checked, and said so with the field to configure."""
    path = pod_template_path(body)
    if path is None:
        return None
    kind, namespace, name = _identity(body)
    group = api_group(body.get("apiVersion"))
    reason = (
        f"{kind} ({group or 'core'}) is not a kind fitgate knows, but it carries a pod template "
        f"at {path}: not checked; configure it with --template-path {kind}={path} "
        "or customKinds in .fitgate.yaml"
    )
    return Unevaluated(Verdict.SKIPPED, kind, namespace, name, location, reason, warning=True)


class _WorkloadRefs:
    """Argo Rollouts' ``spec.workloadRef``: the Rollout runs the template of a Deployment of
    its namespace, with its own replicas. The templates seen so far are remembered (a
    reference, not a copy); a Rollout whose Deployment comes later in the run is resolved at
    the end of the run, and one whose Deployment never comes is an ERROR saying so."""

    KINDS = ("Deployment", "ReplicaSet", "PodTemplate")

    def __init__(self, template_paths: Mapping[str, tuple[Path, Path | None, int | None]]):
        self._paths = template_paths
        self._seen: dict[tuple[str, str, str], tuple[object, str]] = {}
        self._waiting: list[tuple[Mapping[str, Any], Location, Source | None]] = []

    def remember(self, body: Mapping[str, Any]) -> None:
        kind, namespace, name = _identity(body)
        entry = self._paths.get(kind)
        if kind in self.KINDS and entry is not None:
            path = entry[0]
            self._seen[(kind, namespace, name)] = (at(body, path), ".".join(path))

    def resolve(
        self,
        body: Mapping[str, Any],
        location: Location,
        final: bool = False,
        source: Source | None = None,
    ) -> Workload | Unevaluated | None:
        """The Rollout's workload, or None to wait for the rest of the run."""
        ref = at(body, ("spec", "workloadRef"))
        ref = ref if isinstance(ref, Mapping) else {}
        kind, namespace, _ = _identity(body)
        target = (str(ref.get("kind") or "Deployment"), namespace, str(ref.get("name") or ""))
        seen = self._seen.get(target)
        replicas = read_count(body, ("spec", "replicas"), 1)
        if isinstance(replicas, BadCount):
            return _bad_count(body, location, replicas, source)
        if seen is not None:
            spec, field = seen
            via = f"spec.workloadRef -> {target[0]} {namespace}/{target[2]} {field}"
            return _workload(body, location, spec, via, replicas)
        if not final:
            self._waiting.append((body, location, source))
            return None
        name = _identity(body)[2]
        reason = f"spec.workloadRef: {target[0]} {namespace}/{target[2]} is not in this run"
        return _unreadable(kind, namespace, name, location, reason)

    def unresolved(self) -> Iterator[Workload | Unevaluated]:
        for body, location, source in self._waiting:
            result = self.resolve(body, location, final=True, source=source)
            if result is not None:
                yield result


def _referring(
    body: Mapping[str, Any], location: Location, refs: _WorkloadRefs, source: Source | None
) -> Iterator[Extracted]:
    skipped = _skip(body, location)
    resolved = skipped or refs.resolve(body, location, source=source)
    if resolved is not None:
        yield resolved


def _document(
    document: Document,
    template_paths: Mapping[str, tuple[Path, Path | None, int | None]],
    kinds: KindTable,
    refs: _WorkloadRefs,
) -> Iterator[Extracted]:
    body = document.body
    key = (api_group(body.get("apiVersion")), _identity(body)[0]) if body else ("", "")
    if body is not None and key in WORKLOAD_REF_KINDS and at(body, ("spec", "workloadRef")):
        yield from _referring(body, document.location, refs, document.source)
        return
    row = kinds.get(key)
    if body is None or row is None:
        item = extract(document, template_paths)
        if body is not None and isinstance(item, OtherDocument):
            unknown = _unknown(body, document.location)
            yield unknown or item
            return
        if body is not None:
            refs.remember(body)
        yield item
        return
    skipped = _skip(body, document.location)
    if skipped:
        yield skipped
        return
    found: list[Extracted] = list(_custom(body, document.location, row, document.source))
    yield from found or [OtherDocument(row.kind)]


def extract_all(
    documents: Iterator[Document],
    template_paths: Mapping[str, tuple[Path, Path | None, int | None]] = TEMPLATE_PATHS,
    custom_kinds: KindTable | None = None,
) -> Iterator[Extracted]:
    """Every workload of the run, in input order (a Rollout whose workloadRef names a
    Deployment further on comes at the end). A kind given in ``template_paths`` is read
    there, whatever the custom kinds' table says of it."""
    kinds = kind_table() if custom_kinds is None else custom_kinds
    kinds = {key: row for key, row in kinds.items() if key[1] not in _overridden(template_paths)}
    refs = _WorkloadRefs(template_paths)
    for document in documents:
        yield from _document(document, template_paths, kinds, refs)
    yield from refs.unresolved()


def _overridden(template_paths: Mapping[str, tuple[Path, Path | None, int | None]]) -> set[str]:
    return {kind for kind, entry in template_paths.items() if TEMPLATE_PATHS.get(kind) != entry}
