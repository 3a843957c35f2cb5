"""Documents -> workloads, from one table of where each kind keeps its pod template."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gate.errors import QuantityError
from gate.inputs.shape import METADATA, POD_SPEC, shape_problem
from gate.k8s.quantity import parse_quantity
from gate.model import (
    Document,
    Location,
    Verdict,
    WarningKind,
    Workload,
    WorkloadResult,
    WorkloadWarning,
)

Path = tuple[str, ...]

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


@dataclass(frozen=True, slots=True)
class Unevaluated:
    """A document that is (or claims to be) a workload but is not evaluated: ``ERROR``
    when it cannot be read as one, ``SKIPPED`` when its annotation asks so."""

    verdict: Verdict
    kind: str
    namespace: str
    name: str
    location: Location
    reason: str

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
        )


@dataclass(frozen=True, slots=True)
class OtherDocument:
    """A document without a pod template (Service, ConfigMap, CRD...): counted, not checked."""

    kind: str


Extracted = Workload | Unevaluated | OtherDocument


def _get(obj: object, path: Path) -> object:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


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


def _quantity_problem(spec: Mapping[str, Any], prefix: str) -> str | None:
    """The first resource quantity that does not parse, named by its field path."""
    places: list[tuple[str, object]] = [
        (f"{prefix}.overhead", spec.get("overhead")),
        (f"{prefix}.resources.requests", _get(spec, ("resources", "requests"))),
        (f"{prefix}.resources.limits", _get(spec, ("resources", "limits"))),
    ]
    for key in ("initContainers", "containers"):
        items = spec.get(key)
        if items is not None and not isinstance(items, list):
            return f"{prefix}.{key}: expected a list"
        for i, container in enumerate(items or []):
            if not isinstance(container, Mapping):
                return f"{prefix}.{key}[{i}]: expected a mapping"
            for path in _QUANTITY_FIELDS:
                places.append((f"{prefix}.{key}[{i}].{'.'.join(path)}", _get(container, path)))
    for where, resources in places:
        if resources is None:
            continue
        if not isinstance(resources, Mapping):
            return f"{where}: expected a mapping of resource quantities"
        for name, value in resources.items():
            try:
                parse_quantity(value)
            except QuantityError as exc:
                return f"{where}.{name}: {exc}"
    return None


def _unreadable(
    kind: str, namespace: str, name: str, location: Location, reason: str
) -> Unevaluated:
    return Unevaluated(Verdict.ERROR, kind, namespace, name, location, reason)


def extract(
    document: Document, template_paths: Mapping[str, tuple[Path, Path | None, int | None]]
) -> Extracted:
    body = document.body
    location = document.location
    if body is None:
        verdict = Verdict.ERROR if document.skipped is None else Verdict.SKIPPED
        reason = document.error or document.skipped or "unreadable"
        return Unevaluated(verdict, "Document", "", str(location), location, reason)
    kind, namespace, name = _identity(body)
    entry = template_paths.get(kind)
    if entry is None:
        return OtherDocument(kind or "(no kind)")
    spec_path, replicas_path, default_replicas = entry
    problem = shape_problem(body.get("metadata"), METADATA, "metadata")
    if problem:
        return _unreadable(kind, namespace, name, location, problem)
    annotations = _get(body, ("metadata", "annotations"))
    annotations = annotations if isinstance(annotations, Mapping) else {}
    if SKIP_ANNOTATION in annotations:
        reason = str(annotations[SKIP_ANNOTATION] or "").strip() or "skipped by annotation"
        reason = f"{SKIP_ANNOTATION}: {reason}"
        return Unevaluated(Verdict.SKIPPED, kind, namespace, name, location, reason)
    spec = _get(body, spec_path)
    field = ".".join(spec_path)
    if not isinstance(spec, Mapping):
        return _unreadable(kind, namespace, name, location, f"{field}: missing or not a mapping")
    containers = spec.get("containers")
    if not isinstance(containers, list) or not containers:
        return _unreadable(kind, namespace, name, location, f"{field}.containers: missing or empty")
    problem = shape_problem(spec, POD_SPEC, field) or _quantity_problem(spec, field)
    if problem:
        return _unreadable(kind, namespace, name, location, problem)
    replicas = _get(body, replicas_path) if replicas_path else None
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        replicas = default_replicas
    warnings = []
    if kind == "StatefulSet" and _get(body, ("spec", "volumeClaimTemplates")):
        text = (
            "volumeClaimTemplates: volume filters (VolumeBinding, VolumeZone, "
            "NodeVolumeLimits) not checked"
        )
        warnings.append(WorkloadWarning(WarningKind.NOT_MODELLED, text))
    return Workload(
        kind=kind,
        namespace=namespace,
        name=name,
        location=location,
        replicas=replicas,
        pod_spec=spec,
        annotations={str(k): str(v) for k, v in annotations.items()},
        warnings=tuple(warnings),
    )


def extract_all(
    documents: Iterator[Document],
    template_paths: Mapping[str, tuple[Path, Path | None, int | None]] = TEMPLATE_PATHS,
) -> Iterator[Extracted]:
    for document in documents:
        yield extract(document, template_paths)
